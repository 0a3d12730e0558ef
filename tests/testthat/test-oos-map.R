# Generic out-of-sample maps (spec-003 section 5, spec-004 sections 2-4 and 9,
# spec-baselines C.3-C.7, C.10).

# A 2-D rectangle embedded isometrically in R^6 (plus an offset).
flat_data <- function(n = 300, seed = 1) {
  set.seed(seed)
  Z <- cbind(runif(n, 0, 4), runif(n, 0, 2))
  Q <- qr.Q(qr(matrix(rnorm(36), 6)))[, 1:2]
  X <- Z %*% t(Q) + matrix(1:6, n, 6, byrow = TRUE)
  list(Z = Z, X = X)
}

test_that("GOoSE recovers held-out points exactly for a similarity transform of flat data", {
  fd <- flat_data()
  th <- 0.7
  R <- matrix(c(cos(th), sin(th), -sin(th), cos(th)), 2) %*% diag(c(1, -1))  # with a reflection
  Y <- 2.5 * fd$Z %*% R + matrix(c(3, -1), nrow(fd$Z), 2, byrow = TRUE)
  tr <- 1:250
  for (sc in c("axis", "isotropic")) {
    gm <- oos_map(fd$X[tr, ], Y[tr, ], method = "goose", k = 8, scale = sc)
    expect_equal(unname(predict(gm, fd$X[-tr, ])), Y[-tr, ], tolerance = 1e-8)
  }
  # without a scale the map is off by the factor 2.5 around each local mean
  gm0 <- oos_map(fd$X[tr, ], Y[tr, ], method = "goose", k = 8, scale = "none")
  expect_gt(max(abs(predict(gm0, fd$X[-tr, ]) - Y[-tr, ])), 1e-3)
})

test_that("GOoSE with k = n reproduces the PCA projection exactly", {
  set.seed(2)
  X <- matrix(rnorm(80 * 5), 80) %*% diag(c(5, 3, 2, 1, 0.5))
  fit <- pca(X[1:60, ], ndim = 2)
  gm <- oos_map(X[1:60, ], embedding(fit), method = "goose", k = 60)
  expect_equal(unname(predict(gm, X[61:80, ])), unname(predict(fit, X[61:80, ])), tolerance = 1e-8)
})

test_that("the literal GOoSE variant runs and differs from the centred one", {
  fd <- flat_data(200, seed = 3)
  Y <- fd$Z + 5
  a <- oos_map(fd$X[1:150, ], Y[1:150, ], method = "goose", variant = "literal_thesis")
  b <- oos_map(fd$X[1:150, ], Y[1:150, ], method = "goose")
  ya <- predict(a, fd$X[151:200, ])
  expect_true(all(is.finite(ya)))
  expect_gt(max(abs(ya - predict(b, fd$X[151:200, ]))), 1e-6)
})

test_that("local rules return the training embedding exactly for training points", {
  roll <- swiss_roll(300, seed = 4)
  Y <- roll$truth
  idx <- c(3, 77, 250)
  for (m in c("goose", "lvm", "reconstruction", "sparse")) {
    mp <- oos_map(roll$x, Y, method = m)
    expect_identical(unname(predict(mp, roll$x[idx, ])[, 1:2]), unname(Y[idx, ]), info = m)
  }
})

test_that("LVM limits: k = 1 is the nearest neighbour, wide kernel over all points is the mean", {
  roll <- swiss_roll(200, seed = 5)
  set.seed(1)
  Y <- matrix(rnorm(400), 200)
  new <- roll$x[1:20, ] + 0.3
  m1 <- oos_map(roll$x, Y, method = "lvm", k = 1)
  nn <- knn(roll$x, 1, query = new)$idx[, 1]
  expect_equal(unname(predict(m1, new)), Y[nn, ], tolerance = 0)
  mN <- oos_map(roll$x, Y, method = "lvm", k = 200, beta = 1e12)
  expect_equal(unname(predict(mN, new)), matrix(colMeans(Y), 20, 2, byrow = TRUE), tolerance = 1e-8)
  far <- predict(oos_map(roll$x, Y, method = "lvm", k = 5, beta = 1), matrix(1e6, 1, 3))
  expect_true(all(is.finite(far)))
})

