# TEMPORARY stand-in for the exported knn() being written in another branch.
# Brute force, ties broken by the smaller index, self excluded by index.
# DELETE this file when the real knn() is merged.
knn <- function(X, k, query = NULL, ...) {
  X <- as_data_matrix(X, "X", min_rows = 2L)
  self <- is.null(query)
  Q <- if (self) X else as_data_matrix(query, "query", min_rows = 1L)
  k <- check_k(k, nrow(X), "k", self = self)
  m <- nrow(Q)
  idx <- matrix(0L, m, k)
  dist <- matrix(0, m, k)
  tX <- t(X)
  for (i in seq_len(m)) {
    d <- sqrt(colSums((tX - Q[i, ])^2))
    o <- order(d, seq_along(d))
    if (self) o <- o[o != i]
    o <- o[seq_len(k)]
    idx[i, ] <- o
    dist[i, ] <- d[o]
  }
  list(idx = idx, dist = dist)
}
