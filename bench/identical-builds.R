# Two builds of the package give the same answers: the exact kNN lists on
# nine cases (a query search, self-searches, duplicated rows, integer ties,
# k = n - 1, brute force in 3-D, and the kd-tree in 3-D: a self-search, a
# query search of 64 neighbours, integer ties) and PLML's labels and embedding on four
# fits of 2 x 10^4 points (the second roll generator of plml_seeding.R:
# seed 1 k = 12 and 13, seed 3 k = 9, seed 2 k = 10), and the diffusion
# map's predict() of 2,050 new rows (50 of them copies of training rows,
# which snap) for fits of 10^4 rows with the exact and the HNSW search; and
# the embeddings and eigenvalues of fits through the sparse eigen-solvers
# (Laplacian eigenmaps and LTSA with LOBPCG, diffusion maps with the kNN
# kernel by shift-invert and by LOBPCG; the screen of the automatic choice
# on a 3-D and a 50-D graph).
# Since 2026-11-29 also kd-tree searches on the principal axes in 20 and 50
# columns (self-search, queries, integer ties, far queries) and Isomap and LLE
# fits of 4,000 x 50 rows, whose exact searches take that tree.
# Written for changes meant to leave results unchanged (the kNN candidate
# heap, PLML's feasibility check, the diffusion map's single search in
# predict(), the kd-tree's candidate heap, the layout of PLML's assignment
# solve, the kernel handed to the eigen-solve, block products with sparse
# matrices, one breadth-first search for LOBPCG's order and the screen, the
# tall block products of LOBPCG, column-major AMG products, the V-cycle in
# place). Run from the package root:
#   SAME_LIBS=/path/to/old/lib,/path/to/new/lib Rscript bench/identical-builds.R
source("bench/common.R")
libs <- build_libs("SAME_LIBS", "identical-builds")
if (!is.null(libs)) {
  outs <- c(tempfile(fileext = ".rds"), tempfile(fileext = ".rds"))
  code <- 'd <- rotated_roll(25000, 7, noise = 0.3, p = 50L)$x
  x <- d[1:20000, ]; xn <- d[20001:25000, ]
  set.seed(3); xd <- rbind(x[1:3000, ], x[1:500, ]); xi <- matrix(sample(0:3, 4000 * 20, TRUE), 4000, 20)
  other_roll <- function(n, seed) {
    set.seed(seed); t <- 1.5 * pi * (1 + 2 * runif(n)); y <- 21 * runif(n)
    cbind(t * cos(t), y, t * sin(t))
  }
  t0 <- proc.time()[["elapsed"]]
  res <- list(knn_query = knn(x, 151L, query = xn), knn_self = knn(x[1:5000, ], 15L), knn_dup = knn(xd, 30L),
              knn_ties = knn(xi, 40L), knn_all = knn(xi[1:300, ], 299L),
              knn_brute = knn(x[1:3000, 1:3], 20L, algorithm = "brute"),
              knn_kd_self = knn(x[, 1:3], 20L, algorithm = "kdtree"),
              knn_kd_query = knn(x[1:2222, 1:3], 64L, query = x[, 1:3], algorithm = "kdtree"),
              knn_kd_ties = knn(xi[, 1:3], 25L, algorithm = "kdtree"),
              # the kd-tree on the principal axes (more than 15 columns): by
              # the pilot of "auto" (knn_query above) and by request
              knn_kd50_self = knn(x[1:6000, ], 12L, algorithm = "kdtree"),
              knn_kd50_query = knn(x[1:6000, ], 40L, query = xd, algorithm = "kdtree"),
              knn_kd20_ties = knn(xi, 40L, query = xi[1:1500, ] + 0.5, algorithm = "kdtree"),
              knn_kd50_far = knn(x[1:6000, ], 5L, query = rbind(1e4 * xn[1:30, ], 0 * xn[1:3, ])))
  res$isomap50 <- embedding(isomap(x[1:4000, ], 2, k = 12))
  res$lle50 <- embedding(lle(x[1:4000, ], 2, k = 12))
  for (cs in list(c(1, 12), c(1, 13), c(3, 9), c(2, 10))) {
    f <- plml(other_roll(20000, cs[1]), k = cs[2], seed = 1)
    res[[sprintf("plml_seed%d_k%d", cs[1], cs[2])]] <- list(y = embedding(f), labels = f$labels)
  }
  xq <- rbind(xn[1:2000, ], x[1:50, ])
  for (km in c("exact", "hnsw")) {
    f <- diffusion_map(x[1:10000, ], 2, k = 15, knn_method = km)
    p <- predict(f, xq)
    res[[paste0("dm_predict_", km)]] <- list(y = unclass(p), snapped = attr(p, "snapped"))
  }
  # fits through the sparse eigen-solvers: LOBPCG (its block products with
  # the matrix, AMG), the symmetry check, and the diffusion map kernel K = W + I
  # taken over by the eigen-solve (shift-invert at 10^4 rows; LOBPCG when
  # chosen from 5,000 rows on by size)
  fit_parts <- function(f) list(y = embedding(f), values = f$eigenvalues, method = f$solver$method)
  res$le_lobpcg <- fit_parts(laplacian_eigenmaps(x, 2, k = 15, eigen_solver = "lobpcg"))
  res$ltsa_lobpcg <- fit_parts(ltsa(x[1:10000, ], 2, k = 15, eigen_solver = "lobpcg"))
  res$dm_fit_knn <- fit_parts(diffusion_map(x[1:10000, ], 2, k = 15))
  res$dm_fit_knn_alpha <- fit_parts(diffusion_map(x[1:10000, ], 3, k = 10, alpha = 0.5, kernel_k = 40))
  op <- options(manifoldOOS.lobpcg_min_n = 5000L, manifoldOOS.fill_screen_n = 0L)
  res$dm_fit_knn_lobpcg <- fit_parts(diffusion_map(x, 2, k = 15))
  # the screen of the automatic choice (two breadth-first patches): its
  # predictions are in the note
  options(manifoldOOS.fill_screen_n = 8000L)
  f <- laplacian_eigenmaps(x[, 1:3], 2, k = 12)
  res$le_screen_3d <- c(fit_parts(f), note = f$solver$note)
  f <- laplacian_eigenmaps(x, 2, k = 12)
  res$le_screen_50d <- c(fit_parts(f), note = f$solver$note)
  options(op)
  saveRDS(res, "OUTFILE")
  cat(proc.time()[["elapsed"]] - t0, "\\n")'
  for (i in 1:2) run_in_build(libs[i], c('source("bench/common.R")', sub("OUTFILE", outs[i], code, fixed = TRUE)))
  a <- readRDS(outs[1])
  b <- readRDS(outs[2])
  print(data.frame(case = names(a), identical = mapply(identical, a, b)), row.names = FALSE)
  cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
              format(Sys.time(), tz = "UTC", usetz = TRUE)))
}
