# Synthetic manifold data generators.
#
# Every generator returns a list with
#   x      n x 3 matrix (columns x, y, z), noise included;
#   truth  the noise-free generating coordinates (matrix, named columns);
#   color  one number per point for plotting;
#   params every constant used, including the convention;
# plus `labels` where the source defines classes. Random numbers come from
# R's generator; `seed` makes a call reproducible without disturbing the
# caller's random number stream.

# ---------------------------------------------------------------------------
# Shared helpers

# Evaluate `expr` with set.seed(seed) and restore the caller's RNG state
# afterwards; with seed = NULL, just evaluate it in the current stream.
with_seed_mo <- function(seed, expr) {
  if (is.null(seed)) return(expr)
  genv <- globalenv()
  had_seed <- exists(".Random.seed", envir = genv, inherits = FALSE)
  old_seed <- if (had_seed) get(".Random.seed", envir = genv, inherits = FALSE) else NULL
  # .Random.seed also encodes the generator kinds, so restoring it restores them.
  on.exit({
    if (had_seed) {
      assign(".Random.seed", old_seed, envir = genv)
    } else if (exists(".Random.seed", envir = genv, inherits = FALSE)) {
      rm(".Random.seed", envir = genv)
    }
  }, add = TRUE)
  set.seed(seed)
  expr
}

check_seed <- function(seed, arg = "seed") {
  if (is.null(seed)) return(NULL)
  check_number(seed, arg, lower = -.Machine$integer.max, upper = .Machine$integer.max,
                integer = TRUE)
}

check_n_points <- function(n, arg = "n") check_number(n, arg, lower = 3, integer = TRUE)

check_noise <- function(noise, arg = "noise") check_number(noise, arg, lower = 0)

# The arguments every manifold generator takes, checked in the generator's
# frame (which must have `n`, `noise` and `seed`).
check_generator_args <- function(env = parent.frame()) {
  env$n <- check_n_points(env$n)
  env$noise <- check_noise(env$noise)
  env$seed <- check_seed(env$seed)
  invisible(NULL)
}

# Matrix with columns x, y, z.
xyz <- function(a, b, c) {
  m <- cbind(a, b, c)
  dimnames(m) <- list(NULL, c("x", "y", "z"))
  storage.mode(m) <- "double"
  m
}

named_cols <- function(m, names) {
  m <- as.matrix(m)
  storage.mode(m) <- "double"
  dimnames(m) <- list(NULL, names)
  m
}

# Isotropic Gaussian noise after the manifold map (drawn column by column,
# like MATLAB's randn(n, 3)).
add_noise <- function(x, noise) {
  if (noise > 0) x <- x + noise * matrix(stats::rnorm(length(x)), nrow(x), ncol(x))
  x
}

# Apply one row permutation to every per-point element of a result.
permute_result <- function(res, perm) {
  res$x <- res$x[perm, , drop = FALSE]
  res$truth <- res$truth[perm, , drop = FALSE]
  res$color <- res$color[perm]
  if (!is.null(res$truth_isometric)) res$truth_isometric <- res$truth_isometric[perm, , drop = FALSE]
  if (!is.null(res$labels)) res$labels <- res$labels[perm]
  res
}

# 5-point Gauss-Legendre nodes and weights on [-1, 1].
gl5 <- local({
  a <- sqrt(5 - 2 * sqrt(10 / 7)) / 3
  b <- sqrt(5 + 2 * sqrt(10 / 7)) / 3
  wa <- (322 + 13 * sqrt(70)) / 900
  wb <- (322 - 13 * sqrt(70)) / 900
  list(x = c(-b, -a, 0, a, b), w = c(wb, wa, 128 / 225, wa, wb))
})

# Integral of speed(s) over [lo, hi] (vectors) by 5-point Gauss-Legendre.
gl_integral <- function(speed, lo, hi) {
  half <- (hi - lo) / 2
  mid <- (hi + lo) / 2
  out <- numeric(length(lo))
  for (j in 1:5) out <- out + gl5$w[j] * speed(mid + half * gl5$x[j])
  out * half
}

# Arc length s(t) = int_0^t speed(u) du for t >= 0: exact sums over panels
# of width `step`, then the partial panel.
arc_length <- function(t, speed, step = 0.05) {
  if (!length(t)) return(numeric(0))
  m <- ceiling(max(t) / step) + 1L
  edges <- step * (0:m)
  cum <- c(0, cumsum(gl_integral(speed, edges[-(m + 1L)], edges[-1L])))
  k <- pmin(floor(t / step), m - 1L)
  cum[k + 1L] + gl_integral(speed, edges[k + 1L], t)
}

