# Synthetic generators: defining equations on noise-free data, ranges,
# reproducibility, RNG hygiene, row order and validation.

tol <- 1e-12

expect_generator_shape <- function(g, n, truth_cols) {
  expect_true(is.matrix(g$x))
  expect_identical(dim(g$x), c(as.integer(n), 3L))
  expect_identical(colnames(g$x), c("x", "y", "z"))
  expect_identical(typeof(g$x), "double")
  expect_identical(colnames(g$truth), truth_cols)
  expect_identical(nrow(g$truth), as.integer(n))
  expect_length(g$color, n)
  expect_true(is.list(g$params))
  expect_identical(g$params$n, as.integer(n))
}

test_that("Swiss roll satisfies x = t cos t, y = h, z = c t sin t in every convention", {
  h_max <- c(drtoolbox = 30, sklearn = 21, wittman = 21)
  for (cv in names(h_max)) {
    g <- swiss_roll(500, convention = cv, seed = 11)
    expect_generator_shape(g, 500, c("t", "h"))
    t <- g$truth[, "t"]
    h <- g$truth[, "h"]
    expect_lt(max(abs(g$x[, 1] - t * cos(t))), tol)
    expect_lt(max(abs(g$x[, 2] - h)), tol)
    expect_lt(max(abs(g$x[, 3] - t * sin(t))), tol)
    expect_true(all(t >= 1.5 * pi & t <= 4.5 * pi))
    expect_true(all(h >= 0 & h <= h_max[[cv]]))
    # the sample fills the range (not a narrower one)
    expect_gt(max(h), 0.95 * h_max[[cv]])
    expect_gt(diff(range(t)), 0.95 * 3 * pi)
    expect_identical(g$color, t)
    expect_identical(g$params$convention, cv)
    expect_identical(g$params$h_range, c(0, h_max[[cv]]))
  }
  w <- swiss_roll(300, convention = "wittman", z_scale = 2.5, seed = 1)
  t <- w$truth[, "t"]
  expect_lt(max(abs(w$x[, 3] - 2.5 * t * sin(t))), 1e-11)
  expect_identical(w$params$z_scale, 2.5)
})

test_that("Swiss roll truth_isometric is the arc length of the cross-section", {
  g <- swiss_roll(400, seed = 2)
  t <- g$truth[, "t"]
  s <- g$truth_isometric[, "s"]
  expect_identical(colnames(g$truth_isometric), c("s", "h"))
  expect_identical(g$truth_isometric[, "h"], g$truth[, "h"])
  expect_lt(max(abs(s - 0.5 * (t * sqrt(1 + t^2) + asinh(t)))), 1e-12)
  # independent check: polyline length of the spiral between two angles
  poly_len <- function(a, b, c = 1, m = 2e5) {
    u <- seq(a, b, length.out = m)
    sum(sqrt(diff(u * cos(u))^2 + diff(c * u * sin(u))^2))
  }
  i <- which.min(t); j <- which.max(t)
  expect_equal(s[j] - s[i], poly_len(t[i], t[j]), tolerance = 1e-8)
  # z_scale != 1: quadrature-based arc length, checked against the polyline
  w <- swiss_roll(200, convention = "wittman", z_scale = 0.5, seed = 3)
  tw <- w$truth[, "t"]
  sw <- w$truth_isometric[, "s"]
  i <- which.min(tw); j <- which.max(tw)
  expect_equal(sw[j] - sw[i], poly_len(tw[i], tw[j], c = 0.5), tolerance = 1e-8)
  expect_equal(sw[i], poly_len(0, tw[i], c = 0.5), tolerance = 1e-8)
  expect_true(all(diff(sw[order(tw)]) > 0))
  # quadrature agrees with the closed form when c = 1
  tt <- seq(4.7, 14.1, length.out = 40)
  q <- manifoldOOS:::arc_length(tt, function(u) sqrt((cos(u) - u * sin(u))^2 + (sin(u) + u * cos(u))^2))
  expect_lt(max(abs(q - 0.5 * (tt * sqrt(1 + tt^2) + asinh(tt)))), 1e-10)
})

