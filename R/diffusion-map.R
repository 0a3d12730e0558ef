#' Diffusion maps
#'
#' Coifman & Lafon's diffusion maps with the Nyström out-of-sample extension.
#'
#' **Kernel.** \eqn{K_{ij} = \exp(-\|x_i - x_j\|^2 / (2\sigma^2))}, with
#' \eqn{K_{ii} = 1}:
#' * `kernel = "dense"`: all pairs (an \eqn{n \times n} matrix);
#' * `kernel = "knn"`: a sparse kernel that keeps the pairs in which one point
#'   is among the other's `kernel_k` nearest neighbours (the `"or"`
#'   symmetrisation of [neighbor_graph()]), plus the diagonal. The default
#'   `kernel_k` is `10 k` up to 20,000 points (at most \eqn{n - 1}); above,
#'   the kernel keeps about the size it has at 20,000 points,
#'   `round(10 k * 20000 / n)` neighbours per point, and from 200,000 points
#'   on it has `k`, as the neighbour graph of [laplacian_eigenmaps()] has.
#'   On a two-dimensional manifold sampled without noise, and with the default
#'   bandwidth, `10 k` neighbours reach distances where the weights have
#'   fallen to about \eqn{e^{-5}}; `k` neighbours stop where they are still
#'   about \eqn{e^{-1/2}} (at the median distance to the `k`-th neighbour),
#'   and the embedding is then closer to that of a weighted kNN graph than to
#'   that of the full kernel. The value used is stored in the fit
#'   (`fit$kernel_k`) and printed with it.
#' * `kernel = "auto"` (default): `"dense"` up to
#'   `getOption("manifoldOOS.dense_max_n", 2000)` points, `"knn"` above.
#'
#' **Large data.** With the default `kernel_k`, a fit of \eqn{10^5} or more
#' points costs about what [laplacian_eigenmaps()] with the same `k` costs
#' (\eqn{10^6} points in 50 dimensions: three to four minutes and under 4 GB on
#' two cores). A larger `kernel_k` costs mostly in the search of its
#' neighbours and in memory: the kernel needs about 90 bytes per point and
#' kernel neighbour (about 13.5 GB for \eqn{10^6} points at
#' `kernel_k = 150`). A fit that would not fit in the memory available stops
#' before it starts, with an error of class `manifoldOOS_memory_error` that
#' names the largest `kernel_k` that fits.
#'
#' **Bandwidth.** A positive number, or a rule of [neighbor_graph()]:
#' `"median_knn"` (default; the median over the points of the distance to
#' their `k`-th nearest neighbour), `"median_pairwise"` or `"mean_pairwise"`.
#' In Coifman & Lafon's notation \eqn{\exp(-\|x - y\|^2 / \varepsilon)},
#' \eqn{\varepsilon = 2\sigma^2}.
#'
#' **Normalisation** (Coifman & Lafon 2006). With \eqn{q_i = \sum_j K_{ij}},
#' \eqn{K^{(\alpha)}_{ij} = K_{ij} / (q_i^\alpha q_j^\alpha)},
#' \eqn{d_i = \sum_j K^{(\alpha)}_{ij}} and the Markov matrix
#' \eqn{P = D^{-1} K^{(\alpha)}}: `alpha = 0` is the normalised graph Laplacian
#' (classical spectral embedding), `alpha = 1/2` the Fokker–Planck
#' normalisation and `alpha = 1` (default) removes the influence of the
#' sampling density (the Laplace–Beltrami operator in the limit). The right
#' eigenvectors \eqn{\psi_l} of \eqn{P} (eigenvalues
#' \eqn{1 = \lambda_0 > \lambda_1 \ge \dots}) are computed from the symmetric
#' \eqn{A = D^{-1/2} K^{(\alpha)} D^{-1/2}} and normalised in
#' \eqn{L^2(\pi)}, \eqn{\pi_i = d_i / \sum_j d_j}: \eqn{\sum_i \pi_i \psi_l(i)^2 = 1},
#' \eqn{\psi_0 = 1}. The diffusion map at time `t` is
#' \eqn{\Psi_t(x_i) = (\lambda_1^t \psi_1(i), \dots, \lambda_m^t \psi_m(i))}, whose
#' Euclidean distances approximate the diffusion distances at time `t`
#' (exactly, with all eigenvectors). The trivial pair \eqn{(1, \psi_0)} is
#' checked and dropped; signs make the largest \eqn{|\psi_l(i)|} positive.
#'
#' **Eigen-solver.** Dense kernel: the top `ndim + 1` eigenpairs of \eqn{A}
#' (LAPACK for small `n`, matrix-free Lanczos above). kNN kernel: the bottom
#' pairs of the sparse \eqn{I - A} (dense LAPACK up to `dense_max_n` points;
#' above, the trivial pair deflated, by sparse shift-invert Lanczos or by
#' LOBPCG with an algebraic multigrid preconditioner, chosen automatically
#' as for [laplacian_eigenmaps()] with `eigen_solver = "auto"`). The path
#' taken is recorded in `fit$solver`.
#'
#' **Out-of-sample extension** (`predict(fit, newdata)`, `method =
#' "nystrom"`). A new point \eqn{x} gets kernel values \eqn{k(x, x_j)} over all
#' training points (dense kernel) or over its `kernel_k + 1` nearest training
#' points (kNN kernel: the size of a training row, the point itself and its
#' `kernel_k` neighbours), the transition probabilities
#' \eqn{p(x, x_j) \propto k(x, x_j) / q_j^\alpha} (summing to one) and
#' \eqn{\Psi_t(x)_l = \lambda_l^{t - 1} \sum_j p(x, x_j) \psi_l(j)}: the
#' eigen-equation \eqn{P \psi_l = \lambda_l \psi_l} read for one row. Fed with a
#' training point it returns that point's coordinates (up to rounding, for the
#' dense kernel; the kNN kernel's training rows also hold the pairs added by
#' the symmetrisation). With `snap = TRUE` (default) a new point identical to
#' a training point gets exactly that point's coordinates. The transition
#' probabilities are computed relative to the nearest training point, so a
#' point far from the data gets the finite limit (the nearest point's
#' \eqn{\psi} times \eqn{\lambda^{t-1}}) rather than `NaN`; rows whose kernel
#' values all underflow are flagged in the attribute `"far"`.
#'
#' **Other packages' conventions** (read from their source code, not run
#' here). destiny's `DiffusionMap()` uses the same
#' kernel (its `sigma` is \eqn{\sigma}) with \eqn{\alpha = 1}
#' (`density.norm = TRUE`) or 0, but leaves the self-transition out of
#' \eqn{P} (keeping it in \eqn{q}) and returns the eigenvectors
#' \eqn{D^{-1/2} v} of unit-norm \eqn{v}, without the factor \eqn{\lambda^t}.
#' pydiffmap's kernel is \eqn{\exp(-d^2 / (4\epsilon))} (\eqn{\epsilon = \sigma^2 / 2}),
#' its `alpha` is this `alpha`, and its coordinates are unit-norm right
#' eigenvectors of \eqn{P} divided by \eqn{\sqrt{(1 - \lambda_l)/\epsilon}}; its
#' eigenvalues `evals` are \eqn{(\lambda_l - 1)/\epsilon}.
#'
#' @param X Training data: a numeric matrix or data frame, one row per point;
#'   or the distances between the training points, as a [stats::dist()]
#'   object or a square matrix with `metric = "precomputed"` (see
#'   [manifoldOOS-distances]; [predict()] then takes the distances of new
#'   points to the training points).
#' @param ndim Embedding dimension (number of non-trivial eigenvectors).
#' @param alpha Density normalisation exponent, in \eqn{[0, 1]}.
#' @param t Diffusion time (a non-negative number; `t = 0` gives the
#'   eigenvectors \eqn{\psi_l} themselves).
#' @param bandwidth Kernel bandwidth \eqn{\sigma}: a positive number or
#'   `"median_knn"`, `"median_pairwise"`, `"mean_pairwise"` (see Details).
#' @param k The neighbour of the `"median_knn"` bandwidth rule.
#' @param kernel `"auto"`, `"dense"` or `"knn"` (see Details).
#' @param kernel_k Number of nearest neighbours of the kNN kernel (`NULL`:
#'   `10 k` up to 20,000 points, falling to `k` at 200,000; see Details).
#' @param knn_method Neighbour search of the kNN kernel, the bandwidth rule and
#'   the Nyström rule: `"auto"` (default; the option `manifoldOOS.knn_method`),
#'   `"exact"` or `"hnsw"` (see [knn()]). The search used is recorded in
#'   `fit$params$knn_method` and [predict()] uses it.
#' @param pca `NULL` (default) or the number of principal components to fit
#'   on: the columns are centred (and scaled, with `pca_scale = TRUE`) and
#'   reduced by [pca()] first (sparse matrices stay sparse); the projection
#'   is part of the fit and [predict()] applies it. See [manifoldOOS-input].
#' @param pca_scale With `pca`: scale the columns to unit variance first.
#' @param neighbors `NULL` (default: searched) or the neighbour lists of the
#'   training rows, `list(idx, dist)` as [knn()] returns them (from another
#'   tool, say): `n` rows, at least as many columns as the fit needs (`k`),
#'   nearest first, a point not listing itself (or listing itself first in
#'   every row, as a search that includes the point returns it; that column
#'   is dropped). The fit's neighbour graph is built from them; new points
#'   are searched exactly. See [manifoldOOS-input].
#' @param metric `"euclidean"` (default), `"cosine"` or `"correlation"`:
#'   with the last two the fit works on the rows scaled to unit length
#'   (centred first, for correlation), where Euclidean distance orders
#'   neighbours as the metric does. Recorded in the fit and applied to new
#'   rows by [predict()]. See [manifoldOOS-input]. `"precomputed"`: `X` holds
#'   distances (see [manifoldOOS-distances]).
#' @param verbose Report the stages of the fit with time-stamped messages
#'   (see [manifoldOOS-progress]).
#' @return A `manifold_fit` of subclass `manifold_diffusion` with the
#'   training data (`X_train`), `sigma`, `alpha`, `t`, `kernel`, `kernel_k`,
#'   the eigenvalues \eqn{\lambda_0 = 1, \lambda_1, \dots} of \eqn{P}
#'   (`eigenvalues`), the eigenvectors \eqn{\psi_1, \dots} (`psi`), the
#'   kernel row sums \eqn{q} (`q`), the stationary distribution \eqn{\pi}
#'   (`pi`) and `solver`.
#' @seealso [manifold_fit], [laplacian_eigenmaps()] (the `alpha = 0`,
#'   `t = 0` relative, up to scaling), [neighbor_graph()].
#' @references Coifman, R. R. & Lafon, S. (2006). Diffusion maps. *Applied and
#'   Computational Harmonic Analysis* 21, 5-30.
#' @export
#' @examples
#' roll <- swiss_roll(500, seed = 1)
#' fit <- diffusion_map(roll$x[1:400, ], ndim = 2, t = 1)
#' fit
#' y_new <- predict(fit, roll$x[401:500, ])
#' # training rows are mapped onto their embedding
#' all.equal(predict(fit, roll$x[1:5, ]), embedding(fit)[1:5, ], check.attributes = FALSE)
#' plot(fit, color = roll$color[1:400])
diffusion_map <- function(X, ndim = 2, alpha = 1, t = 1, bandwidth = "median_knn", k = 10,
                          kernel = c("auto", "dense", "knn"), kernel_k = NULL,
                          knn_method = getOption("manifoldOOS.knn_method", "auto"),
                          pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                          verbose = getOption("manifoldOOS.verbose", FALSE)) {
  given <- is_distance_input(X, metric)
  n <- fit_prologue(ndim_gap = 2L, distances = "diffusion_map") %||% return(fit_input_model())
  alpha <- check_number(alpha, "alpha", lower = 0, upper = 1)
  t <- check_number(t, "t", lower = 0)
  k <- check_k(k, n)
  kernel <- check_choice(kernel, c("auto", "dense", "knn"), "kernel")
  bw <- check_width_rule(bandwidth, "bandwidth", c("median_knn", "median_pairwise", "mean_pairwise"))
  rule <- bw$rule
  bandwidth <- bw$value
  if (kernel == "auto") {
    kernel <- if (n <= getOption("manifoldOOS.dense_max_n", 2000L)) "dense" else "knn"
  }
  kernel_k <- if (kernel == "knn") {
    if (is.null(kernel_k)) default_kernel_k(k, n) else check_k(kernel_k, n, "kernel_k")
  } else NA_integer_
  if (kernel == "knn") {
    # the neighbour lists, the symmetrised kernel and its normalisations: a
    # peak of about 90 bytes per point and kernel neighbour (1.40 GB for
    # 10^5 points and kernel_k = 150 in bench/atlas.R)
    # the hint names the largest kernel_k that fits, when one does
    fits_k <- floor(available_memory() / (90 * as.numeric(n)))
    check_memory(90 * as.numeric(n) * kernel_k,
                 sprintf("the kNN kernel of %d points with kernel_k = %d", n, kernel_k), "kernel_k",
                 if (!is.na(fits_k) && fits_k >= 1) {
                   sprintf(paste0("use a smaller `kernel_k`: about %d fits ",
                                  "(kernel_k = k costs about what laplacian_eigenmaps() costs)."),
                           as.integer(min(fits_k, kernel_k - 1)))
                 } else "use a smaller `kernel_k`.")
  } else {
    # the n x n squared distances, their transpose and sum, and the kernel
    check_memory(40 * as.numeric(n)^2, sprintf("the dense kernel of %d points", n), "kernel",
                 "use kernel = \"knn\".")
  }
  threads <- default_threads()
  t0 <- mo_progress(verbose, "diffusion map: %d points x %d features -> %d dimensions (%s kernel)",
                    n, ncol(X), ndim, kernel)
  res <- timed({
    kernel_nn <- knn_method
    if (given) {
      nb <- knn_distances(X, k, n_threads = threads)
    } else if (kernel == "knn" && !inherits(knn_method, "manifold_precomputed_nn")) {
      # one search serves the bandwidth (first k columns) and the kernel
      nb_all <- knn(X, max(k, kernel_k), method = knn_method, n_threads = threads)
      kernel_nn <- structure(nb_all, class = "manifold_precomputed_nn")
      nb <- list(idx = nb_all$idx[, seq_len(k), drop = FALSE], dist = nb_all$dist[, seq_len(k), drop = FALSE])
      rm(nb_all)
    } else {
      nb <- knn(X, k, method = knn_method, n_threads = threads)
    }
    sigma <- graph_bandwidth(X, rule, bandwidth, nb, threads, distances = given)
    n_dup <- if (given) count_duplicates_distances(X) else count_duplicates(X, nb$dist)
    warn_duplicates(n_dup, "the diffusion map")
    K <- diffusion_kernel(X, sigma, kernel, kernel_k, kernel_nn, given, search_method = knn_method)
    rm(kernel_nn)
    t1 <- mo_progress(verbose, "diffusion map: kernel built (sigma = %.4g); eigen-solve", sigma, start = t0)
    m <- diffusion_eigen(K, ndim, alpha, kernel)
    mo_progress(verbose, "diffusion map: eigen-solve done with %s", describe_solver(m$method), start = t1)
    m$sigma <- sigma
    m$n_dup <- n_dup
    m
  })
  m <- res$value
  lambda <- m$values
  if (any(lambda <= 0)) {
    abort_input("ndim", sprintf(paste0("= %d asks for eigenvectors whose eigenvalues are not positive ",
                                       "(smallest kept: %.3g); use a smaller `ndim`."), ndim, min(lambda)))
  }
  mo_progress(verbose, "diffusion map: done", start = t0)
  Y <- m$psi * rep(lambda^t, each = n)
  fit <- new_manifold_fit(
    class = "manifold_diffusion", method = "Diffusion map", embedding = Y, X = X,
    params = c(list(knn_method = knn_method, alpha = alpha, t = t, sigma = m$sigma, kernel = kernel),
               if (kernel == "knn") list(kernel_k = kernel_k)),
    eigenvalues = c(m$dropped, lambda),
    oos_default = "nystrom", oos_available = "nystrom",
    fit_time = res$time, call = match.call(),
    X_train = if (given) NULL else X, sigma = m$sigma, sigma_rule = rule, alpha = alpha, t = t, kernel = kernel,
    k = k, kernel_k = kernel_k, psi = m$psi, q = m$q, pi = m$pi, n_duplicates = m$n_dup,
    solver = list(method = m$method, residual = m$residual, note = m$note, n_null = NA_integer_)
  )
  if (given) fit <- finish_distance_fit(fit, X, k)
  fit
}

