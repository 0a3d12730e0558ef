# The input model of every fitting function: sparse matrices, metric =,
# pca =. Each is checked against the equivalent computation by hand.

fi_data <- local({
  set.seed(11)
  roll <- swiss_roll(80, seed = 5)$x
  A <- matrix(rnorm(3 * 12), 3)
  X <- roll %*% A + matrix(rnorm(80 * 12, sd = 0.05), 80)
  X[abs(X) < 0.5] <- 0
  colnames(X) <- paste0("f", 1:12)
  rownames(X) <- paste0("c", 1:80)
  list(train = X[1:64, ], new = X[65:80, ], lab = rep(c("u", "v"), each = 32))
})

fi_fits <- list(
  kpca = list(ndim = 2), mds = list(ndim = 2),
  isomap = list(ndim = 2, k = 8), lle = list(ndim = 2, k = 8),
  lle_modified = list(ndim = 2, k = 8, variant = "modified"),
  laplacian_eigenmaps = list(ndim = 2, k = 8), ltsa = list(ndim = 2, k = 8),
  diffusion_map = list(ndim = 2, k = 8, kernel = "knn"),
  lpp = list(ndim = 2, k = 6), olpp = list(ndim = 2, k = 6), npe = list(ndim = 2, k = 8),
  onpp = list(ndim = 2, k = 8), klpp = list(ndim = 2, k = 6),
  spectral_regression = list(ndim = 2, k = 6), lgrm = list(ndim = 2, k = 8),
  plml = list(ndim = 2, k = 8, seed = 1), nppe = list(ndim = 2, k = 8, degree = 1),
  supervised_le = list(labels = fi_data$lab, ndim = 2),
  fisher_embedding = list(labels = fi_data$lab, ndim = 2),
  ke_lle = list(ndim = 2, k = 8)
)

fi_fun <- function(nm) getExportedValue("manifoldOOS", sub("_modified$", "", nm))

fi_fit <- function(nm, X, ...) {
  suppressWarnings(do.call(fi_fun(nm), c(list(X = X), fi_fits[[nm]], list(...))))
}

unit_rows <- function(X) X / sqrt(rowSums(X^2))

test_that("metric = \"cosine\" / \"correlation\" equal the Euclidean fit on the scaled rows", {
  Xt <- fi_data$train
  Xn <- fi_data$new
  for (nm in names(fi_fits)) {
    a <- fi_fit(nm, Xt, metric = "cosine")
    b <- fi_fit(nm, unit_rows(Xt))
    expect_identical(unname(embedding(a)), unname(embedding(b)), info = nm)
    expect_identical(a$params$metric, "cosine", info = nm)
    expect_identical(unname(predict(a, Xn)), unname(predict(b, unit_rows(Xn))), info = nm)
    # columns are still matched by the names of the input
    expect_identical(predict(a, Xn[, 12:1]), predict(a, Xn), info = nm)
    if (nm %in% c("isomap", "laplacian_eigenmaps", "lle", "ltsa")) {
      c1 <- fi_fit(nm, Xt, metric = "correlation")
      c2 <- fi_fit(nm, unit_rows(Xt - rowMeans(Xt)))
      expect_identical(unname(embedding(c1)), unname(embedding(c2)), info = nm)
    }
  }
})

test_that("a sparse matrix gives the fit and the predictions of its dense copy", {
  St <- Matrix::Matrix(fi_data$train, sparse = TRUE)
  Sn <- Matrix::Matrix(fi_data$new, sparse = TRUE)
  for (nm in names(fi_fits)) {
    a <- fi_fit(nm, St)
    b <- fi_fit(nm, fi_data$train)
    expect_equal(embedding(a), embedding(b), tolerance = 1e-10, info = nm)
    expect_equal(predict(a, Sn), predict(b, fi_data$new), tolerance = 1e-10, info = nm)
  }
})

