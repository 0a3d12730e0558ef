# The manifold_fit base class: constructor, print, summary, predict, embedding.

#' Fitted manifold embeddings
#'
#' Every fitting function of the package (for example [pca()]) returns an
#' object inheriting from class `"manifold_fit"`. It stores the training
#' embedding and exactly what its out-of-sample rules need, and supports
#' [print()], [summary()], [plot()][plot.manifold_fit()], [predict()] and
#' [embedding()].
#'
#' @param object,x A `manifold_fit`.
#' @param newdata New observations: a numeric matrix or data frame with the
#'   training columns. When the training data had column names, columns are
#'   matched by name (and reordered); otherwise by position. Or a
#'   `SingleCellExperiment` / Seurat object, read as the fit read its
#'   training data (see [manifoldOOS-containers]).
#' @param method Out-of-sample rule. `NULL` uses the fit's default rule (see
#'   `summary(fit)` for the available rules). Besides each method's native
#'   rules, every fit accepts the generic maps of [oos_map()]: `"goose"`,
#'   `"sparse"`, `"lvm"`, `"reconstruction"`, `"linear"`, `"rbf"` and
#'   `"krr"`. Unless the fit offers that rule natively, they are built from
#'   the training data and [embedding()] of the fit on every call (nothing is
#'   cached in the fit): pass the training data as `X`, or it is taken from
#'   the fit when the fit stored it.
#' @param X Training data, needed by the generic rules when the fit does not
#'   store it (the same rows and columns as used for fitting).
#' @param ... Passed to the out-of-sample rule (for the generic rules: the
#'   arguments of [oos_map()], such as `k`). An argument the rule does not
#'   take (a misspelled name, say) is an error of class
#'   `manifoldOOS_dots_error` naming it, never silently ignored; the
#'   methods other than `predict()` take nothing in `...`.
#' @param verbose Report the stages of the prediction with time-stamped
#'   messages (see [manifoldOOS-progress]).
#' @param neighbors `NULL` (default: searched) or the neighbours of the new
#'   rows among the training rows, `list(idx, dist)` as
#'   `knn(X_train, k, query = newdata)` returns them (from another tool, say):
#'   one row per row of `newdata`, training row indices, nearest first, at
#'   least as many columns as the rule needs. They must be neighbours in the
#'   space the fit works in (after its `pca =` and `metric`). For the fit's
#'   own kNN-based rules; not with `chunk_size` or `parallel`.
#' @param missing Training columns (features) absent from the named columns
#'   of `newdata`: `"error"` (default; the error says how many and names the
#'   first few) or `"zero"` (set to 0, with a warning of class
#'   `manifoldOOS_missing_features_warning` that says how many). Named
#'   columns not in the training data are dropped. See
#'   [manifoldOOS-containers].
#' @param novelty `TRUE` attaches novelty scores as `attr(y, "novelty")`:
#'   one per row, above 1 for points farther from the training data than
#'   almost all training points are from the rest (see [novelty_scores()];
#'   needs the training data: stored in the fit or given as `X`). A list
#'   gives arguments of [novelty_scores()] (`k`, `quantile`, `X`).
#' @return `predict()` returns a numeric matrix with one row per row of
#'   `newdata` (row names carried over) and one column per embedding
#'   dimension. The same row gets the same coordinates whether it is
#'   predicted alone or in a batch. With `novelty` it carries attribute
#'   `novelty` (a numeric vector, one score per row).
#' @name manifold_fit
#' @examples
#' roll <- swiss_roll(300, seed = 1)
#' fit <- pca(roll$x[1:200, ], ndim = 2)
#' fit
#' summary(fit)
#' head(predict(fit, roll$x[201:300, ]))
#' head(embedding(fit))
#' # any generic out-of-sample rule, given the training data
#' head(predict(fit, roll$x[201:300, ], method = "goose", X = roll$x[1:200, ]))
#' # novelty scores (> 1: far from the training data); PCA needs the training data
#' y <- predict(fit, rbind(roll$x[201:203, ], c(0, 60, 0)), novelty = list(X = roll$x[1:200, ]))
#' attr(y, "novelty")
NULL

