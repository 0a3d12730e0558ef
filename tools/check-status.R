# Read an R CMD check log and fail when it reports errors or warnings.
log <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(log) || !file.exists(log)) {
  cat("R CMD check did not produce a log\n"); quit(status = 1)
}
lines <- readLines(log)
status <- grep("^Status:", lines, value = TRUE)
cat("R CMD check", if (length(status)) status[length(status)] else "(no status line)", "\n")
bad <- grepl("ERROR|WARNING", status)
if (!length(status) || any(bad)) quit(status = 1)
