# Spectral regression (SR, KSR) and kernel LPP (spec B.14-B.16; LGRM Props. 3-4).

sr_angles <- function(A, B) {
  qa <- qr.Q(qr(A)); qb <- qr.Q(qr(B))
  asin(pmin(1, svd(qb - qa %*% crossprod(qa, qb))$d))
}
sr_W <- function(X, k) as.matrix(neighbor_graph(X, k = k, weights = "heat", sigma = "mean_pairwise")$W)

# Reference graph embeddings in base R.
le_generalized <- function(W, m) {
  d <- rowSums(W)
  N <- W / sqrt(outer(d, d))
  e <- eigen(N, symmetric = TRUE)
  Z <- e$vectors[, 2:(m + 1)] / sqrt(d)
  list(Y = Z, values = 1 - e$values[2:(m + 1)])
}
le_unnormalized <- function(W, m) {
  L <- diag(rowSums(W)) - W
  e <- eigen(L, symmetric = TRUE)
  n <- nrow(W)
  list(Y = e$vectors[, n - seq_len(m)], values = e$values[n - seq_len(m)])
}

test_that("SR with a tiny ridge reproduces the graph embedding and LPP's subspace (rank n - 1)", {
  set.seed(1)
  X <- matrix(rnorm(30 * 40), 30)
  fit <- spectral_regression(X, 3, k = 5, alpha = 1e-10)
  W <- sr_W(X, 5)
  ref <- le_generalized(W, 3)
  expect_equal(fit$eigenvalues, ref$values, tolerance = 1e-10)
  expect_lt(max(sr_angles(embedding(fit), ref$Y)), 1e-6)
  # columns equal up to sign
  expect_equal(abs(unname(embedding(fit))), abs(ref$Y), tolerance = 1e-6)
  l <- lpp(X, 3, k = 5, center = "degree", min_beta = 0)
  expect_lt(max(sr_angles(fit$rotation, l$rotation)), 1e-6)
  expect_equal(l$eigenvalues, ref$values, tolerance = 1e-8)
})

test_that("SR primal and dual solutions are the closed-form ridge regression", {
  for (p in c(4, 60)) {
    set.seed(2 + p)
    X <- matrix(rnorm(50 * p), 50)
    fit <- spectral_regression(X, 2, k = 6, alpha = 0.3)
    expect_equal(fit$solver$path, if (p < 50) "primal" else "dual")
    W <- sr_W(X, 6)
    Y <- le_generalized(W, 2)$Y
    Y <- Y %*% diag(sign(colSums(Y * embedding(fit))))
    Xc <- sweep(X, 2, colMeans(X))
    A <- solve(crossprod(Xc) + 0.3 * diag(p), crossprod(Xc, Y))
    expect_equal(unname(fit$rotation), A, tolerance = 1e-8)
    expect_equal(fit$y_mean, colMeans(Y), tolerance = 1e-8)
  }
})

test_that("SR on the unnormalised Laplacian is LGRM's mu = 0 limit (Prop. 3)", {
  roll <- swiss_roll(200, seed = 4)
  X <- roll$x
  W <- sr_W(X, 8)
  gam <- 0.5
  fit <- spectral_regression(X, 2, graph = W, laplacian = "unnormalized", alpha = gam)
  ref <- le_unnormalized(W, 2)
  Y <- ref$Y %*% diag(sign(colSums(ref$Y * embedding(fit))))
  Xnew <- swiss_roll(20, seed = 5)$x
  H <- diag(nrow(X)) - 1 / nrow(X)
  Wr <- solve(crossprod(X, H %*% X) + gam * diag(3), crossprod(X, H %*% Y))
  yref <- sweep(sweep(Xnew, 2, colMeans(X)) %*% Wr, 2, colMeans(Y), "+")
  expect_lt(max(abs(predict(fit, Xnew) - yref)), 1e-9)
})

