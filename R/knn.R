# Exact k-nearest neighbours and radius search.

#' Exact k-nearest neighbours
#'
#' Finds, for every query point, the `k` nearest training points in Euclidean
#' distance. The result is exact and canonical: each list is sorted by
#' distance, and **ties are broken by the smaller training index**, so every
#' algorithm (and any number of threads) returns the same indices and
#' bitwise-identical distances.
#'
#' Two algorithms are available: a kd-tree (median split on the coordinate of
#' widest spread, depth-first search) that is fast in low dimension, and a
#' blocked brute-force search that evaluates all cross-products with a
#' cache-blocked kernel, picks candidates from
#' \eqn{\|a\|^2 + \|b\|^2 - 2 a^\top b}{|a|^2 + |b|^2 - 2 a'b} on centred
#' data and then recomputes their distances exactly; a rounding-error bound
#' decides which further points must be checked, so cancellation never changes
#' the answer. `"auto"` uses the kd-tree when the data have at most 15 columns
#' and at least 500 rows, brute force otherwise.
#'
#' When `query` is `NULL` (self-search) each point is excluded from its own
#' list **by index**, not by distance: exact duplicates remain neighbours of
#' each other at distance 0.
#'
#' @param X Training points: a numeric matrix or data frame, one row per point
#'   (at least 3 rows, finite values).
#' @param k Number of neighbours: a whole number between 1 and `nrow(X) - 1`
#'   for a self-search, or `nrow(X)` when `query` is given.
#' @param query Optional query points (a numeric matrix or data frame with the
#'   columns of `X`). `NULL` (default) searches the neighbours of the training
#'   points among themselves.
#' @param algorithm `"auto"` (default), `"kdtree"` or `"brute"`. Only the speed
#'   depends on it.
#' @param n_threads Number of threads; 0 (default option value) uses all
#'   available. Results do not depend on it.
#' @return A list with
#'   * `idx`: integer matrix with one row per query point and `k` columns,
#'     1-based row indices of `X`, nearest first;
#'   * `dist`: numeric matrix of the same shape with the Euclidean distances.
#'
#'   Row names of `query` (or of `X` for a self-search) are kept.
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
knn <- function(X, k, query = NULL, algorithm = c("auto", "kdtree", "brute"),
                n_threads = getOption("manifoldOOS.threads", 0L)) {
  X <- as_data_matrix(X, "X")
  self <- is.null(query)
  if (!self) {
    query <- as_data_matrix(query, "query", min_rows = 1L)
    if (ncol(query) != ncol(X)) {
      abort_input("query", sprintf("must have %d columns, like `X`; it has %d.",
                                   ncol(X), ncol(query)))
    }
  }
  k <- check_k(k, nrow(X), self = self)
  algorithm <- check_choice(algorithm, c("auto", "kdtree", "brute"), "algorithm")
  n_threads <- check_threads(n_threads)
  rn <- if (self) rownames(X) else rownames(query)
  res <- core(.mo_knn(X, query, k, algorithm, n_threads))
  if (!is.null(rn)) {
    rownames(res$idx) <- rn
    rownames(res$dist) <- rn
  }
  res
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
