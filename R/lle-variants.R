# Modified LLE (Zhang & Wang 2006) and Hessian LLE (Donoho & Grimes 2003):
# the alignment matrices of lle(variant = "modified" | "hessian"). Both are
# assembled here from per-neighbourhood local PCA; their bottom eigenvectors
# are computed by the same routine as standard LLE (.mo_align_bottom, which
# removes the constant vector).

# Sparse symmetric n x n matrix from per-point blocks: `blocks[[i]]` is the
# square block on the rows/columns `rows[[i]]`; duplicates are summed.
blocks_to_sparse <- function(rows, blocks, n) {
  sizes <- lengths(rows)
  ii <- unlist(lapply(seq_along(rows), function(i) rep(rows[[i]], times = sizes[i])),
               use.names = FALSE)
  jj <- unlist(lapply(seq_along(rows), function(i) rep(rows[[i]], each = sizes[i])),
               use.names = FALSE)
  xx <- unlist(lapply(blocks, as.vector), use.names = FALSE)
  M <- Matrix::sparseMatrix(i = ii, j = jj, x = xx, dims = c(n, n))
  # exact symmetry (summation order may differ between M[i, j] and M[j, i])
  M <- (M + Matrix::t(M)) / 2
  methods::as(methods::as(M, "generalMatrix"), "CsparseMatrix")
}

# Modified LLE. idx: n x k neighbour lists (1-based, self excluded).
# For point i with neighbour differences Z_i = X[N_i, ] - x_i (k x D):
#  * w_i: the regularised LLE weights (trace-relative `reg`, as lle());
#  * the eigenvalues l_1 >= ... of Z_i Z_i' (squared singular values of Z_i,
#    min(D, k) of them, the others are 0) and their eigenvectors (columns of
#    the full left singular basis);
#  * rho_i = sum_{j > d} l_j / sum_{j <= d} l_j and eta = median_i rho_i;
#  * s_i = (k - min(D, k)) + #{j < min(D, k) : (sum_{l > j} l_l) / (sum_{l <= j} l_l) < eta},
#    at least 1: the size of the "almost null" space of neighbourhood i;
#  * V_i: the s_i bottom eigenvectors; alpha_i = |V_i' 1| / sqrt(s_i); H_i the
#    Householder reflection with H_i V_i' 1 = alpha_i 1;
#  * W_i = V_i H_i + (1 - alpha_i) w_i 1' (k x s_i), whose columns sum to one,
#    and the block [-1'; W_i] [-1'; W_i]' is added on rows/columns (i, N_i).
# Returns list(M, s) with the per-point s_i.
mlle_alignment <- function(X, idx, ndim, reg, threads = default_threads()) {
  n <- nrow(X)
  k <- ncol(idx)
  w_reg <- core(.mo_reconstruction_weights(X, X, idx, reg, matrix(0, 0, 0), threads))
  nev <- min(ncol(X), k)
  U <- vector("list", n)
  ev <- matrix(0, n, nev)
  for (i in seq_len(n)) {
    Z <- X[idx[i, ], , drop = FALSE] - rep(X[i, ], each = k)
    s <- svd(Z, nu = k, nv = 0L)
    U[[i]] <- s$u
    ev[i, ] <- s$d[seq_len(nev)]^2
  }
  lead <- seq_len(min(ndim, nev))
  rho <- rowSums(ev[, -lead, drop = FALSE]) / rowSums(ev[, lead, drop = FALSE])
  eta <- stats::median(rho[is.finite(rho)])
  if (!is.finite(eta)) eta <- 0
  cs <- t(apply(ev, 1L, cumsum))
  if (nev == 1L) cs <- t(cs)
  s_i <- integer(n)
  for (i in seq_len(n)) {
    ratio <- if (nev > 1L) cs[i, nev] / cs[i, -nev] - 1 else numeric(0)
    s_i[i] <- max(1L, (k - nev) + sum(ratio < eta, na.rm = TRUE))
  }
  ones_k <- rep(1, k)
  blocks <- vector("list", n)
  rows <- vector("list", n)
  for (i in seq_len(n)) {
    s <- s_i[i]
    Vi <- U[[i]][, (k - s + 1L):k, drop = FALSE]
    v <- colSums(Vi)
    alpha <- sqrt(sum(v^2) / s)
    h <- alpha - v
    hn <- sqrt(sum(h^2))
    Wi <- if (hn < 1e-12) Vi else Vi - 2 * tcrossprod(Vi %*% (h / hn), h / hn)
    Wi <- Wi + (1 - alpha) * tcrossprod(w_reg[i, ], rep(1, s))
    B <- rbind(-rep(1, s), Wi)
    blocks[[i]] <- tcrossprod(B)
    rows[[i]] <- c(i, idx[i, ])
  }
  list(M = blocks_to_sparse(rows, blocks, n), s = s_i, eta = eta)
}

