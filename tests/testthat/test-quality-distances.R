# Rank measures from supplied distances; Q_local / Q_global.

test_that("dist(X) and distance matrices give the same rank measures as coordinates", {
  set.seed(31)
  X <- matrix(rnorm(80 * 4), 80)
  Y <- X[, 1:2] + 0.3 * matrix(rnorm(160), 80)
  DX <- dist(X)
  DY <- dist(Y)
  k <- c(1, 5, 20, 50, 78)
  expect_identical(trustworthiness(DX, Y, k = k), trustworthiness(X, Y, k = k))
  expect_equal(trustworthiness(DX, Y, k = k), trustworthiness(X, Y, k = k), tolerance = 1e-13)
  expect_equal(continuity(X, DY, k = k), continuity(X, Y, k = k), tolerance = 1e-13)
  expect_equal(continuity(as.matrix(DX), as.matrix(DY), k = k, dist_input = c("X", "Y")),
               continuity(X, Y, k = k), tolerance = 1e-13)
  expect_identical(unclass(coranking(DX, DY)), unclass(coranking(X, Y)))
  expect_identical(unclass(coranking(DX, Y, K_max = 10)), unclass(coranking(X, Y, K_max = 10)))
  expect_equal(rnx(DX, Y), rnx(X, Y), tolerance = 1e-13)
  expect_equal(rnx(DX, Y, K_max = 30), rnx(X, Y, K_max = 30), tolerance = 1e-13)
  expect_equal(lcmc(as.matrix(DX), Y, dist_input = "X"), lcmc(X, Y), tolerance = 1e-13)
  expect_equal(rnx_auc(DX, DY), rnx_auc(X, Y), tolerance = 1e-13)
  expect_identical(q_local_global(DX, DY), q_local_global(X, Y))
  # a non-Euclidean metric changes the ranks: city-block distances
  expect_false(identical(trustworthiness(dist(X, "manhattan"), Y, k = 5), trustworthiness(X, Y, k = 5)))
})

test_that("T and C from the co-ranking matrix match the closed form on a small example", {
  set.seed(32)
  X <- matrix(rnorm(12 * 3), 12)
  Y <- matrix(rnorm(12 * 2), 12)
  rk <- function(M) t(apply(as.matrix(dist(M)), 1, function(d) rank(d, ties.method = "first") - 1))
  RX <- rk(X); RY <- rk(Y)
  n <- 12
  brute_T <- function(K) {
    pen <- sum((RX - K)[RY >= 1 & RY <= K & RX > K])
    G <- if (K < n / 2) 2 / (n * K * (2 * n - 3 * K - 1)) else 2 / (n * (n - K) * (n - K - 1))
    1 - G * pen
  }
  for (K in 1:10) expect_equal(trustworthiness(dist(X), dist(Y), k = K), brute_T(K), tolerance = 1e-14)
})

test_that("Q_local and Q_global follow the Q_NX / LCMC split and equal dimRed's quality()", {
  set.seed(33)
  X <- matrix(rnorm(60 * 3), 60)
  Y <- X[, 1:2] + 0.2 * matrix(rnorm(120), 60)
  q <- q_local_global(X, Y)
  Q <- coranking(X, Y)
  qnx <- vapply(1:59, function(K) sum(Q[1:K, 1:K]) / (K * 60), 0)
  Km <- which.max(qnx - (1:59) / 59)
  expect_identical(attr(q, "K_max"), Km)
  expect_equal(as.vector(q), c(mean(qnx[1:Km]), sum(qnx[(Km + 1):59]) / (60 - Km)), tolerance = 1e-14)
  # a perfect embedding: Q_NX = 1 everywhere, K_max = 1
  qp <- q_local_global(X, 3 * X + 1)
  expect_equal(as.vector(qp), c(1, 58 / 59), tolerance = 1e-14)
  skip_if_not_installed("dimRed")
  skip_if_not_installed("coRanking")
  dr <- suppressMessages(dimRed::embed(X, "PCA", ndim = 2, .mute = c("message", "output")))
  Yd <- dimRed::getData(dimRed::getDimRedData(dr))
  ql <- dimRed::quality(dr, "Q_local")
  qg <- dimRed::quality(dr, "Q_global")
  expect_equal(as.vector(q_local_global(X, Yd)), unname(c(ql, qg)), tolerance = 1e-12)
})

test_that("distance inputs are validated", {
  set.seed(34)
  X <- matrix(rnorm(30), 10)
  D <- as.matrix(dist(X))
  expect_input_error(trustworthiness(D[, 1:5], X, k = 2, dist_input = "X"), "`X`")
  Dn <- D; Dn[1, 2] <- -1
  expect_input_error(trustworthiness(Dn, X, k = 2, dist_input = "X"), "`X`")
  Da <- D; Da[1, 2] <- 5
  expect_input_error(coranking(Da, X, dist_input = "X"), "`X`")
  expect_input_error(rnx(dist(X), X[1:8, ]), "`Y`")
  expect_input_error(rnx(X, X, dist_input = "Z"), "`dist_input`")
  expect_input_error(q_local_global(dist(X[1:2, ]), X[1:2, ]), "`X`")
  dd <- dist(X); dd[3] <- NA
  expect_input_error(q_local_global(dd, X), "`X`")
})