test_that("the Swiss hole is really empty (both hole conventions)", {
  g <- swiss_roll(4000, hole = TRUE, seed = 5)
  expect_generator_shape(g, 4000, c("t", "h"))
  t <- g$truth[, "t"]; h <- g$truth[, "h"]
  expect_identical(g$params$hole_convention, "wittman")
  expect_identical(g$params$hole_t, c(9, 12))
  expect_identical(g$params$hole_h, c(9, 14))
  expect_identical(sum(t > 9 & t < 12 & h > 9 & h < 14), 0L)
  # points do exist right around the hole, and heights are in [0, 21]
  expect_gt(sum(t > 9 & t < 12 & h < 9), 50)
  expect_gt(sum(t > 9 & t < 12 & h > 14), 50)
  expect_true(all(h >= 0 & h <= 21))
  expect_lt(max(abs(g$x[, 1] - t * cos(t))), tol)
  expect_lt(max(abs(g$x[, 3] - t * sin(t))), tol)

  s <- swiss_roll(4000, hole = TRUE, hole_convention = "sklearn", seed = 5)
  t <- s$truth[, "t"]; h <- s$truth[, "h"]
  expect_identical(sum(t > 2.5 * pi & t < 3.5 * pi & h > 7 & h < 14), 0L)
  cells <- table(factor(floor(t / pi - 1.5), 0:2), factor(floor(h / 7), 0:2))
  expect_identical(cells[2, 2], 0L)
  # the 8 remaining cells are about equally full (expected 500 each)
  expect_true(all(cells[-5] > 400 & cells[-5] < 600))
  expect_true(all(t >= 1.5 * pi & t <= 4.5 * pi & h >= 0 & h <= 21))
})

test_that("broken Swiss roll has a gap over the full height and keeps block order without shuffling", {
  g <- broken_swiss_roll(301, shuffle = FALSE, seed = 4)
  expect_generator_shape(g, 301, c("t", "h"))
  t <- g$truth[, "t"]; h <- g$truth[, "h"]
  expect_lt(max(abs(g$x[, 1] - t * cos(t))), tol)
  expect_lt(max(abs(g$x[, 2] - h)), tol)
  expect_lt(max(abs(g$x[, 3] - t * sin(t))), tol)
  expect_identical(sum(t > 2.7 * pi & t < 3.3 * pi), 0L)
  expect_true(all(t[1:151] >= 1.5 * pi & t[1:151] <= 2.7 * pi))
  expect_true(all(t[152:301] >= 3.3 * pi & t[152:301] <= 4.5 * pi))
  expect_identical(g$labels, rep(1:2, c(151L, 150L)))
  expect_true(all(h >= 0 & h <= 30))
  # shuffled: the same rows (same draws), permuted, with labels following
  s <- broken_swiss_roll(301, shuffle = TRUE, seed = 4)
  expect_false(identical(s$x, g$x))
  o1 <- order(g$x[, 1]); o2 <- order(s$x[, 1])
  expect_identical(s$x[o2, ], g$x[o1, ])
  expect_identical(s$labels[o2], g$labels[o1])
  expect_identical(s$truth[o2, ], g$truth[o1, ])
  expect_identical(s$truth[, "t"], s$color)
  expect_true(all((s$truth[, "t"] <= 2.7 * pi) == (s$labels == 1L)))
})

test_that("S-curve satisfies its parameterisation and its chart is isometric", {
  g <- s_curve(600, seed = 7)
  expect_generator_shape(g, 600, c("t", "y"))
  t <- g$truth[, "t"]
  expect_lt(max(abs(g$x[, 1] - sin(t))), tol)
  expect_lt(max(abs(g$x[, 2] - g$truth[, "y"])), tol)
  expect_lt(max(abs(g$x[, 3] - sign(t) * (cos(t) - 1))), tol)
  expect_true(all(abs(t) <= 1.5 * pi))
  expect_true(all(g$truth[, "y"] >= 0 & g$truth[, "y"] <= 2))
  expect_true(any(t < -4) && any(t > 4))
  # unit speed: chord length of the cross-section ~ |dt| for close parameters
  u <- sort(t)
  du <- diff(u)
  chord <- sqrt(diff(sin(u))^2 + diff(sign(u) * (cos(u) - 1))^2)
  small <- du < 0.01
  expect_lt(max(abs(chord[small] / du[small] - 1)), 1e-4)
})

test_that("Gaussian surface lies on z = exp(-(a^2+b^2)/(2 s^2)) / (2 pi s^2)", {
  for (sg in c(1, 0.5)) {
    g <- gaussian_surface(500, sigma = sg, seed = 8)
    expect_generator_shape(g, 500, c("a", "b"))
    a <- g$truth[, "a"]; b <- g$truth[, "b"]
    expect_identical(unname(g$x[, 1:2]), unname(g$truth))
    expect_lt(max(abs(g$x[, 3] - exp(-(a^2 + b^2) / (2 * sg^2)) / (2 * pi * sg^2))), tol)
    expect_equal(sd(a), sg, tolerance = 0.15)
    expect_identical(g$params$sigma, sg)
  }
})

