#' Principal component analysis
#'
#' Linear embedding onto the leading principal components. The out-of-sample
#' map is exact: a new point `x` is mapped to `t(rotation) %*% ((x - center) / scale)`,
#' so `predict(fit, X)` on the training rows returns the training embedding.
#'
#' @param X Training data: a numeric matrix or data frame, one row per
#'   observation, or a sparse matrix of \pkg{Matrix} (`dgCMatrix`). A sparse
#'   matrix is never made dense: the centred (and scaled) matrix
#'   \eqn{A = (X - 1 \mu^\top) D^{-1}}{A = (X - 1 mu') / D} is applied
#'   implicitly through two sparse products, and the top `ndim` eigenpairs of
#'   \eqn{A^\top A}{A'A} (or of \eqn{A A^\top}{AA'} when there are fewer rows
#'   than columns) are found by restarted Lanczos iterations (the Spectra
#'   library) to a relative residual of `tol`. The result equals the dense
#'   decomposition of the same matrix to the accuracy of the iterations, and
#'   `predict()` accepts sparse rows in the same way.
#' @param ndim Number of components to keep.
#' @param scale Divide each column by its standard deviation before the
#'   decomposition (as `prcomp(scale. = TRUE)`).
#' @param tol Sparse input only: convergence tolerance of the Lanczos
#'   iterations (relative residual of each eigenpair; `irlba`'s default is
#'   `1e-5`).
#' @return A `manifold_fit` of subclass `manifold_pca` holding `center`,
#'   `scale`, `rotation` (loadings), `sdev` (standard deviations of all
#'   components; of the `ndim` computed ones for sparse input) and
#'   `total_variance` (the sum of the column variances after scaling).
#'   Column signs follow the package convention: the
#'   largest-magnitude loading of each component is positive.
#' @seealso [manifold_fit] for the methods of the returned object.
#' @export
#' @examples
#' roll <- swiss_roll(500, seed = 1)
#' fit <- pca(roll$x[1:400, ], ndim = 2)
#' fit
#' y_new <- predict(fit, roll$x[401:500, ])
#' plot(fit, color = roll$color[1:400])
#' # a sparse matrix: no dense copy, the same components
#' S <- Matrix::rsparsematrix(400, 1000, density = 0.02)
#' sfit <- pca(S, ndim = 5)
#' all.equal(abs(embedding(sfit)), abs(embedding(pca(as.matrix(S), ndim = 5))))
pca <- function(X, ndim = 2, scale = FALSE, tol = 1e-10) {
  call <- match.call()
  if (is_container(X)) {
    # a SingleCellExperiment or Seurat object: the fit records what it read
    ci <- as_cell_input(X)
    fit <- pca(ci$x, ndim = ndim, scale = scale, tol = tol)
    fit$input <- structure(list(n_features = fit$n_features, feature_names = fit$feature_names,
                                metric = "euclidean", pca = NULL, source = ci$source),
                           class = "manifold_input")
    fit$call <- call
    return(fit)
  }
  if (is_sparse_input(X)) return(pca_sparse(X, ndim, scale, tol, call))
  X <- as_data_matrix(X, "X", min_rows = 2L)
  ndim <- check_ndim(ndim, min(nrow(X), ncol(X)))
  scale <- check_flag(scale, "scale")
  if (scale) {
    sds <- apply(X, 2, stats::sd)
    if (any(sds == 0)) {
      abort_input("X", sprintf("has constant columns (%s); they cannot be scaled to unit variance.",
                               paste(utils::head(which(sds == 0), 5), collapse = ", ")))
    }
  }
  res <- timed(core(.mo_pca_fit(X, ndim, scale)))
  m <- res$value
  rot <- m$rotation
  dimnames(rot) <- list(colnames(X), paste0("PC", seq_len(ndim)))
  new_manifold_fit(
    class = "manifold_pca", method = "PCA", embedding = m$scores, X = X,
    params = list(scale = scale),
    eigenvalues = m$sdev^2,
    oos_default = "exact", oos_available = "exact",
    fit_time = res$time, call = call,
    center = m$center, scale = m$scale, rotation = rot, sdev = m$sdev,
    total_variance = sum(m$sdev^2)
  )
}

# PCA of a dgCMatrix without a dense copy (implicit centring and scaling).
pca_sparse <- function(X, ndim, scale, tol, call) {
  X <- as_sparse_input(X, "X", min_rows = 2L)
  ndim <- check_ndim(ndim, min(nrow(X), ncol(X)))
  scale <- check_flag(scale, "scale")
  tol <- check_number(tol, "tol", lower = 0, upper = 0.1, lower_open = TRUE)
  if (scale) {
    mu <- Matrix::colMeans(X)
    v <- (Matrix::colSums(X^2) - nrow(X) * mu^2) / (nrow(X) - 1)
    if (any(!(v > 0))) {
      abort_input("X", sprintf("has constant columns (%s); they cannot be scaled to unit variance.",
                               paste(utils::head(which(!(v > 0)), 5), collapse = ", ")))
    }
  }
  res <- timed(core(.mo_pca_sparse_fit(X, ndim, scale, tol, default_threads())))
  m <- res$value
  rot <- m$rotation
  dimnames(rot) <- list(colnames(X), paste0("PC", seq_len(ndim)))
  new_manifold_fit(
    class = "manifold_pca", method = "PCA", embedding = m$scores, X = X,
    params = list(scale = scale, sparse = TRUE),
    eigenvalues = m$sdev^2,
    oos_default = "exact", oos_available = "exact",
    fit_time = res$time, call = call,
    center = m$center, scale = m$scale, rotation = rot, sdev = m$sdev,
    total_variance = m$total_variance, solver = list(method = m$solver, n_ops = m$n_ops)
  )
}

#' @export
predict_native.manifold_pca <- function(object, x, method, ...) {
  if (is_sparse_input(x)) {
    return(core(.mo_pca_sparse_project(x, object$center, object$scale, unname(object$rotation),
                                       default_threads())))
  }
  core(.mo_pca_project(x, object$center, object$scale, unname(object$rotation)))
}

#' @export
summary_extra.manifold_pca <- function(object) {
  ve <- object$sdev^2
  tot <- if (is.null(object$total_variance)) sum(ve) else object$total_variance
  out <- rbind(`Standard deviation` = object$sdev[seq_len(object$ndim)],
               `Proportion of variance` = (ve / tot)[seq_len(object$ndim)],
               `Cumulative proportion` = cumsum(ve / tot)[seq_len(object$ndim)])
  colnames(out) <- paste0("PC", seq_len(object$ndim))
  out
}
