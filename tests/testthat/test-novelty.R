# Novelty scores: predict(fit, newdata, novelty = TRUE) and novelty_scores().

nov_roll <- swiss_roll(3200, seed = 41)
nov_train <- nov_roll$x[1:3000, ]
nov_held <- nov_roll$x[3001:3200, ]

test_that("scores are the k-th neighbour distance over the leave-one-out quantile", {
  set.seed(42)
  X <- matrix(rnorm(100 * 3), 100)
  new <- matrix(rnorm(10 * 3), 10) * 2
  fit <- lle(X, ndim = 2, k = 8)
  D <- as.matrix(dist(rbind(X, new)))
  d_loo <- apply(D[1:100, 1:100] + diag(Inf, 100), 1, function(d) sort(d)[4])
  thr <- stats::quantile(d_loo, 0.9, names = FALSE)
  d_new <- apply(D[101:110, 1:100], 1, function(d) sort(d)[4])
  s <- novelty_scores(fit, new, k = 4, quantile = 0.9)
  expect_equal(as.vector(s), unname(d_new) / thr, tolerance = 1e-12)
  expect_equal(attr(s, "threshold"), thr, tolerance = 1e-12)
  expect_identical(attr(s, "k"), 4L)
  # exactly a fraction 1 - quantile of the training points score above 1 (up to interpolation)
  s_train <- d_loo / thr
  expect_lte(mean(s_train > 1), 0.1)
  y <- predict(fit, new, novelty = list(k = 4, quantile = 0.9))
  expect_identical(attr(y, "novelty"), s)
})

test_that("held-out points on the manifold mostly score below 1, displaced points above", {
  fit <- pca(nov_train, ndim = 2)       # the scores do not depend on the embedding
  s_on <- attr(predict(fit, nov_held, novelty = list(k = 5), X = nov_train), "novelty")
  expect_lt(mean(s_on > 1), 0.05)
  # displaced radially (normal to the roll) by half the gap between layers
  r <- sqrt(nov_held[, 1]^2 + nov_held[, 3]^2)
  off <- nov_held + 3.1 * cbind(nov_held[, 1] / r, 0, nov_held[, 3] / r)
  s_off <- novelty_scores(fit, off, X = nov_train, k = 5)
  expect_gt(mean(s_off > 1), 0.9)
  # the scores separate the two groups: AUC well above chance
  auc <- mean(outer(as.vector(s_off), as.vector(s_on), ">"))
  expect_gt(auc, 0.99)
  far <- nov_held[1:20, ] + 40
  expect_true(all(novelty_scores(fit, far, X = nov_train) > 1))
})

test_that("novelty separates held-out from far points for fits of every kind (registry fits)", {
  # batch = row by row, chunks and the RDS round trip of the scores are
  # checked for every registry entry in test-contract.R; here on a larger sample
  X <- nov_train[1:300, ]
  new <- rbind(nov_held[1:6, ], nov_held[7:8, ] + 40)
  nd <- list(train = X)
  fits <- registry_fits(nd, names = c("pca", "kpca", "mds", "isomap", "lle", "ltsa",
                                      "laplacian_eigenmaps", "lpp", "nppe",
                                      "spectral_regression_kernel"))
  ref <- NULL
  for (nm in names(fits)) {
    f <- fits[[nm]]
    s <- attr(predict(f, new, novelty = TRUE, X = X), "novelty")
    # the scores depend on the training data only, not on the method
    if (is.null(ref)) ref <- s
    expect_identical(s, ref, info = nm)
    expect_true(all(s[7:8] > 1), info = nm)
    expect_lt(max(s[1:6]), 0.5 * min(s[7:8]))
  }
  # X given to a fit that stores its data must be the training data
  expect_input_error(predict(fits$lle, new, novelty = TRUE, X = X[1:50, ]), "`X`")
})

test_that("bad novelty arguments give classed errors", {
  fit <- lle(nov_train[1:200, ], 2, k = 10)
  new <- nov_held[1:3, ]
  expect_input_error(predict(fit, new, novelty = "yes"), "`novelty`")
  expect_input_error(predict(fit, new, novelty = list(kk = 3)), "`novelty`")
  expect_input_error(predict(fit, new, novelty = NA), "`novelty`")
  expect_input_error(novelty_scores(fit, new, k = 0), "`k`")
  expect_input_error(novelty_scores(fit, new, k = 200), "`k`")
  expect_input_error(novelty_scores(fit, new, quantile = 0), "`quantile`")
  expect_input_error(novelty_scores(fit, new, quantile = 1.5), "`quantile`")
  expect_input_error(novelty_scores(fit, new[, 1:2]), "`newdata`")
  expect_input_error(novelty_scores(list(), new), "`fit`")
  # all training points duplicated k times: no positive k-th distance
  Xd <- nov_train[rep(1:40, each = 3), ]
  fd <- pca(Xd, 2)
  expect_input_error(novelty_scores(fd, new, X = Xd, k = 2), "`X`")
  expect_true(all(is.finite(novelty_scores(fd, new, X = Xd, k = 3))))
})

test_that("plot(novelty = TRUE) marks exactly the flagged points", {
  fit <- isomap(nov_train[1:400, ], ndim = 2, k = 10)
  new <- rbind(nov_held[1:5, ], nov_held[6:8, ] + 50)
  y <- predict(fit, new, novelty = TRUE)
  flagged <- attr(y, "novelty") > 1
  grDevices::pdf(NULL)
  grDevices::dev.control("enable")
  plot(fit, newdata = new, novelty = TRUE)
  rp <- grDevices::recordPlot()
  grDevices::dev.off()
  calls <- Filter(function(e) identical(e[[2]][[1]]$name, "C_plotXY"), rp[[1]])
  crosses <- Filter(function(e) identical(e[[2]][[4]], 4) && identical(e[[2]][[6]], "red"), calls)
  expect_length(crosses, 1L)
  xy <- crosses[[1]][[2]][[2]]
  expect_equal(cbind(xy$x, xy$y), unname(y[flagged, ]), tolerance = 1e-12)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_input_error(plot(fit, novelty = TRUE), "`novelty`")
})
