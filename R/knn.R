# k-nearest neighbours (exact and HNSW) and radius search.

#' k-nearest neighbours: exact, or approximate with HNSW
#'
#' Finds, for every query point, the `k` nearest training points in Euclidean (or
#' cosine, correlation or Manhattan) distance, exactly (`method = "exact"`) or approximately with a
#' hierarchical navigable small world graph (`method = "hnsw"`); `"auto"`
#' (default) picks one by the size of the problem.
#'
#' **Exact search.** The result is exact and canonical: each list is sorted
#' by distance, and **ties are broken by the smaller training index**, so
#' every algorithm (and any number of threads) returns the same indices and
#' bitwise-identical distances.
#'
#' Two algorithms are available: a kd-tree (median split on the coordinate of
#' widest spread, depth-first search) that is fast in low dimension, and a
#' blocked brute-force search that evaluates all cross-products with a
#' cache-blocked kernel, picks candidates from
#' \eqn{\|a\|^2 + \|b\|^2 - 2 a^\top b}{|a|^2 + |b|^2 - 2 a'b} on centred
#' data and then recomputes their distances exactly; a rounding-error bound
#' decides which further points must be checked, so cancellation never changes
#' the answer. In more than 15 (and at most 256) columns the kd-tree is built
#' on the training points' 12 leading principal axes plus the norm of the
#' residual, whose distances bound the true ones from below (with a margin for
#' rounding): data near a low-dimensional manifold are searched several times
#' faster than by brute force, with the same result.
#' `algorithm = "auto"` uses the kd-tree when the data have at most 15
#' columns and at least 500 rows. In more columns, with at least 2,000
#' training points and 1,000 queries, it first searches 64 of the queries in
#' a principal-axes tree of at most 4,096 of the training points and takes
#' the tree when they compared at most a tenth of those points each; brute
#' force otherwise. The choice changes the time only, never the lists.
#'
#' **HNSW.** The graph index of Malkov and Yashunin, built on the data
#' structures and search routines of the `hnswlib` headers that the package
#' \pkg{RcppHNSW} ships (`LinkingTo: RcppHNSW`). The index holds the
#' coordinates in single precision; the candidates it returns are re-ranked
#' with the exact double-precision distance of the exact search, so the
#' returned distances are Euclidean distances (bitwise equal to the exact
#' search's for the same pair) and lists are sorted by (distance, index). A
#' query for which the graph yields fewer than `k` candidates is answered
#' exactly. `hnsw_args` sets `M` (links per node, default 16),
#' `ef_construction` (default 50), `ef` (search list, default
#' `max(32, k + 1)`; larger is slower and more accurate) and `seed`
#' (default 42).
#'
#' *Defaults and the recall / time trade-off.* Measured with
#' `bench/scale.R` (`SCALE_PARTS=hnsw_grid`; self-search, k = 10,
#' 100,000 points from a 10-dimensional latent Gaussian in 50 and in 100
#' columns, 2 threads on an otherwise idle 2-core machine): `M = 16,
#' ef_construction = 100, ef = 64` (the defaults before) reach recall@10
#' 0.9998 in 7.9 s (50 columns) and 11.0 s (100 columns); the defaults
#' `M = 16, ef_construction = 50, ef = 32` reach 0.997 in 4.0 s and 5.8 s
#' (6.7 and 8.0 times faster than the exact search); `M = 12,
#' ef_construction = 32, ef = 24` reach 0.986 in 4.1 s and 4.2 s; `M = 8,
#' ef_construction = 32, ef = 20` only 0.97. RcppHNSW's `hnsw_knn()` at the
#' same settings reached the same or a slightly lower recall (within 0.004;
#' 0.011 lower at `M = 8`) in 1.6 to 2.8 times
#' the time. For neighbour graphs of manifold learners a recall near 0.99
#' is ample; raise `ef` (search only) or `ef_construction` for more.
#'
#' *Insertion order.* The index inserts the rows in a locality order, not
#' in the order given: sorted by a Morton (Z-order) code of their
#' coordinates on the three leading principal axes of the data, so that
#' consecutive insertions work on the same region of the graph while it is
#' in the processor's cache. On a million points in 50 columns this builds
#' the index and answers the self-search in a little over half the time of
#' the given order, at the same or a higher recall. A search enters the
#' bottom layer at the closer of two points: where hnswlib's descent through
#' the upper layers ends, and the training points next to the query in the
#' locality order. So a query near one sheet of a folded manifold is not
#' answered from a neighbouring sheet that the descent happened to reach.
#' The lists are returned in the rows of `X` as always; the order depends
#' on the values of `X` only.
#'
#' *Determinism.* Levels are drawn from `seed` (one draw per row), and
#' points are inserted in fixed waves of consecutive points of that order:
#' each point of a wave searches the graph as it stood before the wave (in
#' parallel) and its reverse links are added in that order. Nothing depends
#' on thread timing, so for a given seed and
#' `hnsw_args` the index and every result are **identical for any number of
#' threads**, run after run (and so on the workers of a parallel
#' [predict()][predict.manifold_fit]). The index of the most recent training
#' matrix is kept in the session (looked up by a fingerprint of its values),
#' so repeated queries against the same data (chunked predictions) build it
#' once; `options(manifoldOOS.hnsw_cache = FALSE)` turns that off.
#'
#' **`method = "auto"`** uses HNSW only when the data have more than 15
#' columns (the kd-tree is fast below) and there are at least 100,000
#' training points and at least 100,000 query points (self-search: the
#' training points); otherwise the exact search. Measured with
#' `bench/scale.R` on the 2-core development machine (self-search, k = 10,
#' 50 columns, a loaded machine): the exact search is faster up to 50,000
#' points (exact / HNSW time 0.31 at 10,000, 0.46 at 20,000, 0.74 at 50,000),
#' and HNSW is 1.7 times faster at 100,000 points in 50 and in 100 columns
#' (recall@10 of 1.000 and 0.9999); the gain grows with `n`, as the exact
#' search costs \eqn{O(n^2 p)} and HNSW about \eqn{O(n \log n)}.
#' The default of `method` is the option `manifoldOOS.knn_method`; every
#' fitting function with a kNN graph and [oos_map()] take `knn_method`, use
#' it for all their neighbour searches, record the search used in
#' `fit$params$knn_method`, and [predict()][predict.manifold_fit] uses the
#' same.
#'
#' When `query` is `NULL` (self-search) each point is excluded from its own
#' list **by index**, not by distance: exact duplicates remain neighbours of
#' each other at distance 0.
#'
#' @param X Training points: a numeric matrix or data frame, one row per point
#'   (at least 3 rows, finite values), or a sparse matrix of \pkg{Matrix}
#'   (`dgCMatrix`), searched exactly without a dense copy: the distances
#'   come from the common non-zeros of two rows (an inverted index over the
#'   columns), and the candidates are then measured exactly, so the lists
#'   equal those of the dense search of the same matrix. Or the distances
#'   of the training points among themselves: a [stats::dist()] object, or a
#'   square matrix with `metric = "precomputed"` (see
#'   [manifoldOOS-distances]).
#' @param k Number of neighbours: a whole number between 1 and `nrow(X) - 1`
#'   for a self-search, or `nrow(X)` when `query` is given.
#' @param query Optional query points (a numeric matrix or data frame with the
#'   columns of `X`). `NULL` (default) searches the neighbours of the training
#'   points among themselves. With distances as `X`: the distances of the
#'   query points to the training points, one row per query point and one
#'   column per training point.
#' @param method `"auto"`, `"exact"` or `"hnsw"` (see Details). Default: the
#'   option `manifoldOOS.knn_method`, else `"auto"`.
#' @param algorithm Exact search: `"auto"` (default), `"kdtree"` or
#'   `"brute"`. Only the speed depends on it.
#' @param n_threads Number of threads; 0 (default option value) uses all
#'   available. Results do not depend on it (for either method).
#' @param hnsw_args A list with any of `M`, `ef_construction`, `ef`, `seed`
#'   for `method = "hnsw"`. Default: the option `manifoldOOS.hnsw_args`.
#' @param metric `"euclidean"` (default), `"cosine"`, `"correlation"` or
#'   `"manhattan"`. Cosine and correlation are searched as the Euclidean
#'   distance between the rows scaled to unit length (centred first, for
#'   correlation), which orders the points as \eqn{1 - s} does, and returned
#'   as \eqn{1 - s} (the cosine similarity or Pearson correlation \eqn{s} of
#'   the two rows), as scikit-learn reports them. HNSW serves Euclidean,
#'   cosine and correlation; Manhattan is searched exactly. See
#'   [manifoldOOS-input]. `"precomputed"`: `X` (and `query`) hold distances
#'   (implied by a `dist` object); the lists are read off them exactly.
#' @return A list with
#'   * `idx`: integer matrix with one row per query point and `k` columns,
#'     1-based row indices of `X`, nearest first;
#'   * `dist`: numeric matrix of the same shape with the distances (in the
#'     units of `metric`).
#'
#'   Row names of `query` (or of `X` for a self-search) are kept.
#' @references Malkov, Y. A. and Yashunin, D. A. (2020) Efficient and robust
#'   approximate nearest neighbor search using hierarchical navigable small
#'   world graphs. *IEEE TPAMI* 42(4), 824--836.
#' @seealso [max_threads()] for the number of threads available.
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(200), ncol = 2)
#' nn <- knn(X, k = 5)
#' head(nn$idx)
#' head(nn$dist)
#' # neighbours of new points among the training points
#' knn(X, k = 3, query = rbind(c(0, 0), c(1, 1)))
#' # ties are broken by the smaller index: the four grid neighbours of (1, 1)
#' G <- as.matrix(expand.grid(0:2, 0:2))
#' knn(G, k = 4)$idx[5, ]
#' # approximate search: recall against the exact lists
#' Z <- matrix(rnorm(2000 * 20), ncol = 20)
#' ex <- knn(Z, k = 10, method = "exact")
#' ap <- knn(Z, k = 10, method = "hnsw", hnsw_args = list(seed = 1))
#' mean(sapply(1:2000, function(i) length(intersect(ex$idx[i, ], ap$idx[i, ])))) / 10
#' # cosine distances (1 - cosine similarity) between the rows of a sparse matrix
#' S <- Matrix::rsparsematrix(500, 300, density = 0.05)
#' nc <- knn(S, k = 5, metric = "cosine")
#' head(nc$dist)
#' # distances computed elsewhere (scikit-learn's metric = "precomputed")
#' knn(dist(X, "maximum"), k = 3)$idx[1:3, ]
knn <- function(X, k, query = NULL, method = getOption("manifoldOOS.knn_method", "auto"),
                algorithm = c("auto", "kdtree", "brute"),
                n_threads = getOption("manifoldOOS.threads", 0L),
                hnsw_args = getOption("manifoldOOS.hnsw_args", list()),
                metric = c("euclidean", "cosine", "correlation", "manhattan")) {
  if (inherits(X, "dist")) metric <- distance_metric
  metric <- check_metric(metric, allowed = c(input_metrics, distance_metric))
  self <- is.null(query)
  if (metric == distance_metric) return(knn_given_distances(X, k, query, method, n_threads))
  if (inherits(method, "manifold_precomputed_nn")) {
    # neighbour lists supplied to a fit: its self-searches read them
    if (self) return(precomputed_knn(method, X, k))
    method <- "exact"
  }
  sparse <- is_sparse_input(X) || (!self && is_sparse_input(query))
  method <- check_knn_method(method)
  if (sparse && method != "hnsw") {
    X <- as_sparse_input(X, "X")
    if (!self) query <- as_sparse_input(query, "query", min_rows = 1L)
  } else {
    X <- as_data_matrix(X, "X")
    if (!self) query <- as_data_matrix(query, "query", min_rows = 1L)
  }
  if (!self && ncol(query) != ncol(X)) {
    abort_input("query", sprintf("must have %d columns, like `X`; it has %d.", ncol(X), ncol(query)))
  }
  k <- check_k(k, nrow(X), self = self)
  algorithm <- check_choice(algorithm, c("auto", "kdtree", "brute"), "algorithm")
  n_threads <- check_threads(n_threads)
  m <- if (self) nrow(X) else nrow(query)
  # the lists (integer and double, m x k each), held by the search and by R
  check_memory(24 * as.numeric(m) * k, sprintf("the neighbour lists of %d points (%d neighbours each)", m, k),
               "k", "use a smaller `k`, or search the query rows in blocks.")
  rn <- if (self) rownames(X) else rownames(query)
  method <- if (sparse) {
    if (method == "auto") "exact" else method
  } else {
    resolve_knn_method(method, nrow(X), ncol(X), if (self) nrow(X) else nrow(query))
  }
  if (method == "hnsw" && metric == "manhattan") {
    abort_input("metric", paste0("\"manhattan\" has no HNSW search (hnswlib offers Euclidean and inner-product ",
                                 "spaces only); use method = \"exact\", or metric = \"euclidean\", ",
                                 "\"cosine\" or \"correlation\"."))
  }
  res <- if (sparse && method == "exact") {
    knn_sparse_search(X, query, k, metric, n_threads)
  } else {
    # cosine and correlation: the Euclidean search on rows scaled to unit
    # length (centred first for correlation), whose distance is the chord
    # sqrt(2 (1 - s)); reported as 1 - s
    if (metric == "manhattan") {
      knn_sparse_search(as_sparse_input(X, "X"), if (self) NULL else as_sparse_input(query, "query", 1L),
                        k, metric, n_threads)
    } else {
      Xm <- metric_rows(X, metric, "X")
      Qm <- if (self) NULL else metric_rows(query, metric, "query")
      r <- knn_dense_search(Xm, Qm, k, method, algorithm, n_threads, hnsw_args)
      if (metric != "euclidean") r$dist <- r$dist^2 / 2
      r
    }
  }
  dimnames(res$idx) <- NULL
  dimnames(res$dist) <- NULL
  if (!is.null(rn)) {
    rownames(res$idx) <- rn
    rownames(res$dist) <- rn
  }
  res
}

