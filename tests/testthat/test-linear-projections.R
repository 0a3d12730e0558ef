# LPP, OLPP, NPE/NPP, ONPP (spec B.10-B.13).

lp_data <- function(n = 90, p = 5, seed = 1) {
  set.seed(seed)
  matrix(rnorm(n * p), n) %*% diag(seq(3, 0.4, length.out = p))
}
dense_W <- function(X, k) {
  g <- neighbor_graph(X, k = k, weights = "heat", sigma = "mean_pairwise")
  as.matrix(g$W)
}
# Principal angles from the sines (accurate for small angles).
angles <- function(A, B) {
  qa <- qr.Q(qr(A)); qb <- qr.Q(qr(B))
  asin(pmin(1, svd(qb - qa %*% crossprod(qa, qb))$d))
}
# Generalised eigenproblem S_A a = lambda S_B a through R's eigen (reference).
ref_geig <- function(SA, SB, m, top) {
  Rb <- chol(SB)
  C <- t(backsolve(Rb, t(backsolve(Rb, SA, transpose = TRUE)), transpose = TRUE))
  e <- eigen((C + t(C)) / 2, symmetric = TRUE)
  idx <- if (top) seq_len(m) else rev(seq_len(ncol(C)))[seq_len(m)]
  list(values = e$values[idx], vectors = backsolve(Rb, e$vectors[, idx, drop = FALSE]))
}

test_that("LPP solves the degree-constrained problem: reference, constraint, residual", {
  X <- lp_data()
  fit <- lpp(X, ndim = 3, k = 6)
  W <- dense_W(X, 6); d <- rowSums(W)
  Xc <- sweep(X, 2, colMeans(X))
  SW <- crossprod(Xc, W %*% Xc); SD <- crossprod(Xc, d * Xc)
  ref <- ref_geig(SW, SD, 3, top = TRUE)
  expect_equal(fit$eigenvalues, 1 - ref$values, tolerance = 1e-10)
  expect_lt(max(angles(fit$rotation, ref$vectors)), 1e-8)
  A <- fit$rotation
  expect_equal(unname(crossprod(A, SD %*% A)), diag(3), tolerance = 1e-8)
  L <- diag(d) - W
  res <- crossprod(Xc, L %*% Xc) %*% A - SD %*% A %*% diag(fit$eigenvalues)
  expect_lt(max(abs(res)), 1e-8 * max(abs(SD)))
  # the numerator does not depend on the centring (L 1 = 0)
  expect_equal(crossprod(X, L %*% X), crossprod(Xc, L %*% Xc), tolerance = 1e-10)
  # sign convention: largest |entry| of each projection vector is positive
  expect_true(all(apply(A, 2, function(a) a[which.max(abs(a))] > 0)))
})

test_that("LPP with the covariance constraint is the form of LGRM's Proposition 1", {
  X <- lp_data(seed = 2)
  W <- dense_W(X, 7)
  fit <- lpp(X, ndim = 2, graph = W, constraint = "covariance")
  L <- diag(rowSums(W)) - W
  Xc <- sweep(X, 2, colMeans(X))
  ref <- ref_geig(crossprod(Xc, L %*% Xc), crossprod(Xc), 2, top = FALSE)
  expect_equal(fit$eigenvalues, ref$values, tolerance = 1e-10)
  Y <- embedding(fit)
  expect_equal(unname(crossprod(Y)), diag(2), tolerance = 1e-8)
  expect_lt(max(angles(Y, Xc %*% ref$vectors)), 1e-8)
})

test_that("predict reproduces the training embedding, is batch invariant and survives saveRDS", {
  X <- lp_data(seed = 3)
  Xnew <- lp_data(n = 7, seed = 4)
  fits <- list(lpp(X, 2, k = 6), olpp(X, 2, k = 6), olpp(X, 2, k = 6, type = "trace"),
               npe(X, 2, k = 8), onpp(X, 2, k = 8))
  for (fit in fits) {
    expect_equal(predict(fit, X), embedding(fit), tolerance = 1e-12, ignore_attr = TRUE)
    batch <- expect_predict_contract(fit, Xnew, tol = 1e-13)
    expect_equal(unname(batch), unname(sweep(Xnew, 2, fit$center) %*% fit$rotation), tolerance = 1e-12)
  }
})

