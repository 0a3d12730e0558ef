# Kernel PCA and classical MDS with their exact out-of-sample maps.

# Eigen-solver choice shared by the spectral methods.
check_eigen_solver <- function(eigen_solver) {
  check_choice(eigen_solver, c("auto", "dense", "iterative"), "eigen_solver")
}

#' Kernel principal component analysis
#'
#' Kernel PCA (Schölkopf, Smola and Müller) with the exact projection of new
#' points. With the training kernel matrix \eqn{K}, its doubly centred form
#' \eqn{K_c = HKH} (\eqn{H = I - \frac1n 11^\top}) has eigenpairs
#' \eqn{(\ell_k, v_k)} (eigenvalues of \eqn{K_c} itself, not divided by
#' \eqn{n}); the embedding is \eqn{Y = V_q \Lambda_q^{1/2}}. A new point
#' \eqn{x} is mapped to \eqn{y_k(x) = \alpha_k^\top k_c(x)} with
#' \eqn{\alpha_k = v_k / \sqrt{\ell_k}} and the kernel row
#' \eqn{k(x, x_i)} centred with the stored training means:
#' \eqn{k_c(x)_i = k(x, x_i) - \frac1n\sum_j k(x, x_j) - \frac1n\sum_j K_{ji} +
#' \frac1{n^2}\sum_{jl} K_{jl}}. Projecting the training rows returns the
#' training embedding.
#'
#' Kernels: `"rbf"` \eqn{\exp(-\|a-b\|^2 / (2\sigma^2))}, `"polynomial"`
#' \eqn{(\gamma a^\top b + c_0)^d}, `"linear"` \eqn{a^\top b} (kernel PCA with
#' the linear kernel is PCA, with \eqn{\ell_k} the squared singular values of
#' the centred data).
#'
#' **Eigen-solver.** `eigen_solver = "dense"` decomposes \eqn{K_c} with
#' LAPACK; `"iterative"` computes only the leading `ndim` eigenpairs by
#' Lanczos iterations (Spectra) applying the centring implicitly, so
#' \eqn{K_c} is never formed; `"auto"` uses the dense path up to
#' `min(getOption("manifoldOOS.dense_max_n", 2000),
#' getOption("manifoldOOS.dense_top_max_n", 500))` points. Leading eigenvalues
#' at or below \eqn{10^{-12}\ell_1} mean that `ndim` exceeds the rank of the
#' centred kernel: an error.
#'
#' @param X Training data: a numeric matrix or data frame, one row per point.
#' @param ndim Number of dimensions of the embedding.
#' @param kernel `"rbf"`, `"polynomial"` or `"linear"`.
#' @param sigma RBF bandwidth: a positive number, or `"median_pairwise"`
#'   (default) / `"mean_pairwise"` for the median / mean Euclidean distance
#'   between training points (on at most 3000 evenly spaced rows).
#' @param degree,gamma,coef0 Polynomial kernel parameters.
#' @param eigen_solver `"auto"`, `"dense"` or `"iterative"` (see Details).
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
#'   (see [manifoldOOS-progress]).
#' @return A `manifold_fit` of subclass `manifold_kpca`. Besides the common
#'   fields it stores the training data `x_train`, the kernel (`kernel`), the
#'   coefficients `alpha` (`n x ndim`), the column means of the training
#'   kernel (`col_means`) and their mean (`grand_mean`), and `solver`, the
#'   eigen-solver path used. `eigenvalues` holds \eqn{\ell_1, \dots, \ell_q}.
#' @section Name clash with kernlab:
#' \pkg{kernlab} (attached by `library(kernlab)` and by `library(dimRed)`)
#' has its own `kpca()`; attached after manifoldOOS, it masks this one.
#' kernlab's `kpca(X, ndim = 2)` then silently ignores `ndim` and returns a
#' kernlab object, which manifoldOOS functions refuse with an error saying
#' that `kpca()` was masked. Call `manifoldOOS::kpca()` (as the examples and
#' vignettes can be copied safely that way), or attach manifoldOOS last.
#' @seealso [manifold_fit] for the methods of the returned object, [mds()],
#'   [pca()].
#' @export
#' @examples
#' roll <- swiss_roll(500, seed = 1)
#' fit <- kpca(roll$x[1:400, ], ndim = 2, sigma = 10)
#' fit
#' y_new <- predict(fit, roll$x[401:500, ])
#' # training rows are projected onto their embedding
#' all.equal(predict(fit, roll$x[1:5, ]), embedding(fit)[1:5, ], check.attributes = FALSE)
kpca <- function(X, ndim = 2, kernel = c("rbf", "polynomial", "linear"),
                 sigma = "median_pairwise", degree = 2, gamma = 1, coef0 = 1,
                 eigen_solver = c("auto", "dense", "iterative"),
                 pca = NULL, pca_scale = FALSE, metric = "euclidean",
                 verbose = getOption("manifoldOOS.verbose", FALSE)) {
  if (needs_input_model()) return(fit_input_model())
  verbose <- check_verbose(verbose)
  X <- as_data_matrix(X, "X")
  ndim <- check_ndim(ndim, nrow(X) - 1L)
  if (is.function(kernel)) {
    abort_input("kernel", "must be \"rbf\", \"polynomial\" or \"linear\" (a fitted model cannot store a function).")
  }
  ks <- kernel_spec(kernel, sigma = sigma, degree = degree, gamma = gamma, coef0 = coef0, X = X)
  eigen_solver <- check_eigen_solver(eigen_solver)
  opts <- eig_opts(method = eigen_solver)
  t0 <- mo_progress(verbose, "Kernel PCA: %d points x %d features -> %d dimensions (%s kernel%s)",
                    nrow(X), ncol(X), ndim, ks$type,
                    if (ks$type == "rbf") sprintf(", sigma = %.4g", kernel_sigma(ks)) else "")
  mo_progress(verbose, "Kernel PCA: kernel matrix, centring and eigen-solve (eigen_solver = \"%s\")",
              eigen_solver)
  res <- timed(core(.mo_kpca_fit(X, ndim, ks$type, kernel_sigma(ks), ks$gamma, ks$coef0,
                                 ks$degree, opts)))
  m <- res$value
  mo_progress(verbose, "Kernel PCA: eigen-solve done with %s", describe_solver(m$solver), start = t0)
  params <- list(kernel = ks$type)
  if (ks$type == "rbf") {
    params$sigma <- ks$sigma
    if (!is.na(ks$sigma_rule)) params$sigma_rule <- ks$sigma_rule
  } else if (ks$type == "polynomial") {
    params[c("degree", "gamma", "coef0")] <- list(ks$degree, ks$gamma, ks$coef0)
  }
  params$eigen_solver <- eigen_solver
  mo_progress(verbose, "Kernel PCA: done", start = t0)
  new_manifold_fit(
    class = "manifold_kpca", method = "Kernel PCA", embedding = m$embedding, X = X,
    params = params, eigenvalues = m$values,
    oos_default = "exact", oos_available = "exact",
    fit_time = res$time, call = match.call(),
    x_train = unname_matrix(X), kernel = unclass(ks), alpha = m$alpha, col_means = m$col_means,
    grand_mean = m$grand_mean, solver = m$solver
  )
}

