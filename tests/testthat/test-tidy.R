# tidy(), glance() and augment() for fits (generics methods).

skip_if_not_installed("generics")

td_roll <- swiss_roll(200, seed = 31)
td_X <- td_roll$x[1:150, ]
td_new <- td_roll$x[151:200, ]

test_that("tidy() gives the training embedding, one row per point", {
  fit <- isomap(td_X, 2, k = 8)
  td <- generics::tidy(fit)
  expect_equal(nrow(td), 150L)
  expect_identical(names(td), c(".row", "Dim1", "Dim2"))
  expect_identical(td$.row, 1:150)
  expect_equal(as.matrix(td[, c("Dim1", "Dim2")]), embedding(fit), ignore_attr = TRUE)
  # training row names are carried as .rownames
  Xr <- td_X
  rownames(Xr) <- paste0("p", 1:150)
  tr <- generics::tidy(ltsa(Xr, 2, k = 8))
  expect_identical(tr$.rownames, rownames(Xr))
  # eigenvalues: the kept ones (the dropped trivial one of spectral fits excluded)
  ev <- generics::tidy(fit, matrix = "eigenvalues")
  expect_equal(ev$eigenvalue, fit$eigenvalues[1:2])
  expect_equal(sum(ev$share), 1)
  lfit <- lle(td_X, 2, k = 8)
  expect_equal(generics::tidy(lfit, matrix = "eigenvalues")$eigenvalue, lfit$eigenvalues[2:3])
  expect_input_error(generics::tidy(fit, matrix = "loadings"), "matrix")
})

test_that("glance() is one row with the same columns for every method", {
  fits <- list(pca(td_X, 2), isomap(td_X, 2, k = 8), lle(td_X, 2, k = 8), kpca(td_X, 2),
               lpp(td_X, 2, k = 8), mds(td_X, 2), laplacian_eigenmaps(td_X, 2, k = 8))
  gl <- lapply(fits, generics::glance)
  for (g in gl) {
    expect_equal(nrow(g), 1L)
    expect_identical(names(g), names(gl[[1]]))
  }
  all <- do.call(rbind, gl)
  expect_identical(all$method, vapply(fits, `[[`, "", "method"))
  expect_identical(all$n, rep(150L, length(fits)))
  expect_identical(all$ndim, rep(2L, length(fits)))
  expect_identical(all$k, c(NA, 8L, 8L, NA, 8L, NA, 8L))
  expect_identical(all$oos_default, vapply(fits, function(f) f$oos$default, ""))
  # diagnostics are those stored in the fit
  expect_identical(all$eigen_solver[2], fits[[2]]$solver)
  expect_identical(all$eigen_solver[3], fits[[3]]$solver$method)
  expect_equal(all$solver_residual[3], fits[[3]]$solver$residual)
  expect_identical(all$graph_components[2], as.integer(fits[[2]]$graph$n_components))
  expect_equal(all$negative_mass[6], fits[[6]]$negative_mass)
  expect_true(is.na(all$eigen_solver[1]))
})

test_that("augment() appends predicted coordinates to newdata, keeping other columns", {
  fit <- ltsa(data.frame(a = td_X[, 1], b = td_X[, 2], c = td_X[, 3]), 2, k = 8)
  nd <- data.frame(id = letters[(1:50 - 1) %% 26 + 1], c = td_new[, 3], a = td_new[, 1],
                   b = td_new[, 2], t = td_roll$color[151:200], stringsAsFactors = FALSE)
  au <- generics::augment(fit, newdata = nd)
  expect_identical(names(au), c(names(nd), ".Dim1", ".Dim2"))
  expect_identical(au$id, nd$id)
  expect_equal(as.matrix(au[, c(".Dim1", ".Dim2")]),
               unname(predict(fit, nd[, c("a", "b", "c")])), ignore_attr = TRUE)
  # another rule; extra arguments reach predict()
  au2 <- generics::augment(fit, newdata = nd, method = "goose", X = fit$X_train)
  expect_equal(as.matrix(au2[, c(".Dim1", ".Dim2")]),
               unname(predict(fit, nd[, c("a", "b", "c")], method = "goose", X = fit$X_train)),
               ignore_attr = TRUE)
  # training data: the embedding itself
  tr <- generics::augment(fit, data = data.frame(t = td_roll$color[1:150]))
  expect_equal(as.matrix(tr[, c(".Dim1", ".Dim2")]), embedding(fit), ignore_attr = TRUE)
  expect_equal(nrow(generics::augment(fit)), 150L)
  # a matrix newdata works by position
  fm <- pca(td_X, 2)
  am <- generics::augment(fm, newdata = td_new)
  expect_equal(as.matrix(am[, c(".Dim1", ".Dim2")]), unname(predict(fm, td_new)), ignore_attr = TRUE)
  expect_input_error(generics::augment(fit, data = data.frame(t = 1:3)), "data")
  expect_input_error(generics::augment(fit, newdata = "x"), "newdata")
  expect_input_error(generics::augment(fit, newdata = nd[, c("id", "a")]), "newdata")
})
