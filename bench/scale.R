# Scaling past one process: chunked / distributed predict(), predict_file()
# and HNSW against exact neighbours. Run with
#   flock <lock> nice -n 5 Rscript bench/run.R scale
# Sizes (environment variables; the full sizes need hours on 2 cores):
#   SCALE_ROWS      rows predicted (full size: 1e7)         default 4e5
#   SCALE_CHUNK     chunk_size                               default 1e5
#   SCALE_FIT       training rows of the fits                default 5000
#   SCALE_ONE_ROWS  rows of the one-worker reference run      default min(SCALE_ROWS, 1e6)
#                   (its throughput is rows / s, so a shorter run of the same
#                   chunked loop gives the same rate; the other modes use SCALE_ROWS)
#   SCALE_RULES     rules of the predict part (comma separated)  default goose,lgrm
#   SCALE_KNN_N     HNSW vs exact sizes (comma separated)    default 1e5
#   SCALE_PARTS     parts to run (comma separated): predict,file,knn,threshold (default),
#                   hnsw_grid (recall / time of a few HNSW settings; SCALE_GRID_N, default 1e5,
#                   and SCALE_GRID_D, default "50,100"), fits (the LE / LTSA fits of SCALE_BIG)
#   SCALE_BIG       "1": add n = 1e6 (HNSW, exact on a sample) and an LE/LTSA fit on 1e6 x 50
# Every predict measurement runs in a child process under /usr/bin/time -v;
# "peak RSS" is the child's maximum resident set size, and each worker of a
# future plan reports its own peak (VmHWM) at the end.

num_env <- function(name, default) as.numeric(Sys.getenv(name, as.character(default)))
n_rows <- num_env("SCALE_ROWS", 4e5)
chunk <- num_env("SCALE_CHUNK", 1e5)
n_fit <- num_env("SCALE_FIT", 5000)
n_one <- min(n_rows, num_env("SCALE_ONE_ROWS", min(n_rows, 1e6)))
knn_ns <- as.numeric(strsplit(Sys.getenv("SCALE_KNN_N", "1e5"), ",")[[1]])
big <- identical(Sys.getenv("SCALE_BIG"), "1")
parts <- strsplit(Sys.getenv("SCALE_PARTS", "predict,file,knn,threshold"), ",")[[1]]
rules <- strsplit(Sys.getenv("SCALE_RULES", "goose,lgrm"), ",")[[1]]
if (big) knn_ns <- sort(unique(c(knn_ns, 1e6)))
p <- 50L
reduced <- n_rows < 1e7
cat(sprintf("  predict: %s rows x %d features, chunk_size %s, fits on %s rows%s\n",
            format(n_rows, big.mark = ",", scientific = FALSE), p, format(chunk, big.mark = ",", scientific = FALSE),
            format(n_fit, big.mark = ",", scientific = FALSE),
            if (reduced) "  ** REDUCED SIZE (full size: 10^7 rows) **" else ""))

work <- tempfile("scale-bench-")
dir.create(work)

# Data: a swiss roll in 50 dimensions (fixed random rotation) plus noise
# (rotated_roll() of common.R).
roll50 <- function(n, seed) rotated_roll(n, seed, noise = 0.05, p = p, block = 1e6, one_shot = 1e6)$x
Xtr <- roll50(n_fit, 1)
t_fit <- system.time(fit_lgrm <- lgrm(Xtr, 2, k = 10))[["elapsed"]]
fit_ltsa <- ltsa(Xtr, 2, k = 10)
cat(sprintf("  fits: LGRM %.1f s, LTSA %.1f s (GOoSE rule on the LTSA fit)\n", t_fit,
            fit_ltsa$fit_time))
saveRDS(list(lgrm = fit_lgrm, ltsa = fit_ltsa), file.path(work, "fits.rds"), compress = FALSE)
saveRDS(roll50(n_rows, 2), file.path(work, "x.rds"), compress = FALSE)

