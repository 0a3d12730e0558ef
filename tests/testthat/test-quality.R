# Quality measures (spec-baselines section D).

# Reference rank matrix in plain R: R[i, j] = rank of j from i (1 = nearest),
# ties broken by the smaller index, self = 0.
ref_ranks <- function(Z) {
  D <- as.matrix(dist(Z))
  n <- nrow(D)
  R <- matrix(0L, n, n)
  for (i in seq_len(n)) {
    o <- order(D[i, ], seq_len(n))
    o <- o[o != i]
    R[i, o] <- seq_len(n - 1)
  }
  R
}
ref_G <- function(n, K) if (K < n / 2) 2 / (n * K * (2 * n - 3 * K - 1)) else 2 / (n * (n - K) * (n - K - 1))
ref_T <- function(rx, ry, K) {
  n <- nrow(rx)
  s <- 0
  for (i in seq_len(n)) {
    U <- which(ry[i, ] >= 1 & ry[i, ] <= K & rx[i, ] > K)
    s <- s + sum(rx[i, U] - K)
  }
  1 - ref_G(n, K) * s
}
ref_qnx <- function(rx, ry, K) {
  n <- nrow(rx)
  sum(rx >= 1 & rx <= K & ry >= 1 & ry <= K) / (K * n)
}
random_rotation <- function(q) {
  Q <- qr.Q(qr(matrix(rnorm(q * q), q)))
  if (det(Q) < 0) Q[, 1] <- -Q[, 1]
  Q
}

# T(k) and C(k) for k in ks equal the rank-matrix reference and the co-ranking
# matrix is the table of the rank pairs; returns the reference ranks (rx, ry).
expect_rank_reference <- function(X, Y, ks) {
  n <- nrow(X)
  rx <- ref_ranks(X); ry <- ref_ranks(Y)
  expect_equal(trustworthiness(X, Y, k = ks), vapply(ks, function(K) ref_T(rx, ry, K), 0),
               tolerance = 1e-12)
  expect_equal(continuity(X, Y, k = ks), vapply(ks, function(K) ref_T(ry, rx, K), 0),
               tolerance = 1e-12)
  Q <- coranking(X, Y)
  expect_identical(unclass(Q)[, ], unclass(table(factor(rx[rx > 0], 1:(n - 1)),
                                                  factor(ry[rx > 0], 1:(n - 1))))[, ],
                   ignore_attr = TRUE)
  invisible(list(rx = rx, ry = ry))
}

# ---- hand-computed fixtures ----------------------------------------------------

# Fixture A: X = (0, 1, 3, 6, 10), Y = (0, 3, 1, 6, 10) (points 2 and 3 swap
# places). Ranks (row i: rank of j), ties by the smaller index:
#   X: 1: 2->1 3->2 4->3 5->4 | 2: 1->1 3->2 4->3 5->4 | 3: 2->1 1->2 4->3 5->4
#      (1 and 4 tie at distance 3) | 4: 3->1 5->2 2->3 1->4 | 5: 4->1 3->2 2->3 1->4
#   Y: 1: 3->1 2->2 4->3 5->4 | 2: 3->1 1->2 4->3 5->4 (1 and 4 tie) |
#      3: 1->1 2->2 4->3 5->4 | 4: 2->1 5->2 3->3 1->4 | 5: 4->1 2->2 3->3 1->4
# K = 1: intrusions (Y-NN not X-NN, penalty rho - 1): 1: j=3 (1), 2: j=3 (1),
#   3: j=1 (1), 4: j=2 (rho 3 -> 2), 5: none; sum 5; G_1 = 2/(5*1*6) = 1/15;
#   T(1) = 1 - 5/15 = 2/3; extrusions are symmetric here: C(1) = 2/3.
# K = 2: G_2 = 2/(5*2*3) = 1/15; intrusions: 4: j=2 (rho 3, 1), 5: j=2 (rho 3, 1);
#   T(2) = 13/15 = C(2).
# K = 3 >= n/2: G_3 = 2/(5*2*1) = 1/5, all top-3 sets agree: T(3) = C(3) = 1.
# Co-ranking Q[k, l] (pairs with rho = k, r = l): (1,2): 1-2, 2-1, 3-2; (2,1): 1-3,
#   2-3, 3-1; (3,3): 1-4, 2-4, 3-4; (4,4): 1-5, 2-5, 3-5, 4-1, 5-1; (3,1): 4-2;
#   (1,3): 4-3; (2,2): 4-5; (3,2): 5-2; (2,3): 5-3; (1,1): 5-4.
# Q_NX(1) = 1/5 (only point 5 keeps its NN), Q_NX(2) = 8/10, Q_NX(3) = 1;
#   R_NX = ((n-1) Q_NX - K)/(n-1-K) = (-1/15, 3/5, 1); LCMC = Q_NX - K/4 =
#   (-1/20, 3/10, 1/4); AUC = (-1/15 + 3/10 + 1/3) / (1 + 1/2 + 1/3) = 17/55.
fxA <- list(X = cbind(c(0, 1, 3, 6, 10)), Y = cbind(c(0, 3, 1, 6, 10)))

