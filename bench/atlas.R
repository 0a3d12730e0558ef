# Atlas-scale Laplacian eigenmaps: a Swiss roll rotated into 50 dimensions
# with noise sd 0.3, HNSW neighbours, k = 15. Run with
#   nice -n 5 Rscript bench/run.R atlas
# Environment:
#   ATLAS_N        sizes (comma separated)                        default 1e5
#   ATLAS_FIT_DIMS "50" (the roll in 50 noisy dimensions; default) and/or "3"
#                  (its 3-D coordinates with the projected noise, as in the
#                  calibration); scikit-learn runs on the 50-D data only
#   ATLAS_ROUTES   eigen_solver values of laplacian_eigenmaps()   default lobpcg,sparse;
#                  "diffusion" (diffusion_map(), default kNN kernel),
#                  "diffusion_k" (its kernel on k neighbours) and "diffusion_10k"
#                  (on 10 k, the default up to 20,000 points) add those fits;
#                  "ltsa", "ltsa_sparse" and "ltsa_auto": ltsa() with eigen_solver "lobpcg" / "sparse" / "auto";
#                  "lgrm", "lgrm_iterative" and "lgrm_lobpcg": lgrm() with 200
#                  landmarks, gamma = "scaled" and eigen_solver "auto" /
#                  "iterative" (shift-invert, Woodbury) / "lobpcg"
#   ATLAS_SKLEARN  "1": scikit-learn SpectralEmbedding at sizes <= 1e5 (default "1");
#                  its default solver, and eigen_solver = "amg" when pyamg imports
#   ATLAS_KNN      "0": no separate knn() row (the fits' progress lines time the graph)
#   ATLAS_PYTHON   python with scikit-learn                        default /usr/bin/python3
#   ATLAS_TIMEOUT  seconds before a peer run is stopped            default 1800
#   ATLAS_PARTS    "fits" (the table above; default) and/or "calibrate": the
#                  deflated eigen-solve alone (shift-invert against LOBPCG) on
#                  the symmetric Laplacian of 3-D and 50-D rolls (ATLAS_CAL_N,
#                  default "2e4,1e5"; ATLAS_CAL_DIMS, default "3,50"), in this
#                  process, for the automatic choice, with the predicted fill
#                  of the whole matrix and of the screen on two patches
#                  (ATLAS_CAL_SOLVE=0: the predictions only, no solves)
# Every run is a child process under /usr/bin/time -v (bench_child() of
# common.R): seconds, peak RSS, and |Spearman| of the first coordinate with
# the roll parameter t. The knn() row times the HNSW search alone.

num_env <- function(name, default) as.numeric(Sys.getenv(name, as.character(default)))
parts <- strsplit(Sys.getenv("ATLAS_PARTS", "fits"), ",")[[1]]
sizes <- as.numeric(strsplit(Sys.getenv("ATLAS_N", "1e5"), ",")[[1]])
routes <- strsplit(Sys.getenv("ATLAS_ROUTES", "lobpcg,sparse"), ",")[[1]]
do_sk <- Sys.getenv("ATLAS_SKLEARN", "1") == "1"
python <- Sys.getenv("ATLAS_PYTHON", "/usr/bin/python3")
timeout <- num_env("ATLAS_TIMEOUT", 1800)
p <- 50L
k <- 15L

work <- tempfile("atlas-bench-")
dir.create(work)

# The roll: parameter t, height h, a fixed random rotation into 50
# dimensions, isotropic noise sd 0.3, filled in row blocks (rotated_roll() of
# common.R).
atlas_roll <- function(n, seed) rotated_roll(n, seed, noise = 0.3, p = p, block = 2e5)
rot <- atlas_roll(1, 1)$rot