# Run R code in a child process under /usr/bin/time -v (bench_child() of
# common.R, with its script in the work directory).
run_child <- function(code, keep = NULL) bench_child(code, work, keep)

worker_rss_code <- '
w_rss <- unlist(future.apply::future_lapply(seq_len(future::nbrOfWorkers()), function(i) {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
}, future.scheduling = Inf))
cat(sprintf("RESULT worker_rss_max %.1f\\n", max(w_rss)))'

predict_case <- function(rule, mode) {
  fit_name <- if (rule == "goose") "ltsa" else "lgrm"
  meth <- if (rule == "goose") ', method = "goose"' else ""
  setup <- switch(mode,
    in_process = "options(manifoldOOS.threads = 2L)",
    one_worker = "future::plan(future::cluster, workers = \"localhost\")",
    two_workers = "future::plan(future::multisession, workers = 2)")
  par <- if (mode == "in_process") "FALSE" else "TRUE"
  code <- c(
    sprintf('fit <- readRDS("%s")[["%s"]]', file.path(work, "fits.rds"), fit_name),
    sprintf('x <- readRDS("%s")', file.path(work, "x.rds")),
    if (mode == "one_worker" && n_one < n_rows) sprintf('x <- x[seq_len(%.0f), , drop = FALSE]; gc()', n_one),
    setup,
    # warm-up: workers started and the package loaded before timing
    sprintf('invisible(predict(fit, x[1:10, ]%s, parallel = %s))', meth, par),
    'gc()',
    't0 <- proc.time()[["elapsed"]]',
    sprintf('y <- predict(fit, x%s, chunk_size = %.0f, parallel = %s)', meth, chunk, par),
    'cat(sprintf("RESULT seconds %.3f\\n", proc.time()[["elapsed"]] - t0))',
    if (mode != "in_process") worker_rss_code,
    if (mode != "in_process") 'future::plan(future::sequential)')
  r <- run_child(code)
  rows <- if (mode == "one_worker") n_one else n_rows
  data.frame(rule = rule, mode = mode, rows = rows, rows_per_s = rows / r$values[["seconds"]],
             seconds = r$values[["seconds"]], peak_rss_mb = r$rss,
             worker_peak_rss_mb = if ("worker_rss_max" %in% names(r$values)) r$values[["worker_rss_max"]] else NA)
}

if ("predict" %in% parts) {
cat("\n-- predict(): throughput and memory (child processes; workers single-threaded) --\n")
pr <- do.call(rbind, lapply(rules, function(rule) {
  do.call(rbind, lapply(c("in_process", "one_worker", "two_workers"), function(m) predict_case(rule, m)))
}))
pr$rows_per_s <- round(pr$rows_per_s)
pr$seconds <- round(pr$seconds, 2)
pr$peak_rss_mb <- round(pr$peak_rss_mb)
pr$worker_peak_rss_mb <- round(pr$worker_peak_rss_mb)
print(pr, row.names = FALSE)
for (rule in rules) {
  s <- pr[pr$rule == rule, ]
  tp <- stats::setNames(s$rows_per_s, s$mode)
  cat(sprintf("  %s: 2 workers / 1 worker = %.2f (target >= 1.7); 2 workers / in-process 2 threads = %.2f (target >= 0.9)\n",
              rule, tp[["two_workers"]] / tp[["one_worker"]], tp[["two_workers"]] / tp[["in_process"]]))
}
ship <- run_child(c(
  sprintf('fit <- readRDS("%s")[["lgrm"]]', file.path(work, "fits.rds")),
  sprintf('x <- readRDS("%s")[1:%d, ]', file.path(work, "x.rds"), as.integer(min(20000, n_rows))),
  'future::plan(future::multisession, workers = 2)',
  'log <- get("ship_log", envir = asNamespace("manifoldOOS"))',
  'y <- predict(fit, x, chunk_size = ceiling(nrow(x) / 20), parallel = TRUE)',
  'cat(sprintf("RESULT sent %d\\n", log$sent))',
  'cat(sprintf("RESULT fit_mb %.2f\\n", length(serialize(fit, NULL)) / 2^20))',
  'future::plan(future::sequential)'))
cat(sprintf("  shipping: 20 chunks on 2 workers sent the fit (%.1f MB) %d times (once per worker)\n",
            ship$values[["fit_mb"]], as.integer(ship$values[["sent"]])))

}