test_that("hand-computed 5-point fixture: T, C, co-ranking, Q_NX, R_NX, LCMC, AUC", {
  expect_equal(trustworthiness(fxA$X, fxA$Y, k = 1:3), c(2 / 3, 13 / 15, 1), tolerance = 1e-14)
  expect_equal(continuity(fxA$X, fxA$Y, k = 1:3), c(2 / 3, 13 / 15, 1), tolerance = 1e-14)
  Q <- coranking(fxA$X, fxA$Y)
  Qh <- matrix(c(1, 3, 1, 0,
                 3, 1, 1, 0,
                 1, 1, 3, 0,
                 0, 0, 0, 5), 4, byrow = TRUE)
  expect_identical(unclass(Q)[1:4, 1:4], matrix(as.integer(Qh), 4))
  expect_s3_class(Q, "manifold_coranking")
  expect_identical(attr(Q, "n_points"), 5L)
  expect_equal(rnx(fxA$X, fxA$Y), c(-1 / 15, 3 / 5, 1), tolerance = 1e-14)
  expect_equal(lcmc(fxA$X, fxA$Y), c(-1 / 20, 3 / 10, 1 / 4), tolerance = 1e-14)
  expect_equal(rnx_auc(fxA$X, fxA$Y), 17 / 55, tolerance = 1e-14)
  # the same curves from the co-ranking matrix
  expect_equal(rnx(Q), c(-1 / 15, 3 / 5, 1), tolerance = 1e-14)
  expect_equal(rnx_auc(rnx(Q)), 17 / 55, tolerance = 1e-14)
})

# Fixture B: X = (0, 1, 3, 6, 10) as above, Y = (0, 1, 10, 3, 6).
#   Y ranks: 1: 2->1 4->2 5->3 3->4 | 2: 1->1 4->2 5->3 3->4 | 3: 5->1 4->2 2->3 1->4 |
#            4: 2->1 1->2 (1 and 5 tie at 3) 5->3 3->4 | 5: 4->1 3->2 2->3 1->4
# K = 2 (G = 1/15): intrusions, penalty rho - 2: 1: j=4 (rho 3) 1; 2: j=4 (rho 3) 1;
#   3: j=5 (rho 4) 2 + j=4 (rho 3) 1; 4: j=2 (rho 3) 1 + j=1 (rho 4) 2; 5: none.
#   Sum 8: T(2) = 7/15. Extrusions, penalty r - 2: 1: j=3 (r 4) 2; 2: j=3 (r 4) 2;
#   3: j=2 (r 3) 1 + j=1 (r 4) 2; 4: j=3 (r 4) 2 + j=5 (r 3) 1. Sum 10: C(2) = 1/3.
# K = 3 (G = 1/5): each of points 1-4 has one intrusion and one extrusion of rank 4:
#   T(3) = C(3) = 1 - 4/5 = 1/5.
test_that("hand-computed fixture with T != C (intrusions vs extrusions not swapped)", {
  Y <- cbind(c(0, 1, 10, 3, 6))
  expect_equal(trustworthiness(fxA$X, Y, k = c(2, 3)), c(7 / 15, 1 / 5), tolerance = 1e-14)
  expect_equal(continuity(fxA$X, Y, k = c(2, 3)), c(1 / 3, 1 / 5), tolerance = 1e-14)
  # swapping the roles of X and Y swaps T and C
  expect_equal(trustworthiness(Y, fxA$X, k = 2), 1 / 3, tolerance = 1e-14)
})

# ---- agreement with a plain-R reference ---------------------------------------------

test_that("T, C and Q_NX equal a brute-force rank-matrix reference, with ties and duplicates", {
  set.seed(11)
  n <- 41
  X <- matrix(sample(0:3, n * 3, TRUE), n)      # integer grid: massive ties
  X[7, ] <- X[30, ]                              # exact duplicates
  Y <- matrix(sample(0:4, n * 2, TRUE), n)
  r <- expect_rank_reference(X, Y, ks = c(1, 2, 5, 19, 20, 21, 30, n - 2))  # both branches of G_K
  K <- seq_len(n - 2)
  q <- vapply(K, function(k) ref_qnx(r$rx, r$ry, k), 0)
  expect_equal(rnx(X, Y), ((n - 1) * q - K) / (n - 1 - K), tolerance = 1e-12)
})

