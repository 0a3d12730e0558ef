# Neighbourhood graphs (the graph conventions of ?neighbor_graph): construction, bandwidth rules,
# connected components, Laplacians and geodesic distances.

#' Neighbourhood graph
#'
#' Builds the sparse weighted neighbourhood graph shared by the graph-based
#' embeddings: a k-nearest-neighbour or an \eqn{\varepsilon}-ball graph,
#' symmetrised and weighted, with a policy for disconnected graphs.
#'
#' **Symmetrisation** of the (directed) kNN relation, for the weight of the
#' edge between \eqn{i} and \eqn{j}: `"or"` takes
#' \eqn{\max(w_{i\to j}, w_{j\to i})} (an edge when either point is among the
#' other's neighbours), `"and"` the minimum over mutual neighbours only,
#' `"mean"` \eqn{(w_{i\to j} + w_{j\to i})/2} with a missing direction counting
#' as 0, and `"none"` keeps the directed graph (`W[i, j]` is the edge
#' \eqn{i \to j}). An \eqn{\varepsilon}-ball graph is symmetric by construction.
#'
#' **Weights**: `"binary"` (1), `"heat"`
#' \eqn{\exp(-d_{ij}^2 / (2\sigma^2))}, `"distance"` (the edge length
#' \eqn{d_{ij}}, for geodesic distances). With `"distance"` weights, an edge
#' between two identical points has length 0 and is stored as an explicit 0
#' in `W` (do not apply `Matrix::drop0()` to it).
#'
#' **Bandwidth** (heat weights only): a positive number, or a rule:
#' `"median_knn"`, the median over points of the distance to the `k`-th
#' neighbour; `"mean_pairwise"` or `"median_pairwise"`, the mean or median of
#' all pairwise distances (computed on 3000 rows sampled with R's random
#' number generator when there are more; use [set.seed()] for
#' reproducibility). A rule is floored at \eqn{10^{-12}} times the largest
#' distance seen, with a warning (this happens when more than `k` points
#' coincide).
#'
#' **Disconnected graphs** (components of the graph, or of its `"or"`
#' symmetrisation for `symmetrize = "none"`): `"error"` stops with the
#' component sizes and the smallest `k` (or `eps`) that would connect the
#' graph; `"connect"` adds edges between components and warns: with
#' `connect = "mst"`, the \eqn{c - 1} edges of a minimum spanning tree over the
#' \eqn{c} components, where the distance of two components is that of their
#' closest pair of points; with `"all_pairs"`, the closest pair of every pair
#' of components (\eqn{c(c-1)/2} edges, as scikit-learn's Isomap). Added edges
#' get the weight of their Euclidean length. `"largest"` keeps the largest
#' component only (with a warning). `"keep"` returns the graph as it is,
#' silently (`n_components` tells how many components it has); for methods
#' that do not need a connected graph, such as [lpp()].
#'
#' @param X Data: a numeric matrix or data frame, one row per point; or the
#'   distances between the points, as a [stats::dist()] object or a square
#'   matrix with `metric = "precomputed"` (see [manifoldOOS-distances]).
#' @param k Number of neighbours (kNN graph; also the neighbour used by
#'   `sigma = "median_knn"`).
#' @param type `"knn"` or `"eps"` (\eqn{\varepsilon}-ball graph).
#' @param eps Radius of the \eqn{\varepsilon}-ball graph (required when
#'   `type = "eps"`).
#' @param symmetrize How to symmetrise the kNN relation (see Details).
#' @param weights Edge weights (see Details).
#' @param sigma Heat-kernel bandwidth: a positive number or one of
#'   `"median_knn"`, `"mean_pairwise"`, `"median_pairwise"`.
#' @param on_disconnected What to do when the graph is not connected.
#' @param connect How to join components when `on_disconnected = "connect"`.
#' @param knn_method Neighbour search: `"auto"`, `"exact"` or `"hnsw"` (see
#'   [knn()]); recorded in the result.
#' @param metric `"euclidean"` (default), `"cosine"`, `"correlation"` or
#'   `"manhattan"`. Cosine and correlation build the graph of the rows scaled
#'   to unit length (centred first, for correlation), whose Euclidean
#'   distances (the chords \eqn{\sqrt{2(1 - s)}}{sqrt(2(1 - s))}) are the
#'   edge lengths, as in the fitting functions (see [manifoldOOS-input]).
#'   Manhattan takes the sums of absolute differences as edge lengths; it
#'   needs `type = "knn"`, a `"median_knn"` or numeric `sigma`, and no
#'   `"connect"` (whose added edges are Euclidean). `"precomputed"`: `X`
#'   holds the distances (implied by a `dist` object); they are the edge
#'   lengths, and the pairwise bandwidth rules and `"connect"` use them too.
#' @return An object of class `manifold_graph` (also `mlgraph`, its former class, for one
#'   release), a list with
#'   * `W`: the weighted adjacency, a `dgCMatrix` with a zero diagonal,
#'     symmetric unless `symmetrize = "none"`; its vertices are the rows of
#'     `X` listed in `kept`;
#'   * `idx`, `dist`: the `n x k` neighbour indices (1-based rows of `X`) and
#'     distances (`NULL` for an \eqn{\varepsilon}-ball graph, whose lists are
#'     in `radius`, a list with the row pointer `ptr` (0-based offsets),
#'     `idx` and `dist`);
#'   * `type`, `k`, `eps`, `symmetrize`, `weights`, `n` (rows of `X`),
#'     `knn_method` (the search used: `"exact"` or `"hnsw"`);
#'   * `sigma` (the bandwidth used, `NA` unless `weights = "heat"`) and
#'     `sigma_rule` (the rule name, `"user"` for a number);
#'   * `n_components`, `component`: number of connected components of `W`
#'     and the component (1-based) of each vertex of `W`;
#'   * `initial_components`: `list(n_components, component, sizes)` for the
#'     graph before any `on_disconnected` policy (labels for every row of `X`);
#'   * `added_edges`: a data frame (`i`, `j`, `length`, `weight`; rows of `X`,
#'     `i < j`) of the edges added by `"connect"`, with zero rows otherwise;
#'   * `kept`: rows of `X` that are vertices of `W` (all rows unless
#'     `on_disconnected = "largest"`).
#' @seealso [graph_laplacian()], [geodesic_distances()].
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(200), ncol = 2)
#' g <- neighbor_graph(X, k = 8, weights = "heat")
#' g
#' # two clusters far apart, joined by the shortest edge between them
#' X2 <- rbind(X, X + 20)
#' g2 <- suppressWarnings(neighbor_graph(X2, k = 5, on_disconnected = "connect"))
#' g2$added_edges
neighbor_graph <- function(X, k = 10, type = c("knn", "eps"), eps = NULL,
                            symmetrize = c("or", "and", "mean", "none"),
                            weights = c("binary", "heat", "distance"),
                            sigma = "median_knn",
                            on_disconnected = c("error", "connect", "largest", "keep"),
                            connect = c("mst", "all_pairs"),
                            knn_method = getOption("manifoldOOS.knn_method", "auto"),
                            metric = c("euclidean", "cosine", "correlation", "manhattan")) {
  if (inherits(X, "dist")) metric <- distance_metric
  metric <- check_metric(metric, allowed = c(input_metrics, distance_metric))
  given <- metric == distance_metric
  if (given) {
    # distances given by the user: the lists are read off them exactly
    X <- read_distances(X, "X")
    if (!inherits(knn_method, "manifold_precomputed_nn")) check_knn_method(knn_method)
    knn_method <- "exact"
  } else {
    X <- as_data_matrix(X, "X")
    X <- metric_rows(X, metric, "X")
    knn_method <- local_knn_method(knn_method, X)
  }
  n <- nrow(X)
  type <- check_choice(type, c("knn", "eps"), "type")
  symmetrize <- check_choice(symmetrize, c("or", "and", "mean", "none"), "symmetrize")
  weights <- check_choice(weights, c("binary", "heat", "distance"), "weights")
  on_disconnected <- check_choice(on_disconnected, c("error", "connect", "largest", "keep"),
                                  "on_disconnected")
  connect <- check_choice(connect, c("mst", "all_pairs"), "connect")
  threads <- check_threads(default_threads(), "getOption(\"manifoldOOS.threads\")")
  need_knn <- type == "knn" || (weights == "heat" && identical(sigma, "median_knn"))
  if (need_knn) k <- check_k(k, n)
  if (type == "eps") {
    if (is.null(eps)) abort_input("eps", "must be given when type = \"eps\".")
    eps <- check_number(eps, "eps", lower = 0, lower_open = TRUE)
  } else {
    eps <- NA_real_
  }
  sigma_rule <- NA_character_
  if (weights == "heat") {
    if (is.character(sigma)) {
      sigma_rule <- check_choice(sigma, c("median_knn", "mean_pairwise", "median_pairwise"),
                                 "sigma")
    } else {
      sigma <- check_number(sigma, "sigma", lower = 0, lower_open = TRUE)
      sigma_rule <- "user"
    }
  }

  if (metric == "manhattan") {
    if (type != "knn") abort_input("metric", "\"manhattan\" needs type = \"knn\".")
    if (weights == "heat" && !sigma_rule %in% c("median_knn", "user")) {
      abort_input("metric", "\"manhattan\" needs sigma = \"median_knn\" or a number (the pairwise rules are Euclidean).")
    }
    if (on_disconnected == "connect") {
      abort_input("metric", "\"manhattan\" cannot be used with on_disconnected = \"connect\" (the added edges are Euclidean).")
    }
  }
  nb <- if (!need_knn) {
    NULL
  } else if (given) {
    knn_distances(X, k, n_threads = threads)
  } else {
    knn(X, k, method = knn_method, metric = if (metric == "manhattan") metric else "euclidean")
  }
  if (weights == "heat") {
    sigma <- graph_bandwidth(X, sigma_rule, sigma, nb, threads, distances = given)
  } else {
    sigma <- NA_real_
  }
  sig_c <- if (is.na(sigma)) 1 else sigma

  radius <- NULL
  if (type == "knn") {
    W <- core(.mo_knn_graph(nb$idx, nb$dist, n, symmetrize, weights, sig_c))
  } else {
    radius <- if (given) radius_distances(X, eps) else radius_neighbors(X, eps)
    radius$ptr <- radius_ptr0(radius$ptr, n)
    W <- core(.mo_eps_graph(radius$ptr, radius$idx, radius$dist, n, symmetrize, weights, sig_c))
    avg_deg <- length(radius$idx) / n
    if (avg_deg > 0.2 * n) {
      warn_mo(sprintf("the eps-ball graph is dense (average degree %.1f for n = %d); consider a smaller `eps`.",
                      avg_deg, n))
    }
  }

  comps <- core(.mo_components(W))
  initial <- comps
  added <- data.frame(i = integer(0), j = integer(0), length = numeric(0), weight = numeric(0))
  kept <- seq_len(n)
  if (comps$n_components > 1L && on_disconnected != "keep") {
    if (on_disconnected == "error") {
      graph_disconnected_error(X, type, k, eps, symmetrize, comps, threads, knn_method,
                               if (metric %in% c("manhattan", distance_metric)) metric else "euclidean")
    } else if (on_disconnected == "connect") {
      e <- connect_components(X, comps, connect, threads, given)
      w <- core(.mo_edge_weights(e$length, weights, sig_c))
      W <- core(.mo_add_edges(W, e$i, e$j, w))
      added <- data.frame(i = e$i, j = e$j, length = e$length, weight = w)
      warn_mo(sprintf(paste0("the neighbourhood graph has %d connected components (sizes %s); ",
                             "%d edge%s added to connect them (connect = \"%s\")."),
                      comps$n_components, format_sizes(comps$sizes), nrow(added),
                      if (nrow(added) == 1L) " was" else "s were", connect))
      comps <- core(.mo_components(W))
    } else {
      big <- which.max(comps$sizes)
      kept <- which(comps$component == big)
      W <- W[kept, kept, drop = FALSE]
      warn_mo(sprintf(paste0("the neighbourhood graph has %d connected components (sizes %s); ",
                             "only the largest (%d of %d points) is kept."),
                      comps$n_components, format_sizes(comps$sizes), length(kept), n))
      comps <- core(.mo_components(W))
    }
  }

  structure(
    list(
      idx = if (type == "knn") nb$idx else NULL,
      dist = if (type == "knn") nb$dist else NULL,
      radius = radius,
      W = W,
      type = type,
      k = if (need_knn) k else NA_integer_,
      eps = eps,
      symmetrize = symmetrize,
      weights = weights,
      sigma = sigma,
      sigma_rule = sigma_rule,
      n = n,
      n_components = comps$n_components,
      component = comps$component,
      initial_components = initial,
      added_edges = added,
      kept = kept,
      knn_method = knn_method,
      metric = metric
    ),
    class = c("manifold_graph", "mlgraph")
  )
}