# Closed-form arc length of the Archimedean spiral (t cos t, t sin t).
spiral_arc_length <- function(t) 0.5 * (t * sqrt(1 + t^2) + asinh(t))

# ---------------------------------------------------------------------------
# Swiss roll and Swiss hole

#' Swiss roll (optionally with a hole)
#'
#' Points on the Swiss roll \eqn{(t\cos t,\ h,\ c\,t\sin t)}, the standard
#' test manifold of nonlinear dimension reduction, following one of three
#' published conventions, and the "Swiss hole" (a Swiss roll with a
#' rectangular piece of its parameter domain removed).
#'
#' Conventions (`U` is uniform on \[0, 1\]):
#' * `"drtoolbox"` (default): \eqn{t = (3\pi/2)(1 + 2U)}, \eqn{h = 30U}
#'   (van der Maaten's Matlab Toolbox for Dimensionality Reduction; its
#'   default noise is 0.05).
#' * `"sklearn"`: \eqn{t = 1.5\pi(1 + 2U)}, \eqn{h = 21U} (scikit-learn's
#'   `make_swiss_roll`).
#' * `"wittman"`: \eqn{t = (3\pi/2)(1 + 2U)}, \eqn{h = 21U}, \eqn{z} scaled
#'   by `z_scale` (Todd Wittman's `mani.m` demo).
#'
#' With `hole = TRUE` the sample follows `hole_convention` (both have
#' heights in \[0, 21\]; `convention` is then ignored and `params$convention`
#' records `hole_convention`):
#' * `"wittman"` (default; Donoho and Grimes' example): `2n` candidates of
#'   the Wittman roll, those with \eqn{9 < t < 12} and \eqn{9 < h < 14}
#'   dropped, the first `n` survivors kept (more candidates are drawn in the
#'   rare case that fewer than `n` survive).
#' * `"sklearn"`: the rectangle \eqn{[1.5\pi, 4.5\pi] \times [0, 21]} is cut
#'   into 3 x 3 cells and the centre cell removed; each point falls uniformly
#'   in one of the 8 other cells, chosen uniformly.
#'
#' The chart \eqn{(t, h)} is not isometric; `truth_isometric` replaces `t` by
#' the arc length \eqn{s(t) = \int_0^t \|\gamma'(u)\| du} of the cross-section
#' curve \eqn{\gamma(u) = (u\cos u, c\,u\sin u)}, which for \eqn{c = 1} is
#' \eqn{\frac12(t\sqrt{1+t^2} + \mathrm{asinh}\,t)} (computed by quadrature
#' otherwise). Use it for ground-truth and Procrustes errors.
#'
#' Gaussian noise of standard deviation `noise` is added to all three
#' coordinates after the map; `truth` is always noise-free.
#'
#' @param n Number of points (a whole number, at least 3).
#' @param noise Standard deviation of the isotropic Gaussian noise added to
#'   the points (0 = none).
#' @param hole Remove a rectangle from the parameter domain ("Swiss hole").
#' @param convention Parameter ranges: `"drtoolbox"`, `"sklearn"` or
#'   `"wittman"` (see Details).
#' @param hole_convention Which hole, when `hole = TRUE`: `"wittman"` or
#'   `"sklearn"`.
#' @param z_scale Factor \eqn{c} applied to the third coordinate in the
#'   Wittman conventions (`convention = "wittman"` or a hole); must be 1
#'   otherwise.
#' @param seed `NULL` (use the current random number stream) or a whole
#'   number: the call is then reproducible, and the caller's random number
#'   stream is left as it was.
#' @return A list with
#'   * `x`: `n x 3` matrix with columns `x`, `y`, `z`;
#'   * `truth`: `n x 2` matrix with columns `t` (roll angle) and `h`
#'     (height), noise-free;
#'   * `truth_isometric`: `n x 2` matrix with columns `s` (arc length) and `h`;
#'   * `color`: the roll angle `t`;
#'   * `params`: the constants used (`name`, `n`, `noise`, `convention`,
#'     `hole`, `hole_convention`, `t_range`, `h_range`, `z_scale`,
#'     `hole_t`, `hole_h`, `seed`).
#' @family data generators
#' @export
#' @examples
#' roll <- swiss_roll(800, seed = 1)
#' str(roll$params)
#' pairs(roll$x, col = hcl.colors(100)[cut(roll$color, 100)], pch = 16, cex = 0.4)
#' hole <- swiss_roll(800, hole = TRUE, seed = 1)
#' plot(hole$truth, pch = 16, cex = 0.4, main = "Swiss hole: parameter domain")
swiss_roll <- function(n, noise = 0, hole = FALSE,
                       convention = c("drtoolbox", "sklearn", "wittman"),
                       hole_convention = c("wittman", "sklearn"),
                       z_scale = 1, seed = NULL) {
  check_generator_args()
  hole <- check_flag(hole, "hole")
  convention <- check_choice(convention, c("drtoolbox", "sklearn", "wittman"), "convention")
  hole_convention <- check_choice(hole_convention, c("wittman", "sklearn"), "hole_convention")
  z_scale <- check_number(z_scale, "z_scale", lower = 0, lower_open = TRUE)
  scheme <- if (hole) paste0("hole_", hole_convention) else convention
  if (z_scale != 1 && scheme %in% c("drtoolbox", "sklearn", "hole_sklearn")) {
    abort_input("z_scale", sprintf("must be 1 for the \"%s\" convention (only Wittman's rolls scale z).",
                                   if (hole) hole_convention else convention))
  }
  t_range <- c(1.5 * pi, 4.5 * pi)
  h_max <- if (scheme == "drtoolbox") 30 else 21
  hole_t <- hole_h <- NULL

  draw <- function() {
    if (scheme %in% c("drtoolbox", "sklearn", "wittman")) {
      t <- 1.5 * pi * (1 + 2 * stats::runif(n))
      h <- h_max * stats::runif(n)
    } else if (scheme == "hole_wittman") {
      hole_t <<- c(9, 12)
      hole_h <<- c(9, 14)
      t <- h <- numeric(0)
      m <- 2L * n
      while (length(t) < n) {
        tc <- 1.5 * pi * (1 + 2 * stats::runif(m))
        hc <- 21 * stats::runif(m)
        keep <- !(tc > 9 & tc < 12 & hc > 9 & hc < 14)
        t <- c(t, tc[keep])
        h <- c(h, hc[keep])
        m <- n
      }
      t <- t[seq_len(n)]
      h <- h[seq_len(n)]
    } else {
      hole_t <<- c(2.5 * pi, 3.5 * pi)
      hole_h <<- c(7, 14)
      # cells (i, j), i = t-cell, j = h-cell, i, j in 0..2, centre removed
      cells <- expand.grid(j = 0:2, i = 0:2)[-5L, ]
      pick <- sample.int(8L, n, replace = TRUE)
      ut <- stats::runif(n)
      uh <- stats::runif(n)
      t <- pi * (1.5 + cells$i[pick]) + pi * ut
      h <- 7 * cells$j[pick] + 7 * uh
    }
    c_z <- if (scheme %in% c("wittman", "hole_wittman")) z_scale else 1
    x0 <- xyz(t * cos(t), h, c_z * t * sin(t))
    list(t = t, h = h, x = add_noise(x0, noise))
  }
  d <- with_seed_mo(seed, draw())

  s <- if (z_scale == 1) {
    spiral_arc_length(d$t)
  } else {
    arc_length(d$t, function(u) sqrt((cos(u) - u * sin(u))^2 + z_scale^2 * (sin(u) + u * cos(u))^2))
  }
  list(
    x = d$x,
    truth = named_cols(cbind(d$t, d$h), c("t", "h")),
    truth_isometric = named_cols(cbind(s, d$h), c("s", "h")),
    color = d$t,
    params = list(name = "swiss_roll", n = n, noise = noise,
                  convention = if (hole) hole_convention else convention,
                  hole = hole, hole_convention = if (hole) hole_convention else NA_character_,
                  t_range = t_range, h_range = c(0, h_max), z_scale = z_scale,
                  hole_t = hole_t, hole_h = hole_h, seed = seed)
  )
}

