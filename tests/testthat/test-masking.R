# Results of functions that mask manifoldOOS functions of the same name
# (kernlab's kpca(), vegan's isomap()) given to manifoldOOS: the error says so.

test_that("a kernlab kpca object given to manifoldOOS names the masking", {
  skip_if_not_installed("kernlab")
  set.seed(1)
  X <- matrix(stats::rnorm(120), 40)
  kl <- suppressWarnings(kernlab::kpca(X, features = 2))
  expect_true(methods::is(kl, "kpca"))
  for (call in list(quote(embedding(kl)), quote(assess(kl, X = X)),
                    quote(oos_map(X, kl, method = "linear")),
                    quote(plot_rnx(X, list(kernlab = kl))))) {
    err <- expect_error(eval(call), class = "manifoldOOS_input_error")
    expect_match(conditionMessage(err), "from package kernlab: kernlab::kpca() masks manifoldOOS::kpca()",
                 fixed = TRUE)
    expect_match(conditionMessage(err), "Call manifoldOOS::kpca() instead.", fixed = TRUE)
  }
  # our own fit is accepted by the same calls
  fit <- manifoldOOS::kpca(X, ndim = 2)
  expect_identical(dim(embedding(fit)), c(40L, 2L))
})

test_that("a vegan isomap object given to manifoldOOS names the clash", {
  skip_if_not_installed("vegan")
  set.seed(2)
  X <- matrix(stats::rnorm(150), 50)
  vi <- vegan::isomap(stats::dist(X), ndim = 2, k = 10)
  expect_s3_class(vi, "isomap")
  err <- expect_error(embedding(vi), class = "manifoldOOS_input_error")
  expect_match(conditionMessage(err), "'isomap' object", fixed = TRUE)
  expect_match(conditionMessage(err), "manifoldOOS::isomap()", fixed = TRUE)
  # other foreign objects get the plain message, without a masking sentence
  err <- expect_error(embedding(stats::lm(X[, 1] ~ X[, 2])), class = "manifoldOOS_input_error")
  expect_false(grepl("mask", conditionMessage(err)))
  expect_match(conditionMessage(err), "not an object of class 'lm'", fixed = TRUE)
})

test_that("the package's own calls are not affected by masking", {
  skip_if_not_installed("kernlab")
  skip_if_not_installed("vegan")
  code <- c(
    "suppressPackageStartupMessages({library(manifoldOOS); library(kernlab); library(vegan)})",
    "stopifnot(identical(find('kpca')[1], 'package:kernlab'))",
    "X <- swiss_roll(200, seed = 1)$x",
    "r <- rnx_auc(X, embedding(manifoldOOS::isomap(X, 2, k = 8)))",
    "msg <- tryCatch(embedding(kpca(X, features = 2)), error = conditionMessage)",
    "cat(r > 0.5, grepl('kernlab::kpca() masks manifoldOOS::kpca()', msg, fixed = TRUE), sep = ',')")
  f <- tempfile(fileext = ".R")
  on.exit(unlink(f), add = TRUE)
  writeLines(code, f)
  out <- system2(file.path(R.home("bin"), "Rscript"), f, stdout = TRUE, stderr = FALSE,
                 env = c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)), "TZ=UTC"))
  expect_identical(utils::tail(out, 1), "TRUE,TRUE")
})
