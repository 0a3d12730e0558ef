# File to file prediction: stream a delimited text file, an HDF5 dataset or a
# DelayedArray through predict(), into a CSV file or an HDF5 dataset.

#' Predict the rows of a file, block by block
#'
#' Streams data of any size through [predict()][predict.manifold_fit] and
#' writes the embedding, one row per observation and in the same order, to
#' a CSV file or an HDF5 dataset. Memory is bounded by the block size: the
#' input is read `chunk_size` observations at a time, each block is
#' predicted, and its coordinates are appended to the output. The numbers
#' are those of [predict()][predict.manifold_fit] on the same rows.
#'
#' **Sources.** A delimited text file or connection (below); an HDF5 file
#' (a path ending in `.h5`, `.hdf5` or `.he5`, or any path with `dataset`
#' given), read with \pkg{hdf5r} from the two-dimensional numeric dataset
#' `dataset` (the only dataset of the file when `NULL`), by hyperslabs of
#' `chunk_size` observations; or a `DelayedArray` (for example an
#' `HDF5Array::HDF5Array()` or the assay of a `SingleCellExperiment` backed
#' by one), read by blocks of `chunk_size` observations, whose feature names
#' are matched by name. `observations` says whether the observations are the
#' rows or the columns: the default is `"rows"` for files (as \pkg{hdf5r}
#' presents the dataset: a matrix written from R reads back as it was
#' written) and `"columns"` for a `DelayedArray` (Bioconductor's layout,
#' features in rows and cells in columns).
#'
#' **Text input.** Fields are separated by `sep` (`"auto"`: the first of `,`,
#' tab, `;`, `|` and space found in the first data line). Lines may end in
#' LF or CRLF, the last line may lack its newline, and blank lines are
#' skipped (they are not rows). `header = "auto"` treats the first line as
#' column names when one of its fields is not a number. Columns are matched
#' as [predict()][predict.manifold_fit] matches them: by name (and reordered)
#' when both the file has a header and the fit has column names, otherwise by
#' position. Every field must be a finite number.
#'
#' **Output.** For a path ending in `.h5` or `.hdf5`: an HDF5 file with
#' one dataset, `output_dataset`, of one row per observation and one column
#' per embedding dimension (as \pkg{hdf5r} reads it back; its attribute
#' `colnames` holds the column names). Otherwise a CSV file with a header line (the embedding column names,
#' e.g. `Dim1,Dim2`) and one line per input row; numbers are written with 17
#' significant digits (`sprintf("%.17g")`), so reading the file back (with
#' [utils::read.csv()] or [data.table::fread()]) gives exactly the doubles
#' that [predict()][predict.manifold_fit] returns. The file is written under
#' a temporary name in the directory of `output` and renamed at the end: a
#' failed or interrupted run leaves no file that looks complete (an existing
#' `output` is replaced only by a complete result). The same holds for an
#' HDF5 output.
#'
#' **Errors.** A line with the wrong number of fields, a field that is not a
#' number or a missing value stops the run with an error of class
#' `manifoldOOS_file_error` (also `manifoldOOS_input_error`, `arg = "input"`)
#' whose message and field `line` give the line number in the input (the
#' header counts as line 1).
#'
#' With `parallel = TRUE` the model is sent to the workers of the user's
#' [future::plan()] once, each worker gets its next block as soon as it
#' returns the previous one, and the next block is read and parsed while the
#' workers compute (see [manifoldOOS-chunked]); the output is identical to the
#' serial run.
#'
#' @param fit A `manifold_fit` or a `manifold_oos_map`.
#' @param input Path of the input file: a delimited text file (compressed
#'   files are read by [file()]) or an HDF5 file; a connection to a text
#'   file (an unopened connection is opened and closed; an open one is read
#'   from its current position and left open); or a `DelayedArray`.
#' @param output Path of the file to write: an HDF5 file when it ends in
#'   `.h5` or `.hdf5`, else a CSV file.
#' @param chunk_size Observations (lines of text) read and predicted per
#'   block.
#' @param parallel Predict the blocks on the workers of the user's
#'   [future::plan()] (needs `future` and `future.apply`).
#' @param ... Passed to [predict()][predict.manifold_fit]: the rule
#'   (`method`), the training data of a generic rule (`X`) and the rule's
#'   arguments.
#' @param header `"auto"`, `TRUE` or `FALSE`: does the first line hold column
#'   names?
#' @param sep Field separator, or `"auto"`.
#' @param dataset HDF5 input: the name of the dataset to read (`NULL`: the
#'   file's only dataset).
#' @param observations `"rows"` or `"columns"`: where the observations of
#'   an HDF5 dataset or a `DelayedArray` are (`NULL`: see Details).
#' @param output_dataset HDF5 output: the name of the dataset to write.
#' @param verbose Report each block (see [manifoldOOS-progress]).
#' @return `output`, invisibly, with attribute `rows` (the number of rows
#'   written).
#' @seealso [manifoldOOS-chunked] for chunked and parallel [predict()].
#' @export
#' @examples
#' if (requireNamespace("data.table", quietly = TRUE)) {
#'   roll <- swiss_roll(700, seed = 1)
#'   fit <- lle(roll$x[1:500, ], ndim = 2, k = 10)
#'   input <- tempfile(fileext = ".csv")
#'   output <- tempfile(fileext = ".csv")
#'   write.csv(roll$x[501:700, ], input, row.names = FALSE)
#'   predict_file(fit, input, output, chunk_size = 64)
#'   y <- as.matrix(read.csv(output))
#'   # the same doubles as predict() on the rows of the file
#'   identical(as.vector(y), as.vector(predict(fit, read.csv(input))))
#'   unlink(c(input, output))
#' }
#' if (requireNamespace("hdf5r", quietly = TRUE)) {
#'   roll <- swiss_roll(700, seed = 1)
#'   fit <- isomap(roll$x[1:500, ], ndim = 2, k = 10)
#'   h5in <- tempfile(fileext = ".h5")
#'   h5out <- tempfile(fileext = ".h5")
#'   f <- hdf5r::H5File$new(h5in, mode = "w")
#'   f[["points"]] <- roll$x[501:700, ]
#'   f$close_all()
#'   predict_file(fit, h5in, h5out, chunk_size = 64)
#'   g <- hdf5r::H5File$new(h5out, mode = "r")
#'   y <- g[["embedding"]][, ]
#'   g$close_all()
#'   identical(y, unname(predict(fit, roll$x[501:700, ])))
#'   unlink(c(h5in, h5out))
#' }
predict_file <- function(fit, input, output, chunk_size = 1e5, parallel = FALSE, ...,
                         header = "auto", sep = "auto", dataset = NULL, observations = NULL,
                         output_dataset = "embedding",
                         verbose = getOption("manifoldOOS.verbose", FALSE)) {
  verbose <- check_verbose(verbose)
  if (!inherits(fit, c("manifold_fit", "manifold_oos_map"))) {
    abort_input("fit", "must be a fitted model (a manifold_fit) or an oos_map().")
  }
  validate_fit(fit, arg = "fit")
  chunk_size <- check_chunk_size(chunk_size)
  parallel <- check_flag(parallel, "parallel")
  if (parallel) require_future()
  if (!identical(header, "auto")) header <- check_flag(header, "header")
  sep <- check_sep(sep)
  if (!is.null(observations)) observations <- check_choice(observations, c("rows", "columns"), "observations")
  if (!is.character(output) || length(output) != 1L || is.na(output) || !nzchar(output)) {
    abort_input("output", "must be the path of the file to write (a single string).")
  }
  out_dir <- dirname(output)
  if (!dir.exists(out_dir)) abort_input("output", sprintf("is in a directory that does not exist: %s.", out_dir))
  if (is.character(input) && length(input) == 1L && !is.na(input) &&
      file.exists(output) && normalizePath(input, mustWork = FALSE) == normalizePath(output)) {
    abort_input("output", "must not be the input file.")
  }
  plan <- file_prediction_plan(fit, list(...), verbose)
  src <- open_source(input, fit, chunk_size, header, sep, dataset, observations)
  on.exit(src$close(), add = TRUE)
  t0 <- mo_progress(verbose, "predict_file(): %s, %s, blocks of %d rows", plan$label, src$label, chunk_size)
  sink <- open_sink(output, plan$out_names, output_dataset, chunk_size)
  finished <- FALSE
  on.exit(if (!finished) sink$abort(), add = TRUE)

  session <- if (parallel) {
    parallel_open(plan$model, verbose = verbose, label = "predict_file()")
  } else {
    NULL
  }
  rows <- 0
  emit <- function(y, id) {
    sink$write(y)
    rows <<- rows + nrow(y)
    mo_progress(verbose, "predict_file(): %.0f rows written", rows, start = t0)
  }
  # with parallel = TRUE the next block is read while the workers compute
  if (parallel) {
    parallel_stream(session, src$next_matrix, emit, plan$fun, plan$args, verbose = verbose)
  } else {
    id <- 0L
    while (!is.null(m <- src$next_matrix())) {
      id <- id + 1L
      emit(do.call(plan$fun, c(list(plan$model, m), plan$args)), id)
    }
  }
  sink$commit()
  finished <- TRUE
  mo_progress(verbose, "predict_file(): done, %.0f rows", rows, start = t0)
  invisible(structure(output, rows = rows))
}