#' Evenly distributed Swiss roll (a grid uniform on the surface)
#'
#' A deterministic Swiss roll \eqn{(t\cos t, h, t\sin t)} whose points are
#' evenly spread over the surface: `n_t` values of \eqn{t} equally spaced in
#' arc length \eqn{s(t) = \frac12[t\sqrt{1+t^2} + \mathrm{asinh}\,t]} over
#' \eqn{t \in [3\pi/2, 9\pi/2]}, times `n_h` equally spaced heights in
#' \eqn{[0, h_{max}]}. The defaults (100 x 20 = 2000 points, height 21) are
#' the "evenly distributed" roll of Fig. 2 of Qiao et al. (2013); the
#' random roll of [swiss_roll()] with `convention = "wittman"` is uniform in
#' \eqn{t} instead, i.e. denser on the inner turns.
#'
#' @param n_t Number of grid values along the roll.
#' @param n_h Number of grid values across the roll (height).
#' @param h_max Height of the roll.
#' @return A list with `x` (`n_t * n_h` x 3; `h` varies fastest), `truth`
#'   (`t`, `h`), `truth_isometric` (`s`, `h`), `color` (`t`) and `params`.
#' @family data generators
#' @export
#' @examples
#' g <- swiss_roll_grid(50, 10)
#' plot(g$truth_isometric, pch = 16, cex = 0.5, asp = 1)
swiss_roll_grid <- function(n_t = 100, n_h = 20, h_max = 21) {
  n_t <- check_number(n_t, "n_t", lower = 2, integer = TRUE)
  n_h <- check_number(n_h, "n_h", lower = 1, integer = TRUE)
  h_max <- check_number(h_max, "h_max", lower = 0, lower_open = TRUE)
  t_range <- c(1.5 * pi, 4.5 * pi)
  s_target <- seq(spiral_arc_length(t_range[1]), spiral_arc_length(t_range[2]), length.out = n_t)
  # invert s(t) by Newton's method (s' = sqrt(1 + t^2) > 0, s convex)
  t <- seq(t_range[1], t_range[2], length.out = n_t)
  for (it in 1:50) {
    step <- (spiral_arc_length(t) - s_target) / sqrt(1 + t^2)
    t <- t - step
    if (max(abs(step)) < 1e-13 * t_range[2]) break
  }
  t[c(1L, n_t)] <- t_range
  h <- if (n_h == 1L) 0 else seq(0, h_max, length.out = n_h)
  tt <- rep(t, each = length(h))
  hh <- rep(h, times = n_t)
  list(
    x = xyz(tt * cos(tt), hh, tt * sin(tt)),
    truth = named_cols(cbind(tt, hh), c("t", "h")),
    truth_isometric = named_cols(cbind(spiral_arc_length(tt), hh), c("s", "h")),
    color = tt,
    params = list(name = "swiss_roll_grid", n = n_t * n_h, n_t = n_t, n_h = n_h,
                  t_range = t_range, h_range = c(0, h_max))
  )
}