test_that("the PCA step gives the minimum-norm solution; regular problems are unchanged by it", {
  X <- lp_data(seed = 5)
  a <- lpp(X, 3, k = 6)
  b <- lpp(X, 3, k = 6, pca = "always")
  expect_equal(b$solver$path, "pca")
  expect_lt(max(angles(a$rotation, b$rotation)), 1e-8)
  expect_equal(a$eigenvalues, b$eigenvalues, tolerance = 1e-10)
  # p > n: dual PCA step; projections lie in the row space of Xc and satisfy the constraint
  set.seed(6)
  Xw <- matrix(rnorm(40 * 60), 40)
  fit <- lpp(Xw, 3, k = 5, min_beta = 0)
  expect_equal(fit$solver$path, "pca_dual")
  Xc <- sweep(Xw, 2, colMeans(Xw))
  d <- rowSums(dense_W(Xw, 5))
  Z <- Xc %*% fit$rotation
  expect_equal(unname(crossprod(Z, d * Z)), diag(3), tolerance = 1e-8)
  P <- qr.Q(qr(t(Xc)))                      # basis of the row space
  expect_lt(max(abs(fit$rotation - P %*% crossprod(P, fit$rotation))), 1e-10)
  # same problem with a constant column added on the p < n side (p-side PCA step;
  # distances, hence the graph, are unchanged)
  Xr <- cbind(X, 3)
  fr <- lpp(Xr, 3, k = 6)
  expect_equal(fr$solver$path, "pca")
  expect_equal(fr$eigenvalues, a$eigenvalues, tolerance = 1e-8)
})

test_that("singular right-hand matrices without the PCA step are regularised, never a crash", {
  set.seed(7)
  Xw <- matrix(rnorm(30 * 50), 30)
  expect_warning(f1 <- lpp(Xw, 2, k = 5, pca = FALSE, min_beta = 0), class = "manifoldOOS_warning")
  expect_equal(f1$solver$path, "auto_ridge")
  expect_true(all(is.finite(f1$rotation)))
  f2 <- lpp(Xw, 2, k = 5, regularize = 0.1, min_beta = 0)
  expect_equal(f2$solver$path, "ridge")
  d <- rowSums(dense_W(Xw, 5))
  Xc <- sweep(Xw, 2, colMeans(Xw))
  A <- f2$rotation
  # constraint with the ridge: A'(Xc'DXc + alpha mean(d) I)A = I
  G <- crossprod(Xc %*% A, d * (Xc %*% A)) + 0.1 * mean(d) * crossprod(A)
  expect_equal(unname(G), diag(2), tolerance = 1e-8)
  expect_warning(f3 <- npe(Xw, 2, k = 6, pca = FALSE), class = "manifoldOOS_warning")
  expect_true(all(is.finite(embedding(f3))))
})

test_that("the iterative reduced solvers agree with the dense ones", {
  set.seed(8)
  X <- matrix(rnorm(200 * 30), 200) %*% diag(seq(2, 0.5, length.out = 30))
  a <- lpp(X, 3, k = 6)
  c0 <- npe(X, 3, k = 12)
  o0 <- olpp(X, 2, k = 6)
  old <- options(manifoldOOS.linear_dense_max = 5L)
  on.exit(options(old))
  b <- lpp(X, 3, k = 6)
  c1 <- npe(X, 3, k = 12)
  o1 <- olpp(X, 2, k = 6)
  expect_match(b$solver$eig_method, "spectra_shift_invert_wform")  # LPP's W-form, top, shift-invert
  expect_match(c1$solver$eig_method, "spectra")
  expect_equal(a$eigenvalues, b$eigenvalues, tolerance = 1e-8)
  expect_equal(c0$eigenvalues, c1$eigenvalues, tolerance = 1e-8)
  expect_lt(max(angles(a$rotation, b$rotation)), 1e-6)
  expect_lt(max(angles(c0$rotation, c1$rotation)), 1e-6)
  expect_lt(max(angles(o0$rotation, o1$rotation)), 1e-6)
  # OLPP's deflated directions in shift-invert form (bordered system) agree
  # with the dense deflation direction by direction, and stay orthonormal
  o4i <- olpp(X, 4, k = 6, min_beta = 0)
  options(manifoldOOS.linear_dense_max = 400L)
  o4d <- olpp(X, 4, k = 6, min_beta = 0)
  expect_match(o4i$solver$eig_method, "deflated_shift_invert")
  expect_match(o4d$solver$eig_method, "dense")
  expect_equal(o4i$eigenvalues, o4d$eigenvalues, tolerance = 1e-9)
  for (j in 1:4) expect_lt(angles(o4i$rotation[, j, drop = FALSE], o4d$rotation[, j, drop = FALSE]), 1e-6)
  expect_equal(unname(crossprod(o4i$rotation)), diag(4), tolerance = 1e-8)
})

