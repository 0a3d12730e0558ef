# diffusion_map(): Coifman & Lafon's normalisation checked against an
# independent dense eigen-decomposition, the diffusion-distance identity, the
# kNN kernel, and the Nystrom extension.

# Independent reference: the kernel from dist(), alpha-normalisation, the
# symmetric conjugate of P and R's eigen(). Returns the eigenvalues of P, the
# pi-normalised right eigenvectors psi (trivial one dropped), P and pi.
dm_reference <- function(X, sigma, alpha, ndim, K = NULL) {
  if (is.null(K)) K <- exp(-as.matrix(stats::dist(X))^2 / (2 * sigma^2))
  q <- rowSums(K)
  Ka <- K / outer(q^alpha, q^alpha)
  d <- rowSums(Ka)
  ev <- eigen(Ka / sqrt(outer(d, d)), symmetric = TRUE)
  psi <- ev$vectors[, 2:(ndim + 1), drop = FALSE] / sqrt(d) * sqrt(sum(d))
  list(values = ev$values[1:(ndim + 1)], psi = psi, P = Ka / d, pi = d / sum(d), q = q)
}

# Columns of Y matched to those of ref up to sign.
match_signs <- function(Y, ref) sweep(ref, 2, sign(colSums(Y * ref)), "*")

