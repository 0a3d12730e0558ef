# predict(..., parallel = TRUE) under real future plans: identical to the
# serial call, and the model is sent once per worker.

skip_if_not_installed("future")
skip_if_not_installed("future.apply")

d <- registry_data()
sel <- c("isomap", "lle", "laplacian_eigenmaps", "ltsa", "lgrm", "nppe", "plml", "kpca", "sosi")
fits <- registry_fits(d, names = c(sel, "pca"))

check_parallel_equals_serial <- function(label) {
  for (nm in sel) {
    fit <- fits[[nm]]
    for (rule in unique(c(fit$oos$available, "goose", "sparse", "krr"))) {
      serial <- suppressWarnings(predict(fit, d$new, method = rule, X = d$train))
      par <- suppressWarnings(predict(fit, d$new, method = rule, X = d$train, chunk_size = 3,
                                      parallel = TRUE))
      expect_identical(par, serial, info = sprintf("%s: %s / %s", label, nm, rule))
    }
  }
  map <- oos_map(d$train, embedding(fits$isomap), method = "sparse")
  expect_identical(predict(map, d$new, chunk_size = 2, parallel = TRUE), predict(map, d$new),
                   info = label)
  # no chunk_size: the rows are split over the workers
  expect_identical(predict(fits$lgrm, d$new, parallel = TRUE), predict(fits$lgrm, d$new),
                   info = label)
}

test_that("parallel == serial under a 2-worker cluster plan on localhost", {
  with_plan(future::cluster, workers = c("localhost", "localhost"), {
    expect_identical(future::nbrOfWorkers(), 2L)
    check_parallel_equals_serial("cluster")
  })
})

test_that("parallel == serial under a 2-worker multisession plan; model sent once per worker", {
  with_plan(future::multisession, workers = 2, {
    check_parallel_equals_serial("multisession")
    # 8 chunks on 2 workers: the fit travels twice (once per worker), not 8 times
    log <- get("ship_log", envir = asNamespace("manifoldOOS"))
    before <- log$sent
    msgs <- character()
    y <- withCallingHandlers(
      predict(fits$lgrm, d$new, chunk_size = 2, parallel = TRUE, verbose = TRUE),
      message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") })
    expect_identical(log$sent - before, 2L)
    expect_true(any(grepl("model held by 2 distinct worker", msgs)))
    expect_false(any(grepl("re-sent", msgs)))
    expect_identical(y, predict(fits$lgrm, d$new))
  })
})

test_that("workers run the compiled code with manifoldOOS.worker_threads threads", {
  # the option is read on the calling side and set on the worker around each chunk
  with_plan(future::sequential, {
    old <- options(manifoldOOS.worker_threads = 1L, manifoldOOS.threads = 0L)
    on.exit(options(old), add = TRUE)
    seen <- NULL
    fn <- get("worker_chunk", envir = asNamespace("manifoldOOS"))
    probe <- function(model, block) matrix(getOption("manifoldOOS.threads"), nrow(block), 1)
    out <- fn(d$new[1:3, ], key = "none", fun = probe, args = list(), threads = 1L, model = fits$pca)
    expect_identical(out, matrix(1L, 3, 1))
    expect_identical(getOption("manifoldOOS.threads"), 0L)
    options(manifoldOOS.worker_threads = -1)
    e <- tryCatch(predict(fits$pca, d$new, parallel = TRUE), manifoldOOS_input_error = function(e) e)
    expect_identical(e$arg, "manifoldOOS.worker_threads")
  })
})

test_that("a worker without the model gets it with the chunk (cache miss path)", {
  with_plan(future::sequential, {
    ns <- asNamespace("manifoldOOS")
    session <- get("parallel_open", envir = ns)(fits$lle)
    # another parallel call replaces the one-entry cache: the session's key is gone
    get("parallel_open", envir = ns)(fits$pca)
    log <- get("ship_log", envir = ns)
    before <- log$sent
    blocks <- list(d$new[1:4, ], d$new[5:9, ])
    parts <- get("parallel_run", envir = ns)(session, blocks, get("predict_native_rows", envir = ns),
                                            list(method = "reconstruction", dots = list()))
    expect_identical(log$sent - before, 2L)
    expect_identical(unname(rbind(parts[[1]], parts[[2]])),
                     unname(matrix(predict(fits$lle, d$new[1:9, ]), 9)))
  })
})

test_that("parallel = TRUE without future gives a classed error naming the packages", {
  ns <- asNamespace("manifoldOOS")
  e <- tryCatch(
    get("require_future", envir = ns)(installed = function(p) p != "future.apply"),
    manifoldOOS_missing_package = function(e) e)
  expect_s3_class(e, "manifoldOOS_missing_package")
  expect_s3_class(e, "manifoldOOS_input_error")
  expect_identical(e$arg, "parallel")
  expect_match(conditionMessage(e), "future.apply")
  expect_identical(e$packages, "future.apply")
  expect_true(get("require_future", envir = ns)())
})

test_that("the scheduler streams: a slow chunk does not hold up the other worker; order is kept", {
  with_plan(future::multisession, workers = 2, {
    ns <- asNamespace("manifoldOOS")
    session <- get("parallel_open", envir = ns)(fits$pca)
    # chunk 1 sleeps; chunks 2..6 are immediate. Each returns its worker's pid
    # and its own first value, so both the placement and the order are visible.
    probe <- function(model, block) {
      if (block[1, 1] == 1) Sys.sleep(3)
      cbind(block[, 1], Sys.getpid())
    }
    environment(probe) <- baseenv()
    blocks <- lapply(1:6, function(i) matrix(i, 2, 1))
    seen <- integer()
    got <- list()
    get("parallel_stream", envir = ns)(session, local({
      i <- 0L
      function() {
        if (i >= length(blocks)) return(NULL)
        i <<- i + 1L
        blocks[[i]]
      }
    }), function(part, id) {
      seen <<- c(seen, id)
      got[[id]] <<- part
    }, probe, list())
    expect_identical(seen, 1:6)
    expect_identical(vapply(got, function(g) g[1, 1], 0), as.numeric(1:6))
    pids <- vapply(got, function(g) g[1, 2], 0)
    # with rounds of two chunks, chunk 3 would wait for chunk 1's worker
    expect_true(all(pids[2:6] == pids[2]))
    expect_false(pids[1] == pids[2])
  })
})
