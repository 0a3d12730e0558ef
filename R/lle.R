#' Locally linear embedding
#'
#' Roweis & Saul's LLE. Every point is written as an affine combination of its
#' `k` nearest neighbours with weights \eqn{w_i} minimising
#' \eqn{\|x_i - \sum_j w_{ij} x_j\|^2} subject to \eqn{\sum_j w_{ij} = 1};
#' the local Gram matrix \eqn{C} is always regularised as
#' \eqn{C + \mathrm{reg}\,\mathrm{tr}(C) I} (or \eqn{C + \mathrm{reg}\, I} when
#' \eqn{\mathrm{tr}(C) = 0}), which keeps the weights invariant to rotation,
#' translation and uniform scaling of `X` and makes duplicated or collinear
#' neighbours harmless. The embedding is given by the bottom eigenvectors of
#' \eqn{M = (I - W)^\top (I - W)} after the constant vector (the exact null
#' vector of \eqn{M}) is removed.
#'
#' **Eigen-solver.** `eigen_solver = "auto"` uses dense LAPACK up to
#' `min(getOption("manifoldOOS.dense_max_n", 2000),
#' getOption("manifoldOOS.dense_sparse_max_n", 500))` points and a sparse
#' shift-invert Lanczos solver above (shift \eqn{-10^{-10}\,\mathrm{tr}(M)/n},
#' never 0: \eqn{M} is exactly singular; the shift is that small because the
#' bottom eigenvalues of \eqn{M} are tiny and clustered for large `n`). `"dense"` and `"sparse"` force a
#' path; both give the same embedding up to rounding (up to a rotation inside
#' degenerate eigenspaces).
#'
#' **Trivial vector.** The constant eigenvector is dropped only after checking
#' that it is one (eigenvalue below \eqn{10^{-13}\,\mathrm{tr}(M)/n} and
#' direction within \eqn{10^{-6}} of the constant). When several eigenvalues
#' are that small — which is what exactly flat data give as `reg` tends to 0 —
#' or the solver mixes the constant with a nearly degenerate neighbour, the
#' constant direction is projected out of the span of the bottom
#' eigenvectors.
#' More than `ndim + 1` null eigenvalues means the embedding is undetermined
#' and is an error.
#'
#' **Regulariser and flat data.** The regulariser biases the weights: on a
#' noiseless plane the embedding is an affine image of the plane coordinates
#' only for a small `reg` (relative affine-fit residual about 2e-4 at
#' `reg = 1e-6`, but about 0.14 at the default `1e-3`).
#'
#' **Out-of-sample maps** (`predict(fit, newdata, method = )`):
#' * `"reconstruction"` (default; Saul & Roweis 2003): the new point's
#'   reconstruction weights \eqn{w(x)} over its `k` nearest training points
#'   (same `reg`), then \eqn{y(x) = \sum_j w_j(x) y_j}.
#' * `"nystrom"` (Bengio et al. 2004): the Nyström extension of the
#'   eigenvectors of \eqn{\tilde M = I - M}, whose kernel row for a new point is
#'   its reconstruction-weight vector:
#'   \eqn{y_k(x) = \sum_j w_j(x) y_{jk} / (1 - \lambda_k)}. It differs from
#'   `"reconstruction"` by the factor \eqn{1/(1 - \lambda_k)}, within about
#'   \eqn{10^{-3}} of 1 for typical fits. (The constant in \eqn{\tilde M = cI - M}
#'   is taken as \eqn{c = 1}; the original papers are not explicit about it.)
#'
#' Both accept `snap = TRUE` (default): a new point identical to a training
#' point gets that point's coordinates exactly. Without snapping, training
#' points are reproduced only approximately (their neighbour set now contains
#' themselves).
#'
#' **Variants** (`variant =`):
#' * `"standard"`: Roweis & Saul's LLE as described above.
#' * `"modified"` (Zhang & Wang 2006, MLLE): every point uses several
#'   linearly independent weight vectors. With \eqn{Z_i} the differences
#'   from \eqn{x_i} to its neighbours, \eqn{\lambda_1 \ge \lambda_2 \ge \dots}
#'   the eigenvalues of \eqn{Z_i Z_i^\top} and
#'   \eqn{\rho_i = \sum_{j > d} \lambda_j / \sum_{j \le d} \lambda_j}, the
#'   size \eqn{s_i} of the "almost null" space of neighbourhood \eqn{i} is
#'   the largest number of trailing eigenvalues whose sum, divided by the sum
#'   of the others, stays below \eqn{\eta = \mathrm{median}_i\, \rho_i}
#'   (at least 1). The \eqn{s_i} bottom eigenvectors \eqn{V_i}, a Householder
#'   reflection \eqn{H_i} with \eqn{H_i V_i^\top 1 = \alpha_i 1}
#'   (\eqn{\alpha_i = \|V_i^\top 1\| / \sqrt{s_i}}) and the regularised LLE
#'   weights \eqn{w_i} (same `reg`) give the weight block
#'   \eqn{W_i = V_i H_i + (1 - \alpha_i) w_i 1^\top} (columns summing to
#'   one); \eqn{M = \sum_i \hat W_i \hat W_i^\top} with \eqn{\hat W_i} equal to
#'   \eqn{W_i} on the neighbours and \eqn{-1} at \eqn{x_i}. This is the rule of
#'   scikit-learn's `method = "modified"`, whose regulariser is fixed at
#'   `reg = 1e-3` (the default here).
#' * `"hessian"` (Donoho & Grimes 2003, Hessian eigenmaps): on each
#'   neighbourhood (the `k` neighbours of \eqn{x_i}, without \eqn{x_i},
#'   centred) the `ndim` leading left singular vectors \eqn{U} give local
#'   tangent coordinates; the \eqn{d(d+1)/2} products \eqn{U_a U_b}
#'   (\eqn{a \le b}), orthonormalised against the constant and \eqn{U},
#'   estimate the tangent Hessian, and \eqn{M} sums the projectors onto their
#'   span. The null space of \eqn{M} holds the constant and, for a manifold
#'   isometric to a connected open subset of \eqn{R^d}, the isometric
#'   coordinates. It needs \eqn{k \ge 1 + d + d(d+1)/2}; `reg` is not used by
#'   the fit (only by `predict()`). Note that scikit-learn (1.2) computes a
#'   full QR factorisation at this step, so that its `method = "hessian"`
#'   projects onto the whole orthogonal complement of the constant and \eqn{U}
#'   and its result equals its `method = "ltsa"` (here: [ltsa()] with
#'   `include_self = FALSE`); this function keeps Donoho & Grimes' reduced
#'   factorisation (the same as scikit-learn's code with an economy-size QR).
#'
#' The variants share the neighbour search, the connectivity check, the
#' eigen-solver and trivial-vector rule of the standard variant, and the
#' reconstruction out-of-sample rule (`"nystrom"` is specific to the
#' standard variant: its kernel is built from the single weight vector of
#' each point).
#'
#' **Bad input.** A disconnected neighbourhood graph (its `"or"`
#' symmetrisation) is an error that names the smallest `k` connecting it.
#' Duplicated rows are kept with a warning (the regulariser keeps the local
#' systems solvable); their number is stored as `n_duplicates`.
#'
#' @param X Training data: a numeric matrix or data frame, one row per point.
#' @param ndim Embedding dimension.
#' @param k Number of nearest neighbours.
#' @param reg Regulariser of the local Gram matrices, relative to their trace.
#' @param scaling Column scaling of the embedding: `"unit_norm"` (each column
#'   has unit Euclidean norm, as scikit-learn) or `"unit_cov"` (columns scaled
#'   by \eqn{\sqrt{n}}, so that \eqn{Y^\top Y / n = I}, as the original code).
#' @param eigen_solver `"auto"`, `"dense"` or `"sparse"` (see Details).
#' @param variant `"standard"` (Roweis & Saul), `"modified"` (Zhang & Wang's
#'   MLLE) or `"hessian"` (Donoho & Grimes' Hessian LLE); see Details.
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
#' @return A `manifold_fit` of subclass `manifold_lle`, with the training data
#'   (`X_train`), `k`, `reg`, the eigenvalues (the dropped trivial one first),
#'   `n_duplicates`, `solver` (eigen-solver diagnostics) and `variant`;
#'   a modified fit also stores the sizes \eqn{s_i} (`s_modified`), a Hessian
#'   fit the number of neighbourhoods whose quadratic terms are rank deficient
#'   (`n_rank_deficient`).
#' @seealso [manifold_fit] for the methods of the returned object, [ltsa()],
#'   [laplacian_eigenmaps()].
#' @export
#' @examples
#' roll <- swiss_roll(600, seed = 1)
#' fit <- lle(roll$x[1:500, ], ndim = 2, k = 10)
#' fit
#' y_new <- predict(fit, roll$x[501:600, ])
#' plot(fit, color = roll$color[1:500])
#' # Hessian and modified LLE recover the S-curve's isometric chart
#' s <- s_curve(600)
#' fit_h <- lle(s$x[1:500, ], ndim = 2, k = 10, variant = "hessian")
#' affine_r2(embedding(fit_h), s$truth[1:500, ])
#' affine_r2(embedding(lle(s$x[1:500, ], ndim = 2, k = 10)), s$truth[1:500, ])
#' fit_m <- lle(s$x[1:500, ], ndim = 2, k = 10, variant = "modified")
#' head(predict(fit_m, s$x[501:600, ]))
lle <- function(X, ndim = 2, k = 10, reg = 1e-3, scaling = c("unit_norm", "unit_cov"),
                eigen_solver = c("auto", "dense", "sparse"),
                variant = c("standard", "modified", "hessian"),
                knn_method = getOption("manifoldOOS.knn_method", "auto"),
                pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                verbose = getOption("manifoldOOS.verbose", FALSE)) {
  n <- fit_prologue(ndim_gap = 2L) %||% return(fit_input_model())
  k <- check_k(k, n)
  reg <- check_number(reg, "reg", lower = 0)
  scaling <- check_choice(scaling, c("unit_norm", "unit_cov"), "scaling")
  eigen_solver <- check_choice(eigen_solver, c("auto", "dense", "sparse"), "eigen_solver")
  variant <- check_choice(variant, c("standard", "modified", "hessian"), "variant")
  if (variant != "standard") {
    return(lle_variant(X, ndim, k, reg, scaling, eigen_solver, variant, verbose, match.call(),
                       knn_method = knn_method))
  }
  threads <- default_threads()
  t0 <- mo_progress(verbose, "LLE: %d points x %d features -> %d dimensions (k = %d)", n, ncol(X), ndim, k)
  res <- timed({
    nb <- local_neighbours(X, k, knn_method)
    n_dup <- count_duplicates(X, nb$dist)
    warn_duplicates(n_dup, "LLE")
    t1 <- mo_progress(verbose, "LLE: nearest neighbours done (graph connected)", start = t0)
    mo_progress(verbose, "LLE: reconstruction weights and eigen-solve (eigen_solver = \"%s\")", eigen_solver)
    m <- core(.mo_lle_fit(X, nb$idx, reg, ndim, spectral_eig_opts(eigen_solver, 1e-10), threads))
    mo_progress(verbose, "LLE: weights %s, alignment matrix %s, eigen-solve %s",
                format_seconds(round(m$seconds[["weights"]], 3)), format_seconds(round(m$seconds[["assembly"]], 3)),
                format_seconds(round(m$seconds[["eigen"]], 3)))
    mo_progress(verbose, "LLE: eigen-solve done with %s", describe_solver(m$method), start = t1)
    m
  })
  m <- res$value
  mo_progress(verbose, "LLE: done", start = t0)
  Y <- apply_scaling(m$Y, scaling)
  new_manifold_fit(
    class = "manifold_lle", method = "LLE", embedding = Y, X = X,
    params = list(knn_method = knn_method, k = k, reg = reg, scaling = scaling),
    eigenvalues = c(m$dropped, m$values),
    oos_default = "reconstruction", oos_available = c("reconstruction", "nystrom"),
    fit_time = res$time, call = match.call(),
    X_train = X, k = k, reg = reg, scaling = scaling, n_duplicates = n_dup,
    solver = solver_info(m), variant = "standard"
  )
}