test_that("twin peaks: both conventions and the tenfold z-noise of drtoolbox", {
  d <- twin_peaks(500, seed = 9)
  expect_generator_shape(d, 500, c("a", "b"))
  a <- d$truth[, "a"]; b <- d$truth[, "b"]
  expect_true(all(abs(a) <= 1 & abs(b) <= 1))
  expect_identical(unname(d$x[, 1:2]), unname(d$truth))
  expect_lt(max(abs(d$x[, 3] - 10 * sin(pi * a) * tanh(3 * b))), tol)
  w <- twin_peaks(500, convention = "wittman", z_scale = 2, seed = 9)
  expect_lt(max(abs(w$x[, 3] - 2 * sin(pi * w$truth[, 1]) * tanh(3 * w$truth[, 2]))), tol)
  # same draws of (a, b) in both conventions
  expect_identical(w$truth, d$truth)
  # noise: sd in x, y is `noise`, in z (drtoolbox) 10 * noise
  nz <- twin_peaks(20000, noise = 0.1, seed = 10)
  cl <- twin_peaks(20000, noise = 0, seed = 10)
  e <- nz$x - cl$x
  expect_equal(unname(apply(e, 2, sd)), c(0.1, 0.1, 1), tolerance = 0.03)
  expect_identical(nz$truth, cl$truth)
})

test_that("helix lies on the torus and follows its parameterisation", {
  g <- helix(400, shuffle = FALSE)
  expect_generator_shape(g, 400, "t")
  t <- g$truth[, "t"]
  expect_equal(t, 2 * pi * (1:400) / 400, tolerance = 1e-15)
  expect_lt(max(abs((sqrt(g$x[, 1]^2 + g$x[, 2]^2) - 2)^2 + g$x[, 3]^2 - 1)), tol)
  expect_lt(max(abs(g$x[, 1] - (2 + cos(8 * t)) * cos(t))), tol)
  expect_lt(max(abs(g$x[, 3] - sin(8 * t))), tol)
  # uneven sampling rate: t_i = 2 pi (i / n)^r, increasing, ending at 2 pi
  r <- helix(300, rate = 2, shuffle = FALSE)
  expect_equal(r$truth[, "t"], 2 * pi * ((1:300) / 300)^2, tolerance = 1e-15)
  # deterministic without noise when not shuffled, and shuffling permutes rows
  expect_identical(helix(400, shuffle = FALSE, seed = 1)$x, g$x)
  s <- helix(400, seed = 3)
  expect_false(identical(s$x, g$x))
  expect_identical(s$x[order(s$truth[, 1]), ], g$x)
  # with noise, the distance to the torus is of the order of the noise
  nz <- helix(2000, noise = 0.05, seed = 2)
  dist_torus <- abs(sqrt((sqrt(nz$x[, 1]^2 + nz$x[, 2]^2) - 2)^2 + nz$x[, 3]^2) - 1)
  expect_gt(mean(dist_torus), 0.01)
  expect_lt(mean(dist_torus), 0.1)
})

test_that("fishbowl lies on the unit sphere below z = 0.6 in both conventions", {
  for (cv in c("conformal", "uniform")) {
    g <- fishbowl(3000, convention = cv, seed = 12)
    expect_generator_shape(g, 3000, c("u", "v"))
    expect_lt(max(abs(rowSums(g$x^2) - 1)), tol)
    expect_true(all(g$x[, 3] <= 0.6 + 1e-15))
    expect_gt(max(g$x[, 3]), 0.55)
    u <- g$truth[, "u"]; v <- g$truth[, "v"]
    q <- u^2 + v^2
    expect_true(all(q <= 4 + 1e-12))
    # the chart maps to the points by inverse stereographic projection
    expect_lt(max(abs(g$x - cbind(2 * u, 2 * v, q - 1) / (q + 1))), tol)
    expect_identical(g$color, unname(g$x[, 3]))
  }
  # the conventions differ in density: z is uniform on [-1, 0.6] for the
  # uniform bowl (mean -0.2); r^2 is uniform on [0, 4] for the conformal one
  # (mean z = 1 - log(5) / 2)
  uz <- fishbowl(20000, convention = "uniform", seed = 13)$x[, 3]
  cz <- fishbowl(20000, convention = "conformal", seed = 13)$x[, 3]
  expect_equal(mean(uz), -0.2, tolerance = 0.01 / 0.2)
  expect_equal(mean(cz), 1 - log(5) / 2, tolerance = 0.01 / 0.2)
})