# knn() of distances given by the user (metric = "precomputed"): X is the
# training points' distance matrix (or `dist`), query the m x n distances of
# new points to them.
knn_given_distances <- function(X, k, query, method, n_threads) {
  if (!inherits(method, "manifold_precomputed_nn") &&
      !identical(check_knn_method(method), "exact") && !identical(method, "auto")) {
    abort_input("method", "must be \"exact\" or \"auto\" with metric = \"precomputed\" (the lists are read off the distances).")
  }
  n_threads <- check_threads(n_threads)
  D <- read_distances(X, "X", min_rows = 2L)
  if (is.null(query)) {
    res <- knn_distances(D, k, n_threads = n_threads)
    rn <- rownames(D)
  } else {
    Q <- query_distances(query, nrow(D), rownames(D), arg = "query")
    res <- knn_distances(NULL, k, query = Q, n_threads = n_threads)
    rn <- rownames(Q)
  }
  if (!is.null(rn)) {
    rownames(res$idx) <- rn
    rownames(res$dist) <- rn
  }
  res
}

# The Euclidean search of dense rows (exact or HNSW).
knn_dense_search <- function(X, query, k, method, algorithm, n_threads, hnsw_args) {
  self <- is.null(query)
  if (method == "exact") return(core(.mo_knn(X, query, k, algorithm, n_threads)))
  hp <- check_hnsw_args(hnsw_args)
  ix <- hnsw_index(X, hp, n_threads)
  ef <- if (is.null(hp$ef)) max(hnsw_default_ef, k + 1L) else hp$ef
  core(.mo_hnsw_search(ix, if (self) NULL else query, k, ef, n_threads))
}

