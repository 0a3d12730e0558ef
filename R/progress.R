# Progress messages for fits and predictions that may take a while.

#' Progress messages
#'
#' The fitting functions that can take more than a few seconds (for example
#' [isomap()], [kpca()], [mds()], [lle()], [ltsa()], [laplacian_eigenmaps()],
#' the linear projections, [nppe()], [ke_lle()]), [oos_map()] and
#' [predict()][predict.manifold_fit] have an argument `verbose`. With
#' `verbose = TRUE` they report each stage (input checks, nearest
#' neighbours, graph, eigen-solve and the solver used, done with the elapsed
#' time) as one time-stamped line, as \pkg{uwot} does.
#'
#' @details
#' A full Isomap fit reports, for example:
#'
#' ```
#' 13:04:32 Isomap: 500 points x 3 features -> 2 dimensions (k = 10)
#' 13:04:32 Isomap: kNN graph: 1 component(s), 0 edge(s) added (46.0 ms)
#' 13:04:32 Isomap: shortest paths from all 500 points and eigen-solve (eigen_solver = "auto")
#' 13:04:33 Isomap: geodesics and eigen-solve done with dense_dc (628.0 ms)
#' 13:04:33 Isomap: done (679.0 ms)
#' ```
#'
#' The default is `getOption("manifoldOOS.verbose", FALSE)`: silent unless
#' the option is set, so `options(manifoldOOS.verbose = TRUE)` switches the
#' messages on for a whole session (also inside [step_manifold()]). The
#' lines are signalled with [message()] (condition class
#' `manifoldOOS_progress`), so [suppressMessages()] silences them and
#' nothing is ever printed to standard output. Long computations in the
#' compiled code poll for interrupts: Ctrl-C (or a limit set with
#' [setTimeLimit()]) stops them promptly and leaves the session usable.
#'
#' @name manifoldOOS-progress
#' @examples
#' roll <- swiss_roll(300, seed = 1)
#' fit <- isomap(roll$x, ndim = 2, k = 10, verbose = TRUE)
#' # the same, silenced
#' fit <- suppressMessages(isomap(roll$x, ndim = 2, k = 10, verbose = TRUE))
#' # for a whole session
#' old <- options(manifoldOOS.verbose = TRUE)
#' y <- predict(fit, roll$x[1:5, ])
#' options(old)
NULL

# mo_progress(verbose, fmt, ..., start = NULL)
#
# The package's one progress helper. When `verbose` is TRUE, signals one line
# "HH:MM:SS <sprintf(fmt, ...)>" with message() (class manifoldOOS_progress),
# followed by " (<elapsed>)" when `start` (a value returned by an earlier
# call) is given. Returns, invisibly and whatever `verbose` is, the current
# elapsed time in seconds, to be passed as `start` later:
#
#   t0 <- mo_progress(verbose, "LTSA: %d points", n)
#   ...
#   mo_progress(verbose, "LTSA: done", start = t0)
mo_progress <- function(verbose, fmt, ..., start = NULL) {
  now <- proc.time()[["elapsed"]]
  if (isTRUE(verbose)) {
    msg <- if (...length()) sprintf(fmt, ...) else fmt
    if (!is.null(start)) msg <- sprintf("%s (%s)", msg, format_seconds(round(now - start, 3)))
    line <- paste0(format(Sys.time(), "%H:%M:%S"), " ", msg, "\n")
    message(structure(class = c("manifoldOOS_progress", "message", "condition"),
                      list(message = line, call = NULL)))
  }
  invisible(now)
}

# Validates a `verbose` argument.
check_verbose <- function(verbose) check_flag(verbose, "verbose")

# How an eigen-solve was done, from the `solver` field the core returns
# (a string, or a list with the path / method used).
describe_solver <- function(solver) {
  if (is.null(solver)) return("(solver not reported)")
  if (is.character(solver)) return(paste(solver, collapse = " "))
  if (is.list(solver)) {
    parts <- unlist(lapply(solver[intersect(c("path", "method", "eig_method", "solver"), names(solver))],
                           function(v) if (is.character(v) && length(v) == 1L) v else NULL))
    if (length(parts)) return(paste(unique(parts), collapse = " / "))
  }
  "(solver not reported)"
}
