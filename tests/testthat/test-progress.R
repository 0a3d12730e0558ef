# Progress messages (verbose = TRUE / FALSE, option manifoldOOS.verbose) and
# prompt interruption of long compiled computations.

pg_roll <- swiss_roll(160, seed = 21)
pg_X <- pg_roll$x[1:120, ]
pg_new <- pg_roll$x[121:160, ]
pg_lab <- factor(rep(c("a", "b", "c"), each = 40))
pg_sle <- supervised_le(pg_X, pg_lab, 2)

# Every function with a verbose argument, called on small data; those named in
# pg_knn8 as f(pg_X, 2, k = 8, verbose = v).
pg_knn8 <- c("lle", "ltsa", "laplacian_eigenmaps", "lpp", "olpp", "npe", "onpp", "spectral_regression",
             "klpp", "nppe", "ke_lle")
pg_calls <- c(lapply(setNames(nm = pg_knn8), function(f) {
  fun <- match.fun(f)
  function(v) fun(pg_X, 2, k = 8, verbose = v)
}), list(
  isomap = function(v) isomap(pg_X, 2, k = 8, verbose = v),
  landmark_isomap = function(v) isomap(pg_X, 2, k = 8, landmarks = 20, seed = 1, verbose = v),
  kpca = function(v) kpca(pg_X, 2, verbose = v),
  mds = function(v) mds(pg_X, 2, verbose = v),
  laplacian_eigenmaps_full = function(v) laplacian_eigenmaps(pg_X, 2, k = 8, graph = "full", verbose = v),
  ksr = function(v) spectral_regression(pg_X, 2, k = 8, kernel = "rbf", verbose = v),
  oos_map = function(v) oos_map(pg_X, pg_roll$truth[1:120, ], method = "krr", verbose = v),
  lgrm = function(v) lgrm(pg_X, 2, k = 10, verbose = v),
  lgrm_nystrom = function(v) lgrm(pg_X, 2, k = 10, landmarks = 30, seed = 1, verbose = v),
  plml = function(v) plml(pg_X, 2, k = 10, seed = 1, verbose = v),
  supervised_le = function(v) supervised_le(pg_X, pg_lab, 2, verbose = v),
  fisher_embedding = function(v) fisher_embedding(pg_X, pg_lab, 2, verbose = v),
  sosi = function(v) sosi(pg_sle, X_unlabeled = pg_new, sigma_mode = "ratio", n_grid = 8, n_iter = 3, verbose = v)
))

# Messages (and standard output) produced by f(v); fails on any warning.
pg_capture <- function(f, v) {
  msgs <- list()
  out <- utils::capture.output(
    value <- withCallingHandlers(f(v), message = function(m) {
      msgs[[length(msgs) + 1L]] <<- m
      invokeRestart("muffleMessage")
    })
  )
  list(value = value, messages = msgs, stdout = out)
}

test_that("verbose = TRUE reports time-stamped stages through message() only", {
  for (nm in names(pg_calls)) {
    r <- pg_capture(pg_calls[[nm]], TRUE)
    txt <- vapply(r$messages, conditionMessage, "")
    expect_true(length(txt) >= 2L, info = nm)
    expect_true(all(vapply(r$messages, inherits, TRUE, "manifoldOOS_progress")), info = nm)
    expect_true(all(grepl("^[0-9]{2}:[0-9]{2}:[0-9]{2} ", txt)), info = nm)
    expect_true(any(grepl("done|built", txt)), info = nm)
    expect_identical(r$stdout, character(0), info = nm)
  }
  # the eigen-solve stage names the solver that was used
  r <- pg_capture(pg_calls$lle, TRUE)
  txt <- vapply(r$messages, conditionMessage, "")
  expect_true(any(grepl(paste0("eigen-solve done with ", r$value$solver$method), txt, fixed = TRUE)))
  r <- pg_capture(pg_calls$isomap, TRUE)
  txt <- vapply(r$messages, conditionMessage, "")
  expect_true(any(grepl(r$value$solver, txt, fixed = TRUE)))
})

test_that("verbose = FALSE prints nothing and gives the same result", {
  for (nm in names(pg_calls)) {
    q <- pg_capture(pg_calls[[nm]], FALSE)
    expect_length(q$messages, 0L)
    expect_identical(q$stdout, character(0), info = nm)
    v <- suppressMessages(pg_calls[[nm]](TRUE))
    # same numbers whether or not the stages are reported
    if (inherits(v, "manifold_fit")) {
      expect_equal(embedding(v), embedding(q$value), info = nm)
    } else {
      expect_equal(predict(v, pg_new), predict(q$value, pg_new), info = nm)
    }
  }
  expect_silent(isomap(pg_X, 2, k = 8))
})