# ---- sources: blocks of rows read into the fitted space -----------------------------

# The reader of `input`: a list with next_matrix() (the next block, checked
# and read into the fit's space by fit_newdata(), or NULL at the end),
# close() and a label.
open_source <- function(input, fit, chunk_size, header, sep, dataset, observations) {
  if (inherits(input, "DelayedArray")) {
    if (!is.null(dataset)) abort_input("dataset", "applies to HDF5 files; `input` is a DelayedArray.")
    return(delayed_source(input, fit, chunk_size, if (is.null(observations)) "columns" else observations))
  }
  if (is_hdf5_path(input) || !is.null(dataset)) {
    return(hdf5_source(input, fit, chunk_size, dataset, if (is.null(observations)) "rows" else observations))
  }
  if (!is.null(observations) && observations != "rows") {
    abort_input("observations", "must be \"rows\" for a text file (one line per observation).")
  }
  text_source(input, fit, chunk_size, header, sep)
}

is_hdf5_path <- function(x) {
  is.character(x) && length(x) == 1L && !is.na(x) && grepl("\\.(h5|hdf5|he5)$", x, ignore.case = TRUE)
}

# Delimited text: blocks of lines parsed by fread, checked line by line.
text_source <- function(input, fit, chunk_size, header, sep) {
  require_packages("data.table", "predict_file() of a text file", "input")
  con <- open_input(input)
  closer <- function() if (con$close) try(close(con$con), silent = TRUE)
  ok <- FALSE
  on.exit(if (!ok) closer())
  reader <- line_reader(con$con, chunk_size)
  first <- reader$next_block()
  if (!length(first$lines)) abort_file_input(0L, "is empty: it has no data line.")
  first_fields <- split_fields(first$lines[1L], sep)
  if (identical(sep, "auto")) sep <- detect_sep(first$lines[1L])
  if (identical(header, "auto")) header <- looks_like_header(first_fields)
  names_in <- NULL
  if (header) {
    names_in <- first_fields
    first$lines <- first$lines[-1L]
    first$line_no <- first$line_no[-1L]
  }
  p <- if (header) length(names_in) else length(split_fields(first$lines[1L], sep))
  pending_first <- if (length(first$lines)) parse_block(first$lines, first$line_no, sep, p, names_in, fit)
  rm(first)
  ok <- TRUE
  list(label = "text file",
       close = closer,
       next_matrix = function() {
         if (!is.null(pending_first)) {
           m <- pending_first
           pending_first <<- NULL
           return(m)
         }
         b <- reader$next_block()
         if (!length(b$lines)) return(NULL)
         parse_block(b$lines, b$line_no, sep, p, names_in, fit)
       })
}

