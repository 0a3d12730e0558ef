# Inverse maps: from embedding coordinates back to the input space.

reconstruct_generic_methods <- c("local_linear", "krr", "linear", "lvm", "reconstruction", "rbf")

#' Map embedding coordinates back to the input space
#'
#' `reconstruct()` is the inverse of [predict()][predict.manifold_fit()]: it
#' takes points in the embedding space (rows of `Y`, with `fit$ndim` columns)
#' and returns points in the input space (one row per row of `Y`, with the
#' training columns). It works for every fit.
#'
#' **The fit's own rule** (`method = NULL` picks it):
#' * `"exact"` for the linear fits -- [pca()], [lpp()], [olpp()], [npe()],
#'   [onpp()], linear [spectral_regression()] and [mds()] (classical MDS of
#'   Euclidean distances is PCA). With the forward map
#'   `y = (x - c) A + b`, the pre-image is the minimum-norm solution
#'   `x = c + (y - b) A^+` (`A^+` the pseudo-inverse of the `D x q` matrix
#'   `A`), so `reconstruct(fit, predict(fit, x))` is the orthogonal
#'   projection of `x - c` onto the span of the columns of `A` (for PCA: onto
#'   the principal subspace, after scaling when `scale = TRUE`). PCA with
#'   `ndim = ncol(X)` recovers `x` exactly.
#' * `"preimage"` for [kpca()]: the pre-image by kernel ridge regression
#'   learnt from the training embedding to the training data (Bakir, Weston
#'   and Schölkopf 2004), as scikit-learn's
#'   `KernelPCA(fit_inverse_transform = TRUE)` does:
#'   `x = k(y, Y)^T (K_Y + alpha I)^{-1} X`, with `K_Y` the kernel of the
#'   fit (same type and parameters) evaluated on the training embedding
#'   `Y`, no centring and no intercept; `alpha` defaults to 1, scikit-learn's
#'   default. For the RBF kernel, scikit-learn's `gamma` is
#'   `1 / (2 sigma^2)`.
#'
#' **Generic rules** (every fit; the default for fits without an own rule):
#' a regression from the training embedding to the training data, computed
#' on every call (nothing is cached in the fit):
#' * `"local_linear"` (default) -- GOoSE-style local linear map: the `k`
#'   nearest training points of `y` in the embedding (default
#'   `k = max(10, 2 (q + 1))`, at least `q + 1`), a least-squares affine map
#'   from their centred embedding coordinates to their centred inputs
#'   (minimum-norm solution; singular values below `1e-10` times the largest
#'   are dropped), applied to `y`. Exact wherever the inputs are an affine
#'   function of the embedding on the neighbourhood (flat data); a `y` equal
#'   to a training embedding point returns that training input (`snap`).
#' * `"krr"`, `"linear"`, `"lvm"`, `"reconstruction"`, `"rbf"` -- the maps of
#'   [oos_map()] with the roles of data and embedding swapped (the
#'   embedding is the input of the map, the training data its output);
#'   `...` goes to [oos_map()] (for instance `k`, `lambda`, `sigma`).
#'
#' The generic rules and the KPCA pre-image need the training data: pass it
#' as `X` unless the fit stores it (fits that store it: [kpca()], [mds()],
#' [isomap()], [lle()], [ltsa()], [laplacian_eigenmaps()], [plml()],
#' kernel [spectral_regression()], the supervised fits).
#'
#' Each row of `Y` is mapped independently, so a batch gives the same rows
#' as row-by-row calls.
#'
#' @param fit A `manifold_fit`.
#' @param Y Embedding coordinates: a numeric matrix or data frame with
#'   `fit$ndim` columns, one row per point.
#' @param method `NULL` (the fit's own rule, else `"local_linear"`),
#'   `"exact"` (linear fits), `"preimage"` (kernel PCA) or one of the generic
#'   rules `"local_linear"`, `"krr"`, `"linear"`, `"lvm"`,
#'   `"reconstruction"`, `"rbf"`.
#' @param X Training data (the rows used for fitting), needed by the generic
#'   rules and the pre-image when the fit does not store it.
#' @param k Number of neighbours of the `"local_linear"` rule (`NULL`: the
#'   default above).
#' @param alpha Ridge of the kernel PCA pre-image (`alpha` of scikit-learn).
#' @param ... Passed to [oos_map()] for the rules `"krr"`, `"linear"`,
#'   `"lvm"`, `"reconstruction"` and `"rbf"`.
#' @return A numeric matrix with one row per row of `Y` (row names kept) and
#'   one column per input feature (the training column names).
#' @references Bakir, G. H., Weston, J. and Schölkopf, B. (2004) Learning to
#'   find pre-images. *NIPS* 16.
#'
#'   Strange, H. and Zwiggelaar, R. (2011) A generalised solution to the
#'   out-of-sample extension problem in manifold learning. *AAAI*.
#' @seealso [predict.manifold_fit()] for the forward map.
#' @export
#' @examples
#' roll <- swiss_roll(300, seed = 1)
#' X <- roll$x
#' # PCA: the reconstruction is the projection on the principal plane
#' p <- pca(X, ndim = 2)
#' xr <- reconstruct(p, predict(p, X[1:5, ]))
#' # with all components the data come back exactly
#' p3 <- pca(X, ndim = 3)
#' max(abs(reconstruct(p3, predict(p3, X[1:5, ])) - X[1:5, ]))
#' # kernel PCA pre-image (kernel ridge regression, as scikit-learn)
#' kp <- kpca(X, ndim = 2, sigma = 5)
#' head(reconstruct(kp, embedding(kp)[1:3, ], alpha = 0.1))
#' # any fit: local linear regression from the embedding to the data
#' iso <- isomap(X, ndim = 2, k = 10)
#' path <- cbind(seq(-30, 30, length.out = 5), 0)
#' reconstruct(iso, path)
reconstruct <- function(fit, Y, ...) UseMethod("reconstruct")

