# One structural check of a fitted model, used by predict(), reconstruct(),
# predict_file() and the workers of the parallel path: the components each
# class needs, their types and their dimensions. A model that was edited,
# truncated or corrupted (a dropped component, a string where a matrix
# belongs, a NaN inside a model matrix) stops here with an error of class
# `manifoldOOS_model_error` naming the component, instead of failing
# somewhere inside a rule (or the compiled code) with an unclassed error.

# ---- component specifications ---------------------------------------------
# A spec says what one component must be:
#   type: "matrix" (numeric), "array" (numeric, with `dims`), "vector"
#         (numeric), "number" (numeric scalar),
#         "count" (whole number >= 1), "index" (whole numbers in 1..max),
#         "string", "strings" (character vector), "flag", "list", "kernel",
#         "map" (an oos_map), "any" (present, anything)
#   rows, cols, len, max: expressions in n, p (features), d (ndim),
#         `distances` (the fit was made from distances) and the other
#         components, evaluated when the spec is checked
#   lower: smallest value allowed (numbers); positive: > 0
#   finite: no NA / NaN / Inf (default TRUE)
#   choices: allowed strings
#   optional: NULL is allowed
#   when: an expression; the component is checked only when it is TRUE
fs <- function(type, rows = NULL, cols = NULL, len = NULL, max = NULL, lower = NULL,
               positive = FALSE, finite = TRUE, choices = NULL, optional = FALSE, when = NULL,
               dims = NULL) {
  list(type = type, rows = rows, cols = cols, len = len, max = max, lower = lower,
       positive = positive, finite = finite, choices = choices, optional = optional, when = when,
       dims = dims)
}

# Components every fit has (checked first, in this order).
fit_common_spec <- function() {
  list(
    method = fs("string"),
    n = fs("count"),
    ndim = fs("count"),
    n_features = fs("count"),
    embedding = fs("matrix", rows = quote(n), cols = quote(d)),
    feature_names = fs("strings", len = quote(p_in), optional = TRUE, finite = FALSE),
    params = fs("list", optional = TRUE),
    oos = fs("list"),
    neighbors = fs("list", optional = TRUE)
  )
}

