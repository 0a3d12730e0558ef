# knn(): metrics (Euclidean, cosine, correlation, Manhattan) on dense and
# sparse rows, against a brute-force reference computed in R.

# Every pairwise distance in the metric's reported units.
ref_dist <- function(X, Q, metric) {
  X <- as.matrix(X)
  Q <- as.matrix(Q)
  switch(metric,
    euclidean = sqrt(pmax(outer(rowSums(Q^2), rowSums(X^2), "+") - 2 * Q %*% t(X), 0)),
    manhattan = t(apply(Q, 1, function(q) colSums(abs(t(X) - q)))),
    cosine = 1 - (Q / sqrt(rowSums(Q^2))) %*% t(X / sqrt(rowSums(X^2))),
    correlation = 1 - stats::cor(t(Q), t(X)))
}

# Canonical lists: sorted by (distance, index), self excluded by index.
ref_knn <- function(X, Q, k, metric, self) {
  D <- ref_dist(X, Q, metric)
  if (self) diag(D) <- Inf
  idx <- t(apply(D, 1, function(d) order(round(d, 10), seq_along(d))[seq_len(k)]))
  list(idx = idx, dist = t(vapply(seq_len(nrow(D)), function(i) D[i, idx[i, ]], numeric(k))))
}

sparse_data <- function(n, p, density, seed) {
  set.seed(seed)
  S <- Matrix::rsparsematrix(n, p, density = density, rand.x = function(m) round(stats::rnorm(m), 3))
  # no empty rows (cosine and correlation need a direction)
  S[cbind(seq_len(n), sample.int(p, n, replace = TRUE))] <- 1 + stats::runif(n)
  S
}

test_that("exact knn equals the brute-force reference for every metric, dense and sparse", {
  S <- sparse_data(120, 30, 0.2, 1)
  Q <- sparse_data(25, 30, 0.2, 2)
  D <- as.matrix(S)
  for (metric in c("euclidean", "cosine", "correlation", "manhattan")) {
    ref <- ref_knn(D, D, 6, metric, self = TRUE)
    for (X in list(dense = D, sparse = S)) {
      r <- knn(X, 6, metric = metric, method = "exact")
      expect_identical(unname(r$idx), ref$idx, info = metric)
      expect_equal(unname(r$dist), ref$dist, tolerance = 1e-10, info = metric)
    }
    refq <- ref_knn(D, as.matrix(Q), 5, metric, self = FALSE)
    rq <- knn(S, 5, query = Q, metric = metric)
    expect_identical(unname(rq$idx), refq$idx, info = metric)
    expect_equal(unname(rq$dist), refq$dist, tolerance = 1e-10, info = metric)
    # a dense query against sparse training rows: the same lists
    rq2 <- knn(S, 5, query = as.matrix(Q), metric = metric)
    expect_identical(rq2$idx, rq$idx)
  }
})

test_that("sparse Euclidean distances equal the dense search bitwise, ties by index", {
  # integer grid: many exact ties
  G <- as.matrix(expand.grid(0:5, 0:5, 0:2))
  storage.mode(G) <- "double"
  S <- Matrix::Matrix(G, sparse = TRUE)
  a <- knn(G, 8, method = "exact")
  b <- knn(S, 8)
  expect_identical(b$idx, a$idx)
  expect_identical(b$dist, a$dist)
})

test_that("cosine knn is the Euclidean search on unit rows, distance 1 - cos", {
  set.seed(3)
  X <- matrix(rnorm(300 * 8), 300)
  U <- X / sqrt(rowSums(X^2))
  a <- knn(X, 10, metric = "cosine")
  b <- knn(U, 10)
  expect_identical(a$idx, b$idx)
  expect_equal(a$dist, b$dist^2 / 2, tolerance = 1e-14)
  # correlation: the cosine of the row-centred rows
  Xc <- X - rowMeans(X)
  expect_identical(knn(X, 10, metric = "correlation")$idx, knn(Xc, 10, metric = "cosine")$idx)
})

test_that("HNSW serves cosine and correlation with high recall", {
  set.seed(4)
  Z <- matrix(rnorm(3000 * 5), 3000) %*% matrix(rnorm(5 * 30), 5) + matrix(rnorm(3000 * 30, sd = 0.1), 3000)
  for (metric in c("cosine", "correlation")) {
    ex <- knn(Z, 10, metric = metric, method = "exact")
    ap <- knn(Z, 10, metric = metric, method = "hnsw", hnsw_args = list(seed = 1))
    recall <- mean(vapply(seq_len(nrow(Z)), function(i) length(intersect(ex$idx[i, ], ap$idx[i, ])), 0)) / 10
    expect_gte(recall, 0.95)
    # the returned distances are exact for the returned pairs
    same <- ap$idx == ex$idx
    expect_equal(ap$dist[same], ex$dist[same], tolerance = 1e-12)
  }
})

test_that("metric errors are classed and name the argument", {
  X <- matrix(rnorm(60), 20)
  e <- expect_error(knn(X, 3, metric = "hamming"), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "metric")
  e <- expect_error(knn(X, 3, metric = "manhattan", method = "hnsw"), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "metric")
  X0 <- X
  X0[4, ] <- 0
  e <- expect_error(knn(X0, 3, metric = "cosine"), "row 4", class = "manifoldOOS_input_error")
  expect_identical(e$arg, "X")
  S <- Matrix::Matrix(X, sparse = TRUE)
  S@x[5] <- NA
  e <- expect_error(knn(S, 3), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "X")
  e <- expect_error(knn(Matrix::Matrix(X, sparse = TRUE), 3, query = Matrix::Matrix(X[, 1:2], sparse = TRUE)),
                    class = "manifoldOOS_input_error")
  expect_identical(e$arg, "query")
})

test_that("sparse cosine and Euclidean neighbours agree with scikit-learn on CSR input", {
  skip_if_no_sklearn()
  S <- sparse_data(150, 40, 0.15, 7)
  D <- as.matrix(S)
  for (metric in c("cosine", "euclidean", "manhattan")) {
    out <- run_sklearn(D, sprintf(paste0(
      "from scipy.sparse import csr_matrix\n",
      "from sklearn.neighbors import NearestNeighbors\n",
      "nn = NearestNeighbors(n_neighbors=5, metric='%s', algorithm='brute').fit(csr_matrix(X))\n",
      "d, i = nn.kneighbors(csr_matrix(X[:30]), n_neighbors=5)\n",
      "OUT = np.hstack([d, i + 1])"), metric))
    r <- knn(S, 5, query = S[1:30, ], metric = metric)
    expect_equal(unname(r$dist), out[, 1:5], tolerance = 1e-9, info = metric)
    # the point itself is its own nearest neighbour in a query of the
    # training rows; compare the rest of the lists where distances differ
    expect_identical(unname(r$idx[, 1]), seq_len(30))
  }
})
