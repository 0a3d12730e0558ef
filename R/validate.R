# Input validation shared by every exported function.
#
# All errors raised here inherit from "manifoldOOS_input_error" (and from
# "manifoldOOS_error"), and their message names the offending argument.

#' Conditions signalled by manifoldOOS
#'
#' Every error raised by the package on bad input has class
#' `manifoldOOS_input_error` (and `manifoldOOS_error`, `error`, `condition`),
#' so that it can be caught with `tryCatch(..., manifoldOOS_input_error = )`.
#' The condition carries the name of the offending argument in its `arg`
#' field. Numerical failures (a solver that does not converge, a singular
#' system) have class `manifoldOOS_numerical_error`; warnings use
#' `manifoldOOS_warning`.
#'
#' @name manifoldOOS-conditions
#' @examples
#' res <- tryCatch(knn(matrix(1:6, 3), k = 5),
#'                 manifoldOOS_input_error = function(e) conditionMessage(e))
#' res
NULL

abort_input <- function(arg, message, ..., call = NULL) {
  msg <- if (is.null(arg)) message else sprintf("`%s` %s", arg, message)
  cond <- structure(
    class = c("manifoldOOS_input_error", "manifoldOOS_error", "error", "condition"),
    list(message = msg, call = call, arg = arg, ...)
  )
  stop(cond)
}

# An input error whose message is complete already (from the C++ core), blaming `arg`.
abort_input_msg <- function(message, arg) {
  stop(structure(
    class = c("manifoldOOS_input_error", "manifoldOOS_error", "error", "condition"),
    list(message = message, call = NULL, arg = arg)
  ))
}

abort_numerical <- function(message, call = NULL) {
  cond <- structure(
    class = c("manifoldOOS_numerical_error", "manifoldOOS_error", "error", "condition"),
    list(message = message, call = call)
  )
  stop(cond)
}

# Bytes of memory the machine can give now: getOption("manifoldOOS.memory_limit")
# when set, else MemAvailable of /proc/meminfo (NA where it cannot be read).
available_memory <- function() {
  lim <- getOption("manifoldOOS.memory_limit")
  if (!is.null(lim)) return(as.numeric(lim))
  s <- tryCatch(suppressWarnings(readLines("/proc/meminfo", n = 8L)), error = function(e) character())
  l <- grep("^MemAvailable:", s, value = TRUE)
  if (!length(l)) return(NA_real_)
  as.numeric(gsub("[^0-9]", "", l[1])) * 1024
}

# Fails early, before a fit allocates `bytes`, when they exceed the memory
# available: class manifoldOOS_memory_error (an input error blaming `arg`,
# the argument that avoids it), with the sizes in the message and fields.
check_memory <- function(bytes, what, arg, hint) {
  avail <- available_memory()
  if (is.na(avail) || bytes <= avail) return(invisible(TRUE))
  stop(structure(
    class = c("manifoldOOS_memory_error", "manifoldOOS_input_error", "manifoldOOS_error", "error", "condition"),
    list(message = sprintf("`%s`: %s needs about %.2f GB, more than the %.2f GB of memory available; %s",
                           arg, what, bytes / 1e9, avail / 1e9, hint),
         call = NULL, arg = arg, needed = bytes, available = avail)
  ))
}

warn_mo <- function(message, class = NULL) {
  cond <- structure(
    class = c(class, "manifoldOOS_warning", "warning", "condition"),
    list(message = message, call = NULL)
  )
  warning(cond)
}

# A message of class "manifoldOOS_message" (silence with suppressMessages()).
inform_mo <- function(message, class = NULL) {
  message(structure(class = c(class, "manifoldOOS_message", "message", "condition"),
                    list(message = paste0(message, "\n"), call = NULL)))
}

