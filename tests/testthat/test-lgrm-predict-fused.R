# The Gaussian-kernel map of LGRM's predict() (methods/lgrm_predict_rbf.h on
# CPUs with AVX2/FMA, the portable path elsewhere): y = beta' exp(cr |x - b|^2) + c.

lgrm_map <- function(B, beta, c, Xn, sigma, threads = 1L) {
  manifoldOOS:::.mo_lgrm_predict(B, beta, c, Xn, "rbf", sigma, 1, 1, 2, threads)
}

test_that("the map's exponential agrees with exp() to 2 ulp over [-708, 0], ends included", {
  # one landmark at the origin with coefficient 1: y = exp(v) with v the
  # exponent exactly as the kernel forms it (x = j/64; lgrm_map_exponent())
  set.seed(21)
  fused <- lgrm_fused_cpu()
  x <- c(0, 1 / 64, 0.5, 1, sample.int(64 * 75, 20000, replace = TRUE) / 64,
         floor(64 * sqrt(8 * 708)) / 64)
  y <- lgrm_map(matrix(0, 1, 2), matrix(1, 1, 1), 0, cbind(x, 0), sigma = 2)
  ref <- exp(pmax(lgrm_map_exponent(x, 2, fused), -708))
  expect_lt(max(abs(y - ref) / ref), 2 * .Machine$double.eps)
  expect_identical(y[1], 1)
  # the exponent -708 itself (x^2 / 8 = 708 exactly for x = sqrt(5664); the
  # fused paths' scaled exponent is within a few units of it, or clamped)
  x708 <- sqrt(5664)
  expect_lt(abs(lgrm_map(matrix(0, 1, 1), matrix(1, 1, 1), 0, matrix(x708), 2) /
                  exp(max(lgrm_map_exponent(x708, 2, fused), -708)) - 1),
            4 * .Machine$double.eps)
  # beyond the clamp: exp(-708), never 0, negative or NaN
  far <- lgrm_map(matrix(0, 1, 1), matrix(1, 1, 1), 0, matrix(c(100, 1e3, 1e150)), 2)
  expect_true(all(far > 0 & far <= exp(-707.9)))
})

test_that("the map equals the dense formula for several dimensions, outputs and landmark counts", {
  set.seed(22)
  for (d in c(1L, 3L, 7L)) for (q in c(1L, 2L, 3L, 5L, 20L)) for (m in c(1L, 9L, 64L, 203L)) {
    with(lgrm_map_case(d, q, m, 37), {
      y <- lgrm_map(B, beta, cc, Xn, sigma = 1.3)
      ref <- c(lgrm_map_reference(B, beta, cc, Xn, 1.3))
      expect_lt(max(abs(y - ref)) / max(abs(ref)), 1e-12, label = sprintf("d = %d, q = %d, m = %d", d, q, m))
    })
  }
})

test_that("a row alone equals the same row in a batch, and threads do not change the map", {
  set.seed(23)
  for (q in c(2L, 20L)) {
    B <- matrix(rnorm(333 * 3), 333)
    beta <- matrix(rnorm(333 * q), 333)
    cc <- rnorm(q)
    Xn <- matrix(rnorm(5000 * 3), 5000)
    yb <- lgrm_map(B, beta, cc, Xn, 0.8, threads = 2L)
    for (i in c(1L, 2L, 4097L, 5000L)) {
      expect_identical(lgrm_map(B, beta, cc, Xn[i, , drop = FALSE], 0.8), yb[i, , drop = FALSE])
    }
    expect_identical(lgrm_map(B, beta, cc, Xn, 0.8, threads = 1L), yb)
    expect_identical(lgrm_map(B, beta, cc, Xn[4001:4500, ], 0.8, threads = 2L), yb[4001:4500, ])
  }
})
