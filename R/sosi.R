# Supervised embeddings (supervised Laplacian eigenmaps, nonlinear Fisher
# ratio) and SOSI: semi-supervised out-of-sample interpolation with
# progressive addition of confident test points (Vural & Guillemot 2015).

# ---- labels -------------------------------------------------------------------

# Labels of the rows of X as a factor with no empty level; every class needs
# at least `min_per_class` samples.
check_labels <- function(labels, n, arg = "labels", min_per_class = 2L) {
  if (is.null(labels)) abort_input(arg, "must be given (one class label per row of `X`).")
  if (!is.atomic(labels) || is.matrix(labels)) abort_input(arg, "must be a vector or factor of class labels.")
  if (length(labels) != n) {
    abort_input(arg, sprintf("must have one entry per row of `X` (%d); it has %d.", n, length(labels)))
  }
  if (anyNA(labels)) abort_input(arg, "must not contain NA.")
  f <- droplevels(as.factor(labels))
  if (nlevels(f) < 2L) abort_input(arg, "must contain at least two classes.")
  tab <- table(f)
  if (any(tab < min_per_class)) {
    bad <- names(tab)[tab < min_per_class]
    abort_input(arg, sprintf("must have at least %d labelled samples in every class; class%s %s ha%s fewer.",
                             min_per_class, if (length(bad) > 1) "es" else "",
                             paste(utils::head(bad, 5), collapse = ", "),
                             if (length(bad) > 1) "ve" else "s"))
  }
  f
}

# Default graph width: mean squared pairwise distance of the rows of X.
mean_sq_dist <- function(X) {
  n <- nrow(X)
  s <- sum(X^2)
  cs <- colSums(X)
  2 * (n * s - sum(cs^2)) / (n * (n - 1))
}

# The checked arguments shared by supervised_le() and fisher_embedding() (in
# this order: `verbose`, the data and graphs, then 1 <= ndim <= n - ndim_gap).
supervised_setup <- function(X, labels, ndim, beta, graph, wb, k_within, k_between, verbose, ndim_gap) {
  verbose <- check_verbose(verbose)
  X <- as_data_matrix(X, "X", min_rows = 4L)
  f <- check_labels(labels, nrow(X))
  graph <- check_choice(graph, c("adaptive", "knn"), "graph")
  wb <- check_choice(wb, c("gaussian", "binary"), "wb")
  k_within <- check_number(k_within, "k_within", lower = 1, integer = TRUE)
  k_between <- check_number(k_between, "k_between", lower = 1, integer = TRUE)
  beta <- if (is.null(beta)) mean_sq_dist(X) else check_number(beta, "beta", lower = 0, lower_open = TRUE)
  if (!(beta > 0)) abort_input("X", "has all rows identical (zero mean squared distance).")
  list(X = X, f = f, codes = as.integer(f), graph = graph,
       graph_code = match(graph, c("adaptive", "knn")) - 1L, wb = wb, k_within = k_within,
       k_between = k_between, beta = beta, verbose = verbose, ndim = check_ndim(ndim, nrow(X) - ndim_gap))
}

# The core solver `solve()` of a supervised embedding (`label` names it in the
# progress lines), timed.
supervised_solve <- function(s, label, solve) {
  t0 <- mo_progress(s$verbose, "%s: %d points, %d classes -> %d dimensions (%s graphs)", label, nrow(s$X),
                    length(unique(s$codes)), s$ndim, s$graph)
  res <- timed(core(solve()))
  mo_progress(s$verbose, "%s: done", label, start = t0)
  res
}

supervised_fit <- function(s, m, class, method, params, call, time) {
  new_manifold_fit(
    class = c(class, "manifold_supervised"), method = method, embedding = m$Y, X = s$X,
    params = c(params, list(beta = s$beta, graph = s$graph, wb = s$wb)),
    eigenvalues = m$values, oos_default = "nystrom", oos_available = "nystrom",
    fit_time = time, call = call,
    X_train = s$X, labels = s$f, beta = s$beta, n_guarded = as.integer(m$n_guarded),
    dw = m$dw
  )
}