# Coerce x (matrix, data.frame, Matrix) to a finite numeric double matrix.
# Column and row names are kept.
as_data_matrix <- function(x, arg = "X", min_rows = 3L, allow_na = FALSE) {
  if (is.null(x)) abort_input(arg, "must be a numeric matrix or data frame, not NULL.")
  if (inherits(x, "dist")) abort_input(arg, distances_hint("is a `dist` object"))
  if (inherits(x, "Matrix")) {
    x <- densify(x, arg)
  } else if (is.data.frame(x)) {
    x <- numeric_columns(x, arg)
    rn <- attr(x, "row.names")
    x <- as.matrix(x)
    if (is.integer(rn)) rownames(x) <- NULL
  } else if (is.vector(x) && is.numeric(x) && !is.list(x)) {
    abort_input(arg, "must be a matrix with one row per observation; got a vector (use matrix(x, ncol = 1) for one variable).")
  }
  if (!is.matrix(x)) {
    abort_input(arg, sprintf("must be a numeric matrix or data frame, not an object of class '%s'.%s",
                             class(x)[1], masked_hint(x)))
  }
  if (!(is.numeric(x) || is.logical(x))) {
    abort_input(arg, sprintf("must be numeric, not of type '%s'.", typeof(x)))
  }
  if (nrow(x) < min_rows) {
    abort_input(arg, sprintf("must have at least %d rows; it has %d.", min_rows, nrow(x)))
  }
  if (ncol(x) < 1L) abort_input(arg, "must have at least one column.")
  if (storage.mode(x) != "double") storage.mode(x) <- "double"
  if (!allow_na) {
    if (anyNA(x)) {
      where <- which(is.na(x), arr.ind = TRUE)[1, ]
      abort_input(arg, sprintf("must not contain NA or NaN (first at row %d, column %d).",
                               where[1], where[2]))
    }
    # min() and max() scan x without a copy (abs(x) or is.infinite(x) would
    # allocate one as large as the input: 4 GB for 10^7 x 50)
    lo <- if (length(x)) min(x) else 0
    hi <- if (length(x)) max(x) else 0
    if (is.infinite(lo) || is.infinite(hi)) {
      where <- which(is.infinite(x), arr.ind = TRUE)[1, ]
      abort_input(arg, sprintf("must not contain Inf (first at row %d, column %d).",
                               where[1], where[2]))
    }
    # squared distances and Gram entries must stay finite in double precision
    big <- max(-lo, hi, 0)
    if (big > 1e150) {
      abort_input(arg, sprintf(paste0("has entries too large in magnitude (max |x| = %.3g): squared ",
                                      "distances would overflow. Rescale the data."), big))
    }
  }
  attr(x, "assign") <- NULL
  x
}

#' Data frames with non-numeric columns
#'
#' Every function that takes data (the fitting functions, [predict()], the
#' quality measures, [oos_map()], ...) accepts a data frame whose columns are
#' numeric or logical. Columns of any other type (factors, characters, dates,
#' lists) are handled in one way throughout the package, set by
#' `options(manifoldOOS.non_numeric = )`:
#' * `"error"` (default): a `manifoldOOS_input_error` naming the argument and
#'   the offending columns (also in the condition's `columns` field);
#' * `"drop"`: the columns are dropped with a message of class
#'   `manifoldOOS_message` naming them (as \pkg{uwot} does). A fit then
#'   records only the numeric columns, and `predict()` drops the same
#'   non-numeric columns of `newdata` before matching the training columns
#'   by name.
#'
#' Encode categorical variables yourself (for instance with
#' [stats::model.matrix()] or a recipe) when they should count.
#'
#' @name manifoldOOS-data-frames
#' @examples
#' df <- data.frame(a = rnorm(20), b = rnorm(20), c = rnorm(20),
#'                  species = rep(c("x", "y"), 10))
#' res <- tryCatch(pca(df, 2), manifoldOOS_input_error = function(e) conditionMessage(e))
#' res
#' old <- options(manifoldOOS.non_numeric = "drop")
#' fit <- pca(df, 2)           # message: column `species` dropped
#' head(predict(fit, df[1:3, ]))
#' options(old)
NULL

