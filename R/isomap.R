# Isomap and landmark Isomap with their out-of-sample maps.

#' Isomap and landmark Isomap
#'
#' Isomap (Tenenbaum, de Silva and Langford 2000): geodesic distances along
#' the `k`-nearest-neighbour graph (edge lengths = Euclidean distances,
#' `"or"` symmetrisation), then classical MDS of the geodesic distances.
#' Landmark Isomap (de Silva and Tenenbaum 2003) runs the shortest paths from
#' `m` landmarks only, embeds the landmarks by classical MDS and places every
#' point by landmark-MDS triangulation.
#'
#' **Full Isomap** (`landmarks = NULL`): Dijkstra from every point (threaded
#' over sources) gives the \eqn{n \times n} geodesic matrix \eqn{G}, kept in
#' the fit (\eqn{8n^2} bytes: 200 MB at \eqn{n = 5000}); the leading
#' eigenpairs \eqn{(\ell_k, v_k)} of \eqn{B = -\frac12 H G^{\circ 2} H} give
#' \eqn{Y = V_q\Lambda_q^{1/2}}. The dense path builds \eqn{B} and uses
#' LAPACK; the iterative path (Lanczos) squares and centres \eqn{G} on the fly,
#' so no second \eqn{n \times n} matrix is formed. `"auto"` uses the dense
#' path up to `min(getOption("manifoldOOS.dense_max_n", 2000),
#' getOption("manifoldOOS.dense_top_max_n", 500))` points. Above
#' `getOption("manifoldOOS.isomap_max_n", 10000)` points, `landmarks = NULL`
#' switches to landmark Isomap with \eqn{m = \max(10q, 100)} MaxMin
#' landmarks and a message (raise the option to force full Isomap).
#'
#' **Landmark Isomap** (`landmarks` = a number \eqn{m}, or a vector of row
#' indices): landmarks are chosen by `"maxmin"` (start from a random point,
#' then repeatedly add the point farthest in geodesic distance from those
#' chosen) or `"random"`; random choices use R's random number generator
#' (`seed` makes them reproducible). Only the \eqn{m \times n} geodesic
#' distances \eqn{\Delta_m} are computed and kept. With \eqn{(\ell_k, v_k)}
#' the leading eigenpairs of \eqn{-\frac12 H \Delta_{mm}^{\circ 2} H}, a point
#' with squared geodesic distances \eqn{\delta} to the landmarks is placed at
#' \eqn{-\frac12 L^\#(\delta - \delta_\mu)}, where \eqn{L^\#} has rows
#' \eqn{v_k^\top/\sqrt{\ell_k}} and \eqn{\delta_\mu} holds the column means of
#' \eqn{\Delta_{mm}^{\circ 2}}. With `normalize = TRUE` the triangulated
#' coordinates are centred and rotated to their principal axes (the
#' transformation is stored and applied to new points too). With all points
#' as landmarks, landmark Isomap equals Isomap.
#'
#' **Accuracy**: Isomap is exact only when graph distances equal the
#' manifold's geodesics. On a kNN graph they are lengths of polygonal paths
#' through the sample points, which exceed the true geodesic by a relative
#' amount fixed by the edge directions the `k` neighbours offer, not by the
#' sampling density: a 41 x 21 grid on a rectangle bent onto a cylinder
#' (`k = 20`) is recovered with a standardised Procrustes residual of
#' \eqn{4.4 \times 10^{-5}}, and denser grids (up to 121 x 61) stay at
#' \eqn{3\text{--}5 \times 10^{-5}} (`k = 20` to `40`). A flat sheet with the
#' complete graph (`k = n - 1`) is recovered exactly (Isomap = classical MDS
#' = PCA).
#'
#' **Disconnected graphs**: with `on_disconnected = "connect"` (default)
#' components are joined by the shortest edges between them (see
#' [neighbor_graph()]) with a warning; `"error"` stops and reports the
#' smallest `k` that connects the graph.
#'
#' **Out-of-sample** (`predict(fit, newdata, method = )`): the geodesic
#' distance from a new point \eqn{x} to training point (or landmark) \eqn{j}
#' is \eqn{g(x, j) = \min_{i \in N_k(x)} (\|x - x_i\| + G_{ij})} over its
#' `k` nearest training points; then `"triangulation"` (default) applies the
#' landmark-MDS formula above (all training points are the landmarks of a
#' full fit) and `"nystrom"` Bengio et al.'s Nyström formula
#' \eqn{y_k(x) = \frac1{\ell_k}\sum_j \tilde K(x, j) y_{jk}} with the doubly
#' centred kernel \eqn{\tilde K = -\frac12(g^2 - \text{means})}; the two are
#' algebraically equal. A training row comes back at its embedding: the
#' point is its own neighbour at distance 0, so its geodesic row is that of
#' the training point; with `snap = TRUE` (default) an exact match returns
#' the stored coordinates bitwise.
#'
#' @param X Training data: a numeric matrix or data frame, one row per point;
#'   or the distances between the training points, as a [stats::dist()]
#'   object or a square matrix with `metric = "precomputed"` (see
#'   [manifoldOOS-distances]; [predict()] then takes the distances of new
#'   points to the training points).
#' @param ndim Number of dimensions of the embedding.
#' @param k Number of nearest neighbours of the graph (and of new points).
#' @param landmarks `NULL` (full Isomap; see Details for large `n`), the
#'   number of landmarks (at least `ndim + 1`), or a vector of distinct row
#'   indices of `X`.
#' @param landmark_method How to choose `landmarks` when it is a number:
#'   `"maxmin"` or `"random"`.
#' @param normalize Landmark Isomap only: centre and rotate the triangulated
#'   embedding to its principal axes.
#' @param on_disconnected `"connect"` or `"error"` (see Details).
#' @param connect How components are joined: `"mst"` or `"all_pairs"` (see
#'   [neighbor_graph()]).
#' @param eigen_solver `"auto"`, `"dense"` or `"iterative"` (see Details).
#' @param seed `NULL` or a whole number making the random landmark choice
#'   reproducible without changing the caller's random number stream.
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
#' @param verbose Report the stages of the fit with time-stamped messages
#'   (see [manifoldOOS-progress]).
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @return A `manifold_fit` of subclass `manifold_isomap`. Besides the common
#'   fields it stores the training data `x_train`, `k`, `geodesics` (the
#'   \eqn{n \times n} geodesic matrix, or the \eqn{m \times n} landmark
#'   distances; an ordinary double matrix to R code, whose values are held
#'   outside R's vector heap so that the fit does not trigger a garbage
#'   collection; `saveRDS()` stores plain values), `landmarks` (`NULL` for full Isomap), `lsharp` (the
#'   reference points' \eqn{L^{\#\top}}), `landmark_coords` (landmark MDS
#'   coordinates; `NULL` for full Isomap, whose reference coordinates are the
#'   embedding), `mu` and `grand_mean` (column means of the squared reference
#'   distances and their mean), `center` and `rotation` (landmark
#'   normalisation, `NULL` when not used), `negative_mass` (share of negative
#'   eigenvalue mass of \eqn{B}; `NA` on the iterative path), `graph` (the
#'   number of components before connecting and the added edges) and
#'   `solver`.
#' @section Name clash with vegan:
#' \pkg{vegan} has its own `isomap()` (and `procrustes()`); attached after
#' manifoldOOS, it masks this one, and `isomap(X, ndim = 2, k = 10)` then
#' fails inside vegan (its `isomap()` expects a dissimilarity object). Call
#' `manifoldOOS::isomap()`, or attach manifoldOOS last. A vegan `isomap`
#' object given to a manifoldOOS function gives an error saying that
#' `isomap()` was masked.
#' @seealso [manifold_fit] for the methods of the returned object,
#'   [geodesic_distances()], [mds()].
#' @export
#' @examples
#' roll <- swiss_roll(800, seed = 1)
#' fit <- isomap(roll$x[1:600, ], ndim = 2, k = 10)
#' fit
#' y_new <- predict(fit, roll$x[601:800, ])
#' plot(fit, color = roll$color[1:600], newdata = roll$x[601:800, ],
#'      new_color = roll$color[601:800])
#' # landmark Isomap with 60 MaxMin landmarks
#' lfit <- isomap(roll$x[1:600, ], ndim = 2, k = 10, landmarks = 60, seed = 1)
#' trustworthiness(roll$x[1:600, ], embedding(lfit), k = 10)
isomap <- function(X, ndim = 2, k = 10, landmarks = NULL,
                   landmark_method = c("maxmin", "random"), normalize = TRUE,
                   on_disconnected = c("connect", "error"), connect = c("mst", "all_pairs"),
                   eigen_solver = c("auto", "dense", "iterative"), seed = NULL,
                   knn_method = getOption("manifoldOOS.knn_method", "auto"),
                   pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                   verbose = getOption("manifoldOOS.verbose", FALSE)) {
  n <- fit_prologue(min_rows = 3L, distances = "isomap") %||% return(fit_input_model())
  k <- check_k(k, n)
  ndim <- check_ndim(ndim, n - 1L)
  landmark_method <- check_choice(landmark_method, c("maxmin", "random"), "landmark_method")
  normalize <- check_flag(normalize, "normalize")
  on_disconnected <- check_choice(on_disconnected, c("connect", "error"), "on_disconnected")
  connect <- check_choice(connect, c("mst", "all_pairs"), "connect")
  eigen_solver <- check_eigen_solver(eigen_solver)
  seed <- check_seed(seed)
  threads <- check_threads(default_threads(), "getOption(\"manifoldOOS.threads\")")
  opts <- eig_opts(method = eigen_solver)

  max_n <- getOption("manifoldOOS.isomap_max_n", 10000L)
  if (is.null(landmarks) && n > max_n) {
    landmarks <- min(n, max(10L * ndim, 100L))
    message(sprintf(paste0("isomap(): n = %d exceeds getOption(\"manifoldOOS.isomap_max_n\") = %d; ",
                           "using landmark Isomap with %d %s landmarks (a full geodesic matrix would ",
                           "take %.1f GB). Set `landmarks` to choose, or raise the option."),
                    n, max_n, landmarks, landmark_method, 8 * n^2 / 1e9))
  }
  lm <- resolve_landmarks(landmarks, n, ndim, landmark_method, seed)
  if (is.null(lm)) {
    check_memory(16 * as.numeric(n)^2, sprintf("full Isomap of %d points (the n x n geodesic matrix, twice)", n),
                 "landmarks", "set `landmarks` (landmark Isomap stores landmarks x n distances).")
  } else {
    check_memory(8 * as.numeric(n) * (lm$m + 30), sprintf("landmark Isomap of %d points with %d landmarks", n, lm$m),
                 "landmarks", "use fewer landmarks.")
  }
  label <- if (is.null(lm)) "Isomap" else "Landmark Isomap"
  t0 <- mo_progress(verbose, "%s: %d points x %d features -> %d dimensions (k = %d%s)", label, n,
                    ncol(X), ndim, k, if (is.null(lm)) "" else sprintf(", %d landmarks", lm$m))

  given <- is_distance_input(X, metric)  # distances (read by fit_prologue())
  res <- timed({
    g <- neighbor_graph(unname_matrix(X), k = k, weights = "distance", symmetrize = "or",
                         on_disconnected = on_disconnected, connect = connect, knn_method = knn_method,
                         metric = if (given) distance_metric else "euclidean")
    t1 <- mo_progress(verbose, "%s: kNN graph: %d component(s), %d edge(s) added", label,
                      as.integer(g$initial_components$n_components), NROW(g$added_edges), start = t0)
    mo_progress(verbose, "%s: shortest paths from %s and eigen-solve (eigen_solver = \"%s\")", label,
                if (is.null(lm)) sprintf("all %d points", n) else sprintf("%d landmarks", lm$m),
                eigen_solver)
    if (is.null(lm)) {
      m <- core(.mo_isomap_fit(g$W, ndim, integer(0), FALSE, 0L, FALSE, opts, threads))
    } else {
      m <- core(.mo_isomap_fit(g$W, ndim, lm$idx, lm$maxmin, lm$m, normalize, opts, threads))
    }
    mo_progress(verbose, "%s: geodesics and eigen-solve done with %s", label,
                describe_solver(m$solver), start = t1)
    list(g = g, m = m)
  })
  g <- res$value$g
  m <- res$value$m
  full <- is.null(lm)
  if (!full) {
    ev <- m$values
    if (ev[ndim] / ev[1] < 1e-8) {
      warn_mo(sprintf(paste0("the landmarks are nearly affinely dependent (eigenvalue ratio %.3g); ",
                             "the triangulation is unstable. Use more landmarks."),
                      ev[ndim] / ev[1]))
    }
  }
  graph_info <- list(n_components = g$initial_components$n_components,
                     added_edges = g$added_edges)
  params <- list(knn_method = knn_method, k = k)
  if (!full) {
    params$landmarks <- length(m$landmarks)
    params$landmark_method <- if (is.null(lm$method)) "given" else lm$method
    params$normalize <- normalize
  }
  params$eigen_solver <- eigen_solver
  mo_progress(verbose, "%s: done", label, start = t0)
  fit <- new_manifold_fit(
    class = "manifold_isomap", method = if (full) "Isomap" else "Landmark Isomap",
    embedding = m$embedding, X = X, params = params, eigenvalues = m$values,
    oos_default = "triangulation", oos_available = c("triangulation", "nystrom"),
    fit_time = res$time, call = match.call(),
    x_train = if (given) NULL else unname_matrix(X), k = k, geodesics = m$D,
    landmarks = if (full) NULL else m$landmarks,
    lsharp = m$lsharp_t, landmark_coords = if (full) NULL else m$coords,
    mu = m$mu, grand_mean = m$grand_mean,
    center = if (!full && normalize) m$center else NULL,
    rotation = if (!full && normalize) m$rotation else NULL,
    negative_mass = m$negative_mass, graph = graph_info, solver = m$solver
  )
  if (given) fit <- finish_distance_fit(fit, X, k)
  fit
}

