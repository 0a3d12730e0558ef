# Image data: reading, errors, orientation. Tests on small files written
# here always run; tests on the staged data sets skip when they are absent.

# Write a data set folder with features.csv.gz (and labels.csv).
write_fake_set <- function(root, name, x, labels = NULL, header = FALSE) {
  d <- file.path(root, name)
  dir.create(d, recursive = TRUE, showWarnings = FALSE)
  con <- gzfile(file.path(d, "features.csv.gz"), "w")
  writeLines(apply(x, 1, function(r) paste(sprintf("%.17g", r), collapse = ",")), con)
  close(con)
  if (!is.null(labels)) {
    utils::write.table(labels, file.path(d, "labels.csv"), sep = ",", row.names = FALSE,
                       col.names = header, quote = FALSE)
  }
  d
}

with_data_option <- function(value, code) {
  old <- options(manifoldOOS.data = value)
  on.exit(options(old))
  code
}

test_that("image_data_path prefers the option, then the environment variable", {
  old_env <- Sys.getenv("MANIFOLDOOS_DATA", unset = NA)
  on.exit(if (is.na(old_env)) Sys.unsetenv("MANIFOLDOOS_DATA") else Sys.setenv(MANIFOLDOOS_DATA = old_env),
          add = TRUE)
  Sys.setenv(MANIFOLDOOS_DATA = "/from/env")
  with_data_option("/from/option", expect_identical(image_data_path(), "/from/option"))
  with_data_option(NULL, expect_identical(image_data_path(), "/from/env"))
  Sys.unsetenv("MANIFOLDOOS_DATA")
  with_data_option(NULL, expect_identical(image_data_path(), ""))
  with_data_option(42, expect_input_error(image_data_path(), "manifoldOOS.data"))
})

test_that("small files are read exactly, with pixel order and dimensions from the table", {
  root <- tempfile("mo-data-")
  on.exit(unlink(root, recursive = TRUE), add = TRUE)
  # a Frey-sized set (28 x 20, row-major) whose top rows are dark
  set.seed(1)
  img <- matrix(rep(seq(10, 200, length.out = 28), 20), 28, 20) + sample(0:5, 560, TRUE)
  x <- rbind(as.vector(t(img)), as.vector(t(img[28:1, ])), as.vector(t(img)) + 1)
  write_fake_set(root, "Frey", x)
  # an unknown set with labels and fractional values
  y <- matrix(c(0.125, 1 / 3, 2.5e-7, -4, 1e5, 7), 2, 3)
  write_fake_set(root, "Toy", y, labels = c(3L, 1L))
  # ISOFaces-style labels with a header
  iso <- matrix(runif(1024 * 3), 3)
  write_fake_set(root, "ISOFaces", iso,
                 labels = data.frame(light = c(0.5, -1, 0.5), pan = 1:3, tilt = c(-2, 0, 2)),
                 header = TRUE)

  expect_identical(list_image_data(root), c("Frey", "ISOFaces", "Toy"))
  f <- load_image_data("Frey", root)
  expect_identical(dim(f$x), c(3L, 560L))
  expect_identical(f$x, unname(x) + 0)
  expect_null(f$labels)
  expect_identical(f$image_dim, c(28L, 20L))
  expect_identical(f$pixel_order, "row")
  expect_identical(f$name, "Frey")
  expect_identical(f$value_range, range(x))
  # image_raster undoes the row-major order: row 1 of the raster is the top row
  r1 <- manifoldOOS:::image_raster(f, 1)
  expect_identical(dim(r1), c(28L, 20L))
  expect_equal(r1, (img - min(x)) / diff(range(x)), tolerance = 1e-15)
  expect_lt(mean(r1[1:3, ]), mean(r1[26:28, ]))
  r2 <- manifoldOOS:::image_raster(f, 2)
  expect_equal(r2, r1[28:1, ], tolerance = 1e-15)
  expect_true(all(r1 >= 0 & r1 <= 1))

  toy <- load_image_data("toy", root)       # names match ignoring case
  expect_identical(toy$name, "Toy")
  expect_identical(toy$x, unname(y))        # shortest round-trip decimals read back exactly
  expect_identical(toy$labels, c(3L, 1L))
  expect_null(toy$image_dim)

  i <- load_image_data("ISOFaces", root)
  expect_s3_class(i$labels, "data.frame")
  expect_identical(names(i$labels), c("light", "pan", "tilt"))
  expect_equal(i$labels$tilt, c(-2, 0, 2))
  expect_identical(i$image_dim, c(32L, 32L))
})

