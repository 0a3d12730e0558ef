# Quality measures of embeddings. The
# neighbourhood measures run row by row in C++ (inst/include/manifoldOOS/quality.h).

# ---- validation -------------------------------------------------------------

# X and Y as matrices with the same number of rows (names dropped).
check_pair <- function(X, Y, argX = "X", argY = "Y", min_rows = 3L) {
  X <- as_data_matrix(X, argX, min_rows = min_rows)
  Y <- as_data_matrix(Y, argY, min_rows = min_rows)
  if (nrow(Y) != nrow(X)) {
    abort_input(argY, sprintf("must have as many rows as `%s` (%d); it has %d.",
                              argX, nrow(X), nrow(Y)))
  }
  list(X = unname(X), Y = unname(Y))
}

# A vector of neighbourhood sizes, each a whole number in [1, max].
check_k_vector <- function(k, n, arg = "k", max = n - 2L) {
  if (!is.numeric(k) || length(k) < 1L || anyNA(k) || any(!is.finite(k))) {
    abort_input(arg, "must be a non-empty vector of finite whole numbers.")
  }
  if (any(abs(k - round(k)) > 0)) abort_input(arg, "must contain whole numbers only.")
  if (any(k < 1) || any(k > max)) {
    abort_input(arg, sprintf("must lie in [1, %d] (n - 2 for n = %d points); got %s.",
                             max, n, paste(utils::head(k[k < 1 | k > max], 3), collapse = ", ")))
  }
  as.integer(round(k))
}

is_coranking <- function(x) {
  inherits(x, c("manifold_coranking", "mo_coranking", "coranking"))
}

# ---- trustworthiness and continuity ----------------------------------------

#' Trustworthiness and continuity
#'
#' Venna and Kaski's neighbourhood-preservation measures. With `rho(i, j)` the
#' rank of point `j` among the neighbours of point `i` in the data `X` and
#' `r(i, j)` its rank in the embedding `Y` (1 = nearest, ties broken by the
#' smaller index, the point itself excluded):
#' \deqn{T(K) = 1 - G_K \sum_i \sum_{j \in U_K(i)} (\rho_{ij} - K),}{T(K) = 1 - G_K sum_i sum_{j in U_K(i)} (rho(i,j) - K),}
#' where `U_K(i)` are the `K` nearest neighbours of `i` in `Y` that are not
#' among its `K` nearest in `X` ("intrusions"); continuity `C(K)` swaps the
#' roles of `X` and `Y` ("extrusions", penalised by their rank in `Y`).
#' The normaliser is `G_K = 2 / (n K (2n - 3K - 1))` for `K < n/2` and
#' `G_K = 2 / (n (n - K) (n - K - 1))` for `K >= n/2`, so both measures lie in
#' `[0, 1]` (1 = every neighbourhood preserved). A uniformly random embedding
#' has expectation `1 - (n - 1 - K)(n - K) / ((n - 1)(2n - 3K - 1))` (about 0.5
#' for `K << n`).
#'
#' The computation never forms an `n x n` matrix: each point's distance rows
#' in `X` and `Y` are computed, the `K` nearest selected, and the exact ranks
#' of the few points outside a neighbourhood counted; rows are processed in
#' parallel. Time `O(n^2 (p + q))`, memory `O(n)` per thread. For data with
#' more than 24 columns the distances come from a BLAS cross-product of the
#' centred data (near-duplicates are recomputed exactly), so near-ties may
#' rank differently from an exact computation at the level of rounding.
#'
#' @param X Data: numeric matrix or data frame, one row per point, or the
#'   distances between the points (see `dist_input`).
#' @param Y Embedding of the same points: one row per point, or their
#'   distances (see `dist_input`).
#' @param k Neighbourhood sizes `K` (a vector is allowed), each in
#'   `[1, n - 2]`.
#' @param n_threads Number of threads (0 = all available).
#' @param dist_input Which inputs are distance matrices instead of
#'   coordinates. `NULL` (default): a `dist` object (see [stats::dist()]) is
#'   read as distances, anything else as coordinates; or a subset of
#'   `c("X", "Y")` naming the arguments that hold square (`n x n`, symmetric,
#'   zero diagonal) distance matrices. Ranks then come from the supplied
#'   distances (any metric: geodesic, correlation, ...); the co-ranking matrix
#'   is formed in full (`n - 1` at most `getOption("manifoldOOS.coranking_max_n",
#'   10000)`), and results equal those from the coordinates whose Euclidean
#'   distances are supplied.
#' @return A numeric vector, one value per element of `k`.
#' @references Venna, J. and Kaski, S. (2006) Local multidimensional scaling.
#'   *Neural Networks* 19, 889--899.
#' @seealso [rnx()] for the co-ranking based curve, [assess()] for all
#'   measures of a fit at once.
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(300), 100)
#' trustworthiness(X, X[, 1:2], k = c(5, 10))
#' continuity(X, X[, 1:2], k = c(5, 10))
#' # a similarity transform of the data preserves every neighbourhood
#' trustworthiness(X, 2 * X + 1, k = 10)
#' # from distances: the same numbers
#' trustworthiness(dist(X), X[, 1:2], k = c(5, 10))
trustworthiness <- function(X, Y, k = 10, n_threads = default_threads(), dist_input = NULL) {
  tc_measure(X, Y, k, n_threads, which = "T", dist_input = dist_input)
}