#' @rdname neighbor_graph
#' @section Deprecated name:
#' `neighbour_graph()` is the former name of `neighbor_graph()` (the package
#' spells its identifiers the American way, see [manifoldOOS-package]); it
#' still works and warns with class `manifoldOOS_deprecated`.
#' @export
neighbour_graph <- deprecated_alias(neighbor_graph, "neighbour_graph", "neighbor_graph")

# Radius-search row pointers as 0-based offsets (accepts 1-based too).
radius_ptr0 <- function(ptr, n) {
  ptr <- as.integer(ptr)
  if (length(ptr) != n + 1L) abort_numerical("radius search returned a row pointer of the wrong length.")
  if (ptr[1L] == 1L) ptr <- ptr - 1L
  ptr
}

format_sizes <- function(sizes, max_show = 10L) {
  s <- sort(sizes, decreasing = TRUE)
  out <- paste(utils::head(s, max_show), collapse = ", ")
  if (length(s) > max_show) out <- paste0(out, ", ...")
  out
}

# Heat-kernel bandwidth from a rule (the bandwidth rules of ?neighbor_graph), with the floor
# sigma >= 1e-12 * (largest distance seen) and a warning when it applies.
# With `distances`, X is the matrix of distances given by the user.
graph_bandwidth <- function(X, rule, sigma, nb, threads, distances = FALSE) {
  if (rule == "user") return(sigma)
  if (rule == "median_knn") {
    ref <- max(nb$dist)
    if (!(ref > 0)) ref <- if (distances) max(X) else 2 * max(sqrt(rowSums(sweep(X, 2, colMeans(X))^2)))
    b <- core(.mo_bandwidth_median_knn(nb$dist, ref))
  } else {
    s <- if (distances) distance_summary(X) else pairwise_summary(X, threads)
    value <- if (rule == "mean_pairwise") s$mean else s$median
    b <- core(.mo_bandwidth_floor(value, s$max))
  }
  if (!(b$sigma > 0)) {
    abort_input("X", "has all rows identical; a heat-kernel bandwidth cannot be chosen.")
  }
  if (isTRUE(b$floored)) {
    warn_mo(sprintf(paste0("the bandwidth rule \"%s\" gave sigma = 0 (many duplicated points); ",
                           "sigma was floored at %.3g (1e-12 times the largest distance)."),
                    rule, b$sigma))
  }
  b$sigma
}