# Hessian LLE. idx: n x k neighbour lists (1-based, self excluded). For each
# neighbourhood: centre X[N_i, ], take the d leading left singular vectors U
# (local tangent coordinates), the d(d+1)/2 products U_a U_b (a <= b), and
# the orthonormal basis w of those products with the constant and U projected
# out (the tangent Hessian estimator); w w' is added on rows/columns N_i.
# Donoho & Grimes' column scaling of w by its column sums is omitted: the
# columns are orthogonal to the constant, so those sums are zero up to
# rounding (scikit-learn then leaves them unscaled too).
# Returns list(M, n_rank_deficient).
hlle_alignment <- function(X, idx, ndim) {
  n <- nrow(X)
  k <- ncol(idx)
  dp <- ndim * (ndim + 1L) / 2L
  pairs <- which(upper.tri(diag(ndim), diag = TRUE), arr.ind = TRUE)
  pairs <- pairs[order(pairs[, 1L], pairs[, 2L]), , drop = FALSE]
  blocks <- vector("list", n)
  rows <- vector("list", n)
  deficient <- 0L
  for (i in seq_len(n)) {
    G <- X[idx[i, ], , drop = FALSE]
    G <- G - rep(colMeans(G), each = k)
    U <- svd(G, nu = ndim, nv = 0L)$u
    quad <- U[, pairs[, 1L], drop = FALSE] * U[, pairs[, 2L], drop = FALSE]
    B0 <- qr.Q(qr(cbind(1, U)))
    R <- quad - B0 %*% crossprod(B0, quad)
    s <- svd(R, nu = dp, nv = 0L)
    keep <- s$d > 1e-10 * max(1, s$d[1L])
    if (sum(keep) < dp) deficient <- deficient + 1L
    w <- s$u[, keep, drop = FALSE]
    blocks[[i]] <- tcrossprod(w)
    rows[[i]] <- idx[i, ]
  }
  list(M = blocks_to_sparse(rows, blocks, n), n_rank_deficient = deficient)
}

# lle(variant = "modified" | "hessian"): arguments validated by lle().
lle_variant <- function(X, ndim, k, reg, scaling, eigen_solver, variant, verbose, call,
                        knn_method = "exact") {
  n <- nrow(X)
  if (variant == "hessian") {
    k_min <- 1L + ndim + (ndim * (ndim + 1L)) %/% 2L
    if (k < k_min) {
      abort_input("k", sprintf(paste0("must be at least 1 + ndim + ndim (ndim + 1) / 2 = %d for ",
                                      "variant = \"hessian\" (ndim = %d); got %d."), k_min, ndim, k))
    }
  } else if (k <= ndim) {
    abort_input("k", sprintf("must be larger than `ndim` (%d) for variant = \"modified\"; got %d.",
                             ndim, k))
  }
  label <- if (variant == "hessian") "Hessian LLE" else "modified LLE"
  t0 <- mo_progress(verbose, "%s: %d points x %d features -> %d dimensions (k = %d)", label, n,
                    ncol(X), ndim, k)
  res <- timed({
    nb <- local_neighbours(X, k, knn_method)
    n_dup <- count_duplicates(X, nb$dist)
    warn_duplicates(n_dup, label)
    t1 <- mo_progress(verbose, "%s: nearest neighbours done (graph connected)", label, start = t0)
    A <- if (variant == "hessian") hlle_alignment(X, nb$idx, ndim)
         else mlle_alignment(X, nb$idx, ndim, reg)
    mo_progress(verbose, "%s: alignment matrix assembled; eigen-solve (eigen_solver = \"%s\")",
                label, eigen_solver, start = t1)
    m <- core(.mo_align_bottom(A$M, ndim, spectral_eig_opts(eigen_solver, 1e-10)))
    m$alignment <- A
    m
  })
  m <- res$value
  mo_progress(verbose, "%s: done with %s", label, describe_solver(m$method), start = t0)
  Y <- apply_scaling(m$Y, scaling)
  new_manifold_fit(
    class = "manifold_lle", method = label, embedding = Y, X = X,
    params = list(knn_method = knn_method, variant = variant, k = k, reg = reg, scaling = scaling),
    eigenvalues = c(m$dropped, m$values),
    oos_default = "reconstruction", oos_available = "reconstruction",
    fit_time = res$time, call = call,
    X_train = X, k = k, reg = reg, scaling = scaling, n_duplicates = n_dup,
    solver = solver_info(m), variant = variant,
    n_rank_deficient = m$alignment$n_rank_deficient,
    s_modified = if (variant == "modified") m$alignment$s else NULL
  )
}