#' @rdname trustworthiness
#' @export
continuity <- function(X, Y, k = 10, n_threads = default_threads(), dist_input = NULL) {
  tc_measure(X, Y, k, n_threads, which = "C", dist_input = dist_input)
}

tc_measure <- function(X, Y, k, n_threads, which, dist_input = NULL) {
  if (uses_distances(X, Y, dist_input)) {
    Q <- coranking_from_distances(X, Y, dist_input)
    n <- attr(Q, "n_points")
    k <- check_k_vector(k, n)
    return(tc_from_coranking(Q, k, which))
  }
  d <- check_pair(X, Y)
  n <- nrow(d$X)
  k <- check_k_vector(k, n)
  n_threads <- check_threads(n_threads)
  r <- core(.mo_nx_measures(d$X, d$Y, 0L, k, which == "T", which == "C", FALSE, n_threads))
  r[[which]]
}

# ---- co-ranking, Q_NX, LCMC, R_NX -------------------------------------------

#' Co-ranking matrix
#'
#' Lee and Verleysen's co-ranking matrix: `Q[k, l]` counts the pairs `(i, j)`
#' such that `j` has rank `k` among the neighbours of `i` in the data `X` and
#' rank `l` in the embedding `Y` (ranks as in [trustworthiness()]). Rows are
#' high-dimensional ranks, columns low-dimensional ranks, as in the
#' \pkg{coRanking} package; every row and column of the full matrix sums to `n`.
#'
#' The full matrix has `(n - 1)^2` integer entries; it is refused above
#' `n - 1 > getOption("manifoldOOS.coranking_max_n", 10000)` (400 MB). With
#' `K_max` only the top-left `K_max x K_max` block is computed, row by row,
#' without ever forming a rank matrix; that is all [rnx()] and [lcmc()] need.
#'
#' @inheritParams trustworthiness
#' @param K_max `NULL` for the full matrix, or the size of the top-left block
#'   (`1 <= K_max <= n - 1`).
#' @return An integer matrix of class `"manifold_coranking"` (and `"mo_coranking"`, its
#'   former class, for one release) with attribute
#'   `n_points` (the number of points `n`).
#' @references Lee, J. A. and Verleysen, M. (2009) Quality assessment of
#'   dimensionality reduction: rank-based criteria. *Neurocomputing* 72,
#'   1431--1443.
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(60), 20)
#' Q <- coranking(X, X[, 1:2])
#' dim(Q)
#' all(rowSums(Q) == 20)
#' coranking(X, X[, 1:2], K_max = 3)
coranking <- function(X, Y, K_max = NULL, n_threads = default_threads(), dist_input = NULL) {
  if (uses_distances(X, Y, dist_input)) {
    Q <- coranking_from_distances(X, Y, dist_input)
    n <- attr(Q, "n_points")
    if (is.null(K_max)) return(Q)
    K_max <- check_number(K_max, "K_max", lower = 1, upper = n - 1, integer = TRUE)
    return(structure(unclass(Q)[seq_len(K_max), seq_len(K_max), drop = FALSE], n_points = n,
                     class = c("manifold_coranking", "mo_coranking")))
  }
  d <- check_pair(X, Y)
  n <- nrow(d$X)
  n_threads <- check_threads(n_threads)
  if (!is.null(K_max)) K_max <- check_number(K_max, "K_max", lower = 1, upper = n - 1, integer = TRUE)
  if (is.null(K_max) || K_max == n - 1) {
    max_n <- getOption("manifoldOOS.coranking_max_n", 10000)
    if (n - 1 > max_n) {
      abort_input("X", sprintf(paste0(
        "has %d rows: the full co-ranking matrix would need %.1f GB. Use `K_max` for the ",
        "top-left block (or raise options(manifoldOOS.coranking_max_n))."),
        n, 4 * (n - 1)^2 / 1e9))
    }
    Q <- core(.mo_coranking_full(d$X, d$Y, n_threads))
  } else {
    K_max <- check_number(K_max, "K_max", lower = 1, upper = n - 1, integer = TRUE)
    Q <- core(.mo_nx_measures(d$X, d$Y, K_max, integer(0), FALSE, FALSE, TRUE, n_threads))$block
  }
  structure(Q, n_points = n, class = c("manifold_coranking", "mo_coranking"))
}