#' @export
predict_native.manifold_lle <- function(object, x, method, snap = TRUE, ...) {
  snap <- check_flag(snap, "snap")
  out <- predict_reconstruction(object, x, object$reg, snap)
  if (method == "nystrom") {
    ell <- 1 - object$eigenvalues[-1L]
    keep <- out$snapped
    y <- sweep(out$y, 2L, ell, "/")
    y[keep, ] <- out$y[keep, ]
    out$y <- y
  }
  finish_prediction(out$y, method, snapped = out$snapped)
}

#' @export
summary_extra.manifold_lle <- function(object) spectral_summary(object)

# ---- helpers shared by lle(), ltsa() and laplacian_eigenmaps() ----------------

# Self-kNN lists of X with the connectivity check of ?neighbor_graph (the "or"
# symmetrisation of the kNN relation must be connected; the error names the
# smallest k that connects it).
local_neighbours <- function(X, k, knn_method = "exact") {
  g <- neighbor_graph(X, k = k, symmetrize = "none", weights = "binary",
                       on_disconnected = "error", knn_method = knn_method)
  list(idx = g$idx, dist = g$dist)
}

# Number of surplus copies of duplicated rows (n minus the number of distinct
# rows), using the kNN distances to look only at rows that have a twin.
count_duplicates <- function(X, dist1) {
  twin <- which(dist1[, 1L] == 0)
  if (!length(twin)) return(0L)
  sum(duplicated(X[twin, , drop = FALSE]))
}

