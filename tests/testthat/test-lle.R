# LLE (spec B.6) and its out-of-sample maps (spec C.1, C.3).

# flat_plane(), affine_residual() and rds_roundtrip(): helper-flat.R

test_that("LLE recovers a rotated plane up to an affine map with a tiny regulariser", {
  P <- flat_plane()
  fit <- lle(P$X, ndim = 2, k = 10, reg = 1e-6)
  Y <- embedding(fit)
  expect_lt(affine_residual(Y, P$Z), 1e-3)
  # and the embedding columns are orthonormal and orthogonal to the constant
  expect_equal(crossprod(Y), diag(2), tolerance = 1e-8, ignore_attr = TRUE)
  expect_lt(max(abs(colSums(Y))), 1e-8)
  # the default regulariser biases the map (spec B.6: residual ~0.1)
  fit3 <- lle(P$X, ndim = 2, k = 10)
  expect_gt(affine_residual(embedding(fit3), P$Z), 1e-2)
})

test_that("LLE embedding solves the eigenproblem of M = (I - W)'(I - W)", {
  set.seed(2)
  roll <- swiss_roll(300, seed = 2)
  X <- roll$x
  fit <- lle(X, ndim = 2, k = 8)
  nb <- knn(X, 8)
  W <- manifoldOOS:::.mo_reconstruction_weights(X, X, nb$idx, 1e-3, matrix(0, 0, 0), 1L)
  expect_equal(rowSums(W), rep(1, 300), tolerance = 1e-12)
  Wm <- matrix(0, 300, 300)
  Wm[cbind(rep(1:300, 8), as.vector(nb$idx))] <- as.vector(W)
  M <- crossprod(diag(300) - Wm)
  ev <- eigen(M, symmetric = TRUE)
  ref <- ev$vectors[, 299:298]
  expect_lt(max_principal_angle(embedding(fit), ref), 1e-6)
  expect_equal(fit$eigenvalues, rev(ev$values)[1:3], tolerance = 1e-8)
  Y <- embedding(fit)
  expect_lt(max(abs(M %*% Y - Y %*% diag(fit$eigenvalues[-1]))), 1e-9)
  # sign convention: largest |entry| positive
  expect_true(all(apply(Y, 2, function(v) v[which.max(abs(v))] > 0)))
  # unit_cov scaling
  fc <- lle(X, ndim = 2, k = 8, scaling = "unit_cov")
  expect_equal(crossprod(embedding(fc)) / 300, diag(2), tolerance = 1e-8, ignore_attr = TRUE)
})

test_that("LLE is invariant to rotation, translation and scaling of X", {
  roll <- swiss_roll(250, seed = 4)
  X <- roll$x
  set.seed(4)
  R <- qr.Q(qr(matrix(rnorm(9), 3)))
  X2 <- 3.7 * X %*% R + matrix(c(5, -1, 2), nrow(X), 3, byrow = TRUE)
  f1 <- lle(X, 2, k = 9)
  f2 <- lle(X2, 2, k = 9)
  expect_lt(max_principal_angle(embedding(f1), embedding(f2)), 1e-6)
  expect_equal(f1$eigenvalues, f2$eigenvalues, tolerance = 1e-6)
})

test_that("dense and sparse eigen-solver paths agree (n = 500)", {
  roll <- swiss_roll(500, seed = 5)
  expect_eigen_paths_agree(function(s) lle(roll$x, 2, k = 10, eigen_solver = s), dense_method = "dense")
})

