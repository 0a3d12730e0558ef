# HNSW self-search of a point set, two builds of the package side by side:
# the index build and the self-search (k = 15, ef = 32) timed apart, the
# builds alternated, and the neighbour lists of the two compared. Written
# for the change that runs the self-search in breadth-first order of the
# graph (same answers, fewer cache misses). Run from the package root:
#   HNSW_N=2e5 HNSW_LIBS=/path/to/old/lib,/path/to/new/lib Rscript bench/hnsw-self-order.R
# Data: the atlas benchmark's roll (bench/common.R, rotated_roll(n, 7,
# noise = 0.3, p = 50)).
source("bench/common.R")
n <- as.numeric(Sys.getenv("HNSW_N", "2e5"))
libs <- build_libs("HNSW_LIBS", "hnsw-self-order")
reps <- as.integer(Sys.getenv("HNSW_REPS", "2"))
if (!is.null(libs)) {
  x <- unname(rotated_roll(n, 7, noise = 0.3, p = 50L, block = 2e5)$x)
  xf <- tempfile(fileext = ".rds")
  saveRDS(x, xf)
  one <- function(lib, out) {
    run_in_build(lib, sprintf('x <- readRDS("%s")
  b <- system.time(ix <- manifoldOOS:::.mo_hnsw_build(x, 16L, 50L, 42, 2L))[["elapsed"]]
  s <- system.time(nb <- manifoldOOS:::.mo_hnsw_search(ix, NULL, 15L, 32L, 2L))[["elapsed"]]
  saveRDS(nb, "%s")
  cat(b, s, "\\n")', xf, out))
  }
  rows <- list()
  outs <- c(tempfile(fileext = ".rds"), tempfile(fileext = ".rds"))
  for (r in seq_len(reps)) for (i in 1:2) {
    t <- one(libs[i], outs[i])
    rows[[length(rows) + 1]] <- data.frame(build = c("old", "new")[i], rep = r, index_s = t[1], search_s = t[2])
  }
  res <- do.call(rbind, rows)
  print(res, row.names = FALSE)
  med <- aggregate(cbind(index_s, search_s) ~ build, res, stats::median)
  print(med, row.names = FALSE)
  cat(sprintf("n = %g: self-search new / old = %.2f; neighbour lists identical: %s\n", n,
              med$search_s[med$build == "new"] / med$search_s[med$build == "old"],
              identical(readRDS(outs[1]), readRDS(outs[2]))))
  cat(sprintf("load %s; commit %s, %s\n", paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " "),
              tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
              format(Sys.time(), tz = "UTC", usetz = TRUE)))
}
