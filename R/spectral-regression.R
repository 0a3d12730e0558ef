# Spectral regression (SR, KSR) and kernel LPP (He & Niyogi 2003; Cai, He & Han 2007): a graph
# embedding (Laplacian eigenmaps) followed by a (kernel) ridge regression that
# gives the explicit out-of-sample map.

# Step 1: bottom ndim non-trivial eigenvectors of the graph.
# "generalized": L z = lambda D z, z' D z = 1 (Belkin-Niyogi, Cai's Eigenmap);
# "unnormalized": L y = lambda y, y'y = 1 (the framework of LGRM).
# Graphs up to this size use dense LAPACK for the graph embedding; larger ones
# shift-invert Lanczos (the reference LAPACK takes seconds at n = 1500).
sr_dense_max <- function() getOption("manifoldOOS.sr_dense_max", 500L)

sr_graph_embedding <- function(W, d, ndim, laplacian) {
  n <- nrow(W)
  L <- graph_laplacian(W, "unnormalized")
  if (laplacian == "generalized") {
    res <- geigs_sparse(L, Matrix::Diagonal(n, d), "bottom", ndim + 1L, dense_max_n = sr_dense_max())
    scale <- 1
  } else {
    res <- eigs_sparse(L, "bottom", ndim + 1L, dense_max_n = sr_dense_max())
    scale <- mean(d)
  }
  res <- tryCatch(drop_trivial_pair(res, rep(1, n), scale),
                  manifoldOOS_input_error = function(e) {
                    abort_input("graph", paste0("gives a degenerate graph embedding (disconnected graph?): ",
                                                conditionMessage(e)))
                  })
  list(Y = res$vectors, values = res$values)
}

sr_fit <- function(X, ndim, gr, laplacian, kernel_spec_, delta, linear_alpha, intercept,
                   class, method, params, t0, call, verbose = FALSE) {
  t1 <- mo_progress(verbose, "%s: graph built (%s, %d edges); %s graph embedding", method, gr$info$source,
                    as.integer(Matrix::nnzero(gr$W) / 2), laplacian, start = t0)
  ge <- sr_graph_embedding(gr$W, gr$degree, ndim, laplacian)
  Y <- ge$Y
  t2 <- mo_progress(verbose, "%s: graph embedding done (%s); %s regression", method,
                    if (nrow(gr$W) <= sr_dense_max()) "dense LAPACK" else "shift-invert Lanczos",
                    if (is.null(kernel_spec_)) "ridge" else "kernel ridge", start = t1)
  fit <- sr_regress(X, ndim, Y, ge, kernel_spec_, delta, linear_alpha, intercept, class, method,
                    params, t0, call)
  mo_progress(verbose, "%s: regression done", method, start = t2)
  mo_progress(verbose, "%s: done", method, start = t0)
  fit
}

# Step 2 of sr_fit(): the (kernel) ridge regression and the fit object.
sr_regress <- function(X, ndim, Y, ge, kernel_spec_, delta, linear_alpha, intercept,
                       class, method, params, t0, call) {
  if (is.null(kernel_spec_)) {
    mu <- colMeans(X)
    Xc <- sweep(X, 2, mu)
    rr <- core(.mo_ridge_coefficients(Xc, Y, linear_alpha))
    ybar <- if (intercept) colMeans(Y) else rep(0, ndim)
    A <- rr$A
    emb <- core(.mo_pca_project(X, mu, rep(1, ncol(X)), A))
    emb <- sweep(emb, 2, ybar, "+")
    dimnames(A) <- list(colnames(X), paste0("Dim", seq_len(ndim)))
    return(new_manifold_fit(
      class = c(class, "manifold_sr_linear"), method = method, embedding = emb, X = X,
      params = params, eigenvalues = ge$values, oos_default = "exact", oos_available = "exact",
      fit_time = proc.time()[["elapsed"]] - t0, call = call,
      center = mu, rotation = A, y_mean = ybar, solver = list(path = rr$path)))
  }
  K <- kernel_eval(kernel_spec_, X)
  if (is.function(delta)) delta <- delta(K)
  kr <- core(.mo_kernel_ridge(K, Y, delta, intercept))
  emb <- K %*% kr$beta
  emb <- sweep(emb, 2, kr$c, "+")
  Xs <- X
  new_manifold_fit(
    class = c(class, "manifold_sr_kernel"), method = method, embedding = emb, X = X,
    params = params, eigenvalues = ge$values, oos_default = "exact", oos_available = "exact",
    fit_time = proc.time()[["elapsed"]] - t0, call = call,
    X_train = unname(Xs), kernel = kernel_spec_, coefficients = kr$beta, intercept = kr$c,
    ridge = delta)
}

#' @export
predict_native.manifold_sr_linear <- function(object, x, method, ...) {
  y <- core(.mo_pca_project(x, object$center, rep(1, length(object$center)), unname(object$rotation)))
  sweep(y, 2, object$y_mean, "+")
}

