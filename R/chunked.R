# Chunked and distributed prediction: rows in blocks of `chunk_size`, in this
# process or on the workers of the user's future::plan().

#' Chunked and parallel prediction
#'
#' [predict()][predict.manifold_fit] (every fit) and
#' [predict()][predict.manifold_oos_map] (every out-of-sample map) take two
#' arguments for data larger than one call should handle:
#'
#' * `chunk_size`: the rows of `newdata` are processed in blocks of at most
#'   `chunk_size` rows, so the extra memory of the prediction is of order
#'   `chunk_size x (features + ndim)` plus the model, instead of growing with
#'   the number of rows. Every rule of the package treats each new row on
#'   its own, so the result is `identical()` to the one call, whatever the
#'   chunk size (row names and the per-row attributes such as `snapped`,
#'   `far`, `fallback` or `certified` included).
#' * `parallel = TRUE`: the chunks are sent to
#'   [future.apply::future_lapply()] under the [future::plan()] the user has
#'   set (`multisession` on one machine, `cluster` over several machines,
#'   a scheduler through `future.batchtools`); the package never chooses the
#'   backend. The result is `identical()` to the serial call.
#'
#' @details
#' **Shipping the model once per worker.** Before the chunks are sent, the
#' model (the fit; for a generic rule the out-of-sample map, which holds the
#' training data it needs) is sent to every worker once, with one small
#' future per worker, and kept there in a one-entry cache under a key unique
#' to the call. The chunk futures then carry only their rows and that key. A
#' worker that does not hold the model (a backend without persistent
#' workers, such as a batch scheduler, or two set-up futures landing on the
#' same worker) reports it, and its chunks are sent again together with the
#' model, so the result never depends on where the futures ran. The cache
#' entry is replaced by the next parallel call; `verbose = TRUE` reports how
#' many times the model was sent.
#'
#' **Threads.** Inside a worker the compiled code uses
#' `getOption("manifoldOOS.worker_threads", 1)` threads, so that `W`
#' workers on `W` cores do not each start one thread per core
#' (oversubscription). Set that option in the calling session (it is
#' passed to the workers) to use more threads per worker, for example with
#' one worker per machine. Results do not depend on the number of threads.
#'
#' **Memory.** With `chunk_size` set, the calling process holds `newdata`,
#' the result and one chunk; a worker holds the model, one chunk and its
#' result. For inputs that do not fit in memory use [predict_file()], which
#' reads and writes in blocks.
#'
#' `future` and `future.apply` are suggested packages: `parallel = TRUE`
#' stops with an error of class `manifoldOOS_missing_package` when they
#' are not installed.
#' @name manifoldOOS-chunked
#' @examples
#' roll <- swiss_roll(600, seed = 1)
#' fit <- laplacian_eigenmaps(roll$x[1:400, ], ndim = 2, k = 10)
#' a <- predict(fit, roll$x[401:600, ])
#' b <- predict(fit, roll$x[401:600, ], chunk_size = 64)
#' identical(a, b)
#' if (requireNamespace("future.apply", quietly = TRUE)) {
#'   # sequential plan: the same code a cluster would run, in this process
#'   old <- future::plan(future::sequential)
#'   p <- predict(fit, roll$x[401:600, ], chunk_size = 64, parallel = TRUE)
#'   print(identical(a, p))
#'   future::plan(old)
#' }
NULL

# Attributes a prediction may carry with one value per row (combined across
# chunks by concatenation); every other attribute must be the same for all
# chunks.
per_row_attributes <- c("fallback", "certified", "far", "snapped", "labels", "confidence")

check_chunk_size <- function(chunk_size, arg = "chunk_size") {
  if (is.null(chunk_size)) return(NULL)
  cs <- check_number(chunk_size, arg, lower = 1, integer = TRUE)
  if (cs > .Machine$integer.max) abort_input(arg, "must be at most 2^31 - 1.")
  as.integer(cs)
}

# Row ranges (list of integer vectors) of m rows in blocks of `size`.
chunk_rows <- function(m, size) {
  if (is.null(size) || size >= m) return(list(seq_len(m)))
  starts <- seq.int(1L, m, by = size)
  lapply(starts, function(s) s:min(m, s + size - 1L))
}

# Apply fun(model, x[rows, ], ...) over the chunks of x (serially, or on the
# future plan one round of one chunk per worker at a time) and assemble one
# matrix with the per-row attributes combined. Only the chunks of the
# current round are copied out of x. `fun` must be a function of the
# package namespace (it is sent to workers by reference) that treats rows
# independently.
run_chunked <- function(model, x, fun, args = list(), chunk_size = NULL, parallel = FALSE,
                        verbose = FALSE, label = "predict") {
  rows <- chunk_rows(nrow(x), chunk_size)
  if (length(rows) == 1L && !parallel) return(do.call(fun, c(list(model, x), args)))
  session <- if (parallel) {
    parallel_open(model, verbose = verbose, label = label, max_workers = length(rows))
  } else {
    NULL
  }
  per_round <- if (parallel) session$n_workers else 1L
  acc <- chunk_accumulator(nrow(x))
  for (start in seq.int(1L, length(rows), by = per_round)) {
    ids <- start:min(length(rows), start + per_round - 1L)
    blocks <- lapply(rows[ids], function(r) x[r, , drop = FALSE])
    parts <- if (parallel) {
      parallel_run(session, blocks, fun, args, verbose = verbose)
    } else {
      list(do.call(fun, c(list(model, blocks[[1L]]), args)))
    }
    for (i in seq_along(ids)) acc$add(parts[[i]], rows[[ids[i]]])
  }
  acc$result()
}

