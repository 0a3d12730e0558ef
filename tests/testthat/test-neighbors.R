# The neighbour search of a fit travels with the fit (fit$neighbors), not
# through options(): predict() uses what the fit recorded.

nb_roll <- function() {
  set.seed(2)
  r <- swiss_roll(400, seed = 9)$x
  list(train = r[1:320, ], new = r[321:400, ])
}

test_that("every kNN-based fit records its search, metric and HNSW parameters", {
  d <- nb_roll()
  fit <- isomap(d$train, ndim = 2, k = 8)
  expect_s3_class(fit$neighbors, "manifold_neighbors")
  expect_identical(fit$neighbors$method, "exact")
  expect_identical(fit$neighbors$metric, "euclidean")
  fit2 <- laplacian_eigenmaps(d$train, ndim = 2, k = 8, metric = "cosine", knn_method = "hnsw")
  expect_identical(fit2$neighbors$method, "hnsw")
  expect_identical(fit2$neighbors$metric, "cosine")
  expect_identical(fit2$neighbors$hnsw_args$M, 16L)
  out <- capture.output(print(fit2))
  expect_true(any(grepl("neighbours: hnsw search \\(M = 16, ef_construction = 50, seed = 42\\), cosine metric", out)))
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  saveRDS(fit2, f)
  expect_identical(readRDS(f)$neighbors, fit2$neighbors)
})

test_that("options set after the fit do not change its predictions", {
  d <- nb_roll()
  for (fun in list(isomap, laplacian_eigenmaps, lle)) {
    fit <- fun(d$train, ndim = 2, k = 8, knn_method = "exact")
    ref <- predict(fit, d$new)
    withr::with_options(list(manifoldOOS.knn_method = "hnsw",
                             manifoldOOS.hnsw_args = list(M = 2, ef = 1, ef_construction = 1)), {
      expect_identical(predict(fit, d$new), ref)
    })
  }
  # an HNSW fit keeps its own index parameters
  fit <- laplacian_eigenmaps(d$train, ndim = 2, k = 8, knn_method = "hnsw")
  ref <- predict(fit, d$new)
  withr::with_options(list(manifoldOOS.hnsw_args = list(M = 2, ef = 1, ef_construction = 1, seed = 7),
                           manifoldOOS.hnsw_cache = FALSE), {
    expect_identical(predict(fit, d$new), ref)
  })
})

test_that("neighbor_graph() takes a metric", {
  set.seed(5)
  X <- matrix(rexp(200 * 6), 200)
  U <- X / sqrt(rowSums(X^2))
  a <- neighbor_graph(X, k = 6, metric = "cosine", weights = "distance")
  b <- neighbor_graph(U, k = 6, weights = "distance")
  expect_identical(a$W, b$W)
  expect_identical(a$metric, "cosine")
  m <- neighbor_graph(X, k = 6, metric = "manhattan", weights = "distance", on_disconnected = "keep")
  expect_identical(m$idx, unname(knn(X, 6, metric = "manhattan")$idx))
  expect_equal(m$dist, unname(knn(X, 6, metric = "manhattan")$dist))
  e <- expect_error(neighbor_graph(X, k = 6, metric = "manhattan", type = "eps", eps = 1),
                    class = "manifoldOOS_input_error")
  expect_identical(e$arg, "metric")
})

test_that("precomputed neighbours reproduce the searched fit exactly", {
  d <- nb_roll()
  Xt <- d$train
  nn <- knn(Xt, 20)
  nn_self <- knn(Xt, 21, query = Xt)  # each row lists itself first
  fits <- list(isomap = list(ndim = 2, k = 8), lle = list(ndim = 2, k = 8),
               laplacian_eigenmaps = list(ndim = 2, k = 8), ltsa = list(ndim = 2, k = 8),
               lgrm = list(ndim = 2, k = 8), nppe = list(ndim = 2, k = 8, degree = 1),
               diffusion_map = list(ndim = 2, k = 8, kernel = "knn", kernel_k = 10),
               lpp = list(ndim = 2, k = 6), olpp = list(ndim = 2, k = 6), npe = list(ndim = 2, k = 8),
               onpp = list(ndim = 2, k = 8), klpp = list(ndim = 2, k = 6),
               spectral_regression = list(ndim = 2, k = 6), ke_lle = list(ndim = 2, k = 8))
  for (nm in names(fits)) {
    fun <- getExportedValue("manifoldOOS", nm)
    a <- suppressWarnings(do.call(fun, c(list(X = Xt), fits[[nm]])))
    b <- suppressWarnings(do.call(fun, c(list(X = Xt, neighbors = nn), fits[[nm]])))
    c <- suppressWarnings(do.call(fun, c(list(X = Xt, neighbors = nn_self), fits[[nm]])))
    expect_identical(embedding(b), embedding(a), info = nm)
    expect_identical(embedding(c), embedding(a), info = nm)
    expect_identical(b$params$knn_method, "precomputed", info = nm)
    expect_identical(predict(b, d$new), predict(a, d$new), info = nm)
  }
})

