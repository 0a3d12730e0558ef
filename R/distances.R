# Distances given by the user instead of coordinates: a `dist` object or a
# square matrix with metric = "precomputed" (Isomap, classical MDS, Laplacian
# eigenmaps, diffusion maps, knn() and neighbor_graph()).

#' Distances as input
#'
#' Some data come as dissimilarities rather than coordinates: a distance
#' between documents, sequences, graphs, or a metric no fitting function
#' offers. The methods that need nothing but distances take them directly,
#' as scikit-learn's `metric = "precomputed"` does:
#'
#' * [isomap()] (full and landmark), [mds()] (classical MDS of the given
#'   distances), [laplacian_eigenmaps()] (`graph = "knn"` or `"eps"`) and
#'   [diffusion_map()];
#' * [knn()] and [neighbor_graph()].
#'
#' Give `X` as a [stats::dist()] object (the metric is then implied), or as
#' an \eqn{n \times n} matrix together with `metric = "precomputed"`. The
#' matrix must be symmetric with a zero diagonal and hold finite,
#' non-negative values (asymmetry or diagonal entries up to \eqn{10^{-8}}
#' times the largest distance are rounding and are removed; larger ones are
#' an error). The labels of a `dist` object, or the row names of the matrix,
#' name the training points.
#'
#' **New points.** `predict(fit, newdata)` then takes the distances of the
#' new points to the training points: an \eqn{m \times n} matrix, one row
#' per new point and one column per training point, in training order (or
#' matched by name when both the columns and the training points are named).
#' A new point is placed exactly as a new row of coordinates with those
#' distances would be: Isomap and the neighbourhood rules use its nearest
#' training points, MDS and the dense diffusion kernel all of its distances.
#' A row at distance 0 from a training point gets that point's coordinates.
#' Novelty scores work as for coordinates (the leave-one-out distances of the
#' training points are kept in the fit). The generic rules of [oos_map()],
#' [reconstruct()], `pca =` and the cosine and correlation metrics need
#' coordinates and are not available on such a fit.
#'
#' For Euclidean distances of a data matrix `X`, a fit of `dist(X)` equals
#' the fit of `X` (up to rounding), and so do the predictions of the
#' distance rows.
#'
#' Cost: the \eqn{n \times n} matrix is held once in memory while fitting
#' (\eqn{8n^2} bytes: 200 MB at \eqn{n = 5000}); the fit keeps only what its
#' out-of-sample rule needs.
#'
#' @name manifoldOOS-distances
#' @examples
#' roll <- swiss_roll(400, seed = 1)
#' D <- dist(roll$x[1:300, ])
#' fit <- isomap(D, ndim = 2, k = 10)
#' fit
#' # distances of new points to the 300 training points
#' Dq <- sqrt(pmax(outer(rowSums(roll$x[301:400, ]^2), rowSums(roll$x[1:300, ]^2), "+") -
#'                 2 * roll$x[301:400, ] %*% t(roll$x[1:300, ]), 0))
#' y <- predict(fit, Dq)
#' # the same as fitting the coordinates
#' fit2 <- isomap(roll$x[1:300, ], ndim = 2, k = 10)
#' max(abs(y - predict(fit2, roll$x[301:400, ])))
#' # a distance no fitting function offers: L1 on ranks
#' R <- apply(roll$x, 2, rank)
#' le <- laplacian_eigenmaps(dist(R[1:300, ], "manhattan"), ndim = 2, k = 10)
#' head(predict(le, as.matrix(dist(R, "manhattan"))[301:400, 1:300]))
NULL

distance_metric <- "precomputed"

# The error message for distances where coordinates are needed.
distances_hint <- function(what) {
  paste0(what, ": this function needs coordinates. Distances are taken by isomap(), mds(), ",
         "laplacian_eigenmaps(), diffusion_map(), knn() and neighbor_graph() (see ?manifoldOOS-distances).")
}

# Whether a fitting function was given distances rather than coordinates.
is_distance_input <- function(X, metric) inherits(X, "dist") || identical(metric, distance_metric)