if ("file" %in% parts) {
cat("\n-- predict_file(): CSV in, CSV out --\n")
csv <- file.path(work, "x.csv")
local({
  x <- readRDS(file.path(work, "x.rds"))
  data.table::fwrite(as.data.frame(x), csv)
})
cat(sprintf("  input: %s rows, %.0f MB\n", format(n_rows, big.mark = ",", scientific = FALSE), file.size(csv) / 2^20))
file_case <- function(mode) {
  setup <- if (mode == "two_workers") "future::plan(future::multisession, workers = 2)" else "options(manifoldOOS.threads = 2L)"
  par <- if (mode == "two_workers") "TRUE" else "FALSE"
  r <- run_child(c(
    sprintf('fit <- readRDS("%s")[["ltsa"]]', file.path(work, "fits.rds")),
    setup,
    sprintf('invisible(predict(fit, matrix(0, 2, %d), method = "goose", parallel = %s))', p, par),
    't0 <- proc.time()[["elapsed"]]',
    sprintf('predict_file(fit, "%s", "%s", chunk_size = %.0f, method = "goose", parallel = %s)',
            csv, file.path(work, "y.csv"), chunk, par),
    'cat(sprintf("RESULT seconds %.3f\\n", proc.time()[["elapsed"]] - t0))',
    if (mode == "two_workers") worker_rss_code,
    if (mode == "two_workers") 'future::plan(future::sequential)'))
  data.frame(rule = "goose", mode = mode, rows_per_s = round(n_rows / r$values[["seconds"]]),
             seconds = round(r$values[["seconds"]], 2), peak_rss_mb = round(r$rss),
             worker_peak_rss_mb = if ("worker_rss_max" %in% names(r$values)) round(r$values[["worker_rss_max"]]) else NA)
}
pf <- rbind(file_case("in_process"), file_case("two_workers"))
print(pf, row.names = FALSE)
if (exists("pr")) {
  g_in <- pr$rows_per_s[pr$rule == "goose" & pr$mode == "in_process"]
  cat(sprintf("  predict_file / predict (GOoSE, in process): %.2f of the throughput\n",
              pf$rows_per_s[1] / g_in))
}
}

# kNN data: a 10-dimensional latent Gaussian, linear map to d dimensions, noise 0.3
latent <- function(n, d, seed) {
  set.seed(seed)
  matrix(rnorm(n * 10), n, 10) %*% matrix(rnorm(10 * d), 10, d) + 0.3 * matrix(rnorm(n * d), n, d)
}
recall <- function(a, b) mean(vapply(seq_len(nrow(a)), function(i) length(intersect(a[i, ], b[i, ])), 0)) / ncol(a)

