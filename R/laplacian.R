#' Laplacian eigenmaps
#'
#' Belkin & Niyogi's Laplacian eigenmaps on a neighbourhood graph with weights
#' \eqn{W} (heat kernel \eqn{\exp(-d_{ij}^2 / (2\sigma^2))} or binary),
#' degrees \eqn{d_i = \sum_j W_{ij}} and \eqn{L = D - W}. Variants
#' (`laplacian =`):
#' * `"generalized"` (default, Belkin & Niyogi): \eqn{L z = \lambda D z},
#'   columns scaled so that \eqn{z^\top D z = 1};
#' * `"symmetric"` (Ng, Jordan & Weiss; Bengio et al.'s spectral-clustering
#'   embedding): \eqn{L_{sym} v = \lambda v} with
#'   \eqn{L_{sym} = I - D^{-1/2} W D^{-1/2}}, unit-norm columns;
#' * `"unnormalized"` (ratio cut): \eqn{L y = \lambda y}, unit-norm columns.
#'
#' The trivial eigenvector (\eqn{1}, or \eqn{D^{1/2} 1} for `"symmetric"`) is
#' checked and dropped by the dense solver; the sparse solver deflates it
#' instead (it is projected out of every shift-invert iterate and only `ndim`
#' pairs are computed), so the next eigenvalues may lie arbitrarily close to 0
#' as on graphs of \eqn{10^6} points. Either way an eigenvalue below
#' \eqn{10^{-9}} times the trace scale after the trivial one is the error of a
#' disconnected graph. The graph is built by [neighbor_graph()] with the
#' `"or"` symmetrisation: `graph = "knn"` (default), `"eps"`
#' (\eqn{\varepsilon}-ball, radius `eps`), or `"full"` (all pairs, dense;
#' at most 5000 points). A disconnected graph is an error that names the
#' smallest `k` (or `eps`) connecting it, unless `on_disconnected = "connect"`.
#'
#' Sparse graphs use dense LAPACK up to `min(getOption("manifoldOOS.dense_max_n",
#' 2000), getOption("manifoldOOS.dense_sparse_max_n", 500))` points. Above,
#' `eigen_solver = "auto"` uses a sparse shift-invert Lanczos solver (negative
#' shift, never 0) or LOBPCG (Knyazev 2001) preconditioned by a
#' smoothed-aggregation algebraic multigrid V-cycle (Vaněk, Mandel & Brezina
#' 1996). Shift-invert factorises the Laplacian, which is fast for graphs of
#' low-dimensional data but fills in heavily (time and memory) for kNN graphs
#' of high-dimensional, noisy data with many points; LOBPCG needs only
#' products with the Laplacian and multigrid cycles, whose cost grows
#' linearly with the number of edges. The automatic choice takes
#' shift-invert below `getOption("manifoldOOS.fill_min_n", 2e4)` points;
#' above, a symbolic analysis of the factorisation (CHOLMOD's fill-reducing
#' ordering, no numerical work) predicts its cost, and LOBPCG is taken when
#' the factorisation would need more than
#' `getOption("manifoldOOS.lobpcg_flops_per_nnz", 1e4)` floating-point
#' operations per nonzero of the Laplacian or its factor would take more than
#' half the memory available. From `getOption("manifoldOOS.lobpcg_min_n",
#' 1e5)` points on, where that analysis would itself cost a fair share of a
#' LOBPCG solve, two patches of the graph are analysed first (the first
#' 10,000 and 20,000 points reached by a breadth-first search; option
#' `manifoldOOS.fill_screen_n`): their cost per nonzero, extrapolated to the
#' whole graph by its growth from the smaller patch to the larger, must lie
#' within twice the threshold for the whole graph to be analysed; otherwise
#' LOBPCG is taken at once (`manifoldOOS.fill_screen_n = 0`: always, as
#' before this screen). `eigen_solver` forces a path: `"dense"`,
#' `"sparse"` (shift-invert) or `"lobpcg"`. The path taken is recorded in
#' `fit$solver$method`, and what the analysis predicted in
#' `fit$solver$note` (shown by `summary()`). Both iterative solvers return
#' eigenvectors with relative residuals below \eqn{10^{-6}} or stop with an
#' error. The full mesh is always solved densely.
#'
#' **Out-of-sample maps** (`predict(fit, newdata, method = )`). A new point
#' \eqn{a} gets kernel weights \eqn{K(a, x_i)} over its neighbours among the
#' training points — its `k` nearest (`"knn"`), those within `eps` (`"eps"`;
#' the nearest one when none is), or all (`"full"`) — with the weight type and
#' \eqn{\sigma} of the fit, and \eqn{d(a) = \sum_i K(a, x_i)}.
#' * `"nystrom"` (default; Bengio et al. 2004): for `"generalized"`,
#'   \eqn{z_k(a) = \frac{1}{\ell_k} \sum_i \frac{K(a, x_i)}{d(a)} z_{ik}} with
#'   \eqn{\ell_k = 1 - \lambda_k}; for `"symmetric"`,
#'   \eqn{v_k(a) = \frac{1}{\ell_k} \sum_i K(a, x_i) v_{ik} / \sqrt{d(a) d_i}};
#'   for `"unnormalized"`, \eqn{y_k(a) = \sum_i K(a, x_i) y_{ik} / (d(a) - \lambda_k)}.
#' * `"lvm"` (Laplacian eigenmaps latent variable model, Carreira-Perpiñán &
#'   Lu 2007): the kernel-weighted average
#'   \eqn{y(a) = \sum_i K(a, x_i) y_i / d(a)}. For `"generalized"` it equals the
#'   Nyström map times \eqn{\ell_k} per column.
#'
#' *Reproduction property.* Each Nyström formula is the eigen-equation solved
#' for one row: fed with the **training** kernel row of \eqn{x_j} (its row of
#' \eqn{W}, no self-weight), it returns \eqn{y_j} exactly. Recomputing the row
#' for \eqn{x_j} as a new point does not: the neighbour search now finds
#' \eqn{x_j} itself at distance 0 (weight 1) and drops its `k`-th neighbour, so
#' `predict(fit, X, snap = FALSE)` differs from the embedding. With
#' `snap = TRUE` (default) a new point identical to a training point simply
#' gets that point's coordinates.
#'
#' *Far points.* Heat weights are evaluated relative to the nearest
#' neighbour inside the normalised ratios, so a point far from the data gets
#' the finite limit of the map (the nearest neighbour's coordinates divided by
#' \eqn{\ell_k} for `"generalized"`, the origin for `"symmetric"` and
#' `"unnormalized"`) instead of `NaN`; such rows are flagged in the
#' attribute `"far"` of the prediction.
#'
#' @inheritParams lle
#' @param X Training data: a numeric matrix or data frame, one row per point;
#'   or the distances between the training points, as a [stats::dist()]
#'   object or a square matrix with `metric = "precomputed"` (see
#'   [manifoldOOS-distances]; [predict()] then takes the distances of new
#'   points to the training points).
#' @param k Number of nearest neighbours (kNN graph, and the `k`-th neighbour
#'   distance of `bandwidth = "median_knn"`).
#' @param graph `"knn"`, `"eps"` or `"full"` (the first two for distances).
#' @param bandwidth Heat-kernel \eqn{\sigma}: a positive number or a rule of
#'   [neighbor_graph()] (`"median_knn"`, default; `"mean_pairwise"`,
#'   `"median_pairwise"`). Ignored for binary weights.
#' @param weights `"heat"` (default) or `"binary"` (Belkin & Niyogi's
#'   "simple-minded" weights).
#' @param eps Radius of the \eqn{\varepsilon}-ball graph.
#' @param laplacian Eigenproblem variant (see Details).
#' @param on_disconnected `"error"` (default) or `"connect"` (join the
#'   components by the edges of a minimum spanning tree over them, with a
#'   warning; see [neighbor_graph()]).
#' @param eigen_solver `"auto"` (default), `"dense"`, `"sparse"`
#'   (shift-invert Lanczos) or `"lobpcg"` (LOBPCG with an algebraic multigrid
#'   preconditioner); see Details.
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @param pca `NULL` (default) or the number of principal components to fit
#'   on: the columns are centred (and scaled, with `pca_scale = TRUE`) and
#'   reduced by [pca()] first (sparse matrices stay sparse); the projection
#'   is part of the fit and [predict()] applies it. See [manifoldOOS-input].
#' @param pca_scale With `pca`: scale the columns to unit variance first.
#' @param neighbors `NULL` (default: searched) or the neighbour lists of the
#'   training rows, `list(idx, dist)` as [knn()] returns them (from another
#'   tool, say): `n` rows, at least as many columns as the fit needs (`k`),
#'   nearest first, a point not listing itself (or listing itself first in
#'   every row, as a search that includes the point returns it; that column
#'   is dropped). The fit's neighbour graph is built from them; new points
#'   are searched exactly. See [manifoldOOS-input].
#' @param metric `"euclidean"` (default), `"cosine"` or `"correlation"`:
#'   with the last two the fit works on the rows scaled to unit length
#'   (centred first, for correlation), where Euclidean distance orders
#'   neighbours as the metric does. Recorded in the fit and applied to new
#'   rows by [predict()]. See [manifoldOOS-input]. `"precomputed"`: `X` holds
#'   distances (see [manifoldOOS-distances]).
#' @return A `manifold_fit` of subclass `manifold_le`, with the training data
#'   (`X_train`), the graph settings (`graph`, `k`, `eps`, `weights`, `sigma`),
#'   `laplacian`, the eigenvalues (the dropped trivial one first), the degrees
#'   (`degree`, for `"symmetric"` only), `n_duplicates` and `solver`.
#' @references
#' Knyazev, A. V. (2001). Toward the optimal preconditioned eigensolver:
#' locally optimal block preconditioned conjugate gradient method. *SIAM
#' Journal on Scientific Computing*, 23(2), 517-541.
#'
#' Vaněk, P., Mandel, J. & Brezina, M. (1996). Algebraic multigrid by
#' smoothed aggregation for second and fourth order elliptic problems.
#' *Computing*, 56(3), 179-196.
#' @seealso [manifold_fit], [neighbor_graph()], [graph_laplacian()].
#' @export
#' @examples
#' roll <- swiss_roll(600, seed = 1)
#' fit <- laplacian_eigenmaps(roll$x[1:500, ], ndim = 2, k = 10)
#' fit
#' y_nys <- predict(fit, roll$x[501:600, ])
#' y_lvm <- predict(fit, roll$x[501:600, ], method = "lvm")
#' plot(fit, color = roll$color[1:500])
laplacian_eigenmaps <- function(X, ndim = 2, k = 10, graph = c("knn", "eps", "full"),
                                bandwidth = "median_knn", weights = c("heat", "binary"),
                                eps = NULL,
                                laplacian = c("generalized", "symmetric", "unnormalized"),
                                on_disconnected = c("error", "connect"),
                                eigen_solver = c("auto", "dense", "sparse", "lobpcg"),
                                knn_method = getOption("manifoldOOS.knn_method", "auto"),
                                pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                                verbose = getOption("manifoldOOS.verbose", FALSE)) {
  given <- is_distance_input(X, metric)
  n <- fit_prologue(ndim_gap = 2L, distances = "laplacian_eigenmaps") %||% return(fit_input_model())
  graph <- check_choice(graph, c("knn", "eps", "full"), "graph")
  if (given && graph == "full") {
    abort_input("graph", "= \"full\" is not available for distances; use graph = \"knn\" or \"eps\".")
  }
  weights <- check_choice(weights, c("heat", "binary"), "weights")
  laplacian <- check_choice(laplacian, c("generalized", "symmetric", "unnormalized"), "laplacian")
  on_disconnected <- check_choice(on_disconnected, c("error", "connect"), "on_disconnected")
  eigen_solver <- check_choice(eigen_solver, c("auto", "dense", "sparse", "lobpcg"), "eigen_solver")
  heat <- weights == "heat"
  rule <- NA_character_
  if (heat) {
    bw <- check_width_rule(bandwidth, "bandwidth")
    rule <- bw$rule
    bandwidth <- bw$value
  }
  need_k <- graph == "knn" || identical(rule, "median_knn")
  k <- if (need_k) check_k(k, n) else NA_integer_
  if (graph == "eps") {
    if (is.null(eps)) abort_input("eps", "must be given when graph = \"eps\".")
    eps <- check_number(eps, "eps", lower = 0, lower_open = TRUE)
  } else {
    eps <- NA_real_
  }
  if (graph == "full") {
    if (n > 5000L) abort_input("graph", sprintf("= \"full\" is limited to 5000 points (dense n x n weights); X has %d rows.", n))
    if (eigen_solver %in% c("sparse", "lobpcg")) abort_input("eigen_solver", "must be \"auto\" or \"dense\" for graph = \"full\".")
  }
  threads <- default_threads()
  t0 <- mo_progress(verbose, "Laplacian eigenmaps: %d points x %d features -> %d dimensions (%s graph%s)",
                    n, ncol(X), ndim, graph, if (graph == "knn") sprintf(", k = %d", k) else "")
  res <- timed({
    if (graph == "full") {
      nb <- if (need_k) knn(X, k, method = knn_method, n_threads = threads) else NULL
      sigma <- if (heat) graph_bandwidth(X, rule, bandwidth, nb, threads) else NA_real_
      d1 <- if (!is.null(nb)) nb$dist else knn(X, 1L, method = knn_method, n_threads = threads)$dist
      n_dup <- count_duplicates(X, d1)
      warn_duplicates(n_dup, "Laplacian eigenmaps")
      t1 <- mo_progress(verbose, "Laplacian eigenmaps: bandwidth chosen; dense eigen-solve of the full graph",
                        start = t0)
      m <- core(.mo_le_fit_full(X, if (heat) sigma else 1, !heat, laplacian, ndim))
      mo_progress(verbose, "Laplacian eigenmaps: eigen-solve done with %s", describe_solver(m$method),
                  start = t1)
      added <- 0L
    } else {
      g <- neighbor_graph(X, k = if (need_k) k else 10L, type = graph, eps = if (graph == "eps") eps else NULL,
                           symmetrize = "or", weights = weights,
                           sigma = if (heat) bandwidth else "median_knn",
                           on_disconnected = on_disconnected, knn_method = knn_method,
                           metric = if (given) distance_metric else "euclidean")
      sigma <- if (heat) g$sigma else NA_real_
      n_dup <- if (given) {
        count_duplicates_distances(X)
      } else {
        d1 <- if (graph == "knn") g$dist else knn(X, 1L, method = knn_method, n_threads = threads)$dist
        count_duplicates(X, d1)
      }
      warn_duplicates(n_dup, "Laplacian eigenmaps")
      t1 <- mo_progress(verbose, "Laplacian eigenmaps: graph built (%d edges, %d added to connect)",
                        as.integer(Matrix::nnzero(g$W) / 2), nrow(g$added_edges), start = t0)
      mo_progress(verbose, "Laplacian eigenmaps: %s Laplacian eigen-solve (eigen_solver = \"%s\")",
                  laplacian, eigen_solver)
      m <- core(.mo_le_fit_sparse(g$W, laplacian, ndim, le_eig_opts(eigen_solver)))
      mo_progress(verbose, "Laplacian eigenmaps: eigen-solve done with %s", describe_solver(m$method),
                  start = t1)
      added <- nrow(g$added_edges)
    }
    m$sigma <- sigma
    m$added <- added
    m
  })
  m <- res$value
  mo_progress(verbose, "Laplacian eigenmaps: done", start = t0)
  fit <- new_manifold_fit(
    class = "manifold_le", method = "Laplacian eigenmaps", embedding = m$Y, X = X,
    params = list(knn_method = knn_method, graph = graph, k = k, eps = eps, weights = weights, sigma = m$sigma,
                  laplacian = laplacian),
    eigenvalues = c(m$dropped, m$values),
    oos_default = "nystrom", oos_available = c("nystrom", "lvm"),
    fit_time = res$time, call = match.call(),
    X_train = if (given) NULL else X, graph = graph, k = k, eps = eps, weights = weights,
    sigma = m$sigma, sigma_rule = rule, laplacian = laplacian,
    degree = if (laplacian == "symmetric") m$degree else NULL,
    n_duplicates = n_dup, added_edges = m$added, solver = solver_info(m)
  )
  if (given) fit <- finish_distance_fit(fit, X, if (is.na(k)) 10L else k)
  fit
}

