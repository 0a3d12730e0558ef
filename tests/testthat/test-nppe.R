# NPPE / SNPPE (spec 001): invariants of the polynomial embedding.

deg <- function(rad) rad * 180 / pi

# Largest principal angle (radians) between the column spaces of A and B, from
# its sine (the acos of helper-data.R cannot resolve angles below ~1e-6 deg).
angle_sin <- function(A, B) {
  qa <- qr.Q(qr(A)); qb <- qr.Q(qr(B))
  s <- svd(qb - qa %*% crossprod(qa, qb), nu = 0, nv = 0)$d[1]
  asin(min(1, s))
}

# Independent range-restricted solve of Fc' M Fc v = lambda Fc' Fc v in base R
# (thin SVD of Fc, bottom eigenvectors of U' M U): returns Y = U Omega.
range_solve <- function(Fc, M, m, tol = 1e-10) {
  s <- svd(Fc)
  r <- sum(s$d > tol * s$d[1])
  U <- s$u[, seq_len(r), drop = FALSE]
  T <- crossprod(U, as.matrix(M %*% U))
  e <- eigen((T + t(T)) / 2, symmetric = TRUE)
  list(Y = U %*% e$vectors[, r - seq_len(m) + 1L, drop = FALSE], rank = r)
}

# The Kronecker features of eq. 18 ([x (x) x; x] for p = 2, [x(x)x(x)x; x(x)x; x] for p = 3).
kron_features <- function(Xs, p) {
  rows <- lapply(seq_len(nrow(Xs)), function(i) {
    x <- Xs[i, ]
    out <- list(x)
    cur <- x
    for (j in seq_len(p - 1L)) {
      cur <- as.vector(kronecker(cur, x))
      out <- c(list(cur), out)
    }
    unlist(out)
  })
  do.call(rbind, rows)
}

same_up_to_sign <- function(A, B) {
  s <- sign(colSums(A * B))
  max(abs(sweep(A, 2, s, "*") - B))
}

roll_small <- function(n = 400, seed = 11) swiss_roll(n, convention = "wittman", seed = seed)

test_that("feature counts and exponent tables of both bases", {
  E2 <- manifoldOOS:::.mo_poly_exponents(3L, 2L, "full")
  E3 <- manifoldOOS:::.mo_poly_exponents(3L, 3L, "full")
  expect_equal(nrow(E2), choose(5, 2) - 1)   # 9
  expect_equal(nrow(E3), choose(6, 3) - 1)   # 19
  for (E in list(E2, E3)) {
    expect_false(anyDuplicated(apply(E, 1, paste, collapse = ",")) > 0)
    expect_true(all(rowSums(E) >= 1))
  }
  expect_equal(sort(unique(rowSums(E3))), 1:3)
  H <- manifoldOOS:::.mo_poly_exponents(4L, 3L, "hadamard")
  expect_equal(nrow(H), 12)
  expect_true(all(rowSums(H > 0) == 1))      # pure powers only
  expect_equal(as.vector(table(rowSums(H))), c(4, 4, 4))
  # the features are the monomials of the table
  set.seed(1)
  X <- matrix(rnorm(30), 10, 3)
  F <- manifoldOOS:::.mo_nppe_features(X, 1:3, rep(0, 3), rep(1, 3), 3L, "full")
  ref <- sapply(seq_len(nrow(E3)), function(f) apply(X, 1, function(x) prod(x^E3[f, ])))
  expect_equal(F, ref, tolerance = 1e-13)
})

test_that("W = R + R' - R'R has unit row sums and I - W = M (corrected eq. 29)", {
  X <- roll_small(300)$x
  nb <- knn(X, 8)
  w <- manifoldOOS:::.mo_reconstruction_weights(X, X, nb$idx, 1e-3, matrix(0, 0, 0), 1L)
  n <- nrow(X)
  R <- Matrix::sparseMatrix(i = rep(seq_len(n), 8), j = as.vector(nb$idx), x = as.vector(w), dims = c(n, n))
  W <- R + Matrix::t(R) - Matrix::crossprod(R)
  M <- manifoldOOS:::lle_cost(X, 8, 1e-3)
  expect_lt(max(abs(Matrix::rowSums(W) - 1)), 1e-12)
  expect_lt(max(abs(as.matrix(Matrix::Diagonal(n) - W - M))), 1e-12)
})

test_that("predict() reproduces the training embedding; Y'Y = I; Y'1 = 0", {
  d <- roll_small(400)
  for (b in c("hadamard", "full")) {
    fit <- nppe(d$x, ndim = 2, k = 10, degree = 2, basis = b)
    Y <- embedding(fit)
    expect_lt(max(abs(predict(fit, d$x) - Y)), 1e-10)
    expect_lt(max(abs(crossprod(Y) - diag(2))), 1e-10)
    expect_lt(max(abs(colSums(Y))), 1e-10)
    expect_equal(fit$n_features_poly, if (b == "hadamard") 6L else 9L)
  }
})

