# The deflated bottom solver (the known null vector of a Laplacian projected
# out of every shift-invert iterate) used by the iterative path of
# laplacian_eigenmaps(): agreement with the undeflated solver, orthogonality,
# residuals, the connectivity test, and a small spectral gap.

# Largest principal angle between the column spaces of A and B, from its
# sine |(I - Qa Qa') Qb|_2 (acos of the cosines cannot resolve angles below
# about 1e-8).
max_subspace_angle <- function(A, B) {
  qa <- qr.Q(qr(A))
  qb <- qr.Q(qr(B))
  asin(min(1, svd(qb - qa %*% crossprod(qa, qb))$d[1]))
}

knn_weights <- function(n, seed = 3, k = 10) {
  X <- swiss_roll(n, seed = seed)$x
  neighbor_graph(X, k = k, weights = "binary")$W
}

test_that("deflated and undeflated solvers agree on kNN-graph Laplacians (all three forms)", {
  W <- knn_weights(2500)
  d <- Matrix::rowSums(W)
  Ls <- methods::as(graph_laplacian(W, "symmetric"), "CsparseMatrix")
  Lu <- methods::as(graph_laplacian(W), "CsparseMatrix")
  for (case in list(list(L = Ls, u = sqrt(d)), list(L = Lu, u = rep(1, length(d))))) {
    old <- manifoldOOS:::.mo_eigs_sparse(case$L, "bottom", 5L, list(method = "iterative"))
    new <- manifoldOOS:::.mo_eigs_bottom_deflated(case$L, case$u, 4L, list(method = "iterative"))
    expect_identical(new$method, "spectra_shift_invert_deflated")
    # the undeflated solve finds the null vector first
    expect_gt(abs(sum(old$vectors[, 1] * case$u)) / sqrt(sum(case$u^2)), 1 - 1e-10)
    expect_equal(new$values, old$values[2:5], tolerance = 1e-9)
    expect_lt(max_subspace_angle(new$vectors, old$vectors[, 2:5]), 1e-8)
    # orthonormal, orthogonal to the null vector, small residuals
    expect_equal(crossprod(new$vectors), diag(4), tolerance = 1e-12)
    expect_lt(max(abs(crossprod(new$vectors, case$u / sqrt(sum(case$u^2))))), 1e-12)
    R <- as.matrix(case$L %*% new$vectors) - new$vectors %*% diag(new$values)
    expect_lt(max(sqrt(colSums(R^2))), 1e-8)
  }
})

test_that("the iterative LE fit (deflated) matches the dense fit for every variant", {
  X <- swiss_roll(2200, seed = 8)$x
  for (v in c("generalized", "symmetric", "unnormalized")) {
    it <- laplacian_eigenmaps(X, 2, k = 10, laplacian = v, eigen_solver = "sparse")
    de <- laplacian_eigenmaps(X, 2, k = 10, laplacian = v, eigen_solver = "dense")
    expect_match(it$solver$method, "deflated", label = v)
    expect_equal(it$eigenvalues, de$eigenvalues, tolerance = 1e-8, label = v)
    expect_lt(abs(it$eigenvalues[1]), 1e-12)   # the dropped trivial value
    expect_lt(max_subspace_angle(it$embedding, de$embedding), 1e-8)
  }
})

test_that("a graph with a tiny spectral gap: two rolls joined by one weak edge", {
  # lambda_2 of L_sym is about 1e-8 here; the deflated solve still returns
  # the bottom non-trivial pairs with small residuals and the right values.
  W1 <- knn_weights(1500, seed = 1)
  W2 <- knn_weights(1500, seed = 2)
  W <- Matrix::bdiag(W1, W2)
  W[1500, 1501] <- W[1501, 1500] <- 1e-5
  W <- methods::as(methods::as(W, "generalMatrix"), "CsparseMatrix")
  d <- Matrix::rowSums(W)
  Ls <- methods::as(graph_laplacian(W, "symmetric"), "CsparseMatrix")
  new <- manifoldOOS:::.mo_eigs_bottom_deflated(Ls, sqrt(d), 3L, list(method = "iterative"))
  ref <- eigen(as.matrix(Ls), symmetric = TRUE)
  nn <- ncol(Ls)
  ref_vals <- rev(ref$values)[2:4]
  ref_vecs <- ref$vectors[, nn - 1:3]
  expect_lt(new$values[1], 1e-6)
  expect_equal(new$values, ref_vals, tolerance = 1e-7)
  expect_lt(max_subspace_angle(new$vectors, ref_vecs), 1e-6)
  expect_lt(new$residual, 1e-10)
})

