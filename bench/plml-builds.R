# plml() fits and the exact kd-tree search behind its constrained k-means,
# two builds of the package side by side: the whole fit of 2 x 10^4 points
# of the second roll generator of bench/plml_seeding.R (t uniform in
# [1.5 pi, 4.5 pi], height 21) at seed 3, k = 9 and seed 1, k = 13 (the two
# slowest of the grid) and seed 2, k = 10, with its first constrained step;
# and knn() of the 2 x 10^4 points among 2,222 centres (64 neighbours, the
# query of a widened constrained step) and of the points themselves (20
# neighbours), kd-tree, one thread. Medians of PLML_REPS runs per build, the
# builds alternated; the answers of the two builds compared. Written for the
# change to the kd-tree's candidate heap and the layout of PLML's assignment
# solve. Run from the package root:
#   PLML_LIBS=/path/to/old/lib,/path/to/new/lib Rscript bench/plml-builds.R
source("bench/common.R")
libs <- build_libs("PLML_LIBS", "plml-builds")
reps <- as.integer(Sys.getenv("PLML_REPS", "5"))
if (!is.null(libs)) {
  one <- function(lib, out) {
    run_in_build(lib, sprintf('other_roll <- function(n, seed) {
    set.seed(seed); t <- 1.5 * pi * (1 + 2 * runif(n)); y <- 21 * runif(n)
    cbind(t * cos(t), y, t * sin(t))
  }
  res <- list(); tm <- numeric(0)
  for (cs in list(c(3, 9), c(1, 13), c(2, 10))) {
    x <- other_roll(20000, cs[1])
    tm <- c(tm, system.time(f <- plml(x, k = cs[2], seed = 1))[["elapsed"]], f$kmeans$trace[1, "seconds"])
    res[[length(res) + 1]] <- list(embedding(f), f$labels)
  }
  x <- other_roll(20000, 3)
  set.seed(1); centres <- x[sample(nrow(x), 2222), ]
  tm <- c(tm, system.time(res[[length(res) + 1]] <- knn(centres, 64L, query = x, algorithm = "kdtree",
                                                        n_threads = 1))[["elapsed"]])
  tm <- c(tm, system.time(res[[length(res) + 1]] <- knn(x, 20L, algorithm = "kdtree", n_threads = 1))[["elapsed"]])
  saveRDS(res, "%s")
  cat(tm, "\\n")', out))
  }
  rows <- list()
  outs <- c(tempfile(fileext = ".rds"), tempfile(fileext = ".rds"))
  cols <- c("plml_s3_k9_s", "step1_s3_k9_s", "plml_s1_k13_s", "step1_s1_k13_s", "plml_s2_k10_s", "step1_s2_k10_s",
            "knn_query64_s", "knn_self20_s")
  for (r in seq_len(reps)) for (i in 1:2) {
    t <- one(libs[i], outs[i])
    rows[[length(rows) + 1]] <- cbind(data.frame(build = c("old", "new")[i], rep = r), as.data.frame(t(setNames(t, cols))))
  }
  res <- do.call(rbind, rows)
  med <- aggregate(res[cols], by = res["build"], FUN = stats::median)
  med <- med[match(c("old", "new"), med$build), ]
  print(med, row.names = FALSE, digits = 3)
  cat("new / old:", paste(sprintf("%s %.2f", cols, unlist(med[2, cols]) / unlist(med[1, cols])), collapse = ", "), "\n")
  cat(sprintf("embeddings, labels and neighbour lists identical: %s\n", identical(readRDS(outs[1]), readRDS(outs[2]))))
  cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
              format(Sys.time(), tz = "UTC", usetz = TRUE)))
}
