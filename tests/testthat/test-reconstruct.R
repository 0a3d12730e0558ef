# reconstruct(): inverse maps from the embedding back to the input space, and
# the two local averages behind its generic rules and oos_map()'s local rules:
# reconstruction weights and the LVM heat-weight average (at the end).

# Orthogonal projection of the rows of x - center onto the span of A's columns.
span_projection <- function(x, center, A) {
  P <- A %*% solve(crossprod(A), t(A))
  sweep(sweep(x, 2, center) %*% P, 2, center, "+")
}

test_that("PCA: reconstruct(predict(x)) is the projection on the principal subspace; ndim = D is exact", {
  set.seed(1)
  X <- matrix(rnorm(200 * 5), 200) %*% matrix(rnorm(25), 5)
  colnames(X) <- paste0("v", 1:5)
  new <- matrix(rnorm(20 * 5), 20) * 3
  colnames(new) <- colnames(X)
  p <- pca(X, ndim = 2)
  xr <- reconstruct(p, predict(p, new))
  expect_identical(colnames(xr), colnames(X))
  expect_equal(unname(xr), span_projection(new, p$center, unname(p$rotation)), tolerance = 1e-10)
  # projection: idempotent, and the residual is orthogonal to the subspace
  expect_equal(reconstruct(p, predict(p, xr)), xr, tolerance = 1e-10)
  expect_lt(max(abs((new - xr) %*% p$rotation)), 1e-9)
  p5 <- pca(X, ndim = 5)
  expect_lt(max(abs(reconstruct(p5, predict(p5, new)) - new)), 1e-10)
  ps <- pca(X, ndim = 5, scale = TRUE)
  expect_lt(max(abs(reconstruct(ps, predict(ps, new)) - new)), 1e-10)
  # with scaling and fewer components: projection in the scaled coordinates
  ps2 <- pca(X, ndim = 2, scale = TRUE)
  Zs <- sweep(sweep(new, 2, ps2$center), 2, ps2$scale, "/")
  R <- unname(ps2$rotation)
  expect_equal(unname(reconstruct(ps2, predict(ps2, new))),
               sweep(sweep(Zs %*% R %*% t(R), 2, ps2$scale, "*"), 2, ps2$center, "+"),
               tolerance = 1e-10)
})

test_that("linear projections, linear SR and MDS: exact projection onto the span", {
  set.seed(2)
  roll <- swiss_roll(250, seed = 2)
  X <- unname(cbind(roll$x, matrix(rnorm(250 * 2), 250)))
  new <- X[1:15, ] + matrix(rnorm(15 * 5), 15)
  fits <- list(lpp = lpp(X, 2, k = 8), olpp = olpp(X, 2, k = 8), npe = npe(X, 2, k = 10),
               onpp = onpp(X, 2, k = 10))
  for (nm in names(fits)) {
    f <- fits[[nm]]
    expect_equal(unname(reconstruct(f, predict(f, new))),
                 span_projection(new, f$center, unname(f$rotation)), tolerance = 1e-10, info = nm)
  }
  sr <- spectral_regression(X, 2, k = 8, kernel = "linear")
  expect_s3_class(sr, "manifold_sr_linear")
  expect_equal(unname(reconstruct(sr, predict(sr, new))),
               span_projection(new, sr$center, unname(sr$rotation)), tolerance = 1e-10)
  # classical MDS of Euclidean distances is PCA: the same reconstruction
  m <- mds(X, 2)
  p <- pca(X, 2)
  expect_equal(reconstruct(m, predict(m, new)), reconstruct(p, predict(p, new)), tolerance = 1e-10)
})