test_that("Moebius strip follows its parameterisation", {
  g <- mobius(500, seed = 14)
  expect_generator_shape(g, 500, c("u", "v"))
  u <- g$truth[, "u"]; v <- g$truth[, "v"]
  expect_true(all(u >= 0 & u <= 2 * pi & abs(v) <= 1))
  expect_gt(max(u), 6); expect_lt(min(u), 0.3)
  expect_gt(max(v), 0.9); expect_lt(min(v), -0.9)
  w <- 1 + (v / 2) * cos(u / 2)
  expect_lt(max(abs(g$x[, 1] - w * cos(u))), tol)
  expect_lt(max(abs(g$x[, 2] - w * sin(u))), tol)
  expect_lt(max(abs(g$x[, 3] - (v / 2) * sin(u / 2))), tol)
})

test_that("punctured sphere: on the sphere, grid points closest to the origin, deterministic", {
  g <- punctured_sphere(800, shuffle = FALSE)
  expect_generator_shape(g, 800, c("u", "v"))
  expect_lt(max(abs(g$x[, 1]^2 + g$x[, 2]^2 + (g$x[, 3] - 1)^2 - 1)), tol)
  u <- g$truth[, "u"]; v <- g$truth[, "v"]
  a <- 4 / (4 + u^2 + v^2)
  expect_lt(max(abs(g$x - cbind(a * u, a * v, 2 * (1 - a)))), tol)
  delta <- 9 / sqrt(800)
  expect_identical(g$params$delta, delta)
  # truth lies on the grid -5 + k delta inside [-5, 5]
  k <- (u + 5) / delta
  expect_lt(max(abs(k - round(k))), 1e-9)
  expect_true(all(abs(c(u, v)) <= 5 + 1e-12))
  # the kept grid points are the closest ones: no dropped point is closer
  grid <- -5 + delta * (0:floor(10 / delta + 1e-10))
  all_r2 <- outer(grid^2, grid^2, "+")
  r2 <- u^2 + v^2
  expect_lte(sum(all_r2 < max(r2)), 800)
  expect_true(all(diff(r2) >= 0))       # source order: by radius
  expect_false(anyDuplicated(g$truth) > 0)
  expect_lt(max(g$x[, 3]), 2)           # the puncture at the top
  expect_identical(punctured_sphere(800, shuffle = FALSE, seed = 99)$x, g$x)
  s <- punctured_sphere(800, seed = 1)
  expect_identical(sort(s$x[, 3]), sort(g$x[, 3]))
  # z_scale stretches the height only
  z2 <- punctured_sphere(800, z_scale = 3, shuffle = FALSE)
  expect_equal(z2$x[, 3], 3 * g$x[, 3], tolerance = 1e-15)
  # random convention: uniform in the disk of radius 9 / sqrt(pi)
  r <- punctured_sphere(2000, convention = "random", seed = 3)
  expect_true(all(rowSums(r$truth^2) <= 81 / pi + 1e-12))
  expect_lt(max(abs(r$x[, 1]^2 + r$x[, 2]^2 + (r$x[, 3] - 1)^2 - 1)), tol)
  expect_equal(mean(rowSums(r$truth^2)), 81 / pi / 2, tolerance = 0.05)
})

test_that("noise is isotropic Gaussian added after the map; truth stays noise-free", {
  cl <- swiss_roll(20000, seed = 21)
  nz <- swiss_roll(20000, noise = 0.3, seed = 21)
  expect_identical(nz$truth, cl$truth)
  e <- nz$x - cl$x
  expect_equal(unname(apply(e, 2, sd)), rep(0.3, 3), tolerance = 0.03)
  expect_lt(abs(cor(e[, 1], e[, 2])), 0.05)
  expect_identical(nz$params$noise, 0.3)
  m <- mobius(5000, noise = 0.2, seed = 22)
  m0 <- mobius(5000, seed = 22)
  expect_equal(sd(m$x - m0$x), 0.2, tolerance = 0.05)
})

