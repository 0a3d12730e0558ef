# tidymodels integration: a recipes step that fits any manifoldOOS method in
# prep() and maps new data with predict() in bake(). recipes is in Suggests;
# the S3 methods are registered lazily when it is installed.

#' Manifold embedding step for recipes
#'
#' `step_manifold()` creates a specification of a recipe step (package
#' \pkg{recipes}, which must be installed) that replaces the selected numeric
#' columns by their embedding with any fitting function of this package.
#' [recipes::prep()] fits the embedding on the training data; `bake()` maps
#' any data, including rows never seen, with [predict()][predict.manifold_fit]
#' (the fit's out-of-sample rule, or `oos_method`). Because every fit in the
#' package has an explicit out-of-sample map, the same row gets the same
#' coordinates whether it is baked alone or in a batch.
#'
#' @param recipe A recipe object.
#' @param ... Selector functions choosing the columns (see
#'   `recipes::selections`).
#' @param role Role of the new columns.
#' @param trained Set by `prep()`.
#' @param method Name of the fitting function, e.g. `"lgrm"`, `"isomap"`,
#'   `"ltsa"`, `"pca"`.
#' @param ndim Number of embedding dimensions.
#' @param options Further arguments of the fitting function, e.g.
#'   `list(k = 12)`.
#' @param oos_method Out-of-sample rule used by `bake()` (`NULL`: the fit's
#'   default).
#' @param prefix Prefix of the new column names.
#' @param keep_original_cols Keep the selected columns next to the new ones.
#' @param fit The fitted model (set by `prep()`).
#' @param columns Names of the selected columns (set by `prep()`).
#' @param skip,id See [recipes::step()].
#' @return An updated recipe. `tidy()` of the step gives the selected columns
#'   (untrained) or, once trained, one row per embedding dimension and input
#'   column with the method.
#' @export
#' @examples
#' if (requireNamespace("recipes", quietly = TRUE)) {
#'   roll <- swiss_roll(300, seed = 4)
#'   df <- data.frame(roll$x, t = roll$color)
#'   rec <- recipes::recipe(t ~ ., data = df[1:200, ])
#'   rec <- step_manifold(rec, recipes::all_predictors(), method = "ltsa",
#'                        ndim = 2, options = list(k = 10))
#'   prepped <- recipes::prep(rec)
#'   head(recipes::bake(prepped, new_data = df[201:300, ]))
#' }
step_manifold <- function(recipe, ..., role = "predictor", trained = FALSE,
                          method = "pca", ndim = 2, options = list(), oos_method = NULL,
                          prefix = "Dim", keep_original_cols = FALSE, fit = NULL,
                          columns = NULL, skip = FALSE, id = NULL) {
  if (!requireNamespace("recipes", quietly = TRUE)) {
    abort_input(NULL, "step_manifold() needs the recipes package.")
  }
  method <- check_choice(method, manifold_step_methods(), "method")
  ndim <- check_number(ndim, "ndim", lower = 1, integer = TRUE)
  if (!is.list(options)) abort_input("options", "must be a list of arguments for the fitting function.")
  if (!is.character(prefix) || length(prefix) != 1L || is.na(prefix)) {
    abort_input("prefix", "must be a single string.")
  }
  keep_original_cols <- check_flag(keep_original_cols, "keep_original_cols")
  if (is.null(id)) id <- recipes::rand_id("manifold")
  recipes::add_step(recipe, step_manifold_new(
    terms = rlang::enquos(...), role = role, trained = trained, method = method, ndim = ndim,
    options = options, oos_method = oos_method, prefix = prefix,
    keep_original_cols = keep_original_cols, fit = fit, columns = columns, skip = skip, id = id))
}

# Fitting functions a step may use: every exported function returning a manifold_fit.
manifold_step_methods <- function() {
  c("pca", "kpca", "mds", "isomap", "lle", "laplacian_eigenmaps", "ltsa", "lpp", "olpp",
    "npe", "npp", "onpp", "klpp", "spectral_regression",
    intersect(c("lgrm", "nppe", "plml", "supervised_le", "fisher_embedding"),
              getNamespaceExports("manifoldOOS")))
}

