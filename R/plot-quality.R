# Plots of quality measures: R_NX(K) curves of several embeddings.

#' Plot R_NX(K) curves of several embeddings
#'
#' Draws the rank-based quality curve \eqn{R_{NX}(K)} (Lee and Verleysen) of
#' one or more embeddings of the same data on a logarithmic `K` axis, with the
#' area under each curve (the log-weighted AUC of [rnx_auc()]) in the legend.
#' Curves closer to 1 preserve neighbourhoods better; the random embedding
#' scores 0.
#'
#' @param X The high-dimensional data (rows are points).
#' @param embeddings A named list of embeddings of the rows of `X`: numeric
#'   matrices or `manifold_fit` objects (their training embedding is used), or
#'   a single one.
#' @param K_max Largest neighbourhood size (`NULL`: `min(n - 2, 1000)`).
#' @param col Colours, one per embedding.
#' @param lty Line types, one per embedding (so curves that coincide stay
#'   distinguishable).
#' @param main,xlab,ylab Titles.
#' @param legend Draw a legend with the AUC values.
#' @param ... Further graphical parameters passed to [plot.default()].
#' @return Invisibly, a data frame with columns `embedding`, `K` and `rnx`
#'   (and the AUC per embedding in attribute `"auc"`).
#' @seealso [rnx()], [rnx_auc()], [assess()].
#' @export
#' @examples
#' roll <- swiss_roll(400, seed = 1)
#' plot_rnx(roll$x, list(PCA = pca(roll$x, 2), LTSA = ltsa(roll$x, 2, k = 10)),
#'          K_max = 100)
plot_rnx <- function(X, embeddings, K_max = NULL,
                     col = grDevices::hcl.colors(max(2L, length(embeddings)), "Dark 3"),
                     lty = seq_along(embeddings),
                     main = "Neighbourhood preservation", xlab = "K (log scale)",
                     ylab = expression(R[NX](K)), legend = TRUE, ...) {
  check_dots(..., accepted = list(graphics::plot.default, graphics_par_names()), fun = "plot_rnx()")
  X <- as_data_matrix(X, "X")
  if (inherits(embeddings, "manifold_fit") || is.matrix(embeddings) || is.data.frame(embeddings)) {
    embeddings <- list(embeddings)
  }
  if (!is.list(embeddings) || !length(embeddings)) {
    abort_input("embeddings", "must be a matrix, a manifold_fit, or a non-empty list of them.")
  }
  nms <- names(embeddings)
  if (is.null(nms)) nms <- rep("", length(embeddings))
  for (i in seq_along(embeddings)) {
    e <- embeddings[[i]]
    if (!inherits(e, "manifold_fit") && !is.matrix(e) && !is.data.frame(e)) {
      abort_input("embeddings", sprintf("element %d must be a matrix or a manifold_fit, not an object of class '%s'.%s",
                                        i, class(e)[1L], masked_hint(e)))
    }
    if (!nzchar(nms[i])) nms[i] <- if (inherits(e, "manifold_fit")) e$method else paste("embedding", i)
    if (inherits(e, "manifold_fit")) embeddings[[i]] <- embedding(e)
    if (NROW(embeddings[[i]]) != nrow(X)) {
      abort_input("embeddings", sprintf("element %d has %d rows; `X` has %d.", i,
                                        NROW(embeddings[[i]]), nrow(X)))
    }
  }
  curves <- lapply(embeddings, function(Y) rnx(X, Y, K_max = K_max))
  auc <- vapply(embeddings, function(Y) rnx_auc(X, Y, K_max = K_max), numeric(1))
  K <- seq_along(curves[[1]])
  col <- rep_len(col, length(curves))
  lty <- rep_len(lty, length(curves))
  yl <- range(0, 1, unlist(curves), finite = TRUE)
  graphics::plot(K, curves[[1]], type = "n", log = "x", ylim = yl, main = main, xlab = xlab,
                 ylab = ylab, ...)
  graphics::abline(h = 0, col = "grey80")
  for (i in seq_along(curves)) graphics::lines(K, curves[[i]], col = col[i], lwd = 2, lty = lty[i])
  if (isTRUE(legend)) {
    graphics::legend("topright", legend = sprintf("%s (AUC %.3f)", nms, auc), col = col,
                     lwd = 2, lty = lty, bg = "white", cex = 0.8)
  }
  out <- data.frame(embedding = rep(nms, each = length(K)), K = rep(K, length(curves)),
                    rnx = unlist(curves, use.names = FALSE), stringsAsFactors = FALSE)
  attr(out, "auc") <- stats::setNames(auc, nms)
  invisible(out)
}
