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
#' * `parallel = TRUE`: the chunks are sent as futures ([future::future()])
#'   to the workers of the [future::plan()] the user has
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
#' **Scheduling.** One chunk is in flight per worker, and a worker gets its
#' next chunk as soon as its previous one is back (there are no rounds in
#' which every worker waits for the slowest). Meanwhile the calling process
#' copies out (or, in [predict_file()], reads and parses) the next chunk and
#' assembles the results in row order, so at most one chunk per worker is
#' held in the calling process besides the input and the result.
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
# future plan, one chunk in flight per worker) and assemble one
# matrix with the per-row attributes combined. Only the chunks in flight
# (one per worker) are copied out of x. `fun` must be a function of the
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
  acc <- chunk_accumulator(nrow(x))
  if (parallel) {
    i <- 0L
    parallel_stream(session, function() {
      if (i >= length(rows)) return(NULL)
      i <<- i + 1L
      x[rows[[i]], , drop = FALSE]
    }, function(part, id) acc$add(part, rows[[id]]), fun, args, verbose = verbose)
  } else {
    for (r in rows) acc$add(do.call(fun, c(list(model, x[r, , drop = FALSE]), args)), r)
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
  validate_fit(model, arg = "object")
  worker_cache$key <- key
  worker_cache$model <- model
  paste(Sys.info()[["nodename"]], Sys.getpid())
}

worker_threads <- function() {
  getOption("manifoldOOS.worker_threads", 1L)
}

# One chunk on a worker: the model comes from the cache (model = NULL) or
# with the future (a re-send; checked here, as worker_install() checks the
# cached one). A cache miss returns a marker. `hook` (tests only; from
# options(manifoldOOS.chunk_hook) on the calling side) runs first on the block.
worker_chunk <- function(block, key, fun, args, threads, model = NULL, hook = NULL) {
  if (is.function(hook)) hook(block)
  if (is.null(model)) {
    if (!identical(worker_cache$key, key)) return(structure(list(), class = "manifold_cache_miss"))
    model <- worker_cache$model
  } else {
    validate_fit(model, arg = "object")
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
  list(key = key, model = model, threads = threads, n_workers = nw, label = label,
       hook = getOption("manifoldOOS.chunk_hook"))
}

# A future that could not return its chunk (its worker died, the connection
# was lost, ...): the package's error, naming the chunk (rows a..b of the
# input) and saying that nothing was returned or written.
abort_worker <- function(e, label, chunk, rows) {
  file <- grepl("^predict_file", label)
  stop(structure(
    class = c("manifoldOOS_worker_error", "manifoldOOS_error", "error", "condition"),
    list(message = sprintf(paste0(
      "%s: a worker of the future plan failed on chunk %d (rows %.0f..%.0f of the %s), ",
      "so the call was abandoned: %s. %s Underlying error: %s"),
      label, chunk, rows[1L], rows[2L], if (file) "input file's data rows" else "new data",
      if (file) "nothing was written (no output file was created or changed)" else
        "no result was returned",
      "Check the workers of the plan (memory, a crash in another package) and retry.",
      conditionMessage(e)),
      call = NULL, chunk = chunk, rows = rows, parent = e)))
}

# Run fun(model, block, args...) for every block of a list on the workers of
# a session; the results come back in the order of the blocks.
parallel_run <- function(session, blocks, fun, args, verbose = FALSE) {
  out <- vector("list", length(blocks))
  i <- 0L
  parallel_stream(session, function() {
    if (i >= length(blocks)) return(NULL)
    i <<- i + 1L
    blocks[[i]]
  }, function(part, id) out[[id]] <<- part, fun, args, verbose = verbose)
  out
}

# The streaming scheduler: keeps one chunk in flight per worker and hands a
# worker its next chunk as soon as its previous one is back, so that a slow
# worker never holds up the others and the calling process prepares the next
# chunk (copy, parse, send) while the workers compute. `produce()` returns the
# next block or NULL when there is none; `consume(part, id)` receives the
# results strictly in block order (at most one result per worker waits for
# an earlier one). A worker whose cache does not hold the model (a plan that
# replaced its workers, or another call in between) gets the model with the
# chunk.
parallel_stream <- function(session, produce, consume, fun, args, verbose = FALSE) {
  key <- session$key
  threads <- session$threads
  cap <- max(1L, session$n_workers)
  hook <- session$hook
  launch <- function(block, model = NULL) {
    future::future(
      quote(worker_chunk(block, key, fun, args, threads, model, hook)),
      substitute = FALSE,
      globals = list(worker_chunk = worker_chunk, block = block, key = key, fun = fun, args = args,
                     threads = threads, model = model, hook = hook),
      packages = "manifoldOOS", seed = NULL)
  }
  rows_seen <- 0
  pending <- list()      # in flight: list(id, block, future)
  done <- list()         # finished but waiting for an earlier id (by id)
  next_id <- 1L          # next block to read
  next_out <- 1L         # next id to hand to consume()
  exhausted <- FALSE
  resent <- 0L
  repeat {
    while (!exhausted && length(pending) < cap) {
      block <- produce()
      if (is.null(block)) {
        exhausted <- TRUE
        break
      }
      rows <- c(rows_seen + 1, rows_seen + NROW(block))
      rows_seen <- rows_seen + NROW(block)
      pending[[length(pending) + 1L]] <- list(id = next_id, block = block, rows = rows,
                                              f = launch(block))
      next_id <- next_id + 1L
    }
    if (!length(pending)) break
    # wait for any chunk (not the oldest: a slow chunk must not hold up the
    # worker that finished first); resolved() only polls
    repeat {
      # a future whose worker died may fail in resolved(): value() reports it
      ready <- which(vapply(pending, function(p) {
        tryCatch(isTRUE(future::resolved(p$f)), FutureError = function(e) TRUE)
      }, NA))
      if (length(ready)) break
      Sys.sleep(0.005)
    }
    for (j in rev(ready)) {
      p <- pending[[j]]
      part <- tryCatch(future::value(p$f),
                       FutureError = function(e) abort_worker(e, session$label, p$id, p$rows))
      pending[[j]] <- NULL
      if (inherits(part, "manifold_cache_miss")) {
        pending[[length(pending) + 1L]] <- list(id = p$id, block = p$block, rows = p$rows,
                                                f = launch(p$block, session$model))
        resent <- resent + 1L
        ship_log$sent <- ship_log$sent + 1L
        next
      }
      done[[as.character(p$id)]] <- part
    }
    while (!is.null(done[[as.character(next_out)]])) {
      consume(done[[as.character(next_out)]], next_out)
      done[[as.character(next_out)]] <- NULL
      next_out <- next_out + 1L
    }
  }
  if (resent) mo_progress(verbose, "%s: model re-sent with %d chunk(s)", session$label, resent)
  invisible(next_out - 1L)
}