step_manifold_new <- function(terms, role, trained, method, ndim, options, oos_method, prefix,
                              keep_original_cols, fit, columns, skip, id) {
  recipes::step(subclass = "manifold", terms = terms, role = role, trained = trained,
                method = method, ndim = ndim, options = options, oos_method = oos_method,
                prefix = prefix, keep_original_cols = keep_original_cols, fit = fit,
                columns = columns, skip = skip, id = id)
}

#' @exportS3Method recipes::prep
prep.step_manifold <- function(x, training, info = NULL, ...) {
  check_dots(..., fun = "prep()", context = "step_manifold")
  cols <- recipes::recipes_eval_select(x$terms, training, info)
  if (!length(cols)) abort_input("...", "selects no columns.")
  X <- as_data_matrix(as.data.frame(training[, cols, drop = FALSE]), "training data")
  fun <- getExportedValue("manifoldOOS", x$method)
  fit <- do.call(fun, c(list(X = X, ndim = x$ndim), x$options))
  step_manifold_new(terms = x$terms, role = x$role, trained = TRUE, method = x$method,
                    ndim = x$ndim, options = x$options, oos_method = x$oos_method,
                    prefix = x$prefix, keep_original_cols = x$keep_original_cols, fit = fit,
                    columns = unname(cols), skip = x$skip, id = x$id)
}

#' @exportS3Method recipes::bake
bake.step_manifold <- function(object, new_data, ...) {
  check_dots(..., fun = "bake()", context = "step_manifold")
  missing_cols <- setdiff(object$columns, names(new_data))
  if (length(missing_cols)) {
    abort_input("new_data", sprintf("lacks the column(s) the step was trained on: %s.",
                                    paste(missing_cols, collapse = ", ")))
  }
  X <- as.matrix(as.data.frame(new_data[, object$columns, drop = FALSE]))
  Y <- predict(object$fit, X, method = object$oos_method)
  Y <- as.data.frame(unclass(Y))
  names(Y) <- paste0(object$prefix, seq_len(ncol(Y)))
  keep <- if (isTRUE(object$keep_original_cols)) names(new_data) else
    setdiff(names(new_data), object$columns)
  out <- cbind(as.data.frame(new_data)[, keep, drop = FALSE], Y)
  if (requireNamespace("tibble", quietly = TRUE)) out <- tibble::as_tibble(out)
  out
}

#' @export
print.step_manifold <- function(x, width = max(20, options()$width - 35), ...) {
  # print.recipe() passes the width as `form_width`
  check_dots(..., accepted = "form_width", fun = "print()")
  if (!is.null(list(...)$form_width)) width <- list(...)$form_width
  cols <- if (x$trained) paste(x$columns, collapse = ", ") else "<selected columns>"
  cat(sprintf("Manifold embedding (%s, %d dimensions) of %s%s\n", x$method, x$ndim,
              substr(cols, 1, width), if (x$trained) " [trained]" else ""))
  invisible(x)
}

#' @exportS3Method generics::tidy
tidy.step_manifold <- function(x, ...) {
  check_dots(..., fun = "tidy()")
  if (isTRUE(x$trained)) {
    out <- data.frame(terms = rep(x$columns, each = x$ndim),
                      component = rep(paste0(x$prefix, seq_len(x$ndim)), length(x$columns)),
                      method = x$method, id = x$id, stringsAsFactors = FALSE)
  } else {
    out <- data.frame(terms = vapply(x$terms, function(q) paste(deparse(rlang::quo_get_expr(q)),
                                                                 collapse = ""), character(1)),
                      component = NA_character_, method = x$method, id = x$id,
                      stringsAsFactors = FALSE)
  }
  if (requireNamespace("tibble", quietly = TRUE)) out <- tibble::as_tibble(out)
  out
}

#' @exportS3Method recipes::required_pkgs
required_pkgs.step_manifold <- function(x, ...) {
  check_dots(..., fun = "required_pkgs()")
  "manifoldOOS"
}