test_that("local linear and linear rules are exact on flat data (affine embedding)", {
  fp <- flat_plane(400, seed = 5, p = 5, extent = c(3, 1), shift = NULL)
  X <- fp$X
  fit <- pca(X[1:300, ], ndim = 2)           # an affine image of the plane
  new <- X[301:400, ]
  Ynew <- predict(fit, new)
  for (m in c("local_linear", "linear")) {
    xr <- reconstruct(fit, Ynew, method = m, X = X[1:300, ])
    expect_lt(max(abs(xr - new)), 1e-9)
  }
  # an LTSA fit stores its data; any y (also off the training points) maps into the plane
  lt <- ltsa(X[1:300, ], ndim = 2, k = 12)
  Y <- rbind(embedding(lt)[1:5, ], colMeans(embedding(lt)))
  xr <- reconstruct(lt, Y)
  expect_equal(unname(xr[1:5, ]), unname(X[1:5, ]))          # snapped training points
  R <- svd(sweep(X[1:300, ], 2, colMeans(X[1:300, ])))$v[, 1:2]
  off <- sweep(xr, 2, colMeans(X[1:300, ]))
  expect_lt(max(abs(off - off %*% R %*% t(R))), 1e-9)        # stays in the data plane
})

test_that("the kernel PCA pre-image is kernel ridge regression from the embedding", {
  set.seed(3)
  X <- matrix(rnorm(60 * 3), 60)
  kp <- kpca(X, ndim = 2, sigma = 1.5)
  Y <- embedding(kp)
  a <- 0.3
  K <- exp(-as.matrix(dist(Y))^2 / (2 * 1.5^2))
  ref <- K %*% solve(K + a * diag(60), X)
  expect_equal(unname(reconstruct(kp, Y, alpha = a)), unname(ref), tolerance = 1e-10)
  # polynomial kernel: (gamma <a, b> + coef0)^degree on the embedding
  kq <- kpca(X, ndim = 2, kernel = "polynomial", degree = 2, gamma = 0.5, coef0 = 1)
  Yq <- embedding(kq)
  Kq <- (0.5 * tcrossprod(Yq) + 1)^2
  expect_equal(unname(reconstruct(kq, Yq[1:4, ], alpha = 1)),
               unname(Kq[1:4, ] %*% solve(Kq + diag(60), X)), tolerance = 1e-9)
})

test_that("kernel PCA pre-image agrees with scikit-learn's KernelPCA.inverse_transform", {
  skip_if_no_sklearn()
  py <- sklearn_python()
  set.seed(4)
  roll <- swiss_roll(120, seed = 4)
  X <- roll$x[1:100, ]
  new <- roll$x[101:120, ]
  sigma <- 6
  alpha <- 0.5
  dir <- tempfile("skl")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  utils::write.table(X, file.path(dir, "x.csv"), sep = ",", row.names = FALSE, col.names = FALSE)
  utils::write.table(new, file.path(dir, "new.csv"), sep = ",", row.names = FALSE, col.names = FALSE)
  script <- file.path(dir, "run.py")
  writeLines(c(
    "import sys, numpy as np",
    "from sklearn.decomposition import KernelPCA",
    "d = sys.argv[1]",
    "X = np.loadtxt(d + '/x.csv', delimiter=',')",
    "N = np.loadtxt(d + '/new.csv', delimiter=',')",
    sprintf("kp = KernelPCA(n_components=2, kernel='rbf', gamma=%.17g, fit_inverse_transform=True, alpha=%.17g, eigen_solver='dense')",
            1 / (2 * sigma^2), alpha),
    "kp.fit(X)",
    "np.savetxt(d + '/inv_new.csv', kp.inverse_transform(kp.transform(N)), delimiter=',', fmt='%.17g')",
    "np.savetxt(d + '/inv_train.csv', kp.inverse_transform(kp.transform(X[:10])), delimiter=',', fmt='%.17g')"
  ), script)
  status <- system2(py, c(shQuote(script), shQuote(dir)), stdout = FALSE, stderr = FALSE)
  skip_if(!identical(as.integer(status), 0L), "the scikit-learn script failed")
  ref_new <- as.matrix(utils::read.csv(file.path(dir, "inv_new.csv"), header = FALSE))
  ref_train <- as.matrix(utils::read.csv(file.path(dir, "inv_train.csv"), header = FALSE))
  kp <- kpca(X, ndim = 2, sigma = sigma, eigen_solver = "dense")
  expect_equal(unname(reconstruct(kp, predict(kp, new), alpha = alpha)), unname(ref_new),
               tolerance = 1e-7)
  expect_equal(unname(reconstruct(kp, embedding(kp)[1:10, ], alpha = alpha)), unname(ref_train),
               tolerance = 1e-7)
})

