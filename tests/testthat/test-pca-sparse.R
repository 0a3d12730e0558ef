# pca() of a sparse matrix: implicit centring and scaling, no dense copy,
# the same model as the dense decomposition of the same matrix.

# A sparse matrix with a clear low-rank structure (distinct eigenvalues).
sparse_lowrank <- function(n, p, r, seed) {
  set.seed(seed)
  U <- matrix(rnorm(n * r), n) %*% diag(seq(r * 3, 3, length.out = r), r)
  V <- matrix(rnorm(p * r), p)
  M <- U %*% t(V)
  M[abs(M) < stats::quantile(abs(M), 0.8)] <- 0
  # no constant column (they cannot be scaled)
  M[cbind(sample.int(n, p, replace = TRUE), seq_len(p))] <- stats::rnorm(p) + 5
  Matrix::Matrix(M, sparse = TRUE)
}

test_that("sparse PCA equals the dense PCA of the same matrix (tall and wide, scaled or not)", {
  for (shape in list(c(200, 40), c(40, 120))) {
    S <- sparse_lowrank(shape[1], shape[2], 4, 1)
    D <- as.matrix(S)
    for (sc in c(FALSE, TRUE)) {
      a <- pca(S, ndim = 3, scale = sc)
      b <- pca(D, ndim = 3, scale = sc)
      expect_s3_class(a, "manifold_pca")
      expect_equal(a$center, b$center, tolerance = 1e-12)
      expect_equal(a$scale, b$scale, tolerance = 1e-12)
      expect_equal(unname(a$rotation), unname(b$rotation), tolerance = 1e-8)
      expect_equal(unname(embedding(a)), unname(embedding(b)), tolerance = 1e-8)
      expect_equal(a$sdev, b$sdev[1:3], tolerance = 1e-10)
      expect_equal(a$total_variance, sum(b$sdev^2), tolerance = 1e-10)
      # sparse and dense new rows give the same scores as the dense model
      Snew <- sparse_lowrank(10, shape[2], 4, 2)
      expect_equal(unname(predict(a, Snew)), unname(predict(b, as.matrix(Snew))), tolerance = 1e-8)
      expect_equal(unname(predict(a, as.matrix(Snew))), unname(predict(a, Snew)), tolerance = 1e-12)
    }
  }
})

test_that("sparse PCA agrees with prcomp and reports the variance proportions", {
  S <- sparse_lowrank(150, 30, 5, 3)
  a <- pca(S, ndim = 5)
  pr <- stats::prcomp(as.matrix(S))
  expect_equal(a$sdev, pr$sdev[1:5], tolerance = 1e-10)
  expect_equal(abs(unname(embedding(a))), abs(unname(pr$x[, 1:5])), tolerance = 1e-8)
  s <- summary(a)$extra
  expect_equal(unname(s["Proportion of variance", ]), (pr$sdev^2 / sum(pr$sdev^2))[1:5], tolerance = 1e-10)
  # the column names survive as the rotation's row names
  colnames(S) <- paste0("g", seq_len(ncol(S)))
  expect_identical(rownames(pca(S, 2)$rotation), colnames(S))
})

test_that("sparse PCA checks its input", {
  S <- sparse_lowrank(30, 10, 2, 4)
  S[, 3] <- 0
  e <- expect_error(pca(S, 2, scale = TRUE), "constant", class = "manifoldOOS_input_error")
  expect_identical(e$arg, "X")
  S2 <- sparse_lowrank(30, 10, 2, 4)
  S2@x[2] <- Inf
  e <- expect_error(pca(S2, 2), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "X")
  e <- expect_error(pca(sparse_lowrank(30, 10, 2, 4), 11), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "ndim")
})

test_that("a dense copy beyond the limit is refused with an error that names pca =", {
  S <- sparse_lowrank(60, 50, 3, 5)
  withr::local_options(manifoldOOS.dense_limit = 1000)
  e <- expect_error(isomap(S, ndim = 2, k = 8), "pca =", class = "manifoldOOS_dense_error")
  expect_identical(e$arg, "X")
  expect_s3_class(e, "manifoldOOS_input_error")
  # the route it names works without a dense copy of X
  fit <- isomap(S, ndim = 2, k = 8, pca = 5)
  expect_identical(fit$params$pca, 5L)
  expect_error(knn(S, 3, method = "hnsw"), class = "manifoldOOS_dense_error")
})
