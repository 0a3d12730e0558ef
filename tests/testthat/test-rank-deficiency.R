# LTSA's and LGRM's local rank tests go through the Gram matrix of a clique,
# which resolves singular values only down to about 1e-8 of the largest: the
# tests compare s_ndim with 1e-6 s_1, so data of local rank 1 fitted with
# ndim = 2 are flagged, and well-sampled 2-D data are not.

line_data <- function(n = 300) {
  t <- seq(0, 10, length.out = n)
  cbind(t, 2 * t, -t)  # exactly collinear: every clique has rank 1
}

helix_data <- function(n = 400) {
  t <- seq(0, 4 * pi, length.out = n)
  cbind(cos(t), sin(t), t / 3)  # a smooth curve: local rank 1 up to curvature
}

test_that("LTSA flags every neighbourhood of collinear data fitted with ndim = 2", {
  X <- line_data()
  expect_warning(f <- ltsa(X, 2, k = 10), class = "manifoldOOS_warning", regexp = "local rank below")
  expect_equal(f$n_rank_deficient, nrow(X))
  expect_warning(f1 <- ltsa(X, 1, k = 10), NA)
  expect_equal(f1$n_rank_deficient, 0L)
})

test_that("LTSA does not flag a well-sampled Swiss roll", {
  X <- swiss_roll(800, seed = 3)$x
  expect_warning(f <- ltsa(X, 2, k = 10), NA)
  expect_equal(f$n_rank_deficient, 0L)
})

test_that("LGRM counts rank-deficient cliques on collinear data, none on a roll", {
  X <- line_data()
  f <- suppressWarnings(lgrm(X, 2, k = 10, sigma = 5))
  expect_equal(f$n_rank_deficient, nrow(X))
  f1 <- suppressWarnings(lgrm(X, 1, k = 10, sigma = 5))
  expect_equal(f1$n_rank_deficient, 0L)
  R <- swiss_roll(600, seed = 4)$x
  expect_equal(lgrm(R, 2, k = 10, sigma = 10)$n_rank_deficient, 0L)
})

test_that("the threshold sits between rank-1 cliques and curved cliques", {
  # a helix sampled densely: each 10-point clique is nearly straight, its second
  # singular value a small multiple of the first, well above 1e-6
  X <- helix_data()
  f <- suppressWarnings(ltsa(X, 2, k = 10))
  expect_equal(f$n_rank_deficient, 0L)
  # the same helix squeezed to 1e-9 of its curvature (x, y scaled): rank 1 to
  # within the Gram matrix's resolution, flagged
  Y <- cbind(1e-9 * X[, 1:2], X[, 3])
  expect_warning(g <- ltsa(Y, 2, k = 10), class = "manifoldOOS_warning")
  expect_gt(g$n_rank_deficient, 0L)
})
