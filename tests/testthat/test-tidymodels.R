# recipes step and ggplot2 methods (both packages in Suggests).

test_that("step_manifold: prep fits, bake equals predict, batch == row-by-row, tidy", {
  skip_if_not_installed("recipes")
  roll <- swiss_roll(300, seed = 4)
  df <- data.frame(roll$x, t = roll$color)
  train <- df[1:200, ]
  test <- df[201:300, ]
  rec <- recipes::recipe(t ~ ., data = train)
  rec <- step_manifold(rec, recipes::all_predictors(), method = "ltsa", ndim = 2,
                       options = list(k = 10))
  expect_s3_class(recipes::tidy(rec$steps[[1]]), "data.frame")
  prepped <- recipes::prep(rec, training = train)
  baked <- recipes::bake(prepped, new_data = test)
  expect_named(baked, c("t", "Dim1", "Dim2"))
  direct <- predict(ltsa(as.matrix(train[, 1:3]), ndim = 2, k = 10), as.matrix(test[, 1:3]))
  expect_equal(unname(as.matrix(baked[, c("Dim1", "Dim2")])), matrix(direct, nrow(direct)),
               tolerance = 1e-10)
  one <- recipes::bake(prepped, new_data = test[7, ])
  expect_equal(unname(unlist(one[1, c("Dim1", "Dim2")])),
               unname(unlist(baked[7, c("Dim1", "Dim2")])), tolerance = 1e-10)
  # training rows baked = training embedding
  juiced <- recipes::bake(prepped, new_data = NULL)
  expect_equal(unname(as.matrix(juiced[, c("Dim1", "Dim2")])),
               unname(embedding(prepped$steps[[1]]$fit)), tolerance = 1e-8)
  td <- recipes::tidy(prepped$steps[[1]])
  expect_equal(nrow(td), 3 * 2)
  expect_true(all(td$method == "ltsa"))
  # the prepped recipe survives saveRDS/readRDS
  path <- tempfile(fileext = ".rds")
  saveRDS(prepped, path)
  again <- recipes::bake(readRDS(path), new_data = test)
  expect_identical(as.data.frame(again), as.data.frame(baked))
  # keep_original_cols, other prefix
  rec2 <- step_manifold(recipes::recipe(t ~ ., data = train), recipes::all_predictors(),
                        method = "pca", ndim = 1, prefix = "PC", keep_original_cols = TRUE)
  b2 <- recipes::bake(recipes::prep(rec2, training = train), new_data = test)
  expect_true(all(c("x", "y", "z", "PC1") %in% names(b2)))
  # bad input
  expect_input_error(step_manifold(rec, recipes::all_predictors(), method = "nope"), "method")
  expect_input_error(step_manifold(rec, recipes::all_predictors(), ndim = 0), "ndim")
  # recipes checks the columns itself; the step checks again when called directly
  expect_input_error(manifoldOOS:::bake.step_manifold(prepped$steps[[1]], test[, c("x", "t")]),
                     "new_data")
})

test_that("autoplot and fortify (ggplot2)", {
  skip_if_not_installed("ggplot2")
  roll <- swiss_roll(200, seed = 5)
  fit <- pca(roll$x[1:150, ], ndim = 2)
  df <- ggplot2::fortify(fit, color = roll$color[1:150], newdata = roll$x[151:200, ])
  expect_equal(nrow(df), 200)
  expect_equal(as.matrix(df[df$set == "predicted", c("x", "y")]),
               unname(predict(fit, roll$x[151:200, ])), ignore_attr = TRUE)
  p <- ggplot2::autoplot(fit, color = roll$color[1:150], newdata = roll$x[151:200, ])
  expect_s3_class(p, "ggplot")
  pdf(NULL)
  on.exit(dev.off())
  print(p)
  expect_input_error(ggplot2::fortify(fit, dims = c(1, 5)), "dims")
  expect_input_error(ggplot2::autoplot(fit, color = 1:3), "color")
})

test_that("plot_rnx returns the R_NX curves it draws", {
  roll <- swiss_roll(300, seed = 6)
  pdf(NULL)
  on.exit(dev.off())
  fits <- list(PCA = pca(roll$x, 2), Truth = roll$truth)
  res <- plot_rnx(roll$x, fits, K_max = 50)
  expect_equal(nrow(res), 2 * 50)
  expect_equal(res$rnx[res$embedding == "PCA"], rnx(roll$x, embedding(fits$PCA), K_max = 50))
  expect_equal(unname(attr(res, "auc")["Truth"]), rnx_auc(roll$x, roll$truth, K_max = 50))
  expect_input_error(plot_rnx(roll$x, list(A = roll$x[1:10, 1:2])), "embeddings")
})
