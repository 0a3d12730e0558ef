# Exact l1 coding with an error dictionary (basis pursuit).

#' Sparse codes by exact l1 minimisation with an error dictionary
#'
#' Represents each query `x` over the training samples (the rows of `X`) plus
#' an error basis, by solving the basis-pursuit problem of Wright et al.
#' (2009) used by Raducanu and Dornaika's sparse-coding out-of-sample map:
#' \deqn{\min_{a, e} \|a\|_1 + \|e\|_1 \quad \textrm{s.t.} \quad x = X^\top a + E e,}{min ||a||_1 + ||e||_1 subject to x = t(X) a + E e,}
#' i.e. `min ||a'||_1` subject to `B a' = x` with the dictionary
#' `B = [t(X), E]` (`E` = the identity by default). The problem is a linear
#' program; it is always feasible because `E` has full row rank.
#'
#' Solvers:
#' * `"homotopy"` (default) follows the Lasso path
#'   `min 1/2 ||x - B a||^2 + lambda ||a||_1` from `lambda = ||B^T x||_inf`
#'   down to 0 (Osborne, Presnell and Turlach 2000). The identity columns of
#'   the active set are eliminated (Schur complement), so only the Cholesky
#'   factor of the training columns' part is kept, updated in `O(|A|^2)` as
#'   columns enter and leave. It ends at an exact solution (about `1.5 D`
#'   steps). Each step needs the correlations of the samples with the
#'   residual and the direction; they are computed exactly only for the
#'   samples that a bound from the last full pass over `X` cannot exclude
#'   from entering (usually a few dozen), and several queries are advanced
#'   in lockstep so that they share the full passes. A square error basis
#'   `E` is handled by coding `E^{-1} x` over `[E^{-1} t(X), I]` (the same
#'   problem); with a non-square `E` the homotopy does not apply and ADMM is
#'   used (`fallback = TRUE`).
#' * `"admm"`: basis-pursuit ADMM (Boyd et al. 2011, section 6.2) on batches of
#'   queries, over-relaxation 1.6, with a support polish and dual certificate
#'   tried every 50 iterations (stops when certified or after `maxit`).
#' * `"lp"`: the linear program solved by \pkg{lpSolve} (reference for small
#'   problems; requires that package).
#'
#' Every homotopy or ADMM solution comes with a dual vector `y` and is
#' *certified* when `||B^T y||_inf <= 1 + 1e-8`, `|(||a'||_1 - x^T y)| <=
#' 1e-8 ||a'||_1` and `||B a' - x||_inf <= 1e-9 max(1, ||x||_inf)`, which proves
#' optimality. A homotopy run that does not end certified is repeated with
#' ADMM (`fallback = TRUE`). The solution need not be unique (the LP can be
#' degenerate); the optimal objective is.
#'
#' @param X Dictionary samples, one per row (`N x D`).
#' @param x Queries: a numeric vector of length `D` or a matrix with `D`
#'   columns (one query per row).
#' @param solver `"homotopy"`, `"admm"` or `"lp"`.
#' @param error_basis `"identity"` (default) or a `D x D'` numeric matrix `E`
#'   of full row rank (for instance a Fourier or Haar basis).
#' @param normalize Scale every row of `X` and every query to unit Euclidean
#'   norm first (zero rows are left as they are).
#' @param maxit Maximum number of ADMM iterations.
#' @param n_threads Number of threads (queries are distributed over threads;
#'   results do not depend on it).
#' @return A list of class `"manifold_l1_code"` (and `"mo_l1_code"`, its former class,
#'   for one release) with `a` (`m x N` codes on the
#'   samples), `e` (`m x D'` codes on the error basis), `dual` (`m x D` dual
#'   vectors), and per query `objective` (`||a||_1 + ||e||_1`), `dual_max`
#'   (`||B^T y||_inf`), `gap`, `residual`, `certified`, `steps` (homotopy
#'   steps or ADMM iterations), `solver` and `fallback`; for the homotopy
#'   also `passes` (full correlation passes over `X`) and `tracked` (mean
#'   number of samples whose correlations were updated per step; the others
#'   were provably unable to enter the active set), `NA` otherwise.
#' @references Wright, J., Yang, A. Y., Ganesh, A., Sastry, S. S. and Ma, Y.
#'   (2009) Robust face recognition via sparse representation. *IEEE TPAMI*
#'   31, 210--227.
#'
#'   Raducanu, B. and Dornaika, F. (2013) Embedding new observations via
#'   sparse-coding for non-linear manifold learning. *Pattern Recognition*.
#'
#'   Osborne, M. R., Presnell, B. and Turlach, B. A. (2000) A new approach to
#'   variable selection in least squares problems. *IMA Journal of Numerical
#'   Analysis* 20, 389--403.
#' @seealso [oos_map()] with `method = "sparse"`.
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(40 * 10), 40)
#' x <- 0.7 * X[3, ] - 0.2 * X[10, ] + c(1, rep(0, 9))  # two atoms + one error
#' cd <- l1_code(X, x)
#' which(cd$a != 0)
#' cd$objective
#' cd$certified
#' # the same optimum from ADMM
#' l1_code(X, x, solver = "admm")$objective
l1_code <- function(X, x, solver = c("homotopy", "admm", "lp"), error_basis = "identity",
                    normalize = FALSE, maxit = 20000L, n_threads = default_threads()) {
  X <- as_data_matrix(X, "X", min_rows = 1L)
  D <- ncol(X)
  if (is.numeric(x) && is.null(dim(x))) {
    if (length(x) != D) abort_input("x", sprintf("must have length %d (the columns of `X`); it has %d.", D, length(x)))
    x <- matrix(x, nrow = 1L)
  }
  x <- as_data_matrix(x, "x", min_rows = 1L)
  if (ncol(x) != D) abort_input("x", sprintf("must have %d columns, like `X`; it has %d.", D, ncol(x)))
  solver <- check_choice(solver, c("homotopy", "admm", "lp"), "solver")
  E <- check_error_basis(error_basis, D)
  normalize <- check_flag(normalize, "normalize")
  maxit <- check_number(maxit, "maxit", lower = 1, integer = TRUE)
  n_threads <- check_threads(n_threads)
  if (normalize) {
    X <- unit_rows(X)
    x <- unit_rows(x)
  }
  if (solver == "lp") {
    res <- l1_code_lp(X, E, x)
  } else {
    res <- core(.mo_l1_code(X, E, x, solver, maxit, 8L, n_threads))
    res$screen_violations <- NULL
    if (solver != "homotopy") res$passes <- res$tracked <- rep(NA_real_, nrow(x))
  }
  rownames(res$a) <- rownames(x)
  colnames(res$a) <- rownames(X)
  res$solver <- if (solver == "lp") rep("lp", nrow(x)) else res$solver
  structure(res, class = c("manifold_l1_code", "mo_l1_code"))
}