# Whether a fit was made from distances.
is_distance_fit <- function(object) identical(object$input$metric, distance_metric)

# The checked n x n distance matrix of a `dist` object or a square matrix
# (dimnames: the labels, or NULL).
read_distances <- function(X, arg = "X", min_rows = 3L) {
  if (inherits(X, "dist")) {
    n <- as.integer(attr(X, "Size"))
    check_memory(16 * as.numeric(n)^2, sprintf("the %d x %d matrix of `%s`", n, n, arg), arg,
                 "use fewer points.")
    labels <- attr(X, "Labels")
    D <- as.matrix(X)
    dimnames(D) <- if (is.null(labels)) NULL else list(labels, labels)
  } else {
    if (is.data.frame(X)) X <- as.matrix(X)
    if (inherits(X, "Matrix")) X <- densify(X, arg)
    if (!is.matrix(X) || !(is.numeric(X) || is.logical(X))) {
      abort_input(arg, paste0("must be a `dist` object or a square numeric matrix of distances when ",
                              "metric = \"precomputed\"."))
    }
    if (nrow(X) != ncol(X)) {
      abort_input(arg, sprintf(paste0("must be a square matrix of distances when metric = \"precomputed\"; ",
                                      "it is %d x %d."), nrow(X), ncol(X)))
    }
    D <- X
    storage.mode(D) <- "double"
    labels <- if (!is.null(rownames(D))) rownames(D) else colnames(D)
    dimnames(D) <- if (is.null(labels)) NULL else list(labels, labels)
  }
  n <- nrow(D)
  if (n < min_rows) abort_input(arg, sprintf("must hold the distances of at least %d points; it has %d.", min_rows, n))
  check_distance_values(D, arg)
  top <- max(D)
  if (!(top > 0)) abort_input(arg, "has all distances 0: the points cannot be told apart.")
  tol <- 1e-8 * top
  dg <- max(abs(diag(D)))
  if (dg > tol) {
    abort_input(arg, sprintf("must have a zero diagonal (a point's distance to itself); the largest is %.3g.", dg))
  }
  asym <- max(abs(D - t(D)))
  if (asym > tol) {
    abort_input(arg, sprintf("must be symmetric; the largest |D[i, j] - D[j, i]| is %.3g.", asym))
  }
  if (asym > 0) D <- (D + t(D)) / 2
  diag(D) <- 0
  D
}

# Distances must be finite and non-negative (the first offending entry named).
check_distance_values <- function(D, arg) {
  if (anyNA(D)) {
    w <- which(is.na(D), arr.ind = TRUE)[1, ]
    abort_input(arg, sprintf("must not contain NA or NaN (first at row %d, column %d).", w[1], w[2]))
  }
  if (length(D) && (is.infinite(max(D)) || min(D) < 0)) {
    w <- which(!is.finite(D) | D < 0, arr.ind = TRUE)[1, ]
    abort_input(arg, sprintf("must hold finite non-negative distances (row %d, column %d is %s).",
                             w[1], w[2], format(D[w[1], w[2]])))
  }
  invisible(D)
}

# The distances of new points to the n training points of a fit made from
# distances: m x n, columns matched by name when both sides are named.
query_distances <- function(newdata, n, labels, arg = "newdata", min_rows = 1L) {
  if (inherits(newdata, "dist")) {
    abort_input(arg, sprintf(paste0("must be the %d-column matrix of distances from the new points to the ",
                                    "training points, not a `dist` object."), n))
  }
  x <- as_data_matrix(newdata, arg, min_rows = min_rows)
  named <- !is.null(labels) && !is.null(colnames(x))
  if (!named && ncol(x) != n) {
    abort_input(arg, sprintf(paste0("must hold the distances of each new point to the %d training points ",
                                    "(one column per training point, in training order); it has %d column%s."),
                             n, ncol(x), if (ncol(x) == 1L) "" else "s"))
  }
  if (named) x <- check_newdata(x, labels, n, arg = arg, min_rows = min_rows)
  check_distance_values(x, arg)
  x
}