test_that("the manifoldOOS.verbose option sets the default; suppressMessages() silences", {
  old <- options(manifoldOOS.verbose = TRUE)
  on.exit(options(old))
  r <- pg_capture(function(v) ltsa(pg_X, 2, k = 8), NULL)
  expect_true(length(r$messages) >= 2L)
  expect_true(all(vapply(r$messages, inherits, TRUE, "manifoldOOS_progress")))
  r <- pg_capture(function(v) predict(r$value, pg_new), NULL)
  expect_true(any(grepl("predict(LTSA fit): 40 new points", vapply(r$messages, conditionMessage, ""),
                        fixed = TRUE)))
  expect_silent(suppressMessages(ltsa(pg_X, 2, k = 8)))
  expect_silent(ltsa(pg_X, 2, k = 8, verbose = FALSE))
})

test_that("predict() reports native and generic rules; generic ones show the map stages", {
  fit <- lle(pg_X, 2, k = 8)
  r <- pg_capture(function(v) predict(fit, pg_new, verbose = v), TRUE)
  txt <- vapply(r$messages, conditionMessage, "")
  expect_true(any(grepl("rule \"reconstruction\" (native)", txt, fixed = TRUE)))
  r2 <- pg_capture(function(v) predict(fit, pg_new, method = "goose", X = pg_X, verbose = v), TRUE)
  txt2 <- vapply(r2$messages, conditionMessage, "")
  expect_true(any(grepl("oos_map(\"goose\")", txt2, fixed = TRUE)))
  expect_true(any(grepl("predict(oos_map \"goose\"): done", txt2, fixed = TRUE)))
  expect_identical(r2$value, predict(fit, pg_new, method = "goose", X = pg_X))
  expect_silent(predict(fit, pg_new, method = "goose", X = pg_X, verbose = FALSE))
  m <- oos_map(pg_X, embedding(fit), method = "lvm")
  r3 <- pg_capture(function(v) predict(m, pg_new, verbose = v), TRUE)
  expect_length(r3$messages, 2L)
})

test_that("a bad verbose is a classed error naming it", {
  expect_input_error(isomap(pg_X, 2, verbose = NA), "verbose")
  expect_input_error(lle(pg_X, 2, verbose = "yes"), "verbose")
  expect_input_error(lpp(pg_X, 2, verbose = c(TRUE, FALSE)), "verbose")
  expect_input_error(oos_map(pg_X, pg_roll$truth[1:120, ], verbose = 1), "verbose")
  fit <- pca(pg_X, 2)
  expect_input_error(predict(fit, pg_new, verbose = NA), "verbose")
})

test_that("a time limit stops a long compiled computation inside the core; the session stays usable", {
  old <- options(manifoldOOS.threads = 2)
  on.exit(options(old), add = TRUE)
  on.exit(setTimeLimit(elapsed = Inf), add = TRUE)
  ref <- isomap(pg_X, 2, k = 8)
  # all-pairs geodesic distances (threaded Dijkstra) on 4000 points: about
  # 1.4 s here, polling for interrupts throughout (a dense LAPACK call would
  # not poll, so it is not used for this test)
  gr <- neighbor_graph(swiss_roll(4000, seed = 22)$x, k = 10)
  err <- tryCatch({
    setTimeLimit(elapsed = 0.2, transient = TRUE)
    geodesic_distances(gr)
    NULL
  }, error = function(e) e)
  if (is.null(err)) {
    setTimeLimit(elapsed = Inf)
    skip("the geodesic distances finished within the 0.2 s limit on this machine")
  }
  setTimeLimit(elapsed = Inf)
  expect_s3_class(err, "error")
  # the limit was noticed by the compiled code's interrupt polling (not after
  # the fit returned): the core stopped and reported it as a classed error
  expect_s3_class(err, "manifoldOOS_error")
  expect_match(conditionMessage(err), "polled for interrupts")
  # later fits work and give the same result as before the interruption
  again <- isomap(pg_X, 2, k = 8)
  expect_identical(embedding(again), embedding(ref))
  expect_equal(dim(embedding(ltsa(pg_X, 2, k = 8))), c(120L, 2L))
})
