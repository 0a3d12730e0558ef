# Novelty scores: how far new points lie from the training data, calibrated
# on the training points by leave-one-out.

#' Novelty scores of new points
#'
#' Every out-of-sample rule extrapolates silently: a point far from the
#' training manifold still gets coordinates. `novelty_scores()` says how
#' unusual each new point is compared with the training points, so that
#' such predictions can be flagged; `predict(fit, newdata, novelty = TRUE)`
#' attaches the same scores to the predictions as `attr(y, "novelty")`, and
#' [plot()][plot.manifold_fit()] with `novelty = TRUE` marks the flagged points.
#'
#' The score of a new point `x` is `d_k(x) / t`: `d_k(x)` is the Euclidean
#' distance from `x` to its `k`-th nearest training point (in the input
#' space), and `t` is the `quantile` (default 0.99) of the leave-one-out
#' distances `d_k(x_i)` of the training points themselves (the `k`-th nearest
#' *other* training point; [stats::quantile()] type 7). A score above 1 means
#' "farther from the training data than all but a fraction `1 - quantile` of
#' the training points are from the rest"; for a new point drawn from the
#' training distribution the probability of a score above 1 is about
#' `1 - quantile`. The threshold is fixed by the training data, so each row's
#' score does not depend on the other rows (batch = row by row). When more
#' than a fraction `quantile` of the training points have `d_k = 0`
#' (duplicates), `t` is the smallest positive `d_k`.
#'
#' The scores depend only on the training data and `k`, not on the
#' embedding: they measure distance to the data the fit has seen, which is
#' what every out-of-sample rule relies on. Cost: one `k`-nearest-neighbour
#' search of the training data on itself and one for the new points.
#'
#' @param fit A `manifold_fit`.
#' @param newdata New observations: a numeric matrix or data frame with the
#'   training columns.
#' @param X The training data, needed unless the fit stores it (see
#'   [reconstruct()] for the fits that do).
#' @param k Neighbour whose distance is scored, in `[1, n - 1]`; default 10
#'   (or `n - 1` for fewer than 11 training points).
#' @param quantile Quantile of the training leave-one-out distances used as
#'   the threshold, in `(0, 1]`.
#' @return A numeric vector with one score per row of `newdata` (names from
#'   its row names) and attributes `threshold` (`t`), `k` and `quantile`.
#' @seealso [predict.manifold_fit()] (`novelty = TRUE`).
#' @export
#' @examples
#' roll <- swiss_roll(600, seed = 1)
#' fit <- isomap(roll$x[1:500, ], ndim = 2, k = 10)
#' s <- novelty_scores(fit, roll$x[501:600, ])
#' mean(s > 1)                      # held-out points on the roll: few flagged
#' far <- roll$x[501:510, ] + matrix(c(0, 0, 8), 10, 3, byrow = TRUE)
#' novelty_scores(fit, far) > 1     # displaced off the roll: flagged
#' y <- predict(fit, far, novelty = TRUE)
#' attr(y, "novelty")
novelty_scores <- function(fit, newdata, X = NULL, k = 10, quantile = 0.99) {
  if (!inherits(fit, "manifold_fit")) abort_input("fit", "must be a fitted model (a manifold_fit).")
  novelty_fitted(fit, fit_newdata(fit, newdata), X = X, k = k, quantile = quantile)
}

# The scores of rows already read into the space the fit was made in (by
# fit_newdata(): after its PCA step and metric).
novelty_fitted <- function(fit, x, X = NULL, k = 10, quantile = 0.99) {
  Xt <- training_data(fit, X, "novelty scores")
  n <- nrow(Xt)
  k <- if (is.null(k)) min(10L, n - 1L) else check_k(k, n, "k")
  quantile <- check_number(quantile, "quantile", lower = 0, upper = 1, lower_open = TRUE)
  # the neighbour search of the fit (exact for fits that record none)
  d_train <- fit_knn(fit, Xt, k)$dist[, k]
  thr <- stats::quantile(d_train, quantile, names = FALSE, type = 7)
  if (!(thr > 0)) {
    if (!any(d_train > 0)) {
      abort_input("X", sprintf(paste0("(the training data) has no point with a positive distance to its ",
                                      "%d-th neighbour (duplicates); novelty scores need a larger `k`."), k))
    }
    thr <- min(d_train[d_train > 0])
  }
  s <- fit_knn(fit, Xt, k, query = unname_matrix(x))$dist[, k] / thr
  names(s) <- rownames(x)
  structure(s, threshold = thr, k = k, quantile = quantile)
}

# predict(novelty = ): TRUE, or a list of arguments of novelty_scores().
predict_novelty <- function(object, x, novelty, X = NULL) {
  if (isTRUE(novelty)) {
    args <- list()
  } else if (is.list(novelty) && (!length(novelty) || (!is.null(names(novelty)) &&
             all(names(novelty) %in% c("k", "quantile", "X"))))) {
    args <- novelty
  } else {
    abort_input("novelty", "must be TRUE, FALSE or a list of arguments of novelty_scores() (k, quantile, X).")
  }
  if (is.null(args$X)) args$X <- X
  # x is already in the fitted space
  do.call(novelty_fitted, c(list(fit = object, x = x), args))
}