test_that("a disconnected graph and a wrong null vector give classed errors", {
  W1 <- knn_weights(1200, seed = 1)
  W <- methods::as(methods::as(Matrix::bdiag(W1, W1), "generalMatrix"), "CsparseMatrix")
  for (v in c("generalized", "symmetric", "unnormalized")) {
    expect_error(manifoldOOS:::.mo_le_fit_sparse(W, v, 2L, list(method = "iterative")),
                 "graph disconnected")
  }
  d <- Matrix::rowSums(W)
  Ls <- methods::as(graph_laplacian(W, "symmetric"), "CsparseMatrix")
  expect_error(manifoldOOS:::.mo_eigs_bottom_deflated(Ls, rep(1, length(d)), 2L, list()),
               "not a null vector")
  expect_error(manifoldOOS:::.mo_eigs_bottom_deflated(Ls, sqrt(d)[-1], 2L, list()),
               "incompatible dimensions")
  expect_error(manifoldOOS:::.mo_eigs_bottom_deflated(Ls, sqrt(d), 0L, list()), "must lie in")
})

test_that("the compiled symmetry check finds the asymmetry R finds (missing mirrors, unequal values)", {
  set.seed(11)
  n <- 200
  base <- Matrix::rsparsematrix(n, n, density = 0.05, symmetric = TRUE, rand.x = function(m) runif(m, 1, 2))
  base <- methods::as(methods::as(base, "generalMatrix"), "CsparseMatrix")
  u <- rep(1, n)
  # the relative asymmetry the compiled check reports, or -1 when it passes
  # (the solve that follows may fail on this indefinite matrix: not asked)
  call_solver <- function(A) {
    msg <- tryCatch({
      manifoldOOS:::core(manifoldOOS:::.mo_eigs_bottom_deflated(A, u, 2L, manifoldOOS:::eig_opts(maxit = 2L)))
      ""
    }, error = function(e) conditionMessage(e))
    if (!grepl("must be symmetric", msg)) return(-1)
    as.numeric(sub(".*relative asymmetry ([0-9.eE+-]+).*", "\\1", msg))
  }
  r_asym <- function(A) max(abs((A - Matrix::t(A))@x), 0) / max(abs(A@x))
  # one entry without its mirror, at the first and last stored rows of columns
  A1 <- base
  A1[n, 1] <- 0.37
  A1[1, n] <- 0
  A1 <- Matrix::drop0(A1)
  # unequal values of a mirrored pair
  A2 <- base
  nz <- Matrix::which(base != 0 & lower.tri(base), arr.ind = TRUE)[5, ]
  A2[nz[1], nz[2]] <- base[nz[1], nz[2]] + 0.01
  # an entry in a column that is otherwise empty
  A3 <- base
  A3[, 17] <- 0
  A3[17, ] <- 0
  A3 <- Matrix::drop0(A3)
  A3[4, 17] <- 1.5
  for (A in list(A1, A2, A3)) {
    ra <- r_asym(A)
    expect_gt(ra, 1e-8)
    expect_equal(call_solver(A), ra, tolerance = 1e-5)
  }
  # more than 10^6 entries: the columns are split among the threads; the
  # mirrors of the changed entries lie on both sides of the split
  nb <- 20000
  big <- Matrix::rsparsematrix(nb, nb, nnz = 6e5, symmetric = TRUE, rand.x = function(m) runif(m, 1, 2))
  big <- methods::as(methods::as(big, "generalMatrix"), "CsparseMatrix")
  expect_gt(length(big@x), 1e6)
  u <- rep(1, nb)
  expect_identical(call_solver(big), -1)
  h <- nb / 2
  for (ij in list(c(h + 1, h), c(h, h + 1), c(1, nb), c(h - 3, h + 7))) {
    B <- big
    B[ij[1], ij[2]] <- big[ij[1], ij[2]] + 0.5
    ra <- r_asym(B)
    expect_gt(ra, 1e-8)
    expect_equal(call_solver(B), ra, tolerance = 1e-5)
  }
  u <- rep(1, n)
  # rounding-level asymmetry is accepted by both
  A4 <- base
  A4[nz[1], nz[2]] <- base[nz[1], nz[2]] * (1 + 1e-12)
  expect_lt(r_asym(A4), 1e-8)
  expect_identical(call_solver(A4), -1)
  expect_identical(call_solver(base), -1)
})