test_that("the BLAS path for wide data gives the exact ranks (duplicates included)", {
  set.seed(12)
  n <- 50
  X <- matrix(rnorm(n * 40), n)                  # > 24 columns: Gram-block distances
  X[3, ] <- X[44, ]
  X[10, ] <- X[44, ]
  Y <- X[, 1:2] + matrix(rnorm(n * 2, sd = 0.3), n)
  ks <- c(1, 4, 10, 30)
  r <- expect_rank_reference(X, Y, ks)
  # continuity with the roles swapped is trustworthiness
  expect_equal(continuity(Y, X, k = ks), vapply(ks, function(K) ref_T(r$rx, r$ry, K), 0),
               tolerance = 1e-12)
})

test_that("co-ranking matrix: margins, block, and T/C from the matrix formulas", {
  set.seed(13)
  n <- 60
  X <- matrix(rnorm(n * 4), n)
  Y <- X[, 1:2] + matrix(rnorm(n * 2, sd = 0.5), n)
  Q <- unclass(coranking(X, Y))
  expect_true(all(rowSums(Q) == n))
  expect_true(all(colSums(Q) == n))
  expect_equal(sum(Q), n * (n - 1))
  expect_identical(unclass(coranking(X, Y, K_max = 12))[, ], Q[1:12, 1:12], ignore_attr = TRUE)
  kk <- seq_len(n - 1)
  for (K in c(3, 10, 29, 30, 45)) {
    Tq <- 1 - ref_G(n, K) * sum(outer(kk - K, kk, function(a, b) 0 * b + a)[kk > K, kk <= K] *
                                 Q[kk > K, kk <= K])
    Cq <- 1 - ref_G(n, K) * sum(outer(kk, kk - K, function(a, b) 0 * a + b)[kk <= K, kk > K] *
                                 Q[kk <= K, kk > K])
    expect_equal(trustworthiness(X, Y, k = K), Tq, tolerance = 1e-12)
    expect_equal(continuity(X, Y, k = K), Cq, tolerance = 1e-12)
  }
  # LCMC and R_NX from the block agree with the row-wise computation
  expect_equal(lcmc(coranking(X, Y, K_max = 20)), lcmc(X, Y, K_max = 20), tolerance = 1e-14)
  expect_equal(rnx(coranking(X, Y)), rnx(X, Y), tolerance = 1e-14)
})

test_that("results do not depend on the number of threads", {
  set.seed(14)
  X <- matrix(rnorm(300 * 3), 300)
  Y <- X[, 1:2] + matrix(rnorm(600, sd = 0.2), 300)
  expect_identical(trustworthiness(X, Y, k = c(5, 50), n_threads = 1),
                   trustworthiness(X, Y, k = c(5, 50), n_threads = 2))
  expect_identical(rnx(X, Y, n_threads = 1), rnx(X, Y, n_threads = 2))
  expect_identical(coranking(X, Y, n_threads = 1), coranking(X, Y, n_threads = 2))
})

# ---- invariants ------------------------------------------------------------------------

test_that("T = C = 1 and R_NX = 1 for the identity and for similarity transforms", {
  set.seed(15)
  n <- 120
  X <- matrix(rnorm(n * 3), n)
  R <- random_rotation(3)
  Ys <- list(identity = X,
             similarity = 2.5 * X %*% R + matrix(c(1, -4, 7), n, 3, byrow = TRUE),
             reflected = -0.1 * X %*% R)
  ks <- c(1, 5, 30, 59, 60, 100)
  for (Y in Ys) {
    expect_equal(trustworthiness(X, Y, k = ks), rep(1, length(ks)), tolerance = 1e-14)
    expect_equal(continuity(X, Y, k = ks), rep(1, length(ks)), tolerance = 1e-14)
    r <- rnx(X, Y)
    expect_length(r, n - 2)
    expect_equal(r, rep(1, n - 2), tolerance = 1e-14)
    expect_equal(rnx_auc(X, Y), 1, tolerance = 1e-14)
    expect_equal(lcmc(X, Y, K_max = 10), 1 - (1:10) / (n - 1), tolerance = 1e-14)
  }
})

