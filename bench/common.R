# Shared helpers for the benchmark scripts (sourced by run.R).

# TRUE when a (peer) package is installed; used to skip missing peers.
have <- function(pkg) requireNamespace(pkg, quietly = TRUE)

# Median elapsed seconds of `reps` evaluations of `expr` (after one untimed
# warm-up run when warmup = TRUE).
bench_time <- function(expr, reps = 3L, warmup = FALSE) {
  e <- substitute(expr)
  env <- parent.frame()
  if (warmup) eval(e, env)
  times <- vapply(seq_len(reps), function(i) {
    gc(FALSE)
    t0 <- proc.time()[["elapsed"]]
    eval(e, env)
    proc.time()[["elapsed"]] - t0
  }, numeric(1))
  stats::median(times)
}

# Print a table of timings. `df` has columns case, impl, seconds and the row
# of our implementation per case has impl == ours; ratio = peer time / our
# time (> 1: we are faster).
bench_report <- function(df, ours = "manifoldOOS") {
  df$ratio <- NA_real_
  for (cs in unique(df$case)) {
    rows <- df$case == cs
    ref <- df$seconds[rows & df$impl == ours]
    if (length(ref) == 1L && ref > 0) df$ratio[rows] <- df$seconds[rows] / ref
  }
  df$seconds <- signif(df$seconds, 4)
  df$ratio <- signif(df$ratio, 3)
  print(df, row.names = FALSE)
  invisible(df)
}

# Time one evaluation of `expr` (elapsed seconds); NA with a message when it
# fails, so that a failing peer does not stop the benchmark.
bench_once <- function(expr) {
  e <- substitute(expr)
  env <- parent.frame()
  gc(FALSE)
  t0 <- proc.time()[["elapsed"]]
  ok <- tryCatch({ eval(e, env); TRUE }, error = function(err) {
    message("  peer failed: ", conditionMessage(err))
    FALSE
  })
  if (ok) proc.time()[["elapsed"]] - t0 else NA_real_
}

# One line with the machine load (the benchmarks share a loaded machine:
# timings above ~2 load per core are inflated).
bench_load <- function() {
  up <- tryCatch(system("uptime", intern = TRUE), error = function(e) "uptime not available")
  cat(sprintf("  machine: %d cores; %s\n", parallel::detectCores(), trimws(up)))
}

# The fact behind missing Rdimtools rows (the benchmarks would give Rdimtools
# ratios): printed by every script that would time it.
rdimtools_note <- function() {
  if (have("Rdimtools")) return(invisible(TRUE))
  cat(sprintf(paste0("  Rdimtools is not installed: it cannot be installed on this R %s (it needs CVXR and ",
                     "dbscan, which CRAN does not offer for this R version); no Rdimtools ratios in this run\n"),
              getRversion()))
  invisible(FALSE)
}

# The Swiss roll of the fit benchmarks: X, n training points (seed 1), and
# new, n_new points to predict (seed 2).
bench_roll <- function(n, n_new = 10000L) {
  list(X = swiss_roll(n, seed = 1)$x, new = swiss_roll(n_new, seed = 2)$x)
}

# A timing table built row by row: add(case, impl, seconds) appends a row
# (and prints it when echo = TRUE); table() is the data frame so far, the
# input of bench_report().
bench_table <- function(echo = FALSE) {
  rows <- list()
  list(add = function(case, impl, seconds) {
         if (echo) cat(sprintf("  %-40s %-32s %8.3f s\n", case, impl, seconds))
         rows[[length(rows) + 1L]] <<- data.frame(case = case, impl = impl, seconds = seconds)
       },
       table = function() do.call(rbind, rows))
}

# The image data set `name` (load_image_data()) from the first folder that has
# it: image_data_path(), ../shared/data, or the shared data folder beside the
# repository; NULL, with a note, when none has it.
bench_image_data <- function(name) {
  dirs <- c(image_data_path(), "../shared/data",
            file.path(get0("bench_dir", ifnotfound = "bench"), "..", "..", "shared", "data"))
  dirs <- dirs[nzchar(dirs) & dir.exists(dirs)]
  for (dd in dirs) {
    d <- tryCatch(load_image_data(name, path = dd), error = function(e) NULL)
    if (!is.null(d)) return(d)
  }
  cat(sprintf("  %s not available (set options(manifoldOOS.data =) or MANIFOLDOOS_DATA); skipped\n", name))
  NULL
}

