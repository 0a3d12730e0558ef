# The diffusion map's fit with the kNN kernel on kernel_k = 10 k neighbours (the
# default up to 20,000 points) with two
# builds of the package side by side, and Laplacian eigenmaps on the same
# data with the new build, one child process per fit (peak RSS from
# /usr/bin/time -v): the Swiss roll rotated into 50 dimensions with noise
# sd 0.3 of bench/atlas.R, k = 15, HNSW neighbours. DIFF_REPS runs per build,
# the builds alternated; medians; the two builds' embeddings compared.
# Written for the change that hands the kernel's weights to the eigen-solve
# (no copy of the kernel in R), renumbers it in place and specialises the
# block products of LOBPCG. Run from the package root:
#   DIFF_LIBS=/path/to/old/lib,/path/to/new/lib Rscript bench/diffusion-builds.R
# (DIFF_N, default 1e5; DIFF_REPS, default 2)
source("bench/common.R")
libs <- build_libs("DIFF_LIBS", "diffusion-builds")
n <- as.numeric(Sys.getenv("DIFF_N", "1e5"))
reps <- as.integer(Sys.getenv("DIFF_REPS", "2"))
if (!is.null(libs)) {
  outs <- c(tempfile(fileext = ".rds"), tempfile(fileext = ".rds"))
  code <- function(fit, out) c('source("bench/common.R")',
    sprintf('X <- rotated_roll(%.0f, 7, noise = 0.3, p = 50L, block = 2e5)$x', n),
    sprintf('t0 <- proc.time()[["elapsed"]]; f <- %s; s <- proc.time()[["elapsed"]] - t0', fit),
    sprintf('saveRDS(list(y = embedding(f), values = f$eigenvalues), "%s")', out),
    'cat("RESULT seconds", s, "\\n")')
  dm <- 'diffusion_map(X, 2, k = 15, kernel_k = 150, knn_method = "hnsw")'
  le <- 'laplacian_eigenmaps(X, 2, k = 15, knn_method = "hnsw")'
  rows <- list()
  run <- function(lib, what, fit, out, r) {
    Sys.setenv(R_LIBS = lib)
    b <- bench_child(code(fit, out))
    rows[[length(rows) + 1L]] <<- data.frame(fit = what, rep = r, seconds = b$values[["seconds"]], peak_rss_mb = b$rss)
  }
  for (r in seq_len(reps)) {
    run(libs[1], "diffusion_map, old build", dm, outs[1], r)
    run(libs[2], "diffusion_map, new build", dm, outs[2], r)
    run(libs[2], "laplacian_eigenmaps, new build", le, tempfile(fileext = ".rds"), r)
  }
  res <- do.call(rbind, rows)
  med <- aggregate(res[c("seconds", "peak_rss_mb")], by = res["fit"], FUN = stats::median)
  le_row <- med[grepl("laplacian", med$fit), ]
  med$time_vs_le <- round(med$seconds / le_row$seconds, 2)
  med$rss_vs_le <- round(med$peak_rss_mb / le_row$peak_rss_mb, 2)
  cat(sprintf("n = %.0f x 50, k = 15, medians of %d\n", n, reps))
  print(med, row.names = FALSE, digits = 4)
  cat(sprintf("diffusion map embeddings and eigenvalues identical in both builds: %s\n",
              identical(readRDS(outs[1]), readRDS(outs[2]))))
  cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
              format(Sys.time(), tz = "UTC", usetz = TRUE)))
}