test_that("OLPP (Cai): orthonormal, first vector is LPP's, equals the non-symmetric recursion", {
  X <- lp_data(n = 70, p = 6, seed = 9)
  fit <- olpp(X, 3, k = 6, min_beta = 0)
  A <- fit$rotation
  expect_equal(unname(crossprod(A)), diag(3), tolerance = 1e-10)
  l <- lpp(X, 1, k = 6)
  expect_lt(angles(A[, 1, drop = FALSE], l$rotation), 1e-8)
  # Cai's recursion: top eigenvector of [I - SD^-1 A (A' SD^-1 A)^-1 A'] SD^-1 SW
  W <- dense_W(X, 6); d <- rowSums(W)
  Xc <- sweep(X, 2, colMeans(X))
  SW <- crossprod(Xc, W %*% Xc); SD <- crossprod(Xc, d * Xc)
  SDi <- solve(SD)
  e <- eigen(SDi %*% SW)
  Acai <- matrix(Re(e$vectors[, 1]), ncol = 1)
  for (j in 2:3) {
    P <- diag(ncol(X)) - SDi %*% Acai %*% solve(t(Acai) %*% SDi %*% Acai) %*% t(Acai)
    e <- eigen(P %*% SDi %*% SW)
    Acai <- cbind(Acai, Re(e$vectors[, which.max(Re(e$values))]))
  }
  for (j in 1:3) expect_lt(angles(A[, j, drop = FALSE], Acai[, j, drop = FALSE]), 1e-6)
})

test_that("OLPP (trace) and ONPP: A'A = I and the trace equals the sum of the smallest eigenvalues", {
  X <- lp_data(n = 80, p = 6, seed = 10)
  Xc <- sweep(X, 2, colMeans(X))
  W <- dense_W(X, 6)
  L <- diag(rowSums(W)) - W
  ft <- olpp(X, 3, k = 6, type = "trace")
  SL <- crossprod(Xc, L %*% Xc)
  expect_equal(unname(crossprod(ft$rotation)), diag(3), tolerance = 1e-10)
  expect_equal(ft$eigenvalues, rev(eigen(SL, symmetric = TRUE)$values)[1:3], tolerance = 1e-10)
  fo <- onpp(X, 3, k = 8)
  nb <- knn(X, 8)
  w <- manifoldOOS:::.mo_reconstruction_weights(X, X, nb$idx, 1e-3, matrix(0, 0, 0), 1L)
  Wr <- matrix(0, nrow(X), nrow(X))
  Wr[cbind(rep(seq_len(nrow(X)), 8), as.vector(nb$idx))] <- as.vector(w)
  M <- crossprod(diag(nrow(X)) - Wr)
  # the sparse M of the core equals the dense product
  expect_equal(as.matrix(manifoldOOS:::.mo_lle_cost_matrix(nb$idx, w)), M, tolerance = 1e-12,
               ignore_attr = TRUE)
  SM <- crossprod(Xc, M %*% Xc)
  A <- fo$rotation
  expect_equal(unname(crossprod(A)), diag(3), tolerance = 1e-10)
  expect_equal(sum(diag(t(A) %*% SM %*% A)), sum(fo$eigenvalues), tolerance = 1e-10)
  expect_equal(fo$eigenvalues, rev(eigen(SM, symmetric = TRUE)$values)[1:3], tolerance = 1e-10)
  # ONPP == NPE (up to column scaling) on whitened data
  Xw <- Xc %*% solve(chol(crossprod(Xc)))
  expect_lt(max(angles(onpp(Xw, 3, k = 8)$rotation, npe(Xw, 3, k = 8)$rotation)), 1e-8)
  # null directions of Xc are excluded by the PCA step
  Xz <- cbind(X, 5)
  expect_equal(onpp(Xz, 2, k = 8)$eigenvalues, fo$eigenvalues[1:2], tolerance = 1e-8)
})