test_that("random embeddings: E[T] = E[C] = 1 - (n-1-K)(n-K)/((n-1)(2n-3K-1)) and E[R_NX] = 0", {
  set.seed(16)
  n <- 40
  K <- 5
  X <- matrix(rnorm(n * 3), n)
  reps <- 200
  vals <- replicate(reps, {
    Y <- matrix(runif(n * 2), n)
    c(trustworthiness(X, Y, k = K), continuity(X, Y, k = K), rnx(X, Y, K_max = K)[K])
  })
  ET <- 1 - (n - 1 - K) * (n - K) / ((n - 1) * (2 * n - 3 * K - 1))
  se <- apply(vals, 1, sd) / sqrt(reps)
  expect_lt(abs(mean(vals[1, ]) - ET), 4 * se[1])
  expect_lt(abs(mean(vals[2, ]) - ET), 4 * se[2])
  expect_lt(abs(mean(vals[3, ])), 4 * se[3])
  expect_true(all(vals[1:2, ] >= 0 & vals[1:2, ] <= 1))
  # and the measures do separate: a good embedding scores far above the random mean
  expect_gt(trustworthiness(X, X[, 1:2], k = K), ET + 10 * se[1])
})

test_that("coRanking package agreement (when installed)", {
  skip_if_not_installed("coRanking")
  set.seed(17)
  n <- 80
  X <- matrix(rnorm(n * 5), n)
  Y <- X[, 1:2] + matrix(rnorm(n * 2, sd = 0.4), n)
  Qc <- coRanking::coranking(X, Y)
  Q <- coranking(X, Y)
  expect_identical(unclass(Q)[, ], unclass(Qc)[, ], ignore_attr = TRUE)
  rc <- coRanking::R_NX(Qc)
  expect_equal(rnx(X, Y), as.numeric(rc), tolerance = 1e-12)
  expect_equal(rnx(Q), as.numeric(rc), tolerance = 1e-12)
  expect_equal(lcmc(X, Y, K_max = n - 2),
               suppressWarnings(coRanking::LCMC(Qc, K = 1:(n - 2))), tolerance = 1e-12,
               ignore_attr = TRUE)
  expect_equal(rnx_auc(X, Y), coRanking::AUC_ln_K(rc), tolerance = 1e-12)
  # with duplicated points coRanking's R reference (ties "first") still agrees
  X[4, ] <- X[9, ]
  Y[20, ] <- Y[21, ]
  Qr <- suppressWarnings(coRanking::coranking(X, Y, use = "R"))
  expect_identical(unclass(coranking(X, Y))[, ], unclass(Qr)[, ], ignore_attr = TRUE)
})

# ---- Procrustes ----------------------------------------------------------------------------

test_that("Procrustes recovers a known rotation, scale and shift to 1e-10", {
  set.seed(18)
  n <- 50
  A <- matrix(rnorm(n * 3), n)
  R <- random_rotation(3)
  s <- 1.7
  t0 <- c(3, -1, 0.5)
  B <- s * A %*% R + matrix(t0, n, 3, byrow = TRUE)
  pr <- procrustes(A, B)                 # move A onto B
  expect_s3_class(pr, "manifold_procrustes")
  expect_lt(max(abs(pr$rotation - R)), 1e-10)
  expect_lt(abs(pr$scale - s), 1e-10)
  expect_lt(max(abs(pr$translation - t0)), 1e-10)
  expect_lt(max(abs(pr$fitted - B)), 1e-10)
  expect_lt(pr$distance, 1e-10)
  expect_lt(pr$matlab_d, 1e-12)
  # the inverse direction
  pi <- procrustes(B, A)
  expect_lt(max(abs(pi$rotation - t(R))), 1e-10)
  expect_lt(abs(pi$scale - 1 / s), 1e-10)
  # a reflection is recovered by default, refused with reflection = FALSE
  P <- diag(c(1, 1, -1))
  Bm <- A %*% P %*% R
  expect_lt(procrustes(A, Bm)$distance, 1e-10)
  expect_equal(det(procrustes(A, Bm)$rotation), -1, tolerance = 1e-10)
  prr <- procrustes(A, Bm, reflection = FALSE)
  expect_equal(det(prr$rotation), 1, tolerance = 1e-10)
  expect_gt(prr$distance, 0.1)
  expect_equal(crossprod(prr$rotation), diag(3), tolerance = 1e-12)
})

