# Measures against a known truth: how much of the generating coordinates an
# embedding explains, and whether frames recorded in order (a closed loop or
# an open arc) keep their order (the affine R^2 and the misplaced frames of the
# teapot experiments of Yang et al., AAAI 2010).

#' Affine R-squared of an embedding against known coordinates
#'
#' The fraction of the variance of `truth` explained by the best affine
#' function of `Y`:
#' \deqn{R^2 = 1 - \frac{\min_{B, b} \|Z - Y B - 1 b^\top\|_F^2}{\|Z - 1\bar z^\top\|_F^2},}{R^2 = 1 - min ||Z - Y B - 1 b'||^2 / ||Z - mean(Z)||^2,}
#' with `Z = truth`. It is 1 exactly when the generating coordinates are an
#' affine function of the embedding, whatever the rotation, reflection,
#' scale and shear; unlike a Procrustes error it does not penalise the
#' anisotropic scaling that normalised spectral embeddings (such as LGRM's
#' and LTSA's \eqn{Y^\top Y = I}) impose. Used for the unrolling targets of
#' the package's LGRM reproduction (criterion \eqn{R^2 \ge 0.999}).
#'
#' @param Y Embedding (numeric matrix or data frame, one row per point).
#' @param truth Known coordinates of the same points (for the Swiss roll
#'   `swiss_roll()$truth_isometric`).
#' @return A single number, at most 1 (0 or less: no affine relation).
#' @seealso [residual_variance_coords()], [oos_error()].
#' @export
#' @examples
#' roll <- swiss_roll(600, convention = "wittman", seed = 1)
#' fit <- lgrm(roll$x, ndim = 2, k = 10, sigma = 10)
#' affine_r2(embedding(fit), roll$truth_isometric)
#' affine_r2(pca(roll$x, 2)$embedding, roll$truth_isometric)  # PCA does not unroll
affine_r2 <- function(Y, truth) {
  d <- check_pair(truth, Y, "truth", "Y", min_rows = 2L)
  Z <- d$X
  A <- cbind(1, d$Y)
  Zc <- sweep(Z, 2, colMeans(Z))
  tss <- sum(Zc^2)
  if (!(tss > 0)) abort_input("truth", "is constant; R^2 is undefined.")
  q <- qr(A, tol = 1e-10)
  rss <- sum(qr.resid(q, Z)^2)
  1 - rss / tss
}

#' Misplaced frames of an image sequence along a closed loop or an open arc
#'
#' Image sequences recorded in order (a turntable: Yang et al.'s teapots,
#' COIL-20 objects) should be embedded in the same order. The rows of `Y`
#' are the frames in recording order.
#'
#' * `loop_misplaced()` (a full rotation, a closed loop): each frame's angle
#'   about the embedding's centroid (first two columns) is ranked; a frame is
#'   misplaced when its rank differs from its position by more than
#'   `tol * n` (circular distance), after the best circular shift and
#'   direction. 0 = the loop is traversed in order.
#' * `arc_misplaced()` (part of a rotation, an open arc): frames are ranked by
#'   the first coordinate; a frame is misplaced when its rank differs from its
#'   position by more than `tol * n`, in the better of the two directions.
#'   The absolute Spearman correlation between the first coordinate and the
#'   frame index is attached as attribute `"spearman"`.
#'
#' @param Y Embedding of the frames, in recording order (at least 2 columns
#'   for `loop_misplaced()`).
#' @param tol Tolerance as a fraction of the number of frames (default 0.05).
#' @return The number of misplaced frames (an integer).
#' @export
#' @examples
#' a <- seq(0, 2 * pi, length.out = 41)[-41]
#' ring <- cbind(cos(a), sin(a))
#' loop_misplaced(ring)                        # 0
#' loop_misplaced(ring[c(1:10, 20:11, 21:40), ])  # a reversed stretch
#' arc_misplaced(ring[1:15, ])
loop_misplaced <- function(Y, tol = 0.05) {
  Y <- as_data_matrix(Y, "Y", min_rows = 3L)
  if (ncol(Y) < 2L) abort_input("Y", "must have at least 2 columns (a loop in the plane).")
  tol <- check_number(tol, "tol", lower = 0, upper = 1)
  n <- nrow(Y)
  a <- atan2(Y[, 2] - mean(Y[, 2]), Y[, 1] - mean(Y[, 1]))
  r <- rank(a, ties.method = "first") - 1
  pos <- 0:(n - 1)
  best <- n
  for (dir in c(1, -1)) {
    rd <- (dir * r) %% n
    for (sh in 0:(n - 1)) {
      dd <- abs((rd + sh) %% n - pos)
      best <- min(best, sum(pmin(dd, n - dd) > tol * n))
      if (best == 0) return(0L)
    }
  }
  as.integer(best)
}

#' @rdname loop_misplaced
#' @export
arc_misplaced <- function(Y, tol = 0.05) {
  Y <- as_data_matrix(Y, "Y", min_rows = 3L)
  tol <- check_number(tol, "tol", lower = 0, upper = 1)
  n <- nrow(Y)
  r <- rank(Y[, 1])
  i <- seq_len(n)
  mis <- min(sum(abs(r - i) > tol * n), sum(abs((n + 1 - r) - i) > tol * n))
  sp <- if (stats::sd(Y[, 1]) > 0) abs(stats::cor(Y[, 1], i, method = "spearman")) else 0
  structure(as.integer(mis), spearman = sp)
}