test_that("missing folders and data sets give classed errors naming path or name", {
  root <- tempfile("mo-data-")
  on.exit(unlink(root, recursive = TRUE), add = TRUE)
  write_fake_set(root, "Yale", matrix(1:2048, 2))
  write_fake_set(root, "USPS", matrix(1:512, 2), labels = 1:2)
  err <- expect_input_error(load_image_data("COIL20", root), "`name`")
  expect_match(conditionMessage(err), "USPS, Yale", fixed = TRUE)
  expect_match(conditionMessage(err), "COIL20", fixed = TRUE)
  err <- expect_input_error(load_image_data("Yale", file.path(root, "nope")), "`path`")
  expect_match(conditionMessage(err), "manifoldOOS.data", fixed = TRUE)
  expect_match(conditionMessage(err), "MANIFOLDOOS_DATA", fixed = TRUE)
  err <- expect_input_error(load_image_data("Yale", ""), "`path`")
  expect_match(conditionMessage(err), "options(manifoldOOS.data", fixed = TRUE)
  expect_input_error(load_image_data(c("Yale", "USPS"), root), "`name`")
  expect_input_error(load_image_data(NA_character_, root), "`name`")
  expect_input_error(load_image_data("Yale", c(root, root)), "`path`")
  expect_input_error(list_image_data(file.path(root, "nope")), "`path`")
  # the default path comes from the option
  expect_identical(with_data_option(root, load_image_data("Yale")$x), matrix(as.double(1:2048), 2))
  # wrong number of pixels for a known set, and mismatched labels
  write_fake_set(root, "ORL", matrix(1:30, 3))
  expect_input_error(load_image_data("ORL", root), "1024")
  write_fake_set(root, "PIE", matrix(1:2048, 2), labels = 1:3)
  expect_input_error(load_image_data("PIE", root), "labels.csv")
})

test_that("plot_images draws a grid and checks its arguments", {
  bars <- t(sapply(1:20, function(k) {
    img <- matrix(0, 12, 16)
    img[, k %% 16 + 1] <- 1
    as.vector(img)
  }))
  imgs <- list(x = bars, labels = 1:20, image_dim = c(12, 16), pixel_order = "column")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot_images(imgs, index = c(2, 5, 7)), c(2L, 5L, 7L))
  expect_identical(plot_images(imgs), 1:20)
  expect_identical(plot_images(imgs, nrow = 2, labels = FALSE, main = "bars"), 1:20)
  expect_identical(plot_images(imgs, index = 1:3, labels = c("a", "b", "c")), 1:3)
  expect_input_error(plot_images(imgs, index = 0), "`index`")
  expect_input_error(plot_images(imgs, index = 21), "`index`")
  expect_input_error(plot_images(imgs, index = 1.5), "`index`")
  expect_input_error(plot_images(imgs, nrow = 2, ncol = 2), "`nrow`")
  expect_input_error(plot_images(imgs, index = 1:3, labels = c("a", "b")), "`labels`")
  expect_input_error(plot_images(list(x = bars)), "`images`")
  expect_input_error(plot_images(bars), "`images`")
  expect_input_error(plot_images(list(x = bars, image_dim = c(10, 10))), "`images`")
  # the raster of a column-major image is the image itself (column k lit)
  r <- manifoldOOS:::image_raster(imgs, 3)
  expect_identical(which(colSums(r) > 0), 4L)
  # colour images: h x w x 3 arrays in [0, 1]
  rgb <- list(x = rbind(c(rep(0, 6), rep(255, 6), rep(100, 6))), image_dim = c(2, 3, 3),
              pixel_order = "column", value_range = c(0, 255))
  a <- manifoldOOS:::image_raster(rgb, 1)
  expect_identical(dim(a), c(2L, 3L, 3L))
  expect_equal(a[, , 2], matrix(1, 2, 3))
  expect_equal(a[, , 3], matrix(100 / 255, 2, 3))
  expect_identical(plot_images(rgb), 1L)
})