# Hand fixture: Y = (-1, 0, 1), target = (-1, 0, 2). target_c = (-4/3, -1/3, 5/3),
# Y_c = Y, t(Y_c) target_c = 3, ||Y_c||^2 = 2, ||target_c||^2 = 14/3.
# scale = 3/2, rotation = 1, translation = 1/3 - 0 = 1/3, fitted = (-7/6, 1/3, 11/6),
# ss = 14/3 - 9/2 = 1/6, matlab_d = (1/6)/(14/3) = 1/28,
# orthogonal = sqrt(14/3 + 2 - 2*3) = sqrt(2/3).
test_that("Procrustes: hand-computed 1-D fixture and the distance conventions", {
  pr <- procrustes(cbind(c(-1, 0, 1)), cbind(c(-1, 0, 2)))
  expect_equal(pr$scale, 3 / 2, tolerance = 1e-14)
  expect_equal(drop(pr$rotation), 1)
  expect_equal(pr$translation, 1 / 3, tolerance = 1e-14)
  expect_equal(drop(pr$fitted), c(-7 / 6, 1 / 3, 11 / 6), tolerance = 1e-14)
  expect_equal(pr$ss, 1 / 6, tolerance = 1e-14)
  expect_equal(pr$matlab_d, 1 / 28, tolerance = 1e-14)
  expect_equal(pr$orthogonal, sqrt(2 / 3), tolerance = 1e-14)
  expect_equal(procrustes_dist(cbind(c(-1, 0, 1)), cbind(c(-1, 0, 2)), "ss"), 1 / 6, tolerance = 1e-14)
  # without scaling
  pn <- procrustes(cbind(c(-1, 0, 1)), cbind(c(-1, 0, 2)), scale = FALSE)
  expect_equal(pn$scale, 1)
  expect_equal(pn$ss, 2 / 3, tolerance = 1e-14)
  # matlab_d is symmetric; ss is not
  set.seed(19)
  A <- matrix(rnorm(30), 15); B <- matrix(rnorm(30), 15)
  expect_equal(procrustes_dist(A, B, "matlab_d"), procrustes_dist(B, A, "matlab_d"), tolerance = 1e-12)
  expect_equal(procrustes_dist(A, B, "orthogonal"), procrustes_dist(B, A, "orthogonal"), tolerance = 1e-12)
  # ss = ||B_c||^2 - tr(S)^2 / ||A_c||^2 (moving A onto B)
  Ac <- scale(A, scale = FALSE); Bc <- scale(B, scale = FALSE)
  expect_equal(procrustes_dist(A, B, "ss"),
               sum(Bc^2) - sum(svd(crossprod(Ac, Bc))$d)^2 / sum(Ac^2), tolerance = 1e-12)
})

test_that("Procrustes pads the narrower configuration with zero columns", {
  set.seed(20)
  A <- matrix(rnorm(40), 20)
  B <- cbind(A %*% random_rotation(2), 0)      # 3 columns, planar
  pr <- procrustes(A, B)
  expect_equal(dim(pr$rotation), c(3L, 3L))
  expect_lt(pr$distance, 1e-10)
  pr2 <- procrustes(B, A)
  expect_equal(dim(pr2$fitted), c(20L, 3L))
  expect_lt(pr2$distance, 1e-10)
})

# ---- residual variance -------------------------------------------------------------------------

# Hand fixture: X = (0, 1, 2, 3) with k = 1: the or-symmetrised 1-NN graph is the path
# 1-2-3-4 (ties by the smaller index), so geodesics = |x_i - x_j|:
# pairs (12,13,14,23,24,34): G = (1,2,3,1,2,1); Y = (0,1,2,4): D = (1,2,4,1,3,2).
# Means 5/3 and 13/6; centred sums: S_GG = 30/9 = 10/3, S_DD = 246/36 = 41/6,
# S_GD = (14 - 1 + 44 + 14 + 5 + 2)/18 = 13/3, so r^2 = (169/9)/(410/18) = 169/205
# and the residual variance is 36/205.
test_that("residual variance: hand-computed fixture and pairs = 'all'", {
  X <- cbind(c(0, 1, 2, 3))
  Y <- cbind(c(0, 1, 2, 4))
  expect_equal(residual_variance(X, Y, k = 1), 36 / 205, tolerance = 1e-13)
  G <- as.matrix(dist(X)); D <- as.matrix(dist(Y))
  expect_equal(residual_variance(X, Y, k = 1, pairs = "all"), 1 - cor(c(G), c(D))^2,
               tolerance = 1e-13)
  expect_equal(residual_variance(NULL, Y, distances = dist(X)), 36 / 205, tolerance = 1e-13)
  expect_equal(residual_variance(X, 3 * Y + 1, k = 1), 36 / 205, tolerance = 1e-13)
})

