# Laplacian eigenmaps (spec B.8) and their out-of-sample maps (spec C.0, C.1, C.4).

le_graph <- function(fit, X) {
  neighbor_graph(X, k = fit$k, weights = fit$weights,
                  sigma = if (fit$weights == "heat") fit$sigma else "median_knn")
}

# Nystrom map of the training points fed with their training kernel rows
# (the graph neighbours of x_j with their distances, no self-weight).
training_row_map <- function(fit, X, W) {
  n <- nrow(X)
  Wt <- methods::as(methods::as(W, "generalMatrix"), "CsparseMatrix")  # symmetric: column j = row j
  ptr <- Wt@p
  idx <- Wt@i + 1L
  j_of <- rep(seq_len(n), diff(ptr))
  dist <- sqrt(rowSums((X[idx, , drop = FALSE] - X[j_of, , drop = FALSE])^2))
  deg <- if (is.null(fit$degree)) numeric(0) else fit$degree
  manifoldOOS:::.mo_le_extend(unname(embedding(fit)), fit$eigenvalues[-1], deg, as.numeric(ptr),
                              idx, dist, fit$laplacian, TRUE, fit$weights == "binary",
                              if (fit$weights == "binary") 1 else fit$sigma)$y
}

test_that("generalized LE solves L z = lambda D z with z'Dz = I and z'D1 = 0", {
  roll <- swiss_roll(400, seed = 1)
  X <- roll$x
  fit <- laplacian_eigenmaps(X, ndim = 3, k = 10)
  g <- le_graph(fit, X)
  W <- as.matrix(g$W)
  d <- rowSums(W)
  L <- diag(d) - W
  Z <- unname(embedding(fit))
  lam <- fit$eigenvalues[-1]
  expect_lt(max(abs(L %*% Z - (d * Z) %*% diag(lam))), 1e-8)
  expect_equal(crossprod(Z, d * Z), diag(3), tolerance = 1e-8)
  expect_lt(max(abs(colSums(d * Z))), 1e-8)
  expect_lt(abs(fit$eigenvalues[1]), 1e-10)
  # sum_ij W_ij (z_ik - z_jk)^2 = 2 lambda_k
  for (k in 1:3) {
    expect_equal(sum(W * outer(Z[, k], Z[, k], "-")^2), 2 * lam[k], tolerance = 1e-8)
  }
  expect_true(all(diff(lam) >= 0))
})

test_that("symmetric and unnormalized variants solve their eigenproblems", {
  roll <- swiss_roll(300, seed = 2)
  X <- roll$x
  fs <- laplacian_eigenmaps(X, 2, k = 8, laplacian = "symmetric")
  W <- as.matrix(le_graph(fs, X)$W)
  d <- rowSums(W)
  Ls <- diag(300) - W / sqrt(outer(d, d))
  V <- unname(embedding(fs))
  expect_lt(max(abs(Ls %*% V - V %*% diag(fs$eigenvalues[-1]))), 1e-8)
  expect_lt(max(abs(crossprod(V, sqrt(d)))), 1e-8)
  expect_equal(fs$degree, d, tolerance = 1e-12)
  fu <- laplacian_eigenmaps(X, 2, k = 8, laplacian = "unnormalized", weights = "binary")
  Wb <- as.matrix(le_graph(fu, X)$W)
  expect_true(all(Wb %in% c(0, 1)))
  Lu <- diag(rowSums(Wb)) - Wb
  U <- unname(embedding(fu))
  expect_lt(max(abs(Lu %*% U - U %*% diag(fu$eigenvalues[-1]))), 1e-8)
  expect_equal(crossprod(U), diag(2), tolerance = 1e-8)
})

test_that("dense and sparse paths agree (n = 500)", {
  roll <- swiss_roll(500, seed = 3)
  expect_eigen_paths_agree(function(s) laplacian_eigenmaps(roll$x, 2, k = 10, eigen_solver = s), eig = -1)
  fsy <- laplacian_eigenmaps(roll$x, 2, k = 10, laplacian = "symmetric", eigen_solver = "sparse")
  fdy <- laplacian_eigenmaps(roll$x, 2, k = 10, laplacian = "symmetric", eigen_solver = "dense")
  expect_lt(max_principal_angle(embedding(fdy), embedding(fsy)), 1e-6)
})