#' @export
print.manifold_l1_code <- function(x, ...) {
  check_dots(..., fun = "print()")
  m <- nrow(x$a)
  cat(sprintf("<l1 codes: %d quer%s over %d samples + %d error atoms>\n", m,
              if (m == 1) "y" else "ies", ncol(x$a), ncol(x$e)))
  nnz <- rowSums(x$a != 0) + rowSums(x$e != 0)
  cat(sprintf("  solver: %s; certified: %d of %d; fallback: %d\n",
              paste(unique(x$solver), collapse = ", "), sum(x$certified %in% TRUE), m,
              sum(x$fallback %in% TRUE)))
  cat(sprintf("  objective: median %s; non-zeros per code: median %s\n",
              format(signif(stats::median(x$objective), 6)), format(stats::median(nnz))))
  invisible(x)
}

check_error_basis <- function(error_basis, D) {
  if (is.character(error_basis)) {
    check_choice(error_basis, "identity", "error_basis")
    return(matrix(0, 0, 0))
  }
  E <- as_data_matrix(error_basis, "error_basis", min_rows = 1L)
  if (nrow(E) != D) {
    abort_input("error_basis", sprintf("must have %d rows (the number of features); it has %d.", D, nrow(E)))
  }
  if (qr(E)$rank < D) abort_input("error_basis", "must have full row rank.")
  E
}

unit_rows <- function(X) {
  nr <- sqrt(rowSums(X^2))
  nr[nr == 0] <- 1
  X / nr
}

# Reference LP solution (lpSolve): min 1'(u + v) s.t. B (u - v) = x.
l1_code_lp <- function(X, E, Q) {
  if (!requireNamespace("lpSolve", quietly = TRUE)) {
    abort_input("solver", "\"lp\" needs the lpSolve package.")
  }
  D <- ncol(X)
  B <- cbind(t(X), if (length(E)) E else diag(D))
  M <- ncol(B)
  N <- nrow(X)
  m <- nrow(Q)
  a <- matrix(0, m, N)
  e <- matrix(0, m, M - N)
  obj <- numeric(m)
  for (i in seq_len(m)) {
    r <- lpSolve::lp("min", rep(1, 2 * M), cbind(B, -B), rep("=", D), Q[i, ])
    if (r$status != 0) abort_numerical(sprintf("lpSolve failed on query %d (status %d).", i, r$status))
    s <- r$solution[seq_len(M)] - r$solution[M + seq_len(M)]
    a[i, ] <- s[seq_len(N)]
    e[i, ] <- s[N + seq_len(M - N)]
    obj[i] <- sum(abs(s))
  }
  list(a = a, e = e, dual = matrix(NA_real_, m, D), objective = obj,
       dual_max = rep(NA_real_, m), gap = rep(NA_real_, m),
       residual = apply(abs(t(B %*% t(cbind(a, e))) - Q), 1, max),
       steps = rep(NA_integer_, m), drops = rep(NA_integer_, m),
       certified = rep(NA, m), fallback = rep(FALSE, m),
       passes = rep(NA_real_, m), tracked = rep(NA_real_, m))
}
