ref_weights <- function(q, Xn, reg) {
  Z <- sweep(Xn, 2, q)
  C <- Z %*% t(Z)
  C <- C + diag(if (sum(diag(C)) > 0) reg * sum(diag(C)) else reg, nrow(C))
  w <- solve(C, rep(1, nrow(C)))
  w / sum(w)
}

test_that("reconstruction weights match the closed form, sum to one and are similarity invariant", {
  set.seed(20)
  X <- matrix(rnorm(50 * 4), 50)
  Q <- matrix(rnorm(5 * 4), 5)
  idx <- t(apply(Q, 1, function(q) order(colSums((t(X) - q)^2))[1:7]))
  W <- manifoldOOS:::.mo_reconstruction_weights(X, Q, idx, 1e-3, matrix(0, 0, 0), 1L)
  for (i in 1:5) expect_equal(W[i, ], ref_weights(Q[i, ], X[idx[i, ], ], 1e-3), tolerance = 1e-10)
  expect_equal(rowSums(W), rep(1, 5), tolerance = 1e-12)
  R <- qr.Q(qr(matrix(rnorm(16), 4)))
  s <- 3.7; sh <- c(1, -2, 5, 0.5)
  X2 <- s * X %*% R + matrix(sh, 50, 4, byrow = TRUE)
  Q2 <- s * Q %*% R + matrix(sh, 5, 4, byrow = TRUE)
  W2 <- manifoldOOS:::.mo_reconstruction_weights(X2, Q2, idx, 1e-3, matrix(0, 0, 0), 2L)
  expect_equal(W2, W, tolerance = 1e-9)
})

test_that("an affine combination on a plane is reproduced and duplicates are handled", {
  set.seed(21)
  Z <- matrix(runif(40), 20)
  A <- matrix(rnorm(6), 2)
  X <- Z %*% A
  Y <- Z %*% matrix(c(2, 0, 1, 3), 2) + 4      # an affine image of the plane coordinates
  q <- colMeans(X[1:3, , drop = FALSE])
  W <- manifoldOOS:::.mo_reconstruction_weights(X, matrix(q, 1), matrix(1:3, 1), 1e-10,
                                                matrix(0, 0, 0), 1L)
  y <- manifoldOOS:::.mo_reconstruct_embedding(Y, matrix(1:3, 1), W)
  expect_equal(as.vector(y), colMeans(Y[1:3, ]), tolerance = 1e-7)
  # duplicated neighbours make the Gram matrix singular without the regulariser
  Xd <- rbind(X, X[1, ], X[1, ])
  Wd <- manifoldOOS:::.mo_reconstruction_weights(Xd, matrix(X[2, ], 1), matrix(c(21L, 22L, 1L), 1),
                                                 1e-3, matrix(0, 0, 0), 1L)
  expect_true(all(is.finite(Wd)))
  expect_equal(sum(Wd), 1, tolerance = 1e-12)
  # snap rule: distance 0 to the first neighbour gives a one-hot weight
  Ws <- manifoldOOS:::.mo_reconstruction_weights(X, X[5, , drop = FALSE], matrix(c(5L, 1L, 2L), 1),
                                                 1e-3, matrix(c(0, 1, 1), 1), 1L)
  expect_equal(as.vector(Ws), c(1, 0, 0))
})

test_that("the LVM average is a convex combination with heat weights and survives far points", {
  set.seed(22)
  Y <- matrix(rnorm(20), 10)
  idx <- matrix(c(1L, 2L, 3L, 4L, 5L, 6L), 2, byrow = TRUE)
  dist <- matrix(c(0.1, 0.5, 0.9, 0.2, 0.3, 2), 2, byrow = TRUE)
  out <- manifoldOOS:::.mo_lvm_average(Y, idx, dist, 0.7)
  for (i in 1:2) {
    w <- exp(-dist[i, ]^2 / (2 * 0.7^2)); w <- w / sum(w)
    expect_equal(out$y[i, ], colSums(w * Y[idx[i, ], ]), tolerance = 1e-12)
  }
  expect_false(any(out$far))
  far <- manifoldOOS:::.mo_lvm_average(Y, idx, dist + 1e4, 0.7)
  expect_true(all(far$far))
  expect_true(all(is.finite(far$y)))
  expect_equal(far$y[1, ], Y[1, ])      # the limit: all weight on the nearest neighbour
})