# The exact search of sparse rows (dgCMatrix) for every metric.
knn_sparse_search <- function(X, query, k, metric, n_threads) {
  if (metric %in% c("cosine", "correlation")) {
    X <- Matrix::Diagonal(x = 1 / metric_row_scale(X, metric, "X")) %*% X
    if (!is.null(query)) query <- Matrix::Diagonal(x = 1 / metric_row_scale(query, metric, "query")) %*% query
    X <- as(X, "CsparseMatrix")
    if (!is.null(query)) query <- as(query, "CsparseMatrix")
  }
  m <- if (metric == "manhattan") "manhattan" else "euclidean"
  r <- core(.mo_knn_sparse(X, query, k, m, metric == "correlation", n_threads))
  if (metric %in% c("cosine", "correlation")) r$dist <- r$dist^2 / 2
  r
}

# ---- method choice ----------------------------------------------------------

# Thresholds of method = "auto" (see the Details of ?knn and bench/scale.R):
# HNSW only for more than `hnsw_auto_min_p` columns (below, the kd-tree is
# fast) and at least `hnsw_auto_min_n` training points and as many queries.
hnsw_auto_min_p <- 15L
hnsw_auto_min_n <- 100000L
hnsw_default_ef <- 32L

check_knn_method <- function(method, arg = "method") {
  if (is.character(method) && length(method) == 3L &&
      identical(method, c("auto", "exact", "hnsw"))) {
    method <- "auto"
  }
  check_choice(method, c("auto", "exact", "hnsw"), arg)
}

