# LTSA (spec B.9) and its reconstruction-weight out-of-sample map (spec C.3).

# flat_plane() and affine_residual(): helper-flat.R

test_that("LTSA recovers a rotated plane up to an affine map (residual < 1e-8)", {
  P <- flat_plane()
  fit <- ltsa(P$X, ndim = 2, k = 10)
  Y <- embedding(fit)
  expect_lt(affine_residual(Y, P$Z), 1e-8)
  expect_equal(crossprod(Y), diag(2), tolerance = 1e-8, ignore_attr = TRUE)
  expect_lt(max(abs(colSums(Y))), 1e-8)
  # same through the sparse path (degenerate null space: the constant is projected out)
  fs <- ltsa(P$X, ndim = 2, k = 10, eigen_solver = "sparse")
  expect_lt(affine_residual(embedding(fs), P$Z), 1e-8)
})

test_that("each local block I - G G' annihilates 1 and the tangent coordinates", {
  set.seed(3)
  roll <- swiss_roll(200, seed = 3)
  X <- roll$x
  nb <- knn(X, 7)
  nbhd <- cbind(1:200, nb$idx)
  B <- manifoldOOS:::.mo_ltsa_alignment(X, nbhd, 2L)
  expect_lt(max(abs(Matrix::rowSums(B))), 1e-12)
  expect_lt(max(abs(B - Matrix::t(B))), 1e-12)
  # one block by hand
  i <- 17
  Xi <- scale(X[nbhd[i, ], ], scale = FALSE)
  Q <- svd(Xi)$u[, 1:2]
  G <- cbind(1 / sqrt(8), Q)
  Li <- diag(8) - tcrossprod(G)
  expect_lt(max(abs(Li %*% rep(1, 8))), 1e-12)
  expect_lt(max(abs(Li %*% Xi %*% svd(Xi)$v[, 1:2])), 1e-10)
  Bi <- manifoldOOS:::.mo_ltsa_alignment(X[nbhd[i, ], ], matrix(1:8, 1), 2L)
  expect_equal(as.matrix(Bi)[1:8, 1:8], Li, tolerance = 1e-12, ignore_attr = TRUE)
  # the embedding solves the eigenproblem of B
  fit <- ltsa(X, 2, k = 8)
  Bd <- as.matrix(B)
  ev <- eigen(Bd, symmetric = TRUE)
  expect_lt(max_principal_angle(embedding(fit), ev$vectors[, 199:198]), 1e-6)
  expect_equal(fit$eigenvalues, rev(ev$values)[1:3], tolerance = 1e-8)
})

test_that("dense and sparse LTSA agree (n = 500)", {
  roll <- swiss_roll(500, seed = 5)
  expect_eigen_paths_agree(function(s) ltsa(roll$x, 2, k = 10, eigen_solver = s))
})

test_that("include_self = FALSE uses the k nearest other points (without the point)", {
  roll <- swiss_roll(300, seed = 2)
  X <- roll$x
  f1 <- ltsa(X, 2, k = 9, include_self = FALSE)
  B <- as.matrix(manifoldOOS:::.mo_ltsa_alignment(X, knn(X, 9)$idx, 2L))
  ev <- eigen(B, symmetric = TRUE)
  expect_lt(max_principal_angle(embedding(f1), ev$vectors[, 299:298]), 1e-6)
  f2 <- ltsa(X, 2, k = 10, include_self = TRUE)
  B2 <- as.matrix(manifoldOOS:::.mo_ltsa_alignment(X, cbind(1:300, knn(X, 9)$idx), 2L))
  ev2 <- eigen(B2, symmetric = TRUE)
  expect_lt(max_principal_angle(embedding(f2), ev2$vectors[, 299:298]), 1e-6)
})

test_that("LTSA prediction: batch = rows, snap, saveRDS", {
  roll <- swiss_roll(500, seed = 6)
  fit <- ltsa(roll$x[1:400, ], 2, k = 10)
  new <- roll$x[401:500, ]
  expect_predict_contract(fit, new, tol = 1e-12)
  expect_identical(unname(predict(fit, roll$x[1:50, ])[, 1:2]), unname(embedding(fit)[1:50, ]),
                   ignore_attr = TRUE)
})

test_roll_trustworthiness(function(X) ltsa(X, 2, k = 10, eigen_solver = "sparse"))

test_that("bad input: k, disconnected graph, duplicates", {
  set.seed(9)
  X <- matrix(rnorm(60), 20)
  expect_input_error(ltsa(X, 2, k = 21), "`k`")
  expect_input_error(ltsa(X, 2, k = 2), "`k`")
  expect_input_error(ltsa(swiss_roll(100, seed = 1)$x, 2, k = 3, include_self = FALSE), "`k`")
  expect_s3_class(ltsa(swiss_roll(100, seed = 1)$x, 2, k = 4, include_self = FALSE), "manifold_ltsa")
  expect_input_error(ltsa(X, 2, include_self = NA), "`include_self`")
  # two clusters, duplicated rows, a neighbourhood made of copies of one point
  # (rank warning or classed error, never a crash)
  expect_degenerate_data_handled(function(X, k) ltsa(X, 2, k = k), "manifold_ltsa", k_split = 6)
})