#' Supervised Laplacian eigenmaps and the nonlinear Fisher-like embedding
#'
#' Two supervised embeddings of labelled data built on a within-class graph
#' \eqn{W_w} and a between-class graph \eqn{W_b} (Raducanu and Dornaika
#' 2012; Vural and Guillemot 2015, eqs. 1 and 2). With the default
#' `graph = "adaptive"`, \eqn{S_{ij} = \exp(-\|x_i - x_j\|^2/\beta)}, the
#' neighbours of \eqn{x_i} are the points with \eqn{S_{ij}} above the row
#' mean of \eqn{S}; same-class neighbours give \eqn{W_w}, other-class ones
#' \eqn{W_b} (Gaussian weights, or 1 with `wb = "binary"`), both symmetrised.
#' `graph = "knn"` uses the `k_within` nearest same-class and `k_between`
#' nearest other-class points instead. A point without within-class
#' neighbour is joined to its nearest same-class point.
#'
#' `supervised_le()` solves \eqn{\min tr(Y^\top L_w Y) - \mu\, tr(Y^\top L_b Y)}
#' s.t. \eqn{Y^\top D_w Y = I}: the top eigenvectors of
#' \eqn{D_w^{-1/2}(W_w + \mu L_b) D_w^{-1/2}} mapped back by
#' \eqn{D_w^{-1/2}}. The constant vector is always an exact eigenvector
#' (eigenvalue 1); with `drop_trivial = TRUE` it is deflated exactly (projected
#' out of the symmetric problem), which equals computing `ndim + 1` vectors and
#' removing the constant one, and stays correct when the eigenvalue 1 is
#' degenerate (a class whose within-class graph is disconnected). The fit keeps
#' `Yfull` (the constant vector, then the embedding; \eqn{D_w}-orthonormal) and
#' `dw` (the degrees of \eqn{W_w}).
#'
#' `fisher_embedding()` maximises \eqn{z^\top L_b z / z^\top L_w z} without
#' the linear constraint: generalised eigenvectors of
#' \eqn{L_b z = \eta (L_w + \epsilon I) z}, \eqn{\epsilon} = `eps` times
#' \eqn{tr(L_w)/N}, top `ndim`, each rescaled to \eqn{z^\top D_w z = 1}.
#'
#' `predict()` uses the modified Nystrom rule of Vural and Guillemot (the
#' label-free kernel average \eqn{\sum_i \tilde M(x, x_i) y_i / \sum_j
#' \tilde M(x, x_j)} with \eqn{\tilde M(x, x_i) = \exp(-\|x - x_i\|^2/\beta)},
#' the graph's \eqn{\beta}); it is weak with the default \eqn{\beta} (it
#' averages towards the mean). [sosi()] is the out-of-sample rule designed
#' for these embeddings; the generic rules of [oos_map()] work too.
#'
#' @param X Labelled training data, one row per point.
#' @param labels Class labels of the rows of `X` (vector or factor; at least
#'   two classes, at least two samples per class).
#' @param ndim Embedding dimension.
#' @param mu Weight of the between-class term (`mu_between` of the paper).
#' @param beta Gaussian width of the graphs; `NULL`: the mean squared
#'   pairwise distance.
#' @param graph `"adaptive"` (Raducanu--Dornaika threshold) or `"knn"`.
#' @param wb Between-class weights: `"gaussian"` (the paper) or `"binary"`.
#' @param k_within,k_between Neighbour counts of `graph = "knn"`.
#' @param drop_trivial Remove the constant eigenvector.
#' @param pca `NULL` (default) or the number of principal components to fit
#'   on: the columns are centred (and scaled, with `pca_scale = TRUE`) and
#'   reduced by [pca()] first (sparse matrices stay sparse); the projection
#'   is part of the fit and [predict()] applies it. See [manifoldOOS-input].
#' @param pca_scale With `pca`: scale the columns to unit variance first.
#' @param metric `"euclidean"` (default), `"cosine"` or `"correlation"`:
#'   with the last two the fit works on the rows scaled to unit length
#'   (centred first, for correlation), where Euclidean distance orders
#'   neighbours as the metric does. Recorded in the fit and applied to new
#'   rows by [predict()]. See [manifoldOOS-input].
#' @param verbose Report the stages with time-stamped messages (see
#'   [manifoldOOS-progress]).
#' @return A `manifold_fit` of subclass `manifold_sle` or `manifold_fisher`
#'   (and `manifold_supervised`) storing `X_train`, `labels`, `beta`.
#' @seealso [sosi()]
#' @export
#' @examples
#' set.seed(1)
#' X <- rbind(matrix(rnorm(60, 0), 30), matrix(rnorm(60, 3), 30), matrix(rnorm(60, -3), 30))
#' lab <- rep(c("a", "b", "c"), each = 30)
#' fit <- supervised_le(X, lab, ndim = 2)
#' plot(fit, color = as.integer(factor(lab)))
#' fis <- fisher_embedding(X, lab, ndim = 2)
#' head(predict(fis, X[1:3, ] + 0.1))
supervised_le <- function(X, labels, ndim = 2, mu = 0.01, beta = NULL,
                          graph = c("adaptive", "knn"), wb = c("gaussian", "binary"),
                          k_within = 5, k_between = 5, drop_trivial = TRUE,
                          pca = NULL, pca_scale = FALSE, metric = "euclidean",
                          verbose = getOption("manifoldOOS.verbose", FALSE)) {
  if (needs_input_model()) return(fit_input_model())
  s <- supervised_setup(X, labels, ndim, beta, graph, wb, k_within, k_between, verbose, ndim_gap = 2L)
  mu <- check_number(mu, "mu", lower = 0)
  drop_trivial <- check_flag(drop_trivial, "drop_trivial")
  res <- supervised_solve(s, "S-LE", function() {
    .mo_sle_fit(s$X, s$codes, s$ndim, mu, s$beta, s$graph_code, s$k_within, s$k_between, s$wb == "binary",
                drop_trivial)
  })
  m <- res$value
  fit <- supervised_fit(s, m, "manifold_sle", "supervised Laplacian eigenmaps",
                        list(mu = mu, drop_trivial = drop_trivial), match.call(), res$time)
  fit$Yfull <- m$Yfull
  fit$dropped <- m$dropped
  fit
}

