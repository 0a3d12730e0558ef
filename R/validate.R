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

# Coerce x (matrix, data.frame, Matrix) to a finite numeric double matrix.
# Column and row names are kept.
as_data_matrix <- function(x, arg = "X", min_rows = 3L, allow_na = FALSE) {
  if (is.null(x)) abort_input(arg, "must be a numeric matrix or data frame, not NULL.")
  if (inherits(x, "Matrix")) {
    x <- as.matrix(x)
  } else if (is.data.frame(x)) {
    x <- numeric_columns(x, arg)
    rn <- attr(x, "row.names")
    x <- as.matrix(x)
    if (is.integer(rn)) rownames(x) <- NULL
  } else if (is.vector(x) && is.numeric(x) && !is.list(x)) {
    abort_input(arg, "must be a matrix with one row per observation; got a vector (use matrix(x, ncol = 1) for one variable).")
  }
  if (!is.matrix(x)) {
    abort_input(arg, sprintf("must be a numeric matrix or data frame, not an object of class '%s'.",
                             class(x)[1]))
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
    if (any(is.infinite(x))) {
      where <- which(is.infinite(x), arr.ind = TRUE)[1, ]
      abort_input(arg, sprintf("must not contain Inf (first at row %d, column %d).",
                               where[1], where[2]))
    }
    # squared distances and Gram entries must stay finite in double precision
    big <- max(abs(x), 0, na.rm = TRUE)
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

check_threads <- function(n_threads, arg = "n_threads") {
  check_number(n_threads, arg, lower = 0, integer = TRUE)
}

# Validate `newdata` against the training columns stored in a fit: same
# number of columns; when the fit has column names, match them by name
# (reordering when all are present).
check_newdata <- function(newdata, colnames_train, ncol_train, arg = "newdata") {
  x <- as_data_matrix(newdata, arg = arg, min_rows = 1L)
  nm <- colnames(x)
  if (!is.null(colnames_train) && !is.null(nm)) {
    if (!setequal(nm, colnames_train) || anyDuplicated(nm)) {
      missing <- setdiff(colnames_train, nm)
      extra <- setdiff(nm, colnames_train)
      abort_input(arg, sprintf(
        "must have the training columns. %s%s",
        if (length(missing)) sprintf("Missing: %s. ", paste(utils::head(missing, 5), collapse = ", ")) else "",
        if (length(extra)) sprintf("Unknown: %s.", paste(utils::head(extra, 5), collapse = ", ")) else ""))
    }
    if (!identical(nm, colnames_train)) x <- x[, colnames_train, drop = FALSE]
  } else if (ncol(x) != ncol_train) {
    abort_input(arg, sprintf("must have %d columns, like the training data; it has %d.",
                             ncol_train, ncol(x)))
  }
  x
}