test_that("reproduction property: training kernel rows give y_j exactly, recomputed rows do not", {
  roll <- swiss_roll(300, seed = 4)
  X <- roll$x
  for (lap in c("generalized", "symmetric", "unnormalized")) {
    for (w in c("heat", "binary")) {
      fit <- laplacian_eigenmaps(X, 2, k = 8, laplacian = lap, weights = w)
      g <- le_graph(fit, X)
      y <- training_row_map(fit, X, g$W)
      expect_lt(max(abs(y - embedding(fit))), 1e-10 * max(abs(embedding(fit))))
    }
  }
  fit <- laplacian_eigenmaps(X, 2, k = 8)
  # recomputed kernel row: x_j finds itself at distance 0 -> not y_j
  yr <- predict(fit, X, snap = FALSE)
  expect_gt(max(abs(yr - embedding(fit))), 1e-6)
  # snap = TRUE (default) returns the training coordinates
  ys <- predict(fit, X)
  expect_identical(unname(ys[, 1:2]), unname(embedding(fit)), ignore_attr = TRUE)
  # the full mesh has the same property
  ff <- laplacian_eigenmaps(X[1:200, ], 2, graph = "full", bandwidth = 2)
  Wf <- exp(-as.matrix(dist(X[1:200, ]))^2 / 8)
  diag(Wf) <- 0
  yf <- training_row_map(ff, X[1:200, ], Matrix::Matrix(Wf, sparse = TRUE))
  expect_lt(max(abs(yf - embedding(ff))), 1e-10 * max(abs(embedding(ff))))
})

test_that("LVM = Nystrom x (1 - lambda_k) for the generalized variant; batch = rows", {
  roll <- swiss_roll(500, seed = 5)
  fit <- laplacian_eigenmaps(roll$x[1:400, ], 2, k = 10)
  new <- roll$x[401:500, ]
  yn <- predict(fit, new)
  yl <- predict(fit, new, method = "lvm")
  expect_equal(unname(yl), sweep(unname(yn), 2, 1 - fit$eigenvalues[-1], "*"),
               tolerance = 1e-12, ignore_attr = TRUE)
  # LVM is a convex combination of the neighbours' embeddings
  nb <- knn(roll$x[1:400, ], 10, query = new)
  Y <- embedding(fit)
  for (k in 1:2) {
    lo <- apply(matrix(Y[nb$idx, k], 100), 1, min)
    hi <- apply(matrix(Y[nb$idx, k], 100), 1, max)
    expect_true(all(yl[, k] >= lo - 1e-12 & yl[, k] <= hi + 1e-12))
  }
  for (m in c("nystrom", "lvm")) {
    yb <- predict(fit, new, method = m)
    yr <- t(vapply(1:100, function(i) predict(fit, new[i, , drop = FALSE], method = m), numeric(2)))
    expect_equal(unname(yb), unname(yr), tolerance = 1e-12, ignore_attr = TRUE)
  }
  f <- tempfile(fileext = ".rds")
  saveRDS(fit, f)
  expect_identical(predict(readRDS(f), new), yn)
})

