# The deflated LOBPCG solver with the smoothed-aggregation AMG preconditioner
# (eigen_lobpcg.h, amg.h): agreement with the dense and the shift-invert
# solvers, deflation, laplacian_eigenmaps(eigen_solver = "lobpcg"), and the
# classed errors of a disconnected graph and of non-convergence.

# Largest principal angle between the column spaces of A and B (its sine).
lobpcg_subspace_angle <- function(A, B) {
  qa <- qr.Q(qr(A))
  qb <- qr.Q(qr(B))
  asin(min(1, svd(qb - qa %*% crossprod(qa, qb))$d[1]))
}

lobpcg_laplacian <- function(n, seed, k = 10, dim = 3) {
  X <- swiss_roll(n, seed = seed)$x
  if (dim > 3) {
    set.seed(seed)
    Q <- qr.Q(qr(matrix(stats::rnorm(dim * dim), dim)))
    X <- cbind(X, matrix(0, n, dim - 3)) %*% t(Q) + matrix(stats::rnorm(n * dim, sd = 0.3), n)
  }
  W <- neighbor_graph(X, k = k)$W
  d <- Matrix::rowSums(W)
  list(L = methods::as(graph_laplacian(W, "symmetric"), "CsparseMatrix"), u = sqrt(d), W = W)
}

test_that("LOBPCG matches the dense solver on a kNN-graph Laplacian (n = 1500)", {
  g <- lobpcg_laplacian(1500, seed = 4)
  r <- manifoldOOS:::eigs_bottom_deflated(g$L, g$u, 4L, deflated = "lobpcg")
  expect_identical(r$method, "lobpcg_amg_deflated")
  ref <- eigen(as.matrix(g$L), symmetric = TRUE)
  n <- nrow(g$L)
  ref_vals <- rev(ref$values)[2:5]
  expect_equal(r$values, ref_vals, tolerance = 1e-8)
  expect_lt(lobpcg_subspace_angle(r$vectors, ref$vectors[, n - 1:4]), 1e-5)
  # orthonormal, orthogonal to the unit null vector, small residuals
  expect_equal(crossprod(r$vectors), diag(4), tolerance = 1e-12)
  expect_lt(max(abs(crossprod(r$vectors, g$u / sqrt(sum(g$u^2))))), 1e-12)
  R <- as.matrix(g$L %*% r$vectors) - r$vectors %*% diag(r$values)
  expect_lt(max(sqrt(colSums(R^2))), 1e-8)
  expect_lt(r$residual, 1e-8)
})

test_that("LOBPCG matches shift-invert at n = 20000 (3-D and 20-D rolls)", {
  skip_on_cran()
  for (dim in c(3, 20)) {
    g <- lobpcg_laplacian(20000, seed = 5, k = 12, dim = dim)
    si <- manifoldOOS:::eigs_bottom_deflated(g$L, g$u, 3L, deflated = "shift_invert")
    lo <- manifoldOOS:::eigs_bottom_deflated(g$L, g$u, 3L, deflated = "lobpcg", lobpcg_tol = 1e-10)
    expect_identical(si$method, "spectra_shift_invert_deflated")
    expect_identical(lo$method, "lobpcg_amg_deflated")
    expect_equal(lo$values, si$values, tolerance = 1e-8, label = paste("dim", dim))
    # eigenvector error ~ residual / gap
    gap <- min(diff(c(si$values, Inf)), si$values[1])
    expect_lt(lobpcg_subspace_angle(lo$vectors, si$vectors), max(1e-6, 1e-8 / gap))
    expect_lt(max(abs(crossprod(lo$vectors, g$u / sqrt(sum(g$u^2))))), 1e-12)
  }
})