if ("knn" %in% parts) {
hp0 <- manifoldOOS:::check_hnsw_args(list())
hp0$ef <- max(manifoldOOS:::hnsw_default_ef, 11L)
cat(sprintf("\n-- HNSW vs exact: self-kNN, k = 10 (package defaults M = %d, ef_construction = %d, ef = %d; RcppHNSW at the same) --\n",
            hp0$M, hp0$ef_construction, hp0$ef))
cat("  data: 10-dimensional latent Gaussian, linear map to d dimensions, noise 0.3\n")
hn <- list()
for (n in knn_ns) for (d in c(50L, 100L)) {
  if (n >= 1e6 && d == 100L && !big) next
  X <- latent(n, d, 7)
  sample_q <- if (n > 2e4) sort(sample.int(n, 2000)) else seq_len(n)
  options(manifoldOOS.hnsw_cache = FALSE)
  t_h <- system.time(h <- knn(X, 10, method = "hnsw"))[["elapsed"]]
  # exact reference on a sample of queries (self excluded by index, as the self-search)
  t_es <- system.time(ex <- knn(X, 11, query = X[sample_q, , drop = FALSE], method = "exact"))[["elapsed"]]
  ex_idx <- t(vapply(seq_along(sample_q), function(r) setdiff(ex$idx[r, ], sample_q[r])[1:10], integer(10)))
  t_exact <- if (length(sample_q) == n) t_es else t_es * n / length(sample_q)
  rec <- recall(h$idx[sample_q, , drop = FALSE], ex_idx)
  t_r <- NA_real_
  rec_r <- NA_real_
  if (have("RcppHNSW")) {
    t_r <- system.time(r <- RcppHNSW::hnsw_knn(X, k = 11, M = hp0$M, ef_construction = hp0$ef_construction, ef = hp0$ef,
                                                n_threads = 2))[["elapsed"]]
    rec_r <- recall(r$idx[sample_q, -1, drop = FALSE], ex_idx)
  }
  t_rann <- NA_real_
  if (have("RANN")) {
    t_rs <- system.time(RANN::nn2(X, X[sample_q[1:200], , drop = FALSE], k = 11))[["elapsed"]]
    t_rann <- t_rs * n / 200
  }
  hn[[length(hn) + 1L]] <- data.frame(
    n = n, d = d, hnsw_s = round(t_h, 1), hnsw_recall = round(rec, 4),
    exact_s = round(t_exact, 1), exact_timed = if (length(sample_q) == n) "all" else "sample x n/2000",
    speedup = round(t_exact / t_h, 1), RcppHNSW_s = round(t_r, 1), RcppHNSW_recall = round(rec_r, 4),
    RANN_s_extrapolated = round(t_rann, 1))
  print(hn[[length(hn)]], row.names = FALSE)   # progress: each row as it is measured
  rm(X)
  gc(FALSE)
}
options(manifoldOOS.hnsw_cache = TRUE)
print(do.call(rbind, hn), row.names = FALSE)
}

if ("hnsw_grid" %in% parts) {
cat("\n-- HNSW settings: recall@10 and time, ours and RcppHNSW at the SAME (M, ef_construction, ef) --\n")
cat("  self-kNN k = 10 on the latent-Gaussian data; recall on 2000 sampled queries against the exact search\n")
grid <- data.frame(M = c(16L, 16L, 12L, 12L, 8L), ef_construction = c(100L, 50L, 50L, 32L, 32L),
                   ef = c(64L, 32L, 32L, 24L, 20L))
grid_n <- as.numeric(Sys.getenv("SCALE_GRID_N", "1e5"))
grid_d <- as.integer(strsplit(Sys.getenv("SCALE_GRID_D", "50,100"), ",")[[1]])
gr <- list()
for (d in grid_d) {
  X <- latent(grid_n, d, 7)
  set.seed(1)
  sample_q <- sort(sample.int(grid_n, 2000))
  t_es <- system.time(ex <- knn(X, 11, query = X[sample_q, , drop = FALSE], method = "exact"))[["elapsed"]]
  t_exact <- t_es * grid_n / length(sample_q)
  ex_idx <- t(vapply(seq_along(sample_q), function(r) setdiff(ex$idx[r, ], sample_q[r])[1:10], integer(10)))
  options(manifoldOOS.hnsw_cache = FALSE)
  for (g in seq_len(nrow(grid))) {
    a <- as.list(grid[g, ])
    t_h <- system.time(h <- knn(X, 10, method = "hnsw", hnsw_args = a))[["elapsed"]]
    t_r <- rec_r <- NA_real_
    if (have("RcppHNSW")) {
      t_r <- system.time(r <- RcppHNSW::hnsw_knn(X, k = 11, M = a$M, ef_construction = a$ef_construction,
                                                  ef = a$ef, n_threads = 2))[["elapsed"]]
      rec_r <- recall(r$idx[sample_q, -1, drop = FALSE], ex_idx)
    }
    gr[[length(gr) + 1L]] <- data.frame(
      n = grid_n, d = d, M = a$M, ef_construction = a$ef_construction, ef = a$ef,
      hnsw_s = round(t_h, 1), recall = round(recall(h$idx[sample_q, , drop = FALSE], ex_idx), 4),
      exact_s = round(t_exact, 1), exact_over_hnsw = round(t_exact / t_h, 1),
      RcppHNSW_s = round(t_r, 1), RcppHNSW_recall = round(rec_r, 4))
    print(gr[[length(gr)]], row.names = FALSE)
  }
  options(manifoldOOS.hnsw_cache = TRUE)
  rm(X)
  gc(FALSE)
}
print(do.call(rbind, gr), row.names = FALSE)
}

