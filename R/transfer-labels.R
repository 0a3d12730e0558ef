# Annotations of the training points carried over to new points by their
# nearest training neighbours, with a confidence and a novelty flag.

#' Transfer labels and annotations from the training points to new points
#'
#' Places `newdata` with the fit ([predict()]), finds each new point's `k`
#' nearest training points, and carries their annotations over: a class
#' label by (weighted) vote, with the share of the vote, the runner-up and
#' its share; a numeric annotation (pseudotime, a score) as the weighted mean
#' of the neighbours' values, with their weighted standard deviation as its
#' spread. New points unlike every training point are left unassigned: the
#' novelty score of [novelty_scores()] (the distance to the `k`-th nearest
#' training point in the input space, relative to the training points'
#' own) flags them.
#'
#' **Neighbours.** `space = "input"` (default) searches the input space the
#' fit was made in (after its `pca =` and `metric =`; for a fit made from
#' distances, the given distances), with the fit's own neighbour search;
#' `space = "embedding"` searches the predicted coordinates among the
#' training embedding, so the labels follow the embedding and its
#' out-of-sample rule (`method`). A low-dimensional embedding drawn for the
#' eye merges neighbourhoods the input space keeps apart: on real
#' single-cell data (PBMCs of three technologies, see
#' `vignette("reference-mapping")`) the votes in the reference's 30
#' principal components were right for 96 % of the query cells, those in a
#' two-dimensional Laplacian eigenmap for 91 %. Weights: `"uniform"` (one vote per neighbour)
#' or `"distance"`, \eqn{w_j = \exp(-d_j^2 / (2 d_k^2))} with \eqn{d_k} the
#' distance of the `k`-th neighbour (nearer neighbours count more; every
#' weight is at least \eqn{e^{-1/2}} of the largest).
#'
#' **Ties** in a vote go to the label of the nearer neighbour.
#'
#' **Unassigned.** A point whose novelty score exceeds `novelty_threshold`
#' (default 1: farther from the training data than 99 % of the training
#' points are from the rest), or whose winning share is below `min_share`,
#' gets `NA` in `label` (the vote's winner stays in `predicted`), and `NA`
#' means for numeric annotations. `novelty_threshold = Inf` assigns every
#' point.
#'
#' @param fit A `manifold_fit` (any method; any rule through `method`).
#' @param newdata New observations, as for [predict()].
#' @param labels The annotations of the training points, one per training
#'   row: a vector (factor, character or logical: a label; numeric: a numeric
#'   annotation) or a data frame of several such columns.
#' @param k Number of nearest training points that vote.
#' @param space `"input"` or `"embedding"` (see Details).
#' @param method The out-of-sample rule of [predict()] (`NULL`: the fit's
#'   default).
#' @param weights `"uniform"` or `"distance"` (see Details).
#' @param novelty_threshold Novelty score above which a point is left
#'   unassigned (`Inf`: never).
#' @param min_share Smallest share of the vote for a label to be assigned, in
#'   `[0, 1]`.
#' @param X The training data, for fits that do not store it (see
#'   [novelty_scores()]).
#' @param ... Further arguments of [predict()] (`chunk_size`, `parallel`, or
#'   the rule's own arguments).
#' @return A data frame with one row per row of `newdata` (its row names)
#'   and, for every annotation `a` (named `label` when `labels` is a vector):
#'   for a label, columns `a` (the assigned label, `NA` when unassigned),
#'   `a_predicted` (the vote's winner), `a_share`, `a_runner_up` and
#'   `a_runner_up_share`; for a numeric annotation, `a` (the weighted mean)
#'   and `a_sd`. Then `novelty` (the score) and `novel` (the flag). The
#'   predicted coordinates are in the attribute `"embedding"`.
#' @seealso [predict.manifold_fit()], [novelty_scores()], [knn()].
#' @export
#' @examples
#' roll <- swiss_roll(500, seed = 1)
#' part <- cut(roll$color, 3, labels = c("start", "middle", "end"))  # a label along the roll
#' fit <- laplacian_eigenmaps(roll$x[1:400, ], ndim = 2, k = 10)
#' tl <- transfer_labels(fit, roll$x[401:500, ], part[1:400])
#' head(tl)
#' mean(tl$label == part[401:500], na.rm = TRUE)
#' # a numeric annotation: the position along the roll
#' head(transfer_labels(fit, roll$x[401:500, ], data.frame(t = roll$color[1:400]))[, c("t", "t_sd")])
#' # a point unlike the training data is left unassigned
#' transfer_labels(fit, rbind(c(40, 40, 40)), part[1:400])[, c("label", "label_predicted", "novel")]
transfer_labels <- function(fit, newdata, labels, k = 15, space = c("input", "embedding"),
                            method = NULL, weights = c("uniform", "distance"),
                            novelty_threshold = 1, min_share = 0, X = NULL, ...) {
  if (!inherits(fit, "manifold_fit")) abort_input("fit", "must be a fitted model (a manifold_fit).")
  validate_fit(fit, arg = "fit")
  space <- check_choice(space, c("input", "embedding"), "space")
  weights <- check_choice(weights, c("uniform", "distance"), "weights")
  if (!identical(novelty_threshold, Inf)) {
    novelty_threshold <- check_number(novelty_threshold, "novelty_threshold", lower = 0, lower_open = TRUE)
  }
  min_share <- check_number(min_share, "min_share", lower = 0, upper = 1)
  ann <- transfer_annotations(labels, fit$n)
  k <- check_k(k, fit$n)
  scored <- is.finite(novelty_threshold)
  if (scored && !is_distance_fit(fit) && is.null(X) && is.null(fit[["X_train"]]) && is.null(fit[["x_train"]])) {
    abort_input("X", sprintf(paste0("(the training data) is needed for the novelty scores: this %s fit does not ",
                                    "store it. Pass `X = X_train`, or novelty_threshold = Inf to assign every point."),
                             fit$method))
  }
  y <- predict(fit, newdata, method = method, ..., X = X,
               novelty = if (scored) list(k = min(10L, fit$n - 1L)) else FALSE)
  m <- nrow(y)
  score <- if (scored) attr(y, "novelty") else rep(NA_real_, m)
  nb <- if (space == "embedding") {
    knn(unname(embedding(fit)), k, query = unname_matrix(y), method = "exact")
  } else {
    x <- fit_newdata(fit, newdata)
    Xt <- if (is_distance_fit(fit)) NULL else training_data(fit, X, "space = \"input\" (or use space = \"embedding\")")
    fit_knn(fit, Xt, k, query = if (is_distance_fit(fit)) x else unname_matrix(x))
  }
  w <- if (weights == "uniform") {
    matrix(1, m, k)
  } else {
    dk <- nb$dist[, k]
    dk[!(dk > 0)] <- 1
    exp(-(nb$dist / dk)^2 / 2)
  }
  novel <- if (scored) !(score <= novelty_threshold) else rep(FALSE, m)
  out <- list()
  for (a in names(ann)) {
    v <- ann[[a]]
    if (is.numeric(v)) {
      out <- c(out, transfer_numeric(a, v, nb$idx, w, novel))
    } else {
      out <- c(out, transfer_vote(a, v, nb$idx, w, novel, min_share))
    }
  }
  res <- as.data.frame(out, stringsAsFactors = FALSE, optional = TRUE)
  res$novelty <- as.numeric(score)
  res$novel <- novel
  rownames(res) <- if (is.null(rownames(y))) NULL else rownames(y)
  attr(y, "novelty") <- NULL
  structure(res, embedding = y, k = k, space = space, novelty_threshold = novelty_threshold)
}

