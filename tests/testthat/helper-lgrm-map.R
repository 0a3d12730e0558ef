# Shared by the tests of LGRM's Gaussian-kernel map (test-lgrm-predict-*.R).

# One random case of the map y = beta' k(x, B) + c: m landmarks in d
# dimensions, q outputs, `rows` query rows (drawn in this order, so a
# set.seed() before the call fixes all four).
lgrm_map_case <- function(d, q, m, rows, sd = 1) {
  list(B = matrix(rnorm(m * d), m), beta = matrix(rnorm(m * q), m), cc = rnorm(q),
       Xn = matrix(rnorm(rows * d, sd = sd), rows))
}

# The dense formula in R, and the size of its summands sum_l |beta_l k_l| + |c|.
lgrm_map_reference <- function(B, beta, c, Xn, sigma) {
  K <- exp(-pmax(outer(rowSums(Xn^2), rowSums(B^2), "+") - 2 * tcrossprod(Xn, B), 0) / (2 * sigma^2))
  structure(K %*% beta + rep(c, each = nrow(Xn)), scale = K %*% abs(beta) + rep(abs(c), each = nrow(Xn)))
}
