# LGRM (spec 000): local matrix, global matrix, embedding, closed-form map,
# framework limits (Propositions 1-4), Nystrom path.

deg <- function(rad) rad * 180 / pi

# centred Swiss roll and an 8-NN heat-kernel graph (spec 3, test data)
prop_data <- function(n = 400, seed = 7) {
  roll <- swiss_roll(n, convention = "wittman", seed = seed)
  X <- scale(roll$x, scale = FALSE)
  attr(X, "scaled:center") <- NULL
  nb <- knn(X, 8)
  t <- mean(nb$dist^2)
  W <- Matrix::sparseMatrix(i = rep(seq_len(n), 8), j = as.vector(nb$idx),
                            x = exp(-as.vector(nb$dist)^2 / t), dims = c(n, n))
  Wt <- Matrix::t(W)
  W <- methods::as((W + Wt + abs(W - Wt)) / 2, "CsparseMatrix")
  list(X = X, W = W, L = graph_laplacian(W, "unnormalized"), roll = roll)
}

poly2_features <- function(X) {
  d <- ncol(X)
  f <- list(sqrt(2) * X, X^2)
  for (a in 1:(d - 1)) for (b in (a + 1):d) f[[length(f) + 1]] <- sqrt(2) * X[, a] * X[, b]
  do.call(cbind, f)
}

sign_align <- function(A, B) {
  s <- sign(colSums(A * B))
  s[s == 0] <- 1
  sweep(B, 2, s, "*")
}

test_that("eq. 10 literally equals the SVD form used by the core", {
  set.seed(1)
  k <- 10; p <- 2; gamma <- 1e-2
  C <- matrix(rnorm(k * 3), k, 3) %*% diag(c(3, 1, 0.2))
  Hk <- diag(k) - 1 / k
  sv <- svd(Hk %*% C)
  Xi <- t(sv$u[, 1:p] %*% diag(sv$d[1:p]))          # p x k, local PCA coordinates
  A_lit <- Hk - Hk %*% t(Xi) %*% solve(Xi %*% Hk %*% t(Xi) + gamma * diag(p)) %*% Xi %*% Hk
  lo <- manifoldOOS:::.mo_lgrm_local(C, matrix(1:k, 1), p, gamma, 1L)
  A_core <- as.matrix(lo$L)
  expect_lt(max(abs(A_core - A_lit)) / max(abs(A_lit)), 1e-12)
  # push-through form: gamma Hk (Hk Xi' Xi Hk + gamma I)^{-1} Hk
  A_pt <- gamma * Hk %*% solve(Hk %*% t(Xi) %*% Xi %*% Hk + gamma * diag(k)) %*% Hk
  expect_lt(max(abs(A_pt - A_lit)) / max(abs(A_lit)), 1e-10)
  expect_equal(lo$sv[1, ], sv$d[1:p], tolerance = 1e-10)
})

test_that("L_l is symmetric PSD with L_l 1 = 0, and tends to LTSA's alignment matrix as gamma -> 0", {
  roll <- swiss_roll(300, convention = "wittman", seed = 2)
  X <- roll$x
  nbhd <- cbind(1:300, knn(X, 9)$idx)
  L <- manifoldOOS:::.mo_lgrm_local(X, nbhd, 2L, 1e-4, 1L)$L
  sc <- max(abs(L))
  expect_lt(max(abs(L - Matrix::t(L))), 1e-14 * sc)
  expect_lt(max(abs(Matrix::rowSums(L))), 1e-12 * sc)
  ev <- eigen(as.matrix(L), symmetric = TRUE, only.values = TRUE)$values
  expect_gt(min(ev), -1e-12 * max(ev))
  B <- manifoldOOS:::.mo_ltsa_alignment(X, nbhd, 2L)
  L0 <- manifoldOOS:::.mo_lgrm_local(X, nbhd, 2L, 1e-12, 1L)$L
  expect_lt(max(abs(L0 - B)) / max(abs(B)), 1e-10)
  # at the paper's gamma the difference is small but not zero
  d4 <- max(abs(L - B)) / max(abs(B))
  expect_gt(d4, 1e-9)
  expect_lt(d4, 1e-3)
})