# Eigen-solver options of the sparse route: "sparse" is shift-invert Lanczos,
# "lobpcg" LOBPCG with the AMG preconditioner, "auto" lets the deflated solver
# choose from the size of the graph.
le_eig_opts <- function(eigen_solver) {
  opts <- spectral_eig_opts(if (eigen_solver == "lobpcg") "sparse" else eigen_solver)
  opts$deflated <- switch(eigen_solver, lobpcg = "lobpcg", sparse = "shift_invert", "auto")
  opts
}

#' @export
predict_native.manifold_le <- function(object, x, method, snap = TRUE, ...) {
  snap <- check_flag(snap, "snap")
  threads <- default_threads()
  Xt <- object$X_train
  Y <- unname(object$embedding)
  lambda <- object$eigenvalues[-1L]
  degree <- if (is.null(object$degree)) numeric(0) else object$degree
  binary <- object$weights == "binary"
  sigma <- if (binary) 1 else object$sigma
  nystrom <- method == "nystrom"
  m <- nrow(x)
  nn1 <- NULL
  if (object$graph == "knn") {
    nb <- fit_knn(object, Xt, object$k, query = x, n_threads = threads)
    nn1 <- list(idx = nb$idx[, 1L], dist = nb$dist[, 1L])
    if (!nystrom && !binary) {
      r <- core(.mo_lvm_average(Y, nb$idx, nb$dist, sigma))
    } else {
      k <- ncol(nb$idx)
      r <- core(.mo_le_extend(Y, lambda, degree, seq(0, by = k, length.out = m + 1L),
                              as.vector(t(nb$idx)), as.vector(t(nb$dist)),
                              object$laplacian, nystrom, binary, sigma))
    }
  } else {
    n1 <- fit_knn(object, Xt, 1L, query = x, n_threads = threads)
    nn1 <- list(idx = n1$idx[, 1L], dist = n1$dist[, 1L])
    if (object$graph == "eps") {
      rl <- if (is_distance_fit(object)) {
        radius_distances(NULL, object$eps, query = x)
      } else {
        radius_neighbors(Xt, object$eps, query = x, n_threads = threads)
      }
      ptr <- radius_ptr0(rl$ptr, m)
      cnt <- diff(ptr)
      empty <- cnt == 0L
      if (any(empty)) {
        # no training point within eps: use the nearest one (flagged as far)
        idx_l <- split(rl$idx, rep.int(seq_len(m), cnt))
        dist_l <- split(rl$dist, rep.int(seq_len(m), cnt))
        ii <- vector("list", m)
        dd <- vector("list", m)
        ii[!empty] <- idx_l
        dd[!empty] <- dist_l
        ii[empty] <- as.list(nn1$idx[empty])
        dd[empty] <- as.list(nn1$dist[empty])
        cnt[empty] <- 1L
        rl <- list(idx = unlist(ii), dist = unlist(dd))
        ptr <- c(0L, cumsum(cnt))
      }
      r <- core(.mo_le_extend(Y, lambda, degree, as.numeric(ptr), as.integer(rl$idx),
                              as.numeric(rl$dist), object$laplacian, nystrom, binary, sigma))
      r$far <- r$far | empty
    } else {
      r <- core(.mo_le_extend_full(Xt, Y, lambda, degree, x, object$laplacian, nystrom,
                                   binary, sigma))
    }
  }
  y <- r$y
  snapped <- rep(FALSE, m)
  if (snap) {
    snapped <- nn1$dist == 0
    if (any(snapped)) y[snapped, ] <- Y[nn1$idx[snapped], , drop = FALSE]
  }
  finish_prediction(y, method, far = r$far & !snapped, snapped = snapped)
}

#' @export
summary_extra.manifold_le <- function(object) {
  s <- spectral_summary(object)
  if (!is.null(object$added_edges) && object$added_edges > 0L) {
    s <- structure(c(s, sprintf("edges added to connect the graph: %d", object$added_edges)),
                   class = "manifold_summary_lines")
  }
  s
}
