# lle(variant = "modified" | "hessian"): outside references (scikit-learn),
# invariants on flat and isometric data, the reconstruction out-of-sample rule.

# flat_plane(), affine_residual(), rds_roundtrip(): helper-flat.R;
# run_sklearn(): helper-sklearn.R

# Largest deviation after the best rotation/reflection (no scaling): the
# embeddings are centred, so the fitted translation is at rounding level.
gap_after_rotation <- function(Y, target) {
  max(abs(procrustes(Y, target, scale = FALSE)$fitted - target))
}

# scikit-learn's own method = "hessian" code, with its QR factorisation
# switched to the economy size of Donoho & Grimes' estimator (see ?lle).
sklearn_hessian_economy <- function(k, ndim) {
  c("import functools, scipy.linalg",
    "import sklearn.manifold._locally_linear as ll",
    "ll.qr = functools.partial(scipy.linalg.qr, mode='economic')",
    sprintf(paste0("OUT = ll.LocallyLinearEmbedding(n_neighbors=%d, n_components=%d, method='hessian', ",
                   "eigen_solver='dense').fit_transform(X)"), k, ndim))
}

test_that("standard LLE agrees with scikit-learn's method = \"standard\" (dense solver)", {
  skip_if_no_sklearn()
  X <- swiss_roll(400, seed = 3)$x
  ref <- run_sklearn(X, c(
    "from sklearn.manifold import LocallyLinearEmbedding as L",
    "OUT = L(n_neighbors=10, n_components=2, eigen_solver='dense').fit_transform(X)"))
  fit <- lle(X, 2, k = 10, eigen_solver = "dense")
  expect_lt(gap_after_rotation(unname(embedding(fit)), ref), 1e-9)
})

test_that("modified LLE agrees with scikit-learn's method = \"modified\" (dense solver)", {
  skip_if_no_sklearn()
  X <- swiss_roll(400, seed = 3)$x   # even n: no point sits exactly at the median of rho
  ref <- run_sklearn(X, c(
    "from sklearn.manifold import LocallyLinearEmbedding as L",
    "m = L(n_neighbors=10, n_components=2, method='modified', eigen_solver='dense')",
    "Y = m.fit_transform(X)",
    "OUT = np.vstack([Y, [m.reconstruction_error_, 0]])"))
  fit <- lle(X, 2, k = 10, variant = "modified", eigen_solver = "dense")
  Y <- unname(embedding(fit))
  expect_lt(gap_after_rotation(Y, ref[1:400, ]), 1e-8)
  # scikit-learn's reconstruction error is the sum of the kept eigenvalues
  expect_equal(sum(fit$eigenvalues[-1]), ref[401, 1], tolerance = 1e-6)
  # the sparse eigen-solver path gives the same embedding
  fs <- lle(X, 2, k = 10, variant = "modified", eigen_solver = "sparse")
  expect_match(fs$solver$method, "spectra")
  expect_lt(max_principal_angle(embedding(fs), Y), 1e-6)
})

test_that("Hessian LLE agrees with scikit-learn's Hessian code with Donoho & Grimes' reduced QR", {
  skip_if_no_sklearn()
  X <- swiss_roll(400, seed = 3)$x
  ref <- run_sklearn(X, sklearn_hessian_economy(k = 10, ndim = 2))
  fit <- lle(X, 2, k = 10, variant = "hessian", eigen_solver = "dense")
  expect_lt(gap_after_rotation(unname(embedding(fit)), ref), 1e-8)
  # ndim = 3 on a 4-D lift (10 quadratic terms, k >= 10)
  set.seed(5)
  X4 <- cbind(X, 0.3 * sin(X[, 1])) %*% qr.Q(qr(matrix(rnorm(16), 4)))
  ref3 <- run_sklearn(X4, sklearn_hessian_economy(k = 14, ndim = 3))
  fit3 <- lle(X4, 3, k = 14, variant = "hessian", eigen_solver = "dense")
  expect_lt(gap_after_rotation(unname(embedding(fit3)), ref3), 1e-7)
})

test_that("Hessian LLE recovers flat coordinates up to an affine map (R^2 = 1); modified LLE nearly", {
  P <- flat_plane()
  fh <- lle(P$X, 2, k = 10, variant = "hessian")
  Y <- embedding(fh)
  expect_gt(affine_r2(Y, P$Z), 1 - 1e-12)
  expect_lt(affine_residual(Y, P$Z), 1e-9)
  # the affine coordinates are exact null vectors: three null eigenvalues
  expect_equal(fh$solver$n_null, 3L)
  expect_lt(max(abs(fh$eigenvalues)), 1e-12)
  expect_equal(crossprod(Y), diag(2), tolerance = 1e-10, ignore_attr = TRUE)
  expect_lt(max(abs(colSums(Y))), 1e-10)
  # same through the sparse solver, in a 5-D ambient space
  P5 <- flat_plane(500, seed = 4, p = 5, extent = c(2, 1), shift = rep(1, 5))
  fh5 <- lle(P5$X, 2, k = 12, variant = "hessian", eigen_solver = "sparse")
  expect_lt(affine_residual(embedding(fh5), P5$Z), 1e-8)
  # modified LLE with a small regulariser: close to affine (bias from reg)
  fm <- lle(P$X, 2, k = 10, variant = "modified", reg = 1e-6)
  expect_lt(affine_residual(embedding(fm), P$Z), 1e-5)
})