test_that("eq. 9 outputs (sparse, LVM) lie in the convex hull of the training embedding", {
  set.seed(6)
  X <- matrix(rnorm(120 * 15), 120)
  Y <- matrix(rnorm(120 * 3), 120)
  new <- matrix(rnorm(30 * 15), 30)
  for (m in c("sparse", "lvm")) {
    yn <- predict(oos_map(X, Y, method = m, k = 7), new)
    for (r in 1:5) {
      f <- rnorm(3)
      v <- drop(yn %*% f)
      w <- drop(Y %*% f)
      expect_true(all(v >= min(w) - 1e-12 & v <= max(w) + 1e-12), info = m)
    }
  }
})

test_that("the sparse map weights training embeddings by |a_i| (eq. 9) and is scale-free", {
  set.seed(7)
  X <- matrix(rnorm(50 * 12), 50)
  Y <- matrix(rnorm(50 * 4), 50)
  new <- matrix(rnorm(5 * 12), 5)
  mp <- oos_map(X, Y, method = "sparse")
  yn <- predict(mp, new)
  cd <- l1_code(X, new, normalize = TRUE)
  w <- abs(cd$a)
  expect_equal(unname(yn[, 1:4]), unname((w %*% Y) / rowSums(w)), tolerance = 1e-10)
  expect_true(all(attr(yn, "certified")))
  expect_equal(unname(predict(oos_map(3 * X, Y, method = "sparse"), 0.2 * new)[, 1:4]),
               unname(yn[, 1:4]), tolerance = 1e-8)
  # coordinate-wise: the first L columns do not depend on the other columns
  y2 <- predict(oos_map(X, Y[, 1:2], method = "sparse"), new)
  expect_equal(unname(y2[, 1:2]), unname(yn[, 1:2]), tolerance = 1e-12)
  # the ADMM solver gives the same map (unique codes on generic data)
  ya <- predict(oos_map(X, Y, method = "sparse", solver = "admm"), new)
  expect_equal(unname(ya[, 1:4]), unname(yn[, 1:4]), tolerance = 1e-6)
})

test_that("the sparse map falls back to the nearest neighbour when all weights vanish", {
  set.seed(8)
  X <- matrix(rnorm(40 * 10), 40)
  X <- X / sqrt(rowSums(X^2))
  Y <- matrix(rnorm(80), 40)
  x <- replace(numeric(10), 3, 1)  # a coordinate vector: coded by the error part
  mp <- oos_map(X, Y, method = "sparse")
  yn <- predict(mp, rbind(x, X[5, ] + 0.01))
  expect_identical(attr(yn, "fallback"), c(TRUE, FALSE))
  nn <- knn(X, 1, query = matrix(x, 1))$idx[1, 1]
  expect_equal(unname(yn[1, ]), Y[nn, ])
})

