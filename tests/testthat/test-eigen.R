# Eigen-solver adapter (internal): dense LAPACK, generalised, Spectra
# shift-invert / Lanczos / matrix-free paths, trivial-vector dropping.

eigs_dense <- manifoldOOS:::eigs_dense
geigs_dense <- manifoldOOS:::geigs_dense
eigs_sparse <- manifoldOOS:::eigs_sparse
eigs_sparse_bottom <- manifoldOOS:::eigs_sparse_bottom
geigs_sparse <- manifoldOOS:::geigs_sparse
eigs_dense_top_matfree <- manifoldOOS:::eigs_dense_top_matfree
eigs_sym <- manifoldOOS:::eigs_sym
drop_trivial_pair <- manifoldOOS:::drop_trivial_pair

rand_sym <- function(n, seed) {
  set.seed(seed)
  A <- matrix(rnorm(n * n), n)
  (A + t(A)) / 2
}

# 1 - |cos| between matching columns (0 when equal up to sign).
col_sign_gap <- function(U, V) {
  U <- sweep(U, 2, sqrt(colSums(U^2)), "/")
  V <- sweep(V, 2, sqrt(colSums(V^2)), "/")
  max(1 - abs(colSums(U * V)))
}

# ||(I - P_U) V||_F for orthonormal U: sine-of-angles distance of subspaces.
subspace_gap <- function(U, V) {
  qu <- qr.Q(qr(U)); qv <- qr.Q(qr(V))
  norm(qv - qu %*% crossprod(qu, qv), "F")
}

# Absolute agreement (eigenvalues near 0 make relative tolerances meaningless).
expect_abs_equal <- function(actual, expected, tol) {
  expect_equal(length(actual), length(expected))
  expect_lt(max(abs(actual - expected)), tol)
}

# The bottom `m` pairs of the sparse solve `sp` of L v = lambda B v, by the
# path `method`, equal those of the dense solve `ref` (values and subspace)
# and the vectors are B-orthonormal (Bd: B as a dense matrix).
expect_bottom_geigs <- function(sp, ref, Bd, method, m) {
  expect_identical(sp$method, method)
  expect_abs_equal(sp$values, ref$values[1:m], 1e-8)
  expect_lt(subspace_gap(sp$vectors, ref$vectors[, 1:m]), 1e-6)
  expect_equal(crossprod(sp$vectors, Bd %*% sp$vectors), diag(m), tolerance = 1e-8)
}

sign_ok <- function(V) all(apply(V, 2, function(v) v[which.max(abs(v))] > 0))

path_laplacian <- function(n) {
  W <- Matrix::bandSparse(n, k = 1, diagonals = list(rep(1, n - 1)), symmetric = TRUE)
  W <- methods::as(methods::as(W, "generalMatrix"), "CsparseMatrix")
  list(W = W, L = Matrix::Diagonal(x = Matrix::rowSums(W)) - W)
}

# Symmetric (union) kNN graph with binary weights, built with base R.
knn_laplacian <- function(X, k) {
  n <- nrow(X)
  D <- as.matrix(dist(X))
  diag(D) <- Inf
  nb <- t(apply(D, 1, function(d) order(d)[seq_len(k)]))
  W <- Matrix::sparseMatrix(i = rep(seq_len(n), each = k), j = as.vector(t(nb)), x = 1,
                            dims = c(n, n))
  W <- ((W + Matrix::t(W)) > 0) * 1
  W <- methods::as(methods::as(W, "generalMatrix"), "CsparseMatrix")
  deg <- Matrix::rowSums(W)
  list(W = W, deg = deg, L = Matrix::Diagonal(x = deg) - W)
}

roll_points <- function(n, seed) {
  set.seed(seed)
  t <- 1.5 * pi * (1 + 2 * runif(n))
  h <- 21 * runif(n)
  cbind(t * cos(t), h, t * sin(t))
}