# ---------------------------------------------------------------------------
# The staged data sets (skipped when absent)

expected_sets <- list(
  COIL20 = list(n = 1440, dim = c(32, 32), range = c(0, 1), counts = rep(72, 20)),
  Yale = list(n = 165, dim = c(32, 32), range = c(0, 255), counts = rep(11, 15)),
  ORL = list(n = 400, dim = c(32, 32), range = c(2, 235), counts = rep(10, 40)),
  ORL64 = list(n = 400, dim = c(64, 64), range = c(0, 242), counts = rep(10, 40)),
  YaleB = list(n = 2414, dim = c(32, 32), range = c(0, 255), counts = NULL),
  PIE = list(n = 2856, dim = c(32, 32), range = c(0, 255), counts = rep(42, 68)),
  UMIST = list(n = 575, dim = c(32, 32), range = c(4, 242),
               counts = c(38, 35, 26, 24, 26, 23, 19, 22, 20, 32, 34, 34, 26, 30, 19, 26, 26, 33, 48, 34)),
  Teapots = list(n = 100, dim = c(76, 101, 3), range = c(0, 255), counts = NULL),
  ISOFaces = list(n = 698, dim = c(32, 32), range = c(0, 1), counts = NULL),
  Frey = list(n = 1965, dim = c(28, 20), range = c(8, 238), counts = NULL),
  USPS = list(n = 11000, dim = c(16, 16), range = c(0, 255), counts = rep(1100, 10))
)

test_that("staged data sets have the documented sizes, labels and value ranges", {
  root <- skip_if_no_shared_data()
  found <- list_image_data(root)
  for (nm in intersect(names(expected_sets), found)) {
    e <- expected_sets[[nm]]
    d <- load_image_data(nm, root)
    expect_identical(d$name, nm)
    expect_identical(dim(d$x), as.integer(c(e$n, prod(e$dim))))
    expect_identical(d$image_dim, as.integer(e$dim))
    expect_identical(d$pixel_order, if (nm == "Frey") "row" else "column")
    expect_identical(range(d$x), e$range)
    expect_identical(d$value_range, e$range)
    expect_false(anyNA(d$x))
    if (!is.null(e$counts)) {
      expect_type(d$labels, "integer")
      expect_identical(as.vector(table(d$labels)), as.integer(e$counts))
    }
    if (nm %in% c("Frey", "Teapots")) expect_null(d$labels)
  }
})

test_that("label conventions of individual sets", {
  root <- skip_if_no_shared_data("USPS")
  u <- load_image_data("USPS", root)
  expect_identical(sort(unique(u$labels)), 0:9)
  expect_identical(u$labels, rep(c(1:9, 0L), each = 1100))
  yb <- load_image_data("YaleB", skip_if_no_shared_data("YaleB"))
  cnt <- table(yb$labels)
  expect_length(cnt, 38)
  expect_true(all(cnt >= 59 & cnt <= 64))
  iso <- load_image_data("ISOFaces", skip_if_no_shared_data("ISOFaces"))
  expect_s3_class(iso$labels, "data.frame")
  expect_identical(names(iso$labels), c("light", "pan", "tilt"))
  expect_identical(nrow(iso$labels), 698L)
  expect_lt(max(abs(colMeans(iso$labels))), 1e-10)
  expect_equal(unname(apply(iso$labels, 2, sd)), c(1, 1, 1), tolerance = 1e-8)
  o64 <- skip_if_no_shared_data("ORL64")
  o32 <- skip_if_no_shared_data("ORL")
  expect_identical(load_image_data("ORL64", o64)$labels, load_image_data("ORL", o32)$labels)
})

