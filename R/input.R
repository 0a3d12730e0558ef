# What a fit does to its input before it sees it: sparse matrices, the
# distance metric and PCA first. One home for the input model of every fit
# (the `input` component), applied again by predict() and every other
# function that takes new rows.

#' Sparse input, distance metrics and PCA first
#'
#' Every fitting function of the package and [oos_map()] take three arguments
#' that say how the data are read before the method sees them. They are
#' stored in the fit (component `input`) and applied again, the same way, to
#' every row given to [predict()][predict.manifold_fit], [predict_file()],
#' [novelty_scores()] and [reconstruct()], so a fitted model always places new
#' rows from the space it was fitted in.
#'
#' * **Sparse matrices.** A `dgCMatrix` (or any other sparse matrix of
#'   \pkg{Matrix}, converted to it) is accepted wherever data are. [knn()]
#'   searches sparse rows exactly without a dense copy, and [pca()] computes
#'   the principal components of a sparse matrix with implicit centring (and
#'   optional scaling), without a dense copy either. A method that needs
#'   dense features (all of the embeddings) makes a dense copy only when it
#'   is smaller than `getOption("manifoldOOS.dense_limit")` bytes (default:
#'   half of the memory available when the call starts); beyond that the
#'   call stops with an error of class `manifoldOOS_dense_error` that names
#'   `pca =`, the documented route: reduce the columns first.
#' * **`pca = n`**: centre the columns (and scale them with
#'   `pca_scale = TRUE`), keep the first `n` principal components
#'   (sparse-aware, as [pca()]) and fit on the scores, as \pkg{uwot}'s
#'   `pca =` and \pkg{Rtsne}'s `pca = TRUE` do. The projection is part of the
#'   model: `predict()` projects new rows (sparse or dense) first.
#'   `reconstruct()` maps back through the projection.
#' * **`metric`**: `"euclidean"` (default), `"cosine"` or `"correlation"`.
#'   Cosine compares the directions of the rows, correlation the directions
#'   of the rows after subtracting each row's mean (Pearson correlation of
#'   the profiles). A fit with either works on the rows scaled to unit
#'   length (after centring each row, for correlation; after the PCA step,
#'   when there is one), where the Euclidean distance is the chord
#'   \eqn{\sqrt{2 (1 - s)}}{sqrt(2 (1 - s))} of the similarity \eqn{s}: the
#'   same neighbours, and a true metric, so geodesic and kernel methods keep
#'   their meaning. So `isomap(X, metric = "cosine")` equals
#'   `isomap(X / sqrt(rowSums(X^2)))` exactly. [knn()] and [neighbor_graph()]
#'   also take `"manhattan"`; the fitting functions do not yet, and say so
#'   with a classed error. A row of zeros (constant row, for correlation) has
#'   no direction: an input error naming the row.
#'
#' [knn()] reports distances in the metric's own units: \eqn{1 - s} for
#' cosine and correlation (as scikit-learn does), the sum of absolute
#' differences for Manhattan.
#'
#' @name manifoldOOS-input
#' @seealso [pca()], [knn()]
#' @examples
#' set.seed(1)
#' X <- matrix(rexp(300 * 40), 300, 40)
#' # cosine neighbours: the Euclidean fit on the rows scaled to unit length
#' a <- laplacian_eigenmaps(X, ndim = 2, k = 10, metric = "cosine")
#' b <- laplacian_eigenmaps(X / sqrt(rowSums(X^2)), ndim = 2, k = 10)
#' all.equal(embedding(a), embedding(b))
#' # PCA first: the projection is kept and applied by predict()
#' S <- Matrix::rsparsematrix(300, 200, density = 0.05)
#' fit <- isomap(S[1:250, ], ndim = 2, k = 10, pca = 10)
#' fit
#' head(predict(fit, S[251:300, ]))
NULL

input_metrics <- c("euclidean", "cosine", "correlation", "manhattan")

check_metric <- function(metric, arg = "metric", allowed = input_metrics) {
  if (is.character(metric) && length(metric) == length(input_metrics) &&
      identical(metric, input_metrics)) {
    metric <- "euclidean"
  }
  if (identical(metric, distance_metric) && !distance_metric %in% allowed) {
    abort_input(arg, distances_hint("= \"precomputed\" is not available here"))
  }
  check_choice(metric, allowed, arg)
}

is_sparse_input <- function(x) inherits(x, "sparseMatrix")

