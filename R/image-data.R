# Image data sets used in the manifold-learning literature, read from a
# folder of converted files (one sub-folder per set with features.csv.gz,
# optional labels.csv).

# Image size and pixel order of the known sets (height, width[, channels]).
image_data_table <- function() {
  list(
    COIL20   = list(dim = c(32L, 32L), order = "column"),
    Yale     = list(dim = c(32L, 32L), order = "column"),
    ORL      = list(dim = c(32L, 32L), order = "column"),
    ORL64    = list(dim = c(64L, 64L), order = "column"),
    YaleB    = list(dim = c(32L, 32L), order = "column"),
    PIE      = list(dim = c(32L, 32L), order = "column"),
    UMIST    = list(dim = c(32L, 32L), order = "column"),
    Teapots  = list(dim = c(76L, 101L, 3L), order = "column"),
    ISOFaces = list(dim = c(32L, 32L), order = "column"),
    Frey     = list(dim = c(28L, 20L), order = "row"),
    USPS     = list(dim = c(16L, 16L), order = "column")
  )
}

#' Folder of the image data sets
#'
#' The folder searched by [load_image_data()]: the option
#' `manifoldOOS.data` if set, else the environment variable
#' `MANIFOLDOOS_DATA`, else `""` (none).
#'
#' @return A single string (possibly empty).
#' @family image data
#' @export
#' @examples
#' image_data_path()
#' old <- options(manifoldOOS.data = tempdir())
#' image_data_path()
#' options(old)
image_data_path <- function() {
  opt <- getOption("manifoldOOS.data")
  if (!is.null(opt)) {
    if (!is.character(opt) || length(opt) != 1L || is.na(opt)) {
      abort_input("options(manifoldOOS.data)", "must be a single folder name (a string).")
    }
    if (nzchar(opt)) return(opt)
  }
  Sys.getenv("MANIFOLDOOS_DATA", "")
}

check_data_path <- function(path) {
  if (!is.character(path) || length(path) != 1L || is.na(path)) {
    abort_input("path", "must be a single folder name (a string).")
  }
  if (!nzchar(path)) {
    abort_input("path", paste0(
      "is empty: no image data folder is configured. Set it with ",
      "options(manifoldOOS.data = \"<folder>\") or the environment variable MANIFOLDOOS_DATA, ",
      "or pass `path` explicitly."))
  }
  if (!dir.exists(path)) {
    abort_input("path", sprintf(paste0(
      "is not an existing folder: \"%s\". Point options(manifoldOOS.data = ) or the ",
      "environment variable MANIFOLDOOS_DATA at the folder holding the image data sets."), path))
  }
  path
}

#' List the image data sets in a folder
#'
#' @param path Folder holding one sub-folder per data set (each with a file
#'   `features.csv.gz`); defaults to [image_data_path()].
#' @return A sorted character vector of the data set names found (empty when
#'   there are none).
#' @family image data
#' @export
#' @examples
#' if (nzchar(image_data_path())) list_image_data()
list_image_data <- function(path = image_data_path()) {
  path <- check_data_path(path)
  dirs <- list.dirs(path, full.names = FALSE, recursive = FALSE)
  dirs <- dirs[file.exists(file.path(path, dirs, "features.csv.gz"))]
  sort(dirs)
}

