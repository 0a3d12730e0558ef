# plot() image thumbnails and the method-specific autoplot() views.

pv_images <- function(n = 90, side = 10) {
  ang <- seq(0, pi, length.out = n + 1)[-(n + 1)]
  g <- expand.grid(r = seq(-1, 1, length.out = side), c = seq(-1, 1, length.out = side))
  t(vapply(ang, function(a) exp(-(g$r * cos(a) - g$c * sin(a))^2 / 0.05), numeric(side^2)))
}

test_that("plot() draws thumbnails from an image matrix with image_dim, or an image-data list", {
  imgs <- pv_images()
  fit <- isomap(imgs, 2, k = 6)
  pdf(NULL)
  on.exit(dev.off())
  # record the rasterImage() calls made by the plot
  rec <- new.env()
  rec$n <- 0L
  rec$img <- list()
  suppressMessages(trace(graphics::rasterImage, print = FALSE, tracer = bquote({
    .rec <- .(rec)
    .rec$n <- .rec$n + 1L
    .rec$img[[.rec$n]] <- image
  })))
  on.exit(suppressMessages(untrace(graphics::rasterImage)), add = TRUE)
  expect_identical(plot(fit, images = imgs, image_dim = c(10, 10), n_images = 12), fit)
  expect_equal(rec$n, 12L)
  # each thumbnail is one of the images (column-major pixels), scaled to [0, 1]
  rng <- range(imgs)
  scaled <- (imgs - rng[1]) / diff(rng)
  for (im in rec$img) {
    expect_equal(dim(im), c(10L, 10L))
    expect_true(any(vapply(seq_len(nrow(imgs)), function(i)
      isTRUE(all.equal(c(im), scaled[i, ])), TRUE)))
  }
  # they are different images, spread over the embedding
  expect_equal(length(unique(lapply(rec$img, c))), 12L)
  # the same with a list as from load_image_data()
  rec$n <- 0L
  plot(fit, images = list(x = imgs, image_dim = c(10L, 10L)), n_images = 5)
  expect_equal(rec$n, 5L)
})

test_that("plot() image arguments are validated", {
  imgs <- pv_images(40, 6)
  fit <- pca(imgs, 2)
  pdf(NULL)
  on.exit(dev.off())
  expect_input_error(plot(fit, images = imgs), "image_dim")
  expect_input_error(plot(fit, images = imgs, image_dim = c(5, 6)), "image_dim")
  expect_input_error(plot(fit, images = imgs, image_dim = c(6, NA)), "image_dim")
  expect_input_error(plot(fit, images = imgs[1:10, ], image_dim = c(6, 6)), "images")
  expect_input_error(plot(fit, images = "a"), "images")
  expect_input_error(plot(fit, images = imgs, image_dim = c(6, 6), n_images = 0), "n_images")
  expect_input_error(plot(fit, images = imgs, image_dim = c(6, 6), image_size = 2), "image_size")
})

test_that("autoplot(sosi_fit, what = \"rounds\") shows the rounds", {
  skip_if_not_installed("ggplot2")
  roll <- swiss_roll(300, seed = 32)
  lab <- ifelse(roll$color > stats::median(roll$color), "a", "b")
  tr <- c(1:50, 151:200)
  te <- c(51:80, 201:230)
  fit <- supervised_le(roll$x[tr, ], lab[tr], ndim = 2)
  s <- sosi(fit, X_unlabeled = roll$x[te, ], n_iter = 4, labels_unlabeled = lab[te])
  pdf(NULL)
  on.exit(dev.off())
  p <- ggplot2::autoplot(s, what = "rounds")
  expect_s3_class(p, "ggplot")
  d <- p$data
  R <- length(s$rounds)
  err <- d$value[d$quantity == "misclassification rate"]
  expect_equal(err, s$history$error)
  frac <- d$value[d$quantity == "test points used as centres"]
  expect_equal(frac, s$history$frac)
  print(p)
  q <- ggplot2::autoplot(s, what = "rounds", newdata = roll$x[te, ], max_rounds = 3)
  expect_s3_class(q, "ggplot")
  expect_identical(levels(q$data$panel)[c(1, 3)],
                   c(sprintf("round 1 (%d centres)", as.integer(s$rounds[[1]]$L)),
                     sprintf("round %d (%d centres)", R, as.integer(s$rounds[[R]]$L))))
  last <- q$data[q$data$panel == levels(q$data$panel)[3] & q$data$set != "labelled", ]
  expect_identical(as.character(last$label), as.character(s$rounds[[R]]$labels))
  expect_equal(as.matrix(last[, c("x", "y")]), unname(predict(s, roll$x[te, ])), ignore_attr = TRUE)
  print(q)
  expect_s3_class(ggplot2::autoplot(s), "ggplot")
  expect_input_error(ggplot2::autoplot(s, what = "models"), "what")
  expect_input_error(ggplot2::autoplot(s, what = "rounds", newdata = roll$x[te[1:5], ]), "newdata")
})

test_that("autoplot(plml_fit, what = \"models\") draws the model tree", {
  skip_if_not_installed("ggplot2")
  roll <- swiss_roll(300, seed = 33)
  fit <- plml(roll$x, k = 10, seed = 1)
  pdf(NULL)
  on.exit(dev.off())
  p <- ggplot2::autoplot(fit, what = "models")
  expect_s3_class(p, "ggplot")
  expect_identical(nlevels(p$data$model), as.integer(fit$n_models))
  seg <- p$layers[[2]]$data
  expect_equal(nrow(seg), nrow(fit$model_tree))
  # segments join the mean embedding of the models' points
  cm <- rowsum(embedding(fit)[, 1:2], fit$labels) / as.vector(table(fit$labels))
  expect_equal(seg$x, unname(cm[fit$model_tree$from, 1]))
  print(p)
  expect_s3_class(ggplot2::autoplot(fit), "ggplot")
  expect_input_error(ggplot2::autoplot(fit, what = "rounds"), "what")
})
