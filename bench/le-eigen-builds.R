# The eigen-solve of laplacian_eigenmaps() (LOBPCG route) on one stored graph
# with two builds of the package: the k = 15 HNSW graph of the atlas roll of
# bench/atlas.R (n x 50, noise sd 0.3, LE's default heat weights) is built
# once with the second build and saved; then the fit's internal eigen-solve
# (.mo_le_fit_sparse(), generalised Laplacian, 2 dimensions, LOBPCG) runs on
# it in one child process per build, the builds alternated, LEEIG_REPS times.
# Separates the eigen-solve's code from the machine's load when whole fits
# are compared across days. Run from the package root:
#   LEEIG_LIBS=/path/to/old/lib,/path/to/new/lib LEEIG_N=1e6 Rscript bench/le-eigen-builds.R
source("bench/common.R")
libs <- build_libs("LEEIG_LIBS", "le-eigen-builds")
n <- as.numeric(Sys.getenv("LEEIG_N", "1e6"))
reps <- as.integer(Sys.getenv("LEEIG_REPS", "1"))
if (!is.null(libs)) {
  wfile <- tempfile(fileext = ".rds")
  on.exit(unlink(wfile), add = TRUE)
  Sys.setenv(R_LIBS = libs[2])
  g <- bench_child(c('source("bench/common.R")',
    sprintf('X <- rotated_roll(%.0f, 7, noise = 0.3, p = 50L, block = 2e5)$x', n),
    't0 <- proc.time()[["elapsed"]]',
    'g <- neighbor_graph(X, k = 15, symmetrize = "or", weights = "heat", knn_method = "hnsw")',
    'cat("RESULT graph_s", proc.time()[["elapsed"]] - t0, "\\n")',
    sprintf('saveRDS(g$W, "%s", compress = FALSE)', wfile)))
  cat(sprintf("graph of %.0f x 50 rows: %.1f s\n", n, g$values[["graph_s"]]))
  rows <- list()
  outs <- c(tempfile(fileext = ".rds"), tempfile(fileext = ".rds"))
  for (r in seq_len(reps)) for (i in 1:2) {
    Sys.setenv(R_LIBS = libs[i])
    b <- bench_child(c('ns <- asNamespace("manifoldOOS")', sprintf('W <- readRDS("%s")', wfile),
      't0 <- proc.time()[["elapsed"]]',
      'm <- ns$core(ns$.mo_le_fit_sparse(W, "generalized", 2L, ns$le_eig_opts("lobpcg")))',
      'cat("RESULT eigen_s", proc.time()[["elapsed"]] - t0, "\\n")',
      sprintf('saveRDS(list(m$values, m$Y), "%s")', outs[i])))
    rows[[length(rows) + 1L]] <- data.frame(build = c("old", "new")[i], rep = r, eigen_s = b$values[["eigen_s"]],
                                            peak_rss_mb = b$rss)
  }
  print(do.call(rbind, rows), row.names = FALSE, digits = 4)
  cat(sprintf("eigenpairs identical in both builds: %s\n", identical(readRDS(outs[1]), readRDS(outs[2]))))
  cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
              format(Sys.time(), tz = "UTC", usetz = TRUE)))
}