test_that("dense bottom/top/all agree with base::eigen (n = 50, 200) with the sign convention", {
  for (n in c(50, 200)) {
    A <- rand_sym(n, n)
    ref <- eigen(A, symmetric = TRUE)
    m <- 6
    bot <- eigs_dense(A, "bottom", m)
    top <- eigs_dense(A, "top", m)
    expect_equal(bot$values, rev(ref$values)[1:m], tolerance = 1e-8)
    expect_equal(top$values, ref$values[1:m], tolerance = 1e-8)
    expect_true(all(diff(bot$values) >= 0))
    expect_true(all(diff(top$values) <= 0))
    expect_lt(col_sign_gap(bot$vectors, ref$vectors[, n:(n - m + 1)]), 1e-8)
    expect_lt(col_sign_gap(top$vectors, ref$vectors[, 1:m]), 1e-8)
    expect_true(sign_ok(bot$vectors) && sign_ok(top$vectors))
    al <- eigs_dense(A, "all")
    expect_length(al$values, n)
    expect_equal(al$vectors %*% (al$values * t(al$vectors)), A, tolerance = 1e-10)
    expect_equal(crossprod(al$vectors), diag(n), tolerance = 1e-10)
  }
})

test_that("dense solver returns the right subspace for a degenerate eigenvalue", {
  set.seed(11)
  Q <- qr.Q(qr(matrix(rnorm(40 * 40), 40)))
  lam <- c(1, 1, 1, 2, 3, seq(5, 40, length.out = 35))
  A <- Q %*% (lam * t(Q))
  A <- (A + t(A)) / 2
  r <- eigs_dense(A, "bottom", 3)
  expect_equal(r$values, c(1, 1, 1), tolerance = 1e-10)
  expect_lt(subspace_gap(r$vectors, Q[, 1:3]), 1e-8)
  expect_true(sign_ok(r$vectors))
})

test_that("dense generalised problem matches solve(B) A and the Cholesky reduction; V'BV = I", {
  set.seed(5)
  n <- 60
  A <- rand_sym(n, 6)
  G <- matrix(rnorm(n * n), n)
  B <- crossprod(G) / n + diag(n)
  ref_vals <- sort(Re(eigen(solve(B) %*% A)$values))
  R <- chol(B)
  Ri <- backsolve(R, diag(n))
  C <- crossprod(Ri, A %*% Ri)
  ec <- eigen((C + t(C)) / 2, symmetric = TRUE)
  Vref <- Ri %*% ec$vectors           # B-orthonormal, descending
  bot <- geigs_dense(A, B, "bottom", 5)
  top <- geigs_dense(A, B, "top", 5)
  expect_equal(bot$values, ref_vals[1:5], tolerance = 1e-8)
  expect_equal(top$values, rev(ref_vals)[1:5], tolerance = 1e-8)
  expect_lt(col_sign_gap(bot$vectors, Vref[, n:(n - 4)]), 1e-8)
  expect_lt(col_sign_gap(top$vectors, Vref[, 1:5]), 1e-8)
  expect_equal(crossprod(bot$vectors, B %*% bot$vectors), diag(5), tolerance = 1e-10)
  expect_equal(crossprod(top$vectors, B %*% top$vectors), diag(5), tolerance = 1e-10)
  expect_equal(A %*% bot$vectors, B %*% bot$vectors %*% diag(bot$values), tolerance = 1e-8)
  expect_equal(bot$ridge, 0)
  expect_true(sign_ok(bot$vectors))
})

