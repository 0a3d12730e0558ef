#' Piecewise-linear manifold learning (PLML)
#'
#' Strange's piecewise-linear manifold learning (thesis 2011, ch. 3;
#' "parallel projections", ICMLA 2010) and its predecessor, iterative
#' hyperplane merging (IHM, BMVC 2010). The data are cut into
#' \eqn{c = \lfloor n/k \rfloor} local linear models which are merged one at
#' a time into a single global plane:
#'
#' 1. **Clusters.** Constrained k-means (`cluster = "constrained"`, Bennett,
#'    Bradley and Demiriz 2000): every cluster keeps at least `h` (= `k`)
#'    points. The assignment step is the transportation problem
#'    \eqn{\min \sum T_{il} \frac12\|x_i-\mu_l\|^2} subject to
#'    \eqn{\sum_l T_{il} = 1}, \eqn{\sum_i T_{il} \ge h}, a min-cost flow whose
#'    integral optimum is found by successive shortest paths (Dijkstra with
#'    potentials on the cluster residual graph, whose arc costs are cached
#'    per cluster; one Dijkstra serves many deficit clusters; from the second
#'    step on, the previous step's prices and labels give the start). Each point may go to one of its `n_candidates` nearest
#'    centres; with `n_candidates >= c` the step is the exact optimum of the
#'    unrestricted problem. `cluster = "kmeans_merge"`: ordinary k-means
#'    followed by merging every cluster smaller than `h` into the cluster
#'    with the nearest centroid (fewer models may result). Seeds (`init`):
#'    k-means++, or `c` distinct random data points; `"auto"` takes random
#'    points for the constrained clustering of more than 5000 points and
#'    k-means++ otherwise. k-means++ seeds are spread out (their density
#'    follows roughly the square root of the data's), so on unevenly
#'    sampled data the first constrained step must carry points across many
#'    clusters: on a Swiss roll of 50,000 points that one step takes about
#'    37 s with k-means++ seeds (it needs candidate lists of 256 centres)
#'    against 1.5 s with random ones, and the whole fit 60 s against 6 s; on
#'    rolls of 20,000 points (t uniform in \eqn{[1.5\pi, 4.5\pi]}, height 21,
#'    k = 5 to 14) the fit took 34-44 s from k-means++ seeds and 5-14 s
#'    from random ones on a loaded machine, with the same trustworthiness
#'    T(10) to 5e-7.
#'    The price is a slightly higher k-means objective there (1800 against
#'    1768, 1.8 %; the same trustworthiness). On rolls of 3,000 to 10,000
#'    points neither seeding is consistently better (random seeds had the
#'    lower objective in 5 of 9 runs; the ratio ranged from 0.96 to 1.03).
#'    `n_start` restarts (the lowest objective is kept).
#'    `cluster = "gmm"` (IHM's Swiss-roll clustering, BMVC 2010): the hard
#'    partition of a Gaussian mixture whose number of components is chosen
#'    by MDL, starting from `n_components` (see [gmm_cluster()]; the model
#'    size `k` then only sets the default `n_components = floor(n / k)`);
#'    clusters smaller than `h` (default `ndim + 1` here) are merged into
#'    the cluster with the nearest centroid. `fit$gmm` keeps the mixture's
#'    MDL table.
#'    **Contiguity** (`contiguous`, default `TRUE` for `"pp"`): to fill every
#'    cluster to `h` points the assignment sometimes gives a cluster a few
#'    points from another fold of the manifold (on dense Swiss rolls, a
#'    cluster spanning two layers); its plane then cuts across the layers,
#'    the point MST links models on different layers and the merged
#'    embedding folds (trustworthiness 0.86-0.97 at some `k` in 5..14 on
#'    rolls of 2000 points). With `contiguous = TRUE` every piece of a
#'    cluster that the point MST restricted to the cluster does not connect
#'    to the cluster's largest piece is handed to the cluster it touches by
#'    its shortest MST edge (repeated until no piece is detached; a cluster
#'    is cut only if its largest piece keeps `ndim + 1` points), so a cluster
#'    may end below `h`; `fit$n_moved` counts the points moved
#'    (`fit$kmeans$objective` is the clustering's, before the repair). IHM keeps its
#'    papers' clustering (`FALSE`) unless asked.
#' 2. **Local models.** PCA of each cluster: centre \eqn{m_l}, basis
#'    \eqn{U_l} (top `ndim` directions) and normal \eqn{n_l} (the next one).
#'    Clusters of rank `<= ndim` get a deterministic completion of the basis
#'    (the next right singular vectors) and are counted with a warning.
#' 3. **Topology.** `"point_mst"`: the Euclidean minimum spanning tree of the
#'    points, contracted to the graph of models (edge weight = distance of
#'    the model centres), then its MST. For large `n` the point MST is
#'    computed from a kNN graph (`mst_knn` neighbours; Kruskal, components
#'    joined by their closest pairs), which is exact whenever the kNN graph
#'    contains the MST. `"centroid_mst"` (IHM): the MST of the model centres.
#' 4. **Merging.** A depth-first Euler walk of the model tree from `root`
#'    (children in increasing edge weight). A move to a new model rotates the
#'    global model about the current model's centre so that it becomes
#'    parallel to the new model (orthogonal Procrustes between the weighted
#'    axis matrices; target axes = the current model's axes projected onto
#'    the new plane plus the sign-matched normal) and projects it onto the
#'    new plane; a move back to a visited model aligns the global model
#'    rigidly (Procrustes) so that the model's image matches its original
#'    local model. IHM (`variant = "ihm"`) projects orthogonally without
#'    rotating and, by default, does nothing special on backtracking.
#' 5. **Read-out.** PCA of the merged global model (centred; each column's
#'    largest-magnitude entry made positive). The embedding is **not
#'    normalised**: distances stay close to the input's.
#'
#' The global model always lies on one `ndim`-plane, so the merging runs on
#' `ndim`-dimensional coordinates (`path = "fast"`, the default); the literal
#' `p`-dimensional computation (`path = "pspace"`) gives the same result to
#' rounding and exists for testing and for the literal readings
#' `pivot = "origin"` (rotation about the coordinate origin) and
#' `axis_target = "own"` (the new model's own eigenvectors as the target
#' axes), which scramble the embedding and are offered only for fidelity
#' experiments.
#'
#' **Out-of-sample map** (`predict(fit, newdata)`): `"goose"` (default),
#' the generalised out-of-sample extension of [oos_map()] applied to the
#' training data and the PLML embedding (`k = goose_k` unless `k` is passed
#' to `predict()`); `"model"`, the per-model affine map of the model of the
#' nearest training point, \eqn{y = \alpha_l + ((x - m_l) U_l) G_l}, fitted by
#' least squares to that model's training points (exact for them, since the
#' merging composes affine maps).
#'
#' **Cost.** The exact point MST is \eqn{O(n^2 p)} (used up to 5000 points);
#' the merging is \eqn{O(c\,n\,q^2)}. For large `n` the constrained k-means
#' dominates, mostly its first assignment step (the later steps start from
#' the previous prices). k-means++ seeds can crowd one end of a manifold and
#' starve the other, so that no assignment within the candidate lists is
#' feasible; widening the lists for every point then multiplies the cost of
#' that step tenfold or more, which is why `init = "auto"` starts from random
#' data points above 5000 points. On Swiss rolls the default fit takes a few
#' seconds at n = 20,000 and n = 50,000 (10-60 s with `init = "kmeans++"`);
#' `cluster = "kmeans_merge"` takes 1 s and 3 s, at the
#' price of fewer, unequal models (see `bench/plml.R`; `fit$kmeans$trace`
#' gives the paths, phases and seconds of every step).
#'
#' **Bad input.** `k < ndim + 1`, `n < 2k` and `ndim >= ncol(X)` are errors of
#' class `manifoldOOS_input_error`.
#'
#' @param X Numeric matrix or data frame, one row per point.
#' @param ndim Target dimension.
#' @param k Model size: the number of models is `floor(n / k)`.
#' @param variant `"pp"` (parallel projections = PLML, default) or `"ihm"`.
#' @param cluster `"constrained"` (default), `"kmeans_merge"` or `"gmm"`.
#' @param topology `"point_mst"` (default for `"pp"`) or `"centroid_mst"`
#'   (default for `"ihm"`).
#' @param root Starting model (an index into the models, 1-based); `NULL`
#'   draws one at random (using `seed`).
#' @param seed Seed for the k-means++ seeding and the random root; `NULL`
#'   draws one from R's random number generator (so [set.seed()] applies).
#' @param h Minimum cluster size (`NULL`: `k`; `ndim + 1` for
#'   `cluster = "gmm"`).
#' @param n_components Initial number of mixture components for
#'   `cluster = "gmm"` (`NULL`: `floor(n / k)`; BMVC 2010 used 32).
#' @param backalign What a backward move does: `"rigid"` (default for
#'   `"pp"`), `"similarity"` (rigid plus an isotropic scale) or `"none"`
#'   (default for `"ihm"`: the move is an ordinary projection).
#' @param mst_knn `0` for the exact Euclidean MST (\eqn{O(n^2 p)}), or the
#'   number of neighbours of the kNN graph used to compute it; `NULL` uses
#'   the exact MST up to 5000 points and `15` neighbours above (at
#'   n = 20,000 the exact MST takes 4 s, the kNN-graph MST 0.1 s, and both
#'   gave the same tree on the Swiss roll).
#' @param path `"fast"` (ndim-dimensional coordinates) or `"pspace"`.
#' @param pivot,axis_target Literal readings of the thesis (see Details):
#'   `pivot = "origin"`, `axis_target = "own"`; they imply `path = "pspace"`.
#' @param n_start,max_iter k-means restarts and constrained iterations per
#'   start (until the assignment stops changing).
#' @param init Seeds of the clustering: `"auto"` (default: `"random"` for
#'   `cluster = "constrained"` with more than 5000 points, else
#'   `"kmeans++"`), `"kmeans++"` or `"random"` (`c` distinct data points).
#'   The choice made is kept in `fit$params$init`.
#' @param lloyd_iter Ordinary k-means steps run after the seeding
#'   and before the constrained steps (a warm start that balances the cluster
#'   sizes; `0` starts the constrained steps from the seeds).
#' @param n_candidates Nearest centres a point may be assigned to in the
#'   constrained assignment.
#' @param contiguous Repair clusters that the point MST does not connect
#'   (see *Contiguity*); `NULL`: `TRUE` for `"pp"`, `FALSE` for `"ihm"`.
#' @param goose_k Neighbours of the default GOoSE out-of-sample map.
#' @param n_threads Threads (0 = all).
#' @param pca `NULL` (default) or the number of principal components to fit
#'   on: the columns are centred (and scaled, with `pca_scale = TRUE`) and
#'   reduced by [pca()] first (sparse matrices stay sparse); the projection
#'   is part of the fit and [predict()] applies it. See [manifoldOOS-input].
#' @param pca_scale With `pca`: scale the columns to unit variance first.
#' @param metric `"euclidean"` (default), `"cosine"` or `"correlation"`:
#'   with the last two the fit works on the rows scaled to unit length
#'   (centred first, for correlation), where Euclidean distance orders
#'   neighbours as the metric does. Recorded in the fit and applied to new
#'   rows by [predict()]. See [manifoldOOS-input].
#' @param verbose Report the stages of the fit with time-stamped messages
#'   (see [manifoldOOS-progress]). The compiled fit runs as one stage; its
#'   clustering iterations, models and walk are reported when it ends.
#' @param knn_method Neighbour search of the MST's kNN graph (`mst_knn > 0`)
#'   and of the kNN-based out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @return A `manifold_fit` of subclass `manifold_plml`. Besides the common
#'   fields: `X_train`, `labels` (model of every point), `n_models`,
#'   `centres` (`n_models x p`), `bases` (`p x ndim x n_models`), `maps`
#'   (`(ndim + 1) x ndim x n_models`, rows: \eqn{\alpha_l}, \eqn{G_l}),
#'   `model_tree` (data frame `from`, `to`, `weight`), `walk` (the Euler
#'   walk), `root`, `kmeans` (objective, iterations, convergence, and
#'   `trace`: augmenting paths, Dijkstra phases, seconds, candidate
#'   centres per point and solves of every constrained assignment step; a
#'   step whose candidate lists could not fill every cluster is solved
#'   again with four times as many),
#'   `n_rank_deficient`. `plot(fit, what = "models")` draws the models and
#'   the model tree on the embedding.
#' @references Strange, H. (2011) *Piecewise-Linear Manifold Learning*. PhD
#'   thesis, Aberystwyth University.
#'
#'   Strange, H. and Zwiggelaar, R. (2010) Parallel projections for manifold
#'   learning. *ICMLA*. Strange, H. and Zwiggelaar, R. (2010) Iterative
#'   hyperplane merging: a framework for manifold learning. *BMVC*.
#'
#'   Bennett, K. P., Bradley, P. S. and Demiriz, A. (2000) Constrained
#'   k-means clustering. Microsoft Research MSR-TR-2000-65.
#' @seealso [oos_map()] (GOoSE), [ltsa()], [isomap()].
#' @export
#' @examples
#' roll <- swiss_roll(1000, seed = 1)
#' fit <- plml(roll$x[1:900, ], ndim = 2, k = 9, seed = 1)
#' fit
#' trustworthiness(roll$x[1:900, ], embedding(fit), k = 10)
#' y_new <- predict(fit, roll$x[901:1000, ])                  # GOoSE
#' y_mod <- predict(fit, roll$x[901:1000, ], method = "model") # per-model maps
#' plot(fit, color = roll$color[1:900])
#' plot(fit, what = "models")
plml <- function(X, ndim = 2, k = 10, variant = c("pp", "ihm"),
                 cluster = c("constrained", "kmeans_merge"), topology = NULL,
                 root = NULL, seed = NULL, h = NULL, backalign = NULL, mst_knn = NULL,
                 path = c("fast", "pspace"), pivot = c("model", "origin"),
                 axis_target = c("projected", "own"), n_start = 1L, max_iter = 50L,
                 init = c("auto", "kmeans++", "random"), lloyd_iter = 0L,
                 n_candidates = 16L, contiguous = NULL, n_components = NULL, goose_k = 10L,
                 n_threads = default_threads(),
                 knn_method = getOption("manifoldOOS.knn_method", "auto"),
                 pca = NULL, pca_scale = FALSE, metric = "euclidean",
                 verbose = getOption("manifoldOOS.verbose", FALSE)) {
  n <- fit_prologue() %||% return(fit_input_model())
  p <- ncol(X)
  if (p < 2L) abort_input("X", "must have at least 2 columns (PLML needs ndim < ncol(X)).")
  ndim <- check_ndim(ndim, p - 1L)
  k <- check_number(k, "k", lower = 1, integer = TRUE)
  if (k < ndim + 1L) {
    abort_input("k", sprintf("must be at least ndim + 1 = %d (a local model needs ndim + 1 points); got %d.",
                             ndim + 1L, k))
  }
  if (n < 2L * k) {
    abort_input("k", sprintf("is too large for %d points: PLML needs n >= 2k (at least two models); got k = %d.",
                             n, k))
  }
  variant <- check_choice(variant, c("pp", "ihm"), "variant")
  cluster <- check_choice(cluster, c("constrained", "kmeans_merge", "gmm"), "cluster")
  topology <- if (is.null(topology)) (if (variant == "pp") "point_mst" else "centroid_mst")
              else check_choice(topology, c("point_mst", "centroid_mst"), "topology")
  backalign <- if (is.null(backalign)) (if (variant == "pp") "rigid" else "none")
               else check_choice(backalign, c("rigid", "similarity", "none"), "backalign")
  h <- if (is.null(h)) (if (cluster == "gmm") ndim + 1L else k)
       else check_number(h, "h", lower = 1, upper = n, integer = TRUE)
  if (cluster != "gmm" && (n %/% k) * h > n) abort_input("h", sprintf("is too large: floor(n / k) * h = %d exceeds n = %d.",
                                                   (n %/% k) * h, n))
  root <- if (is.null(root)) 0L else check_number(root, "root", lower = 1, integer = TRUE)
  if (is.null(seed)) seed <- sample.int(.Machine$integer.max, 1L)
  seed <- check_number(seed, "seed", lower = 0, integer = TRUE)
  mst_knn <- if (is.null(mst_knn)) (if (n > 5000L) 15L else 0L)
             else check_number(mst_knn, "mst_knn", lower = 0, integer = TRUE)
  path <- check_choice(path, c("fast", "pspace"), "path")
  pivot <- check_choice(pivot, c("model", "origin"), "pivot")
  axis_target <- check_choice(axis_target, c("projected", "own"), "axis_target")
  n_start <- check_number(n_start, "n_start", lower = 1, upper = 1000, integer = TRUE)
  max_iter <- check_number(max_iter, "max_iter", lower = 1, upper = 1e5, integer = TRUE)
  init <- plml_init(check_choice(init, c("auto", "kmeans++", "random"), "init"), cluster, n)
  lloyd_iter <- check_number(lloyd_iter, "lloyd_iter", lower = 0, upper = 1e5, integer = TRUE)
  n_candidates <- check_number(n_candidates, "n_candidates", lower = 1, integer = TRUE)
  goose_k <- check_number(goose_k, "goose_k", lower = ndim + 1, integer = TRUE)
  contiguous <- if (is.null(contiguous)) variant == "pp" else check_flag(contiguous, "contiguous")
  n_threads <- check_threads(n_threads)
  gmm <- NULL
  labels <- integer()
  if (cluster == "gmm") {
    n_components <- if (is.null(n_components)) n %/% k
                    else check_number(n_components, "n_components", lower = 2, upper = n, integer = TRUE)
    gmm <- gmm_cluster(X, n_components = n_components, seed = seed)
    labels <- merge_small_clusters(X, gmm$labels, h)
    if (max(labels) < 2L) {
      abort_input("n_components", sprintf(paste0(
        "gave a single cluster of at least h = %d points (the mixture chose %d component%s); ",
        "PLML needs two models. Use more components, a smaller `h` or another `cluster`."),
        h, gmm$n_clusters, if (gmm$n_clusters == 1L) "" else "s"))
    }
  }
  opts <- list(q = ndim, k = k, h = h, cluster = cluster, topology = topology, variant = variant,
               backalign = backalign, root = root, literal_path = path == "pspace",
               pivot_origin = pivot == "origin", own_axes = axis_target == "own",
               mst_knn = mst_knn, n_start = n_start, max_iter = max_iter, init = init, lloyd_iter = lloyd_iter,
               n_candidates = n_candidates, seed = seed, n_threads = n_threads, contiguous = contiguous,
               labels = labels)
  if (cluster == "gmm") opts$cluster <- "given"
  if (topology == "point_mst" && mst_knn > 0 && mst_knn < n - 1L && knn_method == "hnsw") {
    # the MST's neighbour graph by the chosen search (the exact one is searched in the core)
    nb <- knn(X, mst_knn, method = knn_method)
    opts$mst_idx <- unname(nb$idx)
    opts$mst_dist <- unname(nb$dist)
  }
  t0 <- mo_progress(verbose, "PLML (%s): %d points x %d features -> %d dimensions (k = %d, %s clustering, %s)",
                    variant, n, ncol(X), ndim, k, cluster,
                    if (mst_knn > 0) sprintf("kNN-graph MST, %d neighbours", mst_knn) else "exact MST")
  res <- timed(core(.mo_plml_fit(X, opts)))
  m <- res$value
  mo_progress(verbose, "PLML: %d models after %d k-means iterations%s; %d forward and %d backward projections",
              as.integer(m$n_clusters), as.integer(m$kmeans_iter), if (m$kmeans_converged) "" else " (not converged)",
              as.integer(m$n_forward), as.integer(m$n_backward))
  mo_progress(verbose, "PLML: done", start = t0)
  if (m$n_rank_deficient > 0) {
    warn_mo(sprintf(paste0("%d local model%s ha%s rank <= ndim = %d; its basis was completed ",
                           "deterministically (the normal direction is arbitrary)."),
                    as.integer(m$n_rank_deficient), if (m$n_rank_deficient == 1) "" else "s",
                    if (m$n_rank_deficient == 1) "s" else "ve", ndim))
  }
  if (!m$kmeans_converged) {
    warn_mo(sprintf("k-means did not converge in %d iterations (max_iter); the last assignment is used.",
                    max_iter))
  }
  new_manifold_fit(
    class = "manifold_plml", method = if (variant == "pp") "PLML" else "PLML (IHM)",
    embedding = m$Y, X = X,
    params = list(knn_method = knn_method, k = k, variant = variant, cluster = cluster, topology = topology,
                  backalign = backalign, h = h, root = m$root, seed = seed, mst_knn = mst_knn,
                  init = init, contiguous = contiguous,
                  n_components = if (cluster == "gmm") n_components),
    oos_default = "goose", oos_available = c("goose", "model"),
    fit_time = res$time, call = match.call(),
    X_train = X, goose_k = goose_k, labels = m$label, n_models = m$n_clusters,
    centres = m$centres, bases = m$bases, maps = m$maps, model_tree = m$model_tree,
    walk = m$walk, root = m$root,
    kmeans = list(objective = m$objective, iterations = m$kmeans_iter,
                  converged = m$kmeans_converged,
                  trace = matrix(m$kmeans_trace, ncol = 5L, byrow = TRUE,
                                 dimnames = list(NULL, c("paths", "phases", "seconds", "candidates", "solves")))),
    n_rank_deficient = as.integer(m$n_rank_deficient),
    moves = c(forward = m$n_forward, backward = m$n_backward),
    n_moved = as.integer(m$n_moved),
    gmm = if (!is.null(gmm)) list(n_clusters = gmm$n_clusters, mdl = gmm$mdl, loglik = gmm$loglik)
  )
}