#' Synthetic handwritten zeros (a two-parameter image manifold)
#'
#' Anti-aliased elliptical rings on a `size` x `size` grid: line width
#' \eqn{w \sim U(1, 3)} pixels, axis ratio \eqn{a/b \sim U(0.5, 1)} (height
#' \eqn{2b} about 11 pixels) and a small random tilt in
#' \eqn{[-0.15, 0.15]} radians; grey values in \[0, 1\]. The offline stand-in
#' for the USPS zeros of Qiao et al. (2013), whose two named degrees of
#' freedom are line width and shape.
#'
#' @param n Number of images.
#' @param size Image height and width in pixels.
#' @inheritParams swiss_roll
#' @return A list in the format of [load_image_data()]: `x` (`n` x
#'   `size^2`, column-major images), `image_dim`, `pixel_order`,
#'   `value_range`, `name`, plus `truth` (columns `width`, `ratio`, `tilt`)
#'   and `params`.
#' @family data generators
#' @export
#' @examples
#' z <- synthetic_zeros(12, seed = 1)
#' plot_images(z, labels = sprintf("w %.1f", z$truth[, "width"]))
synthetic_zeros <- function(n, size = 16, seed = NULL) {
  n <- check_n_points(n)
  size <- check_number(size, "size", lower = 8, integer = TRUE)
  seed <- check_seed(seed)
  par <- with_seed_mo(seed, cbind(width = stats::runif(n, 1, 3), ratio = stats::runif(n, 0.5, 1),
                                  tilt = stats::runif(n, -0.15, 0.15)))
  cc <- (size + 1) / 2
  x0 <- rep(seq_len(size), each = size) - cc   # column index (column-major pixels)
  y0 <- rep(seq_len(size), times = size) - cc  # row index
  b <- 0.34 * size
  X <- t(vapply(seq_len(n), function(i) {
    a <- b * par[i, "ratio"]
    ct <- cos(par[i, "tilt"]); st <- sin(par[i, "tilt"])
    xr <- ct * x0 + st * y0
    yr <- -st * x0 + ct * y0
    d <- abs(sqrt((xr / a)^2 + (yr / b)^2) - 1) * sqrt(a * b)  # ~ distance to the ellipse, pixels
    pmin(1, pmax(0, par[i, "width"] / 2 + 0.5 - d))
  }, numeric(size * size)))
  list(x = X, image_dim = c(size, size), pixel_order = "column", value_range = c(0, 1),
       name = "synthetic_zeros", truth = par,
       params = list(name = "synthetic_zeros", n = n, size = size, seed = seed))
}