test_that("NPE: generalised problem, constraint, and LLE's minimum over linear maps", {
  roll <- swiss_roll(300, seed = 11)
  X <- roll$x
  fit <- npp(X, 2, k = 10)
  expect_identical(fit$method, "NPE")
  nb <- knn(X, 10)
  w <- manifoldOOS:::.mo_reconstruction_weights(X, X, nb$idx, 1e-3, matrix(0, 0, 0), 1L)
  M <- as.matrix(manifoldOOS:::.mo_lle_cost_matrix(nb$idx, w))
  Xc <- sweep(X, 2, colMeans(X))
  SM <- crossprod(Xc, M %*% Xc); SC <- crossprod(Xc)
  ref <- ref_geig(SM, SC, 2, top = FALSE)
  expect_equal(fit$eigenvalues, ref$values, tolerance = 1e-9)
  A <- fit$rotation
  expect_equal(unname(crossprod(Xc %*% A)), diag(2), tolerance = 1e-8)
  expect_lt(max(abs(SM %*% A - SC %*% A %*% diag(fit$eigenvalues))), 1e-8 * max(abs(SC)))
  # a plane in R^6: the LLE embedding is (nearly) linear in X, and NPE finds it
  set.seed(12)
  U <- matrix(runif(400 * 2), 400)
  Xp <- cbind(U, 0, 0, 0, 0) %*% qr.Q(qr(matrix(rnorm(36), 6)))
  fp <- npe(Xp, 2, k = 10, reg = 1e-6)
  nb <- knn(Xp, 10)
  w <- manifoldOOS:::.mo_reconstruction_weights(Xp, Xp, nb$idx, 1e-6, matrix(0, 0, 0), 1L)
  Mp <- as.matrix(manifoldOOS:::.mo_lle_cost_matrix(nb$idx, w))
  e <- eigen(Mp, symmetric = TRUE)
  n <- nrow(Xp)
  Ylle <- e$vectors[, c(n - 1, n - 2)]
  expect_lt(max(angles(Ylle, embedding(fp))), 1e-2)
  Z <- qr.Q(qr(embedding(fp)))
  # NPE attains LLE's objective over linear maps (and cannot beat the unrestricted minimum)
  obj <- sum(diag(crossprod(Z, Mp %*% Z)))
  expect_gte(obj, sum(e$values[c(n - 1, n - 2)]) - 1e-12)
  expect_lt(obj, 1e-9)
})

test_that("bad input gives classed errors naming the argument", {
  X <- lp_data(seed = 13)
  expect_input_error(lpp(X, ndim = 6), "`ndim`")
  expect_input_error(lpp(X, ndim = 2, k = 500), "`k`")
  expect_input_error(lpp(X, 2, constraint = "foo"), "`constraint`")
  expect_input_error(lpp(X, 2, regularize = -1), "`regularize`")
  expect_input_error(lpp(X, 2, graph = diag(3)), "`graph`")
  expect_input_error(lpp(X, 2, pca = NA), "`pca`")
  expect_input_error(npe(X, 2, reg = -1), "`reg`")
  expect_input_error(olpp(X, 2, type = "x"), "`type`")
  expect_input_error(onpp(X[, 1, drop = FALSE], 2), "`ndim`")
  Xnew <- lp_data(n = 3, p = 4, seed = 14)
  expect_input_error(predict(lpp(X, 2), Xnew), "`newdata`")
  # two far-apart clusters: fitted by default with a message; "error" names `k`
  X2 <- rbind(X, X + 100)
  expect_message(lpp(X2, 2, k = 5, min_beta = 0), class = "manifoldOOS_disconnected")
  expect_input_error(lpp(X2, 2, k = 5, on_disconnected = "error"), "`k`")
  expect_s3_class(suppressWarnings(lpp(X2, 2, k = 5, on_disconnected = "connect", min_beta = 0)),
                  "manifold_lpp")
})