test_that("dense kernel: embedding = lambda^t psi of an independent eigen-decomposition", {
  roll <- swiss_roll(300, seed = 11)
  X <- roll$x
  for (alpha in c(0, 0.5, 1)) for (tt in c(0, 1, 2.5)) {
    fit <- diffusion_map(X, ndim = 3, alpha = alpha, t = tt, bandwidth = 2)
    ref <- dm_reference(X, 2, alpha, 3)
    expect_equal(fit$eigenvalues, ref$values, tolerance = 1e-10)
    Yref <- ref$psi * rep(ref$values[-1]^tt, each = 300)
    expect_equal(unname(embedding(fit)), match_signs(embedding(fit), Yref), tolerance = 1e-9,
                 ignore_attr = TRUE)
  }
  fit <- diffusion_map(X, ndim = 3, alpha = 0.5, t = 1, bandwidth = 2)
  ref <- dm_reference(X, 2, 0.5, 3)
  # psi: right eigenvectors of P, orthonormal in L2(pi), orthogonal to psi_0 = 1
  expect_equal(fit$pi, ref$pi, tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(crossprod(fit$psi, fit$pi * fit$psi), diag(3), tolerance = 1e-10)
  expect_lt(max(abs(colSums(fit$pi * fit$psi))), 1e-10)
  expect_lt(max(abs(ref$P %*% fit$psi - fit$psi * rep(fit$eigenvalues[-1], each = 300))), 1e-10)
  # sign convention: largest |psi| entry positive
  expect_true(all(apply(fit$psi, 2, function(v) v[which.max(abs(v))] > 0)))
})

test_that("embedding distances are the diffusion distances at time t (all eigenvectors)", {
  set.seed(3)
  X <- matrix(rnorm(80), 40, 2)
  fit <- diffusion_map(X, ndim = 38, alpha = 0.5, t = 3, bandwidth = 0.4)
  ref <- dm_reference(X, 0.4, 0.5, 38)
  # the dropped last eigenvalue contributes lambda^(2t) to squared distances
  lam_last <- min(eigen(ref$P, only.values = TRUE)$values)
  expect_lt(abs(lam_last)^6, 1e-12)
  Pt <- ref$P %*% ref$P %*% ref$P
  Dt2 <- as.matrix(stats::dist(sweep(Pt, 2, sqrt(ref$pi), "/")))^2
  De2 <- as.matrix(stats::dist(embedding(fit)))^2
  expect_equal(De2, Dt2, tolerance = 1e-8, ignore_attr = TRUE)
})

# The "or"-symmetrised kNN Gaussian kernel with a unit diagonal, built by hand.
knn_kernel_ref <- function(X, k, sigma) {
  n <- nrow(X)
  nb <- knn(X, k)
  A <- matrix(FALSE, n, n)
  A[cbind(rep(seq_len(n), k), as.vector(nb$idx))] <- TRUE
  A <- A | t(A)
  diag(A) <- TRUE
  exp(-as.matrix(stats::dist(X))^2 / (2 * sigma^2)) * A
}

test_that("kNN kernel: equals an independently built truncated kernel; all neighbours = dense", {
  roll <- swiss_roll(300, seed = 12)
  X <- roll$x
  fk <- diffusion_map(X, ndim = 2, kernel = "knn", kernel_k = 15, bandwidth = 1.5)
  expect_identical(fk$kernel, "knn")
  K <- knn_kernel_ref(X, 15, 1.5)
  ref <- dm_reference(X, 1.5, 1, 2, K = K)
  expect_equal(fk$eigenvalues, ref$values, tolerance = 1e-9)
  Yref <- ref$psi * rep(ref$values[-1], each = 300)
  expect_equal(unname(embedding(fk)), match_signs(embedding(fk), Yref), tolerance = 1e-7,
               ignore_attr = TRUE)
  # every pair kept: the kNN kernel is the dense kernel
  fa <- diffusion_map(X, ndim = 2, kernel = "knn", kernel_k = 299, bandwidth = 1.5)
  fd <- diffusion_map(X, ndim = 2, kernel = "dense", bandwidth = 1.5)
  expect_equal(fa$eigenvalues, fd$eigenvalues, tolerance = 1e-10)
  expect_equal(unname(embedding(fa)), unname(embedding(fd)), tolerance = 1e-8)
  # the iterative (shift-invert) path of the sparse kernel
  old <- options(manifoldOOS.dense_max_n = 100L)
  on.exit(options(old))
  fs <- diffusion_map(X, ndim = 2, kernel = "knn", kernel_k = 15, bandwidth = 1.5)
  expect_match(fs$solver$method, "spectra")
  expect_equal(fs$eigenvalues, fk$eigenvalues, tolerance = 1e-9)
  expect_lt(max_principal_angle(embedding(fs), embedding(fk)), 1e-6)
})

test_that("kNN kernel, alpha = 0.5: the deflated compressed solve equals the dense solve of the same kernel", {
  roll <- swiss_roll(400, seed = 21)
  X <- roll$x
  fk <- diffusion_map(X, ndim = 3, alpha = 0.5, t = 2, kernel = "knn", kernel_k = 25, bandwidth = 1.6)
  expect_match(fk$solver$method, "dense")
  old <- options(manifoldOOS.dense_max_n = 100L)
  on.exit(options(old))
  fs <- diffusion_map(X, ndim = 3, alpha = 0.5, t = 2, kernel = "knn", kernel_k = 25, bandwidth = 1.6)
  expect_match(fs$solver$method, "deflated")
  expect_equal(fs$eigenvalues, fk$eigenvalues, tolerance = 1e-9)
  expect_equal(fs$q, fk$q, tolerance = 1e-14)
  expect_equal(fs$pi, fk$pi, tolerance = 1e-14)
  expect_lt(max_principal_angle(fs$psi, fk$psi), 1e-6)
  # psi is pi-orthonormal: sum_i pi_i psi_ij psi_il = delta_jl
  expect_equal(crossprod(fs$psi * sqrt(fs$pi)), diag(3), tolerance = 1e-8)
  # the same kernel as an independent construction: q = K 1 with a unit diagonal
  K <- knn_kernel_ref(X, 25, 1.6)
  expect_equal(fs$q, unname(rowSums(K)), tolerance = 1e-12)
})

test_that("kernel = \"auto\" switches to the kNN kernel above dense_max_n; bandwidth rule", {
  roll <- swiss_roll(260, seed = 13)
  old <- options(manifoldOOS.dense_max_n = 250L)
  on.exit(options(old))
  fit <- diffusion_map(roll$x, ndim = 2, k = 7)
  expect_identical(fit$kernel, "knn")
  expect_identical(fit$kernel_k, 70L)
  expect_equal(fit$sigma, stats::median(knn(roll$x, 7)$dist[, 7]))
  options(manifoldOOS.dense_max_n = 260L)
  expect_identical(diffusion_map(roll$x, ndim = 2)$kernel, "dense")
})

test_that("the default kernel_k is 10 k up to 20,000 points, then keeps the kernel's size, down to k", {
  dk <- manifoldOOS:::default_kernel_k
  expect_identical(dk(10L, 500L), 100L)
  expect_identical(dk(10L, 50L), 49L)           # at most n - 1
  expect_identical(dk(10L, 20000L), 100L)
  expect_identical(dk(15L, 40000L), 75L)
  expect_identical(dk(15L, 1e5), 30L)
  expect_identical(dk(7L, 30000L), 47L)         # 70 x 2/3 = 46.7
  expect_identical(dk(15L, 2e5), 15L)
  expect_identical(dk(15L, 1e6), 15L)           # never fewer than k
  # between 20,000 and 200,000 points the kernel holds about 20,000 x 10 k
  # pairs, and kernel_k never grows with n
  n <- round(seq(2e4, 2e5, length.out = 200))
  kk <- vapply(n, function(m) dk(12L, m), 1L)
  expect_true(all(abs(n * kk - 2e4 * 120) <= n / 2))
  expect_true(all(diff(kk) <= 0))
  expect_true(all(kk >= 12L & kk <= 120L))
})

test_that("a fit above 20,000 points takes the smaller default kernel, records and prints it", {
  roll <- swiss_roll(24000, seed = 5)
  fit <- diffusion_map(roll$x, ndim = 2, k = 5, knn_method = "exact")
  expect_identical(fit$kernel, "knn")
  expect_identical(fit$kernel_k, 42L)           # round(50 x 20000 / 24000)
  expect_identical(fit$params$kernel_k, 42L)
  expect_output(print(fit), "kernel_k = 42", fixed = TRUE)
  # the same fit as asking for that kernel_k explicitly
  same <- diffusion_map(roll$x, ndim = 2, k = 5, knn_method = "exact", kernel_k = 42)
  expect_identical(embedding(fit), embedding(same))
  # the diffusion coordinates still follow the roll
  expect_gt(abs(stats::cor(embedding(fit)[, 1], roll$color, method = "spearman")), 0.99)
})

test_that("Nystrom extension: training rows, new rows against the formula, far points, contract", {
  roll <- swiss_roll(500, seed = 14)
  X <- roll$x[1:400, ]
  new <- roll$x[401:500, ]
  fit <- diffusion_map(X, ndim = 2, alpha = 0.5, t = 2, bandwidth = 1.8)
  # training rows: exactly the embedding (snap), and within 1e-10 without snapping
  tr <- predict(fit, X)
  expect_identical(unname(tr[, 1:2]), unname(embedding(fit)), ignore_attr = TRUE)
  expect_true(all(attr(tr, "snapped")))
  trn <- predict(fit, X, snap = FALSE)
  expect_lt(max(abs(trn - embedding(fit))), 1e-10)
  # new rows: lambda^(t-1) sum_j p(x, x_j) psi(j), p proportional to k(x, x_j) / q_j^alpha
  yb <- expect_predict_contract(fit, new, tol = 1e-12)
  Kx <- exp(-as.matrix(stats::dist(rbind(new, X)))[1:100, 101:500]^2 / (2 * 1.8^2))
  Px <- Kx / rep(fit$q^0.5, each = 100)
  Px <- Px / rowSums(Px)
  ref <- Px %*% fit$psi * rep(fit$eigenvalues[-1]^(2 - 1), each = 100)
  expect_equal(unname(yb), ref, tolerance = 1e-10, ignore_attr = TRUE)
  expect_false(any(attr(yb, "far")))
  # a point far away gets the finite limit: its nearest training point's psi * lambda^(t-1)
  far_pt <- X[7, , drop = FALSE] * 1e4
  yf <- predict(fit, far_pt)
  j <- knn(X, 1, query = far_pt)$idx[1, 1]
  expect_true(attr(yf, "far"))
  expect_equal(as.vector(yf), fit$psi[j, ] * fit$eigenvalues[-1], tolerance = 1e-12)
  expect_identical(predict(rds_roundtrip(fit), new), yb)
  # kNN kernel: contract, snap, and the formula over the kernel_k + 1 nearest training points
  fk <- diffusion_map(X, ndim = 2, kernel = "knn", kernel_k = 20, bandwidth = 1.8)
  yk <- expect_predict_contract(fk, new, tol = 1e-12)
  expect_identical(unname(predict(fk, X)[, 1:2]), unname(embedding(fk)), ignore_attr = TRUE)
  nb <- knn(X, 21, query = new)
  Wk <- exp(-nb$dist^2 / (2 * 1.8^2)) / matrix(fk$q[nb$idx], 100)
  Wk <- Wk / rowSums(Wk)
  refk <- t(vapply(1:100, function(i) colSums(Wk[i, ] * fk$psi[nb$idx[i, ], ]), numeric(2)))
  expect_equal(unname(yk), refk, tolerance = 1e-10, ignore_attr = TRUE)
})

test_that("invariant to rotation and translation of X (bandwidth from distances)", {
  roll <- swiss_roll(250, seed = 15)
  set.seed(15)
  R <- qr.Q(qr(matrix(rnorm(9), 3)))
  X2 <- roll$x %*% R + matrix(c(3, -2, 7), 250, 3, byrow = TRUE)
  f1 <- diffusion_map(roll$x, ndim = 2)
  f2 <- diffusion_map(X2, ndim = 2)
  expect_equal(f1$sigma, f2$sigma, tolerance = 1e-12)
  expect_equal(f1$eigenvalues, f2$eigenvalues, tolerance = 1e-10)
  expect_equal(unname(embedding(f1)), unname(embedding(f2)), tolerance = 1e-8)
})

test_that("bad input: classed errors naming the argument", {
  roll <- swiss_roll(120, seed = 16)
  X <- roll$x
  expect_input_error(diffusion_map(X, alpha = 1.5), "`alpha`")
  expect_input_error(diffusion_map(X, t = -1), "`t`")
  expect_input_error(diffusion_map(X, bandwidth = 0), "`bandwidth`")
  expect_input_error(diffusion_map(X, bandwidth = "silverman"), "`bandwidth`")
  expect_input_error(diffusion_map(X, kernel = "full"), "`kernel`")
  expect_input_error(diffusion_map(X, kernel = "knn", kernel_k = 200), "`kernel_k`")
  expect_input_error(diffusion_map(X, ndim = 119), "`ndim`")
  two <- rbind(X, X + 1000)
  err <- expect_input_error(diffusion_map(two, kernel = "knn", kernel_k = 10), "`kernel_k`")
  expect_match(conditionMessage(err), "2 connected components")
  expect_input_error(diffusion_map(two, kernel = "dense"), "`bandwidth`")
  expect_input_error(predict(diffusion_map(X), X[, 1:2]), "`newdata`")
  expect_input_error(predict(diffusion_map(X), X, snap = NA), "`snap`")
  expect_warning(fd <- diffusion_map(rbind(X, X[1:4, ])), class = "manifoldOOS_duplicates_warning")
  expect_equal(fd$n_duplicates, 4L)
  expect_true(all(is.finite(embedding(fd))))
  expect_output(print(diffusion_map(X)), "Diffusion map")
  expect_output(print(summary(diffusion_map(X))), "alpha = 1")
})

test_that("a kernel that cannot fit in memory is refused before it is built, naming the argument", {
  X <- swiss_roll(600, seed = 4)$x
  # 90 bytes per point and kernel neighbour: 600 x 100 x 90 = 5.4 MB
  withr::local_options(manifoldOOS.memory_limit = 5e6)
  err <- expect_error(diffusion_map(X, 2, kernel = "knn", kernel_k = 100),
                      class = "manifoldOOS_memory_error")
  expect_identical(err$arg, "kernel_k")
  expect_match(conditionMessage(err), "kNN kernel of 600 points with kernel_k = 100")
  # the largest kernel_k that fits: 5e6 / (90 x 600) = 92.6
  expect_match(conditionMessage(err), "about 92 fits", fixed = TRUE)
  expect_s3_class(diffusion_map(X, 2, kernel = "knn", kernel_k = 92), "manifold_diffusion")
  expect_s3_class(diffusion_map(X, 2, kernel = "knn", kernel_k = 30), "manifold_diffusion")
  # the dense kernel: 40 bytes per pair, 14.4 MB
  err <- expect_error(diffusion_map(X, 2, kernel = "dense"), class = "manifoldOOS_memory_error")
  expect_identical(err$arg, "kernel")
  withr::local_options(manifoldOOS.memory_limit = 2e7)
  expect_s3_class(diffusion_map(X, 2, kernel = "dense"), "manifold_diffusion")
})

test_that("the sparse kernel handed over as W: the unit diagonal added by the eigen-solve = W + I built in R", {
  set.seed(5)
  n <- 120
  W <- Matrix::rsparsematrix(n, n, density = 0.08, symmetric = TRUE, rand.x = function(m) runif(m))
  W <- methods::as(methods::as(W, "generalMatrix"), "CsparseMatrix")
  # stored diagonal entries in some columns (added to), none in the others
  # (inserted, also before the first and after the last stored row); a
  # column of W with no entry at all
  W[cbind(c(1, 7, n), c(1, 7, n))] <- c(0.25, 0.5, 0.75)
  W[, 30] <- 0
  W[30, ] <- 0
  W <- Matrix::drop0(W)
  W <- W + Matrix::sparseMatrix(i = c(29, 31), j = c(31, 29), x = 0.3, dims = c(n, n))
  expect_true(methods::is(W, "dgCMatrix"))
  expect_equal(sum(W[, 30] != 0), 0)
  K <- methods::as(W + Matrix::Diagonal(n), "CsparseMatrix")
  for (method in c("dense", "iterative")) {
    o <- manifoldOOS:::eig_opts(method = method)
    a <- manifoldOOS:::core(manifoldOOS:::.mo_diffusion_fit_sparse(W, 0.5, 3L, o, add_unit_diagonal = TRUE))
    b <- manifoldOOS:::core(manifoldOOS:::.mo_diffusion_fit_sparse(K, 0.5, 3L, o))
    expect_identical(a, b)
  }
  # q = K 1 exactly as R sums the kernel: the diagonal was added once
  expect_equal(a$q, unname(Matrix::rowSums(W)) + 1, tolerance = 1e-14)
  expect_identical(a$q[30], 1)
})

test_that("the fit hands the kNN weights to the eigen-solve: same kernel row sums as an independent build", {
  X <- swiss_roll(500, seed = 3)$x
  old <- options(manifoldOOS.dense_max_n = 100L)
  on.exit(options(old))
  f <- diffusion_map(X, ndim = 2, kernel = "knn", kernel_k = 20, bandwidth = 1.4)
  K <- knn_kernel_ref(X, 20, 1.4)
  expect_equal(f$q, unname(rowSums(K)), tolerance = 1e-12)
})