test_that("on a Swiss roll both variants recover the isometric chart better than standard LLE", {
  roll <- swiss_roll(1000, seed = 1)
  r2 <- vapply(c("standard", "modified", "hessian"), function(v)
    affine_r2(embedding(lle(roll$x, 2, k = 10, variant = v)), roll$truth_isometric), 0)
  expect_gt(r2[["hessian"]], 0.999)
  expect_gt(r2[["modified"]], 0.999)
  expect_lt(r2[["standard"]], 0.99)
})

test_that("the variants are invariant to rotation, translation and scaling of X", {
  roll <- swiss_roll(300, seed = 4)
  set.seed(4)
  R <- qr.Q(qr(matrix(rnorm(9), 3)))
  X2 <- 2.5 * roll$x %*% R + matrix(c(5, -1, 2), 300, 3, byrow = TRUE)
  for (v in c("modified", "hessian")) {
    f1 <- lle(roll$x, 2, k = 10, variant = v)
    f2 <- lle(X2, 2, k = 10, variant = v)
    expect_lt(max_principal_angle(embedding(f1), embedding(f2)), 1e-6)
    expect_equal(f1$eigenvalues[-1], f2$eigenvalues[-1], tolerance = 1e-6)
  }
})

test_that("variant = \"standard\" is the default fit, unchanged", {
  roll <- swiss_roll(300, seed = 2)
  f0 <- lle(roll$x, 2, k = 8)
  f1 <- lle(roll$x, 2, k = 8, variant = "standard")
  expect_identical(embedding(f0), embedding(f1))
  expect_identical(f0$eigenvalues, f1$eigenvalues)
  expect_identical(f0$oos$available, c("reconstruction", "nystrom"))
})

test_that("variants predict with the reconstruction rule: weights on the training embedding, contract", {
  roll <- swiss_roll(500, seed = 6)
  Xtr <- roll$x[1:400, ]
  new <- roll$x[401:500, ]
  for (v in c("modified", "hessian")) {
    fit <- lle(Xtr, 2, k = 10, variant = v)
    expect_identical(fit$oos$available, "reconstruction")
    yb <- expect_predict_contract(fit, new)
    nb <- knn(Xtr, 10, query = new)
    W <- manifoldOOS:::.mo_reconstruction_weights(Xtr, new, nb$idx, 1e-3, matrix(0, 0, 0), 1L)
    ref <- t(vapply(1:100, function(i) colSums(W[i, ] * embedding(fit)[nb$idx[i, ], ]), numeric(2)))
    expect_equal(unname(yb), ref, tolerance = 1e-12, ignore_attr = TRUE)
    # training rows snap to their own coordinates
    tr <- predict(fit, Xtr)
    expect_identical(unname(tr[, 1:2]), unname(embedding(fit)), ignore_attr = TRUE)
    expect_identical(predict(rds_roundtrip(fit), new), yb)
    expect_input_error(predict(fit, new, method = "nystrom"), "`method`")
  }
  # on a plane, Hessian LLE maps new points to the affine image of their coordinates
  P <- flat_plane(400, seed = 8)
  fh <- lle(P$X, 2, k = 10, variant = "hessian")
  set.seed(8)
  zq <- matrix(runif(20, 0.2, 0.8), 10)
  Xq <- cbind(1, zq) %*% qr.solve(cbind(1, P$Z), P$X)
  B <- qr.solve(cbind(1, P$Z), embedding(fh))
  expect_equal(unname(predict(fh, Xq)), cbind(1, zq) %*% B, tolerance = 1e-2, ignore_attr = TRUE)
})

test_that("variants: bad input gives classed errors naming the argument", {
  roll <- swiss_roll(100, seed = 9)
  expect_input_error(lle(roll$x, 2, k = 5, variant = "hessian"), "`k`")
  expect_input_error(lle(roll$x, 3, k = 9, variant = "hessian"), "`k`")
  expect_input_error(lle(roll$x, 2, k = 2, variant = "modified"), "`k`")
  expect_input_error(lle(roll$x, 2, variant = "ltsa"), "`variant`")
  expect_input_error(lle(roll$x, 2, variant = NA_character_), "`variant`")
  expect_warning(fd <- lle(rbind(roll$x, roll$x[1:5, ]), 2, k = 8, variant = "modified"),
                 class = "manifoldOOS_duplicates_warning")
  expect_true(all(is.finite(embedding(fd))))
  expect_output(print(lle(roll$x, 2, k = 8, variant = "hessian")), "Hessian LLE")
  expect_output(print(summary(lle(roll$x, 2, k = 8, variant = "modified"))), "variant")
})