# "exact" or "hnsw" for n training points in p columns and m queries.
resolve_knn_method <- function(method, n, p, m = n) {
  if (method != "auto") return(method)
  if (p > hnsw_auto_min_p && n >= hnsw_auto_min_n && m >= hnsw_auto_min_n) "hnsw" else "exact"
}

check_hnsw_args <- function(args, arg = "hnsw_args") {
  if (!is.list(args)) abort_input(arg, "must be a list (elements M, ef_construction, ef, seed).")
  known <- c("M", "ef_construction", "ef", "seed")
  bad <- setdiff(names(args), known)
  if (length(args) && (is.null(names(args)) || any(!nzchar(names(args))) || length(bad))) {
    abort_input(arg, sprintf("may only have the named elements %s.", paste(known, collapse = ", ")))
  }
  out <- list(M = 16L, ef_construction = 50L, ef = NULL, seed = 42L)
  if (!is.null(args$M)) out$M <- as.integer(check_number(args$M, sprintf("%s$M", arg), lower = 2,
                                                         upper = 1000, integer = TRUE))
  if (!is.null(args$ef_construction)) {
    out$ef_construction <- as.integer(check_number(args$ef_construction, sprintf("%s$ef_construction", arg),
                                                   lower = 1, upper = 1e6, integer = TRUE))
  }
  if (!is.null(args$ef)) {
    out$ef <- as.integer(check_number(args$ef, sprintf("%s$ef", arg), lower = 1, upper = 1e6,
                                      integer = TRUE))
  }
  if (!is.null(args$seed)) {
    out$seed <- check_number(args$seed, sprintf("%s$seed", arg), lower = 0, upper = 2^52, integer = TRUE)
  }
  out
}