test_that("full basis = literal Kronecker basis (same embedding where the latter is solvable)", {
  d <- roll_small(300, seed = 3)
  X <- d$x
  M <- manifoldOOS:::lle_cost(X, 10, 1e-3)
  Xs <- scale(X)
  for (p in 2:3) {
    FK <- kron_features(Xs, p)
    FKc <- sweep(FK, 2, colMeans(FK))
    expect_equal(ncol(FK), sum(3^(1:p)))
    expect_equal(qr(FK)$rank, choose(3 + p, p) - 1)       # 9 and 19: B is singular
    ref <- range_solve(FKc, M, 2)
    expect_equal(ref$rank, choose(3 + p, p) - 1)
    fit <- nppe(X, ndim = 2, k = 10, degree = p, basis = "full")
    Y <- embedding(fit)
    expect_lt(deg(angle_sin(Y, ref$Y)), 1e-6)
    expect_lt(same_up_to_sign(unname(Y), ref$Y), 1e-7)
  }
})

test_that("degree = 1 reduces to NPE/NPP and to an independent generalised eigen-solve", {
  d <- roll_small(400, seed = 5)
  f1 <- nppe(d$x, ndim = 2, k = 10, degree = 1)
  f1f <- nppe(d$x, ndim = 2, k = 10, degree = 1, basis = "full")
  fn <- npp(d$x, ndim = 2, k = 10)
  Y1 <- unname(embedding(f1))
  Yn <- unname(embedding(fn))
  expect_lt(deg(angle_sin(Y1, Yn)), 1e-8)
  expect_lt(same_up_to_sign(Y1, Yn), 1e-8)
  expect_equal(unname(embedding(f1f)), Y1, tolerance = 1e-10)
  # dsygv-style: Cholesky of Xc'Xc, symmetric eigenproblem
  M <- manifoldOOS:::lle_cost(d$x, 10, 1e-3)
  Xc <- sweep(d$x, 2, colMeans(d$x))
  L <- chol(crossprod(Xc))
  A <- crossprod(Xc, as.matrix(M %*% Xc))
  C <- backsolve(L, t(backsolve(L, A, transpose = TRUE)), transpose = TRUE)
  e <- eigen((C + t(C)) / 2, symmetric = TRUE)
  V <- backsolve(L, e$vectors[, 3:2])
  expect_lt(deg(angle_sin(Y1, Xc %*% V)), 1e-8)
  # and the maps agree on new points
  xn <- roll_small(50, seed = 99)$x
  expect_lt(same_up_to_sign(unname(predict(f1, xn)), unname(predict(fn, xn))), 1e-8)
})

test_that("invariances: full basis to similarity transforms, SNPPE to shift + isotropic scale", {
  d <- roll_small(400, seed = 8)
  X <- d$x
  Q <- qr.Q(qr(matrix(c(0.3, -1.2, 0.7, 0.5, 0.4, -0.9, 1.1, 0.2, 0.6), 3)))
  Xt <- 3 * X %*% Q + matrix(c(5, -2, 7), nrow(X), 3, byrow = TRUE)
  Xs <- 0.25 * X + matrix(c(-1, 4, 2), nrow(X), 3, byrow = TRUE)
  ff <- embedding(nppe(X, 2, 10, basis = "full"))
  expect_lt(deg(angle_sin(ff, embedding(nppe(Xt, 2, 10, basis = "full")))), 1e-4)
  fh <- embedding(nppe(X, 2, 10))
  expect_lt(deg(angle_sin(fh, embedding(nppe(Xs, 2, 10)))), 1e-4)
  # SNPPE has no cross terms, so it is not rotation invariant
  expect_gt(deg(angle_sin(fh, embedding(nppe(Xt, 2, 10)))), 1e-3)
  # the input standardisation only changes conditioning
  for (b in c("hadamard", "full")) {
    ref <- embedding(nppe(X, 2, 10, basis = b, scale = "coord"))
    for (sc in c("global", "none")) {
      expect_lt(deg(angle_sin(ref, embedding(nppe(X, 2, 10, basis = b, scale = sc)))), 1e-4)
    }
  }
})

