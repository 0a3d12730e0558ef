# The Nystrom path of lgrm() runs on the kept eigen-directions of the landmark
# kernel (the reduced formulation). It is not bit-identical to the explicit
# formulation of earlier builds (F = H Phi with one column per landmark,
# options(manifoldOOS.lgrm_nystrom = "explicit")): these tests bound the
# difference, check the exact limit and the invariances of the new kernels.

rel_diff <- function(a, b) max(abs(a - b)) / max(abs(b))

fit_both <- function(...) {
  new <- lgrm(...)
  old <- withr::with_options(list(manifoldOOS.lgrm_nystrom = "explicit"), lgrm(...))
  list(new = new, old = old)
}

test_that("reduced and explicit Nystrom formulations agree on a well-conditioned landmark kernel", {
  X <- swiss_roll(600, seed = 11)$x
  # narrow Gaussian: W_Z keeps all 120 eigenvalues (condition number ~ 10)
  f <- fit_both(X, 2, k = 10, sigma = 0.5, landmarks = 120, seed = 2)
  Wz <- manifoldOOS:::kernel_eval(f$new$kernel, X[f$new$landmarks, ])
  ev <- eigen(Wz, symmetric = TRUE, only.values = TRUE)$values
  expect_true(min(ev) > 1e-12 * max(ev))
  expect_lt(rel_diff(f$new$embedding, f$old$embedding), 1e-9)
  expect_lt(rel_diff(f$new$eigenvalues, f$old$eigenvalues), 1e-9)
  expect_lt(rel_diff(f$new$beta, f$old$beta), 1e-8)
  Xn <- swiss_roll(200, seed = 12)$x
  expect_lt(rel_diff(predict(f$new, Xn), predict(f$old, Xn)), 1e-9)
})

test_that("reduced and explicit Nystrom formulations agree on an ill-conditioned landmark kernel", {
  X <- swiss_roll(1500, seed = 13)$x
  # median bandwidth: most eigenvalues of W_Z fall below 1e-12 x the largest
  f <- fit_both(X, 2, k = 10, landmarks = 300, seed = 3)
  Wz <- manifoldOOS:::kernel_eval(f$new$kernel, X[f$new$landmarks, ])
  ev <- eigen(Wz, symmetric = TRUE, only.values = TRUE)$values
  expect_lt(sum(ev > 1e-12 * max(ev)), 200)  # genuinely rank-deficient
  expect_lt(rel_diff(f$new$embedding, f$old$embedding), 1e-7)
  expect_lt(rel_diff(f$new$eigenvalues, f$old$eigenvalues), 1e-7)
  Xn <- swiss_roll(300, seed = 14)$x
  expect_lt(rel_diff(predict(f$new, Xn), predict(f$old, Xn)), 1e-7)
  expect_lt(rel_diff(f$new$c, f$old$c), 1e-7)
})

test_that("with every row a landmark and a well-conditioned kernel the Nystrom fit is the exact fit", {
  X <- swiss_roll(400, seed = 4)$x
  fe <- lgrm(X, 2, k = 10, sigma = 0.3)
  fa <- lgrm(X, 2, k = 10, sigma = 0.3, landmarks = 400)
  expect_lt(rel_diff(fa$embedding, fe$embedding), 1e-9)
  expect_lt(rel_diff(fa$eigenvalues, fe$eigenvalues), 1e-9)
  Xn <- swiss_roll(300, seed = 5)$x
  expect_lt(rel_diff(predict(fa, Xn), predict(fe, Xn)), 1e-9)
})

test_that("the reduced Nystrom fit does not depend on the number of threads", {
  X <- swiss_roll(3000, seed = 6)$x
  f1 <- withr::with_options(list(manifoldOOS.threads = 1L), lgrm(X, 2, k = 10, landmarks = 250, seed = 7))
  f2 <- withr::with_options(list(manifoldOOS.threads = 2L), lgrm(X, 2, k = 10, landmarks = 250, seed = 7))
  expect_identical(f1$embedding, f2$embedding)
  expect_identical(f1$beta, f2$beta)
  expect_identical(f1$c, f2$c)
})

test_that("a user kernel function takes the same reduced path as the built-in kernel", {
  X <- swiss_roll(800, seed = 8)$x
  s <- 2
  # eq. 17 of the paper (no factor 2), as the built-in "rbf"
  kf <- function(a, b) exp(-pmax(outer(rowSums(a^2), rowSums(b^2), "+") - 2 * tcrossprod(a, b), 0) / s^2)
  fu <- lgrm(X, 2, k = 10, kernel = kf, landmarks = 150, seed = 9)
  fb <- lgrm(X, 2, k = 10, sigma = s, landmarks = 150, seed = 9)
  expect_lt(rel_diff(fu$embedding, fb$embedding), 1e-7)
  fo <- withr::with_options(list(manifoldOOS.lgrm_nystrom = "explicit"),
                            lgrm(X, 2, k = 10, kernel = kf, landmarks = 150, seed = 9))
  expect_lt(rel_diff(fu$embedding, fo$embedding), 1e-7)
})

test_that("options(manifoldOOS.lgrm_nystrom) is checked", {
  X <- swiss_roll(200, seed = 10)$x
  withr::with_options(list(manifoldOOS.lgrm_nystrom = "folded"),
                      expect_input_error(lgrm(X, 2, k = 10, landmarks = 30, seed = 1), "lgrm_nystrom"))
})