# Bytes a dense copy may take: getOption("manifoldOOS.dense_limit"), else half
# of the memory available now (Inf where that cannot be read).
dense_limit <- function() {
  lim <- getOption("manifoldOOS.dense_limit")
  if (!is.null(lim)) return(as.numeric(lim))
  avail <- available_memory()
  if (is.na(avail)) Inf else avail / 2
}

# A dense copy of a Matrix object, refused (class manifoldOOS_dense_error)
# before it is attempted when it would exceed dense_limit().
densify <- function(x, arg) {
  bytes <- 8 * as.numeric(nrow(x)) * as.numeric(ncol(x))
  lim <- dense_limit()
  if (bytes > lim) {
    stop(structure(
      class = c("manifoldOOS_dense_error", "manifoldOOS_memory_error", "manifoldOOS_input_error",
                "manifoldOOS_error", "error", "condition"),
      list(message = sprintf(paste0(
        "`%s` is a sparse %d x %d matrix whose dense copy would need %.2f GB, more than the ",
        "limit of %.2f GB (option manifoldOOS.dense_limit). Reduce the columns first with ",
        "`pca =` (for example pca = 50), or pass the scores of pca()."),
        arg, nrow(x), ncol(x), bytes / 1e9, lim / 1e9),
        call = NULL, arg = arg, needed = bytes, available = lim)))
  }
  if (inherits(x, "sparseMatrix")) {
    x <- to_dgc(x, arg)
    check_sparse_values(x, arg)
  }
  as.matrix(x)
}

# A sparse matrix as a dgCMatrix with finite values, at least `min_rows` rows.
as_sparse_input <- function(x, arg = "X", min_rows = 3L) {
  x <- to_dgc(x, arg)
  if (nrow(x) < min_rows) {
    abort_input(arg, sprintf("must have at least %d rows; it has %d.", min_rows, nrow(x)))
  }
  if (ncol(x) < 1L) abort_input(arg, "must have at least one column.")
  check_sparse_values(x, arg)
  x
}

# Any sparse matrix of Matrix as a dgCMatrix (pattern and logical entries
# become 1/0, symmetric and triangular ones are expanded).
to_dgc <- function(x, arg) {
  tryCatch(as(as(as(x, "CsparseMatrix"), "generalMatrix"), "dMatrix"),
           error = function(e) abort_input(arg, sprintf("could not be read as a numeric sparse matrix: %s",
                                                        conditionMessage(e))))
}

check_sparse_values <- function(x, arg) {
  v <- x@x
  if (anyNA(v) || any(is.infinite(v))) {
    e <- which(!is.finite(v))[1]
    col <- findInterval(e - 1L, x@p, left.open = FALSE, rightmost.closed = FALSE)
    row <- x@i[e] + 1L
    abort_input(arg, sprintf("must not contain NA, NaN or Inf (first at row %d, column %d).", row, col))
  }
  if (length(v) && max(abs(v)) > 1e150) {
    abort_input(arg, sprintf(paste0("has entries too large in magnitude (max |x| = %.3g): squared ",
                                    "distances would overflow. Rescale the data."), max(abs(v))))
  }
  invisible(x)
}

# Row norms for the cosine and correlation metrics (after centring each row,
# for correlation), for a dense or a sparse matrix; zero norms are an error.
metric_row_scale <- function(x, metric, arg) {
  if (is_sparse_input(x)) {
    ss <- Matrix::rowSums(x^2)
    if (metric == "correlation") ss <- ss - Matrix::rowSums(x)^2 / ncol(x)
  } else {
    if (metric == "correlation") x <- x - rowMeans(x)
    ss <- rowSums(x^2)
  }
  nrm <- sqrt(pmax(ss, 0))
  bad <- which(!(nrm > 0))
  if (length(bad)) {
    abort_input(arg, sprintf(paste0("has %d row%s with no direction for metric = \"%s\" (a row of ",
                                    "%s; first: row %d): the %s distance is undefined there."),
                             length(bad), if (length(bad) > 1) "s" else "", metric,
                             if (metric == "cosine") "zeros" else "equal values", bad[1], metric))
  }
  nrm
}

# The rows as the Euclidean computations of a fit see them under `metric`:
# unchanged, scaled to unit length (cosine) or centred and scaled (correlation).
# Dense in, dense out.
metric_rows <- function(x, metric, arg = "X") {
  if (metric %in% c("euclidean", "manhattan")) return(x)
  nrm <- metric_row_scale(x, metric, arg)
  if (metric == "correlation") x <- x - rowMeans(x)
  x / nrm
}