new_manifold_fit <- function(class, method, embedding, X, params = list(),
                             eigenvalues = NULL, oos_default, oos_available,
                             fit_time = NA_real_, call = NULL, ...) {
  embedding <- as.matrix(embedding)
  storage.mode(embedding) <- "double"
  dimnames(embedding) <- list(rownames(X), paste0("Dim", seq_len(ncol(embedding))))
  structure(
    list(
      method = method,
      neighbors = if (!is.null(params$knn_method)) neighbor_spec(params$knn_method),
      embedding = embedding,
      n = nrow(X),
      ndim = ncol(embedding),
      n_features = ncol(X),
      feature_names = colnames(X),
      params = params,
      eigenvalues = eigenvalues,
      oos = list(default = oos_default, available = oos_available),
      fit_time = fit_time,
      call = call,
      ...
    ),
    class = c(class, "manifold_fit")
  )
}

#' Embedding coordinates of the training points
#'
#' @param object A fitted model (a `manifold_fit`).
#' @param ... Unused.
#' @return The `n x ndim` matrix of training coordinates, with the training
#'   row names.
#' @export
#' @examples
#' fit <- pca(swiss_roll(100, seed = 1)$x, ndim = 2)
#' dim(embedding(fit))
embedding <- function(object, ...) UseMethod("embedding")

#' @export
embedding.default <- function(object, ...) {
  check_dots(..., fun = "embedding()")
  abort_input("object", sprintf("must be a manifoldOOS fit (class \"manifold_fit\"), not an object of class '%s'.%s",
                                class(object)[1L], masked_hint(object)))
}

#' @export
embedding.manifold_fit <- function(object, ...) {
  check_dots(..., fun = "embedding()")
  object$embedding
}

#' @rdname manifold_fit
#' @param chunk_size `NULL` (default: one call) or the number of rows
#'   predicted at a time; the result is identical for every chunk size (see
#'   [manifoldOOS-chunked]).
#' @param parallel Send the chunks to the workers of the user's
#'   [future::plan()] as futures, one in flight per worker (needs the
#'   suggested packages `future` and `future.apply`); identical to the serial
#'   result. Without `chunk_size` the rows are split evenly over the
#'   workers.
#' @export
predict.manifold_fit <- function(object, newdata, method = NULL, ..., X = NULL,
                                 chunk_size = NULL, parallel = FALSE,
                                 verbose = getOption("manifoldOOS.verbose", FALSE),
                                 novelty = FALSE, neighbors = NULL, missing = c("error", "zero")) {
  validate_fit(object)
  verbose <- check_verbose(verbose)
  chunk_size <- check_chunk_size(chunk_size)
  parallel <- check_flag(parallel, "parallel")
  if (parallel) require_future()
  if (missing(newdata) || is.null(newdata)) {
    check_dots(..., fun = "predict()", context = "without `newdata` it returns the training embedding")
    return(object$embedding)
  }
  missing <- check_choice(missing, c("error", "zero"), "missing")
  x <- fit_newdata(object, newdata, missing = missing)
  method <- resolve_oos_method(object, method)
  native <- method %in% object$oos$available
  check_dots(..., accepted = predict_rule_args(object, method),
             fun = "predict()", context = sprintf("rule \"%s\" of a %s fit", method, object$method))
  if (!is.null(neighbors)) {
    object <- with_query_neighbors(object, neighbors, nrow(x), native, method, chunk_size, parallel)
  }
  t0 <- mo_progress(verbose, "predict(%s fit): %d new points, rule \"%s\" (%s)", object$method, nrow(x),
                    method, if (native) "native" else "generic map built from the training data")
  if (parallel && is.null(chunk_size)) chunk_size <- parallel_chunk_size(nrow(x))
  plan <- fit_prediction_plan(object, method, native, X, ..., verbose = verbose)
  t1 <- if (!native) mo_progress(verbose, "predict(oos_map \"%s\"): %d new points", method, nrow(x))
  y <- run_chunked(plan$model, x, plan$fun, plan$args, chunk_size = chunk_size,
                   parallel = parallel, verbose = verbose,
                   label = sprintf("predict(%s fit)", object$method))
  if (!native) mo_progress(verbose, "predict(oos_map \"%s\"): done", method, start = t1)
  mo_progress(verbose, "predict(%s fit): done", object$method, start = t0)
  dimnames(y) <- list(rownames(x), colnames(object$embedding))
  if (!isFALSE(novelty)) attr(y, "novelty") <- predict_novelty(object, x, novelty, X)
  if (!is.null(neighbors) && !isTRUE(object$query_neighbors$used$yes)) {
    abort_input("neighbors", sprintf("was given, but rule \"%s\" of a %s fit searches no neighbours.",
                                     method, object$method))
  }
  y
}