test_that("same seed gives identical output; seed leaves the global RNG stream alone", {
  gens <- list(
    function(seed) swiss_roll(50, noise = 0.1, seed = seed),
    function(seed) swiss_roll(50, hole = TRUE, seed = seed),
    function(seed) swiss_roll(50, hole = TRUE, hole_convention = "sklearn", seed = seed),
    function(seed) broken_swiss_roll(50, noise = 0.1, seed = seed),
    function(seed) s_curve(50, noise = 0.1, seed = seed),
    function(seed) gaussian_surface(50, noise = 0.1, seed = seed),
    function(seed) twin_peaks(50, noise = 0.1, seed = seed),
    function(seed) helix(50, noise = 0.1, seed = seed),
    function(seed) fishbowl(50, noise = 0.1, seed = seed),
    function(seed) fishbowl(50, convention = "uniform", seed = seed),
    function(seed) mobius(50, noise = 0.1, seed = seed),
    function(seed) punctured_sphere(50, convention = "random", seed = seed)
  )
  for (f in gens) {
    expect_identical(f(5), f(5))
    expect_false(identical(f(5)$x, f(6)$x))
    set.seed(123)
    a <- runif(5)
    set.seed(123)
    invisible(f(77))
    b <- runif(5)
    expect_identical(a, b)
  }
  # seed = NULL draws from (and advances) the current stream
  set.seed(9); g1 <- swiss_roll(20); after1 <- runif(1)
  set.seed(9); g2 <- swiss_roll(20); after2 <- runif(1)
  expect_identical(g1, g2)
  expect_identical(after1, after2)
  set.seed(9); r0 <- runif(1)
  expect_false(identical(after1, r0))
  # with no RNG state at all, a seeded call creates none
  genv <- globalenv()
  saved <- get(".Random.seed", envir = genv)
  on.exit(assign(".Random.seed", saved, envir = genv), add = TRUE)
  rm(".Random.seed", envir = genv)
  invisible(s_curve(10, seed = 1))
  expect_false(exists(".Random.seed", envir = genv, inherits = FALSE))
  # the seed is recorded
  expect_identical(s_curve(10, seed = 4)$params$seed, 4L)
  expect_null(s_curve(10)$params$seed)
})

test_that("generator arguments are validated with classed errors naming the argument", {
  expect_input_error(swiss_roll(2), "`n`")
  expect_input_error(swiss_roll(10.5), "`n`")
  expect_input_error(swiss_roll("10"), "`n`")
  expect_input_error(swiss_roll(NA), "`n`")
  expect_input_error(swiss_roll(c(10, 20)), "`n`")
  expect_input_error(swiss_roll(10, noise = -0.1), "`noise`")
  expect_input_error(swiss_roll(10, noise = Inf), "`noise`")
  expect_input_error(swiss_roll(10, noise = NA), "`noise`")
  expect_input_error(swiss_roll(10, hole = NA), "`hole`")
  expect_input_error(swiss_roll(10, convention = "matlab"), "`convention`")
  expect_input_error(swiss_roll(10, hole = TRUE, hole_convention = "x"), "`hole_convention`")
  expect_input_error(swiss_roll(10, z_scale = 0), "`z_scale`")
  expect_input_error(swiss_roll(10, z_scale = 2), "`z_scale`")
  expect_input_error(swiss_roll(10, seed = 1.5), "`seed`")
  expect_input_error(swiss_roll(10, seed = "a"), "`seed`")
  expect_input_error(broken_swiss_roll(10, shuffle = "yes"), "`shuffle`")
  expect_input_error(broken_swiss_roll(1), "`n`")
  expect_input_error(s_curve(0), "`n`")
  expect_input_error(s_curve(10, noise = -1), "`noise`")
  expect_input_error(gaussian_surface(10, sigma = 0), "`sigma`")
  expect_input_error(twin_peaks(10, convention = "sklearn"), "`convention`")
  expect_input_error(twin_peaks(10, z_scale = 3), "`z_scale`")
  expect_input_error(helix(10, rate = 0), "`rate`")
  expect_input_error(helix(10, shuffle = NA), "`shuffle`")
  expect_input_error(fishbowl(10, convention = "polar"), "`convention`")
  expect_input_error(mobius(-5), "`n`")
  expect_input_error(punctured_sphere(10, convention = "grid"), "`convention`")
  expect_input_error(punctured_sphere(10, z_scale = -1), "`z_scale`")
  # partial matching of conventions, as match.arg does
  expect_identical(swiss_roll(10, convention = "sk", seed = 1)$params$convention, "sklearn")
})