# An HDF5 dataset (hdf5r): a two-dimensional numeric dataset with one
# observation per row (or per column) as hdf5r presents it, read as
# hyperslabs of `chunk_size` observations.
hdf5_source <- function(input, fit, chunk_size, dataset, observations) {
  require_packages("hdf5r", "predict_file() of an HDF5 file", "input")
  if (!is.character(input) || length(input) != 1L || is.na(input)) {
    abort_input("input", "must be the path of the HDF5 file (a single string).")
  }
  if (!file.exists(input)) abort_input("input", sprintf("does not exist: %s.", input))
  h5 <- tryCatch(hdf5r::H5File$new(input, mode = "r"),
                 error = function(e) abort_input("input", sprintf("is not a readable HDF5 file: %s", conditionMessage(e))))
  ok <- FALSE
  on.exit(if (!ok) h5$close_all())
  if (is.null(dataset)) {
    info <- h5$ls(recursive = TRUE)
    sets <- info$name[info$obj_type == "H5I_DATASET"]
    if (length(sets) != 1L) {
      abort_input("dataset", sprintf("must name the dataset to read; the file holds %s.",
                                     if (length(sets)) show_names(sets) else "no dataset"))
    }
    dataset <- sets
  }
  if (!(is.character(dataset) && length(dataset) == 1L && !is.na(dataset))) {
    abort_input("dataset", "must be the name of a dataset in the file (a single string).")
  }
  if (!h5$exists(dataset)) abort_input("dataset", sprintf("\"%s\" is not in the file.", dataset))
  ds <- h5[[dataset]]
  dims <- ds$dims
  if (length(dims) != 2L) {
    abort_input("dataset", sprintf("\"%s\" must be a two-dimensional numeric dataset; it has %d dimension%s.",
                                   dataset, length(dims), if (length(dims) == 1L) "" else "s"))
  }
  rows <- observations == "rows"
  m <- if (rows) dims[1L] else dims[2L]
  pos <- 0
  ok <- TRUE
  list(label = sprintf("HDF5 dataset \"%s\" (%.0f observations)", dataset, m),
       close = function() try(h5$close_all(), silent = TRUE),
       next_matrix = function() {
         if (pos >= m) return(NULL)
         idx <- seq(pos + 1, min(m, pos + chunk_size))
         # quote(expr = ): the whole of the other dimension
         x <- if (rows) {
           ds$read(args = list(idx, quote(expr = )), drop = FALSE)
         } else {
           t(ds$read(args = list(quote(expr = ), idx), drop = FALSE))
         }
         if (!is.numeric(x)) abort_input("dataset", sprintf("\"%s\" must hold numbers.", dataset))
         storage.mode(x) <- "double"
         bad <- which(!is.finite(x), arr.ind = TRUE)
         if (nrow(bad)) {
           abort_file_input(unname(pos + bad[1L, 1L]), sprintf("(observation %.0f of dataset \"%s\") has a value that is not a finite number in column %d.",
                                                      pos + bad[1L, 1L], dataset, bad[1L, 2L]))
         }
         pos <<- pos + length(idx)
         fit_newdata(fit, x, arg = "input")
       })
}