test_that("generic rules: oos_map with the roles swapped; training data from the fit or X", {
  roll <- swiss_roll(200, seed = 6)
  X <- roll$x
  le <- laplacian_eigenmaps(X, ndim = 2, k = 10)
  Y <- embedding(le)[c(3, 50, 120), ] + 1e-4
  for (m in c("krr", "linear", "lvm", "reconstruction")) {
    map <- oos_map(embedding(le), X, method = m)
    expect_equal(unname(reconstruct(le, Y, method = m)), unname(predict(map, Y)), info = m)
  }
  # a fit without stored data needs X, and X must be the training data
  p <- pca(X, 2)
  expect_input_error(reconstruct(p, embedding(p)[1:2, ], method = "krr"), "`X`")
  expect_input_error(reconstruct(p, embedding(p)[1:2, ], method = "krr", X = X[1:50, ]), "`X`")
  expect_equal(reconstruct(p, embedding(p)[1:2, ], method = "krr", X = X, lambda = 0.01),
               reconstruct(p, embedding(p)[1:2, ], method = "krr", X = as.data.frame(X), lambda = 0.01))
})

test_that("reconstruct: batch == row by row, saveRDS round trip, bad input", {
  roll <- swiss_roll(150, seed = 7)
  X <- roll$x
  fits <- list(pca = pca(X, 2), kpca = kpca(X, 2, sigma = 5), isomap = isomap(X, 2, k = 10),
               lle = lle(X, 2, k = 10))
  Ynew <- matrix(c(0.1, -0.2, 0.3, 0.05, -0.4, 0.2), 3) * 5
  for (nm in names(fits)) {
    f <- fits[[nm]]
    batch <- reconstruct(f, Ynew)
    rows <- do.call(rbind, lapply(1:3, function(i) reconstruct(f, Ynew[i, , drop = FALSE])))
    expect_equal(rows, batch, tolerance = 1e-12, info = nm)
    expect_identical(reconstruct(rds_roundtrip(f), Ynew), batch, info = nm)
    expect_equal(dim(batch), c(3L, 3L))
  }
  f <- fits$isomap
  expect_input_error(reconstruct(f, Ynew[, 1, drop = FALSE]), "`Y`")
  expect_input_error(reconstruct(f, "a"), "`Y`")
  expect_input_error(reconstruct(f, replace(Ynew, 2, NA)), "`Y`")
  expect_input_error(reconstruct(f, Ynew, method = "exact"), "`method`")
  expect_input_error(reconstruct(f, Ynew, k = 2), "`k`")
  expect_input_error(reconstruct(fits$kpca, Ynew, alpha = -1), "`alpha`")
  expect_input_error(reconstruct(list(), Ynew), "`fit`")
  expect_input_error(reconstruct(embedding(f), Ynew), "`fit`")
})

# ---- reconstruction weights and the LVM average -------------------------------

ref_weights <- function(q, Xn, reg) {
  Z <- sweep(Xn, 2, q)
  C <- Z %*% t(Z)
  C <- C + diag(if (sum(diag(C)) > 0) reg * sum(diag(C)) else reg, nrow(C))
  w <- solve(C, rep(1, nrow(C)))
  w / sum(w)
}

