# Benchmark driver: Rscript bench/run.R [name ...]
# Sources bench/<name>.R for each name, or every bench/*.R script except this
# driver and the helpers when no name is given. Load the package first from
# the library in .libPaths() (set R_LIBS to use a private library).
args <- commandArgs(trailingOnly = TRUE)
file_arg <- grep("^--file=", commandArgs(FALSE), value = TRUE)
bench_dir <- if (length(file_arg)) dirname(normalizePath(sub("^--file=", "", file_arg[1]))) else "bench"
source(file.path(bench_dir, "common.R"))
suppressPackageStartupMessages(library(manifoldOOS))
if (length(args) == 0L) {
  scripts <- setdiff(list.files(bench_dir, pattern = "\\.R$"), c("run.R", "common.R"))
  args <- sub("\\.R$", "", sort(scripts))
}
for (name in args) {
  path <- file.path(bench_dir, paste0(name, ".R"))
  if (!file.exists(path)) stop(sprintf("no benchmark script '%s'", path))
  cat(sprintf("== %s ==  (%s, %d threads)\n", name, format(Sys.time()), max_threads()))
  bench_load()
  source(path, local = new.env())
}