test_that("pca = n equals pca() and then the fit by hand, predict() included", {
  Xt <- fi_data$train
  Xn <- fi_data$new
  pf <- pca(Xt, ndim = 5)
  scores <- embedding(pf)
  colnames(scores) <- paste0("PC", 1:5)
  for (nm in names(fi_fits)) {
    a <- fi_fit(nm, Xt, pca = 5)
    b <- fi_fit(nm, scores)
    expect_identical(unname(embedding(a)), unname(embedding(b)), info = nm)
    expect_identical(a$params$pca, 5L, info = nm)
    expect_identical(a$n_features, 12L, info = nm)
    expect_identical(a$feature_names, colnames(Xt), info = nm)
    by_hand <- predict(b, unname(predict(pf, Xn)))
    expect_identical(unname(predict(a, Xn)), unname(by_hand), info = nm)
    # sparse new rows are projected without a dense copy: same scores
    expect_equal(unname(predict(a, Matrix::Matrix(Xn, sparse = TRUE))), unname(by_hand),
                 tolerance = 1e-10, info = nm)
  }
})

test_that("the input model survives saveRDS() and the predict contract holds", {
  Xt <- fi_data$train
  Xn <- fi_data$new
  for (nm in c("isomap", "laplacian_eigenmaps", "lgrm", "ltsa")) {
    fit <- fi_fit(nm, Xt, pca = 4, metric = "correlation")
    expect_predict_contract(fit, Xn, tol = 1e-12)
    out <- capture.output(print(fit))
    expect_true(any(grepl("metric = correlation", out)), info = nm)
  }
})

test_that("pca and metric work with the generic rules, novelty and reconstruct", {
  Xt <- fi_data$train
  Xn <- fi_data$new
  fit <- isomap(Xt, ndim = 2, k = 8, pca = 4)
  pf <- pca(Xt, 4)
  fb <- isomap(embedding(pf), ndim = 2, k = 8)
  expect_equal(unname(predict(fit, Xn, method = "goose", X = Xt)),
               unname(predict(fb, unname(predict(pf, Xn)), method = "goose", X = embedding(pf))),
               tolerance = 1e-12)
  expect_equal(unname(novelty_scores(fit, Xn, X = Xt)),
               unname(novelty_scores(fb, unname(predict(pf, Xn)), X = embedding(pf))),
               tolerance = 1e-12)
  # the training data given to a generic rule are in the input's columns
  fit2 <- laplacian_eigenmaps(Xt, ndim = 2, k = 8, pca = 4)
  expect_equal(predict(fit2, Xn, method = "lvm", X = Xt), predict(fit2, Xn, method = "lvm"), tolerance = 1e-12)
  # reconstruct() maps back through the projection: rows of the input's columns
  r <- reconstruct(fit2, predict(fit2, Xn), method = "lvm")
  expect_identical(colnames(r), colnames(Xt))
  expect_identical(dim(r), dim(Xn))
})

test_that("input arguments are checked with classed errors", {
  Xt <- fi_data$train
  e <- expect_error(isomap(Xt, ndim = 2, k = 8, metric = "manhattan"), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "metric")
  e <- expect_error(isomap(Xt, ndim = 2, k = 8, metric = "chebyshev"), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "metric")
  e <- expect_error(isomap(Xt, ndim = 2, k = 8, pca = 40), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "pca")
  e <- expect_error(isomap(Xt, ndim = 2, k = 8, pca = "a"), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "pca")
  Z <- Xt
  Z[3, ] <- 0
  e <- expect_error(lle(Z, ndim = 2, k = 8, metric = "cosine"), "row 3", class = "manifoldOOS_input_error")
  expect_identical(e$arg, "X")
  fit <- isomap(Xt, ndim = 2, k = 8, pca = 4)
  e <- expect_error(predict(fit, Xt[, 1:5]), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "newdata")
})