# The default number of neighbours of the kNN kernel: 10 k up to 20,000
# points; above, the kernel keeps about the size it has at 20,000 points
# (10 k x 20,000 / n neighbours per point), but never fewer than k.
default_kernel_k <- function(k, n) {
  as.integer(min(n - 1, max(k, round(10 * k * min(1, 2e4 / n)))))
}

# The kernel matrix: dense (all pairs, unit diagonal) or the weights W of the
# sparse "or"-symmetrised kNN kernel K = W + I. A disconnected kNN kernel is an error naming
# the smallest kernel_k that connects it.
# `knn_method` may be the lists of the fit's own search (one search serves the
# bandwidth and the kernel); `search_method` is what a search for the
# connecting kernel_k of the error message uses.
diffusion_kernel <- function(X, sigma, kernel, kernel_k, knn_method, distances = FALSE,
                             search_method = knn_method) {
  n <- nrow(X)
  if (kernel == "dense") {
    if (distances) {
      D2 <- X^2
    } else {
      D2 <- core(.mo_sq_dist_cross(X, X))
      D2 <- (D2 + t(D2)) / 2
    }
    K <- exp(-D2 / (2 * sigma^2))
    diag(K) <- 1
    return(K)
  }
  graph <- function(method) {
    neighbor_graph(X, k = kernel_k, symmetrize = "or", weights = "heat", sigma = sigma,
                   knn_method = method, metric = if (distances) distance_metric else "euclidean")
  }
  g <- tryCatch(
    graph(knn_method),
    manifoldOOS_input_error = function(e) {
      if (is.null(e$n_components) && !identical(knn_method, search_method)) {
        # the lists of the fit's search cannot say which kernel_k connects the
        # graph: search again for the message
        e <- tryCatch(graph(search_method), manifoldOOS_input_error = function(e2) e2)
      }
      if (is.null(e$n_components)) stop(e)
      abort_input("kernel_k", sprintf(paste0(
        "= %d gives a kNN kernel with %d connected components; %s. Increase `kernel_k` ",
        "or use kernel = \"dense\"."), kernel_k, e$n_components,
        if (is.na(e$k_needed)) "no kernel_k tried connects it"
        else sprintf("the smallest kernel_k that connects it is %d", e$k_needed)))
    })
  # the weights W of K = W + I: the eigen-solve adds the unit diagonal as it
  # takes the matrix over (no copy of the kernel here)
  W <- g$W
  rm(g)
  if (!methods::is(W, "dgCMatrix")) W <- methods::as(methods::as(W, "generalMatrix"), "CsparseMatrix")
  W
}

