# Neighborhood preserving polynomial embedding (NPPE / SNPPE, Qiao et al.) and
# the kernel-extrapolation stand-in used as its comparison.

# Number of polynomial features of degree 1..p on D coordinates.
nppe_feature_count <- function(D, degree, basis) {
  if (basis == "hadamard") D * degree else choose(D + degree, degree) - 1
}

# Refuse fits whose feature matrix / Gram matrices would not fit: the message
# gives the feature count and the memory needed.
nppe_check_size <- function(n, D, degree, basis) {
  q <- nppe_feature_count(D, degree, basis)
  bytes <- 8 * (2 * n * q + 3 * q^2)
  max_q <- getOption("manifoldOOS.nppe_max_features", 20000)
  max_bytes <- getOption("manifoldOOS.nppe_max_bytes", 4e9)
  if (q > max_q || bytes > max_bytes) {
    abort_input("degree", sprintf(paste0(
      "gives %s polynomial features (basis = \"%s\", degree %d on %d non-constant columns); the fit would ",
      "need about %s of memory (limits: %s features, %s; options manifoldOOS.nppe_max_features / ",
      "manifoldOOS.nppe_max_bytes). Use basis = \"hadamard\", a lower degree, or reduce the dimension first."),
      format(q, big.mark = ",", scientific = FALSE), basis, degree, D, format_bytes(bytes),
      format(max_q, big.mark = ",", scientific = FALSE), format_bytes(max_bytes)))
  }
  q
}

format_bytes <- function(b) {
  if (b >= 1e9) sprintf("%.1f GB", b / 1e9) else if (b >= 1e6) sprintf("%.1f MB", b / 1e6) else sprintf("%.0f kB", b / 1e3)
}

