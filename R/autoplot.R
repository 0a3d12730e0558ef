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
#' @param ... Passed to `predict()` with `newdata`; must be empty otherwise
#'   (an argument nothing uses is an error of class `manifoldOOS_dots_error`).
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
  df <- coords_frame(Y, dims, "training", color, "color", "training point")
  if (is.null(newdata)) check_dots(..., fun = "autoplot()", context = "without `newdata` nothing is predicted")
  if (!is.null(newdata)) {
    Yn <- predict(model, newdata, method = method, ...)
    if (ncol(Yn) == 1L) Yn <- cbind(Yn, 0)
    df <- rbind(df, coords_frame(Yn, dims, "predicted", new_color, "new_color", "row of newdata"))
  }
  df$set <- factor(df$set, c("training", "predicted"))
  df
}

# The columns `dims` of the coordinates Y as a data frame (x, y, set, color);
# `color` (the argument `arg`) must be NULL or have one value per row (`what`).
coords_frame <- function(Y, dims, set, color, arg, what) {
  if (!is.null(color) && length(color) != nrow(Y)) {
    abort_input(arg, sprintf("must have one value per %s (%d); it has %d.", what, nrow(Y), length(color)))
  }
  df <- data.frame(x = Y[, dims[1]], y = Y[, dims[2]], set = set, stringsAsFactors = FALSE)
  df$color <- if (is.null(color)) NA else color
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

#' ggplot2 views of SOSI and PLML fits
#'
#' Method-specific `autoplot()` views (ggplot2 must be installed);
#' `what = "embedding"` is [autoplot()][autoplot.manifold_fit] of the fit.
#'
#' * `autoplot(sosi_fit, what = "rounds")` shows the progressive rounds of
#'   [sosi()]. Without `newdata`: per round, the fraction of test points used
#'   as RBF centres, the fraction of test labels that changed from the
#'   previous round, the mean confidence of the test points and, when
#'   `labels_unlabeled` was given to [sosi()], the misclassification rate
#'   (the quantity of Vural and Guillemot's figures). With `newdata` = the
#'   `X_unlabeled` given to [sosi()]: one panel per round (at most
#'   `max_rounds`, evenly spread, always with the first and the last) with
#'   the labelled embedding coloured by class and the test points at their
#'   final interpolated positions, coloured by the label they had in that
#'   round; test points that were centres in that round are drawn as
#'   triangles.
#' * `autoplot(plml_fit, what = "models")` colours the training embedding by
#'   local model, draws the model tree between the embedded model centres
#'   (mean embedding of each model's points) and marks the root model, like
#'   `plot(plml_fit, what = "models")`.
#'
#' @param object A `manifold_sosi` or `manifold_plml` fit.
#' @param what `"embedding"`, or `"rounds"` (SOSI) / `"models"` (PLML).
#' @param newdata SOSI: optionally the `X_unlabeled` used to fit (see
#'   Details). For `what = "embedding"`, new points to predict.
#' @param max_rounds Largest number of round panels (SOSI with `newdata`).
#' @param ... Passed to [autoplot()][autoplot.manifold_fit] for
#'   `what = "embedding"`; must be empty otherwise.
#' @return A `ggplot` object.
#' @name autoplot-views
#' @examples
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   roll <- swiss_roll(400, seed = 3)
#'   lab <- ifelse(roll$color > median(roll$color), "a", "b")
#'   tr <- c(1:60, 201:260)
#'   fit <- supervised_le(roll$x[tr, ], lab[tr], ndim = 2)
#'   te <- c(61:100, 261:300)
#'   s <- sosi(fit, X_unlabeled = roll$x[te, ], n_iter = 4, labels_unlabeled = lab[te])
#'   ggplot2::autoplot(s, what = "rounds")
#'   ggplot2::autoplot(s, what = "rounds", newdata = roll$x[te, ])
#'   p <- plml(roll$x, k = 10, seed = 1)
#'   ggplot2::autoplot(p, what = "models")
#' }
NULL

#' @rdname autoplot-views
#' @exportS3Method ggplot2::autoplot
autoplot.manifold_sosi <- function(object, what = c("embedding", "rounds"), newdata = NULL,
                                   max_rounds = 6L, ...) {
  need_ggplot2()
  what <- check_choice(what, c("embedding", "rounds"), "what")
  if (what == "embedding") return(autoplot.manifold_fit(object, newdata = newdata, ...))
  check_dots(..., fun = "autoplot()", context = "what = \"rounds\"")
  max_rounds <- check_number(max_rounds, "max_rounds", lower = 1, integer = TRUE)
  rounds <- object$rounds
  if (!length(rounds)) abort_input("object", "stores no SOSI rounds.")
  aes <- ggplot2::aes
  n_test <- length(rounds[[1]]$labels)
  if (is.null(newdata)) {
    df <- sosi_rounds_frame(object)
    return(ggplot2::ggplot(df, aes(x = .data$round, y = .data$value)) +
      ggplot2::geom_line(colour = "grey40") +
      ggplot2::geom_point(size = 1.6) +
      ggplot2::facet_wrap(~quantity, scales = "free_y") +
      ggplot2::scale_x_continuous(breaks = seq_along(rounds)) +
      ggplot2::labs(x = "round", y = NULL,
                    title = sprintf("SOSI: %d rounds over %d test points", length(rounds), n_test)) +
      ggplot2::theme_minimal())
  }
  Yt <- predict(object, newdata)
  if (nrow(Yt) != n_test) {
    abort_input("newdata", sprintf("must be the X_unlabeled given to sosi() (%d rows); it has %d.",
                                   n_test, nrow(Yt)))
  }
  if (ncol(Yt) < 2L) Yt <- cbind(Yt, 0)
  Y <- embedding(object)
  if (ncol(Y) < 2L) Y <- cbind(Y, 0)
  R <- length(rounds)
  show <- unique(round(seq(1, R, length.out = min(R, max_rounds))))
  panel <- function(r) sprintf("round %d (%d centres)", r, as.integer(rounds[[r]]$L))
  lev_panel <- vapply(show, panel, "")
  train_lab <- object$classes[object$train_codes]
  parts <- lapply(show, function(r) {
    rd <- rounds[[r]]
    centre <- seq_len(n_test) %in% rd$centres
    rbind(
      data.frame(x = Y[, 1], y = Y[, 2], label = train_lab, set = "labelled", panel = panel(r),
                 stringsAsFactors = FALSE),
      data.frame(x = Yt[, 1], y = Yt[, 2], label = as.character(rd$labels),
                 set = ifelse(centre, "test (centre)", "test"), panel = panel(r),
                 stringsAsFactors = FALSE))
  })
  df <- do.call(rbind, parts)
  df$panel <- factor(df$panel, lev_panel)
  df$set <- factor(df$set, c("labelled", "test", "test (centre)"))
  df$label <- factor(df$label, object$classes)
  ggplot2::ggplot(df, aes(x = .data$x, y = .data$y, colour = .data$label, shape = .data$set)) +
    ggplot2::geom_point(size = 1.3) +
    ggplot2::scale_shape_manual(values = c(labelled = 16, test = 1, `test (centre)` = 17), drop = FALSE) +
    ggplot2::facet_wrap(~panel) +
    ggplot2::labs(x = colnames(object$embedding)[1], y = "Dim2", colour = "label", shape = NULL,
                  title = "SOSI: test labels round by round (positions of the final interpolator)") +
    ggplot2::theme_minimal()
}

# Long data frame of the per-round SOSI quantities.
sosi_rounds_frame <- function(object) {
  rounds <- object$rounds
  R <- length(rounds)
  n_test <- length(rounds[[1]]$labels)
  changed <- vapply(seq_len(R), function(r) {
    if (r == 1L) NA_real_ else mean(as.character(rounds[[r]]$labels) != as.character(rounds[[r - 1L]]$labels))
  }, numeric(1))
  conf <- vapply(rounds, function(r) {
    v <- r$confidence
    mean(v[is.finite(v)])
  }, numeric(1))
  frac <- vapply(rounds, function(r) length(r$centres) / n_test, numeric(1))
  q <- list(`test points used as centres` = frac, `test labels changed` = changed,
            `mean confidence (finite)` = conf)
  err <- object$history$error
  if (!is.null(err) && !all(is.na(err))) q[["misclassification rate"]] <- err
  df <- do.call(rbind, lapply(names(q), function(nm) {
    data.frame(round = seq_len(R), quantity = nm, value = q[[nm]], stringsAsFactors = FALSE)
  }))
  df$quantity <- factor(df$quantity, names(q))
  df[!is.na(df$value), , drop = FALSE]
}

#' @rdname autoplot-views
#' @exportS3Method ggplot2::autoplot
autoplot.manifold_plml <- function(object, what = c("embedding", "models"), ...) {
  need_ggplot2()
  what <- check_choice(what, c("embedding", "models"), "what")
  if (what == "embedding") return(autoplot.manifold_fit(object, ...))
  check_dots(..., fun = "autoplot()", context = "what = \"models\"")
  Y <- embedding(object)
  if (ncol(Y) < 2L) Y <- cbind(Y, 0)
  lab <- object$labels
  cm <- rowsum(Y[, 1:2], lab) / as.vector(table(lab))
  pts <- data.frame(x = Y[, 1], y = Y[, 2], model = factor(lab))
  e <- object$model_tree
  edges <- data.frame(x = cm[e$from, 1], y = cm[e$from, 2], xend = cm[e$to, 1], yend = cm[e$to, 2])
  centres <- data.frame(x = cm[, 1], y = cm[, 2], root = seq_len(nrow(cm)) == object$root)
  aes <- ggplot2::aes
  p <- ggplot2::ggplot(pts, aes(x = .data$x, y = .data$y)) +
    ggplot2::geom_point(aes(colour = .data$model), size = 0.9, alpha = 0.8) +
    ggplot2::geom_segment(data = edges, aes(x = .data$x, y = .data$y, xend = .data$xend, yend = .data$yend),
                          colour = "grey20") +
    ggplot2::geom_point(data = centres[!centres$root, ], size = 1.2) +
    ggplot2::geom_point(data = centres[centres$root, ], shape = 23, fill = "red", size = 3) +
    ggplot2::labs(x = "Dim1", y = "Dim2", colour = "model",
                  title = sprintf("%s: %d models and the model tree (root: red diamond)", object$method,
                                  object$n_models)) +
    ggplot2::theme_minimal()
  if (object$n_models > 12L) p <- p + ggplot2::guides(colour = "none")
  p
}

need_ggplot2 <- function() {
  if (!requireNamespace("ggplot2", quietly = TRUE)) {
    abort_input(NULL, "autoplot() needs the ggplot2 package; install it or use plot().")
  }
}