#' @rdname reconstruct
#' @export
reconstruct.manifold_fit <- function(fit, Y, method = NULL, X = NULL, k = NULL, alpha = 1, ...) {
  validate_fit(fit, arg = "fit")
  if (is_distance_fit(fit)) {
    abort_input("fit", sprintf("was made from distances (a %s fit without coordinates): there is no input space to reconstruct.",
                               fit$method))
  }
  Y <- as_data_matrix(Y, "Y", min_rows = 1L)
  if (ncol(Y) != fit$ndim) {
    abort_input("Y", sprintf("must have %d columns (the embedding dimensions of the fit); it has %d.",
                             fit$ndim, ncol(Y)))
  }
  own <- reconstruct_own_rule(fit)
  choices <- c(own, reconstruct_generic_methods)
  method <- if (is.null(method)) choices[1] else check_choice(method, choices, "method")
  # `...` reaches oos_map() (which checks it) only for its rules
  if (method %in% c("exact", "preimage", "local_linear")) {
    check_dots(..., fun = "reconstruct()", context = sprintf("method \"%s\"", method))
  }
  x <- switch(method,
    exact = reconstruct_linear(fit, Y),
    preimage = reconstruct_preimage(fit, Y, alpha, X),
    local_linear = local_linear_map(unname(fit$embedding), training_data(fit, X, method),
                                    unname(Y), k),
    {
      map <- oos_map(unname(fit$embedding), training_data(fit, X, method), method = method, ...)
      predict(map, unname(Y))
    }
  )
  x <- invert_input(fit$input, as.matrix(x))
  attributes(x)[c("fallback", "certified")] <- NULL
  dimnames(x) <- list(rownames(Y), fit$feature_names)
  x
}

#' @export
reconstruct.default <- function(fit, Y, ...) {
  check_dots(..., fun = "reconstruct()")
  abort_input("fit", sprintf("must be a fitted model (a manifold_fit), not an object of class '%s'.",
                             class(fit)[1]))
}

# The fit's own inverse rule, if any.
reconstruct_own_rule <- function(fit) {
  if (inherits(fit, c("manifold_pca", "manifold_linear", "manifold_sr_linear", "manifold_mds"))) {
    return("exact")
  }
  if (inherits(fit, "manifold_kpca")) return("preimage")
  character(0)
}