warn_duplicates <- function(n_dup, method) {
  if (n_dup > 0L) {
    warn_mo(sprintf(paste0("`X` has %d duplicated row%s; they are kept (%s treats copies as ",
                           "distinct points at distance 0)."),
                    n_dup, if (n_dup == 1L) "" else "s", method),
            class = "manifoldOOS_duplicates_warning")
  }
}

# Eigen-solver options. LLE's M and LTSA's B have tiny, clustered bottom
# eigenvalues that shrink with n (about 1e-12 ... 1e-10 at n = 50,000 on a
# Swiss roll): they use a shift of -1e-10 tr/n (never 0; far above rounding
# level), which keeps the shift-inverted eigenvalues well separated. Graph
# Laplacians use the adapter's default shift (-1e-6 tr/n).
spectral_eig_opts <- function(eigen_solver, shift_eps = 1e-6) {
  # bottom pairs of a sparse matrix: LAPACK's full decomposition only up to
  # min(dense_max_n, dense_sparse_max_n) points (at n = 2000 it takes about 12 s
  # against 0.05 s for shift-invert Lanczos with the same eigenvectors)
  eig_opts(method = switch(eigen_solver, auto = "auto", dense = "dense", sparse = "iterative"),
           dense_max_n = sparse_dense_max_n(),
           shift_eps = shift_eps)
}

