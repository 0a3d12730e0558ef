# Internal R access to the package's symmetric eigen-solvers (C++ headers
# eigen_dense.h and eigen_sparse.h). Nothing here is exported: the method
# implementations and the tests call these wrappers, which validate their
# input (errors name the argument) and call the compiled code through core().
#
# Every solver returns a list with
#   values    eigenvalues, ascending for which = "bottom"/"all", descending for "top";
#   vectors   matching eigenvectors (columns), sign convention applied
#             (largest |entry| positive); B-orthonormal for generalised problems;
#   method    path taken ("dense_dc", "spectra_shift_invert", "spectra_matfree", ...);
#   n_iter, n_ops, status, attempts   iterative-solver diagnostics (0 for dense);
#   shift, ridge, residual, note      shift used, ridge added to B, relative
#             residual max_j ||A v - lambda B v|| / (||A|| + |lambda| ||B||)
#             (-1 when not computed), remarks such as fallbacks.

# Options of the iterative solvers. `dense_max_n` defaults to the option
# `manifoldOOS.dense_max_n` (2000); top eigenpairs of dense matrices (MDS,
# Isomap, KPCA) use LAPACK only up to min(dense_max_n, dense_top_max_n),
# option `manifoldOOS.dense_top_max_n` (500).
#' @noRd
eig_opts <- function(method = "auto", dense_max_n = getOption("manifoldOOS.dense_max_n", 2000L),
                     dense_top_max_n = getOption("manifoldOOS.dense_top_max_n", 500L),
                     fallback_max_n = 8000L, shift_eps = 1e-6, tol = 1e-10, maxit = 1000L,
                     ncv = 0L, ridge = NULL, deflated = "auto",
                     lobpcg_min_n = getOption("manifoldOOS.lobpcg_min_n", 100000L), lobpcg_tol = 1e-9,
                     fill_min_n = getOption("manifoldOOS.fill_min_n", 20000L),
                     lobpcg_flops_per_nnz = getOption("manifoldOOS.lobpcg_flops_per_nnz", 1e4),
                     fill_screen_n = getOption("manifoldOOS.fill_screen_n", 20000L)) {
  list(
    method = check_choice(method, c("auto", "dense", "iterative"), "method"),
    dense_max_n = check_number(dense_max_n, "dense_max_n", lower = 0, integer = TRUE),
    dense_top_max_n = check_number(dense_top_max_n, "dense_top_max_n", lower = 0, integer = TRUE),
    fallback_max_n = check_number(fallback_max_n, "fallback_max_n", lower = 0, integer = TRUE),
    shift_eps = check_number(shift_eps, "shift_eps", lower = 0, upper = 1, lower_open = TRUE),
    tol = check_number(tol, "tol", lower = 0, upper = 1, lower_open = TRUE),
    maxit = check_number(maxit, "maxit", lower = 1, integer = TRUE),
    ncv = check_number(ncv, "ncv", lower = 0, integer = TRUE),
    ridge = if (is.null(ridge)) -1 else check_number(ridge, "ridge", lower = 0),
    deflated = check_choice(deflated, c("auto", "shift_invert", "lobpcg"), "deflated"),
    lobpcg_min_n = check_number(lobpcg_min_n, "lobpcg_min_n", lower = 0, integer = TRUE),
    lobpcg_tol = check_number(lobpcg_tol, "lobpcg_tol", lower = 0, upper = 1, lower_open = TRUE),
    fill_min_n = check_number(fill_min_n, "fill_min_n", lower = 0, integer = TRUE),
    lobpcg_flops_per_nnz = check_number(lobpcg_flops_per_nnz, "lobpcg_flops_per_nnz", lower = 0),
    screen_n = check_number(fill_screen_n, "fill_screen_n", lower = 0, integer = TRUE),
    # the memory a sparse factor may take (0: unknown): the automatic choice
    # takes LOBPCG rather than a factorisation predicted not to fit
    factor_memory = { a <- available_memory(); if (is.na(a)) 0 else a / 2 }
  )
}