test_that("generalised solver adds a ridge only when B is not SPD, and reports it", {
  set.seed(7)
  n <- 30
  A <- rand_sym(n, 8)
  G <- matrix(rnorm(n * 10), n)
  B <- tcrossprod(G)                   # rank 10: singular
  r <- geigs_dense(A, B, "bottom", 3)
  expect_gt(r$ridge, 0)
  Br <- B + r$ridge * diag(n)
  expect_lt(r$ridge, 1e-4 * sum(diag(B)) / n)
  expect_abs_equal(crossprod(r$vectors, Br %*% r$vectors), diag(3), 1e-7)
  expect_equal(r$values, sort(Re(eigen(solve(Br, A))$values))[1:3], tolerance = 1e-6)
  expect_input_error(geigs_dense(A, B, "bottom", 3, ridge = 0), "`B`")
  f <- geigs_dense(A, B, "bottom", 3, ridge = 0.5)
  expect_equal(f$ridge, 0.5)
  expect_equal(crossprod(f$vectors, (B + 0.5 * diag(n)) %*% f$vectors), diag(3), tolerance = 1e-10)
})

test_that("shift-invert on a path-graph Laplacian (exact null vector) succeeds and is exact", {
  n <- 300
  L <- path_laplacian(n)$L
  r <- eigs_sparse_bottom(L, 5)
  expect_identical(r$method, "spectra_shift_invert")
  expect_equal(r$status, 0L)
  expect_lt(r$shift, 0)
  expect_equal(r$values, 2 - 2 * cos(pi * (0:4) / n), tolerance = 1e-10)
  expect_lt(abs(r$values[1]), 1e-12)
  # exact eigenvectors of the path Laplacian: cos(pi k (i - 1/2) / n)
  Vex <- sapply(0:4, function(k) cos(pi * k * (seq_len(n) - 0.5) / n))
  expect_lt(col_sign_gap(r$vectors, Vex), 1e-10)
  expect_lt(r$residual, 1e-10)
  expect_true(sign_ok(r$vectors))
  expect_equal(crossprod(r$vectors), diag(5), tolerance = 1e-10)
})

test_that("sparse shift-invert agrees with dense on a kNN Laplacian of a 2000-point Swiss roll", {
  X <- roll_points(2000, 42)
  g <- knn_laplacian(X, 10)
  m <- 7
  sp <- eigs_sparse(g$L, "bottom", m, method = "iterative")
  dn <- eigs_sparse(g$L, "bottom", m + 1, method = "dense")
  expect_identical(sp$method, "spectra_shift_invert")
  expect_identical(dn$method, "dense_dc")
  expect_abs_equal(sp$values, dn$values[1:m], 1e-8)
  # the wanted eigenvalues are separated from the next one, so subspaces are well defined
  expect_gt(dn$values[m + 1] - dn$values[m], 1e-4)
  expect_lt(subspace_gap(sp$vectors, dn$vectors[, 1:m]), 1e-6)
  # individual eigenvalues are simple here: columns agree up to sign, and the
  # sign convention makes them agree exactly
  expect_gt(min(diff(dn$values[1:(m + 1)])), 1e-4)
  expect_lt(max(abs(sp$vectors - dn$vectors[, 1:m])), 1e-6)
  expect_true(sign_ok(sp$vectors))
  # trivial vector: one null eigenvalue with the constant vector, then dropped
  dropped <- drop_trivial_pair(sp, rep(1, 2000), sum(g$deg) / 2000)
  expect_equal(dropped$values, sp$values[-1])
  expect_lt(abs(dropped$dropped_value), 1e-9 * sum(g$deg) / 2000)
})

test_that("auto switches between dense and iterative at dense_max_n", {
  L <- path_laplacian(120)$L
  a <- eigs_sparse(L, "bottom", 3)
  b <- eigs_sparse(L, "bottom", 3, dense_max_n = 50)
  expect_identical(a$method, "dense_dc")
  expect_identical(b$method, "spectra_shift_invert")
  expect_abs_equal(a$values, b$values, 1e-10)
  expect_lt(subspace_gap(a$vectors, b$vectors), 1e-8)
  t1 <- eigs_sparse(L, "top", 3, method = "iterative")
  t2 <- eigs_dense(as.matrix(L), "top", 3)
  expect_identical(t1$method, "spectra_lanczos")
  expect_equal(t1$values, t2$values, tolerance = 1e-10)
  expect_true(all(diff(t1$values) < 0))
})

