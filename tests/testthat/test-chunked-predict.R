# predict(..., chunk_size): the cases the contract (test-contract.R, which
# checks chunked == one call for every registry entry and rule) does not
# reach: per-row attributes across chunks, fallbacks of a map, novelty,
# reordered data-frame columns, bad arguments.

d <- registry_data()
fits <- registry_fits(d, names = c("pca", "isomap", "lle", "lgrm", "sosi"))

test_that("per-row attributes are combined across chunks", {
  # snapped (LLE): rows equal to training points snap; the flag follows its row
  fit <- fits$lle
  x <- rbind(d$new[1:4, ], d$train[c(3, 9), ], d$new[5:7, ])
  one <- predict(fit, x)
  expect_identical(attr(one, "snapped"), c(rep(FALSE, 4), TRUE, TRUE, rep(FALSE, 3)))
  expect_identical(predict(fit, x, chunk_size = 2), one)
  # sosi: labels (factor) and confidence per row
  one <- predict(fits$sosi, d$new)
  ch <- predict(fits$sosi, d$new, chunk_size = 4)
  expect_identical(ch, one)
  expect_s3_class(attr(ch, "labels"), "factor")
  expect_length(attr(ch, "labels"), nrow(d$new))
})

test_that("oos_map predict: chunked == one call with fallback and certified attributes", {
  Y <- embedding(fits$isomap)
  # sparse rule: a zero row is coded by the error part only -> fallback
  map <- oos_map(d$train, Y, method = "sparse", normalize = FALSE)
  x <- rbind(d$new[1:3, ], zero = c(a = 0, b = 0, c = 0), d$new[4:6, ])
  one <- predict(map, x)
  expect_length(attr(one, "fallback"), nrow(x))
  expect_length(attr(one, "certified"), nrow(x))
  ch <- predict(map, x, chunk_size = 2)
  expect_identical(ch, one)
  expect_identical(attr(ch, "fallback"), attr(one, "fallback"))
})

test_that("novelty scores ride along with chunked and parallel-free predictions", {
  fit <- fits$isomap
  one <- predict(fit, d$new, novelty = TRUE)
  expect_identical(predict(fit, d$new, novelty = TRUE, chunk_size = 3), one)
  expect_length(attr(one, "novelty"), nrow(d$new))
})

test_that("data frames with reordered columns and chunks give the same answer", {
  fit <- fits$lgrm
  df <- as.data.frame(d$new)[, c("c", "a", "b")]
  expect_identical(predict(fit, df, chunk_size = 5), predict(fit, d$new))
})

test_that("bad chunk_size and parallel values are classed errors naming the argument", {
  fit <- fits$pca
  for (bad in list(0, -1, 1.5, NA, "a", c(2, 3), Inf)) {
    e <- tryCatch(predict(fit, d$new, chunk_size = bad), manifoldOOS_input_error = function(e) e)
    expect_s3_class(e, "manifoldOOS_input_error")
    expect_identical(e$arg, "chunk_size")
  }
  e <- tryCatch(predict(fit, d$new, parallel = NA), manifoldOOS_input_error = function(e) e)
  expect_identical(e$arg, "parallel")
  e <- tryCatch(predict(oos_map(d$train, embedding(fit)), d$new, chunk_size = 0),
                manifoldOOS_input_error = function(e) e)
  expect_identical(e$arg, "chunk_size")
})