test_that("L_g is symmetric PSD, eigenvalues in [0, 1), L_g 1 = 0", {
  roll <- swiss_roll(200, convention = "wittman", seed = 3)
  K <- exp(-as.matrix(dist(roll$x))^2 / 100)
  Lg <- manifoldOOS:::.mo_lgrm_global(K, 1e-4)
  expect_lt(max(abs(Lg - t(Lg))), 1e-14)
  expect_lt(max(abs(rowSums(Lg))), 1e-10)
  ev <- eigen(Lg, symmetric = TRUE, only.values = TRUE)$values
  expect_gt(min(ev), -1e-10)
  expect_lt(max(ev), 1)
  # literal inverse form gamma H (HKH + gamma I)^{-1} H
  H <- diag(200) - 1 / 200
  Lit <- 1e-4 * H %*% solve(H %*% K %*% H + 1e-4 * diag(200)) %*% H
  expect_lt(max(abs(Lg - Lit)), 1e-8)
})

test_that("the Cholesky and eigendecomposition paths of the global term agree", {
  roll <- swiss_roll(300, convention = "wittman", seed = 3)
  K <- exp(-as.matrix(dist(roll$x))^2 / 100)
  a <- manifoldOOS:::.mo_lgrm_global(K, 1e-4)
  b <- manifoldOOS:::.mo_lgrm_global(K, 1e-4, force_eig = TRUE)
  expect_lt(max(abs(a - b)), 1e-8)
  fit <- lgrm(roll$x, 2, k = 10, sigma = 10, mu = 1e-3)
  expect_identical(fit$solver$global, "cholesky")
  # an indefinite user kernel (sigmoid): the Cholesky factorisation is refused
  # and the clamped eigendecomposition takes over
  sig <- function(A, B) tanh(tcrossprod(A, B) / 50 - 1)
  H <- diag(300) - 1 / 300
  expect_lt(min(eigen(H %*% sig(roll$x, roll$x) %*% H, only.values = TRUE)$values), -1)
  f2 <- lgrm(roll$x, 2, k = 10, kernel = sig, mu = 1e-3)
  expect_identical(f2$solver$global, "eigendecomposition")
  expect_true(all(is.finite(predict(f2, roll$x[1:5, ]))))
})

test_that("dense and shift-invert solvers of the bottom eigenproblem agree", {
  roll <- swiss_roll(600, convention = "wittman", seed = 8)
  f1 <- lgrm(roll$x, 2, k = 10, sigma = 10, mu = 1e-3, eigen_solver = "dense")
  f2 <- lgrm(roll$x, 2, k = 10, sigma = 10, mu = 1e-3, eigen_solver = "iterative")
  f3 <- lgrm(roll$x, 2, k = 10, sigma = 10, mu = 1e-3)
  expect_identical(f1$solver$method, "dense_dc")
  expect_match(f2$solver$method, "shift_invert")
  expect_identical(f3$solver$method, f2$solver$method)  # auto: iterative above n = 500
  expect_lt(max(abs(embedding(f1) - embedding(f2))), 1e-7)
  new <- swiss_roll(50, convention = "wittman", seed = 9)$x
  expect_lt(max(abs(predict(f1, new) - predict(f2, new))), 1e-7)
})

test_that("the embedding, beta and c follow spec 2.6-2.7 (regression identity, Y'Y = I, Y'1 = 0)", {
  roll <- swiss_roll(300, convention = "wittman", seed = 4)
  X <- roll$x
  fit <- lgrm(X, ndim = 2, k = 10, sigma = 10, mu = 1e-3)
  Y <- embedding(fit)
  expect_equal(crossprod(Y), diag(2), tolerance = 1e-10, ignore_attr = TRUE)
  expect_lt(max(abs(colSums(Y))), 1e-8)
  # literal dense reference: bottom eigenvectors 2..3 of M = L_l + mu L_g
  nbhd <- cbind(1:300, knn(X, 9)$idx)
  Ll <- as.matrix(manifoldOOS:::.mo_lgrm_local(X, nbhd, 2L, 1e-4, 1L)$L)
  K <- exp(-as.matrix(dist(X))^2 / 100)
  H <- diag(300) - 1 / 300
  Cinv <- solve(H %*% K %*% H + 1e-4 * diag(300))
  Lg <- 1e-4 * H %*% Cinv %*% H
  e <- eigen(Ll + 1e-3 * Lg, symmetric = TRUE)
  Yref <- e$vectors[, 299:298]
  expect_lt(deg(max_principal_angle(Y, Yref)), 1e-5)
  beta_ref <- H %*% Cinv %*% Y
  expect_equal(unname(fit$beta), beta_ref, tolerance = 1e-7, ignore_attr = TRUE)
  expect_lt(max(abs(colSums(fit$beta))), 1e-8)
  # regression identity: ||K beta + 1c' - Y||^2 + gamma tr(beta' K beta) = tr(Y' L_g Y)
  fitted <- K %*% fit$beta + rep(fit$c, each = 300)
  lhs <- sum((fitted - Y)^2) + 1e-4 * sum(fit$beta * (K %*% fit$beta))
  rhs <- sum(Y * (Lg %*% Y))
  expect_equal(lhs, rhs, tolerance = 1e-8)
  expect_equal(unname(fit$quad["global"]), rhs, tolerance = 1e-8)
  # predict on the training rows returns the fitted values, not Y
  expect_equal(predict(fit, X), fitted, tolerance = 1e-10, ignore_attr = TRUE)
  expect_equal(fit$train_residual_rms, sqrt(mean((fitted - Y)^2)), tolerance = 1e-8)
  expect_identical(predict(fit), Y)
})