#' Neighborhood preserving polynomial embedding (NPPE and simplified NPPE)
#'
#' Qiao, Zhang, Wang & Zhang's explicit nonlinear map: every embedding
#' coordinate is a polynomial of the input, \eqn{y(x) = V^\top(\varphi_p(\tilde
#' x) - \bar\varphi)}{y(x) = t(V) (phi(x~) - phibar)}, fitted so that the
#' training embedding preserves the LLE reconstruction weights.
#'
#' **Algorithm** (Qiao et al. 2013). (1) LLE reconstruction weights \eqn{R} on the
#' raw `X` (`k` neighbours, local Gram matrices regularised by `reg` times
#' their trace, as in [lle()] and [npe()]) and \eqn{M = (I - R)^\top(I - R)}
#' (the paper's \eqn{D - W} with the corrected eq. 29,
#' \eqn{W = R + R^\top - R^\top R}). (2) The inputs are standardised for the
#' expansion only, \eqn{\tilde x = (x - \mu)/s} (`scale`); constant columns
#' are dropped with a warning. (3) Polynomial features \eqn{\varphi_p} of
#' degree 1 to `degree`: `basis = "hadamard"` (SNPPE, eq. 30) the pure powers
#' \eqn{\tilde x_j^r}, \eqn{q = pD} features; `basis = "full"` (NPPE) every
#' distinct monomial, \eqn{q = \binom{D+p}{p} - 1}. The paper's Kronecker
#' basis (eq. 18) spans the same functions as `"full"` but repeats every mixed
#' monomial, which makes its right-hand matrix singular; `"full"` gives the
#' same embedding and map. Features are centred (`center = TRUE`, which adds
#' the constant term and the constraint \eqn{\sum_i y_i = 0}). (4) \eqn{V}
#' solves \eqn{\tilde F^\top M \tilde F v = \lambda \tilde F^\top \tilde F v}
#' for the `ndim` smallest \eqn{\lambda}, normalised so that
#' \eqn{Y^\top Y = I}, with \eqn{Y = \tilde F V}. With `ridge = 0` the problem
#' is solved exactly: through a Cholesky factor of \eqn{B = \tilde F^\top
#' \tilde F} when it is numerically positive definite, otherwise restricted
#' to the range of \eqn{\tilde F} (the PCA step of [npe()]: no tuning,
#' handles \eqn{q \ge N}, constant pixels and collinear features;
#' `options(manifoldOOS.nppe_force_range = TRUE)` always takes this path). With
#' `ridge = eps > 0` the coefficients are penalised:
#' \eqn{\min_v v^\top(\tilde F^\top M \tilde F + \epsilon\,\mathrm{tr}(B)/q\, I)v}
#' subject to \eqn{v^\top B v = 1} (recommended when \eqn{q} approaches
#' \eqn{N}, e.g. images, where the polynomial class can nearly interpolate any
#' \eqn{N}-vector). A ridge on the constraint side,
#' \eqn{B + \epsilon I}, would make every null direction of
#' \eqn{\tilde F} an optimal solution with a vanishing embedding (observed on
#' USPS zeros: training coordinates of size 1e-11), so the penalty is put on
#' the objective instead. Signs: the largest entry of each
#' column of the embedding is positive.
#'
#' Because the weights come from the raw data, the result does not depend on
#' `scale` (it only changes conditioning), the `"full"` basis is invariant to
#' rotation, translation and isotropic scaling of `X`, and SNPPE to
#' translation and isotropic scaling (not rotation: it has no cross terms).
#' `degree = 1` is NPE/NPP ([npe()]). `center = FALSE, scale = "none"` is the
#' literal (uncentred) form of the paper; a constant coordinate it may return
#' is skipped.
#'
#' **Out-of-sample map.** `predict(fit, newdata)` evaluates the polynomial in
#' C++, threaded over blocks of rows with one feature vector per thread (the
#' feature matrix of the new points is never formed): \eqn{O(q \cdot
#' \mathrm{ndim})} per point, no neighbour search and no stored training data.
#' `predict(fit, X_train)` reproduces the training embedding.
#'
#' **Bad input.** `k` must be below the number of rows; `degree` must be a
#' whole number \eqn{\ge 1}; bases with more than
#' `getOption("manifoldOOS.nppe_max_features", 20000)` features or needing
#' more than `getOption("manifoldOOS.nppe_max_bytes", 4e9)` bytes are refused
#' with the feature count and memory in the message; `ndim` must not exceed
#' the number of features.
#'
#' @param X Training data: numeric matrix or data frame, one row per point.
#' @param ndim Target dimension.
#' @param k Number of neighbours for the LLE weights.
#' @param degree Polynomial degree \eqn{p \ge 1}.
#' @param basis `"hadamard"` (SNPPE, default) or `"full"` (all monomials).
#' @param ridge Relative coefficient penalty \eqn{\epsilon \ge 0} (0: the
#'   exact solve; see Details).
#' @param reg Regulariser of the local Gram matrices (relative to their trace).
#' @param center Centre the features (default); `FALSE` is the literal form.
#' @param scale Input standardisation before the expansion: `"coord"`
#'   (per-column mean and sd), `"global"` (mean, one RMS scale) or `"none"`.
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
#'   rows by [predict()]. See [manifoldOOS-input].
#' @param verbose Report the stages of the fit with time-stamped messages
#'   (see [manifoldOOS-progress]).
#' @param n_threads Threads for the features (results do not depend on it);
#'   `predict(fit, newdata, n_threads = )` sets those of the map (default
#'   `getOption("manifoldOOS.threads")`).
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @return A `manifold_fit` of subclass `manifold_nppe` with the training
#'   embedding and exactly what the map needs: `coefficients` (\eqn{V},
#'   \eqn{q \times} `ndim`), `center` and `scale` (\eqn{\mu}, \eqn{s} of the
#'   kept columns), `kept_columns`, `dropped_columns`, `feature_means`
#'   (\eqn{\bar\varphi}), `degree`, `basis`, `n_features_poly` (\eqn{q}) and
#'   `solver` diagnostics. [nppe_terms()] lists the monomials.
#' @references Qiao, H., Zhang, P., Wang, D. and Zhang, B. (2013) An explicit
#'   nonlinear mapping for manifold learning. *IEEE Transactions on
#'   Cybernetics* 43(1), 51--63.
#' @seealso [npe()] (the linear case), [lle()], [ke_lle()] (the
#'   kernel-extrapolation stand-in used for comparison).
#' @export
#' @examples
#' roll <- swiss_roll(1200, convention = "wittman", seed = 1)
#' fit <- nppe(roll$x[1:1000, ], ndim = 2, k = 10, degree = 2)
#' fit
#' y_new <- predict(fit, roll$x[1001:1200, ])
#' plot(y_new, col = hcl.colors(100)[cut(roll$color[1001:1200], 100)], pch = 16)
nppe <- function(X, ndim = 2, k = 10, degree = 2, basis = c("hadamard", "full"), ridge = 0,
                 reg = 1e-3, center = TRUE, scale = c("coord", "global", "none"),
                 n_threads = default_threads(),
                 knn_method = getOption("manifoldOOS.knn_method", "auto"),
                 pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                 verbose = getOption("manifoldOOS.verbose", FALSE)) {
  n <- fit_prologue() %||% return(fit_input_model())
  k <- check_k(k, n)
  degree <- check_number(degree, "degree", lower = 1, upper = 50, integer = TRUE)
  basis <- check_choice(basis, c("hadamard", "full"), "basis")
  ridge <- check_number(ridge, "ridge", lower = 0)
  reg <- check_number(reg, "reg", lower = 0)
  center <- check_flag(center, "center")
  scale <- check_choice(scale, c("coord", "global", "none"), "scale")
  n_threads <- check_threads(n_threads)
  sds <- sqrt(pmax(colSums(sweep(X, 2, colMeans(X))^2) / (n - 1), 0))
  if (!(max(sds) > 0)) abort_input("X", "has no variation: every column is constant.")
  D_eff <- sum(sds >= 1e-12 * max(sds))
  q <- nppe_check_size(n, D_eff, degree, basis)
  ndim <- check_ndim(ndim, min(n - 1L, q))
  label <- if (basis == "hadamard") "SNPPE" else "NPPE"
  t0 <- mo_progress(verbose, "%s: %d points x %d features -> %d dimensions (k = %d, degree %d, %d polynomial features)",
                    label, n, ncol(X), ndim, k, degree, as.integer(q))
  res <- timed({
    M <- lle_cost(X, k, reg, knn_method)
    t1 <- mo_progress(verbose, "%s: kNN and reconstruction weights done; polynomial features and eigen-solve",
                      label, start = t0)
    core(.mo_nppe_fit(X, M, ndim, degree, basis, center, scale, ridge,
                      isTRUE(getOption("manifoldOOS.nppe_force_range", FALSE)), 1e-10,
                      as.integer(getOption("manifoldOOS.linear_dense_max", 400L)),
                      lp_eig_control(), n_threads))
  })
  m <- res$value
  mo_progress(verbose, "%s: eigen-solve done with %s", label, describe_solver(list(path = m$path,
              eig_method = m$eig_method)), start = t1)
  mo_progress(verbose, "%s: done", label, start = t0)
  if (length(m$dropped)) {
    nm <- colnames(X)[m$dropped]
    ids <- if (is.null(nm)) m$dropped else nm
    shown <- paste(utils::head(ids, 8L), collapse = ", ")
    if (length(ids) > 8L) shown <- paste0(shown, ", ...")
    warn_mo(sprintf("%d constant column%s (%s) dropped from the polynomial features.",
                    length(m$dropped), if (length(m$dropped) == 1L) "" else "s", shown))
  }
  V <- m$V
  dimnames(V) <- list(NULL, paste0("Dim", seq_len(ncol(V))))
  new_manifold_fit(
    class = "manifold_nppe", method = if (basis == "hadamard") "SNPPE" else "NPPE",
    embedding = m$Y, X = X,
    params = list(knn_method = knn_method, k = k, degree = degree, basis = basis, ridge = ridge, reg = reg,
                  center = center, scale = scale),
    eigenvalues = m$values, oos_default = "polynomial", oos_available = "polynomial",
    fit_time = res$time, call = match.call(),
    coefficients = V, center = m$mu, scale = m$s, kept_columns = m$keep,
    dropped_columns = m$dropped, feature_means = m$phibar, degree = degree, basis = basis,
    n_features_poly = as.integer(q),
    solver = list(path = m$path, rank = m$rank, ridge = m$ridge, eig_method = m$eig_method,
                  n_collapsed = m$n_collapsed)
  )
}

