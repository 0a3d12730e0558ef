# Linear projections with an explicit map: LPP, OLPP, NPE/NPP, ONPP
# (He & Niyogi 2003; Cai et al. 2006; He et al. 2005; Kokiopoulou & Saad 2007). One generalised-eigen path in the core
# (linear_projections.h); this file builds the graphs / LLE matrices and the
# fit objects.

# ---- shared helpers ---------------------------------------------------------

# Symmetric weight matrix for a linear method: from `graph` (a manifold_graph or a
# symmetric non-negative n x n matrix) or a new kNN graph.
lp_weight_graph <- function(X, k, weights, sigma, graph, on_disconnected,
                            policies = c("error", "connect"), knn_method = "exact") {
  n <- nrow(X)
  if (!is.null(graph)) {
    if (is_manifold_graph(graph)) {
      if (identical(graph$symmetrize, "none")) {
        abort_input("graph", "is a directed graph (symmetrize = \"none\"); a symmetric graph is needed.")
      }
      if (nrow(graph$W) != n || length(graph$kept) != n) {
        abort_input("graph", sprintf("must have one vertex per row of `X` (%d); it has %d.", n, nrow(graph$W)))
      }
      W <- graph$W
      info <- list(k = graph$k, weights = graph$weights, sigma = graph$sigma, source = "mlgraph")
    } else {
      W <- as_dgc(graph, "graph")
      if (nrow(W) != n) abort_input("graph", sprintf("must be %d x %d (one row per row of `X`).", n, n))
      if (any(W@x < 0)) abort_input("graph", "must have non-negative weights.")
      if (!Matrix::isSymmetric(W, tol = 1e-10)) abort_input("graph", "must be a symmetric weight matrix.")
      W <- Matrix::drop0(W - Matrix::Diagonal(n, Matrix::diag(W)))
      W <- methods::as(W, "CsparseMatrix")
      W <- methods::as(methods::as(W, "generalMatrix"), "dMatrix")
      info <- list(k = NA_integer_, weights = "user", sigma = NA_real_, source = "matrix")
    }
  } else {
    k <- check_k(k, n)
    weights <- check_choice(weights, c("heat", "binary"), "weights")
    on_disconnected <- check_choice(on_disconnected, policies, "on_disconnected")
    g <- neighbor_graph(X, k = k, weights = weights, sigma = sigma, on_disconnected = on_disconnected,
                        knn_method = knn_method)
    W <- g$W
    info <- list(k = k, weights = weights, sigma = g$sigma, source = "knn",
                 added_edges = nrow(g$added_edges))
  }
  d <- Matrix::rowSums(W)
  if (any(d < 1e-300)) {
    abort_input(if (is.null(graph)) "sigma" else "graph",
                sprintf("gives %d isolated vertices (degree 0); increase `sigma` or `k`.", sum(d < 1e-300)))
  }
  comps <- core(.mo_components(W))
  info$n_components <- comps$n_components
  info$component_sizes <- comps$sizes
  list(W = W, degree = d, info = info)
}

# The message of a linear projection fitted on a disconnected graph
# (on_disconnected = "keep"): how many components, and how many of the
# directions found only separate them (eigenvalue lambda = 0: every component
# is mapped to a single point along them).
lp_disconnected_note <- function(gr, lambda, method) {
  nc <- gr$info$n_components
  if (is.null(nc) || nc <= 1L) return(invisible(NULL))
  n0 <- sum(abs(lambda) < 1e-8)
  inform_mo(sprintf(paste0(
    "%s: the graph has %d connected components (sizes %s); fitted on it as it is (no edges ",
    "between components: see \"Disconnected graphs\" in ?lpp).%s Use on_disconnected = ",
    "\"connect\" to join the components, or \"error\" to stop."),
    method, nc, format_sizes(gr$info$component_sizes),
    if (n0 > 0L) sprintf(paste0(" %d of the %d directions have eigenvalue 0: along them every ",
                                "component collapses to a point."), n0, length(lambda)) else ""),
    class = "manifoldOOS_disconnected")
}

lp_eig_control <- function() {
  list(method = getOption("manifoldOOS.linear_eig_method", "auto"), tol = 1e-10, maxit = 1000,
       ncv = getOption("manifoldOOS.linear_ncv", 0L))
}