test_that("LLE out-of-sample maps: snap, batch = rows, Nystrom factor, saveRDS", {
  roll <- swiss_roll(500, seed = 6)
  fit <- lle(roll$x[1:400, ], 2, k = 10)
  new <- roll$x[401:500, ]
  yb <- predict(fit, new)
  yr <- t(vapply(1:100, function(i) predict(fit, new[i, , drop = FALSE]), numeric(2)))
  expect_equal(unname(yb), unname(yr), tolerance = 1e-12, ignore_attr = TRUE)
  # reconstruction rule = weights applied to the training embedding
  nb <- knn(roll$x[1:400, ], 10, query = new)
  W <- manifoldOOS:::.mo_reconstruction_weights(roll$x[1:400, ], new, nb$idx, 1e-3, matrix(0, 0, 0), 1L)
  ref <- t(vapply(1:100, function(i) colSums(W[i, ] * embedding(fit)[nb$idx[i, ], ]), numeric(2)))
  expect_equal(unname(yb), ref, tolerance = 1e-12, ignore_attr = TRUE)
  # Nystrom = reconstruction / (1 - lambda_k)
  yn <- predict(fit, new, method = "nystrom")
  expect_equal(unname(yn), sweep(unname(yb), 2, 1 - fit$eigenvalues[-1], "/"),
               tolerance = 1e-12, ignore_attr = TRUE)
  # snap: training rows give the training embedding exactly; without snap only approximately
  tr <- predict(fit, roll$x[1:400, ])
  expect_identical(unname(tr[, 1:2]), unname(embedding(fit)), ignore_attr = TRUE)
  expect_true(all(attr(tr, "snapped")))
  trn <- predict(fit, roll$x[1:400, ], snap = FALSE)
  expect_gt(max(abs(trn - embedding(fit))), 1e-8)
  expect_lt(max(abs(trn - embedding(fit))), 0.5 * max(abs(embedding(fit))))
  fit2 <- rds_roundtrip(fit)
  expect_identical(predict(fit2, new), yb)
  expect_identical(predict(fit2, new, method = "nystrom"), yn)
})

test_that("a new point on the plane is mapped to the affine image (reconstruction rule)", {
  P <- flat_plane(400, seed = 8)
  fit <- ltsa(P$X, 2, k = 10, reg = 1e-10)  # exact affine image of the plane coordinates
  set.seed(8)
  zq <- matrix(runif(20, 0.2, 0.8), 10)
  # the affine map plane coordinates -> ambient space, and plane -> embedding
  Aff <- qr.solve(cbind(1, P$Z), P$X)
  Xq <- cbind(1, zq) %*% Aff
  B <- qr.solve(cbind(1, P$Z), embedding(fit))
  expect_equal(unname(predict(fit, Xq)), cbind(1, zq) %*% B, tolerance = 1e-6, ignore_attr = TRUE)
})

test_roll_trustworthiness(function(X) lle(X, 2, k = 10, eigen_solver = "sparse"))

test_that("bad input: k too large, disconnected graph, duplicates, ndim", {
  set.seed(9)
  X <- matrix(rnorm(60), 20)
  expect_input_error(lle(X, 2, k = 20), "`k`")
  expect_input_error(lle(X, ndim = 19), "`ndim`")
  expect_input_error(lle(X, 2, reg = -1), "`reg`")
  expect_input_error(lle(X, 2, eigen_solver = "lanczos"), "`eigen_solver`")
  Xna <- X
  Xna[3, 2] <- NA
  expect_input_error(lle(Xna, 2, k = 5), "`X`")
  # two clusters, duplicated rows (all 10 counted), many copies of one point
  # (local Gram exactly 0 after centring)
  d <- expect_degenerate_data_handled(function(X, k) lle(X, 2, k = k), "manifold_lle", k_split = 5,
                                      components = "2 connected components")
  expect_equal(d$fit$n_duplicates, 10L)
  expect_input_error(predict(lle(d$roll$x, 2, k = 8), d$roll$x[, 1:2]), "`newdata`")
})

test_that("print and summary", {
  roll <- swiss_roll(150, seed = 7)
  fit <- lle(roll$x, 2, k = 8)
  expect_output(print(fit), "LLE")
  expect_output(print(summary(fit)), "eigen-solver")
})

test_that("auto eigen-solver: Lanczos above dense_sparse_max_n, the dense subspace all the same", {
  X <- swiss_roll(700, seed = 12)$x
  fa <- lle(X, 2, k = 10)
  fd <- lle(X, 2, k = 10, eigen_solver = "dense")
  expect_match(fa$solver$method, "spectra")
  expect_match(fd$solver$method, "dense")
  expect_lt(max_principal_angle(embedding(fa), embedding(fd)), 1e-6)
  withr::local_options(manifoldOOS.dense_sparse_max_n = 1000L)
  expect_identical(embedding(lle(X, 2, k = 10)), embedding(fd))
})
