# Rank-based quality measures from supplied distance matrices, and Lee and
# Verleysen's Q_local / Q_global split of the Q_NX curve.

# TRUE when X or Y is to be read as a distance matrix.
uses_distances <- function(X, Y, dist_input) {
  which <- check_dist_input(dist_input)
  length(which) > 0L || inherits(X, "dist") || inherits(Y, "dist")
}

check_dist_input <- function(dist_input) {
  if (is.null(dist_input)) return(character(0))
  if (!is.character(dist_input) || anyNA(dist_input) || !all(dist_input %in% c("X", "Y")) ||
      anyDuplicated(dist_input)) {
    abort_input("dist_input", "must be NULL or a subset of c(\"X\", \"Y\").")
  }
  dist_input
}

# A validated n x n distance matrix from a `dist` object or a square matrix
# (when `as_dist`), else Euclidean distances of the rows of coordinates.
distance_matrix <- function(x, arg, as_dist) {
  if (inherits(x, "dist")) {
    n <- attr(x, "Size")
    if (is.null(n) || n < 3L) abort_input(arg, "must be a `dist` object of at least 3 points.")
    if (anyNA(x) || any(!is.finite(x)) || any(x < 0)) {
      abort_input(arg, "must hold finite, non-negative distances.")
    }
    D <- as.matrix(x)
    dimnames(D) <- NULL
    return(D)
  }
  if (!as_dist) {
    x <- as_data_matrix(x, arg)
    return(unname(as.matrix(stats::dist(x))))
  }
  D <- unname(as_data_matrix(x, arg))
  if (nrow(D) != ncol(D)) {
    abort_input(arg, sprintf("must be a square distance matrix; it is %d x %d.", nrow(D), ncol(D)))
  }
  if (any(D < 0) || any(diag(D) != 0)) {
    abort_input(arg, "must be a distance matrix: non-negative with a zero diagonal.")
  }
  if (max(abs(D - t(D))) > 1e-12 * max(D)) abort_input(arg, "must be a symmetric distance matrix.")
  D
}

# Ranks of every point among the neighbours of each point (1 = nearest,
# ties broken by the smaller index, the point itself excluded: rank 0).
distance_ranks <- function(D) {
  n <- nrow(D)
  R <- matrix(0L, n, n)
  idx <- seq_len(n)
  for (i in idx) {
    d <- D[i, ]
    d[i] <- -Inf
    R[i, order(d, idx)] <- 0:(n - 1L)
  }
  R
}

# The full co-ranking matrix from distances (rows: ranks in X).
coranking_from_distances <- function(X, Y, dist_input) {
  which <- check_dist_input(dist_input)
  DX <- distance_matrix(X, "X", "X" %in% which)
  DY <- distance_matrix(Y, "Y", "Y" %in% which)
  n <- nrow(DX)
  if (nrow(DY) != n) {
    abort_input("Y", sprintf("must describe as many points as `X` (%d); it has %d.", n, nrow(DY)))
  }
  max_n <- getOption("manifoldOOS.coranking_max_n", 10000)
  if (n - 1 > max_n) {
    abort_input("X", sprintf(paste0("describes %d points: the co-ranking matrix from distances would need ",
                                    "%.1f GB (raise options(manifoldOOS.coranking_max_n))."),
                             n, 4 * (n - 1)^2 / 1e9))
  }
  RX <- distance_ranks(DX)
  RY <- distance_ranks(DY)
  off <- RX > 0L
  cells <- (RY[off] - 1L) * (n - 1L) + RX[off]
  Q <- matrix(tabulate(cells, (n - 1L)^2), n - 1L, n - 1L)
  storage.mode(Q) <- "integer"
  structure(Q, n_points = n, class = c("manifold_coranking", "mo_coranking"))
}

# Trustworthiness ("T") or continuity ("C") for each K from a full co-ranking
# matrix: intrusions (rank <= K in Y, > K in X) penalised by their rank in
# X, extrusions the other way round.
tc_from_coranking <- function(Q, k, which) {
  n <- attr(Q, "n_points")
  Q <- unclass(Q)
  r <- seq_len(nrow(Q))
  vapply(k, function(K) {
    out <- r > K
    pen <- if (which == "T") {
      sum((r[out] - K) * Q[out, r <= K, drop = FALSE])
    } else {
      sum(sweep(Q[r <= K, out, drop = FALSE], 2, r[out] - K, "*"))
    }
    G <- if (K < n / 2) 2 / (n * K * (2 * n - 3 * K - 1)) else 2 / (n * (n - K) * (n - K - 1))
    1 - G * pen
  }, numeric(1))
}

#' Q_local and Q_global
#'
#' Lee and Verleysen's split of the co-ranking quality curve into a local and
#' a global part, with the definitions of \pkg{dimRed}'s `quality()` (methods
#' `"Q_local"` and `"Q_global"`). From the full co-ranking matrix ([coranking()])
#' of the `n` points, for `K = 1, ..., n - 1`:
#' `Q_NX(K) = sum_{k, l <= K} Q[k, l] / (K n)` and
#' `LCMC(K) = Q_NX(K) - K / (n - 1)`; `K_max` is the `K` with the largest
#' `LCMC` (the first one on ties). Then
#' \deqn{Q_{local} = \frac{1}{K_{max}} \sum_{K = 1}^{K_{max}} Q_{NX}(K), \qquad
#'   Q_{global} = \frac{1}{n - K_{max}} \sum_{K = K_{max} + 1}^{n - 1} Q_{NX}(K).}{Q_local = mean of Q_NX(1..K_max), Q_global = sum of Q_NX(K_max + 1 .. n - 1) / (n - K_max).}
#' The normaliser of `Q_global` is `n - K_max`, as in \pkg{dimRed}, although
#' the sum has `n - 1 - K_max` terms (Lee and Verleysen average over the
#' terms); `Q_global` is 0 when `K_max = n - 1`. Both lie in `[0, 1]`,
#' larger is better.
#'
#' @inheritParams trustworthiness
#' @return A named numeric vector `c(Q_local = , Q_global = )` with attribute
#'   `K_max`.
#' @references Lee, J. A. and Verleysen, M. (2009) Quality assessment of
#'   dimensionality reduction: rank-based criteria. *Neurocomputing* 72,
#'   1431--1443.
#' @seealso [rnx()], [lcmc()] and [coranking()].
#' @export
#' @examples
#' roll <- swiss_roll(300, seed = 1)
#' q_local_global(roll$x, roll$truth)
#' q_local_global(roll$x, roll$x[, c(1, 3)])
#' # from distances
#' q_local_global(dist(roll$x), roll$truth)
q_local_global <- function(X, Y, n_threads = default_threads(), dist_input = NULL) {
  Q <- if (uses_distances(X, Y, dist_input)) {
    coranking_from_distances(X, Y, dist_input)
  } else {
    coranking(X, Y, n_threads = n_threads)
  }
  n <- attr(Q, "n_points")
  Qm <- unclass(Q)
  m <- nrow(Qm)
  S <- matrix(apply(apply(Qm, 2, cumsum), 1, cumsum), m, m)
  qnx <- diag(S) / seq_len(m) / n
  K_max <- which.max(qnx - seq_len(m) / m)
  q_global <- if (K_max < m) sum(qnx[(K_max + 1L):m]) / (n - K_max) else 0
  structure(c(Q_local = mean(qnx[seq_len(K_max)]), Q_global = q_global), K_max = K_max)
}