test_that("linearization: interpolation when N <= D, least squares otherwise", {
  set.seed(9)
  X <- matrix(rnorm(8 * 12), 8)
  Y <- matrix(rnorm(16), 8)
  mp <- oos_map(X, Y, method = "linear", intercept = FALSE)
  expect_equal(unname(predict(mp, X)), Y, tolerance = 1e-8)
  X2 <- matrix(rnorm(60 * 4), 60)
  Y2 <- matrix(rnorm(120), 60)
  new <- matrix(rnorm(12), 3)
  A <- stats::lm.fit(X2, Y2)$coefficients
  expect_equal(unname(predict(oos_map(X2, Y2, method = "linear", intercept = FALSE), new)),
               unname(new %*% A), tolerance = 1e-10)
  fit <- stats::lm(Y2 ~ X2)
  expect_equal(unname(predict(oos_map(X2, Y2, method = "linear"), new)),
               unname(cbind(1, new) %*% stats::coef(fit)), tolerance = 1e-10)
  # ridge = the closed form on centred data
  lam <- 2
  Xc <- sweep(X2, 2, colMeans(X2)); Yc <- sweep(Y2, 2, colMeans(Y2))
  Ar <- solve(crossprod(Xc) + lam * diag(4), crossprod(Xc, Yc))
  expect_equal(unname(predict(oos_map(X2, Y2, method = "linear", ridge = lam), new)),
               unname(sweep(new, 2, colMeans(X2)) %*% Ar + matrix(colMeans(Y2), 3, 2, byrow = TRUE)),
               tolerance = 1e-10)
})

test_that("linearization with a leave-one-out ridge: per-coordinate ridge regression that no longer interpolates", {
  set.seed(31)
  press_direct <- function(X, y, r) {  # leave-one-out error by refitting without each row
    sum(vapply(seq_len(nrow(X)), function(i) {
      A <- solve(crossprod(X[-i, ]) + r * diag(ncol(X)), crossprod(X[-i, ], y[-i]))
      (y[i] - sum(X[i, ] * A))^2
    }, 0))
  }
  D <- 30
  for (N in c(30, 45)) {  # N = D (the unregularised map interpolates) and N > D
    X <- matrix(rnorm(N * D), N)
    Y <- cbind(X[, 1] - X[, 2], sin(2 * X[, 3])) + matrix(rnorm(2 * N, sd = 0.3), N)
    m0 <- oos_map(X, Y, method = "linear", intercept = FALSE)
    m <- oos_map(X, Y, method = "linear", intercept = FALSE, ridge = "loo")
    if (N == D) expect_equal(unname(predict(m0, X)), unname(Y), tolerance = 1e-6)
    expect_length(m$params$ridge, 2L)
    expect_true(all(m$params$ridge > svd(X)$d[1]^2 * 1e-10))
    P <- unname(predict(m, X))
    expect_gt(min(colSums((P - Y)^2)), 1e-2 * N)
    for (j in 1:2) {
      r <- m$params$ridge[j]
      # each column is the closed-form ridge solution with its own ridge
      A <- solve(crossprod(X) + r * diag(D), crossprod(X, Y[, j]))
      expect_equal(P[, j], c(X %*% A), tolerance = 1e-8)
      # the chosen ridge minimises the refitted leave-one-out error against its grid neighbours
      expect_lte(press_direct(X, Y[, j], r), press_direct(X, Y[, j], r * 10^0.25) + 1e-10)
      expect_lte(press_direct(X, Y[, j], r), press_direct(X, Y[, j], r / 10^0.25) + 1e-10)
    }
  }
  # with an intercept the offset is unpenalised: a constant coordinate is reproduced
  m1 <- oos_map(X, cbind(rep(2, N), Y[, 1]), method = "linear", ridge = "loo")
  expect_equal(unname(predict(m1, X)[, 1]), rep(2, N))
  expect_input_error(oos_map(X, Y, method = "linear", ridge = "gcv"), "ridge")
})

test_that("the RBF network interpolates the training embedding and uses the mean squared distance", {
  set.seed(10)
  X <- matrix(rnorm(40 * 6), 40)
  Y <- matrix(rnorm(80), 40)
  mp <- oos_map(X, Y, method = "rbf")
  expect_equal(mp$params$shift, 0)
  expect_equal(mp$params$aperture, mean(stats::dist(X)^2), tolerance = 1e-12)
  expect_equal(unname(predict(mp, X)), Y, tolerance = 1e-8)
  new <- matrix(rnorm(12), 2)
  phi <- exp(-as.matrix(stats::dist(rbind(new, X)))[1:2, -(1:2)]^2 / mp$params$aperture)
  Phi <- exp(-as.matrix(stats::dist(X))^2 / mp$params$aperture)
  expect_equal(unname(predict(mp, new)), unname(phi %*% solve(Phi, Y)), tolerance = 1e-6)
})

