# Shared helpers for the flat-data invariants of the local spectral methods
# (LLE, LTSA): a randomly rotated and shifted unit square in 3-D and the
# residual of the best affine map onto the true 2-D coordinates.

flat_plane <- function(n = 600, seed = 11) {
  set.seed(seed)
  Z <- cbind(runif(n), runif(n))
  R <- qr.Q(qr(matrix(rnorm(9), 3)))
  list(X = Z %*% t(R[, 1:2]) + matrix(c(1, -2, 0.5), n, 3, byrow = TRUE), Z = Z)
}

# Relative residual of the best affine fit of Y from Z: min ||Y - [1 Z] B|| / ||Y - mean||.
affine_residual <- function(Y, Z) {
  A <- cbind(1, Z)
  r <- Y - A %*% qr.solve(A, Y)
  sqrt(sum(r^2) / sum(scale(Y, scale = FALSE)^2))
}