#' Broken Swiss roll
#'
#' A Swiss roll with a gap across its full height: the first
#' \eqn{\lceil n/2 \rceil} points have \eqn{t = (3\pi/2)(1 + 0.8U)}
#' (\eqn{t \in [1.5\pi, 2.7\pi]}), the remaining \eqn{\lfloor n/2 \rfloor}
#' have \eqn{t = (3\pi/2)(1 + 2(0.4U + 0.6))} (\eqn{t \in [3.3\pi, 4.5\pi]});
#' \eqn{h = 30U}; points \eqn{(t\cos t, h, t\sin t)} plus noise (the
#' `'brokenswiss'` set of the Matlab Toolbox for Dimensionality Reduction).
#'
#' The source returns the two pieces one after the other; by default the rows
#' are shuffled so that index-based train/test splits are unbiased.
#'
#' @inheritParams swiss_roll
#' @param shuffle Shuffle the rows (default); `FALSE` keeps the source order
#'   (first piece, then second piece).
#' @return A list with `x` (`n x 3`, columns `x`, `y`, `z`), `truth` (`t`,
#'   `h`), `truth_isometric` (`s`, `h`; arc length as in [swiss_roll()]),
#'   `color` (`t`), `labels` (the piece, 1 or 2) and `params`.
#' @family data generators
#' @export
#' @examples
#' br <- broken_swiss_roll(600, seed = 1)
#' plot(br$truth, col = br$labels, pch = 16, cex = 0.5)
broken_swiss_roll <- function(n, noise = 0, shuffle = TRUE, seed = NULL) {
  check_generator_args()
  shuffle <- check_flag(shuffle, "shuffle")
  n1 <- as.integer(ceiling(n / 2))
  n2 <- n - n1
  res <- with_seed_mo(seed, {
    t <- c(1.5 * pi * (1 + 2 * 0.4 * stats::runif(n1)),
           1.5 * pi * (1 + 2 * (0.4 * stats::runif(n2) + 0.6)))
    h <- 30 * stats::runif(n)
    x <- add_noise(xyz(t * cos(t), h, t * sin(t)), noise)
    r <- list(x = x, truth = named_cols(cbind(t, h), c("t", "h")),
              truth_isometric = named_cols(cbind(spiral_arc_length(t), h), c("s", "h")),
              color = t, labels = rep(1:2, c(n1, n2)))
    if (shuffle) r <- permute_result(r, sample.int(n))
    r
  })
  res$params <- list(name = "broken_swiss_roll", n = n, noise = noise, convention = "drtoolbox",
                     t_range = c(1.5 * pi, 4.5 * pi), t_gap = c(2.7 * pi, 3.3 * pi),
                     h_range = c(0, 30), n_pieces = c(n1, n2), shuffle = shuffle, seed = seed)
  res
}

# ---------------------------------------------------------------------------
# S-curve, Gaussian surface, twin peaks

#' S-curve
#'
#' scikit-learn's `make_s_curve`: \eqn{t = 3\pi(U - 1/2)},
#' points \eqn{(\sin t,\ 2U',\ \mathrm{sign}(t)(\cos t - 1))} plus noise.
#' The chart \eqn{(t, y)} is isometric (the cross-section has unit speed).
#'
#' @inheritParams swiss_roll
#' @return A list with `x` (`n x 3`), `truth` (columns `t` in
#'   \eqn{[-1.5\pi, 1.5\pi]} and `y` in \[0, 2\]), `color` (`t`) and `params`.
#' @family data generators
#' @export
#' @examples
#' s <- s_curve(500, seed = 1)
#' plot(s$x[, c(1, 3)], col = hcl.colors(50)[cut(s$color, 50)], pch = 16, asp = 1)
s_curve <- function(n, noise = 0, seed = NULL) {
  check_generator_args()
  res <- with_seed_mo(seed, {
    t <- 3 * pi * (stats::runif(n) - 0.5)
    y <- 2 * stats::runif(n)
    x <- add_noise(xyz(sin(t), y, sign(t) * (cos(t) - 1)), noise)
    list(x = x, truth = named_cols(cbind(t, y), c("t", "y")), color = t)
  })
  res$params <- list(name = "s_curve", n = n, noise = noise, convention = "sklearn",
                     t_range = c(-1.5 * pi, 1.5 * pi), y_range = c(0, 2), seed = seed)
  res
}

#' Gaussian surface
#'
#' Wittman's "Gaussian" surface: \eqn{(a, b) = \sigma (N, N')} with standard
#' normal \eqn{N, N'}, points
#' \eqn{(a,\ b,\ \exp(-(a^2 + b^2)/(2\sigma^2)) / (2\pi\sigma^2))} plus noise.
#' The chart \eqn{(a, b)} is not isometric.
#'
#' @inheritParams swiss_roll
#' @param sigma Standard deviation \eqn{\sigma} of the parameters and width
#'   of the bump (positive).
#' @return A list with `x` (`n x 3`), `truth` (columns `a`, `b`), `color`
#'   (the noise-free height `z`) and `params`.
#' @family data generators
#' @export
#' @examples
#' g <- gaussian_surface(500, seed = 1)
#' plot(g$truth, col = hcl.colors(50)[cut(g$color, 50)], pch = 16, asp = 1)
gaussian_surface <- function(n, noise = 0, sigma = 1, seed = NULL) {
  check_generator_args()
  sigma <- check_number(sigma, "sigma", lower = 0, lower_open = TRUE)
  res <- with_seed_mo(seed, {
    a <- sigma * stats::rnorm(n)
    b <- sigma * stats::rnorm(n)
    z <- exp(-(a^2 + b^2) / (2 * sigma^2)) / (2 * pi * sigma^2)
    list(x = add_noise(xyz(a, b, z), noise), truth = named_cols(cbind(a, b), c("a", "b")),
         color = z)
  })
  res$params <- list(name = "gaussian_surface", n = n, noise = noise, convention = "wittman",
                     sigma = sigma, seed = seed)
  res
}