# Alpha-normalisation, the symmetric conjugate A = D^-1/2 K^(alpha) D^-1/2 and
# its top ndim + 1 eigenpairs; the trivial pair (eigenvalue 1, vector
# proportional to sqrt(d)) is checked and dropped. Returns the psi
# (pi-orthonormal right eigenvectors of P), the eigenvalues, q and pi.
# K: the dense kernel, or the weights W of the sparse kernel K = W + I.
diffusion_eigen <- function(K, ndim, alpha, kernel) {
  if (kernel == "dense") {
    q <- rowSums(K)
    s <- q^(-alpha)
    Ka <- K * outer(s, s)
    d <- rowSums(Ka)
    r <- 1 / sqrt(d)
    A <- Ka * outer(r, r)
    A <- (A + t(A)) / 2
    e <- eigs_sym(A, "top", ndim + 1L)
    values <- e$values
    vectors <- e$vectors
  } else {
    # compressed from kernel to eigenvectors, the trivial pair deflated on
    # large graphs (methods/diffusion.h)
    e <- core(.mo_diffusion_fit_sparse(K, alpha, ndim, eig_opts(), add_unit_diagonal = TRUE))
    values <- e$values
    vectors <- e$vectors
    d <- e$d
    q <- e$q
    r <- 1 / sqrt(d)
  }
  if (values[2L] > 1 - 1e-10) {
    abort_input(if (kernel == "dense") "bandwidth" else "kernel_k", sprintf(paste0(
      "gives a kernel whose Markov chain is (numerically) disconnected: the second eigenvalue is %.15g. ",
      "Use a larger `bandwidth`%s."), values[2L], if (kernel == "knn") " or `kernel_k`" else ""))
  }
  v0 <- sqrt(d / sum(d))
  cos0 <- abs(sum(v0 * vectors[, 1L]))
  if (!(values[1L] > 1 - 1e-8 && cos0 > 1 - 1e-6)) {
    abort_numerical(sprintf(paste0("the diffusion map's trivial eigenpair was not found (top eigenvalue %.12g, ",
                                   "|cos| with sqrt(d) %.8f); the eigen-solver result is unreliable."),
                            values[1L], cos0))
  }
  V <- vectors[, -1L, drop = FALSE]
  psi <- V * (r * sqrt(sum(d)))
  flip <- apply(psi, 2L, function(v) v[which.max(abs(v))] < 0)
  psi[, flip] <- -psi[, flip]
  list(psi = unname(as.matrix(psi)), values = values[-1L], dropped = values[1L], q = as.numeric(q),
       pi = as.numeric(d / sum(d)), method = e$method,
       residual = if (is.null(e$residual)) NA_real_ else e$residual,
       note = if (is.null(e$note)) "" else e$note)
}