#' @rdname supervised_le
#' @param eps Relative regulariser of \eqn{L_w} (times \eqn{tr(L_w)/N}).
#' @export
fisher_embedding <- function(X, labels, ndim = 2, eps = 1e-6, beta = NULL,
                             graph = c("adaptive", "knn"), wb = c("gaussian", "binary"),
                             k_within = 5, k_between = 5,
                             pca = NULL, pca_scale = FALSE, metric = "euclidean",
                             verbose = getOption("manifoldOOS.verbose", FALSE)) {
  if (needs_input_model()) return(fit_input_model())
  s <- supervised_setup(X, labels, ndim, beta, graph, wb, k_within, k_between, verbose, ndim_gap = 1L)
  eps <- check_number(eps, "eps", lower = 0, lower_open = TRUE)
  res <- supervised_solve(s, "Fisher embedding", function() {
    .mo_fisher_fit(s$X, s$codes, s$ndim, eps, s$beta, s$graph_code, s$k_within, s$k_between, s$wb == "binary")
  })
  supervised_fit(s, res$value, "manifold_fisher", "nonlinear Fisher-like embedding",
                 list(eps = eps), match.call(), res$time)
}

#' @export
predict_native.manifold_supervised <- function(object, x, method, ...) {
  map <- oos_map(object$X_train, object$embedding, method = "lvm", k = object$n, beta = object$beta)
  y <- predict(map, x)
  attributes(y)[c("fallback", "certified", "far", "snapped")] <- NULL
  finish_prediction(y, method)
}

#' @export
summary_extra.manifold_supervised <- function(object) {
  per_dim <- apply(separable_pairs(object), 3, sum) / 2
  structure(c(sprintf("classes: %d", nlevels(object$labels)),
              sprintf("separable class pairs per dimension: %s", paste(per_dim, collapse = " "))),
            class = "manifold_summary_lines")
}

# ---- SOSI -----------------------------------------------------------------------