#' Load an image data set
#'
#' Reads one of the image data sets used in the manifold-learning
#' literature from a folder of converted files: `<path>/<name>/features.csv.gz`
#' (gzip-compressed CSV without header, one image per row) and, when present,
#' `<path>/<name>/labels.csv` (one integer label per line; for `ISOFaces` a
#' CSV with header and the three columns `light`, `pan`, `tilt`).
#'
#' Known sets, with image size (height x width) and pixel order:
#' `COIL20`, `Yale`, `ORL`, `YaleB`, `PIE`, `UMIST`, `ISOFaces` (32 x 32),
#' `ORL64` (64 x 64), `USPS` (16 x 16), all column-major (the first `h`
#' values are the first image column, top to bottom); `Frey` (28 x 20,
#' row-major: the first `w` values are the top row); `Teapots`
#' (76 x 101 x 3 RGB, column-major over row, column, channel). Other
#' sub-folders with a `features.csv.gz` are read too, with
#' `image_dim = NULL`.
#'
#' @param name Name of the data set (a sub-folder of `path`; matched
#'   ignoring case).
#' @param path Folder holding the data sets; defaults to [image_data_path()]
#'   (option `manifoldOOS.data`, else environment variable
#'   `MANIFOLDOOS_DATA`).
#' @return A list with
#'   * `x`: numeric matrix, one image per row, values as stored;
#'   * `labels`: integer vector of class labels, a data frame (`ISOFaces`),
#'     or `NULL` (`Frey`, `Teapots`);
#'   * `image_dim`: `c(height, width)` or `c(height, width, 3)`;
#'   * `pixel_order`: `"column"` or `"row"`;
#'   * `value_range`: the range of the pixel values of the whole set (used to
#'     scale images for display);
#'   * `name`: the data set name.
#' @family image data
#' @export
#' @examples
#' if ("Frey" %in% tryCatch(list_image_data(), error = function(e) character(0))) {
#'   frey <- load_image_data("Frey")
#'   dim(frey$x)
#'   plot_images(frey, index = 1:12)
#' }
load_image_data <- function(name, path = image_data_path()) {
  if (!is.character(name) || length(name) != 1L || is.na(name) || !nzchar(name)) {
    abort_input("name", "must be a single data set name (a string).")
  }
  path <- check_data_path(path)
  found <- list_image_data(path)
  hit <- found[tolower(found) == tolower(name)]
  if (length(hit) > 1L) hit <- hit[hit == name]
  if (length(hit) != 1L) {
    abort_input("name", sprintf("\"%s\" is not a data set in \"%s\". Data sets found: %s.",
                                name, path,
                                if (length(found)) paste(found, collapse = ", ") else "none"))
  }
  name <- hit
  dir <- file.path(path, name)
  x <- read_feature_file(file.path(dir, "features.csv.gz"))

  info <- image_data_table()[[name]]
  image_dim <- NULL
  pixel_order <- "column"
  if (!is.null(info)) {
    image_dim <- info$dim
    pixel_order <- info$order
    if (prod(image_dim) != ncol(x)) {
      abort_input("name", sprintf("data set \"%s\" should have %d values per image (%s); the file has %d.",
                                  name, prod(image_dim), paste(image_dim, collapse = " x "), ncol(x)))
    }
  }

  labels <- NULL
  lab_file <- file.path(dir, "labels.csv")
  if (file.exists(lab_file)) {
    labels <- read_label_file(lab_file)
    n_lab <- if (is.data.frame(labels)) nrow(labels) else length(labels)
    if (n_lab != nrow(x)) {
      abort_input("name", sprintf("data set \"%s\": labels.csv has %d entries for %d images.",
                                  name, n_lab, nrow(x)))
    }
  }
  list(x = x, labels = labels, image_dim = image_dim, pixel_order = pixel_order,
       value_range = range(x), name = name)
}

# Fast reader for a header-less numeric CSV (gzip-compressed).
read_feature_file <- function(file) {
  con <- gzfile(file, "rt")
  on.exit(close(con))
  first <- readLines(con, n = 1L, warn = FALSE)
  if (!length(first)) abort_input("name", sprintf("the file \"%s\" is empty.", file))
  p <- length(strsplit(first, ",", fixed = TRUE)[[1L]])
  close(con)
  on.exit()
  con <- gzfile(file, "rt")
  on.exit(close(con))
  v <- scan(con, what = double(), sep = ",", quiet = TRUE)
  if (length(v) %% p != 0L) {
    abort_input("name", sprintf("the file \"%s\" does not have %d values on every line.", file, p))
  }
  x <- matrix(v, ncol = p, byrow = TRUE)
  if (anyNA(x)) abort_input("name", sprintf("the file \"%s\" contains missing values.", file))
  x
}

read_label_file <- function(file) {
  first <- readLines(file, n = 1L, warn = FALSE)
  if (length(first) && grepl("[A-Za-z]", first)) {
    df <- utils::read.csv(file, header = TRUE)
    return(df)
  }
  v <- scan(file, what = double(), quiet = TRUE)
  if (all(v == round(v))) as.integer(v) else v
}

# Check an image-data list (as from load_image_data()).
check_images <- function(images, arg = "images") {
  if (!is.list(images) || is.null(images$x) || !is.matrix(images$x) || !is.numeric(images$x)) {
    abort_input(arg, "must be a list with a numeric matrix `x` (one image per row), as from load_image_data().")
  }
  d <- images$image_dim
  if (is.null(d) || !is.numeric(d) || !(length(d) %in% 2:3) || prod(d) != ncol(images$x)) {
    abort_input(arg, sprintf(
      "must have `image_dim` = c(height, width) or c(height, width, 3) with product %d (the number of columns of `x`).",
      ncol(images$x)))
  }
  ord <- images$pixel_order %||% "column"
  if (!identical(ord, "column") && !identical(ord, "row")) {
    abort_input(arg, "must have `pixel_order` \"column\" or \"row\".")
  }
  images
}

# The i-th image, scaled to [0, 1] by the data set's value range and oriented
# so that graphics::rasterImage() draws it upright: a height x width matrix
# (first row = top row), or a height x width x 3 array for colour images.
image_raster <- function(images, i) {
  d <- images$image_dim
  v <- images$x[i, ]
  rng <- images$value_range %||% range(images$x)
  v <- if (rng[2] > rng[1]) (v - rng[1]) / (rng[2] - rng[1]) else v * 0 + 0.5
  v <- pmin(1, pmax(0, v))
  if (length(d) == 3L) {
    if (identical(images$pixel_order, "row")) {
      # row-major over (row, column, channel): the last index varies fastest
      a <- array(v, rev(d))
      return(aperm(a, 3:1))
    }
    return(array(v, d))
  }
  if (identical(images$pixel_order, "row")) matrix(v, d[1], d[2], byrow = TRUE) else matrix(v, d[1], d[2])
}