# Bottom m non-trivial eigenpairs of a sparse PSD matrix with the known null
# vector `null_vec`, deflated (eigen_deflate.h). `deflated` picks the solver:
# "shift_invert" (sparse factorisation), "lobpcg" (LOBPCG preconditioned by
# smoothed-aggregation AMG) or "auto" (shift-invert below `fill_min_n`
# rows, above by the predicted cost and size of the sparse factorisation,
# from `lobpcg_min_n` rows on after a screen on two patches of up to
# `fill_screen_n` rows; see choose_deflated_solver() in eigen_sparse.h).
#' @noRd
eigs_bottom_deflated <- function(A, null_vec, m, deflated = "auto", ...) {
  A <- as_sym_sparse(A, "A")
  null_vec <- as.numeric(null_vec)
  if (length(null_vec) != nrow(A)) abort_input("null_vec", sprintf("must have length %d.", nrow(A)))
  m <- check_m(m, nrow(A), "bottom")
  opts <- eig_opts(method = "iterative", deflated = deflated, ...)
  core(.mo_eigs_bottom_deflated(A, null_vec, m, opts))
}

# A finite, square, symmetric numeric (dense) matrix.
#' @noRd
as_sym_dense <- function(A, arg = "A", symmetric = TRUE) {
  if (inherits(A, "Matrix")) A <- as.matrix(A)
  if (!is.matrix(A) || !(is.numeric(A) || is.logical(A))) {
    abort_input(arg, "must be a numeric matrix.")
  }
  if (nrow(A) != ncol(A) || nrow(A) < 1L) {
    abort_input(arg, sprintf("must be a square matrix; it is %d x %d.", nrow(A), ncol(A)))
  }
  if (storage.mode(A) != "double") storage.mode(A) <- "double"
  if (!all(is.finite(A))) abort_input(arg, "must contain only finite values.")
  if (symmetric) {
    amax <- max(abs(A))
    if (amax > 0 && max(abs(A - t(A))) > 1e-8 * amax) abort_input(arg, "must be symmetric.")
  }
  dimnames(A) <- NULL
  A
}

# A finite, square, symmetric sparse matrix as a general "dgCMatrix".
#' @noRd
as_sym_sparse <- function(A, arg = "A") {
  if (is.matrix(A)) {
    if (!(is.numeric(A) || is.logical(A))) abort_input(arg, "must be a numeric matrix.")
    A <- Matrix::Matrix(A + 0, sparse = TRUE)
  }
  if (!inherits(A, "sparseMatrix")) {
    abort_input(arg, sprintf("must be a sparse matrix of the Matrix package (or a base matrix), not an object of class '%s'.",
                             class(A)[1]))
  }
  A <- methods::as(A, "CsparseMatrix")
  A <- methods::as(A, "generalMatrix")
  if (!methods::is(A, "dgCMatrix")) A <- A * 1
  if (!methods::is(A, "dgCMatrix")) A <- methods::as(A, "dgCMatrix")
  if (nrow(A) != ncol(A) || nrow(A) < 1L) {
    abort_input(arg, sprintf("must be a square matrix; it is %d x %d.", nrow(A), ncol(A)))
  }
  if (!all(is.finite(A@x))) abort_input(arg, "must contain only finite values.")
  amax <- if (length(A@x)) max(abs(A@x)) else 0
  if (amax > 0) {
    D <- A - Matrix::t(A)
    if (length(D@x) && max(abs(D@x)) > 1e-8 * amax) abort_input(arg, "must be symmetric.")
  }
  A@Dimnames <- list(NULL, NULL)
  A
}

#' @noRd
check_m <- function(m, n, which, arg = "m") {
  if (identical(which, "all")) return(n)
  check_number(m, arg, lower = 1, upper = n, integer = TRUE)
}

#' @noRd
check_which <- function(which, arg = "which") {
  check_choice(which, c("bottom", "top", "all"), arg)
}

# Dense symmetric A: all, bottom m or top m eigenpairs (LAPACK, "dc" then "std").
#' @noRd
eigs_dense <- function(A, which = "bottom", m = 1L) {
  A <- as_sym_dense(A, "A")
  which <- check_which(which)
  m <- check_m(m, nrow(A), which)
  core(.mo_eigs_dense(A, which, m))
}

# Dense generalised A v = lambda B v (B SPD) by Cholesky reduction. `ridge`:
# NULL = automatic (only when B is not numerically SPD), 0 = never, > 0 = fixed.
#' @noRd
geigs_dense <- function(A, B, which = "bottom", m = 1L, ridge = NULL) {
  A <- as_sym_dense(A, "A")
  B <- as_sym_dense(B, "B")
  if (nrow(A) != nrow(B)) abort_input("B", sprintf("must have the dimensions of `A` (%d x %d).", nrow(A), nrow(A)))
  which <- check_which(which)
  m <- check_m(m, nrow(A), which)
  ridge <- if (is.null(ridge)) -1 else check_number(ridge, "ridge", lower = 0)
  core(.mo_geigs_dense(A, B, which, m, ridge))
}

