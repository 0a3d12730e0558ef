# Shared helpers for the flat-data invariants of the local methods (LLE,
# LTSA, PLML): a randomly rotated and shifted rectangle in R^p, the residual
# of the best affine map onto the true 2-D coordinates, and an RDS round trip.

# p: ambient dimension; extent: side lengths of the rectangle; shift: the
# translation (NULL: drawn from N(0, 1) after the rotation).
flat_plane <- function(n = 600, seed = 11, p = 3, extent = c(1, 1), shift = c(1, -2, 0.5)) {
  set.seed(seed)
  Z <- cbind(runif(n, 0, extent[1]), runif(n, 0, extent[2]))
  R <- qr.Q(qr(matrix(rnorm(p * p), p)))
  if (is.null(shift)) shift <- rnorm(p)
  list(X = Z %*% t(R[, 1:2]) + matrix(shift, n, p, byrow = TRUE), Z = Z)
}

# saveRDS() then readRDS(): the fit as a new session would see it.
rds_roundtrip <- function(fit) {
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  saveRDS(fit, f)
  readRDS(f)
}

# Relative residual of the best affine fit of Y from Z: min ||Y - [1 Z] B|| / ||Y - mean||.
affine_residual <- function(Y, Z) {
  A <- cbind(1, Z)
  r <- Y - A %*% qr.solve(A, Y)
  sqrt(sum(r^2) / sum(scale(Y, scale = FALSE)^2))
}