#' Twin peaks
#'
#' Points over \eqn{(a, b) \in [-1, 1]^2} (uniform) on the surface
#' \eqn{z = \sin(\pi a)\tanh(3b)}.
#'
#' * `"drtoolbox"` (default): \eqn{(a, b, \sin(\pi a)\tanh(3b))} plus noise,
#'   **then** the third coordinate is multiplied by 10 (so the noise in `z`
#'   is amplified tenfold), as in the Matlab Toolbox for Dimensionality
#'   Reduction.
#' * `"wittman"`: \eqn{(a, b, c\,\sin(\pi a)\tanh(3b))} plus noise, with
#'   \eqn{c} = `z_scale` (Wittman's `mani.m`).
#'
#' @inheritParams swiss_roll
#' @param convention `"drtoolbox"` or `"wittman"`.
#' @param z_scale Factor \eqn{c} for the height in the Wittman convention
#'   (must be 1 for `"drtoolbox"`, whose factor is fixed at 10).
#' @return A list with `x` (`n x 3`), `truth` (columns `a`, `b` in
#'   \[-1, 1\]), `color` (the noise-free height `z`) and `params`.
#' @family data generators
#' @export
#' @examples
#' tp <- twin_peaks(600, seed = 1)
#' plot(tp$truth, col = hcl.colors(50)[cut(tp$color, 50)], pch = 16, asp = 1)
twin_peaks <- function(n, noise = 0, convention = c("drtoolbox", "wittman"), z_scale = 1,
                       seed = NULL) {
  check_generator_args()
  convention <- check_choice(convention, c("drtoolbox", "wittman"), "convention")
  z_scale <- check_number(z_scale, "z_scale", lower = 0, lower_open = TRUE)
  if (convention == "drtoolbox" && z_scale != 1) {
    abort_input("z_scale", "must be 1 for the \"drtoolbox\" convention (its height factor is fixed at 10).")
  }
  factor <- if (convention == "drtoolbox") 10 else z_scale
  res <- with_seed_mo(seed, {
    ab <- 1 - 2 * matrix(stats::runif(2 * n), 2, n)   # drawn as (a1, b1, a2, b2, ...)
    a <- ab[1, ]
    b <- ab[2, ]
    f <- sin(pi * a) * tanh(3 * b)
    if (convention == "drtoolbox") {
      x <- add_noise(xyz(a, b, f), noise)
      x[, 3] <- factor * x[, 3]
    } else {
      x <- add_noise(xyz(a, b, factor * f), noise)
    }
    list(x = x, truth = named_cols(cbind(a, b), c("a", "b")), color = factor * f)
  })
  res$params <- list(name = "twin_peaks", n = n, noise = noise, convention = convention,
                     z_factor = factor, ab_range = c(-1, 1), seed = seed)
  res
}

# ---------------------------------------------------------------------------
# Helix, punctured sphere, fishbowl, Moebius strip

