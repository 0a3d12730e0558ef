# predict_file(): streaming a delimited file through predict().

skip_if_not_installed("data.table")

d <- registry_data()
fit <- lle(d$train, 2, k = 8)
# input values written with 17 digits so that the file holds exactly d$new
fmt17 <- function(x) {
  s <- sprintf("%.17g", x)
  dim(s) <- dim(x)
  do.call(paste, c(lapply(seq_len(ncol(s)), function(j) s[, j]), sep = ","))
}
write_input <- function(lines, eol = "\n", final_newline = TRUE) {
  f <- tempfile(fileext = ".csv")
  txt <- paste(lines, collapse = eol)
  if (final_newline) txt <- paste0(txt, eol)
  writeBin(charToRaw(txt), f)
  f
}
values <- function(y) unname(matrix(as.vector(y), nrow(y)))
expected <- values(predict(fit, d$new))

test_that("round trip: with and without header, CRLF, missing final newline, any chunk size", {
  out <- tempfile(fileext = ".csv")
  on.exit(unlink(out), add = TRUE)
  body <- fmt17(d$new)
  cases <- list(
    header = write_input(c("a,b,c", body)),
    no_header = write_input(body),
    crlf = write_input(c("a,b,c", body), eol = "\r\n"),
    no_final_newline = write_input(c("a,b,c", body), final_newline = FALSE),
    crlf_no_final = write_input(body, eol = "\r\n", final_newline = FALSE),
    reordered = write_input(c("c,a,b", fmt17(d$new[, c("c", "a", "b")]))),
    quoted_header = write_input(c("\"a\",\"b\",\"c\"", body)),
    blank_lines = write_input(c("a,b,c", body[1:5], "", "  ", body[-(1:5)], ""))
  )
  on.exit(unlink(unlist(cases)), add = TRUE)
  ref_bytes <- NULL
  for (nm in names(cases)) {
    for (cs in c(1L, 4L, 1000L)) {
      res <- predict_file(fit, cases[[nm]], out, chunk_size = cs)
      expect_identical(attr(res, "rows"), as.numeric(nrow(d$new)), info = nm)
      back <- utils::read.csv(out)
      expect_identical(names(back), c("Dim1", "Dim2"))
      expect_identical(unname(as.matrix(back)), expected, info = sprintf("%s / %d", nm, cs))
      bytes <- readBin(out, "raw", file.size(out))
      if (is.null(ref_bytes)) ref_bytes <- bytes
      expect_identical(bytes, ref_bytes, info = sprintf("%s / %d: same output file", nm, cs))
    }
  }
  # fread reads back the same doubles
  expect_identical(unname(as.matrix(data.table::fread(out))), expected)
})

test_that("the output round-trips doubles exactly (17 significant digits)", {
  # a map whose coordinates need all 17 digits
  set.seed(4)
  Y <- matrix(stats::rnorm(2 * nrow(d$train)) * 10^stats::runif(2 * nrow(d$train), -8, 8), ncol = 2)
  map <- oos_map(d$train, Y, method = "linear")
  inp <- write_input(fmt17(d$new))
  out <- tempfile(fileext = ".csv")
  on.exit(unlink(c(inp, out)), add = TRUE)
  predict_file(map, inp, out, chunk_size = 3)
  y <- predict(map, d$new)
  expect_identical(unname(as.matrix(utils::read.csv(out))), values(y))
})

test_that("generic rules, oos maps, tab separator and connections", {
  out <- tempfile(fileext = ".csv")
  inp <- write_input(gsub(",", "\t", c("a,b,c", fmt17(d$new))))
  on.exit(unlink(c(out, inp)), add = TRUE)
  predict_file(fit, inp, out, chunk_size = 5, method = "goose", X = d$train, k = 6)
  expect_identical(unname(as.matrix(utils::read.csv(out))),
                   values(predict(fit, d$new, method = "goose", X = d$train, k = 6)))
  map <- oos_map(d$train, embedding(fit), method = "sparse")
  predict_file(map, inp, out, chunk_size = 5)
  expect_identical(unname(as.matrix(utils::read.csv(out))), values(predict(map, d$new)))
  # gzip file through file(), an unopened connection and an open one
  gz <- tempfile(fileext = ".csv.gz")
  on.exit(unlink(gz), add = TRUE)
  con <- gzfile(gz, "w")
  writeLines(c("a,b,c", fmt17(d$new)), con)
  close(con)
  predict_file(fit, gz, out, chunk_size = 6)
  expect_identical(unname(as.matrix(utils::read.csv(out))), expected)
  predict_file(fit, gzfile(gz), out, chunk_size = 6)
  expect_identical(unname(as.matrix(utils::read.csv(out))), expected)
  tc <- textConnection(c("a,b,c", fmt17(d$new)))
  predict_file(fit, tc, out, chunk_size = 6)
  expect_true(isOpen(tc))
  close(tc)
  expect_identical(unname(as.matrix(utils::read.csv(out))), expected)
})

