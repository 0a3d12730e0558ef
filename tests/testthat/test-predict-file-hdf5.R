# predict_file() from HDF5 datasets and DelayedArrays, to CSV and HDF5:
# the numbers of predict(), chunked and on two workers, and no output that
# looks complete after a failure.

h5_data <- local({
  roll <- swiss_roll(420, seed = 8)
  list(train = roll$x[1:300, ], new = roll$x[301:420, ])
})
h5_fit <- isomap(h5_data$train, ndim = 2, k = 10)

h5_write <- function(path, x, name = "points") {
  f <- hdf5r::H5File$new(path, mode = "w")
  f[[name]] <- x
  f$close_all()
  path
}
h5_read <- function(path, name = "embedding") {
  f <- hdf5r::H5File$new(path, mode = "r")
  on.exit(f$close_all())
  f[[name]][, , drop = FALSE]
}

test_that("an HDF5 dataset gives the numbers of predict(), into HDF5 or CSV, rows or columns", {
  skip_if_not_installed("hdf5r")
  inp <- h5_write(tempfile(fileext = ".h5"), h5_data$new)
  inp_t <- h5_write(tempfile(fileext = ".h5"), t(h5_data$new), "cells_in_columns")
  out_h5 <- tempfile(fileext = ".h5")
  out_csv <- tempfile(fileext = ".csv")
  on.exit(unlink(c(inp, inp_t, out_h5, out_csv)), add = TRUE)
  y <- unname(predict(h5_fit, h5_data$new))
  attributes(y) <- list(dim = dim(y))
  for (cs in c(7, 1000)) {
    predict_file(h5_fit, inp, out_h5, chunk_size = cs)
    expect_identical(h5_read(out_h5), y)
    predict_file(h5_fit, inp_t, out_h5, chunk_size = cs, observations = "columns")
    expect_identical(h5_read(out_h5), y)
    predict_file(h5_fit, inp, out_csv, chunk_size = cs)
    expect_identical(unname(as.matrix(utils::read.csv(out_csv))), y)
  }
  f <- hdf5r::H5File$new(out_h5, mode = "r")
  expect_identical(hdf5r::h5attr(f[["embedding"]], "colnames"), c("Dim1", "Dim2"))
  f$close_all()
  # a text file into HDF5, another dataset name
  txt <- tempfile(fileext = ".csv")
  on.exit(unlink(txt), add = TRUE)
  utils::write.csv(format(h5_data$new, digits = 17), txt, row.names = FALSE, quote = FALSE)
  predict_file(h5_fit, txt, out_h5, chunk_size = 50, output_dataset = "coords")
  expect_identical(h5_read(out_h5, "coords"), y)
})

test_that("HDF5 streaming on two workers writes the serial result", {
  skip_if_not_installed("hdf5r")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  inp <- h5_write(tempfile(fileext = ".h5"), h5_data$new)
  out1 <- tempfile(fileext = ".h5")
  out2 <- tempfile(fileext = ".h5")
  on.exit(unlink(c(inp, out1, out2)), add = TRUE)
  predict_file(h5_fit, inp, out1, chunk_size = 20)
  with_plan(future::multisession, workers = 2, {
    predict_file(h5_fit, inp, out2, chunk_size = 20, parallel = TRUE)
  })
  expect_identical(h5_read(out2), h5_read(out1))
})

test_that("a DelayedArray is streamed by blocks of cells, features matched by name", {
  skip_if_not_installed("DelayedArray")
  skip_if_not_installed("hdf5r")
  Xn <- h5_data$train
  colnames(Xn) <- c("f1", "f2", "f3")
  fit <- isomap(Xn, ndim = 2, k = 10)
  Q <- h5_data$new
  colnames(Q) <- c("f1", "f2", "f3")
  da <- DelayedArray::DelayedArray(t(Q)[c(3, 1, 2), ])   # features in rows, in another order
  out <- tempfile(fileext = ".h5")
  on.exit(unlink(out), add = TRUE)
  predict_file(fit, da, out, chunk_size = 11)
  y <- unname(predict(fit, Q))
  attributes(y) <- list(dim = dim(y))
  expect_identical(h5_read(out), y)
  skip_if_not_installed("HDF5Array")
  h5a <- HDF5Array::writeHDF5Array(t(Q), filepath = tempfile(fileext = ".h5"), name = "X", with.dimnames = TRUE)
  predict_file(fit, h5a, out, chunk_size = 25)
  expect_identical(h5_read(out), y)
})

test_that("a failed HDF5 run leaves no output that looks complete; bad arguments are named", {
  skip_if_not_installed("hdf5r")
  bad <- h5_data$new
  bad[100, 2] <- NaN
  inp <- h5_write(tempfile(fileext = ".h5"), bad)
  two <- tempfile(fileext = ".h5")
  f <- hdf5r::H5File$new(two, mode = "w")
  f[["a"]] <- h5_data$new
  f[["b"]] <- h5_data$new
  f$close_all()
  out <- tempfile(fileext = ".h5")
  on.exit(unlink(c(inp, two, out)), add = TRUE)
  e <- tryCatch(predict_file(h5_fit, inp, out, chunk_size = 30), manifoldOOS_file_error = function(e) e)
  expect_s3_class(e, "manifoldOOS_file_error")
  expect_identical(e$line, 100)
  expect_false(file.exists(out))
  expect_length(list.files(dirname(out), pattern = paste0("^\\.", basename(out))), 0L)
  # an existing output is kept when the new run fails
  writeLines("old", out)
  expect_error(predict_file(h5_fit, inp, out, chunk_size = 30), class = "manifoldOOS_file_error")
  expect_identical(readLines(out), "old")
  unlink(out)
  err <- function(expr, arg) expect_identical(tryCatch(expr, manifoldOOS_input_error = function(e) e$arg), arg)
  err(predict_file(h5_fit, two, out), "dataset")
  err(predict_file(h5_fit, two, out, dataset = "c"), "dataset")
  err(predict_file(h5_fit, inp, out, observations = "cells"), "observations")
  err(predict_file(h5_fit, inp, tempfile(fileext = ".h5"), output_dataset = ""), "output_dataset")
  expect_identical(tryCatch(predict_file(h5_fit, two, out, dataset = "a", observations = "columns"),
                            manifoldOOS_input_error = function(e) e$arg), "input")
})