#' Toroidal helix
#'
#' A closed curve wound 8 times around a torus:
#' \eqn{t_i = 2\pi (i/n)^r}, \eqn{i = 1, \dots, n},
#' \eqn{x_i = ((2 + \cos 8t)\cos t,\ (2 + \cos 8t)\sin t,\ \sin 8t)} plus
#' noise. With `rate = 1` the parameters are equally spaced (the Matlab
#' Toolbox for Dimensionality Reduction's `'helix'`, default noise 0.05);
#' other rates give Wittman's "Toroidal Helix" with uneven sampling (noise
#' 0.05 in his demo). The noise-free points lie on the torus
#' \eqn{(\sqrt{x^2 + y^2} - 2)^2 + z^2 = 1}.
#'
#' The parameters are deterministic and in curve order; rows are shuffled by
#' default (`shuffle = TRUE`).
#'
#' @inheritParams swiss_roll
#' @param rate Sampling exponent \eqn{r > 0}.
#' @param shuffle Shuffle the rows (default); `FALSE` keeps the curve order.
#' @return A list with `x` (`n x 3`), `truth` (one column `t` in
#'   \eqn{(0, 2\pi]}, periodic), `color` (`t`) and `params`.
#' @family data generators
#' @export
#' @examples
#' hx <- helix(400, noise = 0.05, seed = 1)
#' plot(hx$x[, 1:2], col = hcl.colors(50)[cut(hx$color, 50)], pch = 16, asp = 1)
helix <- function(n, noise = 0, rate = 1, shuffle = TRUE, seed = NULL) {
  check_generator_args()
  rate <- check_number(rate, "rate", lower = 0, lower_open = TRUE)
  shuffle <- check_flag(shuffle, "shuffle")
  t <- 2 * pi * (seq_len(n) / n)^rate
  x0 <- xyz((2 + cos(8 * t)) * cos(t), (2 + cos(8 * t)) * sin(t), sin(8 * t))
  res <- with_seed_mo(seed, {
    r <- list(x = add_noise(x0, noise), truth = named_cols(t, "t"), color = t)
    if (shuffle) r <- permute_result(r, sample.int(n))
    r
  })
  res$params <- list(name = "helix", n = n, noise = noise, rate = rate,
                     convention = if (rate == 1) "drtoolbox" else "wittman",
                     radii = c(major = 2, minor = 1), windings = 8, shuffle = shuffle, seed = seed)
  res
}

#' Punctured sphere
#'
#' The unit sphere centred at \eqn{(0, 0, 1)} minus a cap around its top,
#' as the image of a plane region under inverse stereographic projection
#' from the pole \eqn{(0, 0, 2)}: \eqn{a = 4/(4 + u^2 + v^2)},
#' \eqn{x = (a u,\ a v,\ 2c(1 - a))} (Saul and Roweis' example).
#'
#' * `"wittman"` (default; deterministic): the grid
#'   \eqn{\{-5, -5 + \delta, \dots\}^2 \cap [-5, 5]^2} with
#'   \eqn{\delta = 9/\sqrt n}; the `n` grid points with the smallest
#'   \eqn{u^2 + v^2} are kept (ties in grid order, `v` varying fastest).
#' * `"random"`: \eqn{(u, v)} uniform in the disk of radius
#'   \eqn{9/\sqrt\pi} (the same expected area).
#'
#' Grid points come in order of increasing radius; by default the rows are
#' shuffled (`shuffle = TRUE`).
#'
#' @inheritParams swiss_roll
#' @param convention `"wittman"` (grid) or `"random"`.
#' @param z_scale Factor \eqn{c} for the third coordinate (1 = a sphere).
#' @param shuffle Shuffle the rows (default); `FALSE` keeps the source order.
#' @return A list with `x` (`n x 3`), `truth` (columns `u`, `v`: the plane
#'   coordinates, a conformal chart), `color` (the noise-free `z`) and
#'   `params` (including `n` and, for the grid, `delta`).
#' @family data generators
#' @export
#' @examples
#' ps <- punctured_sphere(800)
#' plot(ps$x[, c(1, 3)], col = hcl.colors(50)[cut(ps$color, 50)], pch = 16, asp = 1)
punctured_sphere <- function(n, noise = 0, convention = c("wittman", "random"), z_scale = 1,
                             shuffle = TRUE, seed = NULL) {
  check_generator_args()
  convention <- check_choice(convention, c("wittman", "random"), "convention")
  z_scale <- check_number(z_scale, "z_scale", lower = 0, lower_open = TRUE)
  shuffle <- check_flag(shuffle, "shuffle")
  delta <- NULL
  r_max <- 9 / sqrt(pi)
  if (convention == "wittman") {
    delta <- 9 / sqrt(n)
    g <- -5 + delta * (0:floor(10 / delta + 1e-10))
    u_all <- rep(g, each = length(g))   # MATLAB meshgrid(g)(:): v varies fastest
    v_all <- rep(g, times = length(g))
    keep <- order(u_all^2 + v_all^2, method = "radix")[seq_len(n)]
    u0 <- u_all[keep]
    v0 <- v_all[keep]
  }
  res <- with_seed_mo(seed, {
    if (convention == "wittman") {
      u <- u0
      v <- v0
    } else {
      r <- r_max * sqrt(stats::runif(n))
      th <- 2 * pi * stats::runif(n)
      u <- r * cos(th)
      v <- r * sin(th)
    }
    a <- 4 / (4 + u^2 + v^2)
    z <- z_scale * 2 * (1 - a)
    out <- list(x = add_noise(xyz(a * u, a * v, z), noise),
                truth = named_cols(cbind(u, v), c("u", "v")), color = z)
    if (shuffle) out <- permute_result(out, sample.int(n))
    out
  })
  res$params <- list(name = "punctured_sphere", n = n, noise = noise, convention = convention,
                     delta = delta, r_max = if (convention == "random") r_max else NULL,
                     z_scale = z_scale, shuffle = shuffle, seed = seed)
  res
}