# Collects chunk results into one m-row matrix: coordinates in place, per-row
# attributes by concatenation (in row order), other attributes checked to be
# the same in every chunk.
chunk_accumulator <- function(m) {
  y <- NULL
  per_row <- list()
  fixed <- list()
  list(
    add = function(part, rows) {
      if (is.null(y)) y <<- matrix(0, m, ncol(part))
      y[rows, ] <<- part
      at <- attributes(part)
      for (nm in setdiff(names(at), c("dim", "dimnames"))) {
        if (nm %in% per_row_attributes) {
          per_row[[nm]] <<- c(per_row[[nm]], list(at[[nm]]))
        } else if (is.null(fixed[[nm]])) {
          fixed[[nm]] <<- list(at[[nm]])
        } else if (!identical(fixed[[nm]][[1L]], at[[nm]])) {
          abort_numerical(sprintf("internal error: attribute \"%s\" differs between chunks.", nm))
        }
      }
    },
    result = function() {
      for (nm in names(fixed)) attr(y, nm) <- fixed[[nm]][[1L]]
      for (nm in names(per_row)) attr(y, nm) <- do.call(c, per_row[[nm]])
      y
    })
}

# ---- future backend ---------------------------------------------------------

# Stop with class manifoldOOS_missing_package unless the suggested packages
# `pkgs` are installed; `what` says what needs them, `arg` is blamed.
# `installed` (a function of a package name) is replaceable for tests.
require_packages <- function(pkgs, what, arg,
                             installed = function(p) requireNamespace(p, quietly = TRUE)) {
  missing <- pkgs[!vapply(pkgs, installed, NA)]
  if (length(missing)) {
    stop(structure(
      class = c("manifoldOOS_missing_package", "manifoldOOS_input_error", "manifoldOOS_error",
                "error", "condition"),
      list(message = sprintf(paste0("%s needs the package%s %s (install.packages(c(%s)) ",
                                    "or the Debian package%s %s)."),
                             what, if (length(missing) > 1L) "s" else "",
                             paste(sprintf("'%s'", missing), collapse = " and "),
                             paste(sprintf("\"%s\"", missing), collapse = ", "),
                             if (length(missing) > 1L) "s" else "",
                             paste(sprintf("r-cran-%s", tolower(missing)), collapse = " and ")),
           call = NULL, arg = arg, packages = missing)))
  }
  invisible(TRUE)
}

require_future <- function(installed = function(p) requireNamespace(p, quietly = TRUE)) {
  require_packages(c("future", "future.apply"), "`parallel` = TRUE", "parallel", installed)
}

# Worker-side one-entry cache of the model of the current parallel call.
worker_cache <- new.env(parent = emptyenv())
# Calling-side count of how often a model was sent (read by tests and bench).
ship_log <- new.env(parent = emptyenv())
ship_log$sent <- 0L

worker_install <- function(i, key, model) {
  worker_cache$key <- key
  worker_cache$model <- model
  paste(Sys.info()[["nodename"]], Sys.getpid())
}

worker_threads <- function() {
  getOption("manifoldOOS.worker_threads", 1L)
}

# One chunk on a worker: the model comes from the cache (model = NULL) or
# with the future (a re-send). A cache miss returns a marker.
worker_chunk <- function(block, key, fun, args, threads, model = NULL) {
  if (is.null(model)) {
    if (!identical(worker_cache$key, key)) return(structure(list(), class = "mo_cache_miss"))
    model <- worker_cache$model
  }
  old <- options(manifoldOOS.threads = threads)
  on.exit(options(old), add = TRUE)
  do.call(fun, c(list(model, block), args))
}

# Send the model to every worker of the plan once; returns the session used
# by parallel_run().
parallel_open <- function(model, verbose = FALSE, label = "predict", max_workers = Inf) {
  require_future()
  threads <- check_threads(worker_threads(), "manifoldOOS.worker_threads")
  key <- paste(Sys.getpid(), format(Sys.time(), "%OS6"),
               paste(sample(c(letters, 0:9), 12, TRUE), collapse = ""))
  nw <- max(1L, as.integer(future::nbrOfWorkers()))
  nw <- as.integer(min(nw, max_workers))
  t0 <- mo_progress(verbose, "%s: sending the model to %d worker(s) of the future plan", label, nw)
  hosts <- future.apply::future_lapply(seq_len(nw), worker_install, key = key, model = model,
                                       future.scheduling = Inf, future.seed = NULL)
  ship_log$sent <- ship_log$sent + nw
  mo_progress(verbose, "%s: model held by %d distinct worker(s)", label,
              length(unique(unlist(hosts))), start = t0)
  list(key = key, model = model, threads = threads, n_workers = nw, label = label)
}

# Run fun(model, block, args...) for every block on the workers of a session.
parallel_run <- function(session, blocks, fun, args, verbose = FALSE) {
  key <- session$key
  threads <- session$threads
  parts <- future.apply::future_lapply(blocks, worker_chunk, key = key, fun = fun, args = args,
                                       threads = threads, future.seed = NULL)
  miss <- which(vapply(parts, inherits, NA, "mo_cache_miss"))
  if (length(miss)) {
    # those workers do not hold the model: it travels with each of these chunks
    parts[miss] <- future.apply::future_lapply(blocks[miss], worker_chunk, key = key, fun = fun,
                                               args = args, threads = threads,
                                               model = session$model,
                                               future.scheduling = Inf, future.seed = NULL)
    ship_log$sent <- ship_log$sent + length(miss)
    mo_progress(verbose, "%s: model re-sent with %d chunk(s)", session$label, length(miss))
  }
  parts
}