#' @export
predict_native.manifold_plml <- function(object, x, method, k = NULL, ...) {
  if (method == "goose") {
    map <- oos_map(object$X_train, object$embedding, method = "goose",
                   k = if (is.null(k)) object$goose_k else k, ...)
    y <- predict(map, x)
    attributes(y)[c("fallback", "certified")] <- NULL
    return(y)
  }
  nb <- fit_knn(object, object$X_train, 1L, query = x)
  model <- object$labels[nb$idx[, 1]]
  core(.mo_plml_model_map(x, as.integer(model), object$centres, object$bases, object$maps))
}

#' @export
summary_extra.manifold_plml <- function(object) {
  structure(c(
    sprintf("models: %d (sizes %d-%d); root model %d; walk of %d moves (%d forward, %d backward)",
            object$n_models, min(tabulate(object$labels)), max(tabulate(object$labels)),
            object$root, length(object$walk) - 1L, object$moves[["forward"]],
            object$moves[["backward"]]),
    sprintf("k-means objective %.6g after %d iterations%s", object$kmeans$objective,
            object$kmeans$iterations, if (object$kmeans$converged) "" else " (not converged)"),
    if (object$n_rank_deficient > 0L)
      sprintf("rank-deficient models: %d", object$n_rank_deficient)
  ), class = "manifold_summary_lines")
}