#' Fishbowl
#'
#' The unit sphere (centred at the origin) minus a cap around its north
#' pole, open at \eqn{z = 0.6}.
#'
#' * `"conformal"` (default; de Silva and Tenenbaum's "conformal fishbowl"):
#'   \eqn{(u, v)} uniform in the disk of radius 2, mapped by inverse
#'   stereographic projection
#'   \eqn{x = (2u,\ 2v,\ u^2 + v^2 - 1)/(u^2 + v^2 + 1)}; points are dense
#'   near the rim and sparse at the bottom.
#' * `"uniform"`: uniform on the sphere (normalised Gaussian vectors) with
#'   points above \eqn{z = 0.6} rejected; `truth` is then the stereographic
#'   chart \eqn{(u, v) = (x, y)/(1 - z)}, the inverse of the map above.
#'
#' @inheritParams swiss_roll
#' @param convention `"conformal"` or `"uniform"`.
#' @return A list with `x` (`n x 3`), `truth` (columns `u`, `v`, in the disk
#'   of radius 2), `color` (the noise-free height `z`) and `params`.
#' @family data generators
#' @export
#' @examples
#' fb <- fishbowl(800, seed = 1)
#' plot(fb$x[, c(1, 3)], col = hcl.colors(50)[cut(fb$color, 50)], pch = 16, asp = 1)
fishbowl <- function(n, noise = 0, convention = c("conformal", "uniform"), seed = NULL) {
  check_generator_args()
  convention <- check_choice(convention, c("conformal", "uniform"), "convention")
  rho <- 2
  z_max <- (rho^2 - 1) / (rho^2 + 1)
  res <- with_seed_mo(seed, {
    if (convention == "conformal") {
      r <- rho * sqrt(stats::runif(n))
      th <- 2 * pi * stats::runif(n)
      u <- r * cos(th)
      v <- r * sin(th)
      q <- u^2 + v^2
      x0 <- xyz(2 * u / (q + 1), 2 * v / (q + 1), (q - 1) / (q + 1))
    } else {
      x0 <- matrix(numeric(0), 0, 3)
      while (nrow(x0) < n) {
        m <- ceiling(1.3 * (n - nrow(x0))) + 10L
        g <- matrix(stats::rnorm(3 * m), m, 3)
        g <- g / sqrt(rowSums(g^2))
        x0 <- rbind(x0, g[g[, 3] <= z_max, , drop = FALSE])
      }
      x0 <- xyz(x0[seq_len(n), 1], x0[seq_len(n), 2], x0[seq_len(n), 3])
      u <- x0[, 1] / (1 - x0[, 3])
      v <- x0[, 2] / (1 - x0[, 3])
    }
    list(x = add_noise(x0, noise), truth = named_cols(cbind(u, v), c("u", "v")),
         color = x0[, 3])
  })
  res$params <- list(name = "fishbowl", n = n, noise = noise, convention = convention,
                     radius = rho, z_max = z_max, seed = seed)
  res
}

#' Moebius strip
#'
#' \eqn{u \sim U(0, 2\pi)}, \eqn{v \sim U(-1, 1)};
#' \eqn{x = ((1 + \frac v2\cos\frac u2)\cos u,\ (1 + \frac v2\cos\frac u2)\sin u,\
#' \frac v2\sin\frac u2)} plus noise. The strip is non-orientable: every
#' two-dimensional embedding must tear it somewhere.
#'
#' @inheritParams swiss_roll
#' @return A list with `x` (`n x 3`), `truth` (columns `u` in
#'   \eqn{[0, 2\pi]}, `v` in \[-1, 1\]), `color` (`u`) and `params`.
#' @family data generators
#' @export
#' @examples
#' mb <- mobius(600, seed = 1)
#' plot(mb$x[, 1:2], col = hcl.colors(50)[cut(mb$color, 50)], pch = 16, asp = 1)
mobius <- function(n, noise = 0, seed = NULL) {
  check_generator_args()
  res <- with_seed_mo(seed, {
    u <- 2 * pi * stats::runif(n)
    v <- 2 * stats::runif(n) - 1
    w <- 1 + (v / 2) * cos(u / 2)
    x0 <- xyz(w * cos(u), w * sin(u), (v / 2) * sin(u / 2))
    list(x = add_noise(x0, noise), truth = named_cols(cbind(u, v), c("u", "v")), color = u)
  })
  res$params <- list(name = "mobius", n = n, noise = noise, width = 1, seed = seed)
  res
}
