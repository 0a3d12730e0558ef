# Exact self-kNN: manifoldOOS::knn() against RANN::nn2 and FNN::get.knn.
# (a) n = 50,000, d = 3, k = 10; (b) n = 10,000, d = 1024, k = 10.
# RANN's nn2 with query = data returns each point as its own first
# neighbour, so it is asked for k + 1.
knn_cases <- list(
  list(case = "a: n=50000 d=3 k=10", n = 50000L, d = 3L, k = 10L, reps = 5L),
  list(case = "b: n=10000 d=1024 k=10", n = 10000L, d = 1024L, k = 10L, reps = 1L)
)
if (nzchar(Sys.getenv("MO_BENCH_QUICK"))) {
  knn_cases[[2]]$n <- 3000L
  knn_cases[[2]]$case <- "b (quick): n=3000 d=1024 k=10"
}
rows <- list()
for (cs in knn_cases) {
  set.seed(42)
  X <- matrix(stats::rnorm(cs$n * cs$d), ncol = cs$d)
  k <- cs$k
  ours <- NULL
  t_ours <- bench_time(ours <- knn(X, k), reps = cs$reps)
  rows[[length(rows) + 1]] <- data.frame(case = cs$case, impl = "manifoldOOS", seconds = t_ours)
  if (have("RANN")) {
    rn <- NULL
    t <- bench_time(rn <- RANN::nn2(X, X, k = k + 1L), reps = cs$reps)
    rows[[length(rows) + 1]] <- data.frame(case = cs$case, impl = "RANN::nn2", seconds = t)
    # same neighbour sets up to ties (RANN does not fix the tie order)
    same <- mean(rowSums(abs(rn$nn.dists[, -1, drop = FALSE] - ours$dist)) < 1e-8)
    cat(sprintf("  %s: rows with the same distances as RANN: %.4f\n", cs$case, same))
  }
  if (have("FNN")) {
    t <- bench_time(FNN::get.knn(X, k = k), reps = cs$reps)
    rows[[length(rows) + 1]] <- data.frame(case = cs$case, impl = "FNN::get.knn", seconds = t)
  }
}
bench_report(do.call(rbind, rows))