# Components each class needs for its own rules (predict_native() and
# reconstruct()). The first class of the object with an entry applies.
fit_class_specs <- function() {
  Xtrain <- fs("matrix", rows = quote(n), cols = quote(p))
  # fits made from distances hold no coordinates
  Xcoords <- fs("matrix", rows = quote(n), cols = quote(p), when = quote(!distances))
  list(
    manifold_diffusion = list(
      X_train = Xcoords,
      eigenvalues = fs("vector", len = quote(d + 1)),
      t = fs("number", lower = 0),
      alpha = fs("number"),
      sigma = fs("number", positive = TRUE),
      q = fs("vector", len = quote(n), positive = TRUE),
      psi = fs("matrix", rows = quote(n), cols = quote(d)),
      kernel = fs("string", choices = c("dense", "knn")),
      kernel_k = fs("count", when = quote(identical(kernel, "knn")))
    ),
    manifold_isomap = list(
      x_train = Xcoords,
      k = fs("count", max = quote(n)),
      landmarks = fs("index", max = quote(n), optional = TRUE),
      landmark_coords = fs("matrix", rows = quote(length(landmarks)), cols = quote(d),
                           when = quote(!is.null(landmarks))),
      eigenvalues = fs("vector", len = quote(d)),
      geodesics = fs("matrix", rows = quote(if (is.null(landmarks)) n else length(landmarks)),
                     cols = quote(n)),
      lsharp = fs("matrix", rows = quote(if (is.null(landmarks)) n else length(landmarks)),
                  cols = quote(d)),
      mu = fs("vector", len = quote(if (is.null(landmarks)) n else length(landmarks))),
      grand_mean = fs("number"),
      center = fs("vector", len = quote(d), optional = TRUE),
      rotation = fs("matrix", rows = quote(d), cols = quote(d), optional = TRUE)
    ),
    manifold_kpca = list(
      x_train = Xtrain,
      kernel = fs("kernel"),
      alpha = fs("matrix", rows = quote(n), cols = quote(d)),
      col_means = fs("vector", len = quote(n)),
      grand_mean = fs("number")
    ),
    manifold_mds = list(
      x_train = Xcoords,
      eigenvalues = fs("vector", len = quote(d)),
      lsharp = fs("matrix", rows = quote(n), cols = quote(d)),
      mu = fs("vector", len = quote(n)),
      grand_mean = fs("number")
    ),
    manifold_le = list(
      X_train = Xcoords,
      eigenvalues = fs("vector", len = quote(d + 1)),
      graph = fs("string", choices = c("knn", "eps", "full")),
      k = fs("count", max = quote(n), when = quote(identical(graph, "knn"))),
      eps = fs("number", positive = TRUE, when = quote(identical(graph, "eps"))),
      weights = fs("string", choices = c("heat", "binary")),
      sigma = fs("number", positive = TRUE, when = quote(!identical(weights, "binary"))),
      laplacian = fs("string"),
      degree = fs("vector", len = quote(n), positive = TRUE, optional = TRUE)
    ),
    manifold_lgrm = list(
      kernel = fs("kernel"),
      basis = fs("matrix", cols = quote(p)),
      beta = fs("matrix", rows = quote(nrow(basis)), cols = quote(d)),
      c = fs("vector", len = quote(d))
    ),
    manifold_linear = list(
      center = fs("vector", len = quote(p)),
      rotation = fs("matrix", rows = quote(p), cols = quote(d))
    ),
    manifold_lle = list(
      X_train = Xtrain,
      k = fs("count", max = quote(n)),
      reg = fs("number", lower = 0),
      eigenvalues = fs("vector", len = quote(d + 1),
                       when = quote("nystrom" %in% oos[["available"]]))
    ),
    manifold_ltsa = list(
      X_train = Xtrain,
      k = fs("count", max = quote(n)),
      reg = fs("number", lower = 0)
    ),
    manifold_nppe = list(
      kept_columns = fs("index", max = quote(p)),
      center = fs("vector", len = quote(length(kept_columns))),
      scale = fs("vector", len = quote(length(kept_columns)), positive = TRUE),
      degree = fs("count"),
      basis = fs("string"),
      n_features_poly = fs("count"),
      feature_means = fs("vector", len = quote(n_features_poly)),
      coefficients = fs("matrix", rows = quote(n_features_poly), cols = quote(d))
    ),
    manifold_ke_lle = list(
      map = fs("map")
    ),
    manifold_pca = list(
      center = fs("vector", len = quote(p)),
      scale = fs("vector", len = quote(p), positive = TRUE),
      rotation = fs("matrix", rows = quote(p), cols = quote(d))
    ),
    manifold_plml = list(
      X_train = Xtrain,
      goose_k = fs("count", max = quote(n)),
      n_models = fs("count"),
      labels = fs("index", len = quote(n), max = quote(n_models)),
      centres = fs("matrix", rows = quote(n_models), cols = quote(p)),
      bases = fs("array", dims = quote(c(p, d, n_models))),
      maps = fs("array", dims = quote(c(d + 1, d, n_models)))
    ),
    manifold_supervised = list(
      X_train = Xtrain,
      beta = fs("number", positive = TRUE)
    ),
    manifold_sosi = list(
      centres = fs("matrix", cols = quote(p)),
      coef = fs("matrix", rows = quote(nrow(centres)), cols = quote(d)),
      sigma = fs("vector", len = quote(d), positive = TRUE),
      Ftrain = fs("matrix", cols = quote(d)),
      train_codes = fs("index", len = quote(nrow(Ftrain)), max = quote(length(classes))),
      classes = fs("strings")
    ),
    manifold_sr_linear = list(
      center = fs("vector", len = quote(p)),
      rotation = fs("matrix", rows = quote(p), cols = quote(d)),
      y_mean = fs("vector", len = quote(d))
    ),
    manifold_sr_kernel = list(
      kernel = fs("kernel"),
      X_train = Xtrain,
      coefficients = fs("matrix", rows = quote(n), cols = quote(d)),
      intercept = fs("vector", len = quote(d))
    )
  )
}

# Components of an out-of-sample map, and of its `data` by rule.
map_common_spec <- function() {
  list(
    method = fs("string", choices = oos_map_methods),
    n = fs("count"),
    ndim = fs("count"),
    n_features = fs("count"),
    feature_names = fs("strings", len = quote(p_in), optional = TRUE, finite = FALSE),
    embedding_names = fs("strings", len = quote(d), optional = TRUE, finite = FALSE),
    params = fs("list"),
    data = fs("list")
  )
}