kernel_sigma <- function(ks) if (is.na(ks$sigma)) 1 else ks$sigma

unname_matrix <- function(X) {
  dimnames(X) <- NULL
  X
}

#' @export
predict_native.manifold_kpca <- function(object, x, method, ...) {
  ks <- object$kernel
  core(.mo_kpca_project(object$x_train, unname_matrix(x), ks$type, kernel_sigma(ks), ks$gamma,
                        ks$coef0, ks$degree, object$col_means, object$grand_mean, object$alpha,
                        default_threads()))
}

#' @export
summary_extra.manifold_kpca <- function(object) {
  ev <- object$eigenvalues
  out <- rbind(Eigenvalue = ev, `Share of the kept` = ev / sum(ev))
  colnames(out) <- colnames(object$embedding)
  out
}

#' Classical multidimensional scaling
#'
#' Classical (Torgerson–Gower) MDS of the Euclidean distances between the
#' rows of `X`, with Gower's formula for adding new points. With the squared
#' distances \eqn{\Delta^{\circ 2}}, \eqn{B = -\frac12 H \Delta^{\circ 2} H}
#' has leading eigenpairs \eqn{(\ell_k, v_k)} and the embedding is
#' \eqn{Y = V_q \Lambda_q^{1/2}}. For Euclidean distances
#' \eqn{B = X_c X_c^\top} (centred data), which the fit uses directly: the
#' dense path decomposes \eqn{B} with LAPACK, the iterative path runs Lanczos
#' iterations with the product \eqn{v \mapsto X_c(X_c^\top v)} and never forms
#' an \eqn{n \times n} matrix; `"auto"` uses the dense path up to
#' `min(getOption("manifoldOOS.dense_max_n", 2000),
#' getOption("manifoldOOS.dense_top_max_n", 500))` points.
#'
#' Out-of-sample rules: `"gower"` (default),
#' \eqn{y_k(x) = -\frac{1}{2\sqrt{\ell_k}} \sum_i v_{ik} (\delta^2(x, x_i) - \mu_i)}
#' with \eqn{\mu_i} the column means of \eqn{\Delta^{\circ 2}} (the
#' landmark-MDS triangulation with all training points as landmarks); and
#' `"nystrom"`, Bengio et al.'s form \eqn{y_k(x) = \frac{1}{\ell_k}\sum_i
#' \tilde K(x, x_i) y_{ik}} with the doubly centred kernel \eqn{\tilde K}.
#' Both are algebraically equal, reproduce the training embedding on the
#' training rows, and for Euclidean distances equal the projection of
#' \eqn{x - \bar x} on the principal axes (classical MDS of Euclidean
#' distances is PCA).
#'
#' @inheritParams kpca
#' @param X Training data: a numeric matrix or data frame, one row per point;
#'   or the distances between the training points, as a [stats::dist()]
#'   object or a square matrix with `metric = "precomputed"`: classical MDS of
#'   those distances (Torgerson scaling), and [predict()] places new points
#'   from their distances to the training points by the same rules (see
#'   [manifoldOOS-distances]).
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
#'   `"precomputed"`: `X` holds distances.
#' @return A `manifold_fit` of subclass `manifold_mds`. Besides the common
#'   fields it stores the training data `x_train`, `lsharp` (`n x ndim`, columns
#'   \eqn{v_k/\sqrt{\ell_k}}), `mu` (column means of the squared distances),
#'   `grand_mean` (their mean), `negative_mass` (the share
#'   \eqn{\sum_{\ell<0}|\ell| / \sum|\ell|} of negative eigenvalue mass; `NA`
#'   on the iterative path) and `solver`.
#' @seealso [manifold_fit], [kpca()], [isomap()].
#' @export
#' @examples
#' roll <- swiss_roll(500, seed = 1)
#' fit <- mds(roll$x[1:400, ], ndim = 2)
#' fit
#' head(predict(fit, roll$x[401:500, ]))
#' # classical MDS of Euclidean distances is PCA (up to column signs)
#' p <- pca(roll$x[1:400, ], ndim = 2)
#' max(abs(abs(embedding(fit)) - abs(embedding(p))))
mds <- function(X, ndim = 2, eigen_solver = c("auto", "dense", "iterative"),
                pca = NULL, pca_scale = FALSE, metric = "euclidean",
                verbose = getOption("manifoldOOS.verbose", FALSE)) {
  given <- is_distance_input(X, metric)
  if (!given && needs_input_model()) return(fit_input_model())
  if (given) {
    n <- distance_prologue("mds")
    ndim <- check_ndim(ndim, n - 1L)
  } else {
    verbose <- check_verbose(verbose)
    X <- as_data_matrix(X, "X")
    ndim <- check_ndim(ndim, min(nrow(X) - 1L, ncol(X)))
  }
  eigen_solver <- check_eigen_solver(eigen_solver)
  opts <- eig_opts(method = eigen_solver)
  t0 <- mo_progress(verbose, "Classical MDS: %d points %s -> %d dimensions", nrow(X),
                    if (given) "given as distances" else sprintf("x %d features", ncol(X)), ndim)
  mo_progress(verbose, "Classical MDS: distances, double centring and eigen-solve (eigen_solver = \"%s\")",
              eigen_solver)
  res <- timed(core(if (given) {
    .mo_cmds_distances(unname_matrix(X), FALSE, ndim, opts, default_threads())
  } else {
    .mo_mds_fit(unname_matrix(X), ndim, opts)
  }))
  m <- res$value
  mo_progress(verbose, "Classical MDS: done; eigen-solve with %s", describe_solver(m$solver), start = t0)
  fit <- new_manifold_fit(
    class = "manifold_mds", method = "Classical MDS", embedding = m$embedding, X = X,
    params = list(eigen_solver = eigen_solver), eigenvalues = m$values,
    oos_default = "gower", oos_available = c("gower", "nystrom"),
    fit_time = res$time, call = match.call(),
    x_train = if (given) NULL else unname_matrix(X), lsharp = m$lsharp_t, mu = m$mu,
    grand_mean = m$grand_mean, negative_mass = m$negative_mass, solver = m$solver
  )
  if (given) fit <- finish_distance_fit(fit, X)
  fit
}

#' @export
predict_native.manifold_mds <- function(object, x, method, ...) {
  rule <- if (method == "gower") "triangulation" else "nystrom"
  if (is_distance_fit(object)) {
    # x: the new points' distances to the training points
    return(core(.mo_mds_place(unname(x)^2, object$lsharp, unname(object$embedding),
                              object$eigenvalues, object$mu, object$grand_mean, rule)))
  }
  core(.mo_mds_project(object$x_train, unname_matrix(x), object$lsharp, unname(object$embedding),
                       object$eigenvalues, object$mu, object$grand_mean, rule,
                       default_threads()))
}

#' @export
summary_extra.manifold_mds <- function(object) {
  ev <- object$eigenvalues
  out <- rbind(Eigenvalue = ev)
  colnames(out) <- colnames(object$embedding)
  out
}