# The numeric and logical columns of a data frame; other columns are an
# error or dropped with a message, by getOption("manifoldOOS.non_numeric").
numeric_columns <- function(x, arg) {
  ok <- vapply(x, function(col) (is.numeric(col) || is.logical(col)) && is.null(dim(col)) &&
                 !inherits(col, c("Date", "POSIXt", "difftime")), logical(1))
  if (all(ok)) return(x)
  bad <- names(x)[!ok]
  shown <- paste(utils::head(bad, 5), collapse = ", ")
  if (length(bad) > 5) shown <- sprintf("%s and %d more", shown, length(bad) - 5L)
  mode <- getOption("manifoldOOS.non_numeric", "error")
  if (!identical(mode, "drop")) {
    abort_input(arg, sprintf(paste0("must have only numeric (or logical) columns; non-numeric: %s. ",
                                    "Encode them, remove them, or set options(manifoldOOS.non_numeric = ",
                                    "\"drop\") to drop them."), shown), columns = bad)
  }
  message(structure(class = c("manifoldOOS_message", "message", "condition"),
                    list(message = sprintf("`%s`: dropping %d non-numeric column%s: %s.\n", arg,
                                           length(bad), if (length(bad) > 1) "s" else "", shown),
                         call = NULL)))
  x[, ok, drop = FALSE]
}

# When `x` comes from a function of another package that masks a manifoldOOS
# function of the same name (kernlab's kpca() after library(dimRed) or
# library(kernlab), vegan's isomap() and procrustes()), a sentence saying so;
# "" otherwise. Used in the errors of functions that expect a manifoldOOS fit.
masked_hint <- function(x) {
  cls <- class(x)
  hit <- intersect(cls, getNamespaceExports("manifoldOOS"))
  if (!length(hit)) return("")
  f <- hit[1L]
  pkg <- attr(cls, "package")
  if (is.null(pkg)) {
    where <- setdiff(utils::find(f), "package:manifoldOOS")
    pkg <- if (length(where)) sub("^package:", "", where[1L]) else NULL
  }
  if (is.null(pkg) || identical(pkg, "manifoldOOS")) {
    return(sprintf(" It is a '%s' object from another package's %s(), not from manifoldOOS::%s().",
                   f, f, f))
  }
  sprintf(paste0(" It is a '%s' object from package %s: %s::%s() masks manifoldOOS::%s() ",
                 "(it was attached later). Call manifoldOOS::%s() instead."), f, pkg, pkg, f, f, f)
}

# A single finite number; optional bounds.
check_number <- function(x, arg, lower = -Inf, upper = Inf, lower_open = FALSE,
                         upper_open = FALSE, integer = FALSE, allow_null = FALSE) {
  if (is.null(x) && allow_null) return(invisible(NULL))
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !is.finite(x)) {
    abort_input(arg, "must be a single finite number.")
  }
  if (integer && abs(x - round(x)) > 0) abort_input(arg, "must be a whole number.")
  bad_low <- if (lower_open) x <= lower else x < lower
  bad_up <- if (upper_open) x >= upper else x > upper
  if (bad_low || bad_up) {
    rng <- sprintf("%s%s, %s%s", if (lower_open) "(" else "[", format(lower),
                   format(upper), if (upper_open) ")" else "]")
    abort_input(arg, sprintf("must lie in %s; got %s.", rng, format(x)))
  }
  if (integer) as.integer(round(x)) else as.numeric(x)
}

# Number of neighbours: 1 <= k <= n - 1 (or n when the query is another set).
check_k <- function(k, n, arg = "k", self = TRUE, min = 1L) {
  k <- check_number(k, arg, lower = min, integer = TRUE)
  kmax <- if (self) n - 1L else n
  if (k > kmax) {
    abort_input(arg, sprintf("must be at most %d (%s); got %d.", kmax,
                             if (self) "the number of training points minus one" else "the number of training points",
                             k))
  }
  k
}

# Target dimension: 1 <= ndim <= max_dim.
check_ndim <- function(ndim, max_dim, arg = "ndim") {
  ndim <- check_number(ndim, arg, lower = 1, integer = TRUE)
  if (ndim > max_dim) {
    abort_input(arg, sprintf("must be at most %d for these data; got %d.", max_dim, ndim))
  }
  ndim
}