#' @export
print.manifold_coranking <- function(x, ...) {
  check_dots(..., fun = "print()")
  cat(sprintf("<co-ranking matrix: %d x %d block for n = %d points>\n",
              nrow(x), ncol(x), attr(x, "n_points")))
  m <- min(nrow(x), 6L)
  print(unclass(x)[seq_len(m), seq_len(m), drop = FALSE][, , drop = FALSE])
  if (nrow(x) > m) cat("...\n")
  invisible(x)
}

# Q_NX(K), K = 1..K_max, from data or from a co-ranking matrix.
qnx_curve <- function(X, Y, K_max, n_threads, dist_input = NULL) {
  if (!is.null(Y) && uses_distances(X, Y, dist_input)) {
    Q <- coranking_from_distances(X, Y, dist_input)
    if (is.null(K_max)) K_max <- min(attr(Q, "n_points") - 2L, 1000L)
    return(qnx_curve(Q, NULL, K_max, n_threads))
  }
  if (is.null(Y)) {
    if (!is_coranking(X)) {
      abort_input("Y", "is missing: give the embedding `Y`, or a co-ranking matrix as `X`.")
    }
    Q <- unclass(X)
    n <- attr(X, "n_points")
    if (is.null(n)) n <- nrow(Q) + 1L
    avail <- min(nrow(Q), n - 2L)
    if (is.null(K_max)) K_max <- avail
    K_max <- check_number(K_max, "K_max", lower = 1, upper = avail, integer = TRUE)
    Qk <- Q[seq_len(K_max), seq_len(K_max), drop = FALSE]
    S <- apply(apply(Qk, 2, cumsum), 1, cumsum)  # S[l, k] = sum over the k x l block
    S <- matrix(S, K_max, K_max)
    return(list(qnx = diag(S) / (seq_len(K_max) * n), n = n))
  }
  d <- check_pair(X, Y)
  n <- nrow(d$X)
  if (is.null(K_max)) K_max <- min(n - 2L, 1000L)
  K_max <- check_number(K_max, "K_max", lower = 1, upper = n - 2, integer = TRUE)
  n_threads <- check_threads(n_threads)
  r <- core(.mo_nx_measures(d$X, d$Y, K_max, integer(0), FALSE, FALSE, FALSE, n_threads))
  list(qnx = r$qnx, n = n)
}

#' Co-ranking curves: R_NX, LCMC and the area under R_NX
#'
#' Rank-based neighbourhood measures for `K = 1, ..., K_max`:
#' `Q_NX(K) = (1 / (K n)) sum_i |N_K^X(i) intersect N_K^Y(i)|` (the average
#' overlap of the `K`-neighbourhoods in the data and in the embedding),
#' `LCMC(K) = Q_NX(K) - K / (n - 1)` (Chen and Buja) and
#' `R_NX(K) = ((n - 1) Q_NX(K) - K) / (n - 1 - K)` (Lee, Peluffo-Ordonez and
#' Verleysen), which is 1 for a perfect embedding and 0 in expectation for a
#' random one. `rnx_auc()` is the area under `R_NX` on a logarithmic `K` axis,
#' `sum_K R_NX(K) / K / sum_K 1 / K` (the weights are `1/K`; \pkg{coRanking}
#' calls it `AUC_ln_K`).
#'
#' The curves are computed row by row without forming a rank matrix (only the
#' counts for `K <= K_max` are accumulated), or read off a co-ranking matrix
#' when one is given as `X`. With `K_max < n - 2` the AUC is that of the
#' truncated curve.
#'
#' @inheritParams trustworthiness
#' @param X Data (numeric matrix or data frame, one row per point), or a
#'   co-ranking matrix from [coranking()] (or from the \pkg{coRanking} package)
#'   with `Y = NULL`. For `rnx_auc()` also a numeric vector: an `R_NX` curve.
#' @param Y Embedding of the same points, or `NULL` (see `X`).
#' @param K_max Largest neighbourhood size, in `[1, n - 2]`. Default
#'   `min(n - 2, 1000)` from data, the block size from a co-ranking matrix.
#' @return `rnx()` and `lcmc()`: a numeric vector whose element `K` is the
#'   value at neighbourhood size `K`. `rnx_auc()`: a single number in `[-1, 1]`
#'   (in `[0, 1]` unless the embedding is worse than random).
#' @references Lee, J. A., Peluffo-Ordonez, D. H. and Verleysen, M. (2015)
#'   Multi-scale similarities in stochastic neighbour embedding: reducing
#'   dimensionality while preserving both local and global structure.
#'   *Neurocomputing* 169, 246--261.
#'
#'   Chen, L. and Buja, A. (2009) Local multidimensional scaling for nonlinear
#'   dimension reduction, graph drawing, and proximity analysis. *JASA* 104,
#'   209--219.
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(600), 200)
#' r <- rnx(X, X[, 1:2], K_max = 50)
#' round(r[c(1, 10, 50)], 3)
#' rnx_auc(r)
#' rnx_auc(X, X[, 1:2])
#' lcmc(X, X[, 1:2], K_max = 10)
#' # from a co-ranking matrix
#' Q <- coranking(X, X[, 1:2], K_max = 50)
#' all.equal(rnx(Q), r)
rnx <- function(X, Y = NULL, K_max = NULL, n_threads = default_threads(), dist_input = NULL) {
  q <- qnx_curve(X, Y, K_max, n_threads, dist_input)
  K <- seq_along(q$qnx)
  ((q$n - 1) * q$qnx - K) / (q$n - 1 - K)
}