# kNN lists from distances: of the training points among themselves (D the
# n x n matrix, self excluded) or of m new points (query m x n).
knn_distances <- function(D, k, query = NULL, n_threads = default_threads()) {
  if (is.null(query)) {
    k <- check_k(k, nrow(D))
    return(core(.mo_knn_distances(D, k, TRUE, n_threads)))
  }
  k <- check_k(k, ncol(query), self = FALSE)
  core(.mo_knn_distances(t(query), k, FALSE, n_threads))
}

# Radius lists (ptr 0-based, idx, dist) from distances, as radius_neighbors().
radius_distances <- function(D, eps, query = NULL) {
  if (is.null(query)) return(core(.mo_radius_distances(D, eps, TRUE)))
  core(.mo_radius_distances(t(query), eps, FALSE))
}

# Mean, median and largest pairwise distance (over the same subsample of at
# most `max_rows` points that pairwise_summary() uses for coordinates).
distance_summary <- function(D, max_rows = 3000L) {
  n <- nrow(D)
  if (n > max_rows) {
    keep <- unique(round(seq(1, n, length.out = max_rows)))
    D <- D[keep, keep, drop = FALSE]
  }
  v <- D[upper.tri(D)]
  list(mean = mean(v), median = stats::median(v), max = max(v))
}

# Duplicated points: those at distance 0 from a point with a smaller index.
count_duplicates_distances <- function(D) {
  z <- which(D == 0, arr.ind = TRUE)
  length(unique(z[z[, 1L] > z[, 2L], 1L]))
}

# The arguments that need coordinates are refused for distance input.
check_distance_args <- function(pca = NULL, neighbors = NULL, fun) {
  if (!is.null(pca) && !isFALSE(pca)) {
    abort_input("pca", sprintf("needs coordinates; %s() was given distances (see ?manifoldOOS-distances).", fun))
  }
  if (!is.null(neighbors)) {
    abort_input("neighbors", sprintf(paste0("cannot be combined with distances: %s() finds the neighbours ",
                                            "in the distance matrix itself."), fun))
  }
  invisible(TRUE)
}

# The input model of a fit made from distances: the training points' labels
# and the distances of each to its nearest other points (the leave-one-out
# distances of the novelty scores).
distance_input_model <- function(D, k_keep = 10L) {
  n <- nrow(D)
  nb <- knn_distances(D, min(n - 1L, k_keep))
  structure(list(n_features = n, feature_names = rownames(D), metric = distance_metric, pca = NULL,
                 knn_dist = nb$dist),
            class = "manifold_input")
}

# Records the input model in a fit made from distances.
finish_distance_fit <- function(fit, D, k = 10L) {
  fit$input <- distance_input_model(D, max(10L, k))
  fit$n_features <- nrow(D)
  fit$feature_names <- rownames(D)
  fit$params$metric <- distance_metric
  fit$params$knn_method <- "exact"
  fit$neighbors <- neighbor_spec("exact", distance_metric)
  fit
}

# The opening of a fitting function given distances (the counterpart of
# fit_prologue()): refuses the arguments that need coordinates, checks
# `verbose` and reads `X` as the distance matrix, in the calling function's
# frame; the neighbour lists are read off the distances (knn_method "exact"),
# and the frame's `metric` becomes "precomputed" (so is_distance_input(X, metric)
# still tells afterwards). Returns the number of points.
distance_prologue <- function(fun, min_rows = 3L, ndim_gap = NULL, env = parent.frame()) {
  check_distance_args(env$pca, env$neighbors, fun)
  env$verbose <- check_verbose(env$verbose)
  if (!is.null(env$knn_method) && !inherits(env$knn_method, "manifold_precomputed_nn")) {
    check_knn_method(env$knn_method, "knn_method")
  }
  env$X <- read_distances(env$X, "X", min_rows = min_rows)
  env$metric <- distance_metric
  env$knn_method <- "exact"
  n <- nrow(env$X)
  if (!is.null(ndim_gap)) env$ndim <- check_ndim(env$ndim, n - ndim_gap)
  n
}