# Calls the core. constraint "weighted" (A'Xc'diag(b)Xc A = I) or "orthogonal" (A'A = I).
lp_solve <- function(Xc, N, b, constraint, which, ndim, pca, ridge, deflate = FALSE) {
  dense_max <- getOption("manifoldOOS.linear_dense_max", 400L)
  core(.mo_linear_projection(Xc, N, as.numeric(b), constraint, which, as.integer(ndim),
                             !identical(pca, FALSE), identical(pca, "always"), ridge, 1e-10,
                             as.integer(dense_max), deflate, lp_eig_control()))
}

check_pca_arg <- function(pca) {
  if (identical(pca, "always")) return("always")
  check_flag(pca, "pca")
}

# Drop eigen-directions whose W-form eigenvalue beta = 1 - lambda is below
# min_beta (Cai's rule), with a warning.
lp_drop_small <- function(res, beta, min_beta, method) {
  keep <- beta >= min_beta
  if (!all(keep)) {
    if (!any(keep)) {
      abort_numerical(sprintf("%s: every eigenvalue beta = 1 - lambda is below %g; nothing to keep.",
                              method, min_beta))
    }
    warn_mo(sprintf("%s: %d direction(s) with eigenvalue beta = 1 - lambda < %g dropped; ndim is now %d.",
                    method, sum(!keep), min_beta, sum(keep)))
    res$A <- res$A[, keep, drop = FALSE]
    res$values <- res$values[keep]
  }
  res
}

new_linear_fit <- function(class, method, X, center, A, values, params, res, time, call, extra = list()) {
  Y <- core(.mo_pca_project(X, center, rep(1, ncol(X)), res$A))
  A <- res$A
  dimnames(A) <- list(colnames(X), paste0("Dim", seq_len(ncol(A))))
  do.call(new_manifold_fit, c(list(
    class = c(class, "manifold_linear"), method = method, embedding = Y, X = X,
    params = params, eigenvalues = values, oos_default = "exact", oos_available = "exact",
    fit_time = time, call = call,
    center = center, rotation = A,
    solver = list(path = res$path, rank = res$rank, ridge = res$ridge, eig_method = res$eig_method)),
    extra), quote = TRUE)
}

#' @export
predict_native.manifold_linear <- function(object, x, method, ...) {
  core(.mo_pca_project(x, object$center, rep(1, length(object$center)), unname(object$rotation)))
}

#' @export
summary_extra.manifold_linear <- function(object) {
  s <- object$solver
  structure(list(text = sprintf("  solver: %s (rank %d%s), eigen-solver %s", s$path, as.integer(s$rank),
                                if (s$ridge > 0) sprintf(", ridge %.3g", s$ridge) else "", s$eig_method)),
            class = "manifold_text")
}

#' @export
print.manifold_text <- function(x, ...) {
  check_dots(..., fun = "print()")
  cat(x$text, sep = "\n")
  invisible(x)
}

# Validated data and the common scalar arguments.
lp_common <- function(X, ndim, pca, regularize) {
  X <- as_data_matrix(X, "X")
  ndim <- check_ndim(ndim, min(nrow(X) - 1L, ncol(X)))
  pca <- check_pca_arg(pca)
  regularize <- check_number(regularize, "regularize", lower = 0)
  list(X = X, ndim = ndim, pca = pca, regularize = regularize)
}

lp_ridge_note <- function(res, method) {
  if (identical(res$path, "auto_ridge")) {
    warn_mo(sprintf(paste0("%s: the right-hand matrix Xc' B Xc is singular and the PCA step is off ",
                           "(pca = FALSE); a ridge of %.3g was added (see `regularize`)."), method, res$ridge))
  }
}

# ---- LPP ----------------------------------------------------------------------

