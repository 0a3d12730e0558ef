# Shared by the tests of the sparse shift-invert factorisations
# (test-sparse-cholesky.R, test-supernodal-cholesky.R).

# Evaluates `expr` with options(manifoldOOS.sparse_cholesky = backend) (and
# manifoldOOS.threads = threads), restoring the options afterwards.
with_chol <- function(backend, expr, threads = getOption("manifoldOOS.threads")) {
  old <- options(manifoldOOS.sparse_cholesky = backend, manifoldOOS.threads = threads)
  on.exit(options(old))
  force(expr)
}

# ||(I - P_U) V||_F, sine-of-angles distance of the column spaces
subspace_dist <- function(U, V) {
  qu <- qr.Q(qr(U)); qv <- qr.Q(qr(V))
  norm(qv - qu %*% crossprod(qu, qv), "F")
}

roll_graph_laplacian <- function(n, k, seed) {
  X <- swiss_roll(n, seed = seed)$x
  W <- neighbor_graph(X, k = k)$W
  deg <- Matrix::rowSums(W)
  list(W = W, deg = deg, L = methods::as(Matrix::Diagonal(x = deg) - W, "CsparseMatrix"))
}
