# broom-style tidiers for fits: tidy(), glance(), augment(). The generics
# come from the generics package (Suggests); the methods are registered
# lazily, like the recipes methods in R/recipes.R.

#' Tidy a fitted embedding
#'
#' Methods for the \pkg{generics} verbs (also used by \pkg{broom} and
#' tidymodels; generics must be installed):
#' * `tidy()` returns the training embedding, one row per training point
#'   (`.row`, its row name `.rownames` when the training data had row
#'   names, and `Dim1`, ..., `Dimq`), or with `matrix = "eigenvalues"` one
#'   row per embedding dimension with its eigenvalue and the eigenvalue's
#'   share of the kept ones.
#' * `glance()` returns one row describing the fit: `method`, `n`,
#'   `n_features`, `ndim`, `k` (`NA` when the method has no neighbourhood
#'   size), `oos_default` (the default out-of-sample rule), `fit_time`
#'   (seconds) and the key diagnostics the fit stores (`NA` when it does
#'   not): `eigen_solver` (which solver path was used), `solver_residual`,
#'   `n_duplicates`, `negative_mass` (share of negative eigenvalue mass,
#'   Isomap and MDS), `graph_components` (kNN-graph components before
#'   connecting). The columns are the same for every method, so glances of
#'   several fits can be bound together with [rbind()].
#' * `augment()` returns `newdata` with the predicted coordinates appended
#'   as `.Dim1`, ..., `.Dimq` (`predict(x, newdata, method = method)`);
#'   `newdata` may contain further columns (labels, ids), which are kept,
#'   as long as it contains the training columns. Without `newdata`, `data`
#'   (the training data, or any data frame with one row per training point)
#'   gets the training embedding appended instead.
#'
#' The results are tibbles when \pkg{tibble} is installed, data frames
#' otherwise.
#'
#' @param x A `manifold_fit`.
#' @param matrix `"embedding"` (default) or `"eigenvalues"`.
#' @param data Optional data frame with one row per training point, returned
#'   with the training embedding appended (when `newdata` is `NULL`).
#' @param newdata Optional new observations with the training columns (and
#'   possibly others), returned with their predicted coordinates appended.
#' @param method Out-of-sample rule for `newdata` (`NULL`: the fit's
#'   default).
#' @param ... Passed to [predict()][predict.manifold_fit] by `augment()`
#'   with `newdata`; must be empty otherwise (an argument nothing uses is an
#'   error of class `manifoldOOS_dots_error`).
#' @return A tibble (or data frame); see Details.
#' @name tidy.manifold_fit
#' @examples
#' if (requireNamespace("generics", quietly = TRUE)) {
#'   roll <- swiss_roll(300, seed = 1)
#'   fit <- isomap(roll$x[1:250, ], ndim = 2, k = 10)
#'   head(generics::tidy(fit))
#'   generics::tidy(fit, matrix = "eigenvalues")
#'   generics::glance(fit)
#'   new <- data.frame(roll$x[251:300, ], t = roll$color[251:300])
#'   head(generics::augment(fit, newdata = new))
#' }
NULL

#' @rdname tidy.manifold_fit
#' @exportS3Method generics::tidy
tidy.manifold_fit <- function(x, matrix = c("embedding", "eigenvalues"), ...) {
  check_dots(..., fun = "tidy()")
  matrix <- check_choice(matrix, c("embedding", "eigenvalues"), "matrix")
  if (matrix == "eigenvalues") {
    ev <- x$eigenvalues
    if (is.null(ev)) abort_input("matrix", sprintf("= \"eigenvalues\": this %s fit stores no eigenvalues.", x$method))
    # spectral fits store the dropped trivial eigenvalue first
    if (length(ev) == x$ndim + 1L) ev <- ev[-1L]
    ev <- utils::head(ev, x$ndim)
    out <- data.frame(component = paste0("Dim", seq_along(ev)), eigenvalue = ev,
                      share = ev / sum(ev), stringsAsFactors = FALSE)
    return(as_tidy_frame(out))
  }
  Y <- embedding(x)
  out <- data.frame(.row = seq_len(nrow(Y)), stringsAsFactors = FALSE)
  if (!is.null(rownames(Y))) out$.rownames <- rownames(Y)
  emb <- as.data.frame(unname(Y))
  names(emb) <- colnames(Y)
  as_tidy_frame(cbind(out, emb))
}

#' @rdname tidy.manifold_fit
#' @exportS3Method generics::glance
glance.manifold_fit <- function(x, ...) {
  check_dots(..., fun = "glance()")
  num <- function(v) if (is.numeric(v) && length(v) == 1L) as.numeric(v) else NA_real_
  k <- x$params$k %||% x$k
  solver <- x$solver
  out <- data.frame(
    method = x$method, n = as.integer(x$n), n_features = as.integer(x$n_features),
    ndim = as.integer(x$ndim), k = if (is.numeric(k) && length(k) == 1L) as.integer(k) else NA_integer_,
    oos_default = x$oos$default, fit_time = num(x$fit_time),
    eigen_solver = if (is.null(solver)) NA_character_ else describe_solver(solver),
    solver_residual = if (is.list(solver)) num(solver$residual) else NA_real_,
    n_duplicates = if (is.null(x$n_duplicates)) NA_integer_ else as.integer(x$n_duplicates),
    negative_mass = num(x$negative_mass),
    graph_components = if (is.list(x$graph)) as.integer(num(x$graph$n_components)) else NA_integer_,
    stringsAsFactors = FALSE)
  if (identical(out$eigen_solver, "(solver not reported)")) out$eigen_solver <- NA_character_
  as_tidy_frame(out)
}

#' @rdname tidy.manifold_fit
#' @exportS3Method generics::augment
augment.manifold_fit <- function(x, data = NULL, newdata = NULL, method = NULL, ...) {
  if (!is.null(newdata)) {
    if (!is.data.frame(newdata) && !is.matrix(newdata)) abort_input("newdata", "must be a data frame or a matrix.")
    feats <- x$feature_names
    input <- if (is.data.frame(newdata) && !is.null(feats) && all(feats %in% names(newdata))) {
      newdata[, feats, drop = FALSE]
    } else {
      newdata
    }
    Y <- predict(x, input, method = method, ...)
    df <- as_augment_frame(newdata, "newdata")
  } else {
    check_dots(..., fun = "augment()", context = "without `newdata` nothing is predicted")
    Y <- embedding(x)
    if (is.null(data)) {
      df <- data.frame(.row = seq_len(nrow(Y)))
    } else {
      df <- as_augment_frame(data, "data")
      if (nrow(df) != nrow(Y)) {
        abort_input("data", sprintf("must have one row per training point (%d); it has %d. Use `newdata` for new points.",
                                    nrow(Y), nrow(df)))
      }
    }
  }
  emb <- as.data.frame(unname(as.matrix(Y)))
  names(emb) <- paste0(".", colnames(embedding(x)))
  rownames(emb) <- NULL
  rn <- rownames(df)
  out <- cbind(df, emb)
  if (!is.null(rn) && !identical(rn, as.character(seq_len(nrow(df))))) rownames(out) <- rn
  as_tidy_frame(out)
}

as_augment_frame <- function(d, arg) {
  if (is.data.frame(d)) return(as.data.frame(d))
  if (is.matrix(d)) {
    out <- as.data.frame(d)
    if (is.null(colnames(d))) names(out) <- sprintf("X%d", seq_len(ncol(d)))
    return(out)
  }
  abort_input(arg, "must be a data frame or a matrix.")
}

as_tidy_frame <- function(df) {
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(df) else df
}