check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) abort_input(arg, "must be TRUE or FALSE.")
  x
}

check_choice <- function(x, choices, arg) {
  if (!is.character(x) || length(x) < 1L || anyNA(x)) {
    abort_input(arg, sprintf("must be one of %s.", paste(sprintf('"%s"', choices), collapse = ", ")))
  }
  x <- x[1L]
  hit <- pmatch(x, choices)
  if (is.na(hit)) {
    abort_input(arg, sprintf("must be one of %s; got \"%s\".",
                             paste(sprintf('"%s"', choices), collapse = ", "), x))
  }
  choices[hit]
}

# A heat-kernel width given as one of the rule names `rules` or as a positive
# number: list(rule = the matched rule name, or "user" for a number; value =
# the checked number, or `x` itself for a rule).
check_width_rule <- function(x, arg, rules = c("median_knn", "mean_pairwise", "median_pairwise")) {
  if (is.character(x)) return(list(rule = check_choice(x, rules, arg), value = x))
  list(rule = "user", value = check_number(x, arg, lower = 0, lower_open = TRUE))
}

check_threads <- function(n_threads, arg = "n_threads") {
  check_number(n_threads, arg, lower = 0, integer = TRUE)
}

# Validate `newdata` against the training columns stored in a fit.
# * Names equal to the training names as a whole (including blank or repeated
#   names, as cbind() and data.frame(check.names = FALSE) make them), or no
#   names on either side: columns are matched by position.
# * Otherwise, when both sets of names are unique and non-blank, columns are
#   matched by name (and reordered); extra columns are dropped, and missing
#   ones are an error, or zeros with a warning when missing = "zero".
# * Anything else is an error naming the columns that differ, with a hint.
check_newdata <- function(newdata, colnames_train, ncol_train, arg = "newdata", sparse_ok = FALSE,
                          min_rows = 1L, missing = "error") {
  x <- if (sparse_ok && is_sparse_input(newdata)) {
    as_sparse_input(newdata, arg, min_rows = min_rows)
  } else {
    as_data_matrix(newdata, arg = arg, min_rows = min_rows)
  }
  nm <- colnames(x)
  if (is.null(colnames_train) || is.null(nm) || identical(nm, colnames_train)) {
    if (ncol(x) != ncol_train) {
      abort_input(arg, sprintf("must have %d columns, like the training data; it has %d.",
                               ncol_train, ncol(x)))
    }
    return(x)
  }
  clean <- function(v) all(nzchar(v)) && !anyNA(v) && !anyDuplicated(v)
  if (clean(nm) && clean(colnames_train)) {
    absent <- setdiff(colnames_train, nm)
    extra <- setdiff(nm, colnames_train)
    if (length(absent) && identical(missing, "zero")) {
      # features the new data lack are set to zero (extra ones are dropped)
      warn_mo(sprintf("`%s` lacks %d of the %d training columns (%s); they are set to 0 (missing = \"zero\").",
                      arg, length(absent), length(colnames_train), show_names(absent)),
              class = "manifoldOOS_missing_features_warning")
      pad <- if (is_sparse_input(x)) {
        Matrix::sparseMatrix(i = integer(0), j = integer(0), x = numeric(0), dims = c(nrow(x), length(absent)),
                             dimnames = list(rownames(x), absent))
      } else {
        matrix(0, nrow(x), length(absent), dimnames = list(rownames(x), absent))
      }
      x <- if (is_sparse_input(x)) cbind(x, pad) else cbind(x, pad)
      return(x[, colnames_train, drop = FALSE])
    }
    # every training column present: extra ones are dropped
    if (!length(absent)) return(x[, colnames_train, drop = FALSE])
    missing <- absent
    abort_input(arg, sprintf(
      "must have the training columns (matched by name). %s%sHint: %s",
      if (length(missing)) sprintf("Missing %d of %d: %s (or use missing = \"zero\" in predict()). ",
                                   length(missing), length(colnames_train), show_names(missing)) else "",
      if (length(extra)) sprintf("Not in the training data: %s. ", show_names(extra)) else "",
      if (ncol(x) == ncol_train) {
        sprintf("to match the columns by position instead, drop the names with unname(%s).", arg)
      } else {
        sprintf("the fit was trained on %d columns: %s.", ncol_train, show_names(colnames_train, 8L))
      }))
  }
  # blank or repeated names on one side: only the names as a whole identify the columns
  why <- if (!clean(colnames_train)) "the training data have blank or repeated column names" else
    sprintf("`%s` has blank or repeated column names", arg)
  if (ncol(x) != ncol_train) {
    abort_input(arg, sprintf(paste0(
      "must have %d columns, like the training data; it has %d (%s, so columns are matched by ",
      "position)."), ncol_train, ncol(x), why))
  }
  differ <- which(nm != colnames_train | is.na(nm) != is.na(colnames_train))
  shown <- utils::head(differ, 5L)
  abort_input(arg, sprintf(paste0(
    "has column names that differ from the training names at column%s %s: %s%s. As %s, columns ",
    "are matched by position only when all names equal the training names. Hint: give `%s` the ",
    "training names (colnames(%s) <- fit$feature_names) or drop them with unname(%s)."),
    if (length(differ) > 1L) "s" else "", paste(differ, collapse = ", "),
    paste(sprintf("%s instead of %s", show_name(nm[shown]), show_name(colnames_train[shown])),
          collapse = "; "),
    if (length(differ) > length(shown)) "; ..." else "", why, arg, arg, arg))
}