#' @export
predict_native.manifold_nppe <- function(object, x, method, n_threads = default_threads(), ...) {
  n_threads <- check_threads(n_threads)
  core(.mo_nppe_predict(x, as.integer(object$kept_columns), object$center, object$scale,
                        object$feature_means, unname(object$coefficients), object$degree,
                        object$basis, n_threads))
}

#' @export
summary_extra.manifold_nppe <- function(object) {
  s <- object$solver
  structure(list(text = c(
    sprintf("  polynomial map: %s basis, degree %d, %d features%s", object$basis, object$degree,
            object$n_features_poly,
            if (length(object$dropped_columns)) sprintf(" (%d constant columns dropped)",
                                                        length(object$dropped_columns)) else ""),
    sprintf("  solver: %s (rank %d%s), eigen-solver %s", s$path, as.integer(s$rank),
            if (s$ridge > 0) sprintf(", ridge %.3g", s$ridge) else "", s$eig_method))),
    class = "manifold_text")
}

#' Monomials of an NPPE map
#'
#' The exponent table of the polynomial features of a fit from [nppe()]:
#' one row per feature (in the order of the rows of `fit$coefficients`), one
#' column per kept input column.
#'
#' @param fit A fit from [nppe()].
#' @return An integer matrix of exponents.
#' @export
#' @examples
#' fit <- nppe(swiss_roll(300, seed = 1)$x, degree = 2, basis = "full")
#' cbind(nppe_terms(fit), round(fit$coefficients, 3))
nppe_terms <- function(fit) {
  if (!inherits(fit, "manifold_nppe")) abort_input("fit", "must be a fit from nppe().")
  E <- core(.mo_poly_exponents(length(fit$kept_columns), fit$degree, fit$basis))
  nm <- fit$feature_names[fit$kept_columns]
  colnames(E) <- if (is.null(nm)) paste0("x", fit$kept_columns) else nm
  E
}