test_that("sparse generalised L v = lambda D v (diagonal and general B) agrees with dense, B-orthonormal", {
  X <- roll_points(500, 3)
  g <- knn_laplacian(X, 8)
  D <- Matrix::Diagonal(x = g$deg)
  Dd <- as.matrix(D)
  Ld <- as.matrix(g$L)
  ref <- geigs_dense(Ld, Dd, "bottom", 6)
  sp <- geigs_sparse(g$L, D, "bottom", 5, method = "iterative")
  expect_bottom_geigs(sp, ref, Dd, "spectra_shift_invert_diagonal_B", 5)
  # null vector of L v = lambda D v is the constant vector
  expect_lt(1 - abs(sum(sp$vectors[, 1])) / sqrt(500 * sum(sp$vectors[, 1]^2)), 1e-8)
  # general (non-diagonal) SPD B
  B <- D + 0.2 * g$W
  Bd <- as.matrix(B)
  ref2 <- geigs_dense(Ld, Bd, "bottom", 6)
  sp2 <- geigs_sparse(g$L, B, "bottom", 5, method = "iterative")
  expect_bottom_geigs(sp2, ref2, Bd, "spectra_shift_invert_cholesky_B", 5)
  top2 <- geigs_sparse(g$L, B, "top", 3, method = "iterative")
  reft <- geigs_dense(Ld, Bd, "top", 3)
  expect_identical(top2$method, "spectra_lanczos_cholesky_B")
  expect_equal(top2$values, reft$values, tolerance = 1e-8)
  expect_equal(crossprod(top2$vectors, Bd %*% top2$vectors), diag(3), tolerance = 1e-8)
})

test_that("matrix-free top-m agrees with dense on a double-centred RBF kernel (n = 500)", {
  set.seed(9)
  X <- matrix(rnorm(500 * 3), 500)
  K <- exp(-as.matrix(dist(X))^2 / 4)
  H <- diag(500) - 1 / 500
  Kc <- H %*% K %*% H
  Kc <- (Kc + t(Kc)) / 2
  ref <- eigen(Kc, symmetric = TRUE)
  mf <- eigs_dense_top_matfree(K, 6, center = TRUE)
  expect_identical(mf$method, "spectra_matfree_centred")
  expect_abs_equal(mf$values, ref$values[1:6], 1e-8)
  expect_lt(subspace_gap(mf$vectors, ref$vectors[, 1:6]), 1e-6)
  expect_true(sign_ok(mf$vectors))
  # centred eigenvectors (non-zero eigenvalues) are orthogonal to the constant
  expect_lt(max(abs(colSums(mf$vectors))), 1e-8)
  un <- eigs_dense_top_matfree(K, 4, center = FALSE)
  refu <- eigen(K, symmetric = TRUE)
  expect_abs_equal(un$values, refu$values[1:4], 1e-8)
  expect_lt(subspace_gap(un$vectors, refu$vectors[, 1:4]), 1e-6)
  # the single entry point routes large dense top problems to the matrix-free path
  auto <- eigs_sym(K, "top", 6, center = TRUE, dense_max_n = 100)
  expect_identical(auto$method, "spectra_matfree_centred")
  dense <- eigs_sym(K, "top", 6, center = TRUE)
  expect_identical(dense$method, "dense_dc")
  expect_abs_equal(auto$values, dense$values, 1e-8)
})

test_that("iterative results are deterministic across runs", {
  L <- path_laplacian(400)$L
  a <- eigs_sparse_bottom(L, 4)
  b <- eigs_sparse_bottom(L, 4)
  expect_identical(a$values, b$values)
  expect_identical(a$vectors, b$vectors)
  set.seed(2)
  K <- exp(-as.matrix(dist(matrix(rnorm(600), 300)))^2)
  m1 <- eigs_dense_top_matfree(K, 3, center = TRUE)
  m2 <- eigs_dense_top_matfree(K, 3, center = TRUE)
  expect_identical(m1$vectors, m2$vectors)
})

