# predict_file() from an HDF5 dataset against the same rows in a CSV file:
# throughput and peak memory, each run in its own child process under
# /usr/bin/time -v.
#
#   Rscript bench/run.R hdf5
#
# Environment: HDF5_N (rows, default 1e6), HDF5_P (columns, 50). Needs hdf5r
# (Debian r-cran-hdf5r) and data.table.
n <- as.numeric(Sys.getenv("HDF5_N", "1e6"))
p <- as.numeric(Sys.getenv("HDF5_P", "50"))
if (!have("hdf5r") || !have("data.table")) {
  cat("hdf5r or data.table not available: skipped\n")
} else {
  work <- tempfile("bench-hdf5")
  dir.create(work)
  on.exit(unlink(work, recursive = TRUE), add = TRUE)
  # the data (a Swiss roll rotated into p dimensions with noise) and a fit of
  # 5000 rows; PCA's linear rule, so that the time is the reading and writing
  set.seed(1)
  make_rows <- function(m) {
    r <- swiss_roll(m, seed = sample.int(1e6, 1))$x
    x <- unname(cbind(r, matrix(stats::rnorm(m * (p - 3), sd = 0.3), m)))
    colnames(x) <- paste0("V", seq_len(p))  # the CSV header; the HDF5 dataset is matched by position
    x
  }
  fit <- pca(make_rows(5000), ndim = 2)
  saveRDS(fit, file.path(work, "fit.rds"))
  h5 <- file.path(work, "rows.h5")
  csv <- file.path(work, "rows.csv")
  f <- hdf5r::H5File$new(h5, mode = "w")
  ds <- f$create_dataset("X", dtype = hdf5r::h5types$H5T_NATIVE_DOUBLE,
                         space = hdf5r::H5S$new(dims = c(n, p), maxdims = c(n, p)), chunk_dims = c(10000, p))
  block <- 1e5
  for (s in seq(1, n, by = block)) {
    idx <- seq(s, min(n, s + block - 1))
    x <- make_rows(length(idx))
    ds$write(args = list(idx, quote(expr = )), value = x)
    data.table::fwrite(as.data.frame(x), csv, append = s > 1, col.names = s == 1)
  }
  f$close_all()
  cat(sprintf("  %.0f x %.0f rows: HDF5 %.0f MB, CSV %.0f MB; PCA fit on 5000 rows, chunk_size 1e5\n",
              n, p, file.size(h5) / 2^20, file.size(csv) / 2^20))
  run <- function(input, output) {
    bench_child(c(sprintf('fit <- readRDS("%s")', file.path(work, "fit.rds")),
                  't0 <- proc.time()[["elapsed"]]',
                  sprintf('predict_file(fit, "%s", "%s", chunk_size = 1e5)', input, output),
                  'cat("RESULT seconds", proc.time()[["elapsed"]] - t0, "\\n")'), dir = work)
  }
  rows <- list()
  for (case in list(c("CSV -> CSV", csv, "out.csv"), c("HDF5 -> HDF5", h5, "out.h5"),
                    c("HDF5 -> CSV", h5, "out2.csv"), c("CSV -> HDF5", csv, "out2.h5"))) {
    r <- run(case[2], file.path(work, case[3]))
    rows[[case[1]]] <- data.frame(case = case[1], seconds = signif(r$values[["seconds"]], 3),
                                  rows_per_second = signif(n / r$values[["seconds"]], 3),
                                  peak_rss_MB = round(r$rss))
  }
  res <- do.call(rbind, rows)
  res$throughput_vs_csv <- signif(res$rows_per_second / res$rows_per_second[1], 3)
  print(res, row.names = FALSE)
}