# The HNSW index of X, built once per process and kept for the most recent
# training matrix (looked up by a fingerprint of its values and the build
# parameters), so that chunked predictions and repeated queries reuse it.
hnsw_cache <- new.env(parent = emptyenv())

hnsw_index <- function(X, hp, n_threads) {
  key <- paste(.mo_fingerprint(X), nrow(X), ncol(X), hp$M, hp$ef_construction, hp$seed)
  if (identical(hnsw_cache$key, key)) return(hnsw_cache$index)
  hnsw_cache$key <- NULL
  hnsw_cache$index <- NULL
  ix <- core(.mo_hnsw_build(unname(X), hp$M, hp$ef_construction, hp$seed, n_threads))
  if (isTRUE(getOption("manifoldOOS.hnsw_cache", TRUE))) {
    hnsw_cache$key <- key
    hnsw_cache$index <- ix
  }
  ix
}

# ---- the neighbour search of a fit ------------------------------------------

# What a fit's neighbours were: the search method ("exact" or "hnsw"), the
# metric of its input model and the HNSW parameters (which, with the
# training rows, rebuild the same index: the build is deterministic). Stored
# as fit$neighbors; every neighbour search of predict() uses it.
neighbor_spec <- function(method, metric = "euclidean",
                          hnsw_args = getOption("manifoldOOS.hnsw_args", list())) {
  structure(list(method = method, metric = metric, hnsw_args = check_hnsw_args(hnsw_args)),
            class = "manifold_neighbors")
}