# A DelayedArray (for example an HDF5Array): blocks of observations along
# its columns (Bioconductor's layout: features in rows) or rows; its
# feature names are matched by name.
delayed_source <- function(input, fit, chunk_size, observations) {
  rows <- observations == "rows"
  m <- if (rows) nrow(input) else ncol(input)
  feats <- if (rows) colnames(input) else rownames(input)
  pos <- 0
  list(label = sprintf("%s (%.0f observations)", class(input)[1L], m),
       close = function() invisible(),
       next_matrix = function() {
         if (pos >= m) return(NULL)
         idx <- seq(pos + 1, min(m, pos + chunk_size))
         x <- if (rows) as.matrix(input[idx, , drop = FALSE]) else t(as.matrix(input[, idx, drop = FALSE]))
         storage.mode(x) <- "double"
         dimnames(x) <- list(NULL, feats)
         if (anyNA(x) || any(!is.finite(x))) {
           bad <- which(!is.finite(x), arr.ind = TRUE)[1L, ]
           abort_file_input(unname(pos + bad[1L]), sprintf("(observation %.0f) has a value that is not a finite number.", pos + bad[1L]))
         }
         pos <<- pos + length(idx)
         fit_newdata(fit, x, arg = "input")
       })
}

# ---- sinks: where the coordinates go ----------------------------------------------