test_that("range-restricted and ridge solvers agree; constant columns are dropped with a warning", {
  d <- roll_small(300, seed = 9)
  fa <- nppe(d$x, 2, 10, basis = "full", degree = 3)
  a <- embedding(fa)
  expect_equal(fa$solver$path, "cholesky")
  old <- options(manifoldOOS.nppe_force_range = TRUE)
  fr <- nppe(d$x, 2, 10, basis = "full", degree = 3)
  options(old)
  expect_equal(fr$solver$path, "pca")
  expect_lt(deg(angle_sin(a, embedding(fr))), 1e-6)
  a <- embedding(nppe(d$x, 2, 10))
  b <- nppe(d$x, 2, 10, ridge = 1e-12)
  expect_true(b$solver$ridge > 0)
  expect_lt(deg(angle_sin(a, embedding(b))), 1e-4)
  Xc <- cbind(d$x[, 1:2], const = 2, d$x[, 3])
  expect_warning(f1 <- nppe(Xc, 2, 10), "constant column")
  expect_warning(f2 <- nppe(Xc, 2, 10, ridge = 1e-8), "constant column")
  expect_equal(f1$dropped_columns, 3L)
  expect_equal(f2$dropped_columns, 3L)
  expect_lt(deg(angle_sin(a, embedding(f1))), 1e-4)
  expect_lt(max(abs(predict(f1, Xc) - embedding(f1))), 1e-10)
})

test_that("points on a sphere: no constant coordinate by default; the literal form skips it", {
  set.seed(2)
  Z <- matrix(rnorm(900), 300, 3)
  X <- Z / sqrt(rowSums(Z^2))
  f <- nppe(X, 2, 12, basis = "full")
  expect_true(all(apply(embedding(f), 2, sd) > 1e-3))
  fl <- nppe(X, 2, 12, basis = "full", center = FALSE, scale = "none")
  expect_gte(fl$solver$n_collapsed, 1)
  Yl <- embedding(fl)
  expect_true(all(apply(Yl, 2, sd) > 1e-6 * abs(colMeans(Yl))))
})

test_that("batch = row by row, thread count and saveRDS round trip do not change predictions", {
  d <- roll_small(500, seed = 12)
  fit <- nppe(d$x[1:400, ], 2, 10, basis = "full", degree = 3)
  xn <- d$x[401:500, ]
  yb <- expect_predict_contract(fit, xn)
  expect_identical(predict(fit, xn, n_threads = 1), yb)
  expect_identical(predict(fit, xn, n_threads = 2), yb)
  # the map is the polynomial of nppe_terms() and the coefficients
  E <- nppe_terms(fit)
  Xs <- sweep(sweep(xn, 2, fit$center), 2, fit$scale, "/")
  Fn <- sapply(seq_len(nrow(E)), function(j) apply(Xs, 1, function(x) prod(x^E[j, ])))
  expect_equal(unname(sweep(Fn, 2, fit$feature_means) %*% fit$coefficients), unname(yb), tolerance = 1e-10)
})

test_that("SNPPE unrolls the Swiss roll better than NPP and ONPP (residual variance)", {
  d <- swiss_roll(800, convention = "wittman", seed = 7)
  rv <- function(Y) 1 - cor(as.vector(dist(Y)), as.vector(dist(d$truth)))^2
  r_s <- rv(embedding(nppe(d$x, 2, 10)))
  expect_lt(r_s, rv(embedding(npp(d$x, 2, 10))))
  expect_lt(r_s, rv(embedding(onpp(d$x, 2, 10))))
})

test_that("bad input gives classed errors", {
  d <- roll_small(60, seed = 1)
  X <- d$x
  expect_input_error(nppe(X, degree = 0), "degree")
  expect_input_error(nppe(X, degree = 1.5), "degree")
  expect_input_error(nppe(X, k = 60), "k")
  expect_input_error(nppe(X, ndim = 7), "ndim")              # q = 6
  expect_input_error(nppe(X, basis = "kron"), "basis")
  expect_input_error(nppe(X, ridge = -1), "ridge")
  expect_input_error(nppe(matrix(1, 10, 3), k = 3), "X")
  big <- matrix(rnorm(20 * 560), 20, 560)
  err <- expect_input_error(nppe(big, k = 5, basis = "full"), "degree")
  expect_match(conditionMessage(err), "157,640", fixed = TRUE)
  expect_match(conditionMessage(err), "GB", fixed = TRUE)
  fit <- nppe(X, 2, 8)
  expect_input_error(predict(fit, X[, 1:2]))
  expect_input_error(nppe_terms(list()), "fit")
})