test_that("non-convergence retries, then falls back to dense or errors", {
  L <- path_laplacian(300)$L
  # the top of a path Laplacian is tightly clustered: one restart cannot converge
  fb <- eigs_sparse(L, "top", 5, method = "iterative", maxit = 1, ncv = 11)
  expect_identical(fb$method, "dense_fallback")
  expect_equal(fb$attempts, 2L)
  expect_equal(fb$status, 2L)   # Spectra NOT_CONVERGING
  expect_match(fb$note, "did not converge")
  expect_equal(fb$values, eigs_dense(as.matrix(L), "top", 5)$values, tolerance = 1e-12)
  expect_error(eigs_sparse(L, "top", 5, method = "iterative", maxit = 1, ncv = 11,
                           fallback_max_n = 10),
               class = "manifoldOOS_numerical_error")
})

test_that("trivial-vector dropping: connected vs disconnected graphs", {
  n <- 200
  L <- path_laplacian(n)$L
  r <- eigs_sparse_bottom(L, 4)
  d <- drop_trivial_pair(r, rep(1, n), 2 * (n - 1) / n)
  expect_length(d$values, 3)
  expect_equal(d$vectors, r$vectors[, -1])
  expect_equal(d$values, 2 - 2 * cos(pi * (1:3) / n), tolerance = 1e-10)
  # a wrong null vector is a numerical error, never a blind drop
  expect_error(drop_trivial_pair(r, seq_len(n), 2 * (n - 1) / n),
               class = "manifoldOOS_numerical_error")
  # two components: two null eigenvalues
  L2 <- Matrix::bdiag(path_laplacian(100)$L, path_laplacian(100)$L)
  r2 <- eigs_sparse_bottom(L2, 4)
  expect_lt(max(abs(r2$values[1:2])), 1e-12)
  err <- expect_error(drop_trivial_pair(r2, rep(1, 200), 2 * 99 / 100),
                      class = "manifoldOOS_input_error")
  expect_match(conditionMessage(err), "graph disconnected or degenerate problem")
  # dense path gives the same decision
  r3 <- eigs_dense(as.matrix(L2), "bottom", 3)
  expect_error(drop_trivial_pair(r3, rep(1, 200), 2 * 99 / 100),
               class = "manifoldOOS_input_error")
})

test_that("bad input raises classed errors naming the argument", {
  A <- rand_sym(10, 1)
  expect_input_error(eigs_dense(A + diag(1:10) %*% matrix(1, 10, 10), "bottom", 2), "`A`")
  expect_input_error(eigs_dense(A, "bottom", 11), "`m`")
  expect_input_error(eigs_dense(A, "middle", 2), "`which`")
  expect_input_error(eigs_dense(A[, 1:9], "bottom", 2), "`A`")
  expect_input_error(geigs_dense(A, diag(9), "bottom", 2), "`B`")
  expect_input_error(eigs_dense_top_matfree(A, 2, center = NA), "`center`")
  expect_input_error(eigs_sparse(A, "bottom", 2, method = "magic"), "`method`")
  expect_input_error(eigs_sparse(A, "bottom", 2, shift_eps = 0), "`shift_eps`")
  # shift-invert requires a PSD matrix: an indefinite one is detected by the LDL' pivots
  L <- path_laplacian(100)$L
  expect_input_error(eigs_sparse_bottom(L - Matrix::Diagonal(100, 0.5), 3), "`A`")
  expect_input_error(geigs_sparse(L, Matrix::Diagonal(x = c(0, rep(1, 99))), "bottom", 2), "`B`")
  expect_input_error(geigs_sparse(L, Matrix::Diagonal(100) - 0.6 * path_laplacian(100)$W, "bottom", 2,
                                  method = "iterative", dense_max_n = 10), "`B`")
})