# The search a fit recorded (an object saved before fits recorded one: its
# knn_method parameter, else the exact search).
fit_neighbors <- function(object) {
  nb <- object$neighbors
  if (is.null(nb)) nb <- neighbor_spec(if (is.null(object$params$knn_method)) "exact" else object$params$knn_method)
  nb
}

# kNN among a fit's (already transformed) training rows with the fit's search,
# or from the query-to-training lists given to predict().
fit_knn <- function(object, X, k, query = NULL, n_threads = default_threads()) {
  qn <- object$query_neighbors
  if (!is.null(query) && !is.null(qn)) {
    if (nrow(query) != nrow(qn$idx)) {
      abort_input("neighbors", sprintf("must have one row per row of `newdata` (%d); it has %d.",
                                       nrow(query), nrow(qn$idx)))
    }
    if (k > ncol(qn$idx)) {
      abort_input("neighbors", sprintf("has %d neighbours per row; this rule needs %d.", ncol(qn$idx), k))
    }
    qn$used$yes <- TRUE
    return(list(idx = qn$idx[, seq_len(k), drop = FALSE], dist = qn$dist[, seq_len(k), drop = FALSE]))
  }
  nb <- fit_neighbors(object)
  if (identical(nb$metric, distance_metric)) {
    # a fit made from distances: the rows of `query` are distances to the
    # training points; the training points' own lists were kept by the fit
    if (!is.null(query)) return(knn_distances(NULL, k, query = query, n_threads = n_threads))
    kd <- object$input$knn_dist
    if (k > ncol(kd)) {
      abort_input("k", sprintf("must be at most %d for a fit made from distances (the neighbours it kept).",
                               ncol(kd)))
    }
    return(list(dist = kd[, seq_len(k), drop = FALSE]))
  }
  knn(X, k, query = query, method = nb$method, hnsw_args = nb$hnsw_args, n_threads = n_threads)
}

# ---- neighbours supplied by the user --------------------------------------------

# Checks `neighbors = list(idx, dist)` for the n training rows: integer row
# indices in 1..n, finite non-negative distances sorted in each row, no row
# listing itself, except as the first entry of every row (the layout of a
# search of the training rows among themselves with the point included, as
# uwot and scikit-learn's kneighbors() return it), which is dropped.
check_neighbors <- function(neighbors, n, arg = "neighbors") {
  nn <- check_neighbor_lists(neighbors, n, n, arg, "training row")
  idx <- nn$idx
  dist <- nn$dist
  if (ncol(idx) > 1L && all(idx[, 1L] == seq_len(n))) {
    idx <- idx[, -1L, drop = FALSE]
    dist <- dist[, -1L, drop = FALSE]
  }
  if (!ncol(idx)) abort_input(arg, "holds no neighbour besides the points themselves.")
  self_at <- which(idx == seq_len(n), arr.ind = TRUE)
  if (nrow(self_at)) {
    abort_input(arg, sprintf(paste0("lists row %d among its own neighbours (column %d); a point may only ",
                                    "come first in every row (then it is dropped), or not at all."),
                             self_at[1, 1], self_at[1, 2]))
  }
  structure(list(idx = idx, dist = dist), class = "manifold_precomputed_nn")
}

