# Benchmarks for PLML (piecewise-linear manifold learning; Strange 2011).
#   * Swiss roll n = 20,000, k = 9: plml() (defaults: kNN-graph point MST
#     above 5000 points; constrained k-means and k-means + merge) against
#     Isomap (landmark, k = 10) and LTSA (k = 10) at the same n; the
#     constrained k-means' work per step (augmenting paths, Dijkstra phases,
#     seconds) is printed from fit$kmeans$trace;
#   * n = 50,000 with the kNN-graph MST (mst_knn = 15), constrained k-means
#     (the default, random seeds above 20,000 points; and from k-means++
#     seeds) and k-means + merge;
#   * predict() of 10,000 new points (GOoSE and per-model maps).
# Peers: dimRed/Rdimtools offer no PLML; Rdimtools cannot be installed on this
# R 4.2.2. Times are single runs (elapsed seconds) on a shared, loaded machine.
local({
  cat("load:", system("uptime", intern = TRUE), "\n")
  cat("Rdimtools cannot be installed on this R", as.character(getRversion()),
      "; no peer package implements PLML.\n")
  rows <- list()
  add <- function(case, impl, seconds, extra = "") {
    rows[[length(rows) + 1L]] <<- data.frame(case = case, impl = impl, seconds = seconds,
                                             note = extra)
    cat(sprintf("  %-12s %-40s %8.2f s  %s\n", case, impl, seconds, extra))  # progress
  }
  once <- bench_once
  cpu <- function(expr) {
    e <- substitute(expr)
    t <- system.time(eval(e, parent.frame()))
    c(elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]])
  }
  skip_large <- identical(Sys.getenv("MANIFOLDOOS_BENCH_SKIP_LARGE"), "1")

  roll <- swiss_roll(20000L, seed = 1)
  X <- roll$x
  t1 <- cpu(f1 <- plml(X, k = 9, seed = 1, cluster = "kmeans_merge"))
  add("n=20000 fit", "manifoldOOS plml kmeans_merge", t1[["elapsed"]],
      sprintf("cpu %.1f s, T(10) = %.4f", t1[["cpu"]], trustworthiness(X, embedding(f1), 10)))
  t2 <- cpu(f2 <- plml(X, k = 9, seed = 1))
  add("n=20000 fit", "manifoldOOS plml constrained", t2[["elapsed"]],
      sprintf("cpu %.1f s, T(10) = %.4f, %d k-means iterations", t2[["cpu"]],
              trustworthiness(X, embedding(f2), 10), f2$kmeans$iterations))
  cat("  constrained k-means steps (paths, phases, seconds):\n")
  print(round(f2$kmeans$trace, 3))
  t3 <- cpu(f3 <- isomap(X, 2, k = 10, landmarks = 1000, seed = 1))
  add("n=20000 fit", "manifoldOOS isomap (1000 landmarks)", t3[["elapsed"]],
      sprintf("cpu %.1f s", t3[["cpu"]]))
  t4 <- cpu(f4 <- ltsa(X, 2, k = 10))
  add("n=20000 fit", "manifoldOOS ltsa", t4[["elapsed"]], sprintf("cpu %.1f s", t4[["cpu"]]))
  new <- swiss_roll(10000L, seed = 2)$x
  t5 <- cpu(predict(f1, new))
  add("predict 10000", "plml goose", t5[["elapsed"]], sprintf("cpu %.1f s", t5[["cpu"]]))
  t6 <- cpu(predict(f1, new, method = "model"))
  add("predict 10000", "plml model", t6[["elapsed"]], sprintf("cpu %.1f s", t6[["cpu"]]))

  if (!skip_large) {
    X5 <- swiss_roll(50000L, seed = 3)$x
    t7 <- cpu(g1 <- plml(X5, k = 9, seed = 1, mst_knn = 15, cluster = "kmeans_merge"))
    add("n=50000 fit", "manifoldOOS plml kNN-MST kmeans_merge", t7[["elapsed"]],
        sprintf("cpu %.1f s", t7[["cpu"]]))
    # The default constrained k-means at n = 50,000 (kNN-graph MST above
    # 5000 points; init = "auto" seeds it with random data points above
    # 20,000 points), then the same fit from k-means++ seeds: there the first
    # assignment step is a long-range transport (the seeds are spread out,
    # the roll's inner turns are denser), which needs candidate lists of 256
    # centres and thousands of one-path Dijkstra phases.
    t8 <- cpu(g2 <- plml(X5, k = 9, seed = 1))
    add("n=50000 fit", "manifoldOOS plml kNN-MST constrained", t8[["elapsed"]],
        sprintf("cpu %.1f s, init %s, %d k-means iterations, objective %.1f", t8[["cpu"]],
                g2$params$init, g2$kmeans$iterations, g2$kmeans$objective))
    cat("  constrained k-means steps (paths, phases, seconds):\n")
    print(round(head(g2$kmeans$trace, 5), 3))
    t8b <- cpu(g3 <- plml(X5, k = 9, seed = 1, init = "kmeans++"))
    add("n=50000 fit", "manifoldOOS plml constrained, k-means++", t8b[["elapsed"]],
        sprintf("cpu %.1f s, %d k-means iterations, objective %.1f", t8b[["cpu"]],
                g3$kmeans$iterations, g3$kmeans$objective))
    cat("  constrained k-means steps from k-means++ seeds (paths, phases, seconds):\n")
    print(round(head(g3$kmeans$trace, 3), 3))
    tw <- function(f) trustworthiness(X5[idx, ], embedding(f)[idx, ], k = 10)
    idx <- seq(1, nrow(X5), by = 10)
    cat(sprintf("  trustworthiness(10) on every 10th point: default %.5f, k-means++ %.5f\n",
                tw(g2), tw(g3)))
    t9 <- cpu(isomap(X5, 2, k = 10, landmarks = 1000, seed = 1))
    add("n=50000 fit", "manifoldOOS isomap (1000 landmarks)", t9[["elapsed"]],
        sprintf("cpu %.1f s", t9[["cpu"]]))
    t10 <- cpu(ltsa(X5, 2, k = 10))
    add("n=50000 fit", "manifoldOOS ltsa", t10[["elapsed"]], sprintf("cpu %.1f s", t10[["cpu"]]))
  } else {
    message("  n = 50,000 skipped (MANIFOLDOOS_BENCH_SKIP_LARGE=1)")
  }
  # The two seedings on smaller rolls (k-means objective of the constrained
  # clustering; single-threaded, so that the runs are comparable).
  cat("  seeding comparison, k-means objective (random / k-means++):\n")
  ratios <- numeric(0)
  for (n in c(3000L, 5000L, 10000L)) {
    r <- swiss_roll(n, seed = 4)
    for (s in 1:3) {
      fa <- plml(r$x, k = 9, seed = s, n_threads = 1L)
      fr <- plml(r$x, k = 9, seed = s, init = "random", n_threads = 1L)
      ratios <- c(ratios, fr$kmeans$objective / fa$kmeans$objective)
      cat(sprintf("    n = %5d seed %d: k-means++ %.1f, random %.1f, ratio %.4f\n", n, s,
                  fa$kmeans$objective, fr$kmeans$objective, tail(ratios, 1)))
    }
  }
  cat(sprintf("    random lower in %d of %d runs; ratios %.3f-%.3f\n", sum(ratios < 1),
              length(ratios), min(ratios), max(ratios)))
  df <- do.call(rbind, rows)
  df$seconds <- signif(df$seconds, 4)
  cat("PLML benchmark (elapsed seconds; cpu = user + system; ratios not meaningful under load)\n")
  print(df, row.names = FALSE)
  cat("load:", system("uptime", intern = TRUE), "\n")
})
