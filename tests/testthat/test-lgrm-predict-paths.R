# The three paths of LGRM's Gaussian-kernel map (methods/lgrm_predict_rbf.h):
# "avx512" (CPUs with AVX-512F), "avx2" (AVX2/FMA) and "portable", chosen with
# the environment variable MANIFOLDOOS_LGRM_KERNEL (a path the CPU lacks falls
# back to the best one below it, so every block runs on any machine).

paths <- c("avx512", "avx2", "portable")
with_path <- function(path, expr) {
  old <- Sys.getenv("MANIFOLDOOS_LGRM_KERNEL", unset = NA)
  on.exit(if (is.na(old)) Sys.unsetenv("MANIFOLDOOS_LGRM_KERNEL") else Sys.setenv(MANIFOLDOOS_LGRM_KERNEL = old))
  Sys.setenv(MANIFOLDOOS_LGRM_KERNEL = path)
  force(expr)
}
map_on <- function(path, B, beta, c, Xn, sigma, threads = 1L) {
  with_path(path, manifoldOOS:::.mo_lgrm_predict(B, beta, c, Xn, "rbf", sigma, 1, 1, 2, threads))
}
cpu_flags <- function() {
  l <- tryCatch(grep("^flags", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE), error = function(e) character())
  if (length(l)) strsplit(sub(".*:", "", l[1]), " ")[[1]] else character()
}
# distance in units in the last place of the double ref (ref > 0, normal)
ulps <- function(y, ref) abs(y - ref) / 2^(floor(log2(ref)) - 52)

test_that("every path's exponential is within 2 ulp of exp() over [-708, 0], ends included", {
  # one landmark at the origin, coefficient 1, sigma = 2: y = exp(-x^2 / 8) with
  # the argument exact (x has at most 26 significant bits, so x^2 is exact)
  set.seed(31)
  x <- c(0, 2^-19, 0.5, 1, sample.int(75 * 2^19, 60000, replace = TRUE) / 2^19)
  x <- x[x^2 / 8 <= 708]
  # arguments near the ends of each reduction interval: v = -x^2 / 8 close to
  # multiples of ln2 / 32 (x rounded to 26 bits, so v stays exact)
  v_ends <- -(1:4000) * log(2) / 32
  x_ends <- round(sqrt(-8 * v_ends) * 2^19) / 2^19
  x_ends <- x_ends[x_ends^2 / 8 <= 708]
  for (p in paths) {
    # the exponent as the path forms it (the fused paths scale by sqrt(-cr))
    fused <- p != "portable" && lgrm_fused_cpu()
    y <- map_on(p, matrix(0, 1, 1), matrix(1, 1, 1), 0, cbind(x), sigma = 2)
    expect_lte(max(ulps(y, exp(pmax(lgrm_map_exponent(x, 2, fused), -708)))), 2, label = p)
    expect_identical(y[1], 1, label = p)
    ye <- map_on(p, matrix(0, 1, 1), matrix(1, 1, 1), 0, cbind(x_ends), sigma = 2)
    expect_lte(max(ulps(ye, exp(pmax(lgrm_map_exponent(x_ends, 2, fused), -708)))), 2, label = p)
    # the clamp: the exponent -708 itself (x = sqrt(5664) on one axis; exact on
    # the portable path, clamped or within a few units of -708 on the fused
    # ones) and beyond it exp(-708), positive and finite
    at <- map_on(p, matrix(0, 1, 1), matrix(1, 1, 1), 0, matrix(sqrt(5664)), 2)
    expect_lte(ulps(at, exp(max(lgrm_map_exponent(sqrt(5664), 2, fused), -708))), 2, label = p)
    far <- map_on(p, matrix(0, 1, 3), matrix(1, 1, 1), 0, cbind(c(100, 1e3, 1e150), 0, 0), 2)
    expect_lte(max(ulps(far, exp(-708))), 2, label = p)
    expect_identical(as.vector(far), rep(far[1], 3), label = p)
  }
})

