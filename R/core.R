# Calling the C++ core: map its exceptions to the package's condition classes.

# Evaluate `expr` (a call into compiled code) and translate C++ exceptions.
# Rcpp gives a forwarded exception the demangled C++ class name as condition
# class, e.g. "manifoldOOS::input_error".
#
# An input error from the core names the argument it is about in backticks
# (e.g. "`ndim` = 3 is too large ..."); that name becomes the condition's
# `arg`. Otherwise the core found a property of the data it was given, and
# `arg` (default "X") is blamed.
core <- function(expr, arg = "X") {
  sync_fork_threads()
  tryCatch(expr, "C++Error" = function(e) {
    cls <- class(e)
    msg <- conditionMessage(e)
    if ("manifoldOOS::input_error" %in% cls) {
      named <- regmatches(msg, regexpr("`[A-Za-z_.][A-Za-z0-9_.]*`", msg))
      blamed <- if (length(named)) gsub("`", "", named) else arg
      abort_input_msg(msg, blamed)
    }
    if (any(c("manifoldOOS::convergence_error", "manifoldOOS::error") %in% cls))
      abort_numerical(msg)
    if ("std::bad_alloc" %in% cls)
      abort_numerical("not enough memory for this computation (std::bad_alloc).")
    abort_numerical(sprintf("internal error in compiled code: %s", msg))
  })
}

#' Number of threads used by the compiled code
#'
#' The package parallelises long loops with OpenMP. Functions with an
#' `n_threads` argument use all available threads when it is 0 (the default
#' is the option `manifoldOOS.threads`, itself 0 unless set). See
#' [manifoldOOS-threads] for how the count is found and for forked
#' processes.
#'
#' @return The number of threads "all available" means: OpenMP's default
#'   capped by the CPUs the process may use (CPU quota of a container,
#'   affinity) and by `OMP_THREAD_LIMIT`; 1 in a forked child (unless
#'   `options(manifoldOOS.fork_threads)` allows more) and when the package was
#'   built without OpenMP.
#' @export
#' @examples
#' max_threads()
max_threads <- function() {
  sync_fork_threads()
  .mo_max_threads()
}

default_threads <- function() {
  sync_fork_threads()
  getOption("manifoldOOS.threads", 0L)
}

timed <- function(expr) {
  t0 <- proc.time()[["elapsed"]]
  value <- expr
  list(value = value, time = proc.time()[["elapsed"]] - t0)
}
