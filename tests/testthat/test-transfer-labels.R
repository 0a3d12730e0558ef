# transfer_labels(): votes, numeric annotations, novelty, both spaces.

tl_data <- local({
  set.seed(5)
  centres <- rbind(c(0, 0, 0), c(5, 0, 0), c(0, 5, 0), c(0, 0, 5))
  type <- rep(c("w", "x", "y", "z"), each = 60)
  X <- centres[match(type, c("w", "x", "y", "z")), ] + matrix(rnorm(240 * 3), 240)
  train <- sort(c(sample(1:60, 45), sample(61:120, 45), sample(121:180, 45), sample(181:240, 45)))
  list(X = X, type = type, train = train, t = X[, 1] + 2 * X[, 2])
})

# the vote by hand: labels of the k nearest (in `space`), ties to the nearer neighbour
tl_reference <- function(idx, lab) {
  apply(idx, 1, function(i) {
    l <- lab[i]
    tab <- table(factor(l, levels = unique(l)))  # levels in order of first appearance
    names(tab)[which.max(tab)]                   # which.max: first maximum = nearer neighbour
  })
}

test_that("the vote equals the majority of the k nearest training points, ties to the nearer", {
  d <- tl_data
  fit <- laplacian_eigenmaps(d$X[d$train, ], ndim = 2, k = 10)
  new <- d$X[-d$train, ]
  for (k in c(4, 15)) {
    tl <- transfer_labels(fit, new, d$type[d$train], k = k, space = "embedding", novelty_threshold = Inf)
    y <- predict(fit, new)
    nb <- knn(embedding(fit), k, query = y)
    expect_identical(tl$label_predicted, tl_reference(nb$idx, d$type[d$train]), info = k)
    share <- sapply(seq_len(nrow(new)), function(i) mean(d$type[d$train][nb$idx[i, ]] == tl$label_predicted[i]))
    expect_equal(tl$label_share, share, info = k)
    expect_identical(tl$label, tl$label_predicted)
    expect_true(all(tl$label_runner_up_share <= tl$label_share))
  }
  # input space: the same vote among the input rows
  tl <- transfer_labels(fit, new, d$type[d$train], k = 7, space = "input", novelty_threshold = Inf)
  nb <- knn(d$X[d$train, ], 7, query = new)
  expect_identical(tl$label_predicted, tl_reference(nb$idx, d$type[d$train]))
  # well separated types: almost every held-out point gets its own type
  expect_gt(mean(tl$label == d$type[-d$train]), 0.95)
})

test_that("numeric annotations are weighted means with their spread", {
  d <- tl_data
  fit <- isomap(d$X[d$train, ], ndim = 2, k = 10)
  new <- d$X[-d$train, ]
  ann <- data.frame(type = d$type[d$train], t = d$t[d$train], one = 3)
  for (w in c("uniform", "distance")) {
    tl <- transfer_labels(fit, new, ann, k = 6, weights = w, space = "embedding", novelty_threshold = Inf)
    y <- predict(fit, new)
    nb <- knn(embedding(fit), 6, query = y)
    W <- if (w == "uniform") matrix(1, nrow(new), 6) else exp(-(nb$dist / nb$dist[, 6])^2 / 2)
    V <- matrix(d$t[d$train][nb$idx], nrow(new), 6)
    mu <- rowSums(W * V) / rowSums(W)
    expect_equal(tl$t, mu, info = w)
    expect_equal(tl$t_sd, sqrt(rowSums(W * (V - mu)^2) / rowSums(W)), info = w)
    expect_equal(tl$one, rep(3, nrow(new)), info = w)
    expect_equal(tl$one_sd, rep(0, nrow(new)), info = w)
    expect_true(all(c("type", "type_predicted", "type_share", "novelty", "novel") %in% names(tl)))
  }
})