#' SOSI: semi-supervised out-of-sample interpolation
#'
#' Vural and Guillemot's out-of-sample extension for supervised embeddings
#' with joint labelling of the test set. Each embedding coordinate \eqn{k}
#' is interpolated by Gaussian RBFs \eqn{f^k(x) = \sum_l c_l^k
#' \exp(-\|x - a_l\|^2/\sigma_k^2)} centred at the data, coefficients solving
#' \eqn{\Phi^k c^k = y^k} exactly (Cholesky; a jitter from `jitter` is added
#' and escalated by 10 only when the factorisation fails).
#'
#' **Scale selection** (iteration 1, centres = labelled points). On a log
#' grid of `n_grid` scales from \eqn{0.25} times the median nearest-neighbour
#' distance to 4 times the median pairwise distance, the regulariser terms
#' \eqn{\hat G_k} (gradient norm over mean directional derivative towards the
#' neighbours) and \eqn{\hat D_k} (mean directional derivative towards
#' neighbours of separable classes over the same mean) are computed for
#' every dimension. `sigma_mode = "regularizer"` takes \eqn{\sigma_k =
#' \arg\min \hat G_k - \lambda \hat D_k} with \eqn{\lambda} by endpoint
#' balancing (the summed criterion equal at both grid ends) unless given
#' (with `refine = TRUE` each grid minimum is refined by golden-section search
#' in \eqn{\log\sigma} between its grid neighbours, to a bracket of width
#' `refine_tol`; the best scale evaluated is kept, so the refined criterion
#' is never above the grid minimum);
#' `"ratio"` (for the polarised Fisher embedding) the largest scale whose
#' \eqn{\hat D_k/\hat G_k} stays above `ratio_rel` times its maximum;
#' `"fixed"` uses `sigma`. Dimensions without separable class pairs get the
#' mean scale of the others, and all are clipped to mean +- `clip_sd` sd
#' (floored at the grid minimum).
#'
#' **Progressive stage.** Test points are labelled by the nearest training
#' embedding and given the confidence \eqn{\mu_i} = (distance to the nearest
#' training embedding of another class) / (distance to the nearest one).
#' In round \eqn{r} the \eqn{L_r - N} most confident test points (from round
#' \eqn{r - 1}) become extra centres, with targets the embedding of their
#' simplex-constrained projection onto the `K` nearest training points of
#' their estimated class; the interpolator is refitted with the round-1
#' scales and all test points are relabelled. The schedule adds equal shares
#' of the test points over `n_iter` rounds (or is given as `schedule`);
#' `stop_frac` stops once that fraction of test points are centres.
#' `n_iter = 1` is plain RBF fitting. With `reoptimize_sigma = TRUE` (footnote
#' 3 of the paper; the paper reports little change) the scales are selected
#' again in every later round by the same rule, with the round's centres and
#' targets (the regulariser still summed over the labelled points, the
#' round-1 \eqn{\lambda} and grid kept); this costs a grid search over
#' \eqn{L_r} centres per round.
#'
#' @param fit_or_Y A supervised `manifold_fit` ([supervised_le()],
#'   [fisher_embedding()]) or a training embedding matrix (`N x d`).
#' @param X Labelled data (`N x n`); with a fit that stores it, `NULL` takes
#'   the fit's training data.
#' @param labels Their labels; `NULL` takes the fit's.
#' @param X_unlabeled Unlabelled (test) data with the columns of `X`.
#' @param sigma_mode `"regularizer"`, `"ratio"` or `"fixed"`; `NULL`:
#'   `"ratio"` for a Fisher fit, else `"regularizer"`.
#' @param sigma Scales for `"fixed"` (one, or one per dimension).
#' @param lambda Weight of \eqn{\hat D}; `NULL`: endpoint balancing.
#' @param sigma_grid Scale grid; `NULL`: the default log grid.
#' @param n_grid Size of the default grid (at most 10000).
#' @param K Neighbours of the class projection.
#' @param K_dir Direction neighbours per class (`dir_neighbors =
#'   "per_class"`) or in total (`"global"`).
#' @param dir_neighbors `"per_class"` or `"global"`.
#' @param n_iter Number of rounds of the default schedule (reduced to one
#'   more than the number of unlabeled points when larger).
#' @param schedule Total number of centres per round (first `N`,
#'   increasing, last at most `N + nrow(X_unlabeled)`); overrides `n_iter`.
#' @param stop_frac Stop after the first round where this fraction of the
#'   test points are centres.
#' @param clip_sd Scale clipping width (standard deviations).
#' @param ratio_rel Threshold of `sigma_mode = "ratio"` relative to the
#'   per-dimension maximum ratio.
#' @param sep_quantile Quantile used for the per-class ranges defining the
#'   separable class pairs (0: min/max as in the paper).
#' @param ridge Ridge added to \eqn{\Phi} (0: interpolation).
#' @param jitter First jitter tried when a Cholesky factorisation fails.
#' @param refine Refine the grid minimum of `sigma_mode = "regularizer"` by
#'   golden-section search.
#' @param refine_tol Final bracket width of the refinement, in
#'   \eqn{\log\sigma}.
#' @param reoptimize_sigma Select the scales again in every progressive round
#'   (not with `sigma_mode = "fixed"`).
#' @param verbose Report the stages with time-stamped messages (see
#'   [manifoldOOS-progress]).
#' @param labels_unlabeled Optional true labels of `X_unlabeled`: the
#'   history then records the error of every round.
#' @return A `manifold_fit` of subclass `manifold_sosi` with `labels` and
#'   `confidence` of the unlabelled points, the interpolator (`centres`,
#'   `coef`, `sigma`), `history` (a data frame with `round`, `L`, `frac`,
#'   `error`, `jitter`), `rounds` (centres, labels, confidences and scales per
#'   round) and `diagnostics` (grid, \eqn{\hat G}, \eqn{\hat D},
#'   \eqn{\lambda}, separable-pair counts; with `refine = TRUE` also
#'   `sigma_grid_min`, `sigma_refined` and `crit_refined`, before clipping). `predict(fit, newdata)`
#'   returns the embedding of new points with attributes `labels` and
#'   `confidence`.
#' @seealso [supervised_le()], [regularizer_path()], [sosi_baselines()].
#' @export
#' @examples
#' set.seed(2)
#' t <- runif(80, -4, 4)
#' cls <- rep(1:2, 40)
#' X <- cbind(t, ifelse(cls == 1, 1, -1) + 0.5 * sin(t) + rnorm(80, sd = 0.05))
#' tr <- c(which(cls == 1)[1:6], which(cls == 2)[1:6])
#' emb <- supervised_le(X[tr, ], cls[tr], ndim = 1)
#' s <- sosi(emb, X_unlabeled = X[-tr, ], n_iter = 5)
#' mean(s$labels != cls[-tr])
#' attr(predict(s, X[1:3, ]), "labels")
sosi <- function(fit_or_Y, X = NULL, labels = NULL, X_unlabeled, sigma_mode = NULL, sigma = NULL,
                 lambda = NULL, sigma_grid = NULL, n_grid = 40, K = 5, K_dir = 5,
                 dir_neighbors = c("per_class", "global"), n_iter = 11, schedule = NULL,
                 stop_frac = 1, clip_sd = 2, ratio_rel = 0.5, sep_quantile = 0, ridge = 0,
                 jitter = 1e-10, labels_unlabeled = NULL, refine = FALSE, refine_tol = 0.01,
                 reoptimize_sigma = FALSE, verbose = getOption("manifoldOOS.verbose", FALSE)) {
  call <- match.call()
  verbose <- check_verbose(verbose)
  t0 <- proc.time()[["elapsed"]]
  is_fit <- inherits(fit_or_Y, "manifold_fit")
  inp <- sosi_data(fit_or_Y, X, labels, if (!missing(X_unlabeled)) X_unlabeled)
  if (is_fit && is.null(inp$X)) abort_input("X", "must be given: the fit does not store its training data.")
  X_unlabeled <- inp$X_unlabeled
  X <- as_data_matrix(inp$X, "X", min_rows = 4L)
  N <- nrow(X)
  Y <- as_embedding_matrix(inp$Y, N)
  f <- check_labels(inp$labels, N)
  codes <- as.integer(f)
  M <- nlevels(f)
  if (missing(X_unlabeled) || is.null(X_unlabeled)) {
    abort_input("X_unlabeled", "must be given: SOSI labels a set of unlabelled points.")
  }
  if ((is.matrix(X_unlabeled) || is.data.frame(X_unlabeled)) && nrow(X_unlabeled) == 0L) {
    abort_input("X_unlabeled", "is empty: SOSI needs at least one unlabelled point.")
  }
  Xu <- check_newdata(X_unlabeled, colnames(X), ncol(X), arg = "X_unlabeled")
  m <- nrow(Xu)
  d <- ncol(Y)
  if (is.null(sigma_mode)) {
    sigma_mode <- if (inherits(fit_or_Y, "manifold_fisher")) "ratio" else "regularizer"
  }
  sigma_mode <- check_choice(sigma_mode, c("regularizer", "ratio", "fixed"), "sigma_mode")
  dir_neighbors <- check_choice(dir_neighbors, c("per_class", "global"), "dir_neighbors")
  K <- check_number(K, "K", lower = 1, integer = TRUE)
  K_dir <- check_number(K_dir, "K_dir", lower = 1, integer = TRUE)
  n_grid <- check_number(n_grid, "n_grid", lower = 3, upper = 10000, integer = TRUE)
  # each round after the first adds at least one point: more rounds than that are not needed
  n_iter <- min(check_number(n_iter, "n_iter", lower = 1, integer = TRUE), m + 1L)
  stop_frac <- check_number(stop_frac, "stop_frac", lower = 0, upper = 1, lower_open = TRUE)
  clip_sd <- check_number(clip_sd, "clip_sd", lower = 0)
  ratio_rel <- check_number(ratio_rel, "ratio_rel", lower = 0, upper = 1, lower_open = TRUE)
  sep_quantile <- check_number(sep_quantile, "sep_quantile", lower = 0, upper = 0.5, upper_open = TRUE)
  ridge <- check_number(ridge, "ridge", lower = 0)
  jitter <- check_number(jitter, "jitter", lower = 0, lower_open = TRUE)
  if (!is.null(lambda)) lambda <- check_number(lambda, "lambda", lower = 0)
  refine <- check_flag(refine, "refine")
  refine_tol <- check_number(refine_tol, "refine_tol", lower = 0, upper = 10, lower_open = TRUE)
  reoptimize_sigma <- check_flag(reoptimize_sigma, "reoptimize_sigma")
  if (reoptimize_sigma && sigma_mode == "fixed") {
    abort_input("reoptimize_sigma", "needs sigma_mode \"regularizer\" or \"ratio\" (the scales are fixed).")
  }
  truth <- NULL
  if (!is.null(labels_unlabeled)) {
    if (length(labels_unlabeled) != m) {
      abort_input("labels_unlabeled", sprintf("must have one entry per row of `X_unlabeled` (%d).", m))
    }
    truth <- as.character(labels_unlabeled)
  }

  if (sigma_mode == "fixed") {
    if (is.null(sigma)) abort_input("sigma", "must be given when sigma_mode = \"fixed\".")
    if (!is.numeric(sigma) || !(length(sigma) %in% c(1L, d)) || any(!is.finite(sigma)) || any(sigma <= 0)) {
      abort_input("sigma", sprintf("must be one positive number or %d (one per dimension).", d))
    }
    sigma <- rep_len(as.numeric(sigma), d)
    sigma_grid <- NULL
  } else {
    sigma_grid <- check_sigma_grid(sigma_grid)
    sigma <- NULL
  }

  # schedule
  Q <- N + m
  if (is.null(schedule)) {
    schedule <- if (n_iter == 1L) N else N + round((seq_len(n_iter) - 1) / (n_iter - 1) * m)
  } else {
    schedule <- check_schedule(schedule, N, Q)
  }
  frac <- (schedule - N) / m
  stop_at <- which(frac >= stop_frac - 1e-12)
  if (length(stop_at)) schedule <- schedule[seq_len(stop_at[1])]
  mo_progress(verbose, "SOSI: %d labelled + %d unlabelled points, %d rounds (scales: %s)", N, m,
              length(schedule), sigma_mode)
  t_fit <- mo_progress(verbose, "SOSI: scale selection, progressive interpolation and labelling")
  res <- core(.mo_sosi_fit(X, codes, M, Y, Xu, sigma_mode, if (is.null(sigma)) numeric(0) else sigma,
                           if (is.null(sigma_grid)) numeric(0) else sigma_grid, n_grid,
                           if (is.null(lambda)) NaN else lambda, K_dir, dir_neighbors == "per_class",
                           clip_sd, ratio_rel, sep_quantile, ridge, jitter, refine, refine_tol,
                           reoptimize_sigma, as.integer(schedule), min(K, max(table(f)))))
  mo_progress(verbose, "SOSI: %d rounds done", length(res$rounds), start = t_fit)
  diag <- list(sigma_mode = sigma_mode)
  if (!is.null(res$scales)) {
    sel <- scale_diagnostics(res$scales)
    diag <- c(diag, sel[setdiff(names(sel), "sigma")])
  }

  lev <- levels(f)
  as_lab <- function(code) factor(lev[code], levels = lev)
  rounds <- lapply(res$rounds, function(r) {
    list(L = r$L, centres = r$centres, labels = as_lab(r$labels), confidence = r$confidence,
         jitter = r$jitter, sigma = r$sigma)
  })
  err <- vapply(rounds, function(r) if (is.null(truth)) NA_real_ else mean(as.character(r$labels) != truth),
                numeric(1))
  history <- data.frame(round = seq_along(rounds), L = vapply(rounds, `[[`, 0, "L"),
                        frac = (vapply(rounds, `[[`, 0, "L") - N) / m, error = err,
                        jitter = vapply(rounds, `[[`, 0, "jitter"))
  jit_max <- max(history$jitter)
  if (jit_max > 1e-6) {
    warn_mo(sprintf("the RBF kernel matrix needed a jitter of %.3g (above 1e-6): the interpolation is approximate.",
                    jit_max))
  }
  last <- rounds[[length(rounds)]]
  centres <- rbind(X, Xu[res$centres, , drop = FALSE])
  out <- new_manifold_fit(
    class = "manifold_sosi", method = "SOSI", embedding = Y, X = X,
    params = list(sigma_mode = sigma_mode, K = K, K_dir = K_dir, n_rounds = length(rounds),
                  stop_frac = stop_frac, ridge = ridge, refine = refine, reoptimize_sigma = reoptimize_sigma),
    oos_default = "sosi", oos_available = "sosi", fit_time = proc.time()[["elapsed"]] - t0, call = call,
    labels = last$labels, confidence = last$confidence, sigma = as.numeric(res$sigma),
    centres = unname(centres), coef = res$C, Ftrain = res$Ftrain, train_codes = codes, classes = lev,
    history = history, rounds = rounds, diagnostics = diag
  )
  if (is_fit && !is.null(fit_or_Y$input)) {
    # new rows go through the fit's input model first
    out$input <- fit_or_Y$input
    out$n_features <- fit_or_Y$n_features
    out$feature_names <- fit_or_Y$feature_names
  }
  out
}

