# Fits at scale (`Rscript bench/run.R scale_fits`).
# Every row runs in its own child process under `/usr/bin/time -v`, so that the
# peak resident memory (maximum RSS) is that of the one fit alone. The child
# times the fit (or the predict() call) itself; the wall and CPU seconds of the
# whole child (R start-up, data generation) and its peak RSS come from
# /usr/bin/time. Data: swiss_roll(n, seed = 1) (d = 3), k = 10.
# Peers run in the same script, in child processes of their own: scikit-learn
# (Debian's python3-sklearn, run by /usr/bin/python3), dimRed, vegan, kernlab.
# A peer that is not installed is skipped with a note. Rows whose full size
# would take too long for a peer run at a reduced size, ours at the same size
# (printed in the `n` column). Environment:
#   MO_SCALE_QUICK=1   every size divided by 10 (printed as such);
#   MO_SCALE_ROWS=a,b  only the rows whose id is listed (ids in the table);
#   MO_SCALE_PEERS=0   skip every peer;
#   MO_SCALE_LIMIT=s   stop a child after s seconds (default 900; the row prints NA).
local({
  quick <- nzchar(Sys.getenv("MO_SCALE_QUICK"))
  only <- strsplit(Sys.getenv("MO_SCALE_ROWS"), ",")[[1]]
  no_peers <- identical(Sys.getenv("MO_SCALE_PEERS"), "0")
  div <- if (quick) 10 else 1
  sz <- function(n) as.integer(max(200, n / div))
  rscript <- file.path(R.home("bin"), "Rscript")
  timebin <- "/usr/bin/time"
  python <- "/usr/bin/python3"
  if (!file.exists(timebin)) {
    cat("  /usr/bin/time is not installed: peak RSS is not available; scale_fits skipped\n")
    return(invisible(NULL))
  }
  have_sklearn <- file.exists(python) &&
    identical(suppressWarnings(system2(python, c("-c", shQuote("import sklearn")), stdout = FALSE,
                                       stderr = FALSE)), 0L)
  sk_version <- if (have_sklearn) {
    system2(python, c("-c", shQuote("import sklearn; print(sklearn.__version__)")), stdout = TRUE)
  } else NA_character_
  cat(sprintf("  peers: scikit-learn %s; dimRed %s; vegan %s; kernlab %s\n",
              if (have_sklearn) sk_version else "not installed (skipped)",
              if (have("dimRed")) "yes" else "not installed (skipped)",
              if (have("vegan")) "yes" else "not installed (skipped)",
              if (have("kernlab")) "yes" else "not installed (skipped)"))
  if (quick) cat("  MO_SCALE_QUICK: every size divided by 10\n")
  if (no_peers) cat("  MO_SCALE_PEERS=0: peers skipped\n")

  tmp <- tempfile("scale_fits")
  dir.create(tmp)
  on.exit(unlink(tmp, recursive = TRUE), add = TRUE)
  libs <- paste(.libPaths(), collapse = ":")

  # /usr/bin/time -v output -> wall, cpu seconds and peak RSS in MB
  parse_time <- function(err) {
    grab <- function(key) {
      l <- grep(key, err, value = TRUE, fixed = TRUE)
      if (length(l)) trimws(sub(".*: ", "", l[1])) else NA_character_
    }
    wall <- grab("Elapsed (wall clock) time")
    secs <- if (is.na(wall)) NA_real_ else {
      p <- as.numeric(strsplit(wall, ":")[[1]])
      sum(p * 60^(rev(seq_along(p)) - 1))
    }
    list(wall = secs,
         cpu = as.numeric(grab("User time (seconds)")) + as.numeric(grab("System time (seconds)")),
         rss = as.numeric(grab("Maximum resident set size (kbytes)")) / 1024)
  }
  run_child <- function(cmd, args) {
    errf <- file.path(tmp, "time.txt")
    # a child stops after `limit` seconds (MO_SCALE_LIMIT, default 900)
    limit <- as.numeric(Sys.getenv("MO_SCALE_LIMIT", "900"))
    out <- suppressWarnings(system2(timebin, c("-v", "timeout", limit, cmd, args), stdout = TRUE, stderr = errf))
    tm <- parse_time(readLines(errf))
    res <- grep("^RESULT", out, value = TRUE)
    if (!length(res)) {
      tail_err <- utils::tail(readLines(errf), 25)
      cat("    child failed:", utils::head(grep("rror|Killed|signal", tail_err, value = TRUE), 3), "\n")
      return(c(seconds = NA_real_, wall = tm$wall, cpu = tm$cpu, rss = tm$rss))
    }
    c(seconds = as.numeric(strsplit(res[1], " ")[[1]][2]), wall = tm$wall, cpu = tm$cpu, rss = tm$rss)
  }
  # ours: `setup` builds objects (not timed), `expr` is timed
  run_r <- function(n, setup, expr) {
    f <- file.path(tmp, "child.R")
    writeLines(c("suppressPackageStartupMessages(library(manifoldOOS))",
                 sprintf("X <- swiss_roll(%d, seed = 1)$x", n),
                 setup,
                 "gc(FALSE); t0 <- proc.time()[['elapsed']]",
                 sprintf("res <- %s", expr),
                 "cat(sprintf('RESULT %.4f\\n', proc.time()[['elapsed']] - t0))"), f)
    run_child(rscript, f)
  }
  data_file <- function(n) {
    f <- file.path(tmp, sprintf("roll_%d.bin", n))
    if (!file.exists(f)) writeBin(as.vector(t(swiss_roll(n, seed = 1)$x)), f, size = 8L)
    f
  }
  run_py <- function(n, model) {
    f <- file.path(tmp, "child.py")
    writeLines(c("import time, numpy as np, warnings",
                 "warnings.filterwarnings('ignore')",
                 "from sklearn import manifold",
                 sprintf("X = np.fromfile('%s', dtype='<f8').reshape(-1, 3)", data_file(n)),
                 sprintf("m = %s", model),
                 "t0 = time.perf_counter(); Y = m.fit_transform(X)",
                 "print('RESULT %.4f' % (time.perf_counter() - t0))"), f)
    run_child(python, f)
  }

  # One-core limits of an explicit rbf kernel map y = beta' k(x, B) + c, from
  # the package's own primitives compiled here (vectorised exp of kernels.h;
  # Eigen array loops for the distances and the coefficient products): the
  # time of m exponentials per row, and of the remaining flops per row.
  lgrm_rates <- function(m, d, q) {
    if (!requireNamespace("Rcpp", quietly = TRUE)) return(NULL)
    code <- sprintf(paste(c(
      "// [[Rcpp::depends(RcppArmadillo, RcppEigen)]]",
      "#include <RcppArmadillo.h>",
      "#include <RcppEigen.h>",
      "#include <manifoldOOS/blocks/kernels.h>",
      "#include <chrono>",
      "// [[Rcpp::export]]",
      "Rcpp::NumericVector mo_rates(int reps) {",
      "  const int m = %d, d = %d, q = %d;",
      "  Eigen::MatrixXd B = Eigen::MatrixXd::Random(m, d), beta = Eigen::MatrixXd::Random(m, q);",
      "  Eigen::ArrayXd acc(m), src = -30.0 * Eigen::ArrayXd::Random(m).abs();",
      "  Eigen::RowVectorXd x = Eigen::RowVectorXd::Random(d);",
      "  double sink = 0.0;",
      "  auto t0 = std::chrono::steady_clock::now();",
      "  for (int r = 0; r < reps; ++r) {",
      "    acc = src - 1e-9 * r;",
      "    manifoldOOS::exp_clamped_inplace(acc.data(), (std::size_t) m);",
      "    sink += acc(r %% m);",
      "  }",
      "  auto t1 = std::chrono::steady_clock::now();",
      "  for (int r = 0; r < reps; ++r) {",
      "    x(0) = 1e-9 * r;",
      "    acc = (B.col(0).array() - x(0)).square();",
      "    for (int a = 1; a < d; ++a) acc += (B.col(a).array() - x(a)).square();",
      "    acc = (-0.5 * acc).max(-708.0);",
      "    for (int c = 0; c < q; ++c) sink += beta.col(c).dot(acc.matrix());",
      "  }",
      "  auto t2 = std::chrono::steady_clock::now();",
      "  double te = std::chrono::duration<double>(t1 - t0).count() / reps;",
      "  double tf = std::chrono::duration<double>(t2 - t1).count() / reps;",
      "  return Rcpp::NumericVector::create(te, tf, sink);",
      "}"), collapse = "\n"), as.integer(m), as.integer(d), as.integer(q))
    f <- file.path(tmp, "rates.cpp")
    writeLines(code, f)
    old <- Sys.getenv(c("PKG_CPPFLAGS", "PKG_CXXFLAGS", "PKG_LIBS"), unset = NA)
    Sys.setenv(PKG_CPPFLAGS = paste0("-I", system.file("include", package = "manifoldOOS"),
                                     " -DARMA_32BIT_WORD=1 -DARMA_NO_DEBUG"),
               PKG_CXXFLAGS = "-fopenmp -std=gnu++17 -w", PKG_LIBS = "-fopenmp")
    on.exit(for (nm in names(old)) if (is.na(old[[nm]])) Sys.unsetenv(nm) else
      do.call(Sys.setenv, stats::setNames(list(old[[nm]]), nm)), add = TRUE)
    env <- new.env()
    ok <- tryCatch({ suppressMessages(Rcpp::sourceCpp(f, env = env)); TRUE }, error = function(e) FALSE)
    if (!ok) return(NULL)
    r <- env$mo_rates(20000L)
    c(t_exp = r[1], t_rest = r[2])
  }

  # rows/s of the package's own Gaussian-kernel map on one thread: m landmarks
  # in d dimensions, q outputs; path = "" (the best this CPU has), "avx512" or
  # "avx2" (MANIFOLDOOS_LGRM_KERNEL; NULL when the CPU lacks the path)
  lgrm_fused_rate <- function(m, d, q, rows = 300000L, path = "") {
    old <- Sys.getenv("MANIFOLDOOS_LGRM_KERNEL", unset = NA)
    on.exit(if (is.na(old)) Sys.unsetenv("MANIFOLDOOS_LGRM_KERNEL") else Sys.setenv(MANIFOLDOOS_LGRM_KERNEL = old))
    Sys.setenv(MANIFOLDOOS_LGRM_KERNEL = path)
    set.seed(1)
    B <- matrix(rnorm(m * d), m)
    beta <- matrix(rnorm(m * q), m)
    Xr <- matrix(rnorm(rows * d), rows)
    run <- function() manifoldOOS:::.mo_lgrm_predict(B, beta, rnorm(q), Xr, "rbf", 1, 1, 1, 2, 1L)
    invisible(run())
    t <- min(vapply(1:3, function(i) system.time(run())[["elapsed"]], 0))
    if (t > 0) rows / t else NULL
  }
  cpu_flags <- function() {
    l <- tryCatch(grep("^flags", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE), error = function(e) character())
    if (length(l)) strsplit(sub(".*:", "", l[1]), " ")[[1]] else character()
  }
  cpu_mhz <- function() {
    l <- tryCatch(grep("^cpu MHz", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE), error = function(e) character())
    if (length(l)) as.numeric(sub(".*:", "", l[1])) else NA_real_
  }

  rows <- list()
  add <- function(id, case, n, impl, v) {
    cat(sprintf("  %-3s %-44s n=%-8d %-36s %9.2f s  (child wall %7.1f s, CPU %7.1f s, peak RSS %6.0f MB)\n",
                id, case, n, impl, v[["seconds"]], v[["wall"]], v[["cpu"]], v[["rss"]]))
    rows[[length(rows) + 1L]] <<- data.frame(id = id, case = sprintf("%s n=%d", case, n), impl = impl,
                                             seconds = v[["seconds"]], peak_MB = round(v[["rss"]]))
  }
  want <- function(id) !length(only) || id %in% only
  peer_ok <- function() !no_peers

  # ---- 1. LGRM Nystrom path, 1000 landmarks, n = 1e5 -------------------------------
  if (want("1")) {
    n <- sz(1e5)
    add("1", "lgrm(landmarks = 1000)", n, "manifoldOOS",
        run_r(n, "", "lgrm(X, 2, k = 10, landmarks = 1000, seed = 1)"))
  }
  # ---- 2. landmark Isomap, 1000 landmarks, n = 1e5 ---------------------------------
  if (want("2")) {
    n <- sz(1e5)
    add("2", "isomap(landmarks = 1000)", n, "manifoldOOS",
        run_r(n, "", "isomap(X, 2, k = 10, landmarks = 1000, seed = 1)"))
  }
  # one of our rows at full size, then ours and scikit-learn's at the peer's size
  sk_rows <- function(id, case, n_full, n_peer, expr, model, impl, note) {
    add(id, case, sz(n_full), "manifoldOOS", run_r(sz(n_full), "", expr))
    if (!peer_ok() || !have_sklearn) return(invisible(NULL))
    np <- sz(n_peer)
    cat(sprintf("    (%s at n = %d%s)\n", impl, np, note))
    add(id, case, np, "manifoldOOS", run_r(np, "", expr))
    add(id, case, np, impl, run_py(np, model))
  }
  # ---- 3. Laplacian eigenmaps, n = 1e6 ---------------------------------------------
  if (want("3")) {
    sk_rows("3", "laplacian_eigenmaps()", 1e6, 2e4, "laplacian_eigenmaps(X, 2, k = 10)",
            "manifold.SpectralEmbedding(n_components=2, n_neighbors=10, random_state=0)",
            "sklearn SpectralEmbedding", ": its ARPACK solve took 805 s at n = 1e5")
  }
  # ---- 4. LTSA, n = 1e6 --------------------------------------------------------------
  if (want("4")) {
    sk_rows("4", "ltsa()", 1e6, 5000, "ltsa(X, 2, k = 10)",
            "manifold.LocallyLinearEmbedding(n_neighbors=10, n_components=2, method='ltsa', random_state=0)",
            "sklearn LocallyLinearEmbedding(ltsa)", ": it did not finish within 7 min at n = 2e4")
  }
  # ---- 5. LLE, n = 1e5 ---------------------------------------------------------------
  if (want("5")) {
    sk_rows("5", "lle()", 1e5, 1e4, "lle(X, 2, k = 10)",
            "manifold.LocallyLinearEmbedding(n_neighbors=10, n_components=2, random_state=0)",
            "sklearn LocallyLinearEmbedding", "")
  }
  # ---- 6. PLML default, n = 2e4 -------------------------------------------------------
  if (want("6")) {
    n <- sz(2e4)
    add("6", "plml()", n, "manifoldOOS", run_r(n, "", "plml(X, 2, seed = 1)"))
  }
  # ---- 7. full Isomap, n = 5000, with the peers ---------------------------------------
  if (want("7")) {
    n <- sz(5000)
    add("7", "isomap()", n, "manifoldOOS", run_r(n, "", "isomap(X, 2, k = 10)"))
    if (peer_ok() && have_sklearn) {
      add("7", "isomap()", n, "sklearn Isomap",
          run_py(n, "manifold.Isomap(n_neighbors=10, n_components=2)"))
    }
    if (peer_ok() && have("dimRed")) {
      add("7", "isomap()", n, "dimRed Isomap",
          run_r(n, "", "suppressMessages(dimRed::embed(X, 'Isomap', knn = 10, ndim = 2, .mute = c('message', 'output')))"))
    }
    if (peer_ok() && have("vegan")) {
      nv <- sz(2000)
      cat(sprintf("    (vegan::isomap at n = %d: its stepacross() is cubic in n)\n", nv))
      add("7", "isomap()", nv, "manifoldOOS", run_r(nv, "", "isomap(X, 2, k = 10)"))
      add("7", "isomap()", nv, "vegan::isomap", run_r(nv, "", "vegan::isomap(stats::dist(X), ndim = 2, k = 10)"))
    }
  }
  # ---- 7k. kernel PCA with kernlab (reduced: kernlab's full eigen() is cubic) ---------
  if (want("7k") && peer_ok() && have("kernlab")) {
    n <- sz(2000)
    cat(sprintf("    (KPCA at n = %d, rbf sigma = 5: kernlab::kpca takes minutes at n = 5000)\n", n))
    add("7k", "kpca(sigma = 5)", n, "manifoldOOS", run_r(n, "", "kpca(X, 2, sigma = 5)"))
    add("7k", "kpca(sigma = 5)", n, "kernlab::kpca",
        run_r(n, "", "kernlab::kpca(X, kernel = 'rbfdot', kpar = list(sigma = 1 / 50), features = 2)"))
  }
  # ---- 8. predict() of an LGRM fit on 2000 points, 1e6 rows ---------------------------
  if (want("8")) {
    n <- sz(1e6)
    setup <- c("fit <- lgrm(swiss_roll(2000, seed = 7)$x, 2, k = 10)",
               "invisible(predict(fit, X[1:1000, ]))")
    v <- run_r(n, setup, "predict(fit, X)")
    add("8", "predict(lgrm fit on 2000 points), rows", n, "manifoldOOS", v)
    # physical limit of the explicit kernel map: per row m exponentials, m d
    # differences and squares, 2 m ndim flops for the coefficients. Measured
    # here: the package's fused kernels themselves (methods/lgrm_predict_rbf.h)
    # on one thread with L2-resident landmarks, per path the CPU has, beside
    # their operation counts per vector of landmarks (8 lanes for avx512, 4
    # for avx2), and the portable primitives (the vectorised exp of kernels.h
    # and Eigen array loops, used on other CPUs).
    #   avx512: d subtractions, d FNMAs (-|x - b|^2 on coordinates scaled by
    #     sqrt(-cr) once per fit and row, so no multiply by cr), 1 max (clamp at -708), exp 10 multiplies/FMAs (Cody-Waite to ln2/16,
    #     degree-6 minimax) + 4 other (subtraction, vpermt2q table lookup of
    #     2^(j/16), shift, integer add), q FMAs (coefficients);
    #   avx2: the same with exp 15 multiplies/FMAs (reduction to ln2/2,
    #     degree-11 minimax) + 3 other.
    m <- 2000; d <- 3; q <- 2
    cat(sprintf("    measured %.0f rows/s on %d threads\n", n / v[["seconds"]], max_threads()))
    mhz <- cpu_mhz()
    flags <- cpu_flags()
    fast <- c(if (all(c("avx512f", "avx2", "fma") %in% flags)) "avx512", if (all(c("avx2", "fma") %in% flags)) "avx2")
    if (!length(fast)) {
      # no /proc/cpuinfo flags: the path the package picks, without operation counts
      fused <- lgrm_fused_rate(m, d, q)
      if (!is.null(fused)) cat(sprintf("    limit, the package's map on one thread: %.0f rows/s = %.3f ns per landmark\n",
                                       fused, 1e9 / (fused * m)))
    }
    for (path in fast) {
      fused <- lgrm_fused_rate(m, d, q, path = path)
      if (is.null(fused)) next
      lanes <- if (path == "avx512") 8 else 4
      fma <- d + q + if (path == "avx512") 10 else 15
      other <- d + 1 + if (path == "avx512") 4 else 3
      cat(sprintf(paste0("    limit, fused %s kernel on one thread: %.0f rows/s = %.3f ns per landmark%s ",
                         "(%d multiplies/FMAs + %d other vector ops per %d landmarks: exp, distance, %d products); ",
                         "%.0f rows/s on %d cores\n"),
                  path, fused, 1e9 / (fused * m),
                  if (is.na(mhz)) "" else sprintf(" = %.2f cycles at %.0f MHz", mhz * 1e6 / (fused * m), mhz),
                  fma, other, lanes, q, fused * max_threads(), max_threads()))
    }
    rt <- lgrm_rates(m, d, q)
    if (is.null(rt)) {
      cat("    (the portable limit needs Rcpp and a compiler to time the kernel primitives: not available)\n")
    } else {
      t_row <- rt[["t_exp"]] + rt[["t_rest"]]
      cat(sprintf(paste0("    limit, portable primitives (one core, L1-resident data): %d exp per row = %.2f us ",
                         "(%.2g exp/s), distances and %d coefficient products (%d flops) = %.2f us; ",
                         "%.0f rows/s per core, %.0f rows/s on %d cores\n"),
                  m, 1e6 * rt[["t_exp"]], m / rt[["t_exp"]],
                  q, (3 * d + 1 + 2 * q) * m, 1e6 * rt[["t_rest"]], 1 / t_row, max_threads() / t_row,
                  max_threads()))
    }
  }
  # ---- 9. predict() of an Isomap fit on 5000 points, 1e6 rows (geodesic rule) ---------
  if (want("9")) {
    n <- sz(1e6)
    setup <- c("fit <- isomap(swiss_roll(5000, seed = 7)$x, 2, k = 10)",
               "invisible(predict(fit, X[1:1000, ]))")
    add("9", "predict(isomap fit on 5000 points), rows", n, "manifoldOOS",
        run_r(n, setup, "predict(fit, X, method = 'triangulation')"))
  }
  df <- do.call(rbind, rows)
  if (is.null(df)) return(invisible(NULL))
  cat("\n")
  bench_load()
  bench_report(df)
})