if ("calibrate" %in% parts) {
  cal_n <- as.numeric(strsplit(Sys.getenv("ATLAS_CAL_N", "2e4,1e5"), ",")[[1]])
  cal <- list()
  cal_dims <- as.integer(strsplit(Sys.getenv("ATLAS_CAL_DIMS", "3,50"), ",")[[1]])
  for (n in cal_n) for (dim in cal_dims) {
    d <- atlas_roll(n, 11)
    X <- if (dim == 3L) d$x %*% rot else d$x   # 3-D: the roll's own coordinates (plus the projected noise)
    g <- neighbor_graph(X, k = k, knn_method = "hnsw")
    L <- methods::as(graph_laplacian(g$W, "symmetric"), "CsparseMatrix")
    u <- sqrt(Matrix::rowSums(g$W))
    rm(g, X)
    # the symbolic analysis the automatic choice reads (predicted factor)
    t0 <- proc.time()[["elapsed"]]
    fill <- manifoldOOS:::.mo_predicted_fill(L)
    t_fill <- proc.time()[["elapsed"]] - t0
    cat(sprintf("  n = %g, %d-D: predicted factor %.3g nonzeros, %.3g flops per nonzero of L (analysis %.2f s)\n",
                n, dim, fill[["lnz"]], fill[["flops"]] / length(L@x), t_fill))
    # the screen of the automatic choice from lobpcg_min_n rows on: two
    # breadth-first patches (fill_screen_n / 2 and fill_screen_n rows)
    # analysed, their flops per nonzero extrapolated to n rows (the
    # threshold 0 stops it there, without the analysis of the whole matrix)
    t0 <- proc.time()[["elapsed"]]
    scr <- manifoldOOS:::.mo_choose_deflated(L, manifoldOOS:::eig_opts(lobpcg_min_n = 0L, lobpcg_flops_per_nnz = 0))
    t_screen <- proc.time()[["elapsed"]] - t0
    screen_pred <- suppressWarnings(as.numeric(sub(".*, about ([0-9.e+]+) at .*", "\\1", scr$note)))
    cat(sprintf("  n = %g, %d-D: the screen predicts %.3g flops per nonzero (%.2f s)\n", n, dim, screen_pred, t_screen))
    for (solver in if (Sys.getenv("ATLAS_CAL_SOLVE", "1") == "1") c("shift_invert", "lobpcg") else "none") {
      if (solver == "none") {
        cal[[length(cal) + 1L]] <- data.frame(n = n, dim = dim, nnz = length(L@x), lnz = signif(fill[["lnz"]], 3),
                                              flops_per_nnz = signif(fill[["flops"]] / length(L@x), 3),
                                              analysis_s = round(t_fill, 2), screen_pred = signif(screen_pred, 3),
                                              screen_s = round(t_screen, 2), solver = solver, seconds = NA,
                                              lambda1 = NA, spearman = NA)
        next
      }
      gc(FALSE)
      t0 <- proc.time()[["elapsed"]]
      r <- manifoldOOS:::eigs_bottom_deflated(L, u, 2L, deflated = solver)
      el <- proc.time()[["elapsed"]] - t0
      y <- r$vectors[, 1] / u
      cal[[length(cal) + 1L]] <- data.frame(n = n, dim = dim, nnz = length(L@x), lnz = signif(fill[["lnz"]], 3),
                                            flops_per_nnz = signif(fill[["flops"]] / length(L@x), 3),
                                            analysis_s = round(t_fill, 2), screen_pred = signif(screen_pred, 3),
                                            screen_s = round(t_screen, 2), solver = solver,
                                            seconds = round(el, 2), lambda1 = signif(r$values[1], 8),
                                            spearman = round(abs(cor(y, d$t, method = "spearman")), 5))
      cat(sprintf("  n = %g, %d-D: %s %.2f s (%s)\n", n, dim, solver, el, r$note))
    }
  }
  cat("\n-- calibration of the automatic choice: deflated eigen-solve only (k = 15, HNSW graph) --\n")
  print(do.call(rbind, cal), row.names = FALSE)
}
if (!"fits" %in% parts) sizes <- numeric(0)

rows <- list()
fit_dims <- as.integer(strsplit(Sys.getenv("ATLAS_FIT_DIMS", "50"), ",")[[1]])
fdim <- p
add_row <- function(...) rows[[length(rows) + 1L]] <<- data.frame(..., dim = fdim, stringsAsFactors = FALSE)