test_that("reconstruction weights match the closed form, sum to one and are similarity invariant", {
  set.seed(20)
  X <- matrix(rnorm(50 * 4), 50)
  Q <- matrix(rnorm(5 * 4), 5)
  idx <- t(apply(Q, 1, function(q) order(colSums((t(X) - q)^2))[1:7]))
  W <- manifoldOOS:::.mo_reconstruction_weights(X, Q, idx, 1e-3, matrix(0, 0, 0), 1L)
  for (i in 1:5) expect_equal(W[i, ], ref_weights(Q[i, ], X[idx[i, ], ], 1e-3), tolerance = 1e-10)
  expect_equal(rowSums(W), rep(1, 5), tolerance = 1e-12)
  R <- qr.Q(qr(matrix(rnorm(16), 4)))
  s <- 3.7; sh <- c(1, -2, 5, 0.5)
  X2 <- s * X %*% R + matrix(sh, 50, 4, byrow = TRUE)
  Q2 <- s * Q %*% R + matrix(sh, 5, 4, byrow = TRUE)
  W2 <- manifoldOOS:::.mo_reconstruction_weights(X2, Q2, idx, 1e-3, matrix(0, 0, 0), 2L)
  expect_equal(W2, W, tolerance = 1e-9)
})

test_that("an affine combination on a plane is reproduced and duplicates are handled", {
  set.seed(21)
  Z <- matrix(runif(40), 20)
  A <- matrix(rnorm(6), 2)
  X <- Z %*% A
  Y <- Z %*% matrix(c(2, 0, 1, 3), 2) + 4      # an affine image of the plane coordinates
  q <- colMeans(X[1:3, , drop = FALSE])
  W <- manifoldOOS:::.mo_reconstruction_weights(X, matrix(q, 1), matrix(1:3, 1), 1e-10,
                                                matrix(0, 0, 0), 1L)
  y <- manifoldOOS:::.mo_reconstruct_embedding(Y, matrix(1:3, 1), W)
  expect_equal(as.vector(y), colMeans(Y[1:3, ]), tolerance = 1e-7)
  # duplicated neighbours make the Gram matrix singular without the regulariser
  Xd <- rbind(X, X[1, ], X[1, ])
  Wd <- manifoldOOS:::.mo_reconstruction_weights(Xd, matrix(X[2, ], 1), matrix(c(21L, 22L, 1L), 1),
                                                 1e-3, matrix(0, 0, 0), 1L)
  expect_true(all(is.finite(Wd)))
  expect_equal(sum(Wd), 1, tolerance = 1e-12)
  # snap rule: distance 0 to the first neighbour gives a one-hot weight
  Ws <- manifoldOOS:::.mo_reconstruction_weights(X, X[5, , drop = FALSE], matrix(c(5L, 1L, 2L), 1),
                                                 1e-3, matrix(c(0, 1, 1), 1), 1L)
  expect_equal(as.vector(Ws), c(1, 0, 0))
})

test_that("the LVM average is a convex combination with heat weights and survives far points", {
  set.seed(22)
  Y <- matrix(rnorm(20), 10)
  idx <- matrix(c(1L, 2L, 3L, 4L, 5L, 6L), 2, byrow = TRUE)
  dist <- matrix(c(0.1, 0.5, 0.9, 0.2, 0.3, 2), 2, byrow = TRUE)
  out <- manifoldOOS:::.mo_lvm_average(Y, idx, dist, 0.7)
  for (i in 1:2) {
    w <- exp(-dist[i, ]^2 / (2 * 0.7^2)); w <- w / sum(w)
    expect_equal(out$y[i, ], colSums(w * Y[idx[i, ], ]), tolerance = 1e-12)
  }
  expect_false(any(out$far))
  far <- manifoldOOS:::.mo_lvm_average(Y, idx, dist + 1e4, 0.7)
  expect_true(all(far$far))
  expect_true(all(is.finite(far$y)))
  expect_equal(far$y[1, ], Y[1, ])      # the limit: all weight on the nearest neighbour
})