test_that("laplacian_eigenmaps(eigen_solver = \"lobpcg\") equals the shift-invert fit up to sign", {
  X <- swiss_roll(3000, seed = 9)$x
  for (v in c("generalized", "symmetric", "unnormalized")) {
    si <- laplacian_eigenmaps(X, 2, k = 10, laplacian = v, eigen_solver = "sparse")
    lo <- laplacian_eigenmaps(X, 2, k = 10, laplacian = v, eigen_solver = "lobpcg")
    expect_identical(si$solver$method, "spectra_shift_invert_deflated")
    expect_identical(lo$solver$method, "lobpcg_amg_deflated")
    expect_equal(lo$eigenvalues[-1], si$eigenvalues[-1], tolerance = 1e-8, label = v)
    Ys <- unname(si$embedding)
    Yl <- unname(lo$embedding)
    Yl <- sweep(Yl, 2, sign(colSums(Yl * Ys)), `*`)
    expect_lt(max(abs(Yl - Ys)) / max(abs(Ys)), 1e-5, label = v)
    # the next eigenvector would fail: it is far from the embedding
    expect_gt(lobpcg_subspace_angle(Yl[, 1, drop = FALSE], Ys[, 2, drop = FALSE]), 1)
  }
  # "auto" keeps shift-invert on a graph of this size
  au <- laplacian_eigenmaps(X, 2, k = 10)
  expect_identical(au$solver$method, "spectra_shift_invert_deflated")
  expect_error(laplacian_eigenmaps(X[1:300, ], 2, graph = "full", eigen_solver = "lobpcg"),
               class = "manifoldOOS_input_error")
})

test_that("ltsa(eigen_solver = \"lobpcg\") equals the shift-invert fit up to sign, and auto switches at lobpcg_min_n", {
  X <- swiss_roll(3000, seed = 9)$x
  si <- ltsa(X, 2, k = 12, eigen_solver = "sparse")
  lo <- ltsa(X, 2, k = 12, eigen_solver = "lobpcg")
  expect_false(identical(si$solver$method, "lobpcg_amg_deflated"))
  expect_identical(lo$solver$method, "lobpcg_amg_deflated")
  expect_equal(lo$eigenvalues, si$eigenvalues, tolerance = 1e-7)
  Ys <- unname(si$embedding)
  Yl <- unname(lo$embedding)
  Yl <- sweep(Yl, 2, sign(colSums(Yl * Ys)), `*`)
  expect_lt(max(abs(Yl - Ys)) / max(abs(Ys)), 1e-5)
  # the embedding is orthogonal to the constant (deflated exactly)
  expect_lt(max(abs(colSums(lo$embedding))) / max(abs(lo$embedding)), 1e-9)
  # predict() is the fit's rule either way
  expect_equal(predict(lo, X[1:20, ]), sweep(predict(si, X[1:20, ]), 2, sign(colSums(unname(lo$embedding) * Ys)), `*`),
               tolerance = 1e-5, ignore_attr = TRUE)
  # "auto" takes LOBPCG from lobpcg_min_n points on, shift-invert below
  withr::local_options(manifoldOOS.lobpcg_min_n = 2000L, manifoldOOS.fill_screen_n = 0L)
  expect_identical(ltsa(X, 2, k = 12)$solver$method, "lobpcg_amg_deflated")
  withr::local_options(manifoldOOS.lobpcg_min_n = 1e5)
  expect_false(identical(ltsa(X, 2, k = 12)$solver$method, "lobpcg_amg_deflated"))
  expect_error(ltsa(X, 2, k = 12, eigen_solver = "amg"), class = "manifoldOOS_input_error")
})

test_that("a disconnected graph raises the same classed error with LOBPCG", {
  W1 <- lobpcg_laplacian(1200, seed = 1)$W
  W <- methods::as(methods::as(Matrix::bdiag(W1, W1), "generalMatrix"), "CsparseMatrix")
  for (v in c("generalized", "symmetric", "unnormalized")) {
    expect_error(manifoldOOS:::core(manifoldOOS:::.mo_le_fit_sparse(W, v, 2L, list(method = "iterative",
                                                                     deflated = "lobpcg"))),
                 "graph disconnected", class = "manifoldOOS_input_error")
  }
})

test_that("LOBPCG non-convergence is a classed error, never a wrong basis", {
  g <- lobpcg_laplacian(1500, seed = 4)
  expect_error(manifoldOOS:::eigs_bottom_deflated(g$L, g$u, 4L, deflated = "lobpcg", maxit = 2L),
               "did not converge", class = "manifoldOOS_numerical_error")
  expect_error(manifoldOOS:::eigs_bottom_deflated(g$L, g$u, 4L, deflated = "none"),
               class = "manifoldOOS_input_error")
})
