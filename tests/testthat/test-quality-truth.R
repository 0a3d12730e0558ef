# affine_r2(), loop_misplaced(), arc_misplaced() (spec 000 section 9).

test_that("affine_r2 is 1 for any affine image of the truth and matches lm()", {
  set.seed(1)
  Z <- matrix(rnorm(200), 100)
  A <- matrix(c(2, 0.5, -1, 3), 2)         # rotation + shear + anisotropic scale
  expect_equal(affine_r2(Z %*% A + 7, Z), 1, tolerance = 1e-12)
  expect_equal(affine_r2(Z, Z %*% A - 2), 1, tolerance = 1e-12)
  Y <- cbind(Z[, 1] + rnorm(100, sd = 0.3), rnorm(100))
  # pooled over the columns of truth: 1 - sum RSS / sum TSS, as two lm() fits
  rss <- sum(sapply(1:2, function(j) sum(resid(lm(Z[, j] ~ Y))^2)))
  tss <- sum(scale(Z, scale = FALSE)^2)
  expect_equal(affine_r2(Y, Z), 1 - rss / tss, tolerance = 1e-12)
  # an unrelated embedding explains almost nothing
  expect_lt(affine_r2(matrix(rnorm(2000), 1000), matrix(rnorm(2000), 1000)), 0.02)
  expect_input_error(affine_r2(Z[1:10, ], Z), "Y")
  expect_input_error(affine_r2(Z, matrix(1, 100, 2)), "truth")
})

test_that("affine_r2 separates an unrolled Swiss roll from PCA", {
  roll <- swiss_roll(500, convention = "wittman", seed = 2)
  expect_gt(affine_r2(roll$truth_isometric * 3 + 1, roll$truth_isometric), 1 - 1e-12)
  expect_lt(affine_r2(pca(roll$x, 2)$embedding, roll$truth_isometric), 0.9)
})

test_that("loop_misplaced: 0 for an ordered ring whatever the start, direction and rotation", {
  a <- seq(0, 2 * pi, length.out = 61)[-61]
  ring <- cbind(cos(a), 2 * sin(a)) + 5
  expect_identical(loop_misplaced(ring), 0L)
  expect_identical(loop_misplaced(ring[c(20:60, 1:19), ]), 0L)    # other start
  expect_identical(loop_misplaced(ring[60:1, ]), 0L)              # other direction
  R <- matrix(c(cos(1), sin(1), -sin(1), cos(1)), 2)
  expect_identical(loop_misplaced(ring %*% R), 0L)
  # swapping two far-apart frames misplaces exactly those two
  sw <- ring
  sw[c(5, 35), ] <- ring[c(35, 5), ]
  expect_identical(loop_misplaced(sw), 2L)
  # tol = 0.5: nothing can be further than half the loop
  expect_identical(loop_misplaced(sw, tol = 0.5), 0L)
  expect_input_error(loop_misplaced(ring[, 1, drop = FALSE]), "Y")
  expect_input_error(loop_misplaced(ring, tol = -1), "tol")
})

test_that("arc_misplaced: invariant to direction, counts displaced frames, Spearman attached", {
  x <- cbind(seq_len(40) / 7, 0)
  expect_identical(as.integer(arc_misplaced(x)), 0L)
  expect_identical(as.integer(arc_misplaced(-x)), 0L)
  expect_equal(attr(arc_misplaced(x), "spearman"), 1)
  y <- x
  y[c(3, 30), 1] <- x[c(30, 3), 1]
  expect_identical(as.integer(arc_misplaced(y)), 2L)
  expect_lt(attr(arc_misplaced(y), "spearman"), 1)
})
