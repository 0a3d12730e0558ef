# Benchmarks for LLE, Laplacian eigenmaps and LTSA (sourced by bench/spectral.R
# or run as `Rscript bench/run.R spectral_local`).
#   * Swiss roll n = 5000, k = 10, 2-D: fit times of manifoldOOS and of the
#     peers (Rdimtools, dimRed; vegan has none of these methods), ratio =
#     peer time / our time;
#   * predict() of 10,000 new points with every out-of-sample rule;
#   * the sparse eigen-solver path at n = 50,000 (skip with
#     MANIFOLDOOS_BENCH_SKIP_LARGE=1).
# Peers run once each (they are slow); ours are the median of 3 runs.
local({
  n <- 5000L
  k <- 10L
  d <- bench_roll(n)
  X <- d$X
  new <- d$new
  once <- bench_once
  tab <- bench_table()
  add <- tab$add

  # ---- fits, n = 5000 ----
  add("LLE fit n=5000", "manifoldOOS", bench_time(lle(X, 2, k = k), reps = 3L))
  add("LE fit n=5000", "manifoldOOS", bench_time(laplacian_eigenmaps(X, 2, k = k), reps = 3L))
  add("LTSA fit n=5000", "manifoldOOS", bench_time(ltsa(X, 2, k = k), reps = 3L))
  # Peers. Rdimtools has do.lle / do.lapeig / do.ltsa; dimRed dropped "LLE"
  # and "LaplacianEigenmaps" in 0.2.7 (their backends were archived) but keeps
  # "HLLE", the nearest relative of LLE/LTSA, reported for orientation only;
  # vegan has none of these methods.
  peer_methods <- function(pkg) {
    if (!have(pkg)) return(character(0))
    if (pkg == "dimRed") return(dimRed::dimRedMethodList())
    character(0)
  }
  if (have("Rdimtools")) {
    add("LLE fit n=5000", "Rdimtools::do.lle",
        once(suppressMessages(Rdimtools::do.lle(X, ndim = 2, type = c("knn", k)))))
    add("LE fit n=5000", "Rdimtools::do.lapeig",
        once(suppressMessages(Rdimtools::do.lapeig(X, ndim = 2, type = c("knn", k)))))
    add("LTSA fit n=5000", "Rdimtools::do.ltsa",
        once(suppressMessages(Rdimtools::do.ltsa(X, ndim = 2, type = c("knn", k)))))
  } else {
    rdimtools_note()
  }
  dm <- peer_methods("dimRed")
  for (pm in intersect(c("LLE", "LaplacianEigenmaps"), dm)) {
    case <- if (pm == "LLE") "LLE fit n=5000" else "LE fit n=5000"
    add(case, paste("dimRed", pm),
        once(suppressMessages(dimRed::embed(X, pm, knn = k, ndim = 2, .mute = c("message", "output")))))
  }
  if ("HLLE" %in% dm) {
    add("LTSA fit n=5000", "dimRed HLLE (nearest relative, not LTSA)",
        once(suppressMessages(dimRed::embed(X, "HLLE", knn = k, ndim = 2, .mute = c("message", "output")))))
  }
  if (have("dimRed") && !any(c("LLE", "LaplacianEigenmaps") %in% dm)) {
    message(sprintf("  dimRed %s offers neither LLE nor LaplacianEigenmaps", packageVersion("dimRed")))
  }
  cat("Fits, Swiss roll n = 5000, k = 10, 2-D (ratio = peer / manifoldOOS; vegan has no LLE/LE/LTSA)\n")
  bench_report(tab$table())

  # ---- predict 10,000 new points ----
  f_lle <- lle(X, 2, k = k)
  f_le <- laplacian_eigenmaps(X, 2, k = k)
  f_ltsa <- ltsa(X, 2, k = k)
  pr <- data.frame(
    rule = c("LLE reconstruction", "LLE nystrom", "LE nystrom", "LE lvm", "LTSA reconstruction"),
    seconds = c(bench_time(predict(f_lle, new), reps = 3L),
                bench_time(predict(f_lle, new, method = "nystrom"), reps = 3L),
                bench_time(predict(f_le, new), reps = 3L),
                bench_time(predict(f_le, new, method = "lvm"), reps = 3L),
                bench_time(predict(f_ltsa, new), reps = 3L)))
  pr$seconds <- signif(pr$seconds, 3)
  cat("predict() of 10,000 new points (models fitted on n = 5000)\n")
  print(pr, row.names = FALSE)
  cat(sprintf("eigen-solver paths at n = 5000: LLE %s, LE %s, LTSA %s\n",
              f_lle$solver$method, f_le$solver$method, f_ltsa$solver$method))
  cat(sprintf("trustworthiness(k = 10) at n = 5000: LLE %.4f, LE %.4f, LTSA %.4f\n",
              trustworthiness(X, embedding(f_lle), 10), trustworthiness(X, embedding(f_le), 10),
              trustworthiness(X, embedding(f_ltsa), 10)))

  # ---- sparse path, n = 50,000 ----
  if (!identical(Sys.getenv("MANIFOLDOOS_BENCH_SKIP_LARGE"), "1")) {
    big <- swiss_roll(50000L, seed = 3)$x
    lg <- data.frame(
      method = c("LLE", "LE", "LTSA"),
      seconds = c(bench_time(lle(big, 2, k = k), reps = 1L),
                  bench_time(laplacian_eigenmaps(big, 2, k = k), reps = 1L),
                  bench_time(ltsa(big, 2, k = k), reps = 1L)))
    lg$seconds <- signif(lg$seconds, 3)
    cat("Sparse eigen-solver path, Swiss roll n = 50,000, k = 10, 2-D (one run each)\n")
    print(lg, row.names = FALSE)
  }
})
