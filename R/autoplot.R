# ggplot2 methods (registered when ggplot2 is installed; ggplot2 is in Suggests).

#' ggplot2 plots of a fitted embedding
#'
#' `autoplot()` (from \pkg{ggplot2}, which must be installed) draws the
#' training embedding of a fit, optionally coloured by a variable, with the
#' predicted positions of `newdata` on the same axes. `fortify()` returns the
#' underlying data frame, so the plot can be rebuilt or extended freely.
#'
#' @param object,model A `manifold_fit`.
#' @param data Unused (for the `fortify()` generic).
#' @param color Optional vector with one value per training point.
#' @param newdata Optional new observations, mapped with `predict()`.
#' @param new_color Optional colouring vector for `newdata`.
#' @param method Out-of-sample rule for `newdata`.
#' @param dims The two embedding dimensions to draw.
#' @param ... Passed to `predict()`.
#' @return `autoplot()`: a `ggplot` object. `fortify()`: a data frame with
#'   the coordinates `x`, `y`, a `set` column (`"training"` / `"predicted"`)
#'   and `color`.
#' @name autoplot.manifold_fit
#' @examples
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   roll <- swiss_roll(400, seed = 2)
#'   fit <- ltsa(roll$x[1:300, ], ndim = 2, k = 10)
#'   ggplot2::autoplot(fit, color = roll$color[1:300], newdata = roll$x[301:400, ],
#'                     new_color = roll$color[301:400])
#' }
NULL

#' @rdname autoplot.manifold_fit
#' @exportS3Method ggplot2::fortify
fortify.manifold_fit <- function(model, data = NULL, color = NULL, newdata = NULL,
                                 new_color = NULL, method = NULL, dims = c(1L, 2L), ...) {
  Y <- embedding(model)
  dims <- as.integer(dims)
  if (length(dims) != 2L || anyNA(dims) || any(dims < 1L | dims > ncol(Y))) {
    if (ncol(Y) == 1L && identical(dims, c(1L, 2L))) {
      Y <- cbind(Y, 0)
      dims <- c(1L, 2L)
    } else {
      abort_input("dims", sprintf("must be two dimensions in 1..%d.", ncol(Y)))
    }
  }
  if (!is.null(color) && length(color) != nrow(Y)) {
    abort_input("color", sprintf("must have one value per training point (%d); it has %d.",
                                 nrow(Y), length(color)))
  }
  df <- data.frame(x = Y[, dims[1]], y = Y[, dims[2]], set = "training",
                   stringsAsFactors = FALSE)
  df$color <- if (is.null(color)) NA else color
  if (!is.null(newdata)) {
    Yn <- predict(model, newdata, method = method, ...)
    if (ncol(Yn) == 1L) Yn <- cbind(Yn, 0)
    if (!is.null(new_color) && length(new_color) != nrow(Yn)) {
      abort_input("new_color", sprintf("must have one value per row of newdata (%d); it has %d.",
                                       nrow(Yn), length(new_color)))
    }
    dn <- data.frame(x = Yn[, dims[1]], y = Yn[, dims[2]], set = "predicted",
                     stringsAsFactors = FALSE)
    dn$color <- if (is.null(new_color)) NA else new_color
    df <- rbind(df, dn)
  }
  df$set <- factor(df$set, c("training", "predicted"))
  df
}

#' @rdname autoplot.manifold_fit
#' @exportS3Method ggplot2::autoplot
autoplot.manifold_fit <- function(object, color = NULL, newdata = NULL, new_color = NULL,
                                  method = NULL, dims = c(1L, 2L), ...) {
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    abort_input(NULL, "autoplot() needs the ggplot2 package; install it or use plot().")
  }
  df <- fortify.manifold_fit(object, color = color, newdata = newdata, new_color = new_color,
                             method = method, dims = dims, ...)
  has_col <- !all(is.na(df$color))
  Y <- embedding(object)
  lab <- colnames(Y)[if (ncol(Y) >= 2L) dims else c(1L, 1L)]
  aes <- ggplot2::aes
  p <- ggplot2::ggplot(df, if (has_col) aes(x = .data$x, y = .data$y, colour = .data$color,
                                               shape = .data$set)
                       else aes(x = .data$x, y = .data$y, shape = .data$set)) +
    ggplot2::geom_point(size = 1.4) +
    ggplot2::scale_shape_manual(values = c(training = 16, predicted = 2), drop = TRUE) +
    ggplot2::labs(x = lab[1], y = lab[2], title = sprintf("%s embedding", object$method),
                  shape = NULL, colour = NULL) +
    ggplot2::theme_minimal()
  if (has_col && is.numeric(df$color)) p <- p + ggplot2::scale_colour_viridis_c()
  p
}