# The writer of `output` (CSV, or an HDF5 dataset for an .h5 / .hdf5 path):
# write(y) appends rows, commit() makes the file appear under its name,
# abort() removes every trace. Both write to a temporary file in the
# directory of `output`, renamed at the end, so that a failed or
# interrupted run leaves nothing that looks complete.
open_sink <- function(output, out_names, output_dataset, chunk_size) {
  tmp <- tempfile(pattern = paste0(".", basename(output), "-"), tmpdir = dirname(output))
  finish <- function() {
    if (!file.rename(tmp, output)) {
      # a rename across file systems cannot happen here (same directory); copy as a last resort
      if (!file.copy(tmp, output, overwrite = TRUE)) {
        abort_input("output", sprintf("could not be written (renaming %s failed).", tmp))
      }
      unlink(tmp)
    }
  }
  if (is_hdf5_path(output)) {
    require_packages("hdf5r", "predict_file() to an HDF5 file", "output")
    if (!(is.character(output_dataset) && length(output_dataset) == 1L && !is.na(output_dataset) &&
          nzchar(output_dataset))) {
      abort_input("output_dataset", "must be the name of the dataset to write (a single string).")
    }
    q <- length(out_names)
    h5 <- hdf5r::H5File$new(tmp, mode = "w")
    ds <- h5$create_dataset(output_dataset, dtype = hdf5r::h5types$H5T_NATIVE_DOUBLE,
                            space = hdf5r::H5S$new(dims = c(0, q), maxdims = c(Inf, q)),
                            chunk_dims = c(max(1, min(chunk_size, 65536)), q))
    n <- 0
    return(list(
      write = function(y) {
        if (!nrow(y)) return(invisible())
        ds$set_extent(c(n + nrow(y), q))
        ds$write(args = list(seq(n + 1, n + nrow(y)), quote(expr = )), value = unname(as.matrix(y)))
        n <<- n + nrow(y)
      },
      commit = function() {
        hdf5r::h5attr(ds, "colnames") <- out_names
        h5$close_all()
        finish()
      },
      abort = function() {
        try(h5$close_all(), silent = TRUE)
        unlink(tmp)
      }))
  }
  out <- file(tmp, open = "wb")
  writeLines(paste(out_names, collapse = ","), out, sep = "\n")
  list(write = function(y) write_rows(y, out),
       commit = function() {
         close(out)
         finish()
       },
       abort = function() {
         try(close(out), silent = TRUE)
         unlink(tmp)
       })
}

# Model, block function and output column names for a fit or a map.
file_prediction_plan <- function(fit, dots, verbose) {
  if (inherits(fit, "manifold_oos_map")) {
    if (length(dots)) {
      abort_input("...", sprintf("must be empty for an oos_map (got %s).", paste(names(dots), collapse = ", ")))
    }
    return(list(model = fit, fun = predict_map_rows, args = list(strip = TRUE),
                out_names = fit$embedding_names, label = sprintf("oos_map \"%s\"", fit$method)))
  }
  method <- resolve_oos_method(fit, dots$method)
  X <- dots$X
  dots$method <- NULL
  dots$X <- NULL
  # the same rule as predict(): an argument the rule does not take is an error
  do.call(check_dots, c(dots, list(accepted = predict_rule_args(fit, method), fun = "predict_file()",
                                   context = sprintf("rule \"%s\" of a %s fit", method, fit$method))))
  native <- method %in% fit$oos$available
  plan <- do.call(fit_prediction_plan, c(list(fit, method, native, X), dots, list(verbose = verbose)))
  plan$out_names <- colnames(fit$embedding)
  plan$label <- sprintf("%s fit, rule \"%s\"", fit$method, method)
  plan
}

check_sep <- function(sep) {
  if (identical(sep, "auto")) return(sep)
  if (!is.character(sep) || length(sep) != 1L || is.na(sep) || nchar(sep) != 1L ||
      grepl("[0-9.eE+\"-]", sep)) {
    abort_input("sep", "must be \"auto\" or one character that cannot occur in a number (e.g. \",\" or \"\\t\").")
  }
  sep
}

detect_sep <- function(line) {
  for (s in c(",", "\t", ";", "|", " ")) if (grepl(s, line, fixed = TRUE)) return(s)
  ","
}

open_input <- function(input) {
  if (inherits(input, "connection")) {
    if (isOpen(input)) return(list(con = input, close = FALSE))
    open(input, "rt")
    return(list(con = input, close = TRUE))
  }
  if (!is.character(input) || length(input) != 1L || is.na(input)) {
    abort_input("input", "must be a file path (a single string) or a connection.")
  }
  if (!file.exists(input)) abort_input("input", sprintf("does not exist: %s.", input))
  list(con = file(input, open = "rt"), close = TRUE)
}