#' Locality preserving projections (LPP)
#'
#' Linear embedding \eqn{y = A^\top (x - \mu)}{y = t(A) (x - mu)} that keeps
#' neighbours close (He & Niyogi 2003). With the graph weights \eqn{W},
#' degrees \eqn{D} and Laplacian \eqn{L = D - W}, the projection vectors solve
#' \deqn{X_c^\top L X_c a = \lambda\, X_c^\top B X_c a}{Xc' L Xc a = lambda Xc' B Xc a}
#' for the `ndim` smallest \eqn{\lambda}, with `constraint = "degree"`
#' \eqn{B = D} (the original LPP, solved in the better conditioned form
#' \eqn{X_c^\top W X_c a = \beta X_c^\top D X_c a}{Xc' W Xc a = beta Xc' D Xc a},
#' largest \eqn{\beta = 1 - \lambda}) or `constraint = "covariance"`
#' \eqn{B = I} (the form in which LPP is a limit of LGRM). The vectors satisfy
#' \eqn{A^\top X_c^\top B X_c A = I}{t(A) Xc' B Xc A = I}.
#'
#' **Centring.** `center = "mean"` subtracts the column means (Cai's codes);
#' `center = "degree"` subtracts the degree-weighted mean
#' \eqn{\sum_i d_i x_i / \sum_i d_i}, which makes every projection satisfy
#' Laplacian eigenmaps' constraint \eqn{z^\top D 1 = 0}: then LPP is exactly
#' Laplacian eigenmaps restricted to linear maps, and equals linear spectral
#' regression with a vanishing ridge when the centred data have rank
#' \eqn{n - 1}.
#'
#' **Singular right-hand side.** When \eqn{X_c^\top B X_c} is singular
#' (\eqn{p \ge n} or collinear columns) and `pca = TRUE` (default), the
#' problem is solved in the span of the principal directions with non-zero
#' variance (Cai's PCA step), which gives the minimum-norm projection vectors;
#' `pca = "always"` takes this path even for a regular problem. With
#' `regularize = alpha > 0` no PCA step is taken and
#' \eqn{X_c^\top B X_c + \alpha \bar d I} is used (\eqn{\bar d} the mean
#' degree for `"degree"`, 1 otherwise; Cai's `ReguAlpha`). With `pca = FALSE`
#' and no `regularize`, a singular problem gets the smallest ridge
#' \eqn{10^{-8+j}\,\mathrm{tr}/p} that makes it definite, with a warning.
#'
#' **Disconnected graphs.** The generalised eigenproblem needs
#' \eqn{X_c^\top B X_c} to be definite and no vertex to be isolated, not a
#' connected graph, so by default (`on_disconnected = "keep"`) a graph with
#' \eqn{c > 1} connected components (for example a kNN graph of images of
#' \eqn{c} objects, as COIL-20 at `k = 5`) is used as it is, with a message
#' (class `manifoldOOS_disconnected`). What the components do to the
#' projection: \eqn{L} is block diagonal, so the cost
#' \eqn{\sum_{ij} W_{ij} (y_i - y_j)^2} only involves pairs within a
#' component and nothing ties the positions of different components to each
#' other except the constraint. A direction along which every component is
#' constant costs nothing (\eqn{\lambda = 0}); when the data span such
#' directions (up to \eqn{c - 1} of them; always when there are about as
#' many features as points, or after the PCA step of such data) they come
#' first, each component collapses to one point along them, and which
#' combination of them is returned is arbitrary (a repeated eigenvalue). The
#' message counts these directions. Otherwise the projection keeps the
#' within-component neighbourhoods and the separation of the components
#' follows from the constraint, not from distances between them. Use
#' `on_disconnected = "connect"` to join the components by the shortest
#' edges (see [neighbor_graph()]), which adds between-component terms, a
#' larger `k`, or `"error"` to stop. The same holds for [olpp()].
#'
#' Defaults follow Deng Cai's LPP preset: `k = 5` neighbours, heat weights
#' with \eqn{\sigma} the mean pairwise distance, directions with
#' \eqn{\beta < 10^{-3}} dropped with a warning (`min_beta`; degree form only).
#'
#' @param X Training data: numeric matrix or data frame, one row per point.
#' @param ndim Number of projection vectors.
#' @param k Number of neighbours of the kNN graph.
#' @param weights Edge weights of the graph: `"heat"` or `"binary"`.
#' @param sigma Heat-kernel bandwidth: a number or a rule of
#'   [neighbor_graph()] (`"mean_pairwise"`, `"median_pairwise"`,
#'   `"median_knn"`).
#' @param constraint `"degree"` or `"covariance"` (see Details).
#' @param center `"mean"` or `"degree"` (see Details; `"covariance"` always
#'   uses the mean).
#' @param pca `TRUE` (PCA step when needed), `"always"` or `FALSE`; or a
#'   number of principal components to fit on, as for every fitting function
#'   (the projection is kept in the fit and [predict()] applies it, and the
#'   PCA step of `TRUE` then runs on the scores; see [manifoldOOS-input]).
#' @param regularize Ridge \eqn{\alpha \ge 0} replacing the PCA step.
#' @param graph Optional precomputed graph: a `manifold_graph` from
#'   [neighbor_graph()] or a symmetric non-negative \eqn{n \times n} weight
#'   matrix; `k`, `weights`, `sigma` and `on_disconnected` are then ignored.
#' @param on_disconnected `"keep"` (default: fit on the graph as it is, with
#'   a message; see Details), `"connect"` (join the components, see
#'   [neighbor_graph()]) or `"error"`.
#' @param min_beta Smallest kept \eqn{\beta = 1 - \lambda} (degree form).
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
#'   rows by [predict()]. See [manifoldOOS-input].
#' @param verbose Report the stages of the fit with time-stamped messages
#'   (see [manifoldOOS-progress]).
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @return A `manifold_fit` of subclass `manifold_lpp` (and
#'   `manifold_linear`) with `center`, `rotation` (the \eqn{p \times}
#'   `ndim` matrix \eqn{A}), `eigenvalues` (\eqn{\lambda}, ascending) and
#'   `solver` (path taken: `"cholesky"`, `"pca"`, `"pca_dual"`, `"ridge"` or
#'   `"auto_ridge"`). `predict()` applies the linear map exactly.
#' @seealso [olpp()], [npe()], [onpp()], [spectral_regression()].
#' @export
#' @examples
#' roll <- swiss_roll(400, seed = 1)
#' fit <- lpp(roll$x[1:300, ], ndim = 2, k = 8)
#' fit
#' y_new <- predict(fit, roll$x[301:400, ])
#' # the constraint A' Xc' D Xc A = I
#' g <- neighbor_graph(roll$x[1:300, ], k = 8, weights = "heat", sigma = "mean_pairwise")
#' Z <- embedding(fit)
#' round(crossprod(Z, Matrix::rowSums(g$W) * Z), 8)
lpp <- function(X, ndim = 2, k = 5, weights = c("heat", "binary"), sigma = "mean_pairwise",
                constraint = c("degree", "covariance"), center = c("mean", "degree"),
                pca = TRUE, regularize = 0, graph = NULL,
                on_disconnected = c("keep", "error", "connect"), min_beta = 1e-3,
                knn_method = getOption("manifoldOOS.knn_method", "auto"),
                metric = "euclidean", neighbors = NULL,
                verbose = getOption("manifoldOOS.verbose", FALSE)) {
  cm <- lp_prologue(regularize) %||% return(fit_input_model())
  constraint <- check_choice(constraint, c("degree", "covariance"), "constraint")
  center <- check_choice(center, c("mean", "degree"), "center")
  min_beta <- check_number(min_beta, "min_beta", lower = 0, upper = 1)
  g <- lp_graph_stage("LPP", X, cm$ndim, k, weights, sigma, graph, on_disconnected, knn_method, verbose)
  gr <- g$gr
  d <- gr$degree
  if (constraint == "degree") {
    mu <- if (center == "degree") colSums(d * X) / sum(d) else colMeans(X)
    Xc <- sweep(X, 2, mu)
    ridge <- cm$regularize * mean(d)
    res <- lp_solve(Xc, gr$W, d, "weighted", "top", cm$ndim, cm$pca, ridge)
    res <- lp_drop_small(res, res$values, min_beta, "lpp")
    values <- 1 - res$values
  } else {
    mu <- colMeans(X)
    Xc <- sweep(X, 2, mu)
    L <- graph_laplacian(gr$W, "unnormalized")
    res <- lp_solve(Xc, L, rep(1, nrow(X)), "weighted", "bottom", cm$ndim, cm$pca, cm$regularize)
    values <- res$values
  }
  lp_graph_fit("LPP", X, mu, res, values, g, verbose, match.call(),
               params = list(knn_method = knn_method, k = gr$info$k, weights = gr$info$weights, sigma = gr$info$sigma,
                             constraint = constraint, center = center, pca = cm$pca,
                             regularize = cm$regularize))
}

# ---- OLPP ---------------------------------------------------------------------

#' Orthogonal locality preserving projections (OLPP)
#'
#' LPP with orthonormal projection vectors (\eqn{A^\top A = I}{t(A) A = I}).
#' Two methods carry this name:
#' * `type = "cai"` (Cai, He, Han & Zhang 2006, default): \eqn{a_1} is LPP's
#'   first vector (normalised); each further \eqn{a_k} maximises
#'   \eqn{a^\top X_c^\top W X_c a / a^\top X_c^\top D X_c a} subject to
#'   \eqn{a^\top a_j = 0} for \eqn{j < k}. Solved by symmetric deflation in
#'   the whitened coordinates of the LPP problem (the same optimum as Cai's
#'   non-symmetric recursion, without complex arithmetic). `eigenvalues` are
#'   \eqn{1 - \beta_k}; directions with \eqn{\beta_k <} `min_beta` are dropped
#'   with a warning.
#' * `type = "trace"` (Kokiopoulou & Saad): minimise
#'   \eqn{\mathrm{tr}(A^\top X_c^\top L X_c A)} subject to \eqn{A^\top A = I}: the
#'   `ndim` smallest eigenvectors of \eqn{X_c^\top L X_c}.
#'
#' The PCA step (see [lpp()]) restricts both to the span of the principal
#' directions with non-zero variance; it is needed for `"trace"` whenever the
#' centred data are rank deficient, since null directions of \eqn{X_c} would
#' otherwise have eigenvalue 0.
#'
#' A disconnected graph is used as it is by default, with a message; see
#' "Disconnected graphs" in [lpp()] for what its components do to the
#' projection.
#'
#' @inheritParams lpp
#' @param type `"cai"` or `"trace"`.
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
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
#'   rows by [predict()]. See [manifoldOOS-input].
#' @return A `manifold_fit` of subclass `manifold_olpp` (and
#'   `manifold_linear`); see [lpp()].
#' @export
#' @examples
#' roll <- swiss_roll(300, seed = 2)
#' fit <- olpp(roll$x, ndim = 2, k = 8)
#' round(crossprod(fit$rotation), 10)   # orthonormal projection vectors
#' fit2 <- olpp(roll$x, ndim = 2, k = 8, type = "trace")
olpp <- function(X, ndim = 2, k = 5, type = c("cai", "trace"), weights = c("heat", "binary"),
                 sigma = "mean_pairwise", pca = TRUE, graph = NULL,
                 on_disconnected = c("keep", "error", "connect"), min_beta = 1e-3,
                 knn_method = getOption("manifoldOOS.knn_method", "auto"),
                 metric = "euclidean", neighbors = NULL,
                 verbose = getOption("manifoldOOS.verbose", FALSE)) {
  cm <- lp_prologue(0) %||% return(fit_input_model())
  type <- check_choice(type, c("cai", "trace"), "type")
  min_beta <- check_number(min_beta, "min_beta", lower = 0, upper = 1)
  g <- lp_graph_stage("OLPP", X, cm$ndim, k, weights, sigma, graph, on_disconnected, knn_method, verbose)
  gr <- g$gr
  mu <- colMeans(X)
  Xc <- sweep(X, 2, mu)
  if (type == "cai") {
    res <- lp_solve(Xc, gr$W, gr$degree, "weighted", "top", cm$ndim, cm$pca, 0, deflate = TRUE)
    res <- lp_drop_small(res, res$values, min_beta, "olpp")
    values <- 1 - res$values
  } else {
    L <- graph_laplacian(gr$W, "unnormalized")
    res <- lp_solve(Xc, L, rep(1, nrow(X)), "orthogonal", "bottom", cm$ndim, cm$pca, 0)
    values <- res$values
  }
  lp_graph_fit("OLPP", X, mu, res, values, g, verbose, match.call(),
               params = list(knn_method = knn_method, type = type, k = gr$info$k, weights = gr$info$weights,
                             sigma = gr$info$sigma, pca = cm$pca))
}

# ---- NPE / NPP and ONPP -------------------------------------------------------------

# The opening and set-up of NPE and ONPP (`label` names the method), as
# fit_prologue() is the opening of the other methods: NULL when X must first
# go through the input front end (the caller then returns fit_input_model());
# else checks `verbose` and resolves `knn_method` in the calling function's
# frame, then validates the other arguments and returns them with the LLE cost
# matrix M = (I - W)'(I - W) and the centred data (t0 = start of the timed part).
lle_linear_setup <- function(label, regularize, env = parent.frame()) {
  if (needs_input_model(env)) return(NULL)
  verbose <- env$verbose <- check_verbose(env$verbose)
  knn_method <- env$knn_method <- local_knn_method(env$knn_method, as_data_matrix(env$X, "X"))
  cm <- lp_common(env$X, env$ndim, env$pca, regularize)
  X <- cm$X
  k <- check_k(env$k, nrow(X))
  reg <- check_number(env$reg, "reg", lower = 0)
  t0 <- lp_progress_start(verbose, label, X, cm$ndim)
  M <- lle_cost(X, k, reg, knn_method)
  t1 <- mo_progress(verbose, "%s: kNN (k = %d) and reconstruction weights done", label, k, start = t0)
  mu <- colMeans(X)
  list(cm = cm, X = X, k = k, reg = reg, t0 = t0, t1 = t1, M = M, mu = mu, Xc = sweep(X, 2, mu))
}

# Progress lines shared by the linear projections (see mo_progress()).
lp_progress_start <- function(verbose, label, X, ndim) {
  mo_progress(verbose, "%s: %d points x %d features -> %d dimensions", label, nrow(X), ncol(X), ndim)
}

lp_progress_graph <- function(verbose, label, gr, t0) {
  t1 <- mo_progress(verbose, "%s: graph built (%s, %d edges)", label, gr$info$source,
                    as.integer(Matrix::nnzero(gr$W) / 2), start = t0)
  mo_progress(verbose, "%s: generalised eigen-solve", label)
  t1
}

lp_progress_done <- function(verbose, label, res, t0, t1) {
  mo_progress(verbose, "%s: eigen-solve done with %s", label, describe_solver(res), start = t1)
  mo_progress(verbose, "%s: done", label, start = t0)
}

# The opening of the graph projections (LPP, OLPP), as fit_prologue() is of
# the other methods: NULL when X must first go through the input front end
# (the caller then returns fit_input_model()); else checks `verbose`, the
# data, `ndim`, `pca` and `regularize` (lp_common()) and resolves
# `knn_method`, in that order and in the calling function's frame (`X`
# becomes the checked matrix), and returns the list of lp_common().
lp_prologue <- function(regularize, env = parent.frame()) {
  if (needs_input_model(env)) return(NULL)
  env$verbose <- check_verbose(env$verbose)
  cm <- lp_common(env$X, env$ndim, env$pca, regularize)
  env$knn_method <- local_knn_method(env$knn_method, cm$X)
  env$X <- cm$X
  cm
}

# The weight graph of a graph projection (`label` names the method) with its
# progress lines: the graph `gr` and the start (`t0`) and end (`t1`) times of
# the stage.
lp_graph_stage <- function(label, X, ndim, k, weights, sigma, graph, on_disconnected, knn_method, verbose) {
  t0 <- lp_progress_start(verbose, label, X, ndim)
  gr <- lp_weight_graph(X, k, weights, sigma, graph, on_disconnected, c("keep", "error", "connect"),
                        knn_method)
  list(gr = gr, t0 = t0, t1 = lp_progress_graph(verbose, label, gr, t0))
}

# The end of the graph projections (`label` names the method; `g` is the
# result of lp_graph_stage()): the notes on an automatic ridge and on a
# disconnected graph, the last progress stages, and the fit of class
# manifold_<label in lower case>.
lp_graph_fit <- function(label, X, mu, res, values, g, verbose, call, params) {
  method <- tolower(label)
  lp_ridge_note(res, method)
  lp_disconnected_note(g$gr, values, method)
  lp_progress_done(verbose, label, res, g$t0, g$t1)
  new_linear_fit(paste0("manifold_", method), label, X, mu, res$A, values, params = params,
                 res = res, time = proc.time()[["elapsed"]] - g$t0, call = call,
                 extra = list(n_components = g$gr$info$n_components))
}

# LLE cost matrix M = (I - W)'(I - W) with reconstruction weights (Roweis & Saul 2000).
lle_cost <- function(X, k, reg, knn_method = "exact") {
  nb <- knn(X, k, method = knn_method)
  w <- core(.mo_reconstruction_weights(X, X, nb$idx, reg, matrix(0, 0, 0), default_threads()))
  core(.mo_lle_cost_matrix(nb$idx, w))
}

#' Neighborhood preserving embedding (NPE / NPP)
#'
#' The linear version of locally linear embedding (He, Cai, Yan & Zhang 2005;
#' "neighborhood preserving projections", Pang et al. 2005). With the LLE
#' reconstruction weights \eqn{W} (`k` neighbours, Gram matrix regularised
#' by `reg` times its trace) and \eqn{M = (I - W)^\top (I - W)}, the
#' projection vectors solve
#' \eqn{X_c^\top M X_c a = \lambda X_c^\top X_c a}{Xc' M Xc a = lambda Xc' Xc a}
#' for the `ndim` smallest \eqn{\lambda}, normalised to
#' \eqn{A^\top X_c^\top X_c A = I}. Singular \eqn{X_c^\top X_c} (\eqn{p \ge n},
#' collinear columns): PCA step or ridge as in [lpp()]. `npp()` is the same
#' function.
#'
#' @inheritParams lpp
#' @param k Number of neighbours for the reconstruction weights.
#' @param reg Regulariser of the local Gram matrices (relative to their trace).
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
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
#'   rows by [predict()]. See [manifoldOOS-input].
#' @return A `manifold_fit` of subclass `manifold_npe` (and
#'   `manifold_linear`); see [lpp()].
#' @seealso [onpp()] for the orthogonal variant.
#' @export
#' @examples
#' roll <- swiss_roll(400, seed = 3)
#' fit <- npe(roll$x[1:300, ], ndim = 2, k = 10)
#' y_new <- predict(fit, roll$x[301:400, ])
npe <- function(X, ndim = 2, k = 10, reg = 1e-3, pca = TRUE, regularize = 0,
                knn_method = getOption("manifoldOOS.knn_method", "auto"),
                metric = "euclidean", neighbors = NULL,
                verbose = getOption("manifoldOOS.verbose", FALSE)) {
  s <- lle_linear_setup("NPE", regularize) %||% return(fit_input_model())
  cm <- s$cm
  mo_progress(verbose, "NPE: generalised eigen-solve")
  res <- lp_solve(s$Xc, s$M, rep(1, nrow(s$X)), "weighted", "bottom", cm$ndim, cm$pca, cm$regularize)
  lp_ridge_note(res, "npe")
  lp_progress_done(verbose, "NPE", res, s$t0, s$t1)
  new_linear_fit("manifold_npe", "NPE", s$X, s$mu, res$A, res$values,
                 params = list(knn_method = knn_method, k = s$k, reg = s$reg, pca = cm$pca, regularize = cm$regularize),
                 res = res, time = proc.time()[["elapsed"]] - s$t0, call = match.call())
}

#' @rdname npe
#' @export
npp <- npe

#' Orthogonal neighborhood preserving projections (ONPP)
#'
#' Kokiopoulou & Saad's orthogonal NPE: minimise
#' \eqn{\mathrm{tr}(A^\top X_c^\top M X_c A)} subject to \eqn{A^\top A = I},
#' i.e. the `ndim` smallest eigenvectors of \eqn{X_c^\top M X_c} with the LLE
#' matrix \eqn{M} of [npe()]. When the centred data are rank deficient
#' (always when \eqn{p \ge n}) the problem is solved in the span of the
#' principal directions with non-zero variance (`pca = TRUE`), since null
#' directions of \eqn{X_c} would have eigenvalue 0.
#'
#' @inheritParams npe
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
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
#'   rows by [predict()]. See [manifoldOOS-input].
#' @return A `manifold_fit` of subclass `manifold_onpp` (and
#'   `manifold_linear`); see [lpp()].
#' @export
#' @examples
#' roll <- swiss_roll(300, seed = 4)
#' fit <- onpp(roll$x, ndim = 2, k = 10)
#' round(crossprod(fit$rotation), 10)
onpp <- function(X, ndim = 2, k = 10, reg = 1e-3, pca = TRUE,
                 knn_method = getOption("manifoldOOS.knn_method", "auto"),
                 metric = "euclidean", neighbors = NULL,
                 verbose = getOption("manifoldOOS.verbose", FALSE)) {
  s <- lle_linear_setup("ONPP", 0) %||% return(fit_input_model())
  cm <- s$cm
  mo_progress(verbose, "ONPP: orthogonal eigen-solve")
  res <- lp_solve(s$Xc, s$M, rep(1, nrow(s$X)), "orthogonal", "bottom", cm$ndim, cm$pca, 0)
  lp_progress_done(verbose, "ONPP", res, s$t0, s$t1)
  new_linear_fit("manifold_onpp", "ONPP", s$X, s$mu, res$A, res$values,
                 params = list(knn_method = knn_method, k = s$k, reg = s$reg, pca = cm$pca),
                 res = res, time = proc.time()[["elapsed"]] - s$t0, call = match.call())
}