test_that("KRR equals Yang's LGRM formula (thesis Eq. 5.3) and the mean-offset closed form", {
  set.seed(11)
  X <- matrix(rnorm(50 * 3), 50)
  Y <- cbind(sin(X[, 1]), X[, 2]^2)
  new <- matrix(rnorm(9), 3)
  n <- 50
  K <- exp(-as.matrix(stats::dist(X))^2 / (2 * 1.5^2))
  kx <- exp(-as.matrix(stats::dist(rbind(new, X)))[1:3, -(1:3)]^2 / (2 * 1.5^2))
  # Eq. 5.3 as printed in the spec, one new point per column of kx^T:
  # y = Y^T H M H k + Y^T 1/n - Y^T H M H K 1/n,  M = (HKH + gamma I)^{-1}
  H <- diag(n) - 1 / n
  M <- solve(H %*% K %*% H + 0.1 * diag(n))
  eq53 <- t(t(Y) %*% H %*% M %*% H %*% t(kx) + drop(t(Y) %*% rep(1 / n, n)) -
              drop(t(Y) %*% H %*% M %*% H %*% K %*% rep(1 / n, n)))
  mp <- oos_map(X, Y, method = "krr", sigma = 1.5, lambda = 0.1)
  expect_identical(mp$params$bias, "feature")
  expect_equal(unname(predict(mp, new)), unname(eq53), tolerance = 1e-8)
  # bias = "mean": ybar + k^T (K + lambda I)^{-1} (Y - ybar)
  mm <- oos_map(X, Y, method = "krr", sigma = 1.5, lambda = 0.1, bias = "mean")
  Cc <- solve(K + 0.1 * diag(50), sweep(Y, 2, colMeans(Y)))
  expect_equal(unname(predict(mm, new)),
               unname(kx %*% Cc + matrix(colMeans(Y), 3, 2, byrow = TRUE)), tolerance = 1e-8)
  # limiting case: with the linear kernel, the feature-space intercept form is
  # ridge regression with an unpenalised intercept (= the linear map with ridge)
  kl <- oos_map(X, Y, method = "krr", kernel = "linear", lambda = 0.7)
  rl <- oos_map(X, Y, method = "linear", ridge = 0.7)
  expect_equal(predict(kl, new), predict(rl, new), tolerance = 1e-8)
  g <- oos_map(X, Y, method = "krr", lambda = "gcv")
  expect_true(g$params$lambda %in% 10^seq(-8, 2, by = 0.25))
  expect_true(oos_map(X, Y, method = "krr", lambda = "gcv", bias = "mean")$params$lambda %in%
                10^seq(-8, 2, by = 0.25))
  expect_input_error(oos_map(X, Y, method = "krr", bias = "none"), "`bias`")
})

test_that("reconstruction weights reproduce affine maps of flat data", {
  fd <- flat_data(200, seed = 12)
  Y <- fd$Z %*% matrix(c(1, 2, -1, 0.5), 2) + 4
  mp <- oos_map(fd$X[1:150, ], Y[1:150, ], method = "reconstruction", k = 6, reg = 1e-9)
  expect_equal(unname(predict(mp, fd$X[151:200, ])), Y[151:200, ], tolerance = 1e-6)
})

# Batch == row by row, the saveRDS() round trip and chunks of every rule's
# map: test-contract.R (the oos_map entries of the fit registry).