test_that("mu = 0 gives the pure local method (LTSA for local = 'ltsa'; L_l's eigenvectors)", {
  P <- prop_data(300, seed = 5)
  fit <- lgrm(P$X, ndim = 2, k = 10, mu = 0, sigma = 10)
  nbhd <- cbind(1:300, knn(P$X, 9)$idx)
  Ll <- as.matrix(manifoldOOS:::.mo_lgrm_local(P$X, nbhd, 2L, 1e-4, 1L)$L)
  e <- eigen(Ll, symmetric = TRUE)
  expect_lt(deg(max_principal_angle(embedding(fit), e$vectors[, 299:298])), 1e-4)
  ft <- lgrm(P$X, ndim = 2, k = 10, mu = 0, local = "ltsa", sigma = 10)
  fl <- ltsa(P$X, ndim = 2, k = 10)
  expect_lt(deg(max_principal_angle(embedding(ft), embedding(fl))), 1e-4)
  # a user local matrix: the LE Laplacian with Y'Y = I
  fu <- lgrm(P$X, ndim = 2, mu = 0, local = P$L, sigma = 10)
  eL <- eigen(as.matrix(P$L), symmetric = TRUE)
  expect_lt(deg(max_principal_angle(embedding(fu), eL$vectors[, 299:298])), 1e-4)
})

test_that("Proposition 3 (SR): mu = 0 with the linear kernel is spectral regression", {
  P <- prop_data()
  g <- 1e-3
  fit <- lgrm(P$X, ndim = 2, mu = 0, gamma = g, kernel = "linear", local = P$L)
  Y <- embedding(fit)
  Xn <- P$X[1:50, ] + 0.3
  # independent reference: ridge regression with an unpenalised intercept
  X <- P$X
  Hx <- scale(X, scale = FALSE)
  W <- solve(crossprod(Hx) + g * diag(3), crossprod(Hx, Y))
  yref <- sweep(sweep(Xn, 2, colMeans(X)) %*% W, 2, colMeans(Y), "+")
  expect_lt(max(abs(predict(fit, Xn) - yref)), 1e-9)
  # the package's spectral_regression() on the same graph
  sr <- spectral_regression(X, ndim = 2, kernel = "linear", alpha = g, laplacian = "unnormalized",
                            graph = P$W)
  ysr <- sign_align(predict(fit, Xn), predict(sr, Xn))
  expect_lt(max(abs(predict(fit, Xn) - ysr)), 1e-9)
})

