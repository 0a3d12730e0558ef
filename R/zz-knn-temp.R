# TEMPORARY brute-force stand-ins for knn() and radius_neighbors(), which the
# kNN module provides. They exist only so that the graph code can be tested
# before that module is merged; delete this file at merge time.
# Same contracts: rows are points, 1-based indices, neighbours sorted by
# (distance, index), self excluded by index.

knn <- function(X, k, query = NULL, algorithm = "auto",
                n_threads = getOption("manifoldOOS.threads", 0L)) {
  X <- as_data_matrix(X, "X")
  self <- is.null(query)
  Q <- if (self) X else as_data_matrix(query, "query", min_rows = 1L)
  k <- check_k(k, nrow(X), self = self)
  n <- nrow(X)
  m <- nrow(Q)
  idx <- matrix(0L, m, k)
  dd <- matrix(0, m, k)
  for (a in seq_len(m)) {
    d <- sqrt(colSums((t(X) - Q[a, ])^2))
    cand <- seq_len(n)
    if (self) cand <- cand[-a]
    o <- cand[order(d[cand], cand)][seq_len(k)]
    idx[a, ] <- o
    dd[a, ] <- d[o]
  }
  list(idx = idx, dist = dd)
}

radius_neighbors <- function(X, eps, query = NULL) {
  self <- is.null(query)
  Q <- if (self) X else query
  n <- nrow(X)
  ptr <- integer(nrow(Q) + 1L)
  idx <- list()
  dd <- list()
  for (a in seq_len(nrow(Q))) {
    d <- sqrt(colSums((t(X) - Q[a, ])^2))
    cand <- which(d <= eps)
    if (self) cand <- setdiff(cand, a)
    cand <- cand[order(d[cand], cand)]
    idx[[a]] <- as.integer(cand)
    dd[[a]] <- d[cand]
    ptr[a + 1L] <- ptr[a] + length(cand)
  }
  list(ptr = ptr, idx = as.integer(unlist(idx)), dist = as.numeric(unlist(dd)))
}