# ---- the input model of a fit -------------------------------------------------

check_pca_dims <- function(pca, p, n, arg = "pca") {
  if (is.null(pca)) return(NULL)
  if (isFALSE(pca)) return(NULL)
  check_number(pca, arg, lower = 1, upper = min(n, p), integer = TRUE)
  as.integer(pca)
}

# Reads X as a fit's front end does: returns the dense matrix the method fits
# on (`x`) and the input model (`input`) that predict() applies to new rows.
prepare_input <- function(X, pca = NULL, metric = "euclidean", pca_scale = FALSE, min_rows = 3L) {
  metric <- check_metric(metric, allowed = c("euclidean", "cosine", "correlation"))
  pca_scale <- check_flag(pca_scale, "pca_scale")
  source <- NULL
  if (is_container(X)) {
    # a SingleCellExperiment or Seurat object: one row per cell
    ci <- as_cell_input(X)
    X <- ci$x
    source <- ci$source
  }
  sparse <- is_sparse_input(X)
  X <- if (sparse) as_sparse_input(X, "X", min_rows = min_rows) else as_data_matrix(X, "X", min_rows = min_rows)
  p <- ncol(X)
  ndim <- check_pca_dims(pca, p, nrow(X))
  input <- list(n_features = p, feature_names = colnames(X), metric = metric, pca = NULL, source = source)
  x <- X
  if (!is.null(ndim)) {
    pf <- pca(X, ndim = ndim, scale = pca_scale)
    input$pca <- list(center = pf$center, scale = pf$scale, rotation = unname(pf$rotation),
                      sdev = pf$sdev[seq_len(ndim)], scaled = pca_scale)
    x <- pf$embedding
    colnames(x) <- paste0("PC", seq_len(ndim))
  } else if (sparse) {
    x <- densify(X, "X")
  }
  x <- metric_rows(x, metric, "X")
  list(x = x, input = structure(input, class = "manifold_input"))
}

# New rows, checked against the fit's training columns (matched by name when
# named) and mapped into the space the method was fitted in.
fit_newdata <- function(object, newdata, arg = "newdata", min_rows = 1L, missing = "error") {
  input <- object$input
  if (is_distance_fit(object)) {
    return(query_distances(newdata, object$n, object$feature_names, arg, min_rows))
  }
  # a container is read as the fit read its training data
  if (is_container(newdata)) newdata <- as_cell_input(newdata, input$source, arg)$x
  sparse_ok <- !is.null(input$pca) || inherits(object, "manifold_pca")
  x <- check_newdata(newdata, object$feature_names, object$n_features, arg = arg,
                     sparse_ok = sparse_ok, min_rows = min_rows, missing = missing)
  # PCA itself projects sparse rows; its input model only names the source
  if (inherits(object, "manifold_pca") && is.null(input$pca)) return(x)
  apply_input(input, x, arg)
}

apply_input <- function(input, x, arg = "newdata") {
  if (is.null(input)) return(x)
  if (identical(input$metric, distance_metric)) return(check_distance_values(x, arg))
  rn <- rownames(x)
  if (!is.null(input$pca)) {
    pc <- input$pca
    x <- if (is_sparse_input(x)) {
      core(.mo_pca_sparse_project(x, pc$center, pc$scale, pc$rotation, default_threads()))
    } else {
      core(.mo_pca_project(unname(x), pc$center, pc$scale, pc$rotation))
    }
    dimnames(x) <- list(rn, paste0("PC", seq_len(ncol(x))))
  } else if (is_sparse_input(x)) {
    x <- densify(x, arg)
  }
  metric_rows(x, input$metric, arg)
}

# The inverse of the PCA step (rows in the fitted space back to the input
# columns); the metric's row scaling is not undone.
invert_input <- function(input, y) {
  if (is.null(input$pca)) return(y)
  pc <- input$pca
  z <- y %*% t(pc$rotation)
  z <- sweep(z, 2L, pc$scale, "*")
  sweep(z, 2L, pc$center, "+")
}

# The `pca =` of the linear projections, whose TRUE / FALSE / "always" name
# their own PCA step: a number is the front end's PCA-first.
pca_dims <- function(pca) if (is.numeric(pca)) pca else NULL

