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

# The exponent the map evaluates for a landmark at the origin and a row x on
# one coordinate axis. The fused paths (AVX2/FMA, AVX-512F) scale landmarks and
# rows by sqrt(-cr), cr = -1 / (2 sigma^2), and form -|x s|^2 (one rounding of
# x s, one of its square); the portable path forms cr |x|^2, which is exact
# for the test arguments (x with at most 26 significant bits, sigma = 2).
lgrm_map_exponent <- function(x, sigma, fused) {
  if (fused) -(x * sqrt(1 / (2 * sigma * sigma)))^2 else -x^2 / (2 * sigma^2)
}
lgrm_fused_cpu <- function() {
  l <- tryCatch(grep("^flags", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE), error = function(e) character())
  flags <- if (length(l)) strsplit(sub(".*:", "", l[1]), " ")[[1]] else character()
  all(c("avx2", "fma") %in% flags) && grepl("x86_64|amd64", R.version$arch)
}