#' Kernel extrapolation of LLE (stand-in for Vishwanathan et al.'s KE)
#'
#' The comparison method "KE" of Qiao et al. (kernel extrapolation,
#' Vishwanathan, Borgwardt, Guttman & Smola 2006) is not specified in that
#' paper. **This function is a reconstruction, not the original code**: LLE
#' ([lle()]) on the training data, extended to new points by kernel ridge
#' regression of the LLE embedding on a Gaussian base kernel
#' \eqn{k_0(a, b) = \exp(-\|a - b\|^2 / s^2)}, \eqn{s^2} the median squared
#' pairwise training distance, ridge `lambda` (the representer-theorem form
#' \eqn{y(x) = Y^\top (K_0 + \lambda I)^{-1} k_0(x)}; the LLE embedding is
#' centred, so the intercept of [oos_map()]'s `"krr"` rule (with `bias = "mean"`) is
#' zero up to rounding). Each new point costs \eqn{O(ND)}: its kernel row
#' against all stored training points.
#'
#' @inheritParams lle
#' @param lambda Ridge of the kernel regression.
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
#'   rows by [predict()]. See [manifoldOOS-input].
#' @param verbose Report the stages of the fit with time-stamped messages
#'   (see [manifoldOOS-progress]).
#' @param sigma Bandwidth \eqn{\sigma} of `exp(-d^2 / (2 sigma^2))`; `NULL`
#'   uses \eqn{\sigma^2 = s^2/2} with \eqn{s} the median pairwise distance.
#' @param eigen_solver Eigen-solver of the LLE step (see [lle()]); the sparse
#'   shift-invert solver is the default here because it is much faster than a
#'   dense decomposition for the training sizes of the comparison.
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @return A `manifold_fit` of subclass `manifold_ke_lle` (method label
#'   `"KE (stand-in)"`), storing the kernel map (and hence the training data).
#' @seealso [nppe()].
#' @export
#' @examples
#' roll <- swiss_roll(700, convention = "wittman", seed = 2)
#' ke <- ke_lle(roll$x[1:500, ], k = 10)
#' dim(predict(ke, roll$x[501:700, ]))
ke_lle <- function(X, ndim = 2, k = 10, reg = 1e-3, lambda = 1e-3, sigma = NULL,
                   eigen_solver = c("sparse", "auto", "dense"),
                   knn_method = getOption("manifoldOOS.knn_method", "auto"),
                   pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                   verbose = getOption("manifoldOOS.verbose", FALSE)) {
  n <- fit_prologue() %||% return(fit_input_model())
  lambda <- check_number(lambda, "lambda", lower = 0)
  if (is.null(sigma)) {
    sigma <- pairwise_scale(X, "median_pairwise") / sqrt(2)
  } else {
    sigma <- check_number(sigma, "sigma", lower = 0, lower_open = TRUE)
  }
  t0 <- mo_progress(verbose, "KE (stand-in): LLE embedding, then a kernel regression map (sigma = %.4g)",
                    sigma)
  res <- timed({
    base <- lle(X, ndim = ndim, k = k, reg = reg, knn_method = knn_method,
                eigen_solver = check_choice(eigen_solver, c("sparse", "auto", "dense"), "eigen_solver"),
                verbose = verbose)
    map <- oos_map(X, embedding(base), method = "krr", kernel = "rbf", sigma = sigma, lambda = lambda,
                   bias = "mean", verbose = verbose)
    list(base = base, map = map)
  })
  mo_progress(verbose, "KE (stand-in): done", start = t0)
  new_manifold_fit(
    class = "manifold_ke_lle", method = "KE (stand-in)", embedding = embedding(res$value$base), X = X,
    params = list(knn_method = knn_method, k = k, reg = reg, lambda = lambda, sigma = sigma),
    eigenvalues = res$value$base$eigenvalues, oos_default = "ke", oos_available = "ke",
    fit_time = res$time, call = match.call(), map = res$value$map
  )
}

#' @export
predict_native.manifold_ke_lle <- function(object, x, method, ...) {
  unname(predict(object$map, x))
}