test_that("geodesic residual variance equals a Floyd-Warshall reference on the kNN graph", {
  set.seed(21)
  n <- 60
  t <- sort(runif(n, 0, 1.5 * pi))
  X <- cbind(cos(t), sin(t), rnorm(n, sd = 0.05))
  k <- 6
  D <- as.matrix(dist(X))
  W <- matrix(Inf, n, n); diag(W) <- 0
  for (i in 1:n) {
    o <- order(D[i, ], 1:n); o <- o[o != i][1:k]
    W[i, o] <- D[i, o]; W[o, i] <- D[i, o]
  }
  for (m in 1:n) W <- pmin(W, outer(W[, m], W[m, ], "+"))
  Y <- cbind(t, rnorm(n, sd = 0.1))
  up <- upper.tri(W)
  expect_equal(residual_variance(X, Y, k = k), 1 - cor(W[up], as.matrix(dist(Y))[up])^2,
               tolerance = 1e-9)
  expect_equal(residual_variance(X, Y, k = k, pairs = "all"),
               1 - cor(c(W), c(as.matrix(dist(Y))))^2, tolerance = 1e-9)
  expect_gt(abs(residual_variance(X, Y, k = k, pairs = "all") - residual_variance(X, Y, k = k)), 1e-8)
  # arc length embedding of a thin arc: small; collapsing the arc onto one axis: large
  expect_lt(residual_variance(X, cbind(t), k = k), 0.01)
  expect_gt(residual_variance(X, X[, 1, drop = FALSE], k = k), 0.1)
})

test_that("residual variance against ground-truth coordinates", {
  set.seed(22)
  Z <- matrix(runif(200), 100)
  Y <- 3 * Z %*% random_rotation(2) + 5
  expect_lt(residual_variance_coords(Y, Z), 1e-12)
  expect_gt(residual_variance_coords(Z[, 2:1], Z, align = "none"), 0.01)
  expect_equal(residual_variance_coords(Z, Z, align = "none"), 0)
  expect_gt(residual_variance_coords(matrix(runif(200), 100), Z), 0.5)
})

# ---- out-of-sample errors ---------------------------------------------------------------------

test_that("oos_error is zero for exact similarity images and matches hand fixtures", {
  set.seed(23)
  ref <- matrix(rnorm(120), 60)
  Y <- -0.3 * ref %*% random_rotation(2) + 4
  tr <- 1:50; te <- 51:60
  expect_lt(oos_error(Y[te, ], ref[te, ], Y[tr, ], ref[tr, ]), 1e-20)
  expect_lt(oos_error(Y[te, ], ref[te, ], Y[tr, ], ref[tr, ], scale = TRUE), 1e-20)
  expect_lt(oos_error(Y[te, ], ref[te, ], align = "test"), 1e-20)
  expect_lt(oos_error(Y[te, ], ref[te, ], type = "procrustes"), 1e-10)
  expect_lt(oos_error(Y[te, ], ref[te, ], Y[tr, ], ref[tr, ], type = "procrustes", align = "train"), 1e-10)
  expect_lt(oos_error(Y[te, ], ref[te, ], Y[tr, ], ref[tr, ], type = "goose", scale = TRUE), 1e-10)
  # Hand fixture (1-D): reference_train = (-1, 1), Y_train = (-2, 2): s_F = 1, s_P = 2,
  # rotation 1; reference_new = 0.5, Y_new = 2 -> F = 0.5, P = 1, E = 0.25 (both ways).
  expect_equal(oos_error(cbind(2), cbind(0.5), cbind(c(-2, 2)), cbind(c(-1, 1))), 0.25)
  expect_equal(oos_error(cbind(2), cbind(0.5), cbind(c(-2, 2)), cbind(c(-1, 1)), scale = TRUE), 0.25)
  # GOoSE fixture: Y_train = (1, -1) is reference_train = (-1, 1) reflected: rotation -1,
  # translation 0; Y_new = -3 -> 3 against reference_new = 2.5: e = 0.5.
  expect_equal(oos_error(cbind(-3), cbind(2.5), cbind(c(1, -1)), cbind(c(-1, 1)), type = "goose"), 0.5)
  # without alignment the reflection is not undone: e = |2.5 - (-3)| = 5.5
  expect_equal(oos_error(cbind(-3), cbind(2.5), cbind(c(1, -1)), cbind(c(-1, 1)),
                         type = "goose", align = "none"), 5.5)
})

test_that("Procrustes error (S004): range, invariance, denominators", {
  set.seed(24)
  ref <- matrix(rnorm(80), 40)
  Y <- ref + matrix(rnorm(80, sd = 0.3), 40)
  e <- oos_error(Y, ref, type = "procrustes")
  expect_gt(e, 0); expect_lt(e, 1)
  Ys <- 7 * Y %*% random_rotation(2) - 3
  expect_equal(oos_error(Ys, ref, type = "procrustes"), e, tolerance = 1e-12)
  # centred denominator: e^2 equals MATLAB's d
  ec <- oos_error(Y, ref, type = "procrustes", denom = "centred")
  expect_equal(ec^2, procrustes_dist(Y, ref, "matlab_d"), tolerance = 1e-12)
  # an unrelated configuration is close to the maximum
  expect_gt(oos_error(matrix(rnorm(80), 40), ref, type = "procrustes", denom = "centred"), 0.8)
})