#' @export
predict_native.manifold_sr_kernel <- function(object, x, method, ...) {
  Kx <- kernel_eval(object$kernel, x, object$X_train)
  sweep(Kx %*% object$coefficients, 2, object$intercept, "+")
}

sr_kernel <- function(X, kernel, kernel_sigma, degree, gamma, coef0) {
  if (identical(kernel, "linear")) return(NULL)
  kernel_spec(kernel, sigma = kernel_sigma, degree = degree, gamma = gamma, coef0 = coef0, X = X)
}

#' Spectral regression (SR) and kernel spectral regression (KSR)
#'
#' Cai, He & Han's two-step method. Step 1, a graph embedding: the `ndim`
#' smallest non-trivial eigenvectors of the kNN graph's Laplacian, by default
#' the generalised problem \eqn{L y = \lambda D y}{L y = lambda D y} with
#' \eqn{y^\top D y = 1} (Laplacian eigenmaps, Cai's `Eigenmap`), or with
#' `laplacian = "unnormalized"` \eqn{L y = \lambda y}, \eqn{y^\top y = 1} (the
#' embedding of LGRM's framework at \eqn{\mu = 0}). Step 2, a ridge regression
#' of each embedding column on the data, which is the out-of-sample map:
#' * `kernel = "linear"` (SR): \eqn{y(x) = \bar y + A^\top (x - \mu)} with
#'   \eqn{A = (X_c^\top X_c + \alpha I)^{-1} X_c^\top Y} (primal, \eqn{p \le n})
#'   or \eqn{X_c^\top (X_c X_c^\top + \alpha I)^{-1} Y} (dual, \eqn{p > n});
#' * `kernel = "rbf"` or `"polynomial"` (KSR): kernel ridge regression with an
#'   unpenalised bias, \eqn{y(x) = \beta^\top k(x) + c} with
#'   \eqn{\beta = (H K H + \alpha I)^{-1} H Y}, \eqn{c = \bar y - \beta^\top K 1 / n}
#'   (`intercept = FALSE`: \eqn{\beta = (K + \alpha I)^{-1} Y}, \eqn{c = 0}).
#'
#' With a linear kernel this is the regression step that LGRM reduces to at
#' \eqn{\mu = 0} (ridge with an unpenalised intercept); the kernel variant is
#' its kernel counterpart. As \eqn{\alpha \to 0} with centred data of rank
#' \eqn{n - 1} (or an invertible kernel) the training embedding reproduces the
#' graph embedding, and the linear map spans the same subspace as
#' `lpp(center = "degree")`.
#'
#' The returned `embedding` is the fitted values of the regression (so that
#' `predict(fit, X)` on the training rows returns it); `eigenvalues` are those
#' of the graph embedding.
#'
#' @inheritParams lpp
#' @param kernel `"linear"` (SR), `"rbf"` or `"polynomial"` (KSR).
#' @param alpha Ridge \eqn{\alpha \ge 0}; default 0.1 for the linear kernel
#'   and 0.01 for the others (Cai's `ReguAlpha` values).
#' @param laplacian `"generalized"` or `"unnormalized"` graph embedding.
#' @param kernel_sigma RBF bandwidth: a number or `"median_pairwise"` /
#'   `"mean_pairwise"`.
#' @param degree,gamma,coef0 Polynomial kernel \eqn{(\gamma a^\top b + c_0)^{d}}.
#' @param intercept Unpenalised bias in the regression (default `TRUE`).
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @param on_disconnected `"error"` (default) or `"connect"` (see
#'   [neighbor_graph()]): the graph embedding of a disconnected graph is
#'   degenerate (one zero eigenvalue per component).
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
#'   rows by [predict()]. See [manifoldOOS-input].
#' @return A `manifold_fit` of subclass `manifold_sr` (and
#'   `manifold_sr_linear` with `center`, `rotation`, `y_mean`, or
#'   `manifold_sr_kernel` with the training data, kernel specification,
#'   `coefficients` and `intercept`).
#' @seealso [klpp()], [lpp()].
#' @export
#' @examples
#' roll <- swiss_roll(400, seed = 5)
#' fit <- spectral_regression(roll$x[1:300, ], ndim = 2, k = 8)
#' y_new <- predict(fit, roll$x[301:400, ])
#' kfit <- spectral_regression(roll$x[1:300, ], ndim = 2, k = 8, kernel = "rbf")
#' plot(kfit, color = roll$color[1:300])
spectral_regression <- function(X, ndim = 2, k = 5, kernel = c("linear", "rbf", "polynomial"),
                                alpha = NULL, weights = c("heat", "binary"), sigma = "mean_pairwise",
                                laplacian = c("generalized", "unnormalized"),
                                kernel_sigma = "median_pairwise", degree = 2, gamma = 1, coef0 = 1,
                                intercept = TRUE, graph = NULL,
                                on_disconnected = c("error", "connect"),
                                knn_method = getOption("manifoldOOS.knn_method", "auto"),
                                pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                                verbose = getOption("manifoldOOS.verbose", FALSE)) {
  n <- fit_prologue(min_rows = 3L, ndim_gap = 2L) %||% return(fit_input_model())
  kernel <- check_choice(kernel, c("linear", "rbf", "polynomial"), "kernel")
  laplacian <- check_choice(laplacian, c("generalized", "unnormalized"), "laplacian")
  intercept <- check_flag(intercept, "intercept")
  if (is.null(alpha)) alpha <- if (kernel == "linear") 0.1 else 0.01
  alpha <- check_number(alpha, "alpha", lower = 0)
  t0 <- lp_progress_start(verbose, if (kernel == "linear") "SR" else "KSR", X, ndim)
  ks <- sr_kernel(X, kernel, kernel_sigma, degree, gamma, coef0)
  gr <- lp_weight_graph(X, k, weights, sigma, graph, on_disconnected, knn_method = knn_method)
  params <- list(knn_method = knn_method, k = gr$info$k, weights = gr$info$weights, sigma = gr$info$sigma, kernel = kernel,
                 alpha = alpha, laplacian = laplacian, intercept = intercept)
  if (kernel == "linear" && !intercept) {
    abort_input("intercept", "must be TRUE for the linear kernel (the data are centred).")
  }
  sr_fit(X, ndim, gr, laplacian, ks, if (is.null(ks)) NULL else alpha, alpha, intercept,
         "manifold_sr", if (kernel == "linear") "SR" else "KSR", params, t0, match.call(), verbose)
}

#' Kernel locality preserving projections (KLPP)
#'
#' He & Niyogi's kernel LPP, \eqn{K L K \alpha = \lambda K D K \alpha}{K L K alpha = lambda K D K alpha},
#' \eqn{y(x) = \sum_i \alpha_i k(x, x_i)}. When \eqn{K} is invertible its
#' solutions are exactly the Laplacian-eigenmaps coordinates \eqn{z = K\alpha}
#' (\eqn{L z = \lambda D z}), so KLPP is computed as: the graph embedding of
#' [spectral_regression()] followed by a kernel regression with a tiny ridge
#' \eqn{\delta = } `ridge` \eqn{\times} mean(diag \eqn{K}), which keeps the
#' badly conditioned interpolation stable. It differs from kernel spectral
#' regression only in the default ridge. The training embedding reproduces the
#' graph embedding up to the ridge.
#'
#' @inheritParams spectral_regression
#' @param kernel `"rbf"` (default) or `"polynomial"`.
#' @param ridge Relative ridge \eqn{\delta / \mathrm{mean}(\mathrm{diag}\,K)}.
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
#'   rows by [predict()]. See [manifoldOOS-input].
#' @return A `manifold_fit` of subclass `manifold_klpp` (and
#'   `manifold_sr_kernel`); see [spectral_regression()].
#' @export
#' @examples
#' roll <- swiss_roll(300, seed = 6)
#' fit <- klpp(roll$x[1:250, ], ndim = 2, k = 8)
#' y_new <- predict(fit, roll$x[251:300, ])
klpp <- function(X, ndim = 2, k = 5, kernel = c("rbf", "polynomial"), ridge = 1e-6,
                 weights = c("heat", "binary"), sigma = "mean_pairwise",
                 laplacian = c("generalized", "unnormalized"), kernel_sigma = "median_pairwise",
                 degree = 2, gamma = 1, coef0 = 1, intercept = TRUE, graph = NULL,
                 on_disconnected = c("error", "connect"),
                 knn_method = getOption("manifoldOOS.knn_method", "auto"),
                 pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                 verbose = getOption("manifoldOOS.verbose", FALSE)) {
  n <- fit_prologue(min_rows = 3L, ndim_gap = 2L) %||% return(fit_input_model())
  kernel <- check_choice(kernel, c("rbf", "polynomial"), "kernel")
  laplacian <- check_choice(laplacian, c("generalized", "unnormalized"), "laplacian")
  intercept <- check_flag(intercept, "intercept")
  ridge <- check_number(ridge, "ridge", lower = 0)
  t0 <- lp_progress_start(verbose, "KLPP", X, ndim)
  ks <- sr_kernel(X, kernel, kernel_sigma, degree, gamma, coef0)
  gr <- lp_weight_graph(X, k, weights, sigma, graph, on_disconnected, knn_method = knn_method)
  delta <- function(K) ridge * mean(diag(K))
  params <- list(knn_method = knn_method, k = gr$info$k, weights = gr$info$weights, sigma = gr$info$sigma, kernel = kernel,
                 ridge = ridge, laplacian = laplacian, intercept = intercept)
  sr_fit(X, ndim, gr, laplacian, ks, delta, NULL, intercept, c("manifold_klpp", "manifold_sr"),
         "KLPP", params, t0, match.call(), verbose)
}