map_data_specs <- function() {
  X <- fs("matrix", rows = quote(n), cols = quote(p))
  Y <- fs("matrix", rows = quote(n), cols = quote(d))
  k <- fs("count", max = quote(n))
  list(
    goose = list(X = X, Y = Y, k = k, scale = fs("any"), variant = fs("string"), snap = fs("flag")),
    lvm = list(X = X, Y = Y, k = k, beta = fs("number", positive = TRUE), snap = fs("flag")),
    reconstruction = list(X = X, Y = Y, k = k, reg = fs("number", lower = 0), snap = fs("flag")),
    sparse = list(X = X, E = fs("matrix"), Y = Y, normalize = fs("flag"),
                  solver = fs("string")),
    linear = list(mu = fs("vector", len = quote(p)), ybar = fs("vector", len = quote(d)),
                  A = fs("matrix", rows = quote(p), cols = quote(d))),
    rbf = list(X = X, C = fs("matrix", rows = quote(n), cols = quote(d)),
               aperture = fs("number", positive = TRUE)),
    krr = list(X = X, C = fs("matrix", rows = quote(n), cols = quote(d)),
               ybar = fs("vector", len = quote(d)), kernel = fs("kernel"))
  )
}

# ---- the check ------------------------------------------------------------

# Stops with class manifoldOOS_model_error (an input error about `arg`)
# naming the component.
abort_model <- function(component, message, what = "fit", arg = "object") {
  stop(structure(
    class = c("manifoldOOS_model_error", "manifoldOOS_input_error", "manifoldOOS_error",
              "error", "condition"),
    list(message = sprintf("`%s` is not a valid %s: its component `%s` %s Refit the model%s.",
                           arg, what, component, message,
                           " (a fitted model must not be edited)"),
         call = NULL, arg = arg, component = component)))
}

#' Check that a fitted model is complete and consistent
#'
#' `validate_fit()` checks the structure of a fitted model (a `manifold_fit`
#' or an out-of-sample map from [oos_map()]): that every component its
#' rules need is present, of the right type and of the right dimensions
#' (relative to the number of training points, of features and of embedding
#' dimensions), and that the numbers in its model matrices are finite.
#' [predict()][predict.manifold_fit], [reconstruct()], [predict_file()] and
#' the workers of `predict(parallel = TRUE)` run it first, so a model that was
#' edited, truncated or damaged (in a file, say) stops with an error naming
#' the component instead of failing inside the computation.
#'
#' @param object A fitted model (`manifold_fit`) or a `manifold_oos_map`.
#' @param arg The name to blame in the error (the argument the model came in).
#' @return `object`, invisibly, when it is valid. Otherwise an error of class
#'   `manifoldOOS_model_error` (which inherits from `manifoldOOS_input_error`
#'   and `manifoldOOS_error`) with fields `arg` and `component`, the name
#'   of the first component found wrong (`"data$X"` for a component inside
#'   one).
#' @export
#' @examples
#' roll <- swiss_roll(200, seed = 1)
#' fit <- ltsa(roll$x, ndim = 2, k = 10)
#' validate_fit(fit)
#' broken <- fit
#' broken$X_train <- broken$X_train[1:10, ]
#' e <- tryCatch(validate_fit(broken), manifoldOOS_model_error = function(e) e)
#' e$component
#' conditionMessage(e)
validate_fit <- function(object, arg = "object") {
  if (inherits(object, "manifold_oos_map")) return(invisible(validate_oos_map(object, arg)))
  if (!inherits(object, "manifold_fit") || !is.list(object)) {
    abort_input(arg, sprintf("must be a manifoldOOS fit (class \"manifold_fit\") or an oos_map(), not an object of class '%s'.",
                             class(object)[1L]))
  }
  what <- "fit"
  check_input_model(object, arg, what)
  check_components(object, fit_common_spec(), object, arg, what)
  check_neighbor_spec(object[["neighbors"]], arg, what)
  oos <- object[["oos"]]
  if (!is_string(oos[["default"]])) abort_model("oos$default", "must be the name of a rule (a string).", what, arg)
  avail <- oos[["available"]]
  if (!is.character(avail) || !length(avail) || anyNA(avail)) {
    abort_model("oos$available", "must name the fit's own rules (a character vector).", what, arg)
  }
  specs <- fit_class_specs()
  cls <- intersect(class(object), names(specs))
  if (!length(cls)) {
    abort_model("class", sprintf("names no known kind of fit (class '%s').", class(object)[1L]),
                what, arg)
  }
  check_components(object, specs[[cls[1L]]], object, arg, sprintf("%s fit", object[["method"]]))
  if (!is.null(object[["map"]])) validate_oos_map(object[["map"]], arg, prefix = "map$")
  invisible(object)
}