# Largest n solved by dense LAPACK for the bottom pairs of a sparse matrix.
sparse_dense_max_n <- function() {
  min(getOption("manifoldOOS.dense_max_n", 2000L), getOption("manifoldOOS.dense_sparse_max_n", 500L))
}

apply_scaling <- function(Y, scaling) {
  if (identical(scaling, "unit_cov")) Y * sqrt(nrow(Y)) else Y
}

solver_info <- function(m) {
  list(method = m$method, residual = m$residual, note = m$note,
       n_null = if (is.null(m$n_null)) NA_integer_ else as.integer(m$n_null))
}

spectral_summary <- function(object) {
  s <- object$solver
  lines <- c(sprintf("eigen-solver: %s (relative residual %s)", s$method,
                     if (is.finite(s$residual) && s$residual >= 0) format(signif(s$residual, 3)) else "n/a"))
  if (!is.null(s$note) && nzchar(s$note)) lines <- c(lines, paste("note:", s$note))
  if (!is.null(object$n_duplicates) && object$n_duplicates > 0L) {
    lines <- c(lines, sprintf("duplicated rows: %d", object$n_duplicates))
  }
  structure(lines, class = "manifold_summary_lines")
}

#' @export
print.manifold_summary_lines <- function(x, ...) {
  check_dots(..., fun = "print()")
  cat(paste0("  ", x, collapse = "\n"), "\n", sep = "")
  invisible(x)
}

# Reconstruction-weight map (Saul & Roweis 2003) for a fit storing X_train, k and its
# embedding. Returns list(y, snapped).
predict_reconstruction <- function(object, x, reg, snap) {
  threads <- default_threads()
  nb <- fit_knn(object, object$X_train, object$k, query = x, n_threads = threads)
  snap_dist <- if (snap) nb$dist else matrix(0, 0, 0)
  W <- core(.mo_reconstruction_weights(object$X_train, x, nb$idx, reg, snap_dist, threads))
  y <- core(.mo_reconstruct_embedding(unname(object$embedding), nb$idx, W))
  list(y = y, snapped = if (snap) nb$dist[, 1L] == 0 else rep(FALSE, nrow(x)))
}

finish_prediction <- function(y, method, far = NULL, snapped = NULL) {
  y <- as.matrix(y)
  attr(y, "oos") <- method
  if (!is.null(far)) attr(y, "far") <- as.logical(far)
  if (!is.null(snapped)) attr(y, "snapped") <- as.logical(snapped)
  y
}