# The embedding, training data, labels and unlabelled rows sosi() and
# regularizer_path() work on: those given or, from a fit, its embedding and
# (unless given) its training data and labels. Data given with a fit that has
# an input model (pca =, metric =) are read as the fit sees them.
sosi_data <- function(fit_or_Y, X, labels, X_unlabeled) {
  if (!inherits(fit_or_Y, "manifold_fit")) {
    return(list(Y = fit_or_Y, X = X, labels = labels, X_unlabeled = X_unlabeled))
  }
  fit <- fit_or_Y
  if (!is.null(fit$input)) {
    if (!is.null(X)) X <- fit_newdata(fit, X, "X", min_rows = 4L)
    if (!is.null(X_unlabeled)) X_unlabeled <- fit_newdata(fit, X_unlabeled, "X_unlabeled")
  }
  list(Y = embedding(fit), X = X %||% fit$X_train, labels = labels %||% fit$labels,
       X_unlabeled = X_unlabeled)
}

check_schedule <- function(schedule, N, Q) {
  if (!is.numeric(schedule) || !length(schedule) || anyNA(schedule) || any(schedule != round(schedule))) {
    abort_input("schedule", "must be a vector of whole numbers (total centres per round).")
  }
  schedule <- as.integer(schedule)
  if (schedule[1] != N || any(diff(schedule) <= 0) || schedule[length(schedule)] > Q) {
    abort_input("schedule", sprintf("must start at N = %d, increase strictly and not exceed %d.", N, Q))
  }
  schedule
}