# Blocks of up to `n` non-blank lines with their 1-based line numbers.
line_reader <- function(con, n) {
  line <- 0
  list(next_block = function() {
    lines <- character()
    nos <- numeric()
    while (length(lines) < n) {
      got <- readLines(con, n = n - length(lines), warn = FALSE)
      if (!length(got)) break
      nos_got <- line + seq_along(got)
      line <<- line + length(got)
      keep <- grepl("[^[:space:]]", got)
      lines <- c(lines, got[keep])
      nos <- c(nos, nos_got[keep])
    }
    list(lines = lines, line_no = nos)
  })
}

# Fields of one line, by fread (quotes handled) as text.
split_fields <- function(line, sep) {
  dt <- data.table::fread(text = paste0(line, "\n"), sep = if (identical(sep, "auto")) detect_sep(line) else sep,
                          header = FALSE, colClasses = "character", skip = 0, quote = "\"",
                          strip.white = TRUE, showProgress = FALSE, data.table = FALSE,
                          na.strings = NULL)
  unname(unlist(dt[1L, ], use.names = FALSE))
}

looks_like_header <- function(fields) {
  num <- suppressWarnings(as.numeric(fields))
  any(is.na(num) & fields != "NA")
}

abort_file_input <- function(line, message) {
  msg <- if (line > 0) sprintf("`input` line %.0f: %s", line, message) else sprintf("`input` %s", message)
  stop(structure(
    class = c("manifoldOOS_file_error", "manifoldOOS_input_error", "manifoldOOS_error", "error",
              "condition"),
    list(message = msg, call = NULL, arg = "input", line = line)))
}

# Parse one block (fread), check it line by line when anything is off, and
# return the checked numeric matrix with the columns of the fit.
parse_block <- function(lines, line_no, sep, p, names_in, fit) {
  txt <- paste(c(lines, ""), collapse = "\n")
  problem <- NULL
  dt <- tryCatch(
    withCallingHandlers(
      data.table::fread(text = txt, sep = sep, header = FALSE, skip = 0, fill = FALSE,
                        quote = "\"", strip.white = TRUE, blank.lines.skip = FALSE,
                        integer64 = "double", showProgress = FALSE, data.table = FALSE,
                        na.strings = c("NA", "")),
      warning = function(w) {
        problem <<- conditionMessage(w)
        invokeRestart("muffleWarning")
      }),
    error = function(e) {
      problem <<- conditionMessage(e)
      NULL
    })
  rm(txt)
  if (!is.null(problem) || is.null(dt) || nrow(dt) != length(lines) || ncol(dt) != p) {
    nf <- utils::count.fields(textConnection(lines), sep = sep, quote = "\"",
                              blank.lines.skip = FALSE, comment.char = "")
    bad <- which(is.na(nf) | nf != p)
    if (length(bad)) {
      i <- bad[1L]
      abort_file_input(line_no[i], sprintf("has %s field%s; expected %d.",
                                           if (is.na(nf[i])) "an unterminated quote in its" else nf[i],
                                           if (!is.na(nf[i]) && nf[i] == 1) "" else "s", p))
    }
    abort_file_input(line_no[1L], sprintf("the block starting here could not be read (%s).",
                                          if (is.null(problem)) "unexpected shape" else problem))
  }
  x <- matrix(0, nrow(dt), p)
  for (j in seq_len(p)) {
    col <- dt[[j]]
    v <- if (is.numeric(col)) as.double(col) else suppressWarnings(as.numeric(col))
    bad <- which(!is.finite(v))
    if (length(bad)) {
      i <- bad[1L]
      shown <- if (is.na(col[i])) "an empty or NA field" else sprintf("\"%s\"", col[i])
      abort_file_input(line_no[i], sprintf("field %d is %s; every field must be a finite number.", j, shown))
    }
    x[, j] <- v
  }
  colnames(x) <- names_in
  fit_newdata(fit, x, arg = "input")
}

# Append the rows of y to an open connection, 17 significant digits.
write_rows <- function(y, con) {
  if (!nrow(y)) return(invisible())
  s <- sprintf("%.17g", y)
  dim(s) <- dim(y)
  lines <- do.call(paste, c(lapply(seq_len(ncol(s)), function(j) s[, j]), sep = ","))
  writeLines(lines, con, sep = "\n")
}
