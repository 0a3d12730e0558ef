# The default sparse Cholesky of the shift-invert solves ("cholmod") keeps
# CHOLMOD's ordering and supernodal analysis but computes the factor and the
# solves with the package's own threaded supernodal code; "cholmod_blas" is
# CHOLMOD's own numeric factorisation (the previous default). Both factor the
# same matrix with the same ordering, so the eigenpairs agree to rounding;
# the package's factor does not depend on the number of threads.

eigs_sparse <- manifoldOOS:::eigs_sparse
geigs_sparse <- manifoldOOS:::geigs_sparse

# with_chol(), subspace_dist() and roll_graph_laplacian(): helper-sparse-eigen.R

test_that("the package's supernodal factor gives CHOLMOD's eigenpairs (threaded and serial)", {
  # n = 6000: thousands of supernodes, so the subtrees run on two threads;
  # n = 400: fewer than 64 supernodes, the serial path
  for (n in c(6000, 400)) {
    g <- roll_graph_laplacian(n, 8, 11)
    a <- with_chol("cholmod_blas", eigs_sparse(g$L, "bottom", 6, method = "iterative"))
    b <- with_chol("cholmod", eigs_sparse(g$L, "bottom", 6, method = "iterative"))
    expect_identical(b$method, "spectra_shift_invert")
    expect_identical(a$method, b$method)
    expect_false(identical(a$vectors, b$vectors))  # two different factors ran
    expect_lt(max(abs(a$values - b$values)), 1e-10)
    expect_gt(min(diff(b$values)), 1e-6)
    expect_lt(subspace_dist(a$vectors, b$vectors), 1e-8)
    expect_lt(max(abs(a$vectors - b$vectors)), 1e-8)
    expect_lt(b$residual, 1e-10)
    expect_equal(crossprod(b$vectors), diag(6), tolerance = 1e-10)
  }
})

test_that("the factor and the solves do not depend on the number of threads", {
  g <- roll_graph_laplacian(6000, 8, 3)
  run <- function(th) with_chol("cholmod", eigs_sparse(g$L, "bottom", 5, method = "iterative"),
                                threads = th)
  r1 <- run(1L)
  r2 <- run(2L)
  r3 <- run(3L)
  expect_identical(r2$values, r1$values)
  expect_identical(r2$vectors, r1$vectors)
  expect_identical(r3$vectors, r1$vectors)
})

# generalised problems: test-sparse-cholesky.R (against "eigen" and "cholmod_blas")

test_that("LE (three Laplacians) and LTSA embeddings agree with CHOLMOD's factor", {
  X <- swiss_roll(2500, seed = 4)$x
  fits <- list(
    le = function() laplacian_eigenmaps(X, 2, k = 10, eigen_solver = "sparse"),
    le_sym = function() laplacian_eigenmaps(X, 2, k = 10, laplacian = "symmetric",
                                            eigen_solver = "sparse"),
    le_unn = function() laplacian_eigenmaps(X, 2, k = 10, laplacian = "unnormalized",
                                            eigen_solver = "sparse"),
    ltsa = function() ltsa(X, 2, k = 10, eigen_solver = "sparse")
  )
  for (nm in names(fits)) {
    a <- with_chol("cholmod_blas", fits[[nm]]())
    b <- with_chol("cholmod", fits[[nm]]())
    expect_match(b$solver$method, "shift_invert", label = nm)
    expect_identical(b$solver$method, a$solver$method, label = nm)
    Ya <- embedding(a)
    Yb <- embedding(b)
    expect_lt(subspace_dist(Ya, Yb), 1e-8, label = nm)
    expect_lt(max(abs(Ya - Yb)) / max(abs(Ya)), 1e-8, label = nm)
    expect_lt(max(abs(a$eigenvalues - b$eigenvalues)), 1e-10 * max(1, abs(a$eigenvalues)),
              label = nm)
  }
})

test_that("LLE agrees with CHOLMOD's factor as far as its conditioning allows", {
  # LLE's first kept eigenvalue (~4e-10 here) is barely above its null one,
  # so rounding moves the embedding by ~1e-8 between ANY two factorisations
  # (CHOLMOD vs Eigen's LDL' too); the check is the residual and a subspace
  # distance far below the perturbation bound residual / gap (~1e-5).
  X <- swiss_roll(1500, seed = 9)$x
  a <- with_chol("cholmod_blas", lle(X, 2, k = 10, eigen_solver = "sparse"))
  b <- with_chol("cholmod", lle(X, 2, k = 10, eigen_solver = "sparse"))
  expect_identical(b$solver$method, a$solver$method)
  expect_lt(b$solver$residual, 1e-12)
  expect_lt(max(abs(a$eigenvalues - b$eigenvalues)), 1e-12)
  expect_lt(subspace_dist(embedding(a), embedding(b)), 1e-6)
})

# a matrix that is not PSD: test-sparse-cholesky.R (the same error from all three)

test_that("the option names the three factorisations when it is invalid", {
  g <- roll_graph_laplacian(800, 8, 2)
  expect_error(with_chol("supernodal", eigs_sparse(g$L, "bottom", 3, method = "iterative")),
               "\"cholmod\", \"cholmod_blas\" or \"eigen\"", class = "manifoldOOS_input_error")
})