test_that("KE stand-in: kernel ridge regression of the LLE embedding", {
  d <- roll_small(300, seed = 4)
  ke <- ke_lle(d$x[1:250, ], 2, 10, lambda = 1e-3)
  expect_s3_class(ke, "manifold_ke_lle")
  xn <- d$x[251:300, ]
  y <- predict(ke, xn)
  # independent formula: ybar + k(x)' (K + lambda I)^{-1} (Y - ybar)
  Xtr <- d$x[1:250, ]
  s2 <- 2 * ke$params$sigma^2
  K <- exp(-as.matrix(dist(Xtr))^2 / s2)
  Y <- embedding(ke)
  ybar <- colMeans(Y)
  C <- solve(K + 1e-3 * diag(250), sweep(Y, 2, ybar))
  D2 <- outer(rowSums(xn^2), rowSums(Xtr^2), "+") - 2 * xn %*% t(Xtr)
  ref <- sweep(exp(-pmax(D2, 0) / s2) %*% C, 2, ybar, "+")
  expect_equal(unname(y), unname(ref), tolerance = 1e-6)
  expect_lt(max(abs(ybar)), 1e-8)   # centred LLE embedding: no intercept in effect
  yr <- do.call(rbind, lapply(1:5, function(i) predict(ke, xn[i, , drop = FALSE])))
  expect_equal(unname(y[1:5, ]), unname(yr), tolerance = 1e-12)
})

test_that("swiss_roll_grid() is evenly spaced in arc length and height", {
  g <- swiss_roll_grid()
  expect_equal(dim(g$x), c(2000L, 3L))
  s <- unique(g$truth_isometric[, "s"])
  expect_length(s, 100)
  expect_lt(diff(range(diff(s))), 1e-9)
  expect_equal(range(g$truth[, "t"]), c(1.5 * pi, 4.5 * pi))
  expect_equal(sort(unique(g$truth[, "h"])), seq(0, 21, length.out = 20))
  expect_equal(unname(g$x[, 1]), unname(g$truth[, "t"] * cos(g$truth[, "t"])))
})

test_that("ridge = coefficient penalty on the objective (independent solve); no collapse when q > N", {
  d <- roll_small(300, seed = 21)
  eps <- 1e-3
  fit <- nppe(d$x, 2, 10, basis = "full", degree = 3, ridge = eps)
  expect_match(fit$solver$path, "^ridge_")
  F <- manifoldOOS:::.mo_nppe_features(d$x, fit$kept_columns, fit$center, fit$scale, 3L, "full")
  F <- sweep(F, 2, fit$feature_means)
  M <- manifoldOOS:::lle_cost(d$x, 10, 1e-3)
  B <- crossprod(F)
  A <- crossprod(F, as.matrix(M %*% F)) + eps * sum(diag(B)) / ncol(F) * diag(ncol(F))
  L <- chol(B)
  C <- backsolve(L, t(backsolve(L, A, transpose = TRUE)), transpose = TRUE)
  e <- eigen((C + t(C)) / 2, symmetric = TRUE)
  q <- ncol(F)
  V <- backsolve(L, e$vectors[, c(q, q - 1)])
  expect_lt(deg(angle_sin(embedding(fit), F %*% V)), 1e-6)
  expect_lt(max(abs(crossprod(embedding(fit)) - diag(2))), 1e-10)
  # q = 60 features on 40 points: B is singular; the ridge fit keeps Y'Y = I
  set.seed(3)
  Xs <- matrix(rnorm(40 * 30), 40, 30)
  f2 <- nppe(Xs, 2, 6, ridge = 1e-4)
  expect_lt(max(abs(crossprod(embedding(f2)) - diag(2))), 1e-8)
  expect_lt(max(abs(predict(f2, Xs) - embedding(f2))), 1e-10)
  f3 <- nppe(Xs, 2, 6)
  expect_match(f3$solver$path, "pca")
})

test_that("synthetic zeros: SNPPE recovers the shape of new images, better than ONPP and KE", {
  z <- synthetic_zeros(765, seed = 1)
  expect_equal(dim(z$x), c(765L, 256L))
  expect_true(all(z$x >= 0 & z$x <= 1))
  expect_identical(synthetic_zeros(5, seed = 3)$x, synthetic_zeros(5, seed = 3)$x)
  tr <- 1:600
  te <- 601:765
  # R^2 of a linear regression of a generating parameter on the 2-d test embedding
  r2 <- function(f, v) summary(lm(v ~ predict(f, z$x[te, ])))$r.squared
  fits <- suppressWarnings(list(                      # border pixels are constant
    snppe = nppe(z$x[tr, ], 2, k = 5), onpp = onpp(z$x[tr, ], 2, k = 5), ke = ke_lle(z$x[tr, ], 2, k = 5)))
  sc <- sapply(fits, function(f) c(width = r2(f, z$truth[te, "width"]), ratio = r2(f, z$truth[te, "ratio"])))
  expect_gt(sc["ratio", "snppe"], 0.9)
  expect_gt(sum(sc[, "snppe"]), sum(sc[, "onpp"]))
  expect_gt(sum(sc[, "snppe"]), sum(sc[, "ke"]))
})