#' @rdname rnx
#' @export
lcmc <- function(X, Y = NULL, K_max = NULL, n_threads = default_threads(), dist_input = NULL) {
  q <- qnx_curve(X, Y, K_max, n_threads, dist_input)
  q$qnx - seq_along(q$qnx) / (q$n - 1)
}

#' @rdname rnx
#' @export
rnx_auc <- function(X, Y = NULL, K_max = NULL, n_threads = default_threads(), dist_input = NULL) {
  if (is.null(Y) && is.numeric(X) && is.null(dim(X)) && !is_coranking(X)) {
    r <- X
    if (length(r) < 1L || anyNA(r)) abort_input("X", "must be a non-empty R_NX curve without NA.")
    if (!is.null(K_max)) {
      K_max <- check_number(K_max, "K_max", lower = 1, upper = length(r), integer = TRUE)
      r <- r[seq_len(K_max)]
    }
  } else {
    r <- rnx(X, Y, K_max = K_max, n_threads = n_threads, dist_input = dist_input)
  }
  K <- seq_along(r)
  sum(r / K) / sum(1 / K)
}

# ---- residual variance ---------------------------------------------------------

#' Residual variance
#'
#' `residual_variance()` is Tenenbaum et al.'s measure `1 - R^2(G, D_Y)`: `G`
#' are the geodesic distances of the data (shortest paths in the symmetrised
#' `k`-nearest-neighbour graph of `X`, edge lengths Euclidean, as in Isomap)
#' or any supplied distance matrix, `D_Y` the Euclidean distances in the
#' embedding and `R` the Pearson correlation over point pairs. It is computed
#' row by row (one Dijkstra run per point, in parallel) without storing an
#' `n x n` matrix.
#'
#' `residual_variance_coords()` compares an embedding with ground-truth
#' coordinates `truth` (Qiao et al.'s variant): `1 - R^2` with `R` the
#' correlation over all entries of the two matrices. With `align =
#' "procrustes"` (default) `Y` is first aligned to the centred `truth` by
#' translation, rotation/reflection and isotropic scale (see [procrustes()]),
#' which makes the measure invariant to similarity transforms of `Y`;
#' `align = "none"` is the literal formula (sensitive to rotation, axis order
#' and offsets of `Y`; requires equal numbers of columns).
#'
#' @inheritParams trustworthiness
#' @param X Data (one row per point); may be `NULL` when `distances` is given.
#' @param Y Embedding of the same points: one row per point.
#' @param k Number of neighbours of the graph for the geodesic distances.
#' @param pairs `"upper"` (default): every unordered pair once, no diagonal;
#'   `"all"`: all `n^2` ordered pairs including the zero diagonal, which
#'   reproduces the numbers of Tenenbaum et al.'s code (the two differ by
#'   `O(1/n)`).
#' @param distances Optional `n x n` symmetric distance matrix (or `dist`
#'   object) to use instead of the geodesic distances of `X`.
#' @return A single number in `[0, 1]`; 0 when the distances are perfectly
#'   linearly related.
#' @references Tenenbaum, J. B., de Silva, V. and Langford, J. C. (2000) A
#'   global geometric framework for nonlinear dimensionality reduction.
#'   *Science* 290, 2319--2323.
#' @export
#' @examples
#' set.seed(1)
#' t <- sort(runif(150, 0, 1.5 * pi))
#' X <- cbind(cos(t), sin(t), 0.02 * rnorm(150))  # a thin arc
#' residual_variance(X, matrix(t), k = 8)         # arc length: close to 0
#' residual_variance(X, X[, 1, drop = FALSE], k = 8)
#' residual_variance_coords(cbind(-2 * t + 1), matrix(t))
residual_variance <- function(X, Y, k = 10, pairs = c("upper", "all"), distances = NULL,
                              n_threads = default_threads()) {
  pairs <- check_choice(pairs, c("upper", "all"), "pairs")
  n_threads <- check_threads(n_threads)
  if (!is.null(distances)) {
    D <- if (inherits(distances, "dist")) as.matrix(distances) else distances
    D <- as_data_matrix(D, "distances")
    Y <- as_data_matrix(Y, "Y")
    if (ncol(D) != nrow(D)) abort_input("distances", "must be a square matrix or a `dist` object.")
    if (nrow(Y) != nrow(D)) {
      abort_input("Y", sprintf("must have as many rows as `distances` (%d); it has %d.",
                               nrow(D), nrow(Y)))
    }
    if (max(abs(D - t(D))) > 1e-8 * max(abs(D))) abort_input("distances", "must be symmetric.")
    return(core(.mo_rv_dist(unname(D), unname(Y), pairs == "all", n_threads)))
  }
  d <- check_pair(X, Y)
  k <- check_k(k, nrow(d$X), "k")
  g <- neighbor_graph(d$X, k = k, symmetrize = "or", weights = "distance",
                       on_disconnected = "error")
  core(.mo_rv_geodesic(g$W, d$Y, pairs == "all", n_threads))
}