test_that("Proposition 4 (KSR): mu = 0 with a poly-2 kernel is kernel spectral regression", {
  P <- prop_data()
  g <- 1e-3
  # the roll scaled by 1/10 keeps the poly-2 kernel matrix well conditioned
  # (kNN sets and the heat weights exp(-d^2/t) are unchanged by scaling)
  Xs <- P$X / 10
  fit <- lgrm(Xs, ndim = 2, mu = 0, gamma = g, kernel = "polynomial", degree = 2, coef0 = 1, local = P$L)
  Y <- embedding(fit)
  Xn <- Xs[1:50, ] * 1.1
  # explicit feature map of (a'b + 1)^2 (the constant feature is absorbed by the free intercept)
  Ph <- poly2_features(Xs)
  Phc <- scale(Ph, scale = FALSE)
  W <- solve(crossprod(Phc) + g * diag(ncol(Ph)), crossprod(Phc, Y))
  yref <- sweep(sweep(poly2_features(Xn), 2, colMeans(Ph)) %*% W, 2, colMeans(Y), "+")
  expect_lt(max(abs(predict(fit, Xn) - yref)), 1e-8)
  sr <- spectral_regression(Xs, ndim = 2, kernel = "polynomial", degree = 2, gamma = 1, coef0 = 1,
                            alpha = g, laplacian = "unnormalized", graph = P$W)
  ysr <- sign_align(predict(fit, Xn), predict(sr, Xn))
  expect_lt(max(abs(predict(fit, Xn) - ysr)), 1e-8)
})

test_that("Propositions 1-2 (LPP, KLPP): mu -> Inf, mu gamma -> 0 gives covariance-constrained LPP", {
  P <- prop_data()
  fit <- lgrm(P$X, ndim = 2, mu = 1e6, gamma = 1e-8, kernel = "linear", local = P$L)
  ref <- lpp(P$X, ndim = 2, graph = P$W, constraint = "covariance")
  expect_lt(deg(max_principal_angle(embedding(fit), embedding(ref))), 1e-3)
  fk <- lgrm(P$X, ndim = 2, mu = 1e6, gamma = 1e-8, kernel = "polynomial", degree = 2, coef0 = 1,
             local = P$L)
  refk <- lpp(poly2_features(P$X), ndim = 2, graph = P$W, constraint = "covariance")
  expect_lt(deg(max_principal_angle(embedding(fk), embedding(refk))), 1e-2)
})

test_that("Nystrom with every point a landmark equals the exact path", {
  roll <- swiss_roll(250, convention = "wittman", seed = 8)
  X <- roll$x
  fe <- lgrm(X, ndim = 2, k = 10, sigma = 10, mu = 1e-3)
  fn <- lgrm(X, ndim = 2, k = 10, sigma = 10, mu = 1e-3, landmarks = 250)
  expect_lt(deg(max_principal_angle(embedding(fe), embedding(fn))), 1e-4)
  Xn <- swiss_roll(40, convention = "wittman", seed = 9)$x
  ye <- predict(fe, Xn)
  yn <- sign_align(ye, predict(fn, Xn))
  expect_lt(max(abs(ye - yn)) / max(abs(ye)), 1e-5)
  # a genuine subsample of landmarks still gives the same embedding at the paper's mu
  fs <- lgrm(X, ndim = 2, k = 10, sigma = 10, landmarks = 60, seed = 1)
  f0 <- lgrm(X, ndim = 2, k = 10, sigma = 10)
  expect_lt(deg(max_principal_angle(embedding(fs), embedding(f0))), 0.1)
  expect_length(fs$landmarks, 60)
})

test_that("Swiss roll 1000 + 1000 (paper setting): affine R^2 >= 0.999 on training and unseen points", {
  roll <- swiss_roll(2000, convention = "wittman", seed = 42)
  tr <- 1:1000; te <- 1001:2000
  fit <- lgrm(roll$x[tr, ], ndim = 2, k = 10, sigma = 10, gamma = 1e-4, mu = 1e-5)
  expect_gte(affine_r2(embedding(fit), roll$truth_isometric[tr, ]), 0.999)
  expect_gte(affine_r2(predict(fit, roll$x[te, ]), roll$truth_isometric[te, ]), 0.999)
})

test_that("predict: batch equals row by row; saveRDS round trip; user kernel equals built-in", {
  roll <- swiss_roll(260, convention = "wittman", seed = 10)
  fit <- lgrm(roll$x[1:200, ], ndim = 2, k = 10, sigma = 10)
  Xn <- roll$x[201:260, ]
  yb <- expect_predict_contract(fit, Xn)
  kf <- function(A, B) exp(-as.matrix(pdist2(A, B)) / 100)
  pdist2 <- function(A, B) outer(rowSums(A^2), rowSums(B^2), "+") - 2 * tcrossprod(A, B)
  fu <- lgrm(roll$x[1:200, ], ndim = 2, k = 10, kernel = kf)
  expect_lt(deg(max_principal_angle(embedding(fu), embedding(fit))), 1e-6)
  expect_equal(predict(fu, Xn), yb, tolerance = 1e-6)
  # translation and rotation of the data leave the embedding and the map unchanged
  R <- qr.Q(qr(matrix(c(1, 2, 0, -1, 1, 3, 2, 0, 1), 3)))
  Xt <- roll$x[1:200, ] %*% R + 5
  ft <- lgrm(Xt, ndim = 2, k = 10, sigma = 10)
  expect_equal(embedding(ft), embedding(fit), tolerance = 1e-6, ignore_attr = TRUE)
  expect_equal(predict(ft, Xn %*% R + 5), yb, tolerance = 1e-6, ignore_attr = TRUE)
})