# A user scale grid: NULL (the default grid) or at least two positive scales.
check_sigma_grid <- function(grid) {
  if (is.null(grid)) return(NULL)
  if (!is.numeric(grid) || length(grid) < 2L || any(!is.finite(grid)) || any(grid <= 0)) {
    abort_input("sigma_grid", "must be at least two positive scales.")
  }
  as.numeric(grid)
}

# The scale selection returned by the core, as the fit's diagnostics (the
# endpoint-balancing fallback is reported here).
scale_diagnostics <- function(sel) {
  if (isTRUE(sel$balancing_failed)) {
    warn_mo("endpoint balancing of lambda failed (D-hat does not grow over the grid); using sigma_mode = \"ratio\".")
  }
  sel$balancing_failed <- NULL
  sel
}

# Scale selection of SOSI (Vural & Guillemot, sec. 3) with the RBF interpolating targets Tg at
# centres A (the labelled points and their embedding in round 1); the
# regulariser is summed over the labelled points X. One core call (the
# default grid, the search, refinement and clipping are in the core).
select_sigma <- function(X, codes, M, Y, mode, grid, n_grid, lambda, K_dir, dir_neighbors, clip_sd,
                         ratio_rel, sep_quantile, ridge, jitter, refine = FALSE, refine_tol = 0.01,
                         A = X, Tg = Y) {
  grid <- check_sigma_grid(grid)
  sel <- core(.mo_sosi_select_scales(X, codes, M, unname(Y), unname(A), unname(Tg),
                                     if (is.null(grid)) numeric(0) else grid, n_grid, mode,
                                     if (is.null(lambda)) NaN else lambda, K_dir,
                                     dir_neighbors == "per_class", clip_sd, ratio_rel, sep_quantile,
                                     ridge, jitter, refine, refine_tol))
  scale_diagnostics(sel)
}

