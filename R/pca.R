#' Principal component analysis
#'
#' Linear embedding onto the leading principal components. The out-of-sample
#' map is exact: a new point `x` is mapped to `t(rotation) %*% ((x - center) / scale)`,
#' so `predict(fit, X)` on the training rows returns the training embedding.
#'
#' @param X Training data: a numeric matrix, data frame or `Matrix`, one row
#'   per observation.
#' @param ndim Number of components to keep.
#' @param scale Divide each column by its standard deviation before the
#'   decomposition (as `prcomp(scale. = TRUE)`).
#' @return A `manifold_fit` of subclass `manifold_pca` holding `center`,
#'   `scale`, `rotation` (loadings) and `sdev` (standard deviations of all
#'   components). Column signs follow the package convention: the
#'   largest-magnitude loading of each component is positive.
#' @seealso [manifold_fit] for the methods of the returned object.
#' @export
#' @examples
#' roll <- swiss_roll(500, seed = 1)
#' fit <- pca(roll$x[1:400, ], ndim = 2)
#' fit
#' y_new <- predict(fit, roll$x[401:500, ])
#' plot(fit, color = roll$color[1:400])
pca <- function(X, ndim = 2, scale = FALSE) {
  call <- match.call()
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
    center = m$center, scale = m$scale, rotation = rot, sdev = m$sdev
  )
}

#' @export
predict_native.manifold_pca <- function(object, x, method, ...) {
  core(.mo_pca_project(x, object$center, object$scale, unname(object$rotation)))
}

#' @export
summary_extra.manifold_pca <- function(object) {
  ve <- object$sdev^2
  out <- rbind(`Standard deviation` = object$sdev[seq_len(object$ndim)],
               `Proportion of variance` = (ve / sum(ve))[seq_len(object$ndim)],
               `Cumulative proportion` = cumsum(ve / sum(ve))[seq_len(object$ndim)])
  colnames(out) <- paste0("PC", seq_len(object$ndim))
  out
}
