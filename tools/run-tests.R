# Run the testthat suite against the installed package and print the
# closing line "N passed, N failed, N skipped". Exits non-zero on failure.
suppressPackageStartupMessages(library(testthat))
res <- testthat::test_dir("tests/testthat", package = "manifoldOOS",
                          load_package = "installed", reporter = "summary",
                          stop_on_failure = FALSE)
df <- as.data.frame(res)
n_failed <- sum(df$failed) + sum(df$error)
n_skipped <- sum(df$skipped)
n_passed <- sum(df$nb) - sum(df$failed) - sum(df$skipped) - sum(df$warning)
n_passed <- max(n_passed, 0)
cat(sprintf("\n%d passed, %d failed, %d skipped\n", n_passed, n_failed, n_skipped))
if (n_failed > 0 || nrow(df) == 0) quit(status = 1)