# Mean image of a set, as drawn (rows top to bottom).
mean_raster <- function(d, idx = seq_len(nrow(d$x))) {
  Reduce(`+`, lapply(idx, function(i) manifoldOOS:::image_raster(d, i))) / length(idx)
}

test_that("face images are upright: the dark eye band is in the upper half", {
  # The eye band is the deepest valley of the mean face's row profile
  # (darker than some row above it and some row below it).
  deepest_valley <- function(p) {
    h <- length(p)
    depth <- vapply(seq_len(h), function(i) min(max(p[1:i]), max(p[i:h])) - p[i], numeric(1))
    which.max(depth)
  }
  for (nm in c("Frey", "ORL", "ORL64", "Yale", "YaleB", "PIE", "UMIST")) {
    root <- skip_if_no_shared_data(nm)
    d <- load_image_data(nm, root)
    prof <- rowMeans(mean_raster(d))
    h <- length(prof)
    eye <- deepest_valley(prof)
    expect_true(eye > 1 && eye <= 0.45 * h, label = sprintf("%s eye row %d of %d", nm, eye, h))
    # upside down, the same measure finds it in the lower half
    expect_gt(deepest_valley(rev(prof)), 0.55 * h)
  }
})

test_that("Frey is row-major: reading it row by row gives smooth images", {
  root <- skip_if_no_shared_data("Frey")
  f <- load_image_data("Frey", root)
  rough <- function(byrow) mean(sapply(1:200, function(i) {
    r <- matrix(f$x[i, ], 28, 20, byrow = byrow)
    mean(abs(diff(r))) + mean(abs(diff(t(r))))
  }))
  expect_lt(rough(TRUE), 0.7 * rough(FALSE))
  r <- manifoldOOS:::image_raster(f, 1)
  expect_identical(r, matrix((f$x[1, ] - 8) / 230, 28, 20, byrow = TRUE))
})

test_that("USPS digits and teapots are upright and not mirrored", {
  root <- skip_if_no_shared_data("USPS")
  u <- load_image_data("USPS", root)
  sevens <- which(u$labels == 7L)
  top_brighter <- vapply(sevens, function(i) {
    r <- manifoldOOS:::image_raster(u, i)
    mean(r[1:4, ]) > mean(r[13:16, ])
  }, logical(1))
  expect_gt(mean(top_brighter), 0.95)
  # the stem of a 7 leans left towards the bottom
  col_centre <- function(r, rows) sum(r[rows, ] * rep(1:16, each = length(rows))) / sum(r[rows, ])
  lean_left <- vapply(sevens, function(i) {
    r <- manifoldOOS:::image_raster(u, i)
    col_centre(r, 10:16) < col_centre(r, 1:4)
  }, logical(1))
  expect_gt(mean(lean_left), 0.6)

  tp <- load_image_data("Teapots", skip_if_no_shared_data("Teapots"))
  a <- manifoldOOS:::image_raster(tp, 1)
  expect_identical(dim(a), c(76L, 101L, 3L))
  expect_true(all(a >= 0 & a <= 1))
  expect_identical(a[5, 7, 2], tp$x[1, 5 + 76 * 6 + 7676] / 255)
  # the lit table top is at the bottom of every frame
  bottom_brighter <- vapply(1:100, function(i) {
    r <- manifoldOOS:::image_raster(tp, i)
    mean(r[67:76, , ]) > mean(r[1:10, , ])
  }, logical(1))
  expect_true(all(bottom_brighter))
})
