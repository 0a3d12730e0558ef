# The shift-invert solves of the sparse bottom-eigenpair problems factorise
# A - sigma B with CHOLMOD's supernodal Cholesky (Matrix's C interface) unless
# options(manifoldOOS.sparse_cholesky = "eigen") selects Eigen's simplicial
# LDL' (the earlier path). Both factor the same matrix, so the eigenpairs
# agree to the Lanczos tolerance; they are not bit-identical (different
# orderings and floating-point sums).

eigs_sparse <- manifoldOOS:::eigs_sparse
geigs_sparse <- manifoldOOS:::geigs_sparse

# with_chol(), subspace_dist() and roll_graph_laplacian(): helper-sparse-eigen.R

test_that("CHOLMOD and Eigen LDL' shift-invert give the same bottom eigenpairs", {
  g <- roll_graph_laplacian(3000, 8, 21)
  a <- with_chol("eigen", eigs_sparse(g$L, "bottom", 6, method = "iterative"))
  b <- with_chol("cholmod", eigs_sparse(g$L, "bottom", 6, method = "iterative"))
  expect_identical(a$method, "spectra_shift_invert")
  expect_identical(b$method, a$method)
  # two different factorisations really ran
  expect_false(identical(a$vectors, b$vectors))
  expect_lt(max(abs(a$values - b$values)), 1e-10)
  # simple eigenvalues: the sign convention aligns the columns
  expect_gt(min(diff(a$values)), 1e-5)
  expect_lt(max(abs(a$vectors - b$vectors)), 1e-8)
  expect_lt(subspace_dist(a$vectors, b$vectors), 1e-8)
  expect_lt(b$residual, 1e-10)
  expect_equal(crossprod(b$vectors), diag(6), tolerance = 1e-10)
})

test_that("the factorisations agree on generalised problems (diagonal and general B)", {
  # the default ("cholmod": the package's numeric factor on CHOLMOD's
  # analysis) against Eigen's LDL' and against CHOLMOD's own numeric factor
  g <- roll_graph_laplacian(2500, 8, 5)
  D <- Matrix::Diagonal(x = g$deg)
  B <- methods::as(D + 0.2 * g$W, "CsparseMatrix")
  for (ref in c("eigen", "cholmod_blas")) for (BB in list(D, B)) {
    a <- with_chol(ref, geigs_sparse(g$L, BB, "bottom", 4, method = "iterative"))
    b <- with_chol("cholmod", geigs_sparse(g$L, BB, "bottom", 4, method = "iterative"))
    expect_identical(b$method, a$method)
    expect_false(identical(a$vectors, b$vectors))
    expect_lt(max(abs(a$values - b$values)), 1e-10)
    expect_lt(max(abs(a$vectors - b$vectors)) / max(abs(a$vectors)), 1e-8)
    expect_lt(subspace_dist(a$vectors, b$vectors), 1e-8)
    Bd <- as.matrix(BB)
    expect_equal(crossprod(b$vectors, Bd %*% b$vectors), diag(4), tolerance = 1e-8)
  }
})

test_that("LE, LTSA, LLE and KE-LLE embeddings agree between the two factorisations", {
  X <- swiss_roll(1500, seed = 9)$x
  fits <- list(
    le = function() laplacian_eigenmaps(X, 2, k = 10),
    le_sym = function() laplacian_eigenmaps(X, 2, k = 10, laplacian = "symmetric"),
    ltsa = function() ltsa(X, 2, k = 10),
    lle = function() lle(X, 2, k = 10),
    ke_lle = function() ke_lle(X[1:300, ], 2, k = 8)
  )
  for (nm in names(fits)) {
    a <- with_chol("eigen", fits[[nm]]())
    b <- with_chol("cholmod", fits[[nm]]())
    if (nm != "ke_lle") {  # ke_lle() keeps no solver record (its eigen_solver is "sparse")
      expect_match(a$solver$method, "shift_invert", label = nm)
      expect_identical(b$solver$method, a$solver$method, label = nm)
    }
    Ya <- embedding(a)
    Yb <- embedding(b)
    expect_false(identical(Ya, Yb), label = nm)
    expect_lt(max(abs(Ya - Yb)) / max(abs(Ya)), 1e-8, label = nm)
    expect_lt(max(abs(a$eigenvalues - b$eigenvalues)), 1e-10 * max(1, abs(a$eigenvalues)),
              label = nm)
  }
})

test_that("a matrix that is not PSD gets the same classed error from every factorisation", {
  n <- 600
  W <- Matrix::bandSparse(n, k = 1, diagonals = list(rep(1, n - 1)), symmetric = TRUE)
  W <- methods::as(methods::as(W, "generalMatrix"), "CsparseMatrix")
  # path Laplacian minus 0.01 I: its eigenvalues 2 - 2 cos(pi j / n) - 0.01
  # are negative for the j with 2 - 2 cos(pi j / n) < 0.01
  A <- methods::as(Matrix::Diagonal(x = Matrix::rowSums(W)) - W - 0.01 * Matrix::Diagonal(n),
                   "CsparseMatrix")
  n_neg <- sum(2 - 2 * cos(pi * (0:(n - 1)) / n) - 0.01 < 0)
  expect_gt(n_neg, 1)
  ea <- with_chol("eigen", expect_error(eigs_sparse(A, "bottom", 3, method = "iterative"),
                                        class = "manifoldOOS_input_error"))
  for (other in c("cholmod", "cholmod_blas")) {
    eb <- with_chol(other, expect_error(eigs_sparse(A, "bottom", 3, method = "iterative"),
                                        class = "manifoldOOS_input_error"))
    expect_identical(conditionMessage(eb), conditionMessage(ea))
  }
  expect_match(conditionMessage(ea), sprintf("%d eigenvalue\\(s\\) lie below the shift", n_neg))
})

test_that("an invalid manifoldOOS.sparse_cholesky option is a classed error naming it", {
  g <- roll_graph_laplacian(800, 8, 2)
  for (bad in list("supernodal", NA_character_, 1, c("eigen", "cholmod"))) {
    expect_error(with_chol(bad, eigs_sparse(g$L, "bottom", 3, method = "iterative")),
                 "manifoldOOS.sparse_cholesky", class = "manifoldOOS_input_error")
  }
})