# The training data of a fit: `X` when given (checked against the fit), else
# what the fit stores (`X_train` or `x_train`).
training_data <- function(fit, X = NULL, what = "this rule") {
  if (is.null(X)) {
    X <- if (!is.null(fit[["X_train"]])) fit[["X_train"]] else fit[["x_train"]]
    if (is.null(X)) {
      abort_input("X", sprintf(
        "(the training data) is needed for %s: this %s fit does not store it; pass `X = X_train`.",
        what, fit$method))
    }
    return(unname_matrix(X))
  }
  X <- fit_newdata(fit, X, arg = "X", min_rows = 1L)
  if (nrow(X) != fit$n) {
    abort_input("X", sprintf("must be the training data (%d rows); it has %d.", fit$n, nrow(X)))
  }
  unname_matrix(X)
}

# x = c + (y - b) A^+ for a forward map y = (x - c) A + b (on scaled
# columns for PCA with scale = TRUE).
reconstruct_linear <- function(fit, Y) {
  if (inherits(fit, "manifold_mds")) {
    Xt <- fit$x_train
    center <- colMeans(Xt)
    # principal axes: Xc' V / sqrt(l) = Xc' Y / l
    A <- crossprod(sweep(Xt, 2, center), unname(fit$embedding))
    A <- sweep(A, 2, fit$eigenvalues, "/")
    b <- rep(0, fit$ndim)
    s <- rep(1, length(center))
  } else {
    A <- unname(fit$rotation)
    center <- fit$center
    b <- if (!is.null(fit$y_mean)) fit$y_mean else rep(0, fit$ndim)
    s <- if (inherits(fit, "manifold_pca")) fit$scale else rep(1, length(center))
  }
  Ap <- pseudo_inverse(A)                      # q x D
  Z <- sweep(unname(Y), 2, b) %*% Ap
  Z <- sweep(Z, 2, s, "*")
  sweep(Z, 2, center, "+")
}

# Moore-Penrose pseudo-inverse via the SVD (relative tolerance 1e-10).
pseudo_inverse <- function(A, tol = 1e-10) {
  sv <- svd(A)
  keep <- sv$d > tol * max(sv$d)
  sv$v[, keep, drop = FALSE] %*% (t(sv$u[, keep, drop = FALSE]) / sv$d[keep])
}

# Kernel PCA pre-image by kernel ridge regression from the training
# embedding to the training data (scikit-learn's inverse_transform).
reconstruct_preimage <- function(fit, Y, alpha, X) {
  alpha <- check_number(alpha, "alpha", lower = 0)
  Xt <- training_data(fit, X, "the kernel PCA pre-image")
  ks <- structure(fit$kernel, class = "manifold_kernel")
  ks$sigma <- kernel_sigma(ks)
  Ytr <- unname(fit$embedding)
  K <- kernel_eval(ks, Ytr)
  diag(K) <- diag(K) + alpha
  coef <- tryCatch(solve(K, Xt), error = function(e) {
    abort_numerical(sprintf(paste0("the pre-image system (kernel of the embedding + alpha I) is singular ",
                                   "(%s); use a larger `alpha`."), conditionMessage(e)))
  })
  kernel_eval(ks, unname(Y), Ytr) %*% coef
}

# Local linear regression from embedding to data: for each query, an affine
# least-squares map on its k nearest training points in the embedding.
local_linear_map <- function(Ytr, Xtr, Ynew, k = NULL) {
  n <- nrow(Ytr)
  q <- ncol(Ytr)
  if (is.null(k)) {
    k <- min(max(10L, 2L * (q + 1L)), n)
  } else {
    k <- check_k(k, n, "k", self = FALSE)
  }
  if (k < q + 1L) {
    abort_input("k", sprintf("must be at least %d (the embedding dimension + 1) for method = \"local_linear\"; got %d.",
                             q + 1L, k))
  }
  nn <- knn(Ytr, k, query = Ynew)
  out <- matrix(0, nrow(Ynew), ncol(Xtr))
  for (i in seq_len(nrow(Ynew))) {
    idx <- nn$idx[i, ]
    if (nn$dist[i, 1] == 0) {
      out[i, ] <- Xtr[idx[1], ]
      next
    }
    Yn <- Ytr[idx, , drop = FALSE]
    Xn <- Xtr[idx, , drop = FALSE]
    my <- colMeans(Yn)
    mx <- colMeans(Xn)
    B <- pseudo_inverse(sweep(Yn, 2, my)) %*% sweep(Xn, 2, mx)
    out[i, ] <- mx + drop((Ynew[i, ] - my) %*% B)
  }
  out
}
