# Helpers of the full-size experiment scripts (inst/experiments).

experiment_env <- function(script, flag) {
  path <- system.file("experiments", script, package = "manifoldOOS")
  if (!nzchar(path)) skip(paste("experiment script", script, "not installed"))
  env <- new.env()
  assign(flag, TRUE, envir = env)
  sys.source(path, envir = env)
  env
}

test_that("seed-004 stratified splits keep the training fraction per data set", {
  e <- experiment_env("sparse-oos.R", "SPARSE_OOS_NO_MAIN")
  sizes <- list(Yale = rep(11, 15), ORL = rep(10, 40),
                uneven = c(38, 35, 26, 24, 26, 23, 19, 22, 20, 32, 34, 34, 26, 30, 19, 26, 26, 33, 48, 38))
  for (nm in names(sizes)) for (frac in c(0.3, 0.5, 0.7)) {
    n_c <- sizes[[nm]]
    labels <- rep(seq_along(n_c), n_c)
    tr <- e$stratified_split(labels, frac, seed = 3)
    cnt <- as.vector(table(factor(labels[tr], levels = seq_along(n_c))))
    expect_equal(sum(cnt), round(frac * sum(n_c)))
    expect_true(all(cnt >= pmax(1, floor(frac * n_c)) & cnt <= floor(frac * n_c) + 1))
    expect_true(all(cnt < n_c))  # every class keeps test samples
    expect_identical(tr, e$stratified_split(labels, frac, seed = 3))
  }
  # Yale: 50 / 82 / 115 training images (floor() gave 45 / 75 / 105, i.e. 27 / 45 / 64 %)
  labels <- rep(1:15, each = 11)
  expect_equal(vapply(c(0.3, 0.5, 0.7), function(f) length(e$stratified_split(labels, f, 1)), 1),
               round(c(0.3, 0.5, 0.7) * 165))
})

test_that("seed-004: one SVM per dimension gives every map the accuracy of its own SVM", {
  skip_if_not_installed("e1071")
  e <- experiment_env("sparse-oos.R", "SPARSE_OOS_NO_MAIN")
  set.seed(7)
  lab <- rep(1:4, each = 15)
  Ytr <- matrix(rnorm(60 * 3), 60) + lab
  lte <- rep(1:4, each = 6)
  Yte <- list(a = matrix(rnorm(24 * 3), 24) + lte, b = matrix(rnorm(24 * 3, sd = 3), 24) + lte)
  shared <- e$svm_accuracy(Ytr, lab, Yte, lte)
  own <- vapply(Yte, function(Y) {
    sv <- e1071::svm(Ytr, factor(lab), kernel = "radial", scale = TRUE, gamma = 1 / 3, cost = 1)
    mean(as.character(stats::predict(sv, Y)) == as.character(lte))
  }, numeric(1))
  expect_identical(shared, own)
  expect_true(shared[["a"]] > shared[["b"]])  # the noisier test embedding is classified worse
})
