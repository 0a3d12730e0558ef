# Fuzz harness: call exported functions with malformed arguments and sort
# every outcome into "ok" (returned a value), "classed" (a manifoldOOS
# condition naming an argument) or "defect" (any other error, a missing
# argument name, or a hang). A crash would end the test process itself.

# Malformed values, by the role an argument plays.
fuzz_pool <- function(role, n = 30L, p = 3L) {
  good <- matrix(stats::rnorm(n * p), n, p)
  switch(role,
    data = list(
      null = NULL,
      string = "a",
      char_matrix = matrix(letters[1:(n * p) %% 26 + 1L], n, p),
      list = list(1, 2, 3),
      vector = stats::rnorm(n),
      zero_rows = good[0, , drop = FALSE],
      one_row = good[1, , drop = FALSE],
      two_rows = good[1:2, , drop = FALSE],
      zero_cols = good[, 0, drop = FALSE],
      na = replace(good, 5L, NA),
      nan = replace(good, 7L, NaN),
      inf = replace(good, 3L, Inf),
      neg_inf = replace(good, 4L, -Inf),
      constant_col = cbind(good, 1),
      all_constant = matrix(1, n, p),
      duplicated_rows = good[rep(1:5, length.out = n), ],
      complex = good + 0i,
      factor_df = data.frame(a = good[, 1], b = factor(rep(c("u", "v"), length.out = n))),
      char_df = data.frame(a = good[, 1], b = rep("x", n), stringsAsFactors = FALSE),
      empty_df = data.frame(),
      huge = good * 1e300,
      function_value = mean
    ),
    int = list(null = NULL, na = NA, na_int = NA_integer_, neg = -1, zero = 0,
               frac = 1.5, huge = 1e9, inf = Inf, nan = NaN, string = "3",
               vec = c(2, 3), logical = TRUE, empty = integer(0), list = list(2)),
    size = list(null = NULL, na = NA, neg = -1, zero = 0, frac = 1.5, inf = Inf, nan = NaN,
                string = "3", vec = c(20, 30), logical = TRUE, empty = integer(0)),
    num = list(na = NA, neg = -1, zero = 0, inf = Inf, nan = NaN, string = "1",
               vec = c(1, 2), empty = numeric(0), list = list(1), neg_inf = -Inf),
    flag = list(na = NA, string = "yes", vec = c(TRUE, FALSE), number = 2, empty = logical(0)),
    choice = list(bad = "no_such_choice", na = NA_character_, number = 1, vec = c("x", "y"),
                  empty = character(0)),
    labels = list(null = NULL, na = rep(NA, n), short = rep(1:2, length.out = n - 1L),
                  one_class = rep(1, n), singletons = seq_len(n), list = as.list(rep(1:2, length.out = n)),
                  matrix = matrix(rep(1:2, length.out = n), n, 2), empty = integer(0)),
    threads = list(neg = -2, frac = 1.5, na = NA, string = "2", vec = c(1, 2)),
    stop("unknown fuzz role ", role)
  )
}

# Run one call; classify its outcome.
fuzz_call <- function(fun, args, arg_name, time_limit = 30) {
  if (nzchar(Sys.getenv("MANIFOLDOOS_FUZZ_TRACE"))) {
    cat(arg_name, "\n", file = Sys.getenv("MANIFOLDOOS_FUZZ_TRACE"), append = TRUE)
  }
  setTimeLimit(elapsed = time_limit, transient = TRUE)
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  res <- tryCatch(
    withCallingHandlers(
      { do.call(fun, args); list(status = "ok", message = "") },
      warning = function(w) invokeRestart("muffleWarning")
    ),
    manifoldOOS_error = function(e) {
      if (grepl("time limit", conditionMessage(e))) {
        return(list(status = "defect", message = paste("hang:", conditionMessage(e))))
      }
      named <- !is.null(e$arg) || inherits(e, "manifoldOOS_numerical_error")
      list(status = if (named) "classed" else "defect",
           message = paste("classed but names no argument:", conditionMessage(e)))
    },
    error = function(e) list(status = "defect", message = conditionMessage(e))
  )
  res$arg <- arg_name
  res
}

# For each argument with a role, replace it by each value of its pool.
fuzz_function <- function(name, fun, valid_args, roles, time_limit = 30) {
  out <- list()
  for (arg in names(roles)) {
    pool <- fuzz_pool(roles[[arg]])
    for (case in names(pool)) {
      args <- valid_args
      if (is.null(pool[[case]])) {
        args[arg] <- list(NULL)
      } else {
        args[[arg]] <- pool[[case]]
      }
      if (nzchar(Sys.getenv("MANIFOLDOOS_FUZZ_TRACE"))) {
        cat(name, case, "", file = Sys.getenv("MANIFOLDOOS_FUZZ_TRACE"), append = TRUE)
      }
      r <- fuzz_call(fun, args, arg, time_limit)
      out[[length(out) + 1L]] <- data.frame(fun = name, arg = arg, case = case,
                                            status = r$status, message = r$message,
                                            stringsAsFactors = FALSE)
    }
  }
  do.call(rbind, out)
}