test_that("embedding error aligned on training rows does not fit away extrapolation errors", {
  set.seed(25)
  ref <- matrix(rnorm(200), 100)
  Y <- 2 * ref
  te <- 91:100
  Y[te, ] <- Y[te, ] %*% random_rotation(2)       # held-out points rotated wrongly
  e_train <- oos_error(Y[te, ], ref[te, ], Y[-te, ], ref[-te, ])
  e_test <- oos_error(Y[te, ], ref[te, ], align = "test")
  expect_gt(e_train, 0.01)
  expect_lt(e_test, 1e-20)                        # optimistic: the rotation is fitted away
})

# ---- 1-NN accuracy -----------------------------------------------------------------------------

test_that("knn_accuracy: hand fixture with vote ties, separated clusters, random labels", {
  # training points 0 (a), 1 (b), 3 (b). Query 0.4: neighbours 0 (a), 1 (b), 3 (b).
  # k = 1 -> a; k = 2 -> a-b tie -> nearest (a); k = 3 -> b. Query 0.6: neighbours
  # 1 (b), 0 (a): k = 2 tie -> b.
  Yt <- cbind(c(0, 1, 3)); lt <- c("a", "b", "b")
  q <- cbind(c(0.4, 0.6))
  expect_identical(attr(knn_accuracy(Yt, lt, q, c("a", "b"), k = 1), "predicted"), c("a", "b"))
  expect_identical(attr(knn_accuracy(Yt, lt, q, c("a", "b"), k = 2), "predicted"), c("a", "b"))
  expect_identical(attr(knn_accuracy(Yt, lt, q, c("a", "b"), k = 3), "predicted"), c("b", "b"))
  expect_equal(as.numeric(knn_accuracy(Yt, lt, q, c("a", "b"), k = 3)), 0.5)
  set.seed(26)
  Y <- rbind(matrix(rnorm(100), 50), matrix(rnorm(100, 10), 50))
  lab <- factor(rep(c("u", "v"), each = 50))
  acc <- knn_accuracy(Y, lab)                 # leave-one-out
  expect_equal(as.numeric(acc), 1)
  expect_equal(attr(acc, "kappa"), 1)
  expect_equal(as.numeric(knn_accuracy(Y[-(1:10), ], lab[-(1:10)], Y[1:10, ], lab[1:10])), 1)
  accs <- replicate(50, as.numeric(knn_accuracy(Y, sample(lab))))
  expect_lt(abs(mean(accs) - 0.5), 0.05)
})

# ---- assess ------------------------------------------------------------------------------------

test_that("assess() returns a tidy data frame consistent with the individual measures", {
  set.seed(27)
  n <- 160
  Z <- cbind(runif(n), runif(n))
  A <- qr.Q(qr(matrix(rnorm(9), 3)))[, 1:2]
  X <- Z %*% t(A) + 1                          # exactly planar data in 3-D
  tr <- 1:120; te <- 121:160
  fit <- pca(X[tr, ], ndim = 2)
  lab <- ifelse(Z[, 1] > 0.5, "r", "l")
  a <- assess(fit, X = X[tr, ], newdata = X[te, ], truth = Z[tr, ], truth_new = Z[te, ],
              reference = Z[tr, ], reference_new = Z[te, ], labels = lab[tr],
              labels_new = lab[te], k = c(5, 10))
  expect_s3_class(a, "data.frame")
  expect_named(a, c("set", "measure", "k", "value"))
  expect_setequal(unique(a$set), c("training", "held-out"))
  # PCA of planar data is an isometry: every neighbourhood measure is 1, every error 0
  nb <- a$measure %in% c("trustworthiness", "continuity", "rnx", "rnx_auc",
                         "trustworthiness_truth", "continuity_truth")
  expect_equal(a$value[nb], rep(1, sum(nb)), tolerance = 1e-12)
  err <- a$measure %in% c("residual_variance_truth", "procrustes_d_truth", "embedding_error_truth",
                          "procrustes_error", "embedding_error", "goose_error")
  expect_true(sum(err) >= 8)
  expect_lt(max(a$value[err]), 1e-10)
  expect_equal(a$value[a$measure == "knn_accuracy"], c(
    as.numeric(knn_accuracy(embedding(fit), lab[tr])),
    as.numeric(knn_accuracy(embedding(fit), lab[tr], predict(fit, X[te, ]), lab[te]))))
  # a noisy fit: values equal the stand-alone functions
  Xn <- X + matrix(rnorm(n * 3, sd = 0.05), n)
  fit2 <- pca(Xn[tr, ], ndim = 1)
  b <- assess(fit2, X = Xn[tr, ], newdata = Xn[te, ], k = 7, geodesic = TRUE)
  Yn <- predict(fit2, Xn[te, ])
  get <- function(set, m) b$value[b$set == set & b$measure == m]
  expect_equal(get("training", "trustworthiness"), trustworthiness(Xn[tr, ], embedding(fit2), 7))
  expect_equal(get("held-out", "continuity"), continuity(Xn[te, ], Yn, 7))
  expect_equal(get("held-out", "rnx"), rnx(Xn[te, ], Yn)[7])
  expect_equal(get("training", "rnx_auc"), rnx_auc(Xn[tr, ], embedding(fit2)))
  expect_equal(get("training", "residual_variance"), residual_variance(Xn[tr, ], embedding(fit2), k = 7))
  expect_lt(get("training", "trustworthiness"), 1)
  # heldout = "all": the union of training and held-out points
  b2 <- assess(fit2, X = Xn[tr, ], newdata = Xn[te, ], k = 7, heldout = "all")
  expect_equal(b2$value[b2$set == "held-out" & b2$measure == "trustworthiness"],
               trustworthiness(Xn, rbind(embedding(fit2), Yn), 7))
})