#' @rdname residual_variance
#' @param truth Ground-truth coordinates of the same points (one row per point).
#' @param align `"procrustes"` (default) or `"none"`, see Details.
#' @export
residual_variance_coords <- function(Y, truth, align = c("procrustes", "none")) {
  d <- check_pair(truth, Y, "truth", "Y")
  align <- check_choice(align, c("procrustes", "none"), "align")
  Z <- d$X
  if (align == "none") {
    if (ncol(d$Y) != ncol(Z)) {
      abort_input("Y", sprintf("must have as many columns as `truth` (%d) with align = \"none\"; it has %d.",
                               ncol(Z), ncol(d$Y)))
    }
    Yh <- d$Y
  } else {
    pr <- core(.mo_procrustes(Z, d$Y, TRUE, TRUE))
    Yh <- sweep(pr$fitted, 2, colMeans(pr$fitted))
    Z <- pad_columns(sweep(Z, 2, colMeans(Z)), ncol(Yh))
  }
  if (stats::sd(as.vector(Yh)) == 0 || stats::sd(as.vector(Z)) == 0) {
    abort_numerical("residual variance is undefined for a constant configuration.")
  }
  1 - stats::cor(as.vector(Yh), as.vector(Z))^2
}

pad_columns <- function(M, q) {
  if (ncol(M) >= q) return(M)
  cbind(M, matrix(0, nrow(M), q - ncol(M)))
}

# ---- Procrustes ----------------------------------------------------------------

#' Procrustes alignment
#'
#' Finds the similarity transform that moves the configuration `Y` closest to
#' `target` in the least-squares sense: `fitted = scale * Y %*% rotation +
#' 1 translation^T`. Both are centred, `svd(t(Y_c) %*% target_c) = U S V^T`,
#' `rotation = U V^T`, `scale = tr(S) / ||Y_c||_F^2` and the translation
#' matches the centroids. By default the orthogonal matrix may be a
#' reflection (embeddings are defined up to reflections); `reflection = FALSE`
#' restricts it to proper rotations (`det = 1`, the last singular value
#' enters the trace with a minus sign when needed). When the numbers of
#' columns differ, the narrower matrix is padded with zero columns.
#'
#' `procrustes_dist()` returns one of these distances:
#' `"ss"` the residual sum of squares with optimal scale (equal to
#' `vegan::procrustes(target, Y)$ss`); `"matlab_d"` that residual divided by
#' `||target_c||^2`, i.e. `1 - tr(S)^2 / (||target_c||^2 ||Y_c||^2)`
#' (MATLAB's `procrustes` `d`, SciPy's disparity; symmetric in the two
#' arguments, in `[0, 1]`); `"orthogonal"` the Frobenius distance
#' `min_R ||target_c - Y_c R||` without scaling (Golub and Van Loan's
#' orthogonal Procrustes problem, after centring).
#'
#' @param Y Configuration to move (one row per point).
#' @param target Reference configuration with the same rows.
#' @param scale Fit an isotropic scale factor (otherwise `scale = 1`).
#' @param reflection Allow reflections (improper rotations).
#' @return `procrustes()`: a list of class `"manifold_procrustes"` (and `"mo_procrustes"`,
#'   its former class, for one release) with `rotation`
#'   (`q x q` orthogonal), `scale`, `translation` (length `q`), `fitted`
#'   (`n x q`), `ss` (`||target - fitted||_F^2`), `distance` (`sqrt(ss)`),
#'   `matlab_d` and `orthogonal` (see `procrustes_dist()`).
#'   `procrustes_dist()`: a single number.
#' @section Name clash with vegan:
#' \pkg{vegan}'s `procrustes()` masks this one when vegan is attached after
#' manifoldOOS; call `manifoldOOS::procrustes()` then.
#' @export
#' @examples
#' set.seed(1)
#' A <- matrix(rnorm(40), 20)
#' R <- qr.Q(qr(matrix(rnorm(4), 2)))
#' B <- 3 * A %*% R + matrix(c(1, -2), 20, 2, byrow = TRUE)
#' pr <- procrustes(A, B)          # move A onto B
#' pr$scale
#' all.equal(pr$rotation, R)
#' pr$distance
#' procrustes_dist(A, B, type = "matlab_d")
procrustes <- function(Y, target, scale = TRUE, reflection = TRUE) {
  d <- check_pair(target, Y, "target", "Y", min_rows = 1L)
  scale <- check_flag(scale, "scale")
  reflection <- check_flag(reflection, "reflection")
  r <- core(.mo_procrustes(d$X, d$Y, scale, reflection))
  d_matlab <- if (r$ss_target > 0 && r$ss_moving > 0) {
    max(0, 1 - r$trace^2 / (r$ss_target * r$ss_moving))
  } else NA_real_
  structure(list(
    rotation = r$rotation,
    scale = r$scale,
    translation = r$translation,
    fitted = r$fitted,
    ss = r$ss,
    distance = sqrt(r$ss),
    matlab_d = d_matlab,
    orthogonal = sqrt(max(0, r$ss_target + r$ss_moving - 2 * r$trace)),
    reflection = reflection,
    scaled = scale
  ), class = c("manifold_procrustes", "mo_procrustes"))
}

