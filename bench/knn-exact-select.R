# Exact kNN search of new rows among training rows (the brute-force path of
# 50-dimensional data), two builds of the package side by side: k = 1, 16
# and 151 (151: the rows of the diffusion map's default kernel, kernel_k =
# 10 k, plus the point itself), one thread, median of KNN_REPS runs per build
# and k, the builds alternated, and the answers of the two compared. Written
# for the change that replaces the candidate heap's top with one sift-down.
# Run from the package root:
#   KNN_LIBS=/path/to/old/lib,/path/to/new/lib Rscript bench/knn-exact-select.R
# Data: the atlas benchmark's roll (bench/common.R, rotated_roll(25000, 7,
# noise = 0.3, p = 50)): 2 x 10^4 training rows, 5,000 new rows.
source("bench/common.R")
libs <- strsplit(Sys.getenv("KNN_LIBS"), ",", fixed = TRUE)[[1]]
reps <- as.integer(Sys.getenv("KNN_REPS", "5"))
if (length(libs) != 2L) {
  message("knn-exact-select: set KNN_LIBS to two library paths (old build first); skipped")
} else {
  d <- rotated_roll(25000, 7, noise = 0.3, p = 50L)$x
  xf <- tempfile(fileext = ".rds")
  saveRDS(list(x = d[1:20000, ], q = d[20001:25000, ]), xf)
  one <- function(lib, out) {
    run_in_build(lib, sprintf('D <- readRDS("%s")
  res <- list(); tm <- numeric(0)
  for (k in c(1L, 16L, 151L)) {
    tm <- c(tm, system.time(res[[length(res) + 1]] <- knn(D$x, k, query = D$q, n_threads = 1))[["elapsed"]])
  }
  saveRDS(res, "%s")
  cat(tm, "\\n")', xf, out))
  }
  rows <- list()
  outs <- c(tempfile(fileext = ".rds"), tempfile(fileext = ".rds"))
  for (r in seq_len(reps)) for (i in 1:2) {
    t <- one(libs[i], outs[i])
    rows[[length(rows) + 1]] <- data.frame(build = c("old", "new")[i], rep = r, k1_s = t[1], k16_s = t[2], k151_s = t[3])
  }
  res <- do.call(rbind, rows)
  med <- aggregate(cbind(k1_s, k16_s, k151_s) ~ build, res, stats::median)
  print(med, row.names = FALSE)
  cat(sprintf("new / old: k = 1 %.2f, k = 16 %.2f, k = 151 %.2f; neighbour lists identical: %s\n",
              med$k1_s[med$build == "new"] / med$k1_s[med$build == "old"],
              med$k16_s[med$build == "new"] / med$k16_s[med$build == "old"],
              med$k151_s[med$build == "new"] / med$k151_s[med$build == "old"],
              identical(readRDS(outs[1]), readRDS(outs[2]))))
  cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
              format(Sys.time(), tz = "UTC", usetz = TRUE)))
}