# Sparse symmetric A. method = "auto" (dense below dense_max_n), "dense" or
# "iterative" (shift-invert for the bottom of a PSD matrix, Lanczos for the top).
#' @noRd
eigs_sparse <- function(A, which = "bottom", m = 1L, method = "auto", ...) {
  A <- as_sym_sparse(A, "A")
  which <- check_which(which)
  m <- check_m(m, nrow(A), which)
  opts <- eig_opts(method = method, ...)
  core(.mo_eigs_sparse(A, which, m, opts))
}

# Bottom m eigenpairs of a sparse PSD matrix by shift-invert at
# sigma = -shift_eps * trace/n (always the iterative path).
#' @noRd
eigs_sparse_bottom <- function(A, m, shift_eps = 1e-6, ...) {
  eigs_sparse(A, "bottom", m, method = "iterative", shift_eps = shift_eps, ...)
}

# Sparse generalised A v = lambda B v, B sparse SPD (diagonal or general).
#' @noRd
geigs_sparse <- function(A, B, which = "bottom", m = 1L, method = "auto", ...) {
  A <- as_sym_sparse(A, "A")
  B <- as_sym_sparse(B, "B")
  if (nrow(A) != nrow(B)) abort_input("B", sprintf("must have the dimensions of `A` (%d x %d).", nrow(A), nrow(A)))
  which <- check_which(which)
  m <- check_m(m, nrow(A), which)
  opts <- eig_opts(method = method, ...)
  core(.mo_geigs_sparse(A, B, which, m, opts))
}

# Top m eigenpairs of a dense symmetric K (of H K H when center = TRUE),
# always by the matrix-free Lanczos operator (no copy of K).
#' @noRd
eigs_dense_top_matfree <- function(K, m, center = FALSE, ...) {
  K <- as_sym_dense(K, "K")
  m <- check_m(m, nrow(K), "top")
  center <- check_flag(center, "center")
  opts <- eig_opts(...)
  core(.mo_eigs_dense_top_matfree(K, m, center, opts))
}

# Single R-level entry point: sparse A (or B) -> sparse solvers; dense A ->
# LAPACK, or matrix-free Lanczos for the top m above dense_max_n.
#' @noRd
eigs_sym <- function(A, which = "bottom", m = 1L, B = NULL, center = FALSE, method = "auto", ...) {
  center <- check_flag(center, "center")
  sparse <- inherits(A, "sparseMatrix") || inherits(B, "sparseMatrix")
  if (sparse) {
    if (center) abort_input("center", "is only available for dense matrices.")
    if (is.null(B)) return(eigs_sparse(A, which, m, method = method, ...))
    return(geigs_sparse(A, B, which, m, method = method, ...))
  }
  if (!is.null(B)) {
    if (center) abort_input("center", "is not available for generalised problems.")
    opts <- eig_opts(method = method, ...)
    return(geigs_dense(A, B, which, m, ridge = if (opts$ridge < 0) NULL else opts$ridge))
  }
  A <- as_sym_dense(A, "A")
  which <- check_which(which)
  m <- check_m(m, nrow(A), which)
  opts <- eig_opts(method = method, ...)
  core(.mo_eigs_dense_auto(A, which, m, center, opts))
}

# Drop the trivial eigenpair (the package eigen conventions) from an ascending bottom-(q+1) result
# `res` (a list with values and vectors), given the known null vector and the
# matrix scale trace/n. Errors when two eigenvalues are below the null
# tolerance (disconnected graph). Returns `res` with q pairs and the dropped
# eigenvalue in `dropped_value`.
#' @noRd
drop_trivial_pair <- function(res, null_vec, scale) {
  if (!is.list(res) || is.null(res$values) || is.null(res$vectors)) {
    abort_input("res", "must be an eigen-solver result with `values` and `vectors`.")
  }
  null_vec <- as.numeric(null_vec)
  if (length(null_vec) != nrow(res$vectors)) {
    abort_input("null_vec", sprintf("must have length %d.", nrow(res$vectors)))
  }
  scale <- check_number(scale, "scale", lower = 0, lower_open = TRUE)
  out <- core(.mo_drop_trivial(res$values, res$vectors, null_vec, scale))
  res$values <- out$values
  res$vectors <- out$vectors
  res$dropped_value <- out$dropped_value
  res
}