#' @export
print.manifold_procrustes <- function(x, digits = 4, ...) {
  check_dots(..., fun = "print()")
  cat(sprintf("<Procrustes alignment: %d points, %d dimensions>\n", nrow(x$fitted), ncol(x$fitted)))
  cat(sprintf("  scale %s, translation (%s)\n", format(signif(x$scale, digits)),
              paste(format(signif(x$translation, digits)), collapse = ", ")))
  cat(sprintf("  residual sum of squares %s (distance %s), matlab_d %s\n",
              format(signif(x$ss, digits)), format(signif(x$distance, digits)),
              format(signif(x$matlab_d, digits))))
  invisible(x)
}

#' @rdname procrustes
#' @param type Distance: `"ss"`, `"matlab_d"` or `"orthogonal"`.
#' @export
procrustes_dist <- function(Y, target, type = c("ss", "matlab_d", "orthogonal")) {
  type <- check_choice(type, c("ss", "matlab_d", "orthogonal"), "type")
  pr <- procrustes(Y, target, scale = TRUE, reflection = TRUE)
  pr[[type]]
}

# Apply a fitted alignment to other rows of the moved configuration.
apply_procrustes <- function(pr, Y) {
  Y <- pad_columns(Y, ncol(pr$rotation))
  out <- pr$scale * Y %*% pr$rotation
  sweep(out, 2, pr$translation, "+")
}

# ---- out-of-sample errors --------------------------------------------------------