show_name <- function(v) ifelse(is.na(v), "NA", ifelse(nzchar(v), sprintf("\"%s\"", v), "\"\" (blank)"))
show_names <- function(v, max = 5L) {
  out <- paste(show_name(utils::head(v, max)), collapse = ", ")
  if (length(v) > max) out <- paste0(out, sprintf(", ... (%d in all)", length(v)))
  out
}

# ---- arguments in `...` -------------------------------------------------------
# Like rlang::check_dots_used(), decided from the names before anything runs:
# every argument in `...` must be accepted by a function the dots are passed on
# to. Misspelled or unknown arguments (predict(fit, x, methd = "goose")) would
# otherwise vanish silently.
#
# check_dots(..., accepted = ) -- `accepted`: a character vector of argument
# names, or a list mixing such vectors and functions (whose formals other than
# `...` are accepted). A name is accepted when it equals one of them or is a
# unique prefix of one (R's partial matching). Unnamed arguments are rejected
# unless `unnamed = TRUE`. `fun` names the function in the message (default:
# the caller), `context` says in which case (e.g. which rule is used). The error has class "manifoldOOS_dots_error" (and
# "manifoldOOS_input_error"); its `arg` field holds the rejected names.
check_dots <- function(..., accepted = character(), fun = NULL, context = NULL, unnamed = FALSE) {
  n <- ...length()
  if (n == 0L) return(invisible(NULL))
  exprs <- as.list(substitute(list(...)))[-1L]
  nms <- names(exprs)
  if (is.null(nms)) nms <- rep("", n)
  nms[is.na(nms)] <- ""
  if (!is.list(accepted)) accepted <- list(accepted)
  acc <- unique(unlist(lapply(accepted, function(a) {
    if (is.function(a)) setdiff(names(formals(a)), "...") else as.character(a)
  }), use.names = FALSE))
  ok <- if (length(acc)) !is.na(pmatch(nms, acc, duplicates.ok = TRUE)) else rep(FALSE, n)
  ok[!nzchar(nms)] <- unnamed
  if (all(ok)) return(invisible(NULL))
  caller <- sys.function(sys.parent())
  if (is.null(fun)) {
    fun <- tryCatch(deparse(sys.call(sys.parent())[[1L]])[1L], error = function(e) "this function")
  }
  own <- setdiff(names(formals(caller)), "...")
  candidates <- unique(c(own, acc))
  bad <- which(!ok)
  label <- vapply(bad, function(i) {
    if (nzchar(nms[i])) return(sprintf("`%s`", nms[i]))
    sprintf("an unnamed argument (`%s`)", paste(deparse(exprs[[i]], nlines = 1L), collapse = ""))
  }, "")
  hints <- vapply(bad, function(i) {
    if (!nzchar(nms[i]) || !length(candidates)) return("")
    d <- utils::adist(nms[i], candidates, ignore.case = TRUE)[1L, ]
    best <- candidates[d == min(d)]
    if (min(d) <= max(2, nchar(nms[i]) %/% 3)) sprintf(" Did you mean `%s`?", best[1L]) else ""
  }, "")
  msg <- sprintf("%s %s not used by %s%s and would be silently ignored.%s Accepted: %s.",
                 paste(label, collapse = ", "), if (length(bad) > 1L) "are" else "is", fun,
                 if (is.null(context)) "" else paste0(" (", context, ")"),
                 paste(hints[nzchar(hints)], collapse = ""),
                 if (length(candidates)) paste(sprintf("`%s`", candidates), collapse = ", ") else "none")
  stop(structure(
    class = c("manifoldOOS_dots_error", "manifoldOOS_input_error", "manifoldOOS_error",
              "error", "condition"),
    list(message = msg, call = NULL, arg = ifelse(nzchar(nms[bad]), nms[bad], "..."))
  ))
}

