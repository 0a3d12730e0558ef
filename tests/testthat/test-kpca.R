# Kernel PCA (spec B.2): exact projection, PCA equivalence, solver paths.

kpca_data <- function(n = 200, seed = 11) swiss_roll(n, noise = 0.1, seed = seed)$x

# align_signs(): helper-data.R

test_that("the linear kernel gives PCA: scores up to sign and l_k = s_k^2", {
  X <- kpca_data()
  fit <- kpca(X, ndim = 3, kernel = "linear")
  p <- pca(X, ndim = 3)
  s2 <- svd(scale(X, scale = FALSE))$d[1:3]^2
  expect_equal(fit$eigenvalues, s2, tolerance = 1e-10)
  expect_equal(unname(align_signs(embedding(fit), embedding(p))), unname(embedding(p)),
               tolerance = 1e-8)
  Xn <- kpca_data(30, seed = 12)
  expect_equal(unname(align_signs(predict(fit, Xn), predict(p, Xn))), unname(predict(p, Xn)),
               tolerance = 1e-8)
})

test_that("training rows are projected onto the embedding (rbf and polynomial)", {
  X <- kpca_data()
  for (fit in list(kpca(X, 2, sigma = 4), kpca(X, 3, kernel = "polynomial", degree = 2,
                                                gamma = 0.01, coef0 = 1))) {
    expect_equal(predict(fit, X), embedding(fit), tolerance = 1e-10)
    Y <- embedding(fit)
    # Y = V Lambda^(1/2): centred, orthogonal columns with squared norms l_k
    expect_equal(unname(colSums(Y)), rep(0, ncol(Y)), tolerance = 1e-8)
    expect_equal(unname(crossprod(Y)), diag(fit$eigenvalues), tolerance = 1e-8)
  }
})

test_that("new points are centred with the stored training means (hand computation)", {
  X <- kpca_data(120)
  fit <- kpca(X, 2, sigma = 3)
  K <- exp(-as.matrix(dist(X))^2 / (2 * 9))
  n <- nrow(X)
  H <- diag(n) - 1 / n
  e <- eigen(H %*% K %*% H, symmetric = TRUE)
  expect_equal(fit$eigenvalues, e$values[1:2], tolerance = 1e-9)
  alpha <- sweep(e$vectors[, 1:2], 2, sqrt(e$values[1:2]), "/")
  x <- rbind(c(0, 5, 0), c(3, 10, 2))
  kx <- exp(-(outer(rowSums(x^2), rowSums(X^2), "+") - 2 * x %*% t(X)) / (2 * 9))
  kc <- kx - rowMeans(kx) - matrix(colMeans(K), 2, n, byrow = TRUE) + mean(K)
  ref <- kc %*% alpha
  expect_equal(unname(align_signs(predict(fit, x), ref)), unname(ref), tolerance = 1e-8)
})

test_that("a batch equals row-by-row predictions, also after saveRDS()", {
  X <- kpca_data()
  fit <- kpca(X, 2, sigma = 4)
  Xn <- kpca_data(40, seed = 3)
  expect_predict_contract(fit, Xn, tol = 1e-12)
})

test_that("dense and iterative eigen-solvers agree (n = 500)", {
  X <- kpca_data(500, seed = 5)
  d <- kpca(X, 3, sigma = 6, eigen_solver = "dense")
  it <- kpca(X, 3, sigma = 6, eigen_solver = "iterative")
  expect_match(d$solver, "dense")
  expect_match(it$solver, "spectra")
  expect_equal(it$eigenvalues, d$eigenvalues, tolerance = 1e-8)
  expect_lt(max_principal_angle(embedding(it), embedding(d)), 1e-6)
  expect_equal(embedding(it), embedding(d), tolerance = 1e-6)
})

test_that("a point far from the data maps to finite coordinates (rbf collapses to a constant)", {
  X <- kpca_data()
  fit <- kpca(X, 2, sigma = 4)
  y <- predict(fit, rbind(rep(1e6, 3), rep(-1e6, 3)))
  expect_true(all(is.finite(y)))
  # k(x, .) = 0: y = alpha' (grand mean - column means), the same for both points
  expect_equal(y[1, ], y[2, ], tolerance = 1e-12)
  ref <- drop((fit$grand_mean - fit$col_means) %*% fit$alpha)
  expect_equal(unname(y[1, ]), ref, tolerance = 1e-10)
})

test_that("bad input gives classed errors naming the argument", {
  X <- kpca_data(50)
  expect_input_error(kpca(X, ndim = 50), "`ndim`")
  expect_input_error(kpca(X, 2, sigma = -1), "`sigma`")
  expect_input_error(kpca(X, 2, kernel = "cosine"), "`kernel`")
  expect_input_error(kpca(X, 2, kernel = function(a, b) tcrossprod(a, b)), "`kernel`")
  expect_input_error(kpca(X, 2, eigen_solver = "magic"), "`eigen_solver`")
  X2 <- X
  X2[3, 2] <- NA
  expect_input_error(kpca(X2, 2), "`X`")
  # linear kernel on 3-D data: rank 3, so ndim = 4 is too large
  expect_input_error(kpca(X, 4, kernel = "linear"), "`ndim`")
  fit <- kpca(X, 2)
  expect_input_error(predict(fit, X[, 1:2]), "`newdata`")
})