for (n in sizes) for (fdim in fit_dims) {
  d <- atlas_roll(n, 7)
  if (fdim == 3L) d$x <- d$x %*% rot
  fx <- file.path(work, "x.rds")
  ft <- file.path(work, "t.rds")
  saveRDS(d$x, fx, compress = FALSE)
  saveRDS(d$t, ft, compress = FALSE)
  nlab <- format(n, big.mark = ",", scientific = FALSE)
  cat(sprintf("\n-- n = %s x %d, k = %d --\n", nlab, fdim, k))
  if (Sys.getenv("ATLAS_KNN", "1") == "1") {
  r <- bench_child(c(
    'options(manifoldOOS.hnsw_cache = FALSE)',
    sprintf('X <- readRDS("%s")', fx),
    't0 <- proc.time()[["elapsed"]]',
    sprintf('nb <- knn(X, %d, method = "hnsw")', k),
    'cat(sprintf("RESULT seconds %.3f\\n", proc.time()[["elapsed"]] - t0))'), work)
  add_row(n = n, what = "knn(method = \"hnsw\")", seconds = r$values[["seconds"]],
          peak_rss_mb = round(r$rss), spearman = NA_real_, method = NA_character_)
  }
  for (route in routes) {
    # "diffusion": diffusion_map() with its default kNN kernel;
    # "diffusion_k": the kernel on the k neighbours of the LE graph;
    # "diffusion_10k": on 10 k neighbours
    fit_call <- switch(route,
      diffusion = sprintf('fit <- diffusion_map(X, 2, k = %d, knn_method = "hnsw", verbose = TRUE)', k),
      diffusion_k = sprintf(paste0('fit <- diffusion_map(X, 2, k = %d, kernel = "knn", kernel_k = %d, ',
                                   'knn_method = "hnsw", verbose = TRUE)'), k, k),
      diffusion_10k = sprintf(paste0('fit <- diffusion_map(X, 2, k = %d, kernel = "knn", kernel_k = %d, ',
                                     'knn_method = "hnsw", verbose = TRUE)'), k, 10L * k),
      ltsa = sprintf('fit <- ltsa(X, 2, k = %d, knn_method = "hnsw", eigen_solver = "lobpcg", verbose = TRUE)', k),
      ltsa_sparse = sprintf('fit <- ltsa(X, 2, k = %d, knn_method = "hnsw", eigen_solver = "sparse", verbose = TRUE)', k),
      ltsa_auto = sprintf('fit <- ltsa(X, 2, k = %d, knn_method = "hnsw", verbose = TRUE)', k),
      lgrm = , lgrm_iterative = , lgrm_lobpcg =
        sprintf(paste0('fit <- lgrm(X, 2, k = %d, landmarks = 200, seed = 1, gamma = "scaled", knn_method = "hnsw", ',
                       'eigen_solver = "%s", verbose = TRUE)'), k,
                switch(route, lgrm = "auto", lgrm_iterative = "iterative", lgrm_lobpcg = "lobpcg")),
      sprintf('fit <- laplacian_eigenmaps(X, 2, k = %d, knn_method = "hnsw", eigen_solver = "%s", verbose = TRUE)',
              k, route))
    r <- bench_child(c(
      'options(manifoldOOS.hnsw_cache = FALSE)',
      sprintf('X <- readRDS("%s"); tt <- readRDS("%s")', fx, ft),
      't0 <- proc.time()[["elapsed"]]',
      fit_call,
      'cat(sprintf("RESULT seconds %.3f\\n", proc.time()[["elapsed"]] - t0))',
      'cat(sprintf("RESULT spearman %.6f\\n", abs(cor(fit$embedding[, 1], tt, method = "spearman"))))',
      'cat("METHOD", fit$solver$method, "\\n")'),
      work, keep = "^([0-9]{2}:[0-9]{2}:[0-9]{2} |METHOD)")
    add_row(n = n, what = switch(route,
                                 diffusion = sprintf("diffusion_map() defaults (kernel_k = %d)",
                                                     manifoldOOS:::default_kernel_k(k, n)),
                                 diffusion_k = "diffusion_map(kernel_k = k)",
                                 diffusion_10k = "diffusion_map(kernel_k = 10 k)",
                                 ltsa = "ltsa(eigen_solver = \"lobpcg\")",
                                 ltsa_sparse = "ltsa(eigen_solver = \"sparse\")",
                                 ltsa_auto = "ltsa(eigen_solver = \"auto\")",
                                 lgrm = "lgrm(landmarks = 200)",
                                 lgrm_iterative = "lgrm(landmarks = 200, eigen_solver = \"iterative\")",
                                 lgrm_lobpcg = "lgrm(landmarks = 200, eigen_solver = \"lobpcg\")",
                                 sprintf("laplacian_eigenmaps(eigen_solver = \"%s\")", route)),
            seconds = if (length(r$values)) r$values[["seconds"]] else NA_real_,
            peak_rss_mb = round(r$rss),
            spearman = if (length(r$values)) r$values[["spearman"]] else NA_real_, method = route)
  }
  if (do_sk && n <= 1e5 && fdim == p) {
    fb <- file.path(work, "x.bin")
    writeBin(as.vector(t(d$x)), fb)
    writeBin(d$t, file.path(work, "t.bin"))
    has_amg <- system2(python, c("-c", shQuote("import pyamg")), stdout = FALSE, stderr = FALSE) == 0
    for (solver in c("arpack", if (has_amg) "amg")) {
      py <- file.path(work, "sk.py")
      writeLines(c(
        "import time, numpy as np",
        "from scipy.stats import spearmanr",
        "from sklearn.manifold import SpectralEmbedding",
        sprintf("X = np.fromfile('%s').reshape(-1, %d)", fb, p),
        sprintf("t = np.fromfile('%s')", file.path(work, "t.bin")),
        "t0 = time.time()",
        sprintf("Y = SpectralEmbedding(n_components=2, n_neighbors=%d, eigen_solver=%s, random_state=0).fit_transform(X)",
                k, if (solver == "arpack") "None" else "'amg'"),
        "print('RESULT seconds %.3f' % (time.time() - t0))",
        "print('RESULT spearman %.6f' % abs(spearmanr(Y[:, 0], t)[0]))"), py)
      out <- suppressWarnings(system2("/usr/bin/time", c("-v", "timeout", timeout, python, py),
                                      stdout = TRUE, stderr = TRUE))
      res <- grep("^RESULT ", out, value = TRUE)
      vals <- stats::setNames(as.numeric(sub("^RESULT \\S+ ", "", res)), sub("^RESULT (\\S+) .*$", "\\1", res))
      rss <- as.numeric(sub(".*: ", "", grep("Maximum resident set size", out, value = TRUE))) / 1024
      add_row(n = n, what = sprintf("scikit-learn SpectralEmbedding (%s)",
                                    if (solver == "arpack") "default solver" else "amg"),
              seconds = if (length(vals)) vals[["seconds"]] else NA_real_, peak_rss_mb = round(rss),
              spearman = if (length(vals)) vals[["spearman"]] else NA_real_, method = solver)
    }
  }
}

if (length(rows)) {
  tab <- do.call(rbind, rows)
  tab$ratio_vs_lobpcg <- NA_real_
  for (n in unique(tab$n)) for (dm in unique(tab$dim)) {
    ref <- tab$seconds[tab$n == n & tab$dim == dm & tab$method %in% "lobpcg"]
    if (length(ref) == 1L && is.finite(ref)) {
      sel <- tab$n == n & tab$dim == dm & !is.na(tab$method)
      tab$ratio_vs_lobpcg[sel] <- round(tab$seconds[sel] / ref, 2)
    }
  }
  tab$seconds <- round(tab$seconds, 1)
  tab$spearman <- round(tab$spearman, 5)
  tab$method <- NULL
  print(tab, row.names = FALSE)
}
cat(sprintf("\n  commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE),
                                            error = function(e) "?"), format(Sys.time(), tz = "UTC", usetz = TRUE)))
unlink(work, recursive = TRUE)