#' Plot a PLML fit
#'
#' `what = "embedding"` is [plot.manifold_fit()]; `what = "models"` colours
#' the training embedding by model and draws the model tree between the
#' embedded model centres (mean embedding of each model's points), marking
#' the root.
#'
#' @param x A `manifold_plml` fit.
#' @param what `"embedding"` or `"models"`.
#' @param ... Passed to [plot.manifold_fit()] (`what = "embedding"`) or to
#'   [plot.default()].
#' @return `x`, invisibly.
#' @export
#' @examples
#' roll <- swiss_roll(500, seed = 3)
#' fit <- plml(roll$x, k = 10, seed = 1)
#' plot(fit, what = "models")
plot.manifold_plml <- function(x, what = c("embedding", "models"), ...) {
  what <- check_choice(what, c("embedding", "models"), "what")
  if (what == "embedding") return(plot.manifold_fit(x, ...))
  check_dots(..., accepted = list(graphics::plot.default, graphics_par_names()),
             fun = "plot()", context = "what = \"models\"")
  Y <- x$embedding
  if (ncol(Y) < 2L) Y <- cbind(Y, 0)
  cm <- rowsum(Y[, 1:2], x$labels) / as.vector(table(x$labels))
  pal <- grDevices::hcl.colors(min(x$n_models, 12L), "Dark 3")
  cols <- pal[(x$labels - 1L) %% length(pal) + 1L]
  graphics::plot(Y[, 1], Y[, 2], col = cols, pch = 16, cex = 0.5, xlab = "Dim1", ylab = "Dim2",
                 main = sprintf("%s: %d models and the model tree", x$method, x$n_models), ...)
  e <- x$model_tree
  graphics::segments(cm[e$from, 1], cm[e$from, 2], cm[e$to, 1], cm[e$to, 2], col = "grey20", lwd = 1)
  graphics::points(cm[, 1], cm[, 2], pch = 20, cex = 0.6)
  graphics::points(cm[x$root, 1], cm[x$root, 2], pch = 23, bg = "red", cex = 1.4)
  invisible(x)
}

# The seeding "auto" stands for: random data points for the constrained
# clustering of more than 5000 points, k-means++ otherwise. k-means++ seeds
# follow D^2 sampling, not the density of the data: on a Swiss roll of 20,000
# points they crowd the outer end and starve the inner one, so that no
# assignment within the candidate lists is feasible and the first constrained
# step is a long-range transport over widened lists (10-30 times a normal
# step). Random data points follow the density.
plml_init <- function(init, cluster, n) {
  if (init != "auto") return(init)
  if (cluster == "constrained" && n > 5000L) "random" else "kmeans++"
}

# Merge every cluster smaller than h, smallest first, into the cluster with the
# nearest centroid; labels renumbered 1..c without gaps.
merge_small_clusters <- function(X, labels, h) {
  repeat {
    labels <- match(labels, sort(unique(labels)))
    size <- tabulate(labels)
    if (length(size) < 2L || min(size) >= h) return(labels)
    small <- which.min(size)
    cen <- rowsum(X, labels) / size
    d <- colSums((t(cen) - cen[small, ])^2)
    d[small] <- Inf
    labels[labels == small] <- which.min(d)
  }
}
