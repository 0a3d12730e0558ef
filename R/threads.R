# Thread counts: what "all available" means, and single-threaded forked
# children (the compiled side is in core/common.h and glue_blocks.cpp).

#' Threads: how many the package uses, and parallel R code
#'
#' The compiled code of the package runs its long loops (neighbour searches,
#' kernel and distance blocks, shortest paths, local fits, predictions) on
#' several threads with OpenMP. This page says how many, how to change it,
#' and how the package behaves inside the parallel tools of R.
#'
#' @section How many threads:
#' Every function with an `n_threads` argument, and every fit and
#' [predict()][predict.manifold_fit] (which have none), uses
#'
#' * `n_threads` when it is given and positive;
#' * otherwise `getOption("manifoldOOS.threads")` when it is set and
#'   positive;
#' * otherwise (`0`, the default) all available threads: [max_threads()].
#'
#' [max_threads()] is the smallest of OpenMP's default (the environment
#' variable `OMP_NUM_THREADS`, else the CPUs the process may run on) and the
#' CPUs the process is allowed to use, as [parallelly::availableCores()]
#' reports them when the package `parallelly` is installed (CPU affinity,
#' the CPU quota of a container under cgroups v1 or v2, `mc.cores`,
#' `_R_CHECK_LIMIT_CORES_` and batch-scheduler allocations), else the cgroup
#' CPU quota read from `/sys/fs/cgroup` (and two under `R CMD check --as-cran`).
#' It is computed when the package is loaded. No call ever uses more threads
#' than the environment variable `OMP_THREAD_LIMIT` allows (like
#' `OMP_NUM_THREADS`, it is read when the R process starts), and a build
#' without OpenMP (for example with Apple's compiler) always uses one.
#' Results do not depend on the number of threads.
#'
#' To use fewer threads, for example when several R processes share a
#' machine, set `options(manifoldOOS.threads = 2)` (or pass `n_threads`). The
#' examples, tests and vignettes of the package use at most two threads.
#'
#' @section Forked processes:
#' GNU OpenMP's thread pool does not survive `fork()`: a process created by
#' `fork()` after its parent ran threaded code would wait forever for threads
#' that do not exist in it. Forked processes are what
#' [parallel::mclapply()], `future::plan(multicore)` and `foreach` with a
#' forked `doParallel` cluster run their tasks in. The package therefore
#' registers a fork handler when it is loaded: in a forked child the compiled
#' code runs on one thread (without starting OpenMP), so
#' `mclapply(1:4, function(i) predict(fit, x), mc.cores = 4)` works after
#' a threaded fit in the parent and returns what the serial call returns.
#' The parallelism then comes from the forked processes themselves.
#'
#' To let each forked child use more threads, set
#' `options(manifoldOOS.fork_threads = n)` in the parent before forking (or in
#' the child). Do this only where the OpenMP runtime allows it (for example
#' LLVM's OpenMP, or when the parent never ran threaded code): with GNU
#' OpenMP after a threaded call in the parent, more than one thread in a
#' forked child hangs.
#'
#' Processes that are started rather than forked (`future::plan(multisession)`,
#' `parallel::makePSOCKcluster()`, `doParallel` on Windows) load the package
#' afresh and follow the rules above; [predict()][predict.manifold_fit] with
#' `parallel = TRUE` gives each of its workers
#' `getOption("manifoldOOS.worker_threads", 1)` threads (see
#' [manifoldOOS-chunked]).
#'
#' @section Options:
#' * `manifoldOOS.threads`: default number of threads (0 = all available).
#' * `manifoldOOS.fork_threads`: most threads in a forked child (1).
#' * `manifoldOOS.worker_threads`: threads of each worker of
#'   `predict(parallel = TRUE)` (1).
#'
#' @name manifoldOOS-threads
#' @seealso [max_threads()]
#' @examples
#' max_threads()
#' old <- options(manifoldOOS.threads = 2)
#' roll <- swiss_roll(300, seed = 1)
#' fit <- ltsa(roll$x[1:200, ], ndim = 2, k = 10)
#' y <- predict(fit, roll$x[201:300, ])
#' if (.Platform$OS.type == "unix") {
#'   # forked children after a threaded fit: single-threaded, same result
#'   parts <- parallel::mclapply(1:2, function(i) predict(fit, roll$x[201:300, ]),
#'                               mc.cores = 2)
#'   print(identical(parts[[1]], y))
#' }
#' options(old)
NULL

thread_state <- new.env(parent = emptyenv())