if ("threshold" %in% parts) {
cat("\n-- method = \"auto\" threshold: exact vs HNSW self-kNN (k = 10), d = 50 --\n")
thr <- do.call(rbind, lapply(c(1e4, 2e4, 5e4), function(n) {
  X <- latent(n, 50L, 3)
  options(manifoldOOS.hnsw_cache = FALSE)
  te <- system.time(knn(X, 10, method = "exact"))[["elapsed"]]
  th <- system.time(knn(X, 10, method = "hnsw"))[["elapsed"]]
  data.frame(n = n, exact_s = round(te, 2), hnsw_s = round(th, 2), exact_over_hnsw = round(te / th, 2))
}))
options(manifoldOOS.hnsw_cache = TRUE)
print(thr, row.names = FALSE)
}

if (big || "fits" %in% parts) {
  n_big <- num_env("SCALE_FIT_BIG", 1e6)
  fit_names <- strsplit(Sys.getenv("SCALE_FITS", "laplacian_eigenmaps,ltsa"), ",")[[1]]
  cat(sprintf("\n-- LE and LTSA fits on %s x 50 (knn_method = \"auto\" -> HNSW; child processes) --\n",
              format(n_big, big.mark = ",", scientific = FALSE)))
  saveRDS(roll50(n_big, 5), file.path(work, "xbig.rds"), compress = FALSE)
  for (f in fit_names) {
    # the roll's true parameter t is regenerated from the seed of roll50(n_big, 5)
    r <- run_child(c(
      sprintf('X <- readRDS("%s")', file.path(work, "xbig.rds")),
      't0 <- proc.time()[["elapsed"]]',
      sprintf('fit <- %s(X, 2, k = 10, verbose = TRUE)', f),
      'cat(sprintf("RESULT seconds %.3f\\n", proc.time()[["elapsed"]] - t0))',
      'cat(sprintf("RESULT hnsw %d\\n", as.integer(fit$params$knn_method == "hnsw")))',
      sprintf('set.seed(5); tt <- 1.5 * pi * (1 + 2 * runif(%.0f))', n_big),
      'Y <- fit$embedding',
      'cat(sprintf("RESULT spearman_t %.4f\\n", max(abs(cor(Y, tt, method = "spearman")))))',
      'set.seed(1); s <- sample.int(nrow(X), 5000)',
      'cat(sprintf("RESULT trust_5000 %.4f\\n", trustworthiness(X[s, ], Y[s, ], k = 10)))'),
      keep = "^[0-9]{2}:[0-9]{2}:[0-9]{2} ")
    if (length(r$values)) {
      cat(sprintf("  %s: %.0f s, search %s, peak RSS %.0f MB, max |Spearman(y_j, t)| = %.4f, trustworthiness (k = 10, 5000-point sample) = %.4f\n",
                  f, r$values[["seconds"]], if (isTRUE(r$values[["hnsw"]] == 1)) "hnsw" else "exact", r$rss,
                  r$values[["spearman_t"]], r$values[["trust_5000"]]))
    }
  }
} else {
  cat("\n  (n = 1e6 HNSW rows and the LE/LTSA fits on 1e6 x 50 run with SCALE_BIG=1)\n")
}
unlink(work, recursive = TRUE)