test_that("KSR with the degree-2 polynomial kernel equals ridge on its explicit features (Prop. 4)", {
  set.seed(6)
  X <- matrix(rnorm(60 * 2), 60)
  Xnew <- matrix(rnorm(10 * 2), 10)
  W <- sr_W(X, 6)
  gam <- 0.05
  fit <- spectral_regression(X, 2, graph = W, kernel = "polynomial", degree = 2, gamma = 1,
                             coef0 = 1, alpha = gam)
  phi <- function(Z) cbind(1, sqrt(2) * Z[, 1], sqrt(2) * Z[, 2], Z[, 1]^2, Z[, 2]^2,
                           sqrt(2) * Z[, 1] * Z[, 2])
  P <- phi(X)
  Y <- le_generalized(W, 2)$Y
  Y <- Y %*% diag(sign(colSums(Y * embedding(fit))))
  Pc <- sweep(P, 2, colMeans(P))
  B <- solve(crossprod(Pc) + gam * diag(ncol(P)), crossprod(Pc, Y))
  yref <- sweep(sweep(phi(Xnew), 2, colMeans(P)) %*% B, 2, colMeans(Y), "+")
  expect_lt(max(abs(predict(fit, Xnew) - yref)), 1e-8)
  # the bias form: beta' 1 = 0
  expect_lt(max(abs(colSums(fit$coefficients))), 1e-10)
})

test_that("KLPP interpolates the graph embedding and equals KSR at the same ridge", {
  roll <- swiss_roll(150, seed = 7)
  X <- roll$x
  W <- sr_W(X, 8)
  kl <- klpp(X, 2, graph = W, kernel_sigma = 3, ridge = 1e-9)
  ref <- le_generalized(W, 2)
  Y <- ref$Y %*% diag(sign(colSums(ref$Y * embedding(kl))))
  expect_lt(max(abs(embedding(kl) - Y)) / max(abs(Y)), 1e-4)
  delta <- 1e-9  # mean(diag K) = 1 for the rbf kernel
  ks <- spectral_regression(X, 2, graph = W, kernel = "rbf", kernel_sigma = 3, alpha = delta)
  Xnew <- swiss_roll(15, seed = 8)$x
  expect_equal(predict(kl, Xnew), predict(ks, Xnew), tolerance = 1e-10)
  # without the bias: beta = (K + delta I)^-1 Y
  k0 <- klpp(X, 2, graph = W, kernel_sigma = 3, ridge = 1e-3, intercept = FALSE)
  K <- exp(-as.matrix(dist(X))^2 / (2 * 9))
  Y0 <- ref$Y %*% diag(sign(colSums(ref$Y * embedding(k0))))
  expect_equal(unname(k0$coefficients), solve(K + 1e-3 * diag(nrow(X)), Y0), tolerance = 1e-7,
               ignore_attr = TRUE)
})

test_that("SR/KSR/KLPP predictions: training rows, batch invariance, saveRDS", {
  roll <- swiss_roll(220, seed = 9)
  X <- roll$x[1:200, ]
  Xnew <- roll$x[201:220, ]
  fits <- list(spectral_regression(X, 2, k = 8), spectral_regression(X, 2, k = 8, kernel = "rbf"),
               klpp(X, 2, k = 8))
  for (fit in fits) {
    expect_equal(predict(fit, X), embedding(fit), tolerance = 1e-10, ignore_attr = TRUE)
    expect_predict_contract(fit, Xnew, tol = 1e-12)
  }
})

test_that("bad input gives classed errors naming the argument", {
  X <- swiss_roll(60, seed = 10)$x
  expect_input_error(spectral_regression(X, 2, alpha = -1), "`alpha`")
  expect_input_error(spectral_regression(X, 2, kernel = "foo"), "`kernel`")
  expect_input_error(spectral_regression(X, 2, intercept = FALSE), "`intercept`")
  expect_input_error(spectral_regression(X, 59), "`ndim`")
  expect_input_error(spectral_regression(X, 2, laplacian = "x"), "`laplacian`")
  expect_input_error(klpp(X, 2, ridge = -1), "`ridge`")
  expect_input_error(klpp(X, 2, kernel_sigma = -1), "`sigma`")
  expect_input_error(spectral_regression(rbind(X, X + 100), 2, k = 4), "`k`")
})