#' @export
predict_native.manifold_diffusion <- function(object, x, method, snap = TRUE, ...) {
  snap <- check_flag(snap, "snap")
  threads <- default_threads()
  Xt <- object$X_train
  given <- is_distance_fit(object)
  n <- object$n
  m <- nrow(x)
  lambda <- object$eigenvalues[-1L]
  scale <- lambda^(object$t - 1)
  w_train <- object$q^(-object$alpha)
  two_s2 <- 2 * object$sigma^2
  y <- matrix(0, m, length(lambda))
  far <- logical(m)
  n1 <- NULL  # the nearest training row of every new row, for `snap`
  if (object$kernel == "dense") {
    block <- max(1L, floor(4e6 / n))
    for (start in seq(1L, m, by = block)) {
      rows <- start:min(m, start + block - 1L)
      D2 <- if (given) x[rows, , drop = FALSE]^2 else core(.mo_sq_dist_cross(x[rows, , drop = FALSE], Xt))
      dmin <- apply(D2, 1L, min)
      W <- exp(-(D2 - dmin) / two_s2) * rep(w_train, each = length(rows))
      y[rows, ] <- (W %*% object$psi) / rowSums(W)
      far[rows] <- dmin / two_s2 > 700
    }
  } else {
    kk <- min(n, object$kernel_k + 1L)
    nb <- fit_knn(object, Xt, kk, query = x, n_threads = threads)
    D2 <- nb$dist^2
    dmin <- D2[, 1L]
    W <- exp(-(D2 - dmin) / two_s2) * matrix(w_train[nb$idx], m, kk)
    W <- W / rowSums(W)
    for (l in seq_along(lambda)) {
      y[, l] <- rowSums(W * matrix(object$psi[nb$idx, l], m, kk))
    }
    far <- dmin / two_s2 > 700
    # the kernel's search gives the nearest row too (its first column), as
    # in the Laplacian eigenmaps rule: no second search
    n1 <- list(idx = nb$idx[, 1L, drop = FALSE], dist = nb$dist[, 1L, drop = FALSE])
  }
  y <- y * rep(scale, each = m)
  snapped <- rep(FALSE, m)
  if (snap) {
    if (is.null(n1)) n1 <- fit_knn(object, Xt, 1L, query = x, n_threads = threads)
    snapped <- n1$dist[, 1L] == 0
    if (any(snapped)) {
      y[snapped, ] <- unname(object$embedding)[n1$idx[snapped, 1L], , drop = FALSE]
    }
  }
  finish_prediction(y, method, far = far & !snapped, snapped = snapped)
}

#' @export
summary_extra.manifold_diffusion <- function(object) {
  s <- object$solver
  lines <- c(
    sprintf("kernel: %s%s, sigma = %s (%s), alpha = %s, t = %s", object$kernel,
            if (identical(object$kernel, "knn")) sprintf(" (kernel_k = %d)", object$kernel_k) else "",
            format(signif(object$sigma, 4)), object$sigma_rule, format(object$alpha), format(object$t)),
    sprintf("eigen-solver: %s (relative residual %s)", s$method,
            if (is.finite(s$residual) && s$residual >= 0) format(signif(s$residual, 3)) else "n/a"))
  if (!is.null(s$note) && nzchar(s$note)) lines <- c(lines, paste("note:", s$note))
  if (object$n_duplicates > 0L) lines <- c(lines, sprintf("duplicated rows: %d", object$n_duplicates))
  structure(lines, class = "manifold_summary_lines")
}