test_that("supplied neighbours are checked against the fit", {
  d <- nb_roll()
  Xt <- d$train
  nn <- knn(Xt, 10)
  check <- function(nb, pattern) {
    e <- expect_error(isomap(Xt, ndim = 2, k = 8, neighbors = nb), pattern, class = "manifoldOOS_input_error")
    expect_identical(e$arg, "neighbors")
  }
  check(list(idx = nn$idx[-1, ], dist = nn$dist[-1, ]), "one row per training row")
  check(list(idx = nn$idx[, 1:5], dist = nn$dist[, 1:5]), "needs 8")
  check(list(idx = nn$idx, dist = nn$dist[, 1:9]), "same shape")
  check(list(idx = nn$idx + 1000L, dist = nn$dist), "row indices")
  check(list(idx = nn$idx, dist = -nn$dist), "non-negative")
  check(list(idx = nn$idx, dist = nn$dist[, 10:1]), "sorted")
  bad <- nn$idx
  bad[5, 3] <- 5L
  check(list(idx = bad, dist = nn$dist), "row 5")
  check(nn$idx, "list")
})

test_that("predict(neighbors =) reads supplied query neighbours in every kNN-based native rule", {
  d <- nb_roll()
  Xt <- d$train
  cases <- list(
    list(fit = isomap(Xt, ndim = 2, k = 8), X = Xt, methods = c("nystrom", "triangulation")),
    list(fit = laplacian_eigenmaps(Xt, ndim = 2, k = 8), X = Xt, methods = NULL),
    list(fit = lle(Xt, ndim = 2, k = 8), X = Xt, methods = NULL),
    list(fit = diffusion_map(Xt, ndim = 2, k = 8, kernel = "knn", kernel_k = 10), X = Xt, methods = NULL),
    list(fit = isomap(Xt, ndim = 2, k = 8, metric = "cosine"), X = Xt / sqrt(rowSums(Xt^2)), methods = NULL))
  for (cs in cases) {
    q <- if (identical(cs$fit$params$metric, "cosine")) d$new / sqrt(rowSums(d$new^2)) else d$new
    nn <- knn(cs$X, 15, query = q)
    for (m in if (is.null(cs$methods)) list(NULL) else as.list(cs$methods)) {
      expect_identical(predict(cs$fit, d$new, method = m, neighbors = nn), predict(cs$fit, d$new, method = m),
                       info = cs$fit$method)
    }
  }
  fit <- cases[[1]]$fit
  # other lists give other answers: the lists are really read
  nn <- knn(Xt, 15, query = d$new)
  nn$idx[, 1:8] <- nn$idx[, 8:1]
  expect_false(identical(predict(fit, d$new, neighbors = nn), predict(fit, d$new)))
  # checks: shape, indices, rule
  ok <- knn(Xt, 15, query = d$new)
  e <- expect_error(predict(fit, d$new[-1, ], neighbors = ok), "one row per row", class = "manifoldOOS_input_error")
  expect_identical(e$arg, "neighbors")
  e <- expect_error(predict(fit, d$new, neighbors = list(idx = ok$idx[, 1:3], dist = ok$dist[, 1:3])),
                    "needs 8", class = "manifoldOOS_input_error")
  expect_identical(e$arg, "neighbors")
  e <- expect_error(predict(fit, d$new, neighbors = ok, method = "goose", X = Xt), "generic",
                    class = "manifoldOOS_input_error")
  expect_identical(e$arg, "neighbors")
  e <- expect_error(predict(fit, d$new, neighbors = ok, chunk_size = 10), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "neighbors")
  e <- expect_error(predict(lgrm(Xt, ndim = 2, k = 8), d$new, neighbors = ok), "searches no neighbours",
                    class = "manifoldOOS_input_error")
  expect_identical(e$arg, "neighbors")
})