test_that("chunked, parallel and file predictions apply the input model exactly as predict()", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  Xt <- fi_data$train
  Xn <- fi_data$new
  fit <- laplacian_eigenmaps(Xt, ndim = 2, k = 8, pca = 5, metric = "cosine")
  ref <- predict(fit, Xn)
  expect_identical(predict(fit, Xn, chunk_size = 3), ref)
  expect_identical(predict(fit, Matrix::Matrix(Xn, sparse = TRUE), chunk_size = 4), predict(fit, Matrix::Matrix(Xn, sparse = TRUE)))
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  expect_identical(predict(fit, Xn, parallel = TRUE, chunk_size = 5), ref)
  f_in <- tempfile(fileext = ".csv")
  f_out <- tempfile(fileext = ".csv")
  on.exit(unlink(c(f_in, f_out)), add = TRUE)
  utils::write.csv(Xn, f_in, row.names = FALSE)
  predict_file(fit, f_in, f_out, chunk_size = 6)
  out <- as.matrix(utils::read.csv(f_out))
  expect_equal(unname(out), unname(as.matrix(ref))[, , drop = FALSE] + 0, tolerance = 1e-15, ignore_attr = TRUE)
})

test_that("isomap(metric = \"cosine\") agrees with scikit-learn's Isomap on the unit rows", {
  skip_if_no_sklearn()
  set.seed(21)
  X <- swiss_roll(300, seed = 4)$x + 20
  ours <- embedding(isomap(X, ndim = 2, k = 10, metric = "cosine", eigen_solver = "dense"))
  theirs <- run_sklearn(X, paste0(
    "from sklearn.manifold import Isomap\n",
    "U = X / np.sqrt((X ** 2).sum(axis=1))[:, None]\n",
    "OUT = Isomap(n_neighbors=10, n_components=2, eigen_solver='dense', path_method='D').fit_transform(U)"))
  # columns agree up to sign
  sgn <- sign(colSums(ours * theirs))
  expect_equal(unname(ours), sweep(theirs, 2, sgn, "*"), tolerance = 1e-8)
})

test_that("oos_map() takes pca = and metric = like the fits", {
  Xt <- fi_data$train
  Xn <- fi_data$new
  Y <- embedding(isomap(Xt, ndim = 2, k = 8))
  pf <- pca(Xt, 4)
  for (rule in c("goose", "lvm", "rbf", "linear")) {
    a <- oos_map(Xt, Y, method = rule, pca = 4, metric = "cosine")
    b <- oos_map(unit_rows(unname(embedding(pf))), Y, method = rule)
    expect_identical(unname(predict(a, Xn)), unname(predict(b, unit_rows(unname(predict(pf, Xn))))), info = rule)
    expect_identical(a$params$metric, "cosine", info = rule)
  }
})

test_that("sosi() on a fit with an input model reads the rows through it", {
  Xt <- fi_data$train
  Xn <- fi_data$new
  lab <- fi_data$lab
  a <- supervised_le(Xt, lab, ndim = 2, pca = 5)
  pf <- pca(Xt, 5)
  sc <- unname(embedding(pf))
  colnames(sc) <- paste0("PC", 1:5)
  b <- supervised_le(sc, lab, ndim = 2)
  sa <- suppressWarnings(sosi(a, X_unlabeled = Xn, n_grid = 6, n_iter = 2))
  sb <- suppressWarnings(sosi(b, X_unlabeled = unname(predict(pf, Xn)), n_grid = 6, n_iter = 2))
  expect_identical(unname(embedding(sa)), unname(embedding(sb)))
  expect_identical(unname(predict(sa, Xn)), unname(predict(sb, unname(predict(pf, Xn)))))
})

test_that("predict(novelty = TRUE) on a fit with pca = and a metric scores the rows once read", {
  r <- swiss_roll(300, seed = 1)
  for (args in list(list(pca = 2), list(metric = "cosine"), list(pca = 3, metric = "correlation"))) {
    f <- do.call(isomap, c(list(r$x[1:250, ] + 5, k = 8), args))
    y <- predict(f, r$x[251:300, ] + 5, novelty = TRUE)
    s <- novelty_scores(f, r$x[251:300, ] + 5)
    expect_equal(attr(y, "novelty"), s, info = paste(names(args), collapse = "+"))
    # the scores are those of the fitted space: the same as a fit of the transformed rows
    g <- isomap(f$x_train, k = 8)
    xn <- get("apply_input", asNamespace("manifoldOOS"))(f$input, r$x[251:300, ] + 5)
    expect_equal(as.numeric(s), as.numeric(novelty_scores(g, unname(xn))), tolerance = 1e-12)
  }
})