# Edges joining the components of a graph (points as coordinates, or as the
# matrix of distances given by the user).
connect_components <- function(X, comps, connect, threads, distances = FALSE) {
  if (distances) {
    core(.mo_connect_components_distances(X, comps$component, comps$n_components, connect, threads))
  } else {
    core(.mo_connect_components(X, comps$component, comps$n_components, connect, threads))
  }
}

# Classed error for a disconnected graph: component sizes and the smallest k
# (or eps) that connects it (the connectivity rule of ?neighbor_graph).
graph_disconnected_error <- function(X, type, k, eps, symmetrize, comps, threads, knn_method,
                                     metric = "euclidean") {
  n <- nrow(X)
  head_msg <- sprintf("gives a neighbourhood graph with %d connected components (sizes %s)",
                      comps$n_components, format_sizes(comps$sizes))
  tail_msg <- "or use on_disconnected = \"connect\" or \"largest\"."
  if (type == "knn") {
    kmax <- if (n <= 2000L) n - 1L else min(n - 1L, max(8L * k, 100L))
    nb2 <- knn(X, kmax, method = knn_method, metric = metric)
    kc <- core(.mo_smallest_connecting_k(nb2$idx, symmetrize == "and"))
    need <- if (is.na(kc)) sprintf("no k <= %d connects it", kmax)
            else sprintf("the smallest k that connects it is %d", kc)
    abort_input("k", sprintf("= %d %s; %s. Increase `k`, %s", k, head_msg, need, tail_msg),
                n_components = comps$n_components, sizes = comps$sizes, k_needed = kc)
  } else {
    e <- connect_components(X, comps, "mst", threads, metric == distance_metric)
    eps_needed <- max(e$length) * (1 + 1e-9)
    abort_input("eps", sprintf("= %s %s; the smallest eps that connects it is %.6g. Increase `eps`, %s",
                               format(eps), head_msg, eps_needed, tail_msg),
                n_components = comps$n_components, sizes = comps$sizes, eps_needed = eps_needed)
  }
}

