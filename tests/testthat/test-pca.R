test_that("PCA matches prcomp up to sign and predicts training rows exactly", {
  set.seed(3)
  X <- matrix(rnorm(200 * 6), 200) %*% matrix(rnorm(36), 6)
  fit <- pca(X, ndim = 3)
  ref <- prcomp(X)
  S <- embedding(fit)
  for (j in 1:3) {
    expect_equal(abs(sum(S[, j] * ref$x[, j])) / sum(ref$x[, j]^2), 1, tolerance = 1e-10)
  }
  expect_equal(fit$sdev, ref$sdev, tolerance = 1e-10)
  expect_equal(unname(predict(fit, X)), unname(S), tolerance = 1e-12)
  G <- crossprod(S)
  expect_lt(max(abs(G[upper.tri(G)])), 1e-8 * max(G))
  expect_true(all(diff(diag(G)) < 0))
  # sign convention: largest |loading| of each component is positive
  R <- fit$rotation
  expect_true(all(apply(R, 2, function(v) v[which.max(abs(v))] > 0)))
})

test_that("PCA recovers flat data exactly and scale = TRUE equals prcomp(scale. = TRUE)", {
  set.seed(4)
  Z <- cbind(runif(100), runif(100))
  A <- qr.Q(qr(matrix(rnorm(25), 5)))[, 1:2]
  X <- Z %*% t(A) + matrix(rep(1:5, each = 100), 100)
  fit <- pca(X, 2)
  # the 2-D embedding is an isometry of the flat data
  expect_equal(as.matrix(dist(embedding(fit))), as.matrix(dist(Z)), tolerance = 1e-10,
               ignore_attr = TRUE)
  Xn <- X[, 1:4] + matrix(rnorm(400, sd = 0.1), 100)
  fs <- pca(Xn, 2, scale = TRUE)
  ref <- prcomp(Xn, scale. = TRUE)
  expect_equal(fs$sdev, ref$sdev, tolerance = 1e-10)
  expect_equal(abs(unname(embedding(fs))), abs(unname(ref$x[, 1:2])), tolerance = 1e-10)
})

test_that("batch prediction equals row-by-row prediction, and saveRDS round trip", {
  set.seed(5)
  X <- matrix(rnorm(300), 60)
  fit <- pca(X[1:40, ], 2)
  expect_predict_contract(fit, X[41:60, ])
})

test_that("print, summary and embedding methods work", {
  fit <- pca(matrix(rnorm(90), 30), 2)
  expect_output(print(fit), "PCA")
  s <- summary(fit)
  expect_s3_class(s, "summary.manifold_fit")
  expect_output(print(s), "Proportion of variance")
  expect_equal(dim(embedding(fit)), c(30L, 2L))
  expect_identical(predict(fit), embedding(fit))
})