test_that("far points give finite values with the far flag", {
  roll <- swiss_roll(300, seed = 6)
  X <- roll$x
  far_pt <- matrix(1e6, 1, 3)
  for (g in c("knn", "eps", "full")) {
    for (lap in c("generalized", "symmetric", "unnormalized")) {
      fit <- laplacian_eigenmaps(X, 2, k = 10, graph = g, eps = if (g == "eps") 7 else NULL,
                                 laplacian = lap)
      for (m in c("nystrom", "lvm")) {
        y <- predict(fit, far_pt, method = m)
        expect_true(all(is.finite(y)))
        expect_true(attr(y, "far"))
      }
    }
  }
  # the generalized Nystrom limit is the nearest neighbour's coordinates / ell_k
  fit <- laplacian_eigenmaps(X, 2, k = 10)
  nn <- knn(X, 1, query = far_pt)$idx[1, 1]
  expect_equal(as.vector(predict(fit, far_pt)), embedding(fit)[nn, ] / (1 - fit$eigenvalues[-1]),
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_false(any(attr(predict(fit, X[1:5, ] + 0.01), "far")))
})

test_that("eps and full graphs: eigenproblem, batch = rows", {
  roll <- swiss_roll(300, seed = 7)
  X <- roll$x
  fe <- laplacian_eigenmaps(X, 2, k = 10, graph = "eps", eps = 7)
  ge <- neighbor_graph(X, k = 10, type = "eps", eps = 7, weights = "heat", sigma = fe$sigma)
  W <- as.matrix(ge$W)
  d <- rowSums(W)
  Z <- unname(embedding(fe))
  expect_lt(max(abs((diag(d) - W) %*% Z - (d * Z) %*% diag(fe$eigenvalues[-1]))), 1e-8)
  new <- X[1:20, ] + 0.05
  yb <- predict(fe, new)
  yr <- t(vapply(1:20, function(i) predict(fe, new[i, , drop = FALSE]), numeric(2)))
  expect_equal(unname(yb), unname(yr), tolerance = 1e-12, ignore_attr = TRUE)
  ff <- laplacian_eigenmaps(X, 2, k = 10, graph = "full")
  Wf <- exp(-as.matrix(dist(X))^2 / (2 * ff$sigma^2))
  diag(Wf) <- 0
  df <- rowSums(Wf)
  Zf <- unname(embedding(ff))
  expect_lt(max(abs((diag(df) - Wf) %*% Zf - (df * Zf) %*% diag(ff$eigenvalues[-1]))), 1e-8)
  yb <- predict(ff, new)
  yr <- t(vapply(1:20, function(i) predict(ff, new[i, , drop = FALSE]), numeric(2)))
  expect_equal(unname(yb), unname(yr), tolerance = 1e-10, ignore_attr = TRUE)
})

test_that("bad input: disconnected graphs, k, bandwidth, graph options", {
  set.seed(9)
  two <- rbind(matrix(rnorm(60), 30), matrix(rnorm(60), 30) + 100)
  err <- expect_input_error(laplacian_eigenmaps(two, 2, k = 5), "`k`")
  expect_match(conditionMessage(err), "2 connected components")
  expect_warning(fc <- laplacian_eigenmaps(two, 2, k = 5, weights = "binary",
                                           on_disconnected = "connect"),
                 "connected components")
  expect_equal(fc$added_edges, 1L)
  expect_true(all(is.finite(embedding(fc))))
  # with heat weights the added edge (length ~140) underflows to 0: still a classed error
  expect_input_error(suppressWarnings(laplacian_eigenmaps(two, 2, k = 5, on_disconnected = "connect")),
                     "disconnected")
  X <- two[1:30, ]
  expect_input_error(laplacian_eigenmaps(X, 2, k = 30), "`k`")
  expect_input_error(laplacian_eigenmaps(X, 2, graph = "eps"), "`eps`")
  expect_input_error(laplacian_eigenmaps(X, 2, bandwidth = -1), "`bandwidth`")
  expect_input_error(laplacian_eigenmaps(X, 2, bandwidth = "silverman"), "`bandwidth`")
  expect_input_error(laplacian_eigenmaps(X, 2, graph = "full", eigen_solver = "sparse"),
                     "`eigen_solver`")
  expect_input_error(laplacian_eigenmaps(matrix(0, 5001, 1) + seq_len(5001), 2, graph = "full"),
                     "`graph`")
  # a bandwidth so small that all weights underflow: isolated vertices, classed error
  expect_input_error(laplacian_eigenmaps(X, 2, k = 5, bandwidth = 1e-6), "isolated")
  # duplicated rows: a warning, a finite embedding
  roll <- swiss_roll(200, seed = 3)
  expect_warning(fd <- laplacian_eigenmaps(rbind(roll$x, roll$x[1:5, ]), 2, k = 8),
                 class = "manifoldOOS_duplicates_warning")
  expect_true(all(is.finite(embedding(fd))))
})

test_that("print and summary", {
  fit <- laplacian_eigenmaps(swiss_roll(150, seed = 8)$x, 2, k = 8)
  expect_output(print(fit), "Laplacian eigenmaps")
  expect_output(print(summary(fit)), "eigen-solver")
})