validate_oos_map <- function(object, arg = "object", prefix = "") {
  what <- "out-of-sample map"
  if (!inherits(object, "manifold_oos_map") || !is.list(object)) {
    abort_model(sub("\\$$", "", if (nzchar(prefix)) prefix else "class"),
                "must be an out-of-sample map (class \"manifold_oos_map\").", what, arg)
  }
  check_input_model(object, arg, what, prefix)
  check_components(object, map_common_spec(), object, arg, what, prefix)
  rule <- map_data_specs()[[object[["method"]]]]
  # the rule's settings live in params (k, beta, reg, snap, ...), its arrays in data
  arrays <- c("X", "Y", "E", "C", "mu", "ybar", "A", "kernel")
  check_components(object[["data"]], rule[intersect(names(rule), arrays)], object, arg, what,
                   paste0(prefix, "data$"))
  check_components(object[["params"]], rule[setdiff(names(rule), arrays)], object, arg, what,
                   paste0(prefix, "params$"))
  if (!is.null(object[["n_threads"]]) && !is_count(object[["n_threads"]], zero = TRUE)) {
    abort_model(paste0(prefix, "n_threads"), "must be a whole number of threads.", what, arg)
  }
  invisible(object)
}

is_string <- function(x) is.character(x) && length(x) == 1L && !is.na(x)

# The number of columns the method of a model works on: the PCA components
# of its input model, else its input columns (NA when `input` is malformed;
# check_input_model() reports that first).
fitted_columns <- function(model) {
  rot <- model[["input"]][["pca"]][["rotation"]]
  if (is.null(rot)) return(model[["n_features"]])
  if (is.matrix(rot)) ncol(rot) else NA_integer_
}

# The input model of a fit or map (pca =, metric =): see ?manifoldOOS-input.
check_input_model <- function(object, arg, what, prefix = "") {
  input <- object[["input"]]
  if (is.null(input)) return(invisible())
  nm <- function(x) paste0(prefix, "input", x)
  if (!is.list(input)) abort_model(nm(""), "must be a list (the input model).", what, arg)
  if (!is_string(input[["metric"]]) ||
      !input[["metric"]] %in% c("euclidean", "cosine", "correlation", "precomputed")) {
    abort_model(nm("$metric"), "must be \"euclidean\", \"cosine\", \"correlation\" or \"precomputed\".",
                what, arg)
  }
  if (identical(input[["metric"]], "precomputed")) {
    kd <- input[["knn_dist"]]
    if (!is.matrix(kd) || !is.numeric(kd) || nrow(kd) != object[["n"]] || anyNA(kd) || any(kd < 0)) {
      abort_model(nm("$knn_dist"), "must be the training points' neighbour distances (n rows).", what, arg)
    }
  }
  p_in <- object[["n_features"]]
  if (!is_count(p_in)) abort_model(paste0(prefix, "n_features"), "must be a whole number, at least 1.", what, arg)
  pc <- input[["pca"]]
  if (is.null(pc)) return(invisible())
  if (!is.list(pc)) abort_model(nm("$pca"), "must be a list (center, scale, rotation).", what, arg)
  vec_ok <- function(v, positive = FALSE) {
    is.numeric(v) && is.null(dim(v)) && length(v) == p_in && !anyNA(v) && all(is.finite(v)) &&
      (!positive || all(v > 0))
  }
  if (!vec_ok(pc[["center"]])) abort_model(nm("$pca$center"), sprintf("must be %d finite numbers.", p_in), what, arg)
  if (!vec_ok(pc[["scale"]], TRUE)) {
    abort_model(nm("$pca$scale"), sprintf("must be %d positive numbers.", p_in), what, arg)
  }
  rot <- pc[["rotation"]]
  if (!is.matrix(rot) || !is.numeric(rot) || nrow(rot) != p_in || ncol(rot) < 1L || anyNA(rot) ||
      any(!is.finite(rot))) {
    abort_model(nm("$pca$rotation"), sprintf("must be a finite numeric matrix with %d rows.", p_in), what, arg)
  }
  invisible()
}