test_that("local = 'le' and 'lle' run and give centred orthonormal embeddings", {
  roll <- swiss_roll(300, convention = "wittman", seed = 12)
  for (loc in c("le", "lle")) {
    f <- lgrm(roll$x, ndim = 2, k = 10, sigma = 10, local = loc)
    expect_equal(crossprod(embedding(f)), diag(2), tolerance = 1e-8, ignore_attr = TRUE)
    expect_equal(f$params$local, loc)
  }
})

test_that("bad input gives classed errors and warnings", {
  roll <- swiss_roll(100, seed = 1)
  X <- roll$x
  expect_input_error(lgrm(X, ndim = 2, k = 3), "k")
  expect_input_error(lgrm(X, ndim = 2, k = 4, p = 3), "k")
  expect_input_error(lgrm(X, sigma = 0), "sigma")
  expect_input_error(lgrm(X, sigma = -1), "sigma")
  expect_input_error(lgrm(X, gamma = 0), "gamma")
  expect_input_error(lgrm(X, mu = -1), "mu")
  expect_input_error(lgrm(X, p = 4), "p")
  expect_input_error(lgrm(X, local = "foo"), "local")
  expect_input_error(lgrm(X, local = diag(3)), "local")
  expect_input_error(lgrm(X, landmarks = 1), "landmarks")
  expect_input_error(lgrm(X, landmarks = integer(0)), "landmarks")  # was a crash in the kernel code
  expect_input_error(lgrm(X, kernel = "sigmoid"), "kernel")
  fit <- lgrm(X, sigma = 10)
  expect_input_error(predict(fit, X[, 1:2]), "newdata")
  # two far-apart blobs: disconnected clique graph -> classed warning
  set.seed(2)
  Xd <- rbind(matrix(rnorm(60), 30), matrix(rnorm(60) + 100, 30))
  expect_warning(lgrm(Xd, ndim = 1, k = 5, sigma = 5), class = "manifoldOOS_disconnected_warning")
})

test_that("gamma = \"scaled\" keeps the paper's value up to 3000 points and unrolls denser rolls", {
  small <- swiss_roll(400, convention = "wittman", seed = 21)
  f1 <- lgrm(small$x, 2, k = 10, sigma = 10, gamma = "scaled")
  f2 <- lgrm(small$x, 2, k = 10, sigma = 10, gamma = 1e-4)
  expect_identical(f1$params$gamma, 1e-4)
  expect_equal(embedding(f1), embedding(f2), tolerance = 1e-12)
  # 6000 points: the paper's absolute 1e-4 over-penalises the local fits
  big <- swiss_roll(6000, convention = "wittman", seed = 3)
  fp <- lgrm(big$x, 2, k = 10, sigma = 10, gamma = 1e-4, landmarks = 200, seed = 1)
  fs <- lgrm(big$x, 2, k = 10, sigma = 10, gamma = "scaled", landmarks = 200, seed = 1)
  expect_equal(fs$params$gamma, 1e-4 * (3000 / 6000)^2)
  expect_lt(affine_r2(embedding(fp), big$truth_isometric), 0.99)
  expect_gt(affine_r2(embedding(fs), big$truth_isometric), 0.999)
  expect_input_error(lgrm(small$x, gamma = "auto"), "gamma")
})