#' @export
print.manifold_graph <- function(x, ...) {
  check_dots(..., fun = "print()")
  directed <- identical(x$symmetrize, "none")
  nv <- nrow(x$W)
  nnz <- length(x$W@x) - sum(x$W@i == rep(seq_len(ncol(x$W)) - 1L, diff(x$W@p)))
  n_edges <- if (directed) nnz else nnz / 2
  kind <- if (x$type == "knn") sprintf("kNN graph (k = %d)", x$k)
          else sprintf("eps-ball graph (eps = %s)", format(signif(x$eps, 4)))
  cat(sprintf("<manifold_graph> %s on %d points\n", kind, x$n))
  w <- x$weights
  if (w == "heat") w <- sprintf("heat, sigma = %s (%s)", format(signif(x$sigma, 4)), x$sigma_rule)
  cat(sprintf("  symmetrize: %s; weights: %s\n", x$symmetrize, w))
  cat(sprintf("  %d vertices, %s %sedges (mean degree %.2f)\n", nv, format(n_edges, big.mark = ","),
              if (directed) "directed " else "", if (directed) nnz / nv else 2 * n_edges / nv))
  ic <- x$initial_components$n_components
  if (ic > 1L) {
    if (nrow(x$added_edges) > 0L) {
      cat(sprintf("  %d components joined by %d added edge%s\n", ic, nrow(x$added_edges),
                  if (nrow(x$added_edges) == 1L) "" else "s"))
    } else {
      cat(sprintf("  %d components; largest kept (%d of %d points)\n", ic, length(x$kept), x$n))
    }
  }
  cat(sprintf("  connected components: %d\n", x$n_components))
  invisible(x)
}