# Run R code in a child process under /usr/bin/time -v (the script is written
# to `dir`); the code prints lines "RESULT name value". Returns the results and
# the child's peak RSS (MB). The package is loaded first.
bench_child <- function(code, dir = tempdir(), keep = NULL) {
  script <- tempfile("child", tmpdir = dir, fileext = ".R")
  on.exit(unlink(script), add = TRUE)
  writeLines(c("suppressPackageStartupMessages(library(manifoldOOS))", code), script)
  out <- suppressWarnings(system2("/usr/bin/time", c("-v", file.path(R.home("bin"), "Rscript"), script),
                                  stdout = TRUE, stderr = TRUE))
  if (!is.null(keep)) cat(paste0("    ", grep(keep, out, value = TRUE)), sep = "\n")
  res <- grep("^RESULT ", out, value = TRUE)
  vals <- stats::setNames(as.numeric(sub("^RESULT \\S+ ", "", res)), sub("^RESULT (\\S+) .*$", "\\1", res))
  rss <- grep("Maximum resident set size", out, value = TRUE)
  if (!length(vals)) {
    # the child's own output (the lines before /usr/bin/time's tab-indented report)
    message(paste(utils::tail(grep("^\t", out, value = TRUE, invert = TRUE), 15), collapse = "\n"))
    return(list(values = vals, rss = NA_real_))
  }
  list(values = vals, rss = as.numeric(sub(".*: ", "", rss)) / 1024)
}

# A Swiss roll (t uniform in [1.5 pi, 4.5 pi], height 21) rotated into p
# dimensions by a fixed random rotation, plus isotropic noise. Rows are filled
# in blocks of `block` rows (one n x p matrix at the peak); the noise of
# n <= one_shot rows is drawn in one call, as bench/scale.R always did.
rotated_roll <- function(n, seed, noise, p = 50L, block = 1e6, one_shot = 0) {
  set.seed(19)
  rot <- qr.Q(qr(matrix(rnorm(p * p), p)))[, 1:3]
  set.seed(seed)
  t <- 1.5 * pi * (1 + 2 * runif(n))
  h <- 21 * runif(n)
  if (n <= one_shot) {
    return(list(x = cbind(t * cos(t), h, t * sin(t)) %*% t(rot) + noise * matrix(rnorm(n * p), n, p),
                t = t, rot = rot))
  }
  x <- matrix(0, n, p)
  for (b in split(seq_len(n), ceiling(seq_len(n) / block))) {
    x[b, ] <- cbind(t[b] * cos(t[b]), h[b], t[b] * sin(t[b])) %*% t(rot) +
      noise * matrix(rnorm(length(b) * p), length(b), p)
  }
  list(x = x, t = t, rot = rot)
}

# Runs `code` (one string of R code) in a child Rscript with the package
# loaded from the library `lib` (one of two builds compared side by side);
# returns the numbers the code prints with cat() on its last line.
run_in_build <- function(lib, code) {
  f <- tempfile(fileext = ".R")
  writeLines(c(sprintf('suppressPackageStartupMessages(library(manifoldOOS, lib.loc = "%s"))', lib), code), f)
  as.numeric(strsplit(trimws(utils::tail(system2(file.path(R.home("bin"), "Rscript"), f, stdout = TRUE), 1)),
                      " +")[[1]])
}

# The two library paths (old build first) of the comma-separated variable
# `var` of a two-build script, or NULL (with a message) when it is not set so.
build_libs <- function(var, script) {
  libs <- strsplit(Sys.getenv(var), ",", fixed = TRUE)[[1]]
  if (length(libs) == 2L) return(libs)
  message(sprintf("%s: set %s to two library paths (old build first); skipped", script, var))
  NULL
}