# Neighbour lists of m query rows among n training rows: integer indices in
# 1..n and finite non-negative distances, sorted in each row.
check_neighbor_lists <- function(neighbors, m, n, arg, what) {
  if (!is.list(neighbors) || !all(c("idx", "dist") %in% names(neighbors))) {
    abort_input(arg, "must be a list with matrices `idx` (row indices) and `dist` (distances), as knn() returns.")
  }
  idx <- neighbors$idx
  dist <- neighbors$dist
  if (!is.matrix(idx) || !is.numeric(idx) || !is.matrix(dist) || !is.numeric(dist)) {
    abort_input(arg, "must hold numeric matrices `idx` and `dist`.")
  }
  if (!identical(dim(idx), dim(dist))) {
    abort_input(arg, sprintf("has `idx` of %d x %d and `dist` of %d x %d; they must have the same shape.",
                             nrow(idx), ncol(idx), nrow(dist), ncol(dist)))
  }
  if (nrow(idx) != m) {
    abort_input(arg, sprintf("must have one row per %s (%d); it has %d.", what, m, nrow(idx)))
  }
  if (!ncol(idx)) abort_input(arg, "holds no neighbour.")
  if (anyNA(idx) || any(idx != round(idx)) || any(idx < 1) || any(idx > n)) {
    abort_input(arg, sprintf("`idx` must hold row indices between 1 and %d.", n))
  }
  if (anyNA(dist) || any(!is.finite(dist)) || any(dist < 0)) {
    abort_input(arg, "`dist` must hold finite non-negative distances.")
  }
  storage.mode(idx) <- "integer"
  storage.mode(dist) <- "double"
  if (ncol(dist) > 1L && any(dist[, -1L, drop = FALSE] < dist[, -ncol(dist), drop = FALSE])) {
    abort_input(arg, "`dist` must be sorted in each row (nearest first).")
  }
  dimnames(idx) <- NULL
  dimnames(dist) <- NULL
  list(idx = idx, dist = dist)
}

# The first k supplied neighbours of every training row.
precomputed_knn <- function(nn, X, k) {
  if (nrow(X) != nrow(nn$idx)) {
    abort_input("neighbors", sprintf("must have one row per training row (%d); it has %d.",
                                     nrow(X), nrow(nn$idx)))
  }
  k <- check_k(k, nrow(X))
  if (k > ncol(nn$idx)) {
    abort_input("neighbors", sprintf("has %d neighbours per row; this fit needs %d. Supply more neighbours or a smaller `k`.",
                                     ncol(nn$idx), k))
  }
  list(idx = nn$idx[, seq_len(k), drop = FALSE], dist = nn$dist[, seq_len(k), drop = FALSE])
}

format_neighbors <- function(nb) {
  h <- nb$hnsw_args
  sprintf("%s%s search%s, %s metric", if (isTRUE(nb$precomputed)) "supplied lists; new points: " else "", nb$method,
          if (identical(nb$method, "hnsw")) sprintf(" (M = %d, ef_construction = %d, seed = %.0f)", h$M,
                                                    h$ef_construction, h$seed) else "",
          nb$metric)
}

# Radius (epsilon-ball) neighbours: for every query (every row of X when
# query = NULL, then excluding the point itself by index) all training points
# with distance <= eps, sorted by (distance, index). Returns a list with ptr
# (integer, 0-based offsets of length m + 1), idx (1-based) and dist: the
# neighbours of query i are idx[(ptr[i] + 1):ptr[i + 1]].
radius_neighbors <- function(X, eps, query = NULL,
                             algorithm = c("auto", "kdtree", "brute"),
                             n_threads = default_threads()) {
  X <- as_data_matrix(X, "X")
  if (!is.null(query)) {
    query <- as_data_matrix(query, "query", min_rows = 1L)
    if (ncol(query) != ncol(X)) {
      abort_input("query", sprintf("must have %d columns, like `X`; it has %d.",
                                   ncol(X), ncol(query)))
    }
  }
  eps <- check_number(eps, "eps", lower = 0)
  algorithm <- check_choice(algorithm, c("auto", "kdtree", "brute"), "algorithm")
  n_threads <- check_threads(n_threads)
  core(.mo_radius(X, query, eps, algorithm, n_threads))
}

# For a fitting function: check and resolve its `knn_method` for the training
# data X. Returns "exact" or "hnsw" (recorded in fit$params$knn_method), which
# the fit passes to each of its neighbour searches.
local_knn_method <- function(knn_method, X, arg = "knn_method") {
  if (inherits(knn_method, "manifold_precomputed_nn")) return(knn_method)
  resolve_knn_method(check_knn_method(knn_method, arg), nrow(X), ncol(X))
}