# The annotations as a named list of columns (vector -> "label"), each
# checked against the n training points.
transfer_annotations <- function(labels, n) {
  cols <- if (is.data.frame(labels)) {
    as.list(labels)
  } else if (is.atomic(labels) && is.null(dim(labels))) {
    list(label = labels)
  } else {
    abort_input("labels", "must be a vector or a data frame with one annotation per training point.")
  }
  if (!length(cols)) abort_input("labels", "holds no annotation.")
  for (a in names(cols)) {
    v <- cols[[a]]
    what <- if (length(cols) > 1L) sprintf(" (column `%s`)", a) else ""
    if (length(v) != n) {
      abort_input("labels", sprintf("must have one value per training point (%d)%s; it has %d.", n, what,
                                    length(v)))
    }
    if (!(is.numeric(v) || is.factor(v) || is.character(v) || is.logical(v))) {
      abort_input("labels", sprintf("must hold labels (factor, character, logical) or numbers%s.", what))
    }
    if (is.numeric(v) && any(!is.finite(v[!is.na(v)]))) {
      abort_input("labels", sprintf("must hold finite numbers%s.", what))
    }
    if (all(is.na(v))) abort_input("labels", sprintf("has no known value%s.", what))
  }
  cols
}

# Weighted vote of the neighbours' labels (NA labels do not vote): winner,
# share, runner-up; ties go to the label met first among the sorted
# neighbours.
transfer_vote <- function(a, v, idx, w, novel, min_share) {
  lev <- if (is.factor(v)) levels(v) else sort(unique(as.character(v[!is.na(v)])))
  code <- match(as.character(v), lev)
  m <- nrow(idx)
  k <- ncol(idx)
  cn <- matrix(code[idx], m, k)
  known <- !is.na(cn)
  total <- rowSums(w * known)
  best <- second <- rep(NA_integer_, m)
  best_s <- second_s <- rep(-1, m)
  best_p <- second_p <- rep(Inf, m)
  for (c in seq_along(lev)) {
    hit <- known & cn == c
    s <- rowSums(w * hit)
    first <- max.col(cbind(hit, TRUE), ties.method = "first")  # first position holding c
    present <- s > 0
    beats_best <- present & (s > best_s | (s == best_s & first < best_p))
    beats_second <- present & !beats_best & (s > second_s | (s == second_s & first < second_p))
    # the old winner becomes the runner-up
    second[beats_best] <- best[beats_best]
    second_s[beats_best] <- best_s[beats_best]
    second_p[beats_best] <- best_p[beats_best]
    best[beats_best] <- c
    best_s[beats_best] <- s[beats_best]
    best_p[beats_best] <- first[beats_best]
    second[beats_second] <- c
    second_s[beats_second] <- s[beats_second]
    second_p[beats_second] <- first[beats_second]
  }
  share <- ifelse(total > 0, pmax(best_s, 0) / total, NA_real_)
  share2 <- ifelse(total > 0 & !is.na(second), second_s / total, 0)
  as_label <- function(i) {
    out <- lev[i]
    if (is.factor(v)) factor(out, levels = lev) else if (is.logical(v)) as.logical(out) else out
  }
  pred <- as_label(best)
  assigned <- pred
  assigned[novel | is.na(share) | share < min_share] <- NA
  stats::setNames(list(assigned, pred, share, as_label(second), share2),
                  c(a, paste0(a, c("_predicted", "_share", "_runner_up", "_runner_up_share"))))
}

# Weighted mean and standard deviation of the neighbours' numbers (NA values
# left out).
transfer_numeric <- function(a, v, idx, w, novel) {
  m <- nrow(idx)
  vals <- matrix(v[idx], m, ncol(idx))
  w <- w * !is.na(vals)
  vals[is.na(vals)] <- 0
  tot <- rowSums(w)
  mu <- rowSums(w * vals) / tot
  sd <- sqrt(pmax(rowSums(w * (vals - mu)^2) / tot, 0))
  mu[novel | !(tot > 0)] <- NA_real_
  sd[novel | !(tot > 0)] <- NA_real_
  stats::setNames(list(mu, sd), c(a, paste0(a, "_sd")))
}