.onLoad <- function(libname, pkgname) {
  thread_state$pid <- Sys.getpid()
  # a failure to read the CPU quota must not stop the package from loading
  n <- tryCatch(resolve_available_threads(), error = function(e) NA_integer_)
  if (!is.na(n)) .mo_set_available_threads(as.integer(n))
  invisible()
}

# The number of threads "all available" means: OpenMP's default, at most the
# CPUs the process may use (`cores`, NA when unknown). `info` is what
# .mo_omp_info() returns; both are arguments so that tests can feed them.
resolve_available_threads <- function(info = .mo_omp_info(), cores = available_cores()) {
  n <- as.integer(info[["max_threads"]])
  if (is.na(n) || n < 1L) n <- 1L
  if (length(cores) == 1L && !is.na(cores) && cores >= 1) n <- min(n, as.integer(cores))
  limit <- as.integer(info[["thread_limit"]])
  if (!is.na(limit) && limit >= 1L) n <- min(n, limit)
  max(1L, n)
}

# CPUs this process may use: parallelly's answer when it is installed (it
# knows affinity, cgroups v1/v2 quotas, mc.cores, _R_CHECK_LIMIT_CORES_ and
# schedulers), else the cgroup CPU quota and _R_CHECK_LIMIT_CORES_ (NA when
# neither limits it).
available_cores <- function(has_parallelly = requireNamespace("parallelly", quietly = TRUE)) {
  if (has_parallelly) {
    n <- tryCatch(suppressWarnings(parallelly::availableCores()), error = function(e) NA_integer_)
    if (length(n) == 1L && !is.na(n) && n >= 1) return(as.integer(n))
  }
  n <- cgroup_cpu_quota()
  # R CMD check --as-cran sets this: at most two cores (parallelly knows it too)
  chk <- tolower(Sys.getenv("_R_CHECK_LIMIT_CORES_", ""))
  if (nzchar(chk) && chk != "false") n <- if (is.na(n)) 2L else min(n, 2L)
  n
}

# The CPU quota of the cgroup of this process in CPUs (rounded down, at least
# 1), or NA when none is set: cgroup v2 (cpu.max: "<quota> <period>" or
# "max <period>") or cgroup v1 (cpu.cfs_quota_us, -1 for none, and
# cpu.cfs_period_us). `root` is the cgroup mount point (a folder of fake
# files in the tests).
cgroup_cpu_quota <- function(root = "/sys/fs/cgroup") {
  read1 <- function(f) {
    if (!file.exists(f)) return(NULL)
    v <- tryCatch(readLines(f, n = 1L, warn = FALSE), error = function(e) character(0))
    if (length(v)) trimws(v) else NULL
  }
  quota_cpus <- function(quota, period) {
    q <- suppressWarnings(as.numeric(quota))
    p <- suppressWarnings(as.numeric(period))
    if (length(q) != 1L || length(p) != 1L || is.na(q) || is.na(p) || q <= 0 || p <= 0) {
      return(NA_integer_)
    }
    max(1L, as.integer(floor(q / p)))
  }
  v2 <- read1(file.path(root, "cpu.max"))
  if (!is.null(v2)) {
    parts <- strsplit(v2, "[[:space:]]+")[[1L]]
    if (length(parts) >= 2L && parts[1L] != "max") return(quota_cpus(parts[1L], parts[2L]))
    return(NA_integer_)
  }
  for (dir in file.path(root, c("cpu", "cpu,cpuacct", "cpuacct,cpu"))) {
    q <- read1(file.path(dir, "cpu.cfs_quota_us"))
    p <- read1(file.path(dir, "cpu.cfs_period_us"))
    if (!is.null(q) && !is.null(p)) return(quota_cpus(q, p))
  }
  NA_integer_
}

# In a process forked from the one that loaded the package, apply
# options(manifoldOOS.fork_threads) to the compiled code's fork limit (which
# the fork handler set to 1). Called on the way into the compiled code
# (default_threads(), core()); a no-op in the process that loaded the package.
sync_fork_threads <- function() {
  if (identical(thread_state$pid, Sys.getpid())) return(invisible(0L))
  n <- getOption("manifoldOOS.fork_threads", 1L)
  if (!is.numeric(n) || length(n) != 1L || is.na(n) || n < 1 || n != round(n) || n > 1e6) {
    abort_input("manifoldOOS.fork_threads",
                "(an option) must be a whole number of threads, at least 1.")
  }
  invisible(.mo_fork_threads(as.integer(n)))
}