#' @export
predict_native.manifold_sosi <- function(object, x, method, ...) {
  y <- core(.mo_rbf_eval(object$centres, object$coef, object$sigma, x))
  lc <- core(.mo_nn_label_conf(y, object$Ftrain, object$train_codes))
  y <- finish_prediction(y, method)
  attr(y, "labels") <- factor(object$classes[lc$labels], levels = object$classes)
  attr(y, "confidence") <- lc$confidence
  y
}

#' @export
summary_extra.manifold_sosi <- function(object) {
  h <- object$history
  lines <- c(sprintf("unlabelled points: %d, rounds: %d, final centres: %d", length(object$labels),
                     nrow(h), nrow(object$centres)),
             sprintf("scales: %s", paste(signif(object$sigma, 3), collapse = " ")))
  if (!all(is.na(h$error))) {
    lines <- c(lines, sprintf("error by round: %s", paste(sprintf("%.3f", h$error), collapse = " ")))
  }
  structure(lines, class = "manifold_summary_lines")
}

#' Regulariser of SOSI along a common RBF scale
#'
#' For each common scale \eqn{\sigma} in `sigma_grid`, the RBF interpolator
#' of the training embedding (centres = the labelled points) and its
#' regulariser terms \eqn{\hat G}, \eqn{\hat D} and \eqn{\hat R = \hat G -
#' \lambda \hat D}, summed over dimensions (Fig. 9 of Vural and Guillemot).
#'
#' @inheritParams sosi
#' @param sigma_grid Scales; `NULL`: the default grid of [sosi()].
#' @param lambda Weight of \eqn{\hat D}; `NULL`: endpoint balancing.
#' @param X_unlabeled,labels_unlabeled Optional test points and their true
#'   labels: the misclassification rate of RBF fitting (1-NN in the
#'   embedding) at each scale is then added as column `error`.
#' @param truncate Drop the top of the grid from the first scale whose kernel
#'   matrix needs a jitter above `1e-8` (as [sosi()] does).
#' @return A data frame with `sigma`, `G`, `D`, `R`, `jitter` (and `error`),
#'   with attributes `lambda` and `G_dim`, `D_dim` (per-dimension terms).
#' @export
#' @examples
#' set.seed(3)
#' X <- rbind(matrix(rnorm(40), 20), matrix(rnorm(40, 3), 20))
#' lab <- rep(1:2, each = 20)
#' fit <- supervised_le(X, lab, ndim = 1)
#' rp <- regularizer_path(fit, n_grid = 10)
#' rp
regularizer_path <- function(fit_or_Y, X = NULL, labels = NULL, sigma_grid = NULL, n_grid = 40,
                             lambda = NULL, K_dir = 5, dir_neighbors = c("per_class", "global"),
                             sep_quantile = 0, X_unlabeled = NULL, labels_unlabeled = NULL,
                             truncate = TRUE) {
  inp <- sosi_data(fit_or_Y, X, labels, X_unlabeled)
  X_unlabeled <- inp$X_unlabeled
  X <- as_data_matrix(inp$X, "X", min_rows = 4L)
  Y <- as_embedding_matrix(inp$Y, nrow(X))
  f <- check_labels(inp$labels, nrow(X))
  n_grid <- check_number(n_grid, "n_grid", lower = 2, upper = 10000, integer = TRUE)
  K_dir <- check_number(K_dir, "K_dir", lower = 1, integer = TRUE)
  dir_neighbors <- check_choice(dir_neighbors, c("per_class", "global"), "dir_neighbors")
  grid <- if (is.null(sigma_grid)) core(.mo_sosi_default_grid(X, n_grid)) else sort(as.numeric(sigma_grid))
  if (!length(grid) || any(!is.finite(grid)) || any(grid <= 0)) abort_input("sigma_grid", "must be positive scales.")
  g <- core(.mo_sosi_grid(X, as.integer(f), unname(Y), X, unname(Y), grid, nlevels(f), K_dir,
                          dir_neighbors == "per_class", sep_quantile, 0, 1e-10))
  if (truncate) {
    keep <- seq_len(g$n_keep)
    grid <- grid[keep]
    g$G <- g$G[keep, , drop = FALSE]
    g$D <- g$D[keep, , drop = FALSE]
    g$jitter <- g$jitter[keep]
  }
  Gs <- rowSums(g$G)
  Ds <- rowSums(g$D)
  ng <- length(grid)
  if (is.null(lambda)) {
    den <- Ds[ng] - Ds[1]
    lambda <- if (den > 0) (Gs[ng] - Gs[1]) / den else 0
  }
  out <- data.frame(sigma = grid, G = Gs, D = Ds, R = Gs - lambda * Ds, jitter = g$jitter)
  if (!is.null(X_unlabeled)) {
    Xu <- check_newdata(X_unlabeled, colnames(X), ncol(X), arg = "X_unlabeled")
    if (is.null(labels_unlabeled) || length(labels_unlabeled) != nrow(Xu)) {
      abort_input("labels_unlabeled", "must give the true label of every row of `X_unlabeled`.")
    }
    out$error <- vapply(grid, function(s) {
      sig <- rep(s, ncol(Y))
      fit <- core(.mo_rbf_interpolate(X, unname(Y), sig, 0, 1e-10))
      Fu <- core(.mo_rbf_eval(X, fit$C, sig, Xu))
      lab <- embedding_labels(Fu, Y, f)$labels
      mean(as.character(lab) != as.character(labels_unlabeled))
    }, 0)
  }
  attr(out, "lambda") <- lambda
  attr(out, "G_dim") <- g$G
  attr(out, "D_dim") <- g$D
  out
}