# The fit with the user's query-to-training neighbour lists attached, which
# fit_knn() then reads instead of searching (one call: no chunks).
with_query_neighbors <- function(object, neighbors, m, native, method, chunk_size, parallel) {
  if (!native) {
    abort_input("neighbors", sprintf(paste0("applies to the fit's own rules; the generic rule \"%s\" ",
                                            "searches its own neighbours."), method))
  }
  if (!is.null(chunk_size) || parallel) {
    abort_input("neighbors", "cannot be combined with `chunk_size` or `parallel = TRUE`: the lists belong to all rows at once.")
  }
  nn <- check_neighbor_lists(neighbors, m, object$n, "neighbors", "row of `newdata`")
  nn$used <- new.env(parent = emptyenv())
  object$query_neighbors <- nn
  object
}

# What predicts a block of rows: the fit and its native rule, or the generic
# map (built once) and its rule.
fit_prediction_plan <- function(object, method, native, X = NULL, ..., verbose = FALSE) {
  if (native) {
    list(model = object, fun = predict_native_rows, args = list(method = method, dots = list(...)))
  } else {
    list(model = generic_map(object, method, X, ..., verbose = verbose), fun = predict_map_rows,
         args = list(strip = TRUE))
  }
}

# One chunk of a native rule (called in this process or on a worker).
# The neighbour searches use the method recorded by the fit (exact for fits
# that record none).
predict_native_rows <- function(object, x, method, dots) {
  as.matrix(do.call(predict_native, c(list(object, x, method = method), dots)))
}

# Rows per chunk when parallel = TRUE is asked without a chunk size: the
# rows split evenly over the workers.
parallel_chunk_size <- function(m) {
  nw <- max(1L, as.integer(future::nbrOfWorkers()))
  max(1L, as.integer(ceiling(m / nw)))
}

resolve_oos_method <- function(object, method) {
  avail <- object$oos$available
  if (is.null(method)) return(object$oos$default)
  check_choice(method, c(avail, setdiff(oos_map_methods, avail)), "method")
}

# A generic map (oos_map) built from the training data and the fit's
# embedding; nothing is cached in the fit.
generic_map <- function(object, method, X = NULL, ..., verbose = FALSE) {
  if (is_distance_fit(object)) {
    abort_input("method", sprintf(paste0("\"%s\" needs coordinates; this %s fit was made from distances ",
                                         "and offers its own rules only (%s)."), method, object$method,
                                  paste0("\"", object$oos$available, "\"", collapse = ", ")))
  }
  if (is.null(X)) X <- object$X
  if (is.null(X)) {
    abort_input("X", sprintf(
      "(the training data) is needed for method = \"%s\": this %s fit does not store it; call predict(fit, newdata, method = \"%s\", X = X_train).",
      method, object$method, method))
  }
  X <- fit_newdata(object, X, arg = "X", min_rows = 3L)
  if (nrow(X) != object$n) {
    abort_input("X", sprintf("must be the training data (%d rows); it has %d.", object$n, nrow(X)))
  }
  dots <- list(...)
  if (is.null(dots$knn_method)) {
    # the neighbour search the fit used
    dots$knn_method <- fit_neighbors(object)$method
  }
  do.call(oos_map, c(list(X, object$embedding, method = method), dots, list(verbose = verbose)))
}

# Internal generic: each method class implements its native rules.
predict_native <- function(object, x, method, ...) UseMethod("predict_native")

#' @export
predict_native.default <- function(object, x, method, ...) {
  check_dots(..., fun = "predict_native()")
  abort_input("method", sprintf("\"%s\" is not available for a %s fit.", method, object$method))
}