# The neighbour search a fit recorded (fit$neighbors).
check_neighbor_spec <- function(nb, arg, what) {
  if (is.null(nb)) return(invisible())
  if (!is_string(nb[["method"]]) || !nb[["method"]] %in% c("exact", "hnsw")) {
    abort_model("neighbors$method", "must be \"exact\" or \"hnsw\".", what, arg)
  }
  if (!is_string(nb[["metric"]]) || !nb[["metric"]] %in% c(input_metrics, "precomputed")) {
    abort_model("neighbors$metric", "must name a metric.", what, arg)
  }
  ha <- nb[["hnsw_args"]]
  ok <- is.list(ha) && tryCatch({
    check_hnsw_args(ha)
    TRUE
  }, manifoldOOS_error = function(e) FALSE)
  if (!ok) abort_model("neighbors$hnsw_args", "must be a list of HNSW parameters (M, ef_construction, ef, seed).", what, arg)
  invisible()
}

is_count <- function(x, zero = FALSE) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x) && x == round(x) &&
    x >= (if (zero) 0 else 1) && x <= .Machine$integer.max
}

# Checks the components `specs` of `obj` (a fit, or a list inside it); the
# dimension expressions see n, p, d of `model` and the components of `obj`.
check_components <- function(obj, specs, model, arg, what, prefix = "") {
  if (!is.list(obj)) abort_model(sub("\\$$", "", prefix), "must be a list.", what, arg)
  # p: the columns the method works on (the PCA scores when the fit has an
  # input model with a PCA step); p_in: the columns of the input
  dims <- list(n = model[["n"]], p = fitted_columns(model), d = model[["ndim"]], p_in = model[["n_features"]],
               distances = identical(model[["input"]][["metric"]], "precomputed"))
  # the expressions see the named components (oos, landmarks, ...) and n, p, d
  comps <- unclass(obj)
  comps <- if (is.null(names(comps))) list() else comps[!is.na(names(comps)) & nzchar(names(comps))]
  env <- list2env(c(comps, dims), parent = baseenv())
  for (nm in names(specs)) {
    s <- specs[[nm]]
    if (!is.null(s$when)) {
      on <- tryCatch(isTRUE(eval(s$when, env)), error = function(e) FALSE)
      if (!on) next
    }
    check_component(obj[[nm]], s, paste0(prefix, nm), env, arg, what)
  }
  invisible(TRUE)
}