test_that("a malformed line gives a classed error with its line number and no output file", {
  out <- tempfile(fileext = ".csv")
  body <- fmt17(d$new)
  bad_cases <- list(
    list(lines = c("a,b,c", body[1:6], "1,2", body[-(1:6)]), line = 8),          # too few fields
    list(lines = c("a,b,c", body[1:2], "1,2,3,4", body[-(1:2)]), line = 4),     # too many
    list(lines = c(body[1:9], "1,oops,3", body[-(1:9)]), line = 10),            # non-numeric
    list(lines = c("a,b,c", body[1:3], "", "1,,3", body[-(1:3)]), line = 6),    # empty field
    list(lines = c("a,b,c", body[1:3], "1,NA,3"), line = 5),                    # NA
    list(lines = c("a,b,c", body, "1,Inf,3"), line = nrow(d$new) + 2)           # not finite
  )
  for (case in bad_cases) {
    for (cs in c(2L, 100L)) {
      inp <- write_input(case$lines)
      e <- tryCatch(predict_file(fit, inp, out, chunk_size = cs), error = function(e) e)
      expect_s3_class(e, "manifoldOOS_file_error")
      expect_s3_class(e, "manifoldOOS_input_error")
      expect_identical(e$arg, "input")
      expect_identical(e$line, case$line)
      expect_match(conditionMessage(e), sprintf("line %d:", case$line), fixed = TRUE)
      expect_false(file.exists(out))
      # no temporary file left behind in the output directory
      expect_length(list.files(dirname(out), pattern = paste0("^\\.", basename(out)), all.files = TRUE), 0)
      unlink(inp)
    }
  }
  # an existing output is left untouched by a failed run
  writeLines("old", out)
  inp <- write_input(c(body[1:3], "1,2"))
  expect_error(predict_file(fit, inp, out), class = "manifoldOOS_file_error")
  expect_identical(readLines(out), "old")
  unlink(c(inp, out))
})

test_that("column checks follow predict() and bad arguments name themselves", {
  out <- tempfile(fileext = ".csv")
  err_arg <- function(expr) tryCatch(expr, manifoldOOS_input_error = function(e) e$arg)
  inp <- write_input(c("a,b,z", fmt17(d$new)))
  expect_identical(err_arg(predict_file(fit, inp, out)), "input")
  inp2 <- write_input(fmt17(d$new[, 1:2]))
  expect_identical(err_arg(predict_file(fit, inp2, out)), "input")
  empty <- write_input(character(0), final_newline = FALSE)
  expect_identical(err_arg(predict_file(fit, empty, out)), "input")
  good <- write_input(fmt17(d$new))
  expect_identical(err_arg(predict_file(fit, tempfile(), out)), "input")
  expect_identical(err_arg(predict_file(fit, good, file.path(tempfile(), "x.csv"))), "output")
  expect_identical(err_arg(predict_file(fit, good, out, sep = "ab")), "sep")
  expect_identical(err_arg(predict_file(fit, good, out, header = NA)), "header")
  expect_identical(err_arg(predict_file(fit, good, out, chunk_size = 0)), "chunk_size")
  expect_identical(err_arg(predict_file(list(), good, out)), "fit")
  expect_identical(err_arg(predict_file(fit, good, good)), "output")
  expect_false(file.exists(out))
  # header = FALSE on a file with a header: the header line is a bad row
  inp3 <- write_input(c("a,b,c", fmt17(d$new)))
  e <- tryCatch(predict_file(fit, inp3, out, header = FALSE), error = function(e) e)
  expect_identical(e$line, 1)
  unlink(c(inp, inp2, empty, good, inp3))
})

test_that("parallel predict_file() writes the same file as the serial run", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  inp <- write_input(c("a,b,c", fmt17(d$new)))
  out1 <- tempfile(fileext = ".csv")
  out2 <- tempfile(fileext = ".csv")
  on.exit(unlink(c(inp, out1, out2)), add = TRUE)
  predict_file(fit, inp, out1, chunk_size = 3)
  with_plan(future::multisession, workers = 2, {
    log <- get("ship_log", envir = asNamespace("manifoldOOS"))
    before <- log$sent
    predict_file(fit, inp, out2, chunk_size = 3, parallel = TRUE)
    expect_identical(log$sent - before, 2L)   # 6 blocks, the fit sent once per worker
  })
  expect_identical(readBin(out2, "raw", file.size(out2)), readBin(out1, "raw", file.size(out1)))
})