#' @rdname manifold_fit
#' @export
print.manifold_fit <- function(x, ...) {
  check_dots(..., fun = "print()")
  print_header("fit", x, "dimensions")
  cat(sprintf("  predict(): %s (default)%s\n", x$oos$default,
              if (length(x$oos$available) > 1L)
                paste0("; also ", paste(setdiff(x$oos$available, x$oos$default), collapse = ", "))
              else ""))
  if (!is.null(x$neighbors)) cat(sprintf("  neighbours: %s\n", format_neighbors(x$neighbors)))
  if (!is.null(x$input$source)) cat(sprintf("  data read from: %s\n", format_source(x$input$source)))
  if (!is.null(x$input$pca)) {
    cat(sprintf("  input: %d columns -> PCA to %d components%s\n", x$input$n_features,
                ncol(x$input$pca$rotation), if (isTRUE(x$input$pca$scaled)) " (scaled)" else ""))
  }
  if (is.finite(x$fit_time)) cat(sprintf("  fitted in %s\n", format_seconds(x$fit_time)))
  invisible(x)
}

#' @rdname manifold_fit
#' @export
summary.manifold_fit <- function(object, ...) {
  check_dots(..., fun = "summary()")
  emb <- object$embedding
  structure(
    list(
      method = object$method,
      n = object$n,
      n_features = object$n_features,
      ndim = object$ndim,
      params = object$params,
      fit_time = object$fit_time,
      eigenvalues = object$eigenvalues,
      oos = object$oos,
      ranges = apply(emb, 2, range),
      extra = summary_extra(object)
    ),
    class = "summary.manifold_fit"
  )
}

summary_extra <- function(object) UseMethod("summary_extra")
#' @export
summary_extra.default <- function(object) NULL

#' @export
print.summary.manifold_fit <- function(x, digits = 4, ...) {
  check_dots(..., fun = "print()")
  print_summary_header("fit", x)
  if (is.finite(x$fit_time)) cat(sprintf("  fit time: %s\n", format_seconds(x$fit_time)))
  if (!is.null(x$eigenvalues)) {
    ev <- x$eigenvalues
    cat("  eigenvalues:", paste(formatC(utils::head(ev, 10), digits = digits, format = "g"),
                                collapse = " "),
        if (length(ev) > 10) "..." else "", "\n")
  }
  cat(sprintf("  out-of-sample rules: %s (default: %s)\n",
              paste(x$oos$available, collapse = ", "), x$oos$default))
  cat("  embedding ranges:\n")
  r <- x$ranges
  for (j in seq_len(ncol(r))) {
    cat(sprintf("    %-6s [%s, %s]\n", colnames(r)[j], format(signif(r[1, j], digits)),
                format(signif(r[2, j], digits))))
  }
  if (!is.null(x$extra)) print(x$extra)
  invisible(x)
}

format_value <- function(v) {
  if (is.null(v)) return("NULL")
  if (is.function(v)) return("<function>")
  if (is.matrix(v) || inherits(v, "Matrix")) return(sprintf("<%d x %d matrix>", nrow(v), ncol(v)))
  if (is.numeric(v)) v <- signif(v, 4)
  if (length(v) > 6) return(paste(c(format(utils::head(v, 6)), "..."), collapse = " "))
  paste(format(v), collapse = " ")
}

# The opening lines of print(summary()) for fits and out-of-sample maps.
print_summary_header <- function(what, x) {
  cat(sprintf("manifoldOOS %s: %s\n", what, x$method))
  cat(sprintf("  training points: %d   features: %d   embedding dimensions: %d\n",
              x$n, x$n_features, x$ndim))
  if (length(x$params)) {
    cat("  parameters:\n")
    for (nm in names(x$params)) cat(sprintf("    %-12s %s\n", nm, format_value(x$params[[nm]])))
  }
}

# The opening lines of print() for fits and out-of-sample maps.
print_header <- function(what, x, dims) {
  cat(sprintf("<manifoldOOS %s: %s>\n", what, x$method))
  cat(sprintf("  %d training points, %s -> %d %s\n", x$n,
              if (is_distance_fit(x)) "given as distances" else sprintf("%d features", x$n_features),
              x$ndim, dims))
  p <- format_params(x$params)
  if (nzchar(p)) cat("  parameters:", p, "\n")
}

format_params <- function(params) {
  if (!length(params)) return("")
  paste(sprintf("%s = %s", names(params), vapply(params, format_value, "")), collapse = ", ")
}

format_seconds <- function(s) {
  if (s < 1e-3) return(sprintf("%.0f us", s * 1e6))
  if (s < 1) return(sprintf("%.1f ms", s * 1e3))
  sprintf("%.2f s", s)
}