test_that("the paths agree with each other and with the dense formula to 1e-13", {
  set.seed(32)
  for (d in c(1L, 3L, 6L)) for (q in c(1L, 2L, 3L, 4L, 18L)) for (m in c(1L, 15L, 17L, 130L)) {
    with(lgrm_map_case(d, q, m, 29, sd = 1.5), {
    sigma <- 0.9
    ref <- lgrm_map_reference(B, beta, cc, Xn, sigma)
    scale <- attr(ref, "scale")  # the size of the summands
    ys <- lapply(paths, map_on, B = B, beta = beta, c = cc, Xn = Xn, sigma = sigma)
    lab <- sprintf("d = %d, q = %d, m = %d", d, q, m)
    for (i in seq_along(paths)) {
      expect_lt(max(abs(ys[[i]] - ref) / scale), 1e-13, label = paste(paths[i], lab))
    }
    expect_lt(max(abs(ys[[1]] - ys[[2]]) / scale), 1e-13, label = paste("avx512 vs avx2", lab))
    expect_lt(max(abs(ys[[2]] - ys[[3]]) / scale), 1e-13, label = paste("avx2 vs portable", lab))
    })
  }
})

test_that("on every path a row alone equals the same row in a batch, and threads and chunks do not matter", {
  set.seed(33)
  B <- matrix(rnorm(301 * 3), 301)
  Xn <- matrix(rnorm(4200 * 3), 4200)
  for (q in c(2L, 17L)) {
    beta <- matrix(rnorm(301 * q), 301)
    cc <- rnorm(q)
    for (p in paths) {
      yb <- map_on(p, B, beta, cc, Xn, 0.7, threads = 2L)
      for (i in c(1L, 2L, 65L, 4200L)) {
        expect_identical(map_on(p, B, beta, cc, Xn[i, , drop = FALSE], 0.7), yb[i, , drop = FALSE],
                         label = sprintf("%s, q = %d, row %d", p, q, i))
      }
      expect_identical(map_on(p, B, beta, cc, Xn, 0.7, threads = 1L), yb, label = p)
      chunks <- split(seq_len(nrow(Xn)), rep(1:3, c(1000L, 3199L, 1L)))
      yc <- do.call(rbind, lapply(chunks, function(ix) map_on(p, B, beta, cc, Xn[ix, , drop = FALSE], 0.7, 2L)))
      expect_identical(yc, yb, label = p)
    }
  }
})

test_that("predict() of an LGRM fit takes the chosen path, chunked or not", {
  set.seed(34)
  X <- swiss_roll(300, seed = 3)$x
  fit <- lgrm(X, 2, k = 8, landmarks = 120)
  Xn <- X[1:500 %% 300 + 1, ] + matrix(rnorm(1500, sd = 0.1), 500)
  for (p in paths) {
    y <- with_path(p, predict(fit, Xn))
    expect_identical(with_path(p, predict(fit, Xn, chunk_size = 64)), y, label = p)
    expect_identical(unname(y[, 1:2]),
                     map_on(p, fit$basis, fit$beta, fit$c, Xn, fit$kernel$sigma, threads = 1L),
                     label = p)
  }
})

test_that("the environment variable selects distinct code on a CPU that has the fast paths", {
  flags <- cpu_flags()
  skip_if_not(all(c("avx2", "fma") %in% flags), "no AVX2/FMA on this CPU")
  set.seed(35)
  B <- matrix(rnorm(200 * 3), 200)
  beta <- matrix(rnorm(400), 200)
  Xn <- matrix(rnorm(3000), 1000)
  y2 <- map_on("avx2", B, beta, c(0, 0), Xn, 1)
  yp <- map_on("portable", B, beta, c(0, 0), Xn, 1)
  # different exponentials: some of 2000 outputs differ in their last bits
  expect_false(identical(y2, yp))
  if ("avx512f" %in% flags) expect_false(identical(map_on("avx512", B, beta, c(0, 0), Xn, 1), y2))
  expect_identical(map_on("auto", B, beta, c(0, 0), Xn, 1),
                   if ("avx512f" %in% flags) map_on("avx512", B, beta, c(0, 0), Xn, 1) else y2)
})

test_that("an unknown MANIFOLDOOS_LGRM_KERNEL is a classed error naming the variable", {
  fit <- lgrm(swiss_roll(120, seed = 4)$x, 2, k = 8)
  err <- with_path("avx1024", tryCatch(predict(fit, matrix(0, 1, 3)), error = identity))
  expect_s3_class(err, "manifoldOOS_input_error")
  expect_identical(err$arg, "MANIFOLDOOS_LGRM_KERNEL")
  expect_match(conditionMessage(err), "\"avx2\"", fixed = TRUE)
})
