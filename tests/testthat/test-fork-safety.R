# Forked workers after threaded code in the parent: parallel::mclapply(),
# future's multicore plan and foreach with a forked doParallel cluster must
# return (not hang on GNU OpenMP's thread pool) and give the serial results.
# Everything runs in a child R process with a time limit, so that a hang
# fails the test instead of stalling the suite.

skip_on_os("windows")
skip_if_not_installed("callr")

# Runs `fun` in a fresh R session with this test's library path; a hang (or a
# crash) is an error of class callr_timeout_error / callr_error.
run_child <- function(fun, timeout = 240) {
  callr::r(fun, libpath = .libPaths(), timeout = timeout,
           env = c(callr::rcmd_safe_env(), OMP_THREAD_LIMIT = "", OMP_NUM_THREADS = "2"))
}

fork_check <- function() {
  library(manifoldOOS)
  options(manifoldOOS.threads = 2L)
  set.seed(1)
  roll <- swiss_roll(260, seed = 3)
  x <- roll$x[1:200, ]
  new <- roll$x[201:260, ]
  fitters <- list(
    ltsa = function() ltsa(x, ndim = 2, k = 10),
    lgrm = function() lgrm(x, ndim = 2, k = 10),
    isomap = function() isomap(x, ndim = 2, k = 10),
    laplacian_eigenmaps = function() laplacian_eigenmaps(x, ndim = 2, k = 10),
    lle = function() lle(x, ndim = 2, k = 10)
  )
  # threaded fits in the parent (this is what broke the forked children)
  fits <- lapply(fitters, function(f) f())
  serial <- lapply(fits, function(f) predict(f, new))
  out <- list(max_threads = max_threads(), serial = serial)
  # every fit refitted and predicted in each forked child
  work <- function(nm) {
    fit <- fitters[[nm]]()
    list(refit = embedding(fit), pred = predict(fits[[nm]], new),
         threads = max_threads())
  }
  out$mclapply <- parallel::mclapply(names(fits), work, mc.cores = 2)
  if (requireNamespace("future.apply", quietly = TRUE) &&
      future::supportsMulticore()) {
    old <- future::plan(future::multicore, workers = 2)
    out$future <- future.apply::future_lapply(names(fits), work, future.seed = NULL)
    future::plan(old)
  }
  if (requireNamespace("doParallel", quietly = TRUE) &&
      requireNamespace("foreach", quietly = TRUE)) {
    doParallel::registerDoParallel(cores = 2)  # forked workers (mclapply) on unix
    `%dopar%` <- foreach::`%dopar%`
    out$foreach <- foreach::foreach(nm = names(fits)) %dopar% work(nm)
    doParallel::stopImplicitCluster()
  }
  # opting back in: the forked child sees the option set in the parent
  options(manifoldOOS.fork_threads = 2L)
  out$opt_in <- parallel::mclapply(1:2, function(i) max_threads(), mc.cores = 2)
  options(manifoldOOS.fork_threads = NULL)
  out$fits_embedding <- lapply(fits, embedding)
  out
}

res <- NULL
test_that("forked workers after a threaded fit do not hang (child R process, time limit)", {
  res <<- run_child(fork_check)
  expect_type(res, "list")
})

# The results of the forked children (one per fit, in the order of
# res$serial) equal the parent's predictions and refits; with `threads` the
# children also ran single-threaded.
expect_children_serial <- function(children, threads = FALSE) {
  for (i in seq_along(children)) {
    nm <- names(res$serial)[i]
    r <- children[[i]]
    expect_false(inherits(r, "try-error"), info = nm)
    expect_identical(r$pred, res$serial[[nm]], info = nm)
    expect_identical(r$refit, res$fits_embedding[[nm]], info = nm)
    if (threads) expect_identical(r$threads, 1L, info = nm)
  }
}

test_that("mclapply(): fits and predictions in forked children equal the serial ones", {
  skip_if(is.null(res))
  expect_length(res$mclapply, 5L)
  expect_children_serial(res$mclapply, threads = TRUE)
})

test_that("future_lapply() under plan(multicore): equal to the serial results", {
  skip_if(is.null(res))
  skip_if(is.null(res$future), "future multicore not available")
  expect_children_serial(res$future)
})

test_that("foreach + doParallel (forked): equal to the serial results", {
  skip_if(is.null(res))
  skip_if(is.null(res$foreach), "foreach / doParallel not installed")
  expect_children_serial(res$foreach)
})

test_that("options(manifoldOOS.fork_threads) lets a forked child use more threads", {
  skip_if(is.null(res))
  # the limit is applied (at most the parent's count; 1 without OpenMP)
  expect_identical(unlist(res$opt_in), rep(min(2L, res$max_threads), 2L))
})

test_that("a bad manifoldOOS.fork_threads is a classed error in a forked child", {
  out <- run_child(function() {
    library(manifoldOOS)
    options(manifoldOOS.fork_threads = -1)
    parallel::mclapply(1, function(i) {
      tryCatch(max_threads(), manifoldOOS_error = function(e) class(e))
    }, mc.cores = 1)
  }, timeout = 120)
  # mc.cores = 1 runs in this process: no fork, no error
  expect_type(out[[1]], "integer")
  out <- run_child(function() {
    library(manifoldOOS)
    options(manifoldOOS.fork_threads = -1)
    parallel::mclapply(1:2, function(i) {
      tryCatch(max_threads(), manifoldOOS_error = function(e) class(e))
    }, mc.cores = 2)
  }, timeout = 120)
  expect_true("manifoldOOS_input_error" %in% out[[1]])
})
