# Benchmarks for LGRM (issue 6; sourced by bench/run.R: `Rscript bench/run.R lgrm`).
# Elapsed and CPU seconds are printed (the machine may be shared).
#   * predict() of 100,000 new points with an exact n = 1000 fit (rows/s);
#   * exact fit of a 5000-point Swiss roll (paper parameters: k = 10, sigma = 10,
#     mu = 1e-5, gamma = 1e-4; run last, the slowest part) and predict() of
#     100,000 new points with it (rows/s);
#   * the Nystrom path: n = 100,000 with r = 500 landmarks (fit time, predict
#     rows/s) and its agreement with the exact fit of a 3000-point subsample
#     (Procrustes error of the two maps on 2000 fresh points, and affine R^2
#     against the generating coordinates);
#   * peak memory (VmHWM) of the exact path at n = 5000, and at n = 10,000
#     when MANIFOLDOOS_BENCH_N10K=1 (about 30 min with the reference BLAS).
# No R package implements LGRM (dimRed, vegan, kernlab, Rdimtools: none), so
# there is no peer for the fit; for the out-of-sample step, LTSA's
# reconstruction map (this package) on the same n is timed as a reference.
# Rdimtools cannot be installed on this R 4.2.2.
local({
  cat("load:", system("uptime", intern = TRUE), "\n")
  cat("BLAS:", extSoftVersion()[["BLAS"]], "\n")
  cat("(the machine is shared with other jobs: timings are indicative)\n")
  vmhwm <- function() {
    s <- tryCatch(readLines("/proc/self/status"), error = function(e) character(0))
    l <- grep("^VmHWM", s, value = TRUE)
    if (!length(l)) return(NA_real_)
    as.numeric(gsub("[^0-9]", "", l)) / 1024  # MB
  }
  # elapsed and CPU seconds of one evaluation (the machine is shared: CPU time
  # is the better measure of our own cost)
  timed2 <- function(expr) {
    e <- substitute(expr); env <- parent.frame()
    gc(FALSE)
    p0 <- proc.time()
    eval(e, env)
    p1 <- proc.time() - p0
    c(elapsed = p1[["elapsed"]], cpu = p1[["user.self"]] + p1[["sys.self"]])
  }
  rows <- list()
  add <- function(case, impl, seconds) {
    rows[[length(rows) + 1L]] <<- data.frame(case = case, impl = impl, seconds = seconds)
  }
  pars <- list(ndim = 2, k = 10, sigma = 10, mu = 1e-5, gamma = 1e-4)

  new <- swiss_roll(100000L, convention = "wittman", seed = 2)
  # ---- predict rate of an exact fit of the paper's size (n = 1000) -------------------------
  f1 <- do.call(lgrm, c(list(roll1 <- swiss_roll(1000L, convention = "wittman", seed = 6)$x), pars))
  tp1 <- timed2(y1 <- predict(f1, new$x))
  add("predict 100,000 (exact fit n=1000)", "manifoldOOS", tp1[["elapsed"]])
  cat(sprintf("predict 100,000 points with an exact n = 1000 fit: %.2f s elapsed (%.1f s CPU) = %.0f rows/s\n",
              tp1[["elapsed"]], tp1[["cpu"]], 1e5 / tp1[["elapsed"]]))
  rm(f1)

  # ---- Nystrom path, n = 100,000, r = 500 --------------------------------------------
  big <- swiss_roll(100000L, convention = "wittman", seed = 3)
  tn <- timed2(fn <- do.call(lgrm, c(list(big$x, landmarks = 500, seed = 1), pars)))
  t_nys <- tn[["elapsed"]]
  add("LGRM Nystrom fit n=100000 r=500", "manifoldOOS", t_nys)
  cat(sprintf("Nystrom fit n = 100,000, r = 500: %.1f s elapsed, %.1f s CPU (target < 60 s); solver %s; affine R^2 %.5f\n",
              t_nys, tn[["cpu"]], fn$solver$method, affine_r2(embedding(fn), big$truth_isometric)))
  tpn <- timed2(yn <- predict(fn, new$x))
  t_pn <- tpn[["elapsed"]]
  add("predict 100,000 (Nystrom fit r=500)", "manifoldOOS", t_pn)
  cat(sprintf("predict 100,000 points with the Nystrom fit: %.2f s elapsed (%.1f s CPU) = %.0f rows/s\n",
              t_pn, tpn[["cpu"]], 1e5 / t_pn))
  set.seed(7)
  sub <- sort(sample.int(100000L, 3000L))
  f3 <- do.call(lgrm, c(list(big$x[sub, ]), pars))
  test <- swiss_roll(2000L, convention = "wittman", seed = 4)
  y3 <- predict(f3, test$x)
  yN <- predict(fn, test$x)
  pd <- procrustes_dist(yN, y3, type = "matlab_d")
  cat(sprintf(paste0("Nystrom (n = 100,000, r = 500) vs exact fit of a 3000-point subsample, maps on 2000 fresh points: ",
                     "Procrustes d = %.2e; affine R^2 to (s, h): Nystrom %.5f, exact-3000 %.5f\n"),
              pd, affine_r2(yN, test$truth_isometric), affine_r2(y3, test$truth_isometric)))
  # gamma is absolute (compared with squared local singular values, which shrink
  # with the sampling density): the same fit with a much smaller gamma
  tg <- timed2(fg <- do.call(lgrm, c(list(big$x, landmarks = 500, seed = 1),
                                     modifyList(pars, list(gamma = 1e-8)))))
  yG <- predict(fg, test$x)
  cat(sprintf(paste0("Nystrom n = 100,000, r = 500, gamma = 1e-8: %.1f s elapsed, %.1f s CPU; affine R^2 %.5f; ",
                     "vs the exact 3000-subsample map: Procrustes d = %.2e\n"),
              tg[["elapsed"]], tg[["cpu"]], affine_r2(embedding(fg), big$truth_isometric),
              procrustes_dist(yG, y3, type = "matlab_d")))
  rm(fn, fg, big, f3)

  # ---- exact path, n = 5000 (last: the slowest part) ------------------------------------
  n <- 5000L
  roll <- swiss_roll(n, convention = "wittman", seed = 1)
  mem0 <- vmhwm()
  tt <- timed2(fit <- do.call(lgrm, c(list(roll$x), pars)))
  t_fit <- tt[["elapsed"]]
  mem1 <- vmhwm()
  add("LGRM exact fit n=5000", "manifoldOOS", t_fit)
  cat(sprintf("exact fit n = %d: %.1f s elapsed, %.1f s CPU (solver %s); affine R^2 to (s, h) = %.5f\n", n, t_fit,
              tt[["cpu"]], fit$solver$method, affine_r2(embedding(fit), roll$truth_isometric)))
  cat(sprintf("peak resident memory (VmHWM) before / after the n = %d fit: %.0f / %.0f MB (one n x n double matrix = %.0f MB)\n",
              n, mem0, mem1, 8 * n^2 / 2^20))
  tp <- timed2(y <- predict(fit, new$x))
  t_pred <- tp[["elapsed"]]
  add("predict 100,000 (exact fit n=5000)", "manifoldOOS", t_pred)
  cat(sprintf("predict 100,000 points with the n = %d fit: %.2f s elapsed (%.1f s CPU) = %.0f rows/s; affine R^2 %.5f\n",
              n, t_pred, tp[["cpu"]], 1e5 / t_pred, affine_r2(y, new$truth_isometric)))
  # reference OOS step of the same size: LTSA + reconstruction weights (kNN search per point)
  fl <- ltsa(roll$x, 2, k = 10)
  add("predict 100,000 (exact fit n=5000)", "manifoldOOS::ltsa reconstruction",
      bench_once(predict(fl, new$x)))
  rm(fit, fl)

  # ---- optional: peak memory at n = 10,000 ------------------------------------------
  if (identical(Sys.getenv("MANIFOLDOOS_BENCH_N10K"), "1")) {
    r10 <- swiss_roll(10000L, convention = "wittman", seed = 5)
    gc()
    t10 <- bench_once(f10 <- do.call(lgrm, c(list(r10$x), pars)))
    cat(sprintf("exact fit n = 10,000: %.0f s; VmHWM %.0f MB (one n x n matrix = %.0f MB)\n",
                t10, vmhwm(), 8 * 1e8 / 2^20))
  } else {
    cat(sprintf(paste0("n = 10,000 not run (set MANIFOLDOOS_BENCH_N10K=1). The exact path holds at most ",
                       "four n x n doubles at once (Q, the centred kernel / L_g factor, L_g, M): ",
                       "expected peak about 4 x %.0f = %.0f MB plus the n = 5000-proportional baseline.\n"),
                8 * 1e8 / 2^20, 4 * 8 * 1e8 / 2^20))
  }
  bench_report(do.call(rbind, rows))
})
