# A worker of the future plan that dies while it holds a chunk: the user gets
# the package's classed error naming the chunk, and predict_file() leaves no
# output behind.

skip_on_os("windows")
skip_if_not_installed("future")
skip_if_not_installed("future.apply")

d <- registry_data()
fit <- suppressWarnings(lgrm(d$train, 2, k = 8))

# A chunk hook (run on the worker before its chunk) that kills the worker
# holding the chunk whose first row is `row` of d$new.
killer <- function(row) {
  target <- unname(d$new[row, ])
  function(block) {
    if (nrow(block) && isTRUE(all.equal(unname(block[1L, ]), target))) {
      tools::pskill(Sys.getpid(), tools::SIGKILL)
      Sys.sleep(5)
    }
  }
}

test_that("a killed worker during predict(parallel = TRUE) is a manifoldOOS_worker_error naming the rows", {
  with_plan(future::multisession, workers = 2, {
    old <- options(manifoldOOS.chunk_hook = killer(4L))
    on.exit(options(old), add = TRUE)
    e <- tryCatch(predict(fit, d$new, chunk_size = 3, parallel = TRUE), error = function(e) e)
    expect_s3_class(e, "manifoldOOS_worker_error")
    expect_s3_class(e, "manifoldOOS_error")
    expect_identical(e$chunk, 2L)
    expect_identical(e$rows, c(4, 6))
    expect_match(conditionMessage(e), "chunk 2 \\(rows 4\\.\\.6", fixed = FALSE)
    expect_match(conditionMessage(e), "no result was returned")
    expect_s3_class(e$parent, "FutureError")
  })
})

test_that("predict_file(parallel = TRUE) with a killed worker writes nothing", {
  io <- local_csv_files(d$new)
  dir <- io$dir
  input <- io$input
  output <- io$output
  with_plan(future::multisession, workers = 2, {
    old <- options(manifoldOOS.chunk_hook = killer(6L))
    on.exit(options(old), add = TRUE)
    e <- tryCatch(predict_file(fit, input, output, chunk_size = 3, parallel = TRUE),
                  error = function(e) e)
    expect_s3_class(e, "manifoldOOS_worker_error")
    # the first block of lines holds the header: data rows 1-2, 3-5, 6-8, ...
    expect_identical(e$rows, c(6, 8))
    expect_match(conditionMessage(e), "nothing was written")
  })
  expect_false(file.exists(output))
  # no temporary file left either: only the input remains
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), "in.csv")
  # an existing output file is left as it was
  writeLines("keep", output)
  with_plan(future::multisession, workers = 2, {
    old <- options(manifoldOOS.chunk_hook = killer(1L))
    on.exit(options(old), add = TRUE)
    expect_error(predict_file(fit, input, output, chunk_size = 3, parallel = TRUE),
                 class = "manifoldOOS_worker_error")
  })
  expect_identical(readLines(output), "keep")
})

test_that("without a hook the same plans give the serial result", {
  with_plan(future::multisession, workers = 2, {
    expect_identical(predict(fit, d$new, chunk_size = 3, parallel = TRUE), predict(fit, d$new))
  })
})