#' Class pairs separated by each embedding dimension
#'
#' The separable ordered class pairs \eqn{I^k} of Vural and Guillemot: class
#' \eqn{m} and \eqn{p} are separable in dimension \eqn{k} when their ranges of
#' the training embedding (between the `q` and `1 - q` quantiles) do not
#' overlap. SOSI's regulariser rewards derivatives towards those classes.
#'
#' @param fit A [supervised_le()] or [fisher_embedding()] fit.
#' @param q Quantile of the per-class ranges (0: min and max).
#' @return A logical array `M x M x ndim` (classes in the order of
#'   `levels(fit$labels)`).
#' @export
#' @examples
#' set.seed(1)
#' X <- rbind(matrix(rnorm(40), 20), matrix(rnorm(40, 4), 20), matrix(rnorm(40, -4), 20))
#' fit <- supervised_le(X, rep(1:3, each = 20), ndim = 2)
#' apply(separable_pairs(fit), 3, sum) / 2
separable_pairs <- function(fit, q = 0) {
  if (!inherits(fit, "manifold_supervised")) {
    abort_input("fit", "must be a supervised_le() or fisher_embedding() fit.")
  }
  q <- check_number(q, "q", lower = 0, upper = 0.5, upper_open = TRUE)
  f <- fit$labels
  I <- .mo_separable_pairs(unname(embedding(fit)), as.integer(f), nlevels(f), q)
  I <- array(I > 0L, dim(I), dimnames = list(levels(f), levels(f), colnames(embedding(fit))))
  I
}