# Landmark specification -> list(idx (1-based; for maxmin the start), m,
# maxmin, method) or NULL for full Isomap.
resolve_landmarks <- function(landmarks, n, ndim, method, seed) {
  if (is.null(landmarks)) return(NULL)
  if (!is.numeric(landmarks) || length(landmarks) < 1L || anyNA(landmarks) ||
      any(!is.finite(landmarks)) || any(landmarks != round(landmarks))) {
    abort_input("landmarks", "must be NULL, a number of landmarks or a vector of row indices.")
  }
  if (length(landmarks) == 1L) {
    m <- as.integer(landmarks)
    if (m < ndim + 1L || m > n) {
      abort_input("landmarks", sprintf("must lie between ndim + 1 = %d and n = %d; got %d.",
                                       ndim + 1L, n, m))
    }
    if (method == "random") {
      idx <- sort(with_seed_mo(seed, sample.int(n, m)))
      return(list(idx = idx, m = m, maxmin = FALSE, method = "random"))
    }
    first <- with_seed_mo(seed, sample.int(n, 1L))
    return(list(idx = first, m = m, maxmin = TRUE, method = "maxmin"))
  }
  idx <- as.integer(landmarks)
  if (any(idx < 1L | idx > n)) abort_input("landmarks", sprintf("indices must lie in 1..%d.", n))
  if (anyDuplicated(idx)) abort_input("landmarks", "must not contain duplicated indices.")
  if (length(idx) < ndim + 1L) {
    abort_input("landmarks", sprintf("must contain at least ndim + 1 = %d indices; got %d.",
                                     ndim + 1L, length(idx)))
  }
  list(idx = idx, m = length(idx), maxmin = FALSE, method = NULL)
}

