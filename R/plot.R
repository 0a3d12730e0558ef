# Plotting for fitted models.

#' Plot a fitted embedding
#'
#' Draws the training embedding, optionally coloured by a variable, and, when
#' `newdata` is given, the predicted positions of new points on the same axes
#' (training points as filled circles, predicted points as open triangles with
#' a dark outline). With more than two embedding dimensions (and `dims` not
#' given) a [pairs()] plot is drawn. When `images` is given, image thumbnails
#' are drawn at a subset of the embedded positions, as in the figures of the
#' manifold-learning literature.
#'
#' @param x A `manifold_fit`.
#' @param color Optional vector (numeric or factor) with one value per training
#'   point used to colour them.
#' @param newdata Optional new observations; they are mapped with
#'   `predict(x, newdata, method = method)` and drawn on top.
#' @param new_color Optional colouring vector for `newdata` (same scale as
#'   `color` when both are numeric).
#' @param method Out-of-sample rule used for `newdata`.
#' @param dims Which embedding dimensions to draw (two of them for a scatter
#'   plot; more gives a pairs plot).
#' @param images Optional image data for thumbnails, one image per training
#'   point: a list as returned by [load_image_data()] (which knows its
#'   `image_dim`), or a numeric matrix with one image per row (pixels in R's
#'   column-major order, i.e. `matrix(images[i, ], image_dim[1])` is image
#'   `i`) together with `image_dim`. Thumbnails are drawn with
#'   [graphics::rasterImage()] at a well-spread subset of the embedded
#'   positions (greedy farthest-point selection), in two-dimensional plots.
#' @param image_dim Image size `c(height, width)` (or `c(height, width, 3)`
#'   for colour) when `images` is a matrix; ignored for a list, which carries
#'   its own.
#' @param n_images Number of thumbnails to draw (chosen to cover the plot).
#' @param image_size Thumbnail width as a fraction of the x range.
#' @param palette Function returning `n` colours for numeric `color`.
#' @param main,xlab,ylab Titles.
#' @param legend Draw a legend identifying training and predicted points.
#' @param novelty Mark the new points whose novelty score exceeds 1 (see
#'   [novelty_scores()]) with red crosses: `TRUE`, or a list of arguments of
#'   [novelty_scores()] (for instance `list(X = X_train)` for a fit that does
#'   not store its training data). Needs `newdata`.
#' @param ... Further graphical parameters passed to [plot.default()] (or
#'   [pairs()]); an argument that is neither (a misspelled name, say) is an
#'   error of class `manifoldOOS_dots_error`.
#' @return `x`, invisibly.
#' @export
#' @examples
#' roll <- swiss_roll(400, seed = 2)
#' fit <- pca(roll$x[1:300, ], ndim = 2)
#' plot(fit, color = roll$color[1:300], newdata = roll$x[301:400, ],
#'      new_color = roll$color[301:400])
#' # mark new points far from the training data (novelty score > 1)
#' off <- rbind(roll$x[301:330, ], roll$x[331:340, ] + 15)
#' plot(fit, newdata = off, novelty = list(X = roll$x[1:300, ]))
#' # image thumbnails: 12 x 12 images of a bar rotating through 180 degrees
#' ang <- seq(0, pi, length.out = 120)[-120]
#' grid <- expand.grid(r = seq(-1, 1, length.out = 12), c = seq(-1, 1, length.out = 12))
#' imgs <- t(vapply(ang, function(a) exp(-(grid$r * cos(a) - grid$c * sin(a))^2 / 0.05),
#'                  numeric(144)))
#' ifit <- isomap(imgs, ndim = 2, k = 6)
#' plot(ifit, images = imgs, image_dim = c(12, 12), n_images = 20, image_size = 0.08)
plot.manifold_fit <- function(x, color = NULL, newdata = NULL, new_color = NULL,
                              method = NULL, dims = NULL, images = NULL, image_dim = NULL,
                              n_images = 40L, image_size = 0.06,
                              palette = function(n) grDevices::hcl.colors(n, "viridis"),
                              main = NULL, xlab = NULL, ylab = NULL,
                              legend = !is.null(newdata), novelty = FALSE, ...) {
  check_dots(..., accepted = list(graphics::plot.default, graphics::pairs.default, graphics_par_names()),
             fun = "plot()")
  Y <- x$embedding
  if (!is.null(images)) {
    images <- as_thumbnail_images(images, image_dim, nrow(Y))
    n_images <- check_number(n_images, "n_images", lower = 1, integer = TRUE)
    image_size <- check_number(image_size, "image_size", lower = 0, upper = 1, lower_open = TRUE)
    if (is.null(dims) && ncol(Y) > 2L) dims <- 1:2
  }
  if (is.null(dims)) dims <- if (ncol(Y) >= 2L) seq_len(min(ncol(Y), 4L)) else 1L
  if (!is.numeric(dims) || !length(dims) || anyNA(dims) || any(dims != round(dims)) ||
      any(dims < 1L | dims > ncol(Y)) || anyDuplicated(dims)) {
    abort_input("dims", sprintf("must be distinct whole numbers in 1..%d.", ncol(Y)))
  }
  dims <- as.integer(dims)
  if (is.null(newdata) && !isFALSE(novelty)) {
    abort_input("novelty", "marks new points: give `newdata` as well.")
  }
  Ynew <- if (!is.null(newdata)) predict(x, newdata, method = method, novelty = novelty) else NULL
  flagged <- if (!is.null(attr(Ynew, "novelty"))) attr(Ynew, "novelty") > 1 else NULL
  if (!is.null(color) && length(color) != nrow(Y)) {
    abort_input("color", sprintf("must have one value per training point (%d); it has %d.",
                                 nrow(Y), length(color)))
  }
  if (!is.null(new_color) && !is.null(Ynew) && length(new_color) != nrow(Ynew)) {
    abort_input("new_color", sprintf("must have one value per row of newdata (%d); it has %d.",
                                     nrow(Ynew), length(new_color)))
  }
  cols <- color_values(color, new_color, nrow(Y), if (is.null(Ynew)) 0L else nrow(Ynew), palette)
  if (is.null(main)) main <- sprintf("%s embedding", x$method)

  if (length(dims) == 1L) {
    Y1 <- cbind(Y[, dims], 0)
    Yn1 <- if (!is.null(Ynew)) cbind(Ynew[, dims], 0) else NULL
    dims2 <- c(1L, 2L)
    scatter_2d(Y1, Yn1, cols, dims2, main, xlab %||% colnames(Y)[dims], ylab %||% "", ...)
    mark_novel(Yn1, flagged, dims2)
  } else if (length(dims) == 2L) {
    scatter_2d(Y, Ynew, cols, dims, main, xlab %||% colnames(Y)[dims[1]],
               ylab %||% colnames(Y)[dims[2]], ...)
    mark_novel(Ynew, flagged, dims)
    if (!is.null(images)) draw_thumbnails(Y[, dims], images, n_images, image_size)
  } else {
    all <- rbind(Y[, dims, drop = FALSE], if (!is.null(Ynew)) Ynew[, dims, drop = FALSE])
    pch <- c(rep(16, nrow(Y)), rep(2, if (is.null(Ynew)) 0 else nrow(Ynew)))
    col <- c(cols$train, cols$new)
    if (any(flagged)) {
      pch[nrow(Y) + which(flagged)] <- 4
      col <- rep_len(col, nrow(all))
      col[nrow(Y) + which(flagged)] <- "red"
    }
    graphics::pairs(all, col = col, pch = pch, cex = 0.6, main = main, ...)
    return(invisible(x))
  }
  if (isTRUE(legend) && !is.null(Ynew)) {
    nov <- any(flagged)
    graphics::legend("topright", legend = c("training", "predicted", if (nov) "novel (score > 1)"),
                     pch = c(16, 2, if (nov) 4), col = c("grey40", "black", if (nov) "red"),
                     bg = "white", cex = 0.8)
  }
  invisible(x)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# Red crosses over the predicted points flagged as novel.
mark_novel <- function(Ynew, flagged, dims) {
  if (is.null(flagged) || !any(flagged)) return(invisible())
  graphics::points(Ynew[flagged, dims[1]], Ynew[flagged, dims[2]], pch = 4, col = "red",
                   cex = 1.4, lwd = 2)
}

scatter_2d <- function(Y, Ynew, cols, dims, main, xlab, ylab, ...) {
  rng_x <- range(Y[, dims[1]], if (!is.null(Ynew)) Ynew[, dims[1]])
  rng_y <- range(Y[, dims[2]], if (!is.null(Ynew)) Ynew[, dims[2]])
  graphics::plot(Y[, dims[1]], Y[, dims[2]], col = cols$train, pch = 16, cex = 0.6,
                 xlim = rng_x, ylim = rng_y, main = main, xlab = xlab, ylab = ylab, ...)
  if (!is.null(Ynew)) {
    graphics::points(Ynew[, dims[1]], Ynew[, dims[2]], pch = 24, cex = 0.8,
                     col = "black", bg = cols$new, lwd = 0.6)
  }
}

# Map colouring vectors to colours; numeric vectors share one scale.
color_values <- function(color, new_color, n, m, palette) {
  if (is.null(color) && is.null(new_color)) {
    return(list(train = rep("grey40", n), new = rep("orange", m)))
  }
  num <- (is.null(color) || is.numeric(color)) && (is.null(new_color) || is.numeric(new_color))
  if (num) {
    all <- c(color, new_color)
    rng <- range(all, finite = TRUE)
    pal <- palette(100)
    idx <- function(v) {
      if (diff(rng) == 0) return(rep(50L, length(v)))
      pmax(1L, pmin(100L, 1L + floor(99 * (v - rng[1]) / diff(rng))))
    }
    return(list(train = if (is.null(color)) rep("grey40", n) else pal[idx(color)],
                new = if (is.null(new_color)) rep("orange", m) else pal[idx(new_color)]))
  }
  lev <- unique(c(as.character(color), as.character(new_color)))
  pal <- grDevices::hcl.colors(max(length(lev), 2L), "Dark 3")
  list(train = if (is.null(color)) rep("grey40", n) else pal[match(as.character(color), lev)],
       new = if (is.null(new_color)) rep("orange", m) else pal[match(as.character(new_color), lev)])
}

# `images` of plot(): a load_image_data() list, or a matrix (one image per
# row, column-major pixels) with `image_dim`; validated, one image per
# training point.
as_thumbnail_images <- function(images, image_dim, n) {
  if (is.matrix(images) || is.data.frame(images)) {
    if (is.null(image_dim)) {
      abort_input("image_dim", "must be given (c(height, width)) when `images` is a matrix.")
    }
    if (!is.numeric(image_dim) || !(length(image_dim) %in% 2:3) || anyNA(image_dim) ||
        any(image_dim < 1) || any(image_dim != round(image_dim))) {
      abort_input("image_dim", "must be c(height, width) or c(height, width, 3) (whole numbers).")
    }
    m <- as_data_matrix(images, "images", min_rows = 1L)
    if (prod(image_dim) != ncol(m)) {
      abort_input("image_dim", sprintf("has product %d but `images` has %d columns (pixels per image).",
                                       as.integer(prod(image_dim)), ncol(m)))
    }
    images <- list(x = m, image_dim = as.integer(image_dim), pixel_order = "column")
  } else if (!is.list(images) || is.null(images$x)) {
    abort_input("images", "must be a matrix (one image per row, with `image_dim`) or a list with element `x`, as from load_image_data().")
  }
  images <- check_images(images, "images")
  if (!is.matrix(images$x) || !is.numeric(images$x) || anyNA(images$x)) {
    abort_input("images", "must hold a numeric matrix of pixel values without NA.")
  }
  if (nrow(images$x) != n) {
    abort_input("images", sprintf("must have one image per training point (%d); it has %d.",
                                  n, nrow(images$x)))
  }
  images
}

# Draw thumbnails at a well-spread subset of embedded points (greedy
# farthest-point selection, deterministic).
draw_thumbnails <- function(Y, images, n_images, image_size) {
  n_images <- min(as.integer(n_images), nrow(Y))
  sel <- spread_points(Y, n_images)
  usr <- graphics::par("usr")
  w <- image_size * (usr[2] - usr[1])
  dim_img <- images$image_dim
  aspect <- dim_img[1] / dim_img[2]
  pin <- graphics::par("pin")
  h <- w * aspect * (usr[4] - usr[3]) / (usr[2] - usr[1]) * pin[1] / pin[2]
  for (i in sel) {
    ras <- image_raster(images, i)
    graphics::rasterImage(ras, Y[i, 1] - w / 2, Y[i, 2] - h / 2, Y[i, 1] + w / 2, Y[i, 2] + h / 2)
  }
}

spread_points <- function(Y, m) {
  sel <- integer(m)
  d <- rowSums((Y - matrix(colMeans(Y), nrow(Y), ncol(Y), byrow = TRUE))^2)
  sel[1] <- which.min(d)
  dmin <- rowSums((Y - matrix(Y[sel[1], ], nrow(Y), ncol(Y), byrow = TRUE))^2)
  if (m > 1) for (j in 2:m) {
    sel[j] <- which.max(dmin)
    dmin <- pmin(dmin, rowSums((Y - matrix(Y[sel[j], ], nrow(Y), ncol(Y), byrow = TRUE))^2))
  }
  sel
}
