# The estimator contract of every fit (and map): the predictions for a batch of
# new rows equal those of each row predicted alone (identical when tol = 0,
# else to a relative tolerance), and a saveRDS()/readRDS() round trip predicts
# identically, attributes included. `...` goes to predict(). Returns the batch
# predictions.
expect_predict_contract <- function(fit, newdata, tol = 0, ...) {
  batch <- predict(fit, newdata, ...)
  rows <- do.call(rbind, lapply(seq_len(nrow(newdata)),
                                function(i) predict(fit, newdata[i, , drop = FALSE], ...)))
  expect_identical(dim(rows), dim(batch))
  if (tol == 0) {
    expect_identical(as.vector(rows), as.vector(batch))
  } else {
    expect_equal(as.vector(rows), as.vector(batch), tolerance = tol)
  }
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f), add = TRUE)
  saveRDS(fit, f)
  expect_identical(predict(readRDS(f), newdata, ...), batch)
  invisible(batch)
}

# A temporary folder, removed when the calling test ends, holding `rows`
# written to in.csv: list(dir, input, output) with output the path of an
# out.csv not yet written. Skips without data.table (predict_file() needs it).
local_csv_files <- function(rows, env = parent.frame()) {
  skip_if_not_installed("data.table")
  dir <- withr::local_tempdir(.local_envir = env)
  input <- file.path(dir, "in.csv")
  utils::write.csv(rows, input, row.names = FALSE)
  list(dir = dir, input = input, output = file.path(dir, "out.csv"))
}

# Run `code` under a future plan, restoring the previous plan afterwards.
with_plan <- function(strategy, code, ...) {
  old <- future::plan(strategy, ...)
  on.exit(future::plan(old), add = TRUE)
  force(code)
}