test_that("points unlike the training data are left unassigned; min_share too", {
  d <- tl_data
  fit <- laplacian_eigenmaps(d$X[d$train, ], ndim = 2, k = 10)
  far <- rbind(c(40, 40, 40), c(-30, 10, 0))
  new <- rbind(d$X[-d$train, ][1:5, ], far)
  tl <- transfer_labels(fit, new, d$type[d$train])
  expect_identical(tl$novel, tl$novelty > 1)
  expect_true(all(tl$novel[6:7]))
  expect_identical(is.na(tl$label), tl$novel)
  expect_false(anyNA(tl$label_predicted))
  expect_equal(tl$novelty, as.numeric(novelty_scores(fit, new, k = 10)))
  tl2 <- transfer_labels(fit, new, d$type[d$train], novelty_threshold = Inf, min_share = 0.99)
  expect_identical(is.na(tl2$label), tl2$label_share < 0.99)
  # factor labels stay factors with their levels
  tf <- transfer_labels(fit, new, factor(d$type[d$train], levels = c("z", "y", "x", "w")))
  expect_identical(levels(tf$label), c("z", "y", "x", "w"))
})

test_that("transfer_labels() works for other fits and rules, a row alone as in a batch", {
  d <- tl_data
  new <- d$X[-d$train, ][1:12, ]
  fits <- list(isomap = isomap(d$X[d$train, ], ndim = 2, k = 10),
               ltsa = ltsa(d$X[d$train, ], ndim = 2, k = 12),
               diffusion = diffusion_map(d$X[d$train, ], ndim = 2),
               dist = isomap(dist(d$X[d$train, ]), ndim = 2, k = 10))
  for (nm in names(fits)) {
    f <- fits[[nm]]
    q <- if (nm == "dist") as.matrix(dist(d$X))[-d$train, d$train][1:12, ] else new
    for (sp in c("embedding", "input")) {
      tl <- transfer_labels(f, q, d$type[d$train], space = sp)
      one <- do.call(rbind, lapply(1:12, function(i) transfer_labels(f, q[i, , drop = FALSE], d$type[d$train], space = sp)))
      expect_equal(one, tl, ignore_attr = TRUE, info = paste(nm, sp))
    }
  }
  tl <- transfer_labels(fits$isomap, new, d$type[d$train], method = "goose", X = d$X[d$train, ],
                        space = "embedding")
  expect_identical(dim(attr(tl, "embedding")), c(12L, 2L))
  expect_equal(unname(attr(tl, "embedding")),
               unname(predict(fits$isomap, new, method = "goose", X = d$X[d$train, ])))
})

test_that("transfer_labels() checks its arguments", {
  d <- tl_data
  fit <- isomap(d$X[d$train, ], ndim = 2, k = 10)
  new <- d$X[-d$train, ]
  err <- function(expr, arg) {
    e <- tryCatch(expr, manifoldOOS_input_error = function(e) e)
    expect_s3_class(e, "manifoldOOS_input_error")
    expect_identical(e$arg, arg)
  }
  err(transfer_labels(fit, new, d$type), "labels")
  err(transfer_labels(fit, new, list(1:3)), "labels")
  err(transfer_labels(fit, new, rep(NA, 180)), "labels")
  err(transfer_labels(fit, new, d$type[d$train], k = 0), "k")
  err(transfer_labels(fit, new, d$type[d$train], space = "latent"), "space")
  err(transfer_labels(fit, new, d$type[d$train], weights = "rank"), "weights")
  err(transfer_labels(fit, new, d$type[d$train], min_share = 2), "min_share")
  err(transfer_labels(fit, new, d$type[d$train], novelty_threshold = -1), "novelty_threshold")
  err(transfer_labels(list(), new, d$type[d$train]), "fit")
  # a fit that does not keep its training data needs X for the novelty scores and the input space
  p <- pca(d$X[d$train, ], 2)
  err(transfer_labels(p, new, d$type[d$train]), "X")
  err(transfer_labels(p, new, d$type[d$train], novelty_threshold = Inf), "X")
  tl <- transfer_labels(p, new, d$type[d$train], space = "embedding", novelty_threshold = Inf)
  expect_true(all(is.na(tl$novelty)) && !any(tl$novel))
  tx <- transfer_labels(p, new, d$type[d$train], X = d$X[d$train, ])
  expect_equal(tx$novelty, as.numeric(novelty_scores(p, new, X = d$X[d$train, ])))
})