#' Out-of-sample embedding errors
#'
#' Compares the out-of-sample coordinates `Y_new` of held-out points with
#' reference coordinates `reference_new` of the same points (the batch
#' embedding of all data, or ground truth). Embeddings are only defined up to
#' translation, rotation/reflection and scale, so the two are aligned first;
#' `align = "train"` fits the alignment on the training points only
#' (`Y_train`, the out-of-sample model's training embedding, onto
#' `reference_train`) and applies it to the held-out points, so that
#' extrapolation errors are not fitted away; `align = "test"` fits it on the
#' held-out points themselves (optimistic); `align = "none"` does not rotate.
#'
#' * `type = "embedding"` (Yang et al.'s LGRM embedding error):
#'   `E = (1/m) ||F_new - P_new R||_F^2`, where `F = (reference - mean) / s_F`
#'   and `P = (Y - mean) / s_P` are centred and divided by the RMS radius of the
#'   training rows (`s^2 = ||Y_A - mean||_F^2 / |A|`) and `R` is the orthogonal
#'   Procrustes rotation of `P_train` onto `F_train`. With `scale = TRUE` the
#'   alignment is a full similarity Procrustes fit (optimal isotropic scale)
#'   followed by normalisation of both by `s_F`. `E` is dimensionless (training
#'   cloud of unit RMS radius). With `align = "test"` the statistics and the
#'   rotation come from the held-out rows.
#' * `type = "procrustes"` (Raducanu and Dornaika's alignment error):
#'   `e = dist(Y_new, reference_new) / ||reference_new||_F`, `dist` the
#'   Procrustes distance (translation, rotation/reflection and, with
#'   `scale = TRUE` (default), isotropic scale), fitted by default on the
#'   held-out rows (`align = "test"`). `denom = "raw"` divides by the uncentred
#'   norm as printed in the paper, `"centred"` by the centred norm (then
#'   `e^2` is MATLAB's `procrustes` `d`). `e` lies in `[0, 1]` for the default.
#' * `type = "goose"` (Strange and Zwiggelaar's GOoSE error):
#'   `e = sqrt(sum ||reference_new - aligned(Y_new)||^2 / m)` after aligning
#'   the training embedding to the reference (translation + rotation/reflection,
#'   no scale unless `scale = TRUE`); it is in the units of the reference.
#'
#' @param Y_new Out-of-sample coordinates of the `m` held-out points.
#' @param reference_new Reference coordinates of the same points.
#' @param Y_train,reference_train Training embedding of the out-of-sample model
#'   and the reference coordinates of the same training points; needed for
#'   `align = "train"` and `"none"` (except `type = "procrustes"` with
#'   `align = "none"`).
#' @param type `"embedding"`, `"procrustes"` or `"goose"` (see Details).
#' @param align `"train"`, `"test"` or `"none"`; `NULL` uses `"train"` for
#'   `"embedding"` and `"goose"` and `"test"` for `"procrustes"`.
#' @param scale Fit an isotropic scale in the alignment; `NULL` uses `FALSE`
#'   for `"embedding"` (both sides are normalised instead) and `"goose"`, and
#'   `TRUE` for `"procrustes"`.
#' @param denom For `type = "procrustes"`: `"raw"` or `"centred"` norm of the
#'   reference in the denominator.
#' @return A single non-negative number (0 = identical up to the alignment).
#' @references Yang, Y., Nie, F., Xiang, S., Zhuang, Y. and Wang, W. (2010)
#'   Local and global regressive mapping for manifold learning with
#'   out-of-sample extrapolation. *AAAI*.
#'
#'   Raducanu, B. and Dornaika, F. (2012) A supervised non-linear
#'   dimensionality reduction approach for manifold learning. *Pattern
#'   Recognition* 45, 2432--2444.
#' @export
#' @examples
#' set.seed(1)
#' ref <- matrix(rnorm(200), 100)                 # reference embedding
#' R <- qr.Q(qr(matrix(rnorm(4), 2)))
#' Y <- 0.5 * ref %*% R + 2                       # same up to similarity
#' Y[91:100, ] <- Y[91:100, ] + rnorm(20, sd = 0.05)  # imperfect OOS points
#' oos_error(Y[91:100, ], ref[91:100, ], Y[1:90, ], ref[1:90, ])
#' oos_error(Y[91:100, ], ref[91:100, ], type = "procrustes")
#' oos_error(Y[91:100, ], ref[91:100, ], Y[1:90, ], ref[1:90, ], type = "goose", scale = TRUE)
oos_error <- function(Y_new, reference_new, Y_train = NULL, reference_train = NULL,
                      type = c("embedding", "procrustes", "goose"), align = NULL,
                      scale = NULL, denom = c("raw", "centred")) {
  type <- check_choice(type, c("embedding", "procrustes", "goose"), "type")
  if (is.null(align)) align <- if (type == "procrustes") "test" else "train"
  align <- check_choice(align, c("train", "test", "none"), "align")
  if (is.null(scale)) scale <- type == "procrustes"
  scale <- check_flag(scale, "scale")
  denom <- check_choice(denom, c("raw", "centred"), "denom")
  d <- check_pair(reference_new, Y_new, "reference_new", "Y_new", min_rows = 1L)
  Fn <- d$X
  Yn <- d$Y
  need_train <- align == "train" || (align == "none" && type == "embedding")
  if (need_train) {
    if (is.null(Y_train) || is.null(reference_train)) {
      abort_input(if (is.null(Y_train)) "Y_train" else "reference_train",
                  sprintf("is needed for align = \"%s\".", align))
    }
    tr <- check_pair(reference_train, Y_train, "reference_train", "Y_train", min_rows = 1L)
    if (ncol(tr$X) != ncol(Fn)) {
      abort_input("reference_train", "must have as many columns as `reference_new`.")
    }
    if (ncol(tr$Y) != ncol(Yn)) abort_input("Y_train", "must have as many columns as `Y_new`.")
  }
  q <- max(ncol(Fn), ncol(Yn))
  rms_norm <- function(rows) {
    mu <- colMeans(rows)
    s <- sqrt(sum(sweep(rows, 2, mu)^2) / nrow(rows))
    if (s == 0) abort_numerical("a configuration is constant; the error is undefined.")
    list(mu = mu, s = s)
  }
  normalise <- function(M, st) pad_columns(sweep(M, 2, st$mu) / st$s, q)
  # Yn aligned onto Fn (types "procrustes" and "goose")
  aligned <- function() {
    switch(align,
      test = procrustes(Yn, Fn, scale = scale)$fitted,
      train = apply_procrustes(procrustes(tr$Y, tr$X, scale = scale), Yn),
      none = pad_columns(Yn, q))
  }
  m <- nrow(Fn)
  switch(type,
    embedding = {
      if (align == "test") {
        sF <- rms_norm(Fn)
        F_new <- normalise(Fn, sF)
        if (scale) {
          P_new <- normalise(procrustes(Yn, Fn, scale = TRUE)$fitted, sF)
        } else {
          P0 <- normalise(Yn, rms_norm(Yn))
          P_new <- procrustes(P0, F_new, scale = FALSE)$fitted
        }
      } else {
        sF <- rms_norm(tr$X)
        F_new <- normalise(Fn, sF)
        if (align == "none") {
          P_new <- normalise(Yn, rms_norm(tr$Y))
        } else if (scale) {
          pr <- procrustes(tr$Y, tr$X, scale = TRUE)
          P_new <- normalise(apply_procrustes(pr, Yn), sF)
        } else {
          sP <- rms_norm(tr$Y)
          pr <- procrustes(normalise(tr$Y, sP), normalise(tr$X, sF), scale = FALSE)
          P_new <- apply_procrustes(pr, normalise(Yn, sP))
        }
      }
      sum((F_new - P_new)^2) / m
    },
    procrustes = {
      fitted <- aligned()
      dist <- sqrt(sum((pad_columns(Fn, q) - fitted)^2))
      den <- if (denom == "raw") sqrt(sum(Fn^2)) else sqrt(sum(sweep(Fn, 2, colMeans(Fn))^2))
      if (den == 0) abort_numerical("the reference configuration has zero norm.")
      dist / den
    },
    goose = {
      fitted <- aligned()
      sqrt(sum((pad_columns(Fn, q) - fitted)^2) / m)
    })
}