check_component <- function(v, s, name, env, arg, what) {
  fail <- function(msg) abort_model(name, msg, what, arg)
  if (is.null(v)) {
    if (s$optional) return(invisible())
    fail("is missing.")
  }
  want <- function(e) {
    if (is.null(e)) return(NULL)
    r <- tryCatch(eval(e, env), error = function(err) NA)
    if (!is.numeric(r) || length(r) != 1L || is.na(r)) fail("cannot be checked: the components it depends on are invalid.")
    as.integer(r)
  }
  finite_ok <- function(x) !s$finite || (!anyNA(x) && all(is.finite(x)))
  range_ok <- function(x) {
    if (s$positive && any(x <= 0)) fail("must be positive.")
    if (!is.null(s$lower) && any(x < s$lower)) fail(sprintf("must be at least %s.", format(s$lower)))
  }
  switch(s$type,
    matrix = {
      if (!is.matrix(v) || !(is.double(v) || is.integer(v))) fail("must be a numeric matrix.")
      r <- want(s$rows)
      if (!is.null(r) && nrow(v) != r) fail(sprintf("must have %d rows; it has %d.", r, nrow(v)))
      cc <- want(s$cols)
      if (!is.null(cc) && ncol(v) != cc) fail(sprintf("must have %d columns; it has %d.", cc, ncol(v)))
      if (!finite_ok(v)) fail("must hold finite numbers only (it has NA, NaN or Inf).")
      range_ok(v)
    },
    array = {
      if (!is.array(v) || !(is.double(v) || is.integer(v))) fail("must be a numeric array.")
      want_dims <- tryCatch(as.integer(eval(s$dims, env)), error = function(e) NA_integer_)
      if (anyNA(want_dims)) fail("cannot be checked: the components it depends on are invalid.")
      if (!identical(as.integer(dim(v)), want_dims)) {
        fail(sprintf("must have dimensions %s; it has %s.", paste(want_dims, collapse = " x "),
                     paste(dim(v), collapse = " x ")))
      }
      if (!finite_ok(v)) fail("must hold finite numbers only (it has NA, NaN or Inf).")
    },
    vector = {
      if (!(is.double(v) || is.integer(v)) || !is.null(dim(v)) && length(dim(v)) > 1L && min(dim(v)) > 1L) {
        fail("must be a numeric vector.")
      }
      l <- want(s$len)
      if (!is.null(l) && length(v) != l) fail(sprintf("must have length %d; it has %d.", l, length(v)))
      if (is.null(l) && !length(v)) fail("must not be empty.")
      if (!finite_ok(v)) fail("must hold finite numbers only (it has NA, NaN or Inf).")
      range_ok(v)
    },
    number = {
      if (!(is.double(v) || is.integer(v)) || length(v) != 1L) fail("must be a single number.")
      if (!is.finite(v)) fail("must be a finite number.")
      range_ok(v)
    },
    count = {
      if (!is_count(v)) fail("must be a whole number, at least 1.")
      m <- want(s$max)
      if (!is.null(m) && v > m) fail(sprintf("must be at most %d; it is %s.", m, format(v)))
    },
    index = {
      if (!(is.double(v) || is.integer(v)) || !length(v) || anyNA(v) || any(!is.finite(v)) ||
          any(v != round(v)) || any(v < 1)) {
        fail("must hold whole numbers, at least 1.")
      }
      l <- want(s$len)
      if (!is.null(l) && length(v) != l) fail(sprintf("must have length %d; it has %d.", l, length(v)))
      m <- want(s$max)
      if (!is.null(m) && any(v > m)) fail(sprintf("must hold numbers at most %d.", m))
    },
    string = {
      if (!is_string(v)) fail("must be a single string.")
      if (!is.null(s$choices) && !(v %in% s$choices)) {
        fail(sprintf("must be one of %s.", paste(sprintf("\"%s\"", s$choices), collapse = ", ")))
      }
    },
    strings = {
      if (!is.character(v)) fail("must be a character vector.")
      l <- want(s$len)
      if (!is.null(l) && length(v) != l) fail(sprintf("must have length %d; it has %d.", l, length(v)))
      if (s$finite && anyNA(v)) fail("must not hold NA.")
    },
    flag = {
      if (!is.logical(v) || length(v) != 1L || is.na(v)) fail("must be TRUE or FALSE.")
    },
    list = {
      if (!is.list(v)) fail("must be a list.")
      l <- want(s$len)
      if (!is.null(l) && length(v) != l) fail(sprintf("must have length %d; it has %d.", l, length(v)))
    },
    kernel = check_kernel_component(v, fail),
    map = {
      if (!inherits(v, "manifold_oos_map")) fail("must be an out-of-sample map (class \"manifold_oos_map\").")
    },
    any = NULL,
    stop("internal error: unknown component type ", s$type)
  )
  invisible()
}

# A kernel specification (kernel_spec(), possibly unclassed).
check_kernel_component <- function(v, fail) {
  if (!is.list(v) || !is_string(v$type)) fail("must be a kernel specification (a list with a `type`).")
  if (v$type == "function") {
    if (!is.function(v$fun)) fail("must hold the kernel function in `fun`.")
    return(invisible())
  }
  if (!(v$type %in% c("rbf", "linear", "polynomial"))) {
    fail("must have `type` \"rbf\", \"linear\", \"polynomial\" or \"function\".")
  }
  num1 <- function(x) (is.double(x) || is.integer(x)) && length(x) == 1L
  if (v$type == "rbf" && !(num1(v$sigma) && (is.na(v$sigma) || (is.finite(v$sigma) && v$sigma > 0)))) {
    fail("must have a positive `sigma` (rbf kernel).")
  }
  for (f in c("gamma", "coef0", "degree")) {
    if (!num1(v[[f]]) || !is.finite(v[[f]])) fail(sprintf("must have a finite number `%s`.", f))
  }
  if (v$degree < 1 || v$degree != round(v$degree)) fail("must have a whole `degree`, at least 1.")
  invisible()
}