#' Draw a grid of images
#'
#' Draws images from an image data set side by side with base graphics
#' ([graphics::rasterImage()]), each with an optional caption.
#'
#' @param images A list as returned by [load_image_data()]: `x` (one image
#'   per row), `image_dim`, `pixel_order` and optionally `labels` and
#'   `value_range` (grey levels are scaled from this range, by default the
#'   range of `x`, to black..white).
#' @param index Rows of `images$x` to draw; by default up to 48 rows evenly
#'   spread over the set.
#' @param nrow,ncol Grid size; by default about square.
#' @param labels `TRUE` (captions: the class label when `images$labels` is a
#'   vector, else the row number), `FALSE` (none), or a vector with one
#'   caption per element of `index`.
#' @param main Optional title.
#' @param ... Further arguments passed to [graphics::rasterImage()] (e.g.
#'   `interpolate = TRUE` for smoothed pixels).
#' @return `index`, invisibly.
#' @family image data
#' @export
#' @examples
#' # a small artificial set: 20 images of a moving bar, 12 x 16 pixels
#' bars <- t(sapply(1:20, function(k) {
#'   img <- matrix(0, 12, 16)
#'   img[, (k %% 16) + 1] <- 1
#'   as.vector(img)
#' }))
#' imgs <- list(x = bars, labels = 1:20, image_dim = c(12, 16),
#'              pixel_order = "column", name = "bars")
#' plot_images(imgs, index = 1:12)
plot_images <- function(images, index = NULL, nrow = NULL, ncol = NULL, labels = TRUE,
                        main = NULL, ...) {
  check_dots(..., accepted = list(graphics::rasterImage, graphics_par_names()), fun = "plot_images()")
  images <- check_images(images)
  n <- nrow(images$x)
  if (is.null(index)) {
    index <- unique(round(seq(1, n, length.out = min(n, 48L))))
  }
  if (!is.numeric(index) || !length(index) || anyNA(index) || any(index != round(index)) ||
      any(index < 1 | index > n)) {
    abort_input("index", sprintf("must be row numbers between 1 and %d.", n))
  }
  index <- as.integer(index)
  m <- length(index)
  if (!is.null(nrow)) nrow <- check_number(nrow, "nrow", lower = 1, integer = TRUE)
  if (!is.null(ncol)) ncol <- check_number(ncol, "ncol", lower = 1, integer = TRUE)
  if (is.null(ncol) && is.null(nrow)) {
    ncol <- as.integer(ceiling(sqrt(m)))
  }
  if (is.null(ncol)) ncol <- as.integer(ceiling(m / nrow))
  if (is.null(nrow)) nrow <- as.integer(ceiling(m / ncol))
  if (nrow * ncol < m) {
    abort_input("nrow", sprintf("times `ncol` must be at least the number of images (%d); got %d x %d.",
                                m, nrow, ncol))
  }

  captions <- NULL
  if (is.logical(labels) && length(labels) == 1L && !is.na(labels)) {
    if (labels) {
      lab <- images$labels
      captions <- if (!is.null(lab) && is.atomic(lab) && length(lab) == n) {
        as.character(lab[index])
      } else {
        as.character(index)
      }
    }
  } else if (is.atomic(labels) && length(labels) == m) {
    captions <- as.character(labels)
  } else {
    abort_input("labels", sprintf("must be TRUE, FALSE or a vector of %d captions (one per image).", m))
  }

  d <- images$image_dim
  cell_w <- 1
  cell_h <- d[1] / d[2]
  cap_h <- if (is.null(captions)) 0 else 0.22
  gap <- 0.06
  row_h <- cell_h + cap_h + gap
  old <- graphics::par(mar = c(0.2, 0.2, if (is.null(main)) 0.2 else 2, 0.2))
  on.exit(graphics::par(old))
  graphics::plot.new()
  graphics::plot.window(xlim = c(0, ncol * (cell_w + gap)), ylim = c(0, nrow * row_h),
                        asp = 1, xaxs = "i", yaxs = "i")
  if (!is.null(main)) graphics::title(main = main)
  cex <- min(0.8, 0.8 * 8 / max(ncol, 8))
  for (k in seq_len(m)) {
    r <- (k - 1L) %/% ncol
    cc <- (k - 1L) %% ncol
    x0 <- cc * (cell_w + gap) + gap / 2
    ytop <- (nrow - r) * row_h - gap / 2
    ybottom <- ytop - cell_h
    ras <- image_raster(images, index[k])
    dots <- list(...)
    if (is.null(dots$interpolate)) dots$interpolate <- FALSE
    do.call(graphics::rasterImage,
            c(list(grDevices::as.raster(ras), x0, ybottom, x0 + cell_w, ytop), dots))
    if (!is.null(captions)) {
      graphics::text(x0 + cell_w / 2, ybottom - cap_h / 2, captions[k], cex = cex)
    }
  }
  invisible(index)
}
