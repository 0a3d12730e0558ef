test_that("kernel matrices follow their formulas", {
  set.seed(10)
  A <- matrix(rnorm(40), 10)
  B <- matrix(rnorm(24), 6)
  D2 <- unname(as.matrix(dist(rbind(A, B)))[1:10, 11:16]^2)
  k <- manifoldOOS:::kernel_spec("rbf", sigma = 1.3)
  expect_equal(manifoldOOS:::kernel_eval(k, A, B), exp(-D2 / (2 * 1.3^2)), tolerance = 1e-12)
  KA <- manifoldOOS:::kernel_eval(k, A)
  expect_true(isSymmetric(KA))
  expect_equal(diag(KA), rep(1, 10))
  kl <- manifoldOOS:::kernel_spec("linear")
  expect_equal(manifoldOOS:::kernel_eval(kl, A, B), A %*% t(B), tolerance = 1e-12)
  kp <- manifoldOOS:::kernel_spec("polynomial", degree = 3, gamma = 0.5, coef0 = 2)
  expect_equal(manifoldOOS:::kernel_eval(kp, A, B), (0.5 * A %*% t(B) + 2)^3, tolerance = 1e-12)
  kf <- manifoldOOS:::kernel_spec(function(a, b) a %*% t(b))
  expect_equal(manifoldOOS:::kernel_eval(kf, A, B), A %*% t(B))
})

test_that("bandwidth rules and kernel argument checks", {
  set.seed(11)
  X <- matrix(rnorm(60), 20)
  d <- as.vector(dist(X))
  expect_equal(manifoldOOS:::kernel_spec("rbf", "median_pairwise", X = X)$sigma, median(d),
               tolerance = 1e-10)
  expect_equal(manifoldOOS:::kernel_spec("rbf", "mean_pairwise", X = X)$sigma, mean(d),
               tolerance = 1e-10)
  expect_input_error(manifoldOOS:::kernel_spec("gauss"), "`kernel`")
  expect_input_error(manifoldOOS:::kernel_spec("rbf", sigma = -1), "`sigma`")
  expect_input_error(manifoldOOS:::kernel_spec("rbf", sigma = "widest", X = X), "`sigma`")
  expect_input_error(manifoldOOS:::kernel_spec("polynomial", degree = 0.5), "`degree`")
  expect_input_error(manifoldOOS:::kernel_spec("rbf", "median_pairwise", X = matrix(1, 5, 2)), "`X`")
  bad <- manifoldOOS:::kernel_spec(function(a, b) 1)
  expect_input_error(manifoldOOS:::kernel_eval(bad, X), "`kernel`")
})

test_that("the vectorised exp of the Gaussian kernel agrees with exp() to 4 ulp over [-708, 0]", {
  # distances x = j/64 (squares exact in double) so that the kernel arguments
  # -x^2 cover [-708, 0] densely, including 0 (the diagonal) and exp(-708)
  set.seed(11)
  x <- c(0, 1 / 64, 0.5, 1, sample.int(64 * 75, 3000, replace = TRUE) / 64, floor(64 * sqrt(8 * 708)) / 64)
  k <- manifoldOOS:::kernel_spec("rbf", sigma = 2)   # exp(-d^2 / 8): exact arguments
  K <- manifoldOOS:::kernel_eval(k, cbind(x, 0), matrix(0, 1, 2))
  ref <- exp(-x^2 / 8)
  expect_lt(max(abs(K[, 1] - ref) / ref), 4 * .Machine$double.eps)
  expect_identical(K[1, 1], 1)
  # beyond the clamp the kernel is at most exp(-708), never negative or NaN
  far <- manifoldOOS:::kernel_eval(k, cbind(c(80, 100), 0), matrix(0, 1, 2))
  expect_true(all(far >= 0 & far <= exp(-707)))
})