#' @export
predict_native.manifold_isomap <- function(object, x, method, snap = TRUE, ...) {
  snap <- check_flag(snap, "snap")
  rule <- if (method == "triangulation") "triangulation" else "nystrom"
  coords <- if (is.null(object$landmarks)) unname(object$embedding) else object$landmark_coords
  empty <- matrix(0, 0, 0)
  center <- if (is.null(object$center)) numeric(0) else object$center
  rotation <- if (is.null(object$rotation)) empty else object$rotation
  # the neighbour lists come from the fit's own search (for a fit made from
  # distances, x holds the new points' distances and no coordinates are used)
  given <- is_distance_fit(object)
  xt <- if (given) matrix(0, object$n, 0L) else object$x_train
  xq <- if (given) matrix(0, nrow(x), 0L) else unname_matrix(x)
  nb <- fit_knn(object, xt, object$k, query = if (given) x else xq)
  core(.mo_isomap_project(xt, xq, object$k, nb$idx, unname(nb$dist),
                          object$geodesics, object$lsharp, coords, object$eigenvalues, object$mu,
                          object$grand_mean, rule, unname(object$embedding), snap, center,
                          rotation, default_threads()))
}

#' @export
summary_extra.manifold_isomap <- function(object) {
  lines <- c(
    if (is.null(object$landmarks)) sprintf("geodesic matrix: %d x %d", nrow(object$geodesics),
                                           ncol(object$geodesics))
    else sprintf("landmarks: %d (geodesics %d x %d)", length(object$landmarks),
                 nrow(object$geodesics), ncol(object$geodesics)),
    sprintf("graph components before connecting: %d; added edges: %d",
            object$graph$n_components, nrow(object$graph$added_edges)),
    if (is.finite(object$negative_mass))
      sprintf("negative eigenvalue mass of B: %.3g", object$negative_mass),
    sprintf("eigen-solver: %s", object$solver)
  )
  structure(lines, class = "manifold_summary_lines")
}

