# Column names of newdata: blank or repeated names are matched by position
# when they equal the training names as a whole; other differences are errors
# naming the columns, with a hint.

test_that("cbind()-style blank names: predict() matches the columns by position", {
  set.seed(3)
  t <- seq(1.5 * pi, 4.5 * pi, length.out = 300)
  h <- stats::runif(300, 0, 10)
  X <- cbind(t * cos(t), h, t * sin(t))
  expect_identical(colnames(X), c("", "h", ""))
  for (fit in list(pca(X[1:200, ], 2), ltsa(X[1:200, ], 2, k = 10))) {
    y <- predict(fit, X[201:300, ])
    expect_identical(y, predict(fit, unname(X[201:300, ])))
    expect_identical(dim(y), c(100L, 2L))
    # training rows are reproduced from the same named columns
    expect_identical(predict(fit, X[1:5, ]), predict(fit, unname(X[1:5, ])))
  }
  fit <- pca(X[1:200, ], 2)
  # the exact map of PCA: (x - mean) %*% rotation; checks the columns were not permuted
  Xc <- sweep(X[201:300, ], 2, colMeans(X[1:200, ]))
  expect_equal(abs(unname(predict(fit, X[201:300, ]))),
               abs(unname(Xc %*% prcomp(X[1:200, ])$rotation[, 1:2])), tolerance = 1e-8)
  # a different name at one position: the error names it and hints
  Z <- X[201:210, ]
  colnames(Z) <- c("", "h", "z")
  err <- expect_error(predict(fit, Z), class = "manifoldOOS_input_error")
  expect_identical(err$arg, "newdata")
  expect_match(conditionMessage(err), "column 3: \"z\" instead of \"\" (blank)", fixed = TRUE)
  expect_match(conditionMessage(err), "unname(newdata)", fixed = TRUE)
  # the hint works
  expect_identical(predict(fit, unname(Z)), predict(fit, X[201:210, ]))
  # swapped blank/named columns cannot be matched: the error lists both positions
  expect_input_error(predict(fit, X[201:210, c(2, 1, 3)]), "columns 1, 2:")
})

test_that("data frames with repeated names are matched by position", {
  set.seed(4)
  M <- matrix(stats::rnorm(600), 200)
  D <- data.frame(M, check.names = FALSE)
  names(D) <- c("a", "a", "b")
  fit <- pca(D[1:150, ], 2)
  expect_identical(fit$feature_names, c("a", "a", "b"))
  y <- predict(fit, D[151:200, ])
  expect_identical(unname(y), unname(predict(pca(M[1:150, ], 2), M[151:200, ])))
  # the same data as a matrix with the same names
  expect_identical(unname(predict(fit, as.matrix(D[151:200, ]))), unname(y))
  # different names on a repeated-name fit: error names the columns
  E <- D[151:200, ]
  names(E) <- c("a", "b", "b")
  err <- expect_input_error(predict(fit, E), "column 2: \"b\" instead of \"a\"")
  expect_match(conditionMessage(err), "blank or repeated", fixed = TRUE)
  # wrong number of columns says so
  expect_input_error(predict(fit, D[151:200, 1:2]), "must have 3 columns")
  # a fit on unique names given data with repeated names
  fit2 <- pca(M[1:150, ] |> `colnames<-`(c("a", "b", "c")), 2)
  expect_input_error(predict(fit2, E), "`newdata` has blank or repeated column names")
})

test_that("unique names are matched by name, with the differing ones named", {
  set.seed(5)
  X <- matrix(stats::rnorm(300), 100, dimnames = list(NULL, c("u", "v", "w")))
  fit <- pca(X[1:80, ], 2)
  expect_identical(predict(fit, X[81:100, c("w", "u", "v")]), predict(fit, X[81:100, ]))
  bad <- X[81:100, ]
  colnames(bad) <- c("u", "v", "x")
  err <- expect_input_error(predict(fit, bad), "Missing 1 of 3: \"w\"")
  expect_match(conditionMessage(err), "Not in the training data: \"x\".", fixed = TRUE)
  # extra named columns are dropped; missing ones can be set to zero, with a warning that counts them
  expect_identical(predict(fit, cbind(X[81:100, ], extra = 1)), predict(fit, X[81:100, ]))
  expect_warning(yz <- predict(fit, X[81:100, c("u", "v")], missing = "zero"), "lacks 1 of the 3",
                 class = "manifoldOOS_missing_features_warning")
  expect_identical(yz, predict(fit, cbind(X[81:100, c("u", "v")], w = 0)))
  expect_input_error(predict(fit, X[81:100, ], missing = "mean"), "missing")
  expect_match(conditionMessage(err), "unname(newdata)", fixed = TRUE)
  expect_input_error(predict(fit, X[81:100, 1:2]), "trained on 3 columns: \"u\", \"v\", \"w\"")
  # oos_map() and the generic rules use the same matching
  map <- oos_map(X[1:80, ], embedding(fit), method = "linear")
  expect_identical(predict(map, X[81:100, c("v", "w", "u")]), predict(map, X[81:100, ]))
  expect_error(predict(map, bad), class = "manifoldOOS_input_error")
})

test_that("tibbles: names matched by name, minimal (blank) names by position", {
  skip_if_not_installed("tibble")
  set.seed(6)
  M <- matrix(stats::rnorm(450), 150)
  tb <- tibble::as_tibble(as.data.frame(M))
  fit <- isomap(tb[1:100, ], 2, k = 8)
  expect_identical(fit$feature_names, c("V1", "V2", "V3"))
  y <- predict(fit, tb[101:150, ])
  expect_identical(predict(fit, tb[101:150, c(3, 1, 2)]), y)
  expect_identical(unname(predict(fit, M[101:150, ])), unname(y))
  tm <- tibble::as_tibble(M, .name_repair = "minimal")
  names(tm) <- c("", "", "z")
  fit2 <- pca(tm[1:100, ], 2)
  expect_identical(unname(predict(fit2, tm[101:150, ])), unname(predict(pca(M[1:100, ], 2), M[101:150, ])))
  expect_input_error(predict(fit2, tb[101:150, ]), "columns 1, 2, 3")
})
