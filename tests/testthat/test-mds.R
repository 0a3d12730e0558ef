# Classical MDS (spec B.3): PCA identity, Gower = Nystrom = PCA projection.

mds_data <- function(n = 150, seed = 2) {
  set.seed(seed)
  matrix(rnorm(n * 4), n) %*% diag(c(5, 3, 1, 0.5))
}

# align_signs(): helper-data.R

test_that("classical MDS of Euclidean distances is PCA, with l_k = s_k^2", {
  X <- mds_data()
  fit <- mds(X, ndim = 3)
  p <- pca(X, ndim = 3)
  expect_equal(fit$eigenvalues, svd(scale(X, scale = FALSE))$d[1:3]^2, tolerance = 1e-10)
  expect_equal(unname(embedding(fit)), unname(align_signs(embedding(p), embedding(fit))),
               tolerance = 1e-9)
  # and agrees with stats::cmdscale up to column signs
  cm <- stats::cmdscale(dist(X), k = 3)
  expect_equal(unname(embedding(fit)), unname(align_signs(cm, embedding(fit))), tolerance = 1e-8)
})

test_that("Gower's map equals the Nystrom form and the PCA projection; training rows reproduce", {
  X <- mds_data()
  fit <- mds(X, ndim = 2)
  expect_equal(predict(fit, X), embedding(fit), tolerance = 1e-10)
  expect_equal(predict(fit, X, method = "nystrom"), embedding(fit), tolerance = 1e-10)
  Xn <- mds_data(40, seed = 9) + 1
  g <- predict(fit, Xn)
  expect_equal(predict(fit, Xn, method = "nystrom"), g, tolerance = 1e-10)
  p <- pca(X, ndim = 2)
  expect_equal(unname(g), unname(align_signs(predict(p, Xn), g)), tolerance = 1e-9)
})

test_that("MDS of the distance matrix (landmark form) equals the data path", {
  X <- mds_data(80)
  fit <- mds(X, 2)
  D <- as.matrix(dist(X))
  m <- manifoldOOS:::.mo_cmds_distances(D, FALSE, 2L, manifoldOOS:::eig_opts("dense"), 1L)
  expect_equal(m$values, fit$eigenvalues, tolerance = 1e-9)
  expect_equal(unname(m$embedding), unname(embedding(fit)), tolerance = 1e-8)
  expect_equal(m$mu, fit$mu, tolerance = 1e-9)
  expect_equal(m$negative_mass, 0, tolerance = 1e-10)
  it <- manifoldOOS:::.mo_cmds_distances(D, FALSE, 2L, manifoldOOS:::eig_opts("iterative"), 1L)
  expect_match(it$solver, "spectra")
  expect_equal(unname(it$embedding), unname(embedding(fit)), tolerance = 1e-7)
})

test_that("dense and iterative paths agree (n = 500), batch = rows, saveRDS", {
  X <- mds_data(500, seed = 4)
  d <- mds(X, 3, eigen_solver = "dense")
  it <- mds(X, 3, eigen_solver = "iterative")
  expect_match(it$solver, "spectra")
  expect_true(is.na(it$negative_mass))
  expect_equal(it$eigenvalues, d$eigenvalues, tolerance = 1e-8)
  expect_equal(embedding(it), embedding(d), tolerance = 1e-6)
  Xn <- mds_data(25, seed = 8)
  expect_predict_contract(d, Xn, tol = 1e-12)
})

test_that("bad input: ndim above the rank, unknown rule, bad newdata", {
  X <- mds_data(30)
  expect_input_error(mds(X, ndim = 5), "`ndim`")
  expect_input_error(mds(X[, 1:2], ndim = 3), "`ndim`")
  expect_input_error(mds(cbind(X, X[, 1]), ndim = 5), "`ndim`")  # rank 4
  fit <- mds(X, 2)
  expect_input_error(predict(fit, X, method = "nope"), "`method`")
  # a generic rule needs the training data, which an MDS fit does not store
  expect_input_error(predict(fit, X, method = "linear"), "`X`")
  expect_equal(dim(predict(fit, X[1:3, ], method = "linear", X = X)), c(3L, 2L))
  expect_input_error(predict(fit, X[, 1:3]), "`newdata`")
})