test_that("oos_map rejects bad input with classed errors naming the argument", {
  roll <- swiss_roll(100, seed = 15)
  X <- roll$x
  Y <- roll$truth
  expect_input_error(oos_map(X, Y[-1, ]), "`Y`")
  Yna <- Y; Yna[5, 2] <- NA
  expect_input_error(oos_map(X, Yna), "`Y`")
  expect_input_error(oos_map(X, Y, k = 101), "`k`")
  expect_input_error(oos_map(X, Y, method = "goose", k = 2), "`k`")
  expect_input_error(oos_map(X, Y, method = "tsne"), "`method`")
  expect_input_error(oos_map(X, Y, method = "goose", scale = "log"), "`scale`")
  expect_input_error(oos_map(X, Y, method = "lvm", beta = -1), "`beta`")
  expect_input_error(oos_map(X, Y, method = "krr", lambda = "cv"), "`lambda`")
  mp <- oos_map(X, Y)
  expect_input_error(predict(mp, X[, 1:2]), "`newdata`")
  expect_output(print(mp), "goose")
  expect_output(print(summary(mp)), "stored")
})

test_that("predict() routes any manifold_fit through the generic maps", {
  roll <- swiss_roll(300, seed = 16)
  tr <- 1:250
  fit <- pca(roll$x[tr, ], ndim = 2)
  new <- roll$x[-tr, ]
  y <- predict(fit, new, method = "goose", X = roll$x[tr, ], k = 12)
  ref <- predict(oos_map(roll$x[tr, ], embedding(fit), method = "goose", k = 12), new)
  expect_equal(unname(y), unname(ref))
  expect_identical(colnames(y), colnames(embedding(fit)))
  expect_input_error(predict(fit, new, method = "goose"), "`X`")
  expect_input_error(predict(fit, new, method = "goose", X = roll$x[1:100, ]), "`X`")
  expect_input_error(predict(fit, new, method = "nope"), "`method`")
  # the native rule is unchanged and nothing is cached in the fit
  expect_equal(predict(fit, new), predict(fit, new, method = "exact"))
  expect_null(fit$X)
  # a fit that stores its training data needs no X
  fit2 <- fit
  fit2$X <- roll$x[tr, ]
  expect_equal(predict(fit2, new, method = "lvm"), predict(fit, new, method = "lvm", X = roll$x[tr, ]))
})

test_that("an embedding from UMAP or t-SNE can be extended", {
  skip_if_not(requireNamespace("uwot", quietly = TRUE) || requireNamespace("Rtsne", quietly = TRUE),
              "neither uwot nor Rtsne is installed")
  roll <- swiss_roll(400, seed = 17)
  tr <- 1:350
  Y <- if (requireNamespace("uwot", quietly = TRUE)) {
    set.seed(1)  # uwot before 0.1.15 has no `seed` argument
    uwot::umap(roll$x[tr, ], n_neighbors = 15, n_threads = 1)
  } else {
    set.seed(1)
    Rtsne::Rtsne(roll$x[tr, ], perplexity = 30)$Y
  }
  y <- predict(oos_map(roll$x[tr, ], Y, method = "goose"), roll$x[-tr, ])
  expect_equal(dim(y), c(50L, 2L))
  # held-out points land near their nearest training neighbour's embedding
  nn <- knn(roll$x[tr, ], 1, query = roll$x[-tr, ])$idx[, 1]
  expect_lt(stats::median(sqrt(rowSums((y - Y[nn, ])^2))), stats::median(stats::dist(Y)) / 5)
})

test_that("degenerate neighbourhoods and zero queries give finite results, no division by zero", {
  set.seed(18)
  X <- rbind(matrix(rep(c(1, 2, 3), each = 12), 12), matrix(rnorm(60 * 3), 60))  # 12 copies of one point
  Y <- matrix(rnorm(72 * 2), 72)
  Y[1:12, ] <- matrix(c(0.5, -0.5), 12, 2, byrow = TRUE)  # copies share their embedding
  near <- rbind(c(1, 2, 3), c(1, 2, 3) + 1e-9, c(1.1, 2, 3))
  for (m in manifoldOOS:::oos_map_methods) {
    mp <- suppressWarnings(oos_map(X, Y, method = m, k = if (m %in% c("goose", "reconstruction")) 6 else NULL))
    y <- predict(mp, near)
    expect_true(all(is.finite(y)), info = m)
    if (m %in% c("goose", "lvm", "reconstruction", "sparse")) {
      # an exact copy of a training point gets its embedding
      expect_equal(unname(y[1, 1:2]), c(0.5, -0.5), info = m)
    }
  }
  # the zero query: every sparse weight vanishes -> nearest-neighbour fallback
  sp <- predict(oos_map(X, Y, method = "sparse"), matrix(0, 1, 3))
  expect_true(all(is.finite(sp)))
  expect_true(attr(sp, "fallback"))
})