# Names graphics functions take through their own `...`: graphical parameters.
graphics_par_names <- function() {
  get0(".Pars", envir = asNamespace("graphics"), inherits = FALSE) %||% character()
}

# Names predict(fit, newdata, method = method, ...) passes on to the rule
# `method`: the arguments of the fit's native predict method, or those of
# oos_map() for the generic rules (a native "goose" rule is built by oos_map()
# too and forwards its extra arguments to it).
predict_rule_args <- function(object, method) {
  oos_args <- setdiff(names(formals(oos_map)), c("X", "Y", "method", "verbose"))
  if (!method %in% object$oos$available) return(oos_args)
  ns <- topenv()
  f <- NULL
  for (cl in class(object)) {
    f <- get0(paste0("predict_native.", cl), envir = ns, mode = "function", inherits = FALSE)
    if (!is.null(f)) break
  }
  own <- if (is.null(f)) character() else setdiff(names(formals(f)), c("object", "x", "method", "..."))
  if (method == "goose") own <- c(own, oos_args)
  unique(own)
}

# The opening of the fitting functions that read X with it (see "the opening
# of a fitting function" in R/input.R):
#
#   n <- fit_prologue(ndim_gap = 2L) %||% return(fit_input_model())
#
# Returns NULL when X must first go through the input front end (`pca =`, a
# metric other than Euclidean, a sparse matrix, a container, given
# `neighbors`; needs_input()), so that the caller returns the fit through it.
# Otherwise checks `verbose`, makes `X` a numeric matrix of at least
# `min_rows` rows and resolves `knn_method` for it, all in the calling
# function's frame (which must have `X`, `verbose`, `knn_method`, `pca` and
# `metric`); with `ndim_gap` a number, also checks the frame's `ndim`
# (1 <= ndim <= nrow(X) - ndim_gap), and returns the number of rows. A
# function that takes distances names itself in `distances`: given
# distances, X is read as them (distance_prologue()).
fit_prologue <- function(min_rows = 4L, ndim_gap = NULL, distances = NULL, env = parent.frame()) {
  if (!is.null(distances) && is_distance_input(get("X", envir = env), env$metric)) {
    return(distance_prologue(distances, min_rows, ndim_gap, env))
  }
  if (needs_input_model(env)) return(NULL)
  env$verbose <- check_verbose(env$verbose)
  env$X <- as_data_matrix(env$X, "X", min_rows = min_rows)
  env$knn_method <- local_knn_method(env$knn_method, env$X)
  n <- nrow(env$X)
  if (!is.null(ndim_gap)) env$ndim <- check_ndim(env$ndim, n - ndim_gap)
  n
}
