# The deflated bottom eigen-solve with the automatic solver choice, two
# builds of the package side by side: the change that hands the symbolic
# analysis behind a shift-invert choice to the factorisation (before it, the
# prediction and the factorisation each analysed the matrix). Graphs where
# the choice is shift-invert: the atlas benchmark's roll in its 3-D
# coordinates (bench/common.R, rotated_roll(n, 11, noise = 0.3) projected),
# k = 15 HNSW graph, symmetric Laplacian, 2 eigenpairs; n = 2e4 and 5e4 (the
# window of the prediction is 2e4 to 1e5 rows). One thread count (the
# default), median of EIG_REPS runs per build and size, the builds
# alternated, and the eigenvectors of the two compared.
# Run from the package root:
#   EIG_LIBS=/path/to/old/lib,/path/to/new/lib Rscript bench/eigen-analysis-reuse.R
source("bench/common.R")
libs <- build_libs("EIG_LIBS", "eigen-analysis-reuse")
reps <- as.integer(Sys.getenv("EIG_REPS", "3"))
sizes <- as.numeric(strsplit(Sys.getenv("EIG_N", "2e4,5e4"), ",")[[1]])
if (!is.null(libs)) {
  suppressPackageStartupMessages(library(manifoldOOS, lib.loc = libs[2]))
  rows <- list()
  for (n in sizes) {
    d <- rotated_roll(n, 11, noise = 0.3, p = 50L)
    X <- d$x %*% d$rot
    g <- neighbor_graph(X, k = 15, knn_method = "hnsw")
    L <- methods::as(graph_laplacian(g$W, "symmetric"), "CsparseMatrix")
    lf <- tempfile(fileext = ".rds")
    saveRDS(list(L = L, u = sqrt(Matrix::rowSums(g$W))), lf)
    outs <- c(tempfile(fileext = ".rds"), tempfile(fileext = ".rds"))
    for (r in seq_len(reps)) for (i in 1:2) {
      t <- run_in_build(libs[i], sprintf('P <- readRDS("%s")
  el <- system.time(res <- manifoldOOS:::eigs_bottom_deflated(P$L, P$u, 2L))[["elapsed"]]
  saveRDS(res[c("values", "vectors")], "%s")
  cat(as.integer(grepl(": shift-invert", res$note)), el, "\\n")', lf, outs[i]))
      rows[[length(rows) + 1]] <- data.frame(n = n, build = c("old", "new")[i], rep = r,
                                             shift_invert = as.logical(t[1]), seconds = t[2])
    }
    same <- identical(readRDS(outs[1]), readRDS(outs[2]))
    rows[[length(rows)]]$identical <- same
    cat(sprintf("n = %g: eigenpairs of the two builds identical: %s\n", n, same))
  }
  res <- do.call(rbind, lapply(rows, function(r) r[c("n", "build", "rep", "shift_invert", "seconds")]))
  med <- aggregate(seconds ~ n + build, res, stats::median)
  print(med, row.names = FALSE)
  for (n in sizes) {
    cat(sprintf("n = %g: new / old %.3f (shift-invert chosen in every run: %s)\n", n,
                med$seconds[med$n == n & med$build == "new"] / med$seconds[med$n == n & med$build == "old"],
                all(res$shift_invert[res$n == n])))
  }
  cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
              format(Sys.time(), tz = "UTC", usetz = TRUE)))
}
