#' Local tangent space alignment
#'
#' Zhang & Zha's LTSA. For every point, the neighbourhood \eqn{N_i} (its `k`
#' nearest points, itself included when `include_self = TRUE`) is centred and
#' its local tangent coordinates \eqn{Q_i} (top `ndim` left singular vectors
#' of the centred block) are computed; with \eqn{G_i = [1/\sqrt{k}, Q_i]} the
#' alignment matrix accumulates \eqn{B[N_i, N_i] \mathrel{+}= I - G_i G_i^\top}.
#' The embedding is given by the bottom eigenvectors of \eqn{B} after the
#' constant vector (an exact null vector) is removed; columns have unit norm
#' (\eqn{T T^\top = I} in the paper's notation).
#'
#' Eigen-solver paths, the check of the trivial vector and the handling of
#' the degenerate null space of exactly flat data are those of [lle()]: on a
#' noiseless plane LTSA recovers the plane coordinates up to an affine map to
#' rounding accuracy.
#'
#' **Out-of-sample map** (`predict(fit, newdata)`): `"reconstruction"`
#' (Saul & Roweis 2003), the new point's reconstruction weights over its `k`
#' nearest training points (regulariser `reg`, relative to the trace of the
#' local Gram matrix), applied to the training embedding; `snap = TRUE`
#' (default) returns a training point's own coordinates for an identical new
#' point.
#'
#' **Bad input.** `k` must be at least `ndim + 2` (smaller neighbourhoods
#' make the alignment matrix zero); a disconnected neighbourhood graph is an error naming the
#' smallest `k` that connects it; duplicated rows are kept with a warning, and
#' neighbourhoods whose `ndim`-th local singular value is below
#' \eqn{10^{-10}} times the first are counted and reported with a warning.
#'
#' @inheritParams lle
#' @param k Neighbourhood size: with `include_self = TRUE` (Zhang & Zha's
#'   code) the neighbourhood of \eqn{x_i} is \eqn{x_i} and its `k - 1`
#'   nearest neighbours; with `include_self = FALSE` (scikit-learn) it is the
#'   `k` nearest other points, without \eqn{x_i}.
#' @param include_self Whether the neighbourhood of \eqn{x_i} contains
#'   \eqn{x_i} itself (see `k`).
#' @param reg Regulariser of the reconstruction weights used by `predict()`.
#' @param eigen_solver `"auto"` (default), `"dense"`, `"sparse"` or
#'   `"lobpcg"`. `"auto"`: dense LAPACK for small problems, shift-invert
#'   Lanczos on the sparse alignment matrix above, and from
#'   `getOption("manifoldOOS.fill_min_n", 2e4)` points on LOBPCG (Knyazev
#'   2001) preconditioned by smoothed-aggregation algebraic multigrid, with
#'   the constant vector deflated, when a symbolic analysis predicts an
#'   expensive factorisation of the alignment matrix (about \eqn{k^2}
#'   entries per row); from `getOption("manifoldOOS.lobpcg_min_n", 1e5)`
#'   points on after a screen on two patches of it (as in
#'   [laplacian_eigenmaps()]). `"sparse"` is always shift-invert,
#'   `"lobpcg"` always LOBPCG. The path taken is recorded in
#'   `fit$solver$method`, the prediction in `fit$solver$note`.
#' @param pca `NULL` (default) or the number of principal components to fit
#'   on: the columns are centred (and scaled, with `pca_scale = TRUE`) and
#'   reduced by [pca()] first (sparse matrices stay sparse); the projection
#'   is part of the fit and [predict()] applies it. See [manifoldOOS-input].
#' @param pca_scale With `pca`: scale the columns to unit variance first.
#' @param neighbors `NULL` (default: searched) or the neighbour lists of the
#'   training rows, `list(idx, dist)` as [knn()] returns them (from another
#'   tool, say): `n` rows, at least as many columns as the fit needs (`k`),
#'   nearest first, a point not listing itself (or listing itself first in
#'   every row, as a search that includes the point returns it; that column
#'   is dropped). The fit's neighbour graph is built from them; new points
#'   are searched exactly. See [manifoldOOS-input].
#' @param metric `"euclidean"` (default), `"cosine"` or `"correlation"`:
#'   with the last two the fit works on the rows scaled to unit length
#'   (centred first, for correlation), where Euclidean distance orders
#'   neighbours as the metric does. Recorded in the fit and applied to new
#'   rows by [predict()]. See [manifoldOOS-input].
#' @param verbose Report the stages of the fit with time-stamped messages
#'   (see [manifoldOOS-progress]).
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @return A `manifold_fit` of subclass `manifold_ltsa`, with the training
#'   data (`X_train`), `k`, `include_self`, `reg`, the eigenvalues (the
#'   dropped trivial one first), `n_duplicates`, `n_rank_deficient` (neighbourhoods
#'   whose `ndim`-th local singular value is at most 1e-6 times the first; a
#'   warning names them) and
#'   `solver` (eigen-solver diagnostics).
#' @seealso [manifold_fit], [lle()].
#' @export
#' @examples
#' roll <- swiss_roll(600, seed = 1)
#' fit <- ltsa(roll$x[1:500, ], ndim = 2, k = 10)
#' fit
#' y_new <- predict(fit, roll$x[501:600, ])
#' plot(fit, color = roll$color[1:500])
ltsa <- function(X, ndim = 2, k = 10, include_self = TRUE, reg = 1e-3,
                 eigen_solver = c("auto", "dense", "sparse", "lobpcg"),
                 knn_method = getOption("manifoldOOS.knn_method", "auto"),
                 pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                 verbose = getOption("manifoldOOS.verbose", FALSE)) {
  n <- fit_prologue(ndim_gap = 2L) %||% return(fit_input_model())
  include_self <- check_flag(include_self, "include_self")
  k <- check_k(k, if (include_self) n + 1L else n, min = if (include_self) 2L else 1L)
  if (k < ndim + 2L) {
    # a neighbourhood of ndim + 1 points is fitted exactly by its tangent
    # coordinates: every local block I - G G' is 0 and so is the alignment matrix
    abort_input("k", sprintf(paste0("must be at least ndim + 2 = %d (a neighbourhood of ndim + 1 points ",
                                    "carries no alignment information); got %d."), ndim + 2L, k))
  }
  reg <- check_number(reg, "reg", lower = 0)
  eigen_solver <- check_choice(eigen_solver, c("auto", "dense", "sparse", "lobpcg"), "eigen_solver")
  eig <- spectral_eig_opts(if (eigen_solver == "lobpcg") "sparse" else eigen_solver, 1e-10)
  eig$deflated <- switch(eigen_solver, lobpcg = "lobpcg", auto = "auto", "shift_invert")
  threads <- default_threads()
  t0 <- mo_progress(verbose, "LTSA: %d points x %d features -> %d dimensions (k = %d)", n, ncol(X), ndim, k)
  res <- timed({
    kn <- if (include_self) k - 1L else k
    nb <- local_neighbours(X, kn, knn_method)
    n_dup <- count_duplicates(X, nb$dist)
    warn_duplicates(n_dup, "LTSA")
    nbhd <- if (include_self) cbind(seq_len(n), nb$idx) else nb$idx
    storage.mode(nbhd) <- "integer"
    t1 <- mo_progress(verbose, "LTSA: nearest neighbours done (graph connected)", start = t0)
    mo_progress(verbose, "LTSA: local tangent spaces, alignment matrix and eigen-solve (eigen_solver = \"%s\")",
                eigen_solver)
    m <- core(.mo_ltsa_fit(X, nbhd, ndim, eig, threads))
    mo_progress(verbose, "LTSA: local tangent spaces and alignment matrix (%.0f non-zeros) %s, eigen-solve %s",
                m$nnz, format_seconds(round(m$seconds[["assembly"]], 3)), format_seconds(round(m$seconds[["eigen"]], 3)))
    mo_progress(verbose, "LTSA: eigen-solve done with %s", describe_solver(m$method), start = t1)
    m
  })
  m <- res$value
  mo_progress(verbose, "LTSA: done", start = t0)
  if (m$n_rank_deficient > 0) {
    warn_mo(sprintf(paste0("%d neighbourhood%s ha%s local rank below `ndim` = %d (the %d-th local ",
                           "singular value is at most 1e-6 times the first); the embedding may be unreliable."),
                    as.integer(m$n_rank_deficient), if (m$n_rank_deficient == 1) "" else "s",
                    if (m$n_rank_deficient == 1) "s" else "ve", ndim, ndim))
  }
  new_manifold_fit(
    class = "manifold_ltsa", method = "LTSA", embedding = m$Y, X = X,
    params = list(knn_method = knn_method, k = k, include_self = include_self, reg = reg),
    eigenvalues = c(m$dropped, m$values),
    oos_default = "reconstruction", oos_available = "reconstruction",
    fit_time = res$time, call = match.call(),
    X_train = X, k = k, include_self = include_self, reg = reg, n_duplicates = n_dup,
    n_rank_deficient = as.integer(m$n_rank_deficient), solver = solver_info(m)
  )
}

#' @export
predict_native.manifold_ltsa <- function(object, x, method, snap = TRUE, ...) {
  snap <- check_flag(snap, "snap")
  out <- predict_reconstruction(object, x, object$reg, snap)
  finish_prediction(out$y, method, snapped = out$snapped)
}

#' @export
summary_extra.manifold_ltsa <- function(object) {
  s <- spectral_summary(object)
  if (object$n_rank_deficient > 0L) {
    s <- structure(c(s, sprintf("rank-deficient neighbourhoods: %d", object$n_rank_deficient)),
                   class = "manifold_summary_lines")
  }
  s
}