test_that("GOoSE and the KRR (Yang) map are equivariant to an isotropic scaling of the embedding", {
  # the GOoSE-versus-Yang comparison of thesis Table 5.1 therefore does not
  # depend on the embedding's overall scale (LLE/LTSA coordinates are tiny)
  roll <- swiss_roll(400, seed = 3)
  tr <- 1:300
  Y <- embedding(ltsa(roll$x[tr, ], ndim = 2, k = 10))
  new <- roll$x[-tr, ]
  for (cc in c(1e-3, 50)) {
    g1 <- predict(oos_map(roll$x[tr, ], Y, method = "goose", k = 10), new)
    g2 <- predict(oos_map(roll$x[tr, ], cc * Y, method = "goose", k = 10), new)
    expect_equal(unname(g2), cc * unname(g1), tolerance = 1e-8)
    y1 <- predict(oos_map(roll$x[tr, ], Y, method = "krr", kernel = "rbf", sigma = 10, lambda = 1e-4), new)
    y2 <- predict(oos_map(roll$x[tr, ], cc * Y, method = "krr", kernel = "rbf", sigma = 10, lambda = 1e-4), new)
    expect_equal(unname(y2), cc * unname(y1), tolerance = 1e-8)
  }
  # a per-axis scaling is not a symmetry of GOoSE: its errors change relative to Yang's
  A <- diag(c(1, 20))
  g3 <- predict(oos_map(roll$x[tr, ], Y %*% A, method = "goose", k = 10), new)
  g1 <- predict(oos_map(roll$x[tr, ], Y, method = "goose", k = 10), new)
  expect_gt(max(abs(unname(g3) - unname(g1) %*% A)), 1e-6)
})

test_that("the registry of rules has one complete entry per rule and drives oos_map() and predict()", {
  rules <- manifoldOOS:::oos_rules
  expect_identical(manifoldOOS:::oos_map_methods, names(rules))
  for (m in names(rules)) {
    r <- rules[[m]]
    expect_true(is.character(r$doc) && length(r$doc) > 0L, info = m)
    expect_identical(names(formals(r$build)), c("X", "Y", "a"), info = m)
    expect_identical(names(formals(r$predict)), c("d", "p", "x", "km", "n_threads"), info = m)
    expect_true(isTRUE(r$lazy) || isFALSE(r$lazy), info = m)
    expect_match(manifoldOOS:::oos_rules_doc(), sprintf('`"%s"` -- ', m), fixed = TRUE)
  }
  # per-row attributes: kept by predict(<oos_map>), dropped when a fit routes through the rule
  roll <- swiss_roll(120, seed = 19)
  fit <- pca(roll$x[1:100, ], 2)
  for (m in names(rules)) {
    mp <- oos_map(roll$x[1:100, ], embedding(fit), method = m)
    expect_identical(mp$method, m)
    y <- predict(mp, roll$x[101:120, ])
    for (a in rules[[m]]$row_attributes) expect_length(attr(y, a), 20L)
    y2 <- predict(fit, roll$x[101:120, ], method = m, X = roll$x[1:100, ])
    for (a in rules[[m]]$row_attributes) expect_null(attr(y2, a))
    expect_equal(unname(y2), unname(y[, , drop = FALSE]), ignore_attr = TRUE)
  }
})