# ---- 1-NN classification -------------------------------------------------------------

#' Nearest-neighbour classification accuracy in an embedding
#'
#' Classifies each test point by a majority vote among its `k` nearest
#' training points in the embedding (Euclidean distance, ties in distance
#' broken by the smaller training index; a tie in the vote goes to the label
#' of the nearest neighbour among the tied labels) and returns the proportion
#' classified correctly. Without `Y_test` the training points are classified
#' leave-one-out (each point excluded from its own neighbours).
#'
#' @param Y_train Training embedding (one row per point).
#' @param labels_train Labels of the training points (vector or factor).
#' @param Y_test Embedding of the test points, or `NULL` for leave-one-out.
#' @param labels_test Labels of the test points.
#' @param k Number of neighbours (default 1; odd values avoid ties).
#' @return The accuracy, a number in `[0, 1]`, with attributes `predicted`
#'   (the predicted labels) and `kappa` (Cohen's kappa of the predictions).
#' @export
#' @examples
#' set.seed(1)
#' Y <- rbind(matrix(rnorm(40), 20), matrix(rnorm(40, 5), 20))
#' lab <- rep(c("a", "b"), each = 20)
#' acc <- knn_accuracy(Y, lab)              # leave-one-out
#' c(acc)
#' attr(acc, "kappa")
#' c(knn_accuracy(Y[-(1:5), ], lab[-(1:5)], Y[1:5, ], lab[1:5], k = 3))
knn_accuracy <- function(Y_train, labels_train, Y_test = NULL, labels_test = NULL, k = 1) {
  Yt <- as_data_matrix(Y_train, "Y_train", min_rows = 2L)
  n <- nrow(Yt)
  check_labels <- function(lab, len, arg) {
    if (is.null(lab) || !is.atomic(lab) || length(lab) != len) {
      abort_input(arg, sprintf("must be a vector with one label per row (%d).", len))
    }
    if (anyNA(lab)) abort_input(arg, "must not contain NA.")
    as.character(lab)
  }
  lab_tr <- check_labels(labels_train, n, "labels_train")
  if (is.null(Y_test)) {
    k <- check_k(k, n, "k", self = TRUE)
    idx <- knn(Yt, k = k)$idx
    lab_te <- lab_tr
  } else {
    Yq <- as_data_matrix(Y_test, "Y_test", min_rows = 1L)
    if (ncol(Yq) != ncol(Yt)) {
      abort_input("Y_test", sprintf("must have %d columns, like `Y_train`; it has %d.", ncol(Yt), ncol(Yq)))
    }
    lab_te <- check_labels(labels_test, nrow(Yq), "labels_test")
    k <- check_k(k, n, "k", self = FALSE)
    idx <- knn(Yt, k = k, query = Yq)$idx
  }
  idx <- matrix(idx, ncol = k)
  nb <- matrix(lab_tr[idx], ncol = k)
  pred <- if (k == 1L) nb[, 1] else apply(nb, 1, function(v) {
    counts <- table(v)
    best <- names(counts)[counts == max(counts)]
    v[v %in% best][1]  # the nearest among the tied labels
  })
  acc <- mean(pred == lab_te)
  lev <- union(lab_tr, lab_te)
  pe <- sum(table(factor(pred, lev)) * table(factor(lab_te, lev))) / length(lab_te)^2
  kappa <- if (pe < 1) (acc - pe) / (1 - pe) else NA_real_
  structure(acc, predicted = pred, kappa = kappa)
}
