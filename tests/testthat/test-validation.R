test_that("non-numeric, NA, NaN, Inf and tiny inputs give classed errors", {
  X <- matrix(rnorm(30), 10)
  expect_input_error(pca(NULL), "`X`")
  expect_input_error(pca("a"), "`X`")
  expect_input_error(pca(list(1, 2)), "`X`")
  expect_input_error(pca(letters), "`X`")
  expect_input_error(pca(rnorm(10)), "`X`")
  Xna <- X; Xna[3, 2] <- NA
  err <- expect_input_error(pca(Xna), "`X`")
  expect_match(conditionMessage(err), "row 3, column 2")
  Xnan <- X; Xnan[1, 1] <- NaN
  expect_input_error(pca(Xnan), "`X`")
  Xinf <- X; Xinf[2, 3] <- -Inf
  expect_input_error(pca(Xinf), "Inf")
  Xinf <- X; Xinf[7, 2] <- Inf
  err <- expect_input_error(pca(Xinf), "Inf")
  expect_match(conditionMessage(err), "row 7, column 2")
  # entries whose squares overflow, of either sign (found without a copy of X)
  for (v in c(-1e200, 1e200)) {
    Xbig <- X; Xbig[4, 1] <- v
    err <- expect_input_error(pca(Xbig), "too large")
    expect_match(conditionMessage(err), "1e\\+200")
  }
  expect_input_error(pca(X[1, , drop = FALSE]), "`X`")
  df <- data.frame(a = 1:5, b = letters[1:5])
  expect_input_error(pca(df), "non-numeric")
  dff <- data.frame(a = 1:5, b = factor(letters[1:5]))
  expect_input_error(pca(dff), "`X`")
  expect_input_error(knn(X, k = 3, query = matrix(c(1, NA, 3), 1)), "`query`")
})

test_that("data frames, integer and logical matrices, and Matrix objects are accepted", {
  set.seed(1)
  X <- matrix(rnorm(40), 10)
  f1 <- pca(X, 2)
  f2 <- pca(as.data.frame(X), 2)
  f3 <- pca(Matrix::Matrix(X), 2)
  expect_equal(unname(embedding(f1)), unname(embedding(f2)))
  expect_equal(unname(embedding(f1)), unname(embedding(f3)))
  Xi <- matrix(sample(1:9, 40, TRUE), 10)
  expect_s3_class(pca(Xi, 2), "manifold_fit")
  Xs <- Matrix::rsparsematrix(20, 5, 0.5)
  expect_s3_class(pca(Xs, 2), "manifold_fit")
})

test_that("k and ndim are checked", {
  X <- matrix(rnorm(60), 20)
  expect_input_error(knn(X, k = 20), "`k`")
  expect_input_error(knn(X, k = 0), "`k`")
  expect_input_error(knn(X, k = 2.5), "`k`")
  expect_input_error(knn(X, k = c(1, 2)), "`k`")
  expect_input_error(knn(X, k = NA), "`k`")
  expect_input_error(knn(X, k = -1), "`k`")
  expect_input_error(knn(X, k = "3"), "`k`")
  expect_input_error(knn(X, k = 21, query = X[1:2, ]), "`k`")
  expect_input_error(pca(X, ndim = 0), "`ndim`")
  expect_input_error(pca(X, ndim = 4), "`ndim`")
  expect_input_error(pca(X, ndim = Inf), "`ndim`")
  expect_input_error(pca(X, scale = NA), "`scale`")
  expect_input_error(pca(cbind(X, 1), scale = TRUE), "constant")
})

test_that("newdata is matched to the training columns", {
  set.seed(2)
  X <- matrix(rnorm(60), 20, dimnames = list(NULL, c("a", "b", "c")))
  fit <- pca(X, 2)
  expect_equal(fit$feature_names, c("a", "b", "c"))
  new <- X[1:4, c("c", "a", "b")]
  expect_equal(predict(fit, new), predict(fit, X[1:4, ]))
  expect_input_error(predict(fit, X[1:4, 1:2]), "`newdata`")
  bad <- X[1:4, ]; colnames(bad) <- c("a", "b", "z")
  err <- expect_input_error(predict(fit, bad), "`newdata`")
  expect_match(conditionMessage(err), "Missing 1 of 3: \"c\"")
  unnamed <- unname(X)
  fit2 <- pca(unnamed, 2)
  expect_input_error(predict(fit2, unnamed[, 1:2]), "3 columns")
  expect_input_error(predict(fit2, unnamed[1:2, c(1, 1, 2, 3)]), "3 columns")
  expect_input_error(predict(fit, "x"), "`newdata`")
  expect_input_error(predict(fit, X[1:2, ], method = "nope"), "`method`")
  # a data frame with the training names in another order works too
  expect_equal(predict(fit, as.data.frame(new)), predict(fit, X[1:4, ]))
})

test_that("row names carry through to embeddings and predictions", {
  X <- matrix(rnorm(30), 10, dimnames = list(paste0("r", 1:10), NULL))
  fit <- pca(X, 2)
  expect_equal(rownames(embedding(fit)), paste0("r", 1:10))
  expect_equal(rownames(predict(fit, X[3:4, ])), c("r3", "r4"))
  expect_equal(colnames(predict(fit, X[3:4, ])), c("Dim1", "Dim2"))
})

test_that("input errors carry the argument name in the condition", {
  err <- tryCatch(pca(matrix(NA_real_, 5, 2)), manifoldOOS_input_error = function(e) e)
  expect_identical(err$arg, "X")
  expect_s3_class(err, "manifoldOOS_error")
})