# A graph from neighbor_graph(), also one saved under its former class "mlgraph".
is_manifold_graph <- function(g) inherits(g, c("manifold_graph", "mlgraph"))

# A square sparse dgCMatrix from a matrix-like object.
as_dgc <- function(W, arg = "W") {
  if (!(is.matrix(W) || inherits(W, "Matrix"))) {
    abort_input(arg, "must be a manifold_graph, a matrix or a sparse Matrix.")
  }
  if (is.matrix(W) && !(is.numeric(W) || is.logical(W))) {
    abort_input(arg, sprintf("must be numeric, not of type '%s'.", typeof(W)))
  }
  W <- methods::as(Matrix::Matrix(W, sparse = TRUE), "CsparseMatrix")
  W <- methods::as(methods::as(W, "generalMatrix"), "dMatrix")
  if (nrow(W) != ncol(W)) abort_input(arg, sprintf("must be square; it is %d x %d.", nrow(W), ncol(W)))
  if (anyNA(W@x) || any(!is.finite(W@x))) abort_input(arg, "must have finite entries.")
  W
}

#' Graph Laplacian
#'
#' Laplacian of a neighbourhood graph with weights \eqn{W} and degrees
#' \eqn{d_i = \sum_j W_{ij}} (the diagonal of \eqn{W} is ignored):
#' `"unnormalized"` \eqn{L = D - W}; `"symmetric"`
#' \eqn{L_{sym} = I - D^{-1/2} W D^{-1/2}}; `"random_walk"`
#' \eqn{L_{rw} = I - D^{-1} W}.
#'
#' A vertex with degree below \eqn{10^{-300}} (isolated; for heat weights
#' this happens when `sigma` is so small that all its weights underflow)
#' makes \eqn{D^{-1/2}} undefined: the normalised forms then stop with an
#' error listing those vertices; the unnormalised form is returned with the
#' list in its `"isolated"` attribute.
#'
#' @param g A `manifold_graph` from [neighbor_graph()], or a symmetric
#'   non-negative weight matrix (dense or sparse).
#' @param type Which Laplacian.
#' @return A sparse `dgCMatrix` with attributes `"degree"` (the degree
#'   vector) and `"isolated"` (indices of isolated vertices).
#' @export
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(100), ncol = 2)
#' g <- neighbor_graph(X, k = 6, weights = "heat")
#' L <- graph_laplacian(g)
#' range(Matrix::rowSums(L))  # rows sum to zero
#' Lsym <- graph_laplacian(g, "symmetric")
graph_laplacian <- function(g, type = c("unnormalized", "symmetric", "random_walk")) {
  type <- check_choice(type, c("unnormalized", "symmetric", "random_walk"), "type")
  if (is_manifold_graph(g)) {
    if (identical(g$symmetrize, "none")) {
      abort_input("g", "is a directed graph (symmetrize = \"none\"); a Laplacian needs a symmetric graph.")
    }
    W <- g$W
  } else {
    W <- as_dgc(g, "g")
    if (any(W@x < 0)) abort_input("g", "must have non-negative weights.")
    if (!Matrix::isSymmetric(W)) abort_input("g", "must be a symmetric weight matrix.")
  }
  r <- core(.mo_laplacian(W, type))
  if (length(r$isolated) > 0L && type != "unnormalized") {
    abort_input("g", sprintf(paste0("has %d isolated vertices (degree < 1e-300): %s; the %s Laplacian ",
                                    "needs D^(-1/2). Increase `sigma` or `k`."),
                             length(r$isolated), paste(utils::head(r$isolated, 10), collapse = ", "),
                             type),
                isolated = r$isolated)
  }
  L <- r$L
  attr(L, "degree") <- r$degree
  attr(L, "isolated") <- r$isolated
  L
}