# ---- bad input ------------------------------------------------------------------------------------

test_that("bad input gives classed errors naming the argument", {
  set.seed(28)
  X <- matrix(rnorm(60), 20)
  Y <- X[, 1:2]
  expect_input_error(trustworthiness(X, Y[-1, ]), "`Y`")
  expect_input_error(continuity(X[-1, ], Y), "`Y`")
  expect_input_error(trustworthiness(X, Y, k = 19), "`k`")     # k >= n - 1
  expect_input_error(trustworthiness(X, Y, k = 20), "`k`")     # k >= n
  expect_input_error(trustworthiness(X, Y, k = 0), "`k`")
  expect_input_error(trustworthiness(X, Y, k = c(2, 2.5)), "`k`")
  expect_input_error(trustworthiness(X, Y, k = NA), "`k`")
  expect_input_error(continuity(X, Y, k = "3"), "`k`")
  Xna <- X; Xna[2, 2] <- NA
  expect_input_error(trustworthiness(Xna, Y), "`X`")
  Yna <- Y; Yna[5, 1] <- NaN
  expect_input_error(rnx(X, Yna), "`Y`")
  expect_input_error(coranking(X, Yna), "`Y`")
  expect_input_error(rnx(X, Y, K_max = 19), "`K_max`")
  expect_input_error(rnx(X), "`Y`")
  expect_input_error(coranking(X, Y, K_max = 0), "`K_max`")
  old <- options(manifoldOOS.coranking_max_n = 10)
  on.exit(options(old))
  expect_input_error(coranking(X, Y), "K_max")
  expect_identical(dim(coranking(X, Y, K_max = 5)), c(5L, 5L))
  expect_input_error(residual_variance(X, Y[-1, ]), "`Y`")
  expect_input_error(residual_variance(X, Y, k = 20), "`k`")
  expect_input_error(residual_variance(X, Y, pairs = "lower"), "`pairs`")
  two_blobs <- rbind(matrix(rnorm(20), 10), matrix(rnorm(20, 100), 10))
  err <- expect_error(residual_variance(two_blobs, two_blobs, k = 2), class = "manifoldOOS_input_error")
  expect_match(conditionMessage(err), "connected components")
  expect_input_error(residual_variance(NULL, Y, distances = matrix(1, 20, 3)), "`distances`")
  expect_input_error(procrustes(X, Y[-1, ]), "`Y`")
  expect_input_error(procrustes(X, Y, scale = NA), "`scale`")
  expect_input_error(oos_error(Y[1:5, ], Y[1:5, ]), "`Y_train`")
  expect_input_error(oos_error(Y[1:5, ], Y[1:4, ], type = "procrustes"), "`Y_new`")
  expect_input_error(oos_error(Y[1:5, ], Y[1:5, ], type = "other"), "`type`")
  expect_input_error(knn_accuracy(Y, rep(1, 19)), "`labels_train`")
  expect_input_error(knn_accuracy(Y, rep(1:2, 10), Y[1:3, ], c(1, 2)), "`labels_test`")
  expect_input_error(knn_accuracy(Y, rep(1:2, 10), k = 20), "`k`")
  expect_input_error(residual_variance_coords(Y, X, align = "none"), "`Y`")
  fit <- pca(X, 2)
  expect_input_error(assess(list()), "`fit`")
  expect_input_error(assess(fit, X = X[-1, ]), "`X`")
  expect_input_error(assess(fit, X = X, k = 19), "`k`")
  expect_input_error(assess(fit, truth = Y[-1, ]), "`truth`")
  expect_input_error(assess(fit), "nothing to assess")
})
