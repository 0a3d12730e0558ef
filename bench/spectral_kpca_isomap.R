# Benchmarks for kernel PCA, classical MDS and Isomap (sourced by
# bench/spectral.R or run as `Rscript bench/run.R spectral_kpca_isomap`).
#   * Swiss roll n = 5000, k = 10, 2-D: fit times of manifoldOOS and of the
#     peers (dimRed, vegan, Rdimtools when installed), ratio = peer / ours;
#   * predict() of 10,000 new points with every out-of-sample rule (and the
#     peers' own out-of-sample maps where they have one: dimRed);
#   * peak memory of the full Isomap fit (R heap and process high-water mark).
# Peers run once each (their full eigendecompositions are slow); ours are the
# median of 3 runs. vegan's isomap() (stepacross, cubic in n) runs at
# n = 2000 only unless MANIFOLDOOS_BENCH_VEGAN_FULL=1. MO_BENCH_QUICK=1 uses
# n = 1500.
local({
  n <- if (nzchar(Sys.getenv("MO_BENCH_QUICK"))) 1500L else 5000L
  k <- 10L
  sigma <- 5  # rbf bandwidth for every KPCA (kernlab's rbfdot sigma = 1 / (2 sigma^2))
  d <- bench_roll(n)
  X <- d$X
  new <- d$new
  once <- bench_once
  tab <- bench_table(echo = TRUE)
  add <- tab$add
  vm_hwm <- function() {
    s <- tryCatch(readLines("/proc/self/status"), error = function(e) character(0))
    v <- grep("^VmHWM", s, value = TRUE)
    if (length(v)) as.numeric(gsub("[^0-9]", "", v)) / 1024 else NA_real_
  }
  fc <- function(case) sprintf("%s fit n=%d", case, n)

  # ---- peak memory of one full Isomap fit (first thing in this process) ----
  hwm0 <- vm_hwm()
  invisible(gc(reset = TRUE))
  fit_iso <- isomap(X, 2, k = k)
  mem <- gc()
  cat(sprintf(paste0("  Isomap n=%d: R heap max used %.0f MB (geodesic matrix %.0f MB); ",
                     "process peak RSS %.0f MB (%.0f MB before); solver %s\n"),
              n, sum(mem[, ncol(mem)]), 8 * n^2 / 2^20, vm_hwm(), hwm0, fit_iso$solver))
  cat(sprintf("  trustworthiness(k = 10): Isomap %.4f\n",
              trustworthiness(X, embedding(fit_iso), k = 10)))

  # ---- fits ----
  add(fc("Isomap"), "manifoldOOS", bench_time(isomap(X, 2, k = k), reps = 3L))
  add(fc("Isomap"), "manifoldOOS landmarks=200",
      bench_time(isomap(X, 2, k = k, landmarks = 200, seed = 1), reps = 3L))
  add(fc("KPCA"), "manifoldOOS", bench_time(kpca(X, 2, sigma = sigma), reps = 3L))
  add(fc("MDS"), "manifoldOOS", bench_time(mds(X, 2), reps = 3L))
  if (have("dimRed")) {
    emb <- function(method, ...) suppressMessages(dimRed::embed(X, method, ndim = 2, ..., .mute = c("message", "output")))
    add(fc("Isomap"), "dimRed Isomap", once(d_iso <- emb("Isomap", knn = k)))
    # kernlab's kPCA and dimRed's MDS take minutes at n = 5000 (328 s and 150 s
    # on this machine), vegan's isomap 80 s at n = 2000: MO_BENCH_FAST_PEERS=1
    # skips them
    if (!nzchar(Sys.getenv("MO_BENCH_FAST_PEERS"))) {
      add(fc("KPCA"), "dimRed kPCA (kernlab)",
          once(d_kpca <- emb("kPCA", kernel = "rbfdot", kpar = list(sigma = 1 / (2 * sigma^2)))))
      add(fc("MDS"), "dimRed MDS", once(d_mds <- emb("MDS")))
    }
  }
  if (have("vegan") && !nzchar(Sys.getenv("MO_BENCH_FAST_PEERS"))) {
    nv <- if (nzchar(Sys.getenv("MANIFOLDOOS_BENCH_VEGAN_FULL"))) n else min(n, 2000L)
    Xv <- X[seq_len(nv), ]
    if (nv < n) {
      add(sprintf("Isomap fit n=%d", nv), "manifoldOOS", bench_time(isomap(Xv, 2, k = k), reps = 3L))
      add(sprintf("Isomap fit n=%d", nv), "manifoldOOS iterative",
          bench_time(isomap(Xv, 2, k = k, eigen_solver = "iterative"), reps = 3L))
    }
    add(sprintf("Isomap fit n=%d", nv), "vegan::isomap",
        once(vegan::isomap(stats::dist(Xv), ndim = 2, k = k)))
    if (!nzchar(Sys.getenv("MO_BENCH_FAST_PEERS"))) {
      add(fc("MDS"), "stats::cmdscale (vegan's MDS)", once(stats::cmdscale(stats::dist(X), k = 2)))
    }
  }
  if (have("Rdimtools")) {
    add(fc("Isomap"), "Rdimtools::do.isomap",
        once(suppressMessages(Rdimtools::do.isomap(X, ndim = 2, type = c("knn", k)))))
    add(fc("KPCA"), "Rdimtools::do.kpca",
        once(suppressMessages(Rdimtools::do.kpca(X, ndim = 2, kernel = c("gaussian", 2 * sigma^2)))))
    add(fc("MDS"), "Rdimtools::do.mds", once(suppressMessages(Rdimtools::do.mds(X, ndim = 2))))
  } else {
    rdimtools_note()
  }

  # ---- predict 10,000 new points ----
  fits <- list(Isomap = fit_iso,
               `Landmark Isomap (200)` = isomap(X, 2, k = k, landmarks = 200, seed = 1),
               KPCA = kpca(X, 2, sigma = sigma), MDS = mds(X, 2))
  for (nm in names(fits)) {
    f <- fits[[nm]]
    for (rule in f$oos$available) {
      add(sprintf("%s predict 10000 (%s)", nm, rule), "manifoldOOS",
          bench_time(predict(f, new, method = rule), reps = 3L))
    }
  }
  if (have("dimRed")) {
    nd <- dimRed::dimRedData(new)
    if (exists("d_iso")) add("Isomap predict 10000 (triangulation)", "dimRed predict",
                             once(dimRed::predict(d_iso, nd)))
    if (exists("d_kpca")) add("KPCA predict 10000 (exact)", "dimRed predict", once(dimRed::predict(d_kpca, nd)))
    # dimRed's MDS predict() re-runs classical MDS on the new points alone (a
    # full eigen() of their m x m matrix): not an out-of-sample map, not timed
  }
  bench_load()
  bench_report(tab$table())
})