#' Geodesic (shortest-path) distances on a neighbourhood graph
#'
#' Shortest-path lengths along the edges of the graph, by Dijkstra's
#' algorithm from each source (in parallel over sources; the result does not
#' depend on the number of threads, set by `options(manifoldOOS.threads =)`).
#' Edge lengths are the weights of `g$W`: use `weights = "distance"` for
#' Isomap-type geodesics (with `"binary"` weights the result is the number
#' of hops). A directed graph (`symmetrize = "none"`) is followed along its
#' edge directions.
#'
#' @param g A `manifold_graph` built with `weights = "distance"` or `"binary"`.
#' @param sources Vertices to start from (indices of the vertices of `g$W`,
#'   which are the rows of `X` unless `on_disconnected = "largest"` was
#'   used; then they index `g$kept`). `NULL` means all vertices.
#' @return A `length(sources) x nrow(g$W)` matrix of distances, `Inf` where a
#'   vertex cannot be reached.
#' @export
#' @examples
#' X <- cbind(1:10, 0)
#' g <- neighbor_graph(X, k = 2, weights = "distance")
#' geodesic_distances(g, sources = c(1, 10))
geodesic_distances <- function(g, sources = NULL) {
  if (!is_manifold_graph(g)) abort_input("g", "must be a manifold_graph from neighbor_graph().")
  if (identical(g$weights, "heat")) {
    abort_input("g", paste0("has heat-kernel weights, which are affinities, not lengths; build it with ",
                            "weights = \"distance\" (or \"binary\" for hop counts)."))
  }
  nv <- nrow(g$W)
  if (is.null(sources)) {
    sources <- seq_len(nv)
  } else {
    if (!is.numeric(sources) || length(sources) < 1L || anyNA(sources) ||
        any(sources != round(sources)) || any(sources < 1 | sources > nv)) {
      abort_input("sources", sprintf("must be vertex indices between 1 and %d.", nv))
    }
  }
  G <- if (identical(g$symmetrize, "none")) Matrix::t(g$W) else g$W
  geodesic_core(G, sources, default_threads())
}

# Dijkstra on a dgCMatrix whose column u lists the out-edges of u.
geodesic_core <- function(G, sources, n_threads = default_threads()) {
  core(.mo_dijkstra(G, as.integer(sources), as.integer(n_threads)))
}

# The sparse matrices returned by the compiled code are Matrix classes.
#' @importFrom Matrix sparseMatrix
#' @importFrom methods as
NULL
