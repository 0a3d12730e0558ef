# Sparse input, metrics and PCA first: speed and peak memory against the
# peers, each case in its own child process under /usr/bin/time -v.
#
#   Rscript bench/run.R sparse
#
# Environment: SPARSE_N (rows of the large matrix, default 1e5), SPARSE_P
# (columns, 2e4), SPARSE_PARTS (comma-separated subset of
# pca,fits,cosine_knn,hnsw; default all). Peers: irlba::prcomp_irlba()
# (Debian r-cran-irlba) and scikit-learn's NearestNeighbors (python3-sklearn),
# skipped when absent.
n_big <- as.numeric(Sys.getenv("SPARSE_N", "1e5"))
p_big <- as.numeric(Sys.getenv("SPARSE_P", "2e4"))
parts <- strsplit(Sys.getenv("SPARSE_PARTS", "pca,fits,cosine_knn,hnsw"), ",")[[1]]
work <- tempfile("bench-sparse")
dir.create(work)

# A single-cell-like sparse matrix: 20 types, each with its own mean profile
# (300 marker columns at a raised rate) over a common background; about
# `density` of the entries are non-zero, with count-like values.
# With mix = TRUE the types lie on a path (a differentiation continuum):
# each row draws its markers from its type and the next one in proportions
# w and 1 - w, w uniform, so that neighbouring types are connected.
gen_code <- function(n, p, density = 0.01, seed = 1, mix = FALSE) sprintf('
sparse_types <- function(n, p, density, seed, mix) {
  set.seed(seed)
  types <- sample.int(20L, n, replace = TRUE)
  w <- if (mix) stats::runif(n) else rep(0, n)
  markers <- lapply(1:20, function(t) sample.int(p, 300L))
  per_row <- stats::rpois(n, density * p)
  n_marker <- stats::rbinom(n, per_row, 0.4)
  i <- rep.int(seq_len(n), per_row)
  j <- integer(length(i))
  at <- 0L
  for (r in seq_len(n)) {
    m <- n_marker[r]; b <- per_row[r] - m
    if (per_row[r] == 0L) next
    m2 <- stats::rbinom(1L, m, w[r])
    nxt <- min(types[r] + 1L, 20L)
    j[at + seq_len(per_row[r])] <- c(markers[[types[r]]][sample.int(300L, m - m2, replace = TRUE)],
                                     markers[[nxt]][sample.int(300L, m2, replace = TRUE)],
                                     sample.int(p, b, replace = TRUE))
    at <- at + per_row[r]
  }
  x <- stats::rpois(length(i), 2) + 1
  Matrix::sparseMatrix(i = i, j = j, x = as.numeric(x), dims = c(n, p))
}
X <- sparse_types(%.0f, %.0f, %g, %d, %s)
X <- log1p(X)
', n, p, density, seed, mix)

# Rows bound into a table, with time ratios to the first row (> 1: slower
# than it) when `ratio`, printed.
# The matrix of a case, generated once in a child process and saved, so that
# the peak memory of each case is the data plus the method (not the generator).
data_file <- function(n, p, density = 0.01, seed = 1, mix = FALSE) {
  f <- file.path(work, sprintf("x_%.0f_%.0f_%d_%s.rds", n, p, seed, mix))
  if (!file.exists(f)) {
    r <- bench_child(c(gen_code(n, p, density, seed, mix), sprintf('saveRDS(X, "%s", compress = FALSE)', f),
                       'cat("RESULT done 1\n")'), work)
    cat(sprintf("  data %.0f x %.0f generated (child peak RSS %.0f MB)\n", n, p, r$rss))
  }
  sprintf('X <- readRDS("%s")', f)
}

# Sub-second timings of a child: "RESULT seconds" is missing when it failed.
child_seconds <- function(r) if ("seconds" %in% names(r$values)) r$values[["seconds"]] else NA_real_

report <- function(rows, ratio = TRUE) {
  tab <- do.call(rbind, rows)
  if (ratio) tab$ratio <- signif(tab$seconds / tab$seconds[1], 3)
  tab$seconds <- signif(tab$seconds, 4)
  tab$peak_rss_mb <- round(tab$peak_rss_mb)
  print(tab, row.names = FALSE)
}

if ("pca" %in% parts) {
  cat(sprintf("\n-- pca(ndim = 50) of a %.0f x %.0f sparse matrix (1%% non-zero, 20 types) --\n", n_big, p_big))
  rows <- list()
  r <- bench_child(c(data_file(n_big, p_big),
                     'cat(sprintf("RESULT nnz %.0f\\n", length(X@x)))',
                     't0 <- proc.time()[[3]]; f <- pca(X, ndim = 50); t1 <- proc.time()[[3]] - t0',
                     'cat(sprintf("RESULT seconds %.3f\\n", t1))',
                     'cat(sprintf("RESULT ops %.0f\\n", f$solver$n_ops))',
                     sprintf('saveRDS(f$sdev, "%s")', file.path(work, "sdev_ours.rds"))), work)
  rows[[1]] <- data.frame(case = "pca 50", impl = "manifoldOOS (tol 1e-10)",
                          seconds = child_seconds(r), peak_rss_mb = r$rss)
  cat(sprintf("  nnz %.0f; %0.f operator products\n", r$values[["nnz"]], r$values[["ops"]]))
  if (have("irlba")) {
    r2 <- bench_child(c(data_file(n_big, p_big),
                        't0 <- proc.time()[[3]]; f <- irlba::prcomp_irlba(X, n = 50); t1 <- proc.time()[[3]] - t0',
                        'cat(sprintf("RESULT seconds %.3f\\n", t1))',
                        sprintf('saveRDS(f$sdev, "%s")', file.path(work, "sdev_irlba.rds"))), work)
    rows[[2]] <- data.frame(case = "pca 50", impl = "irlba::prcomp_irlba (tol 1e-5)",
                            seconds = child_seconds(r2), peak_rss_mb = r2$rss)
    a <- readRDS(file.path(work, "sdev_ours.rds"))
    b <- readRDS(file.path(work, "sdev_irlba.rds"))
    cat(sprintf("  largest relative difference of the 50 standard deviations: %.2e\n", max(abs(a - b) / a)))
  } else {
    cat("  irlba is not installed: no peer row\n")
  }
  report(rows)
}

if ("fits" %in% parts) {
  cat(sprintf("\n-- fits with pca = 50 on a %.0f x %.0f sparse matrix (20 types on a continuum) --\n", n_big, p_big))
  rows <- list()
  for (cs in c('isomap(X, ndim = 2, k = 15, pca = 50, landmarks = 2000, seed = 1)',
               paste0('laplacian_eigenmaps(X, ndim = 2, k = 15, pca = 50, metric = "cosine", ',
                      'on_disconnected = "connect")'))) {
    r <- bench_child(c(data_file(n_big, p_big, mix = TRUE),
                       sprintf('t0 <- proc.time()[[3]]; f <- %s; t1 <- proc.time()[[3]] - t0', cs),
                       'cat(sprintf("RESULT seconds %.3f\\n", t1))'), work)
    rows[[length(rows) + 1L]] <- data.frame(case = cs, impl = "manifoldOOS", seconds = child_seconds(r),
                                            peak_rss_mb = r$rss)
  }
  report(rows, ratio = FALSE)
}

if ("cosine_knn" %in% parts) {
  cat("\n-- exact cosine 15-NN, 2e4 x 2e4 sparse (1% non-zero), self-search --\n")
  rows <- list()
  r <- bench_child(c(data_file(2e4, 2e4, seed = 2),
                     'options(manifoldOOS.threads = 2L)',
                     't0 <- proc.time()[[3]]; nn <- knn(X, 15, metric = "cosine"); t1 <- proc.time()[[3]] - t0',
                     'cat(sprintf("RESULT seconds %.3f\\n", t1))',
                     sprintf('Matrix::writeMM(X, "%s")', file.path(work, "x.mtx")),
                     sprintf('saveRDS(nn, "%s")', file.path(work, "nn.rds"))), work)
  rows[[1]] <- data.frame(case = "cosine 15-NN", impl = "manifoldOOS (2 threads)",
                          seconds = child_seconds(r), peak_rss_mb = r$rss)
  # the first python3 with scikit-learn (Debian's python3-sklearn is in the system python)
  pys <- unique(c(Sys.getenv("MANIFOLDOOS_PYTHON"), Sys.which("python3"), "/usr/bin/python3"))
  pys <- pys[nzchar(pys) & file.exists(pys)]
  has_sk <- vapply(pys, function(py) identical(suppressWarnings(system2(py, c("-c", shQuote("import sklearn")),
                                                                        stdout = FALSE, stderr = FALSE)), 0L), TRUE)
  py <- if (any(has_sk)) pys[has_sk][1] else ""
  ok <- nzchar(py)
  if (ok) {
    script <- file.path(work, "nn.py")
    writeLines(c("import time, numpy as np, scipy.io",
                 "from sklearn.neighbors import NearestNeighbors",
                 sprintf("X = scipy.io.mmread('%s').tocsr()", file.path(work, "x.mtx")),
                 "t0 = time.time()",
                 "nn = NearestNeighbors(n_neighbors=16, metric='cosine', algorithm='brute', n_jobs=2).fit(X)",
                 "d, i = nn.kneighbors(X)",
                 "print('RESULT seconds %.3f' % (time.time() - t0))",
                 sprintf("np.savetxt('%s', d[:, 1:], fmt='%%.17g')", file.path(work, "sk_d.txt"))), script)
    out <- suppressWarnings(system2("/usr/bin/time", c("-v", py, script), stdout = TRUE, stderr = TRUE))
    sec <- as.numeric(sub("RESULT seconds ", "", grep("^RESULT seconds", out, value = TRUE)))
    rss <- as.numeric(sub(".*: ", "", grep("Maximum resident set size", out, value = TRUE))) / 1024
    rows[[2]] <- data.frame(case = "cosine 15-NN", impl = "sklearn brute on CSR (n_jobs = 2)",
                            seconds = if (length(sec)) sec else NA, peak_rss_mb = if (length(rss)) rss else NA)
    if (length(sec)) {
      ours <- readRDS(file.path(work, "nn.rds"))$dist
      theirs <- as.matrix(utils::read.table(file.path(work, "sk_d.txt")))
      cat(sprintf("  largest difference of the 15 distances from scikit-learn's: %.2e\n",
                  max(abs(unname(ours) - unname(theirs)))))
    }
  } else {
    cat("  python3 with scikit-learn is not available: no peer row\n")
  }
  report(rows)
}

if ("hnsw" %in% parts) {
  cat("\n-- HNSW self-search k = 10 on 1e5 x 100 dense rows: cosine vs Euclidean --\n")
  rows <- list()
  for (metric in c("euclidean", "cosine")) {
    r <- bench_child(c(
      'set.seed(3)',
      'Z <- matrix(rnorm(1e5 * 10), 1e5) %*% matrix(rnorm(10 * 100), 10) + matrix(rnorm(1e7, sd = 0.5), 1e5)',
      'options(manifoldOOS.threads = 2L)',
      sprintf('t0 <- proc.time()[[3]]; ap <- knn(Z, 10, method = "hnsw", metric = "%s"); t1 <- proc.time()[[3]] - t0', metric),
      'cat(sprintf("RESULT seconds %.3f\\n", t1))',
      'q <- sample.int(nrow(Z), 1000)',
      sprintf('ex <- knn(Z, 11, query = Z[q, ], method = "exact", metric = "%s")', metric),
      # the exact query lists hold the point itself first: drop it
      'rec <- mean(vapply(seq_along(q), function(i) length(intersect(ex$idx[i, -1], ap$idx[q[i], ])), 0)) / 10',
      'cat(sprintf("RESULT recall %.4f\\n", rec))'), work)
    rows[[length(rows) + 1L]] <- data.frame(case = "hnsw 1e5 x 100", impl = metric,
                                            seconds = child_seconds(r), recall = r$values[["recall"]],
                                            peak_rss_mb = r$rss)
  }
  report(rows)
}
unlink(work, recursive = TRUE)
