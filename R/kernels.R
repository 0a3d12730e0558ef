# Kernel specification shared by every kernel method.

# Build a kernel specification from user arguments. `sigma` may be a positive
# number or the name of a bandwidth rule resolved on the training data X.
kernel_spec <- function(kernel = c("rbf", "linear", "polynomial"), sigma = "median_pairwise",
                        degree = 2, gamma = 1, coef0 = 1, X = NULL, arg = "kernel") {
  if (is.function(kernel)) {
    return(structure(list(type = "function", fun = kernel), class = "manifold_kernel"))
  }
  type <- check_choice(kernel, c("rbf", "linear", "polynomial"), arg)
  spec <- list(type = type, sigma = NA_real_, sigma_rule = NA_character_,
               degree = 2, gamma = 1, coef0 = 1)
  if (type == "rbf") {
    if (is.character(sigma)) {
      rule <- check_choice(sigma, c("median_pairwise", "mean_pairwise"), "sigma")
      if (is.null(X)) abort_input("sigma", "must be a number when no training data are given.")
      spec$sigma <- pairwise_scale(X, rule)
      spec$sigma_rule <- rule
    } else {
      spec$sigma <- check_number(sigma, "sigma", lower = 0, lower_open = TRUE)
    }
  } else if (type == "polynomial") {
    spec$degree <- check_number(degree, "degree", lower = 1, integer = TRUE)
    spec$gamma <- check_number(gamma, "gamma")
    spec$coef0 <- check_number(coef0, "coef0")
  }
  structure(spec, class = "manifold_kernel")
}

# Kernel matrix between rows of A and B (B = NULL: training kernel of A).
kernel_eval <- function(spec, A, B = NULL) {
  if (identical(spec$type, "function")) {
    K <- spec$fun(A, if (is.null(B)) A else B)
    if (!is.matrix(K) || !is.numeric(K) || nrow(K) != nrow(A) ||
        ncol(K) != (if (is.null(B)) nrow(A) else nrow(B))) {
      abort_input("kernel", "must be a function(A, B) returning the nrow(A) x nrow(B) kernel matrix.")
    }
    if (anyNA(K) || any(!is.finite(K))) abort_input("kernel", "returned non-finite values.")
    storage.mode(K) <- "double"
    if (is.null(B)) K <- (K + t(K)) / 2
    return(K)
  }
  core(.mo_kernel_cross(A, if (is.null(B)) matrix(0, 0, ncol(A)) else B, spec$type,
                        spec$sigma, spec$gamma, spec$coef0, spec$degree))
}

# Summary (mean, median, max) of the pairwise Euclidean distances, on at most
# `max_rows` rows (a deterministic, evenly spaced subsample, which keeps the
# user's random number stream untouched).
pairwise_summary <- function(X, n_threads = default_threads(), max_rows = 3000L) {
  n <- nrow(X)
  if (n > max_rows) X <- X[unique(round(seq(1, n, length.out = max_rows))), , drop = FALSE]
  core(.mo_pairwise_summary(X, n_threads))
}

# Median or mean pairwise distance as a kernel bandwidth.
pairwise_scale <- function(X, rule = c("median_pairwise", "mean_pairwise")) {
  rule <- match.arg(rule)
  s <- pairwise_summary(X)
  v <- if (rule == "median_pairwise") s$median else s$mean
  if (!(v > 0)) abort_input("X", "has all rows identical; a distance-based bandwidth cannot be chosen.")
  v
}