# ---- the opening of a fitting function ------------------------------------------
#
# A fitting function opens with one line (two when it takes distances):
#
#   n <- fit_prologue(ndim_gap = 2L) %||% return(fit_input_model())
#
# fit_prologue() (R/validate.R) checks X, verbose, knn_method and ndim in
# place and returns the number of rows; it returns NULL instead when X must
# first be read by the input front end (`pca =`, a metric other than
# Euclidean, a sparse matrix, a container, given `neighbors`), and the
# function then returns fit_input_model(): the same call fitted through
# fit_with_input(), which reads X once, calls the function again on the dense
# matrix and records the input model in the fit. The helpers read the calling
# function's own arguments (X, pca, pca_scale, metric, neighbors) from its
# frame, so the opening names none of them.
#
# A function that takes distances keeps whether it was given them and names
# itself to fit_prologue():
#
#   given <- is_distance_input(X, metric)
#   n <- fit_prologue(min_rows = 3L, distances = "isomap") %||% return(fit_input_model())
#
# A function that checks X itself opens with
#
#   if (needs_input_model()) return(fit_input_model())
#
# or with its own prologue that returns NULL in the same case (the linear
# projections: lp_prologue(), lle_linear_setup()). Given distances (the
# `given` line above), X never needs the front end: distance_prologue() reads
# it (R/distances.R). The fit records the user's call: `call = match.call()` where the fit is made.

# Whether the `pca` of the fitting function whose frame is `env` is its own
# PCA step: the linear projections (TRUE, FALSE or "always"), which have no
# `pca_scale`. Of such a `pca` only a number is the front end's (pca_dims()).
has_own_pca <- function(env) !exists("pca_scale", envir = env, inherits = FALSE)

# The `pca =` of the front end, from the frame of a fitting function.
front_end_pca <- function(env) if (has_own_pca(env)) pca_dims(env$pca) else env$pca

# Whether the fitting function whose frame is `env` must return
# fit_input_model() (its X needs the input front end).
needs_input_model <- function(env = parent.frame()) {
  # get() stops as X itself would when the call gave no X (env$X would not)
  needs_input(get("X", envir = env), front_end_pca(env), env$metric, env$neighbors)
}

# The fit of the calling fitting function through the input front end
# (fit_with_input()); its `call` is the user's call, as match.call() in the
# calling function records it.
fit_input_model <- function() {
  env <- parent.frame()
  fun <- sys.function(sys.parent())
  call <- match.call(fun, sys.call(sys.parent()), envir = parent.frame(2L))
  fit_with_input(env$X, front_end_pca(env), env$metric, if (has_own_pca(env)) FALSE else env$pca_scale,
                 call, fun, parent.frame(2L), neighbors = env$neighbors)
}

# Whether a fitting function must go through fit_with_input().
needs_input <- function(X, pca, metric, neighbors = NULL) {
  !is.null(pca) && !isFALSE(pca) || !identical(metric, "euclidean") || is_sparse_input(X) ||
    !is.null(neighbors) || is_container(X)
}

# The front end of every fitting function called with `pca =`, a metric other
# than Euclidean, or a sparse matrix: X is read once (prepare_input()), the
# same function is called again on the dense matrix it fits on, and the input
# model is recorded in the fit.
fit_with_input <- function(X, pca, metric, pca_scale, call, fun, env, neighbors = NULL) {
  if (identical(metric, "manhattan")) {
    abort_input("metric", paste0("\"manhattan\" is not available for the fitting functions yet (knn() ",
                                 "and neighbor_graph() have it); use \"euclidean\", \"cosine\" or ",
                                 "\"correlation\"."))
  }
  prep <- prepare_input(X, pca, metric, pca_scale)
  nn <- if (!is.null(neighbors)) check_neighbors(neighbors, nrow(prep$x))
  inner <- call
  inner[[1L]] <- fun
  inner$X <- prep$x
  inner$pca <- NULL
  inner$pca_scale <- NULL
  inner$metric <- NULL
  inner$neighbors <- NULL
  if (!is.null(nn)) inner$knn_method <- nn
  fit <- eval(inner, env)
  fit$input <- prep$input
  fit$n_features <- prep$input$n_features
  fit$feature_names <- prep$input$feature_names
  fit$call <- call
  fit$params$metric <- prep$input$metric
  if (!is.null(nn)) {
    # new points are searched exactly among the training rows
    fit$params$knn_method <- "precomputed"
    fit$neighbors <- neighbor_spec("exact")
    fit$neighbors$precomputed <- TRUE
  }
  if (!is.null(fit$neighbors)) fit$neighbors$metric <- prep$input$metric
  if (!is.null(prep$input$pca)) fit$params$pca <- ncol(prep$input$pca$rotation)
  fit
}