test_that("Nystrom path (panel solves, Woodbury Gram by panels) equals the dense M it stands for", {
  # M = L + mu (H - F S F') with F = H kappa(X, Z) W_Z^{-1/2}, S = (F'F + gamma I)^{-1},
  # built densely here from the same pieces; its bottom non-constant eigenvectors
  # must span the fitted embedding (61 landmark columns + 1: four panels of 16,
  # the last partial)
  roll <- swiss_roll(300, convention = "wittman", seed = 21)
  X <- roll$x
  L <- graph_laplacian(neighbor_graph(X, k = 8), "unnormalized")
  mu <- 1e-2; gamma <- 1e-3; s17 <- 10
  fit <- lgrm(X, ndim = 2, k = 8, sigma = s17, mu = mu, gamma = gamma, local = L,
              landmarks = 61, seed = 3, eigen_solver = "iterative")
  Z <- X[fit$landmarks, ]
  kern <- function(A, B) exp(-pmax(outer(rowSums(A^2), rowSums(B^2), "+") - 2 * tcrossprod(A, B), 0) / s17^2)
  e <- eigen(kern(Z, Z), symmetric = TRUE)
  keep <- e$values > 1e-12 * max(e$values)
  Wm12 <- e$vectors[, keep] %*% (t(e$vectors[, keep]) / sqrt(e$values[keep]))
  n <- nrow(X)
  H <- diag(n) - 1 / n
  Fm <- H %*% kern(X, Z) %*% Wm12
  S <- solve(crossprod(Fm) + gamma * diag(ncol(Fm)))
  M <- as.matrix(L) + mu * (H - Fm %*% S %*% t(Fm))
  M <- (M + t(M)) / 2
  em <- eigen(M + 10 * sum(diag(M)) / n * matrix(1 / n, n, n), symmetric = TRUE)
  bottom <- em$vectors[, n - 0:1]
  expect_lt(max_principal_angle(embedding(fit), bottom), 1e-6)
  # the same fit through a user kernel function (kernel matrix from R, copied by row blocks)
  fu <- lgrm(X, ndim = 2, k = 8, sigma = s17, mu = mu, gamma = gamma, local = L, kernel = kern,
             landmarks = fit$landmarks, eigen_solver = "iterative")
  expect_lt(max_principal_angle(embedding(fit), embedding(fu)), 1e-6)
  Xn <- swiss_roll(30, convention = "wittman", seed = 22)$x
  yf <- predict(fit, Xn)
  yu <- sign_align(yf, predict(fu, Xn))
  expect_lt(max(abs(yf - yu)) / max(abs(yf)), 1e-6)
})

test_that("an LGRM fit needing more memory than available fails early, naming `landmarks`", {
  X <- swiss_roll(300, convention = "wittman", seed = 4)$x
  withr::local_options(manifoldOOS.memory_limit = 5e5)  # exact fit of 300 points plans 1.44e6 bytes
  err <- tryCatch(lgrm(X, 2, k = 10, sigma = 10), error = function(e) e)
  expect_s3_class(err, "manifoldOOS_memory_error")
  expect_identical(err$arg, "landmarks")
  expect_gt(err$needed, err$available)
  err2 <- tryCatch(lgrm(X, 2, k = 10, sigma = 10, landmarks = 280, seed = 1), error = function(e) e)
  expect_s3_class(err2, "manifoldOOS_memory_error")
  expect_match(conditionMessage(err2), "fewer landmarks")
  expect_s3_class(lgrm(X, 2, k = 10, sigma = 10, landmarks = 20, seed = 1), "manifold_lgrm")
})

test_that("local = \"le\": the heat Laplacian from the graph block equals its definition", {
  roll <- swiss_roll(90, seed = 8)
  X <- roll$x
  nb <- manifoldOOS:::lgrm_cliques(X, 7L)
  le_t <- mean(nb$dist^2)
  L <- manifoldOOS:::lgrm_le_laplacian(X, nb, NULL)
  # reference: W_ij = exp(-d_ij^2 / le_t) on the kNN lists, max-symmetrised
  n <- nrow(X)
  W <- matrix(0, n, n)
  W[cbind(rep(seq_len(n), ncol(nb$idx)), as.vector(nb$idx))] <- exp(-as.vector(nb$dist)^2 / le_t)
  W <- pmax(W, t(W))
  ref <- diag(rowSums(W)) - W
  Ld <- as.matrix(L)
  expect_identical(Ld, t(Ld))
  expect_lt(max(abs(Ld - ref)), 1e-12 * max(abs(ref)))
  expect_lt(max(abs(rowSums(Ld))), 1e-12)
  expect_input_error(lgrm(X, 2, k = 7, local = "le", le_t = -1), "le_t")
})
