#' Local and global regressive mapping (LGRM)
#'
#' Yang, Nie, Xiang, Zhuang & Wang's LGRM (AAAI 2010): a manifold embedding
#' learned together with a closed-form, neighbour-free out-of-sample map.
#'
#' **Local term.** Each point's clique \eqn{N_i} (the point and its `k - 1`
#' nearest neighbours) is centred and reduced by local PCA to `p`
#' dimensions; a ridge regression (parameter `gamma`) from the local
#' coordinates to the embedding leaves the residual matrix
#' \eqn{A_i = H_k - \sum_{j \le p} \frac{s_j^2}{s_j^2 + \gamma} u_j u_j^\top}
#' (eq. 10 in its SVD form; \eqn{u_j, s_j} the clique's left singular pairs).
#' \eqn{L_l = \sum_i S_i A_i S_i^\top} is sparse, symmetric PSD, with
#' \eqn{L_l 1 = 0}. As \eqn{\gamma \to 0} with `p = ndim` it is LTSA's
#' alignment matrix.
#'
#' **Global term.** A kernel ridge regression with an unpenalised bias gives
#' \eqn{L_g = \gamma H (HKH + \gamma I)^{-1} H} (eq. 18). One
#' factorisation of \eqn{HKH + \gamma I} gives both \eqn{L_g} and the
#' out-of-sample coefficients (see *Solvers and cost*).
#'
#' **Embedding.** `Y` = the bottom `ndim` eigenvectors of
#' \eqn{M = L_{loc} + \mu L_g} after the constant null vector is removed by
#' deflation (\eqn{M + \tau 11^\top/n}, \eqn{\tau = 2\,\mathrm{tr}(M)/n}); columns
#' are orthonormal and centred (\eqn{Y^\top Y = I}, \eqn{Y^\top 1 = 0}), signs
#' fixed (largest entry positive). `mu = 0` is the pure local method
#' (footnote 1 of the paper).
#'
#' **Out-of-sample map** (`predict(fit, newdata)`, rule `"regression"`):
#' \eqn{y(x) = \beta^\top k(x) + c} with
#' \eqn{\beta = H (HKH + \gamma I)^{-1} Y} and \eqn{c = \bar y - \beta^\top K1/n},
#' computed in C++ (threaded over rows, each row independently). The map is
#' a kernel ridge regression of `Y` and does not interpolate it: on the
#' training rows it returns \eqn{Y - \gamma (HKH + \gamma I)^{-1} Y}, whose
#' RMS is stored as `train_residual_rms`. `predict(fit)` without `newdata`
#' returns `Y`.
#'
#' **The framework** (eq. 23): `local` may be `"lgrm"` (\eqn{L_l}), `"ltsa"`
#' (LTSA's alignment matrix), `"le"` (unnormalised graph Laplacian
#' \eqn{D - W} of the symmetrised `(k - 1)`-NN graph with heat weights
#' \eqn{\exp(-\|x_i - x_j\|^2/t)}, `t` = mean squared kNN-edge length unless
#' `le_t` is given), `"lle"` (\eqn{(I - R)^\top (I - R)}, `k - 1` neighbours,
#' regulariser `lle_reg` times the trace), or a user-supplied sparse or dense
#' symmetric PSD \eqn{n \times n} matrix with \eqn{L1 = 0}. With the linear
#' kernel and \eqn{\mu = 0} the map is spectral regression (Prop. 3), with a
#' nonlinear kernel kernel spectral regression (Prop. 4); with
#' \eqn{\mu \to \infty}, \eqn{\mu\gamma \to 0} the embedding tends to LPP
#' (linear kernel, Prop. 1) or KLPP (Prop. 2), both with the covariance
#' constraint.
#'
#' **Kernels.** `"rbf"`: \eqn{\exp(-\|a - b\|^2/\sigma^2)} (the paper's eq. 17,
#' *no factor 2*; `sigma = "median"` uses the median pairwise distance);
#' `"linear"`: \eqn{a^\top b}; `"polynomial"`: \eqn{(a^\top b + c_0)^q}
#' (`coef0`, `degree`); or a function `f(A, B)` returning the
#' `nrow(A) x nrow(B)` kernel matrix.
#'
#' **Solvers and cost.** The exact path needs the `n x n` kernel matrix. One
#' Cholesky factorisation \eqn{HKH + \gamma I = LL^\top}, computed in place
#' in the kernel's storage (\eqn{n^3/3} flops), gives both \eqn{L_g} and the
#' out-of-sample coefficients; if it fails (an indefinite user kernel) or is
#' numerically singular (reciprocal condition number below \eqn{10^{-13}}),
#' the eigendecomposition \eqn{HKH = Q\Lambda Q^\top} with negative
#' eigenvalues clamped at 0 takes over (\eqn{9n^3} flops). The bottom
#' eigenvectors of \eqn{M} come from shift-invert Lanczos with a dense
#' Cholesky factor of \eqn{M + \epsilon I}, also in place
#' (`eigen_solver = "iterative"`, the default for \eqn{n > 500}), or from a
#' full LAPACK eigendecomposition (`"dense"`, default for \eqn{n \le 500}, a
#' low threshold because the full decomposition costs about 27 times the
#' Cholesky factorisation). Peak memory is two dense
#' `n x n` matrices (1.6 GB at \eqn{n = 10000}). `fit$solver$global`
#' records which factorisation was used.
#'
#' **Landmarks (Nyström).** `landmarks = r` (a number) samples `r`
#' training rows (seeded by `seed`); a vector of row indices uses those rows.
#' The kernel is replaced by \eqn{K \approx \Phi\Phi^\top},
#' \eqn{\Phi = \kappa(X, Z) W_Z^{-1/2}}, so \eqn{L_g \approx H - F(F^\top F +
#' \gamma I)^{-1} F^\top} with \eqn{F = H\Phi}; the eigenproblem is solved by
#' shift-invert Lanczos with a sparse LDL' factor of \eqn{L_{loc} + (\mu +
#' \epsilon) I} and the Woodbury identity. The fit works with the \eqn{q}
#' eigen-directions of \eqn{W_Z} that are kept (eigenvalues above
#' \eqn{10^{-12}} times the largest): \eqn{F = F_q E_q^\top} with
#' \eqn{F_q = H\kappa(X, Z) E_q \mathrm{diag}(w_q)^{-1/2}}, which gives the
#' same \eqn{L_g} and coefficients with \eqn{q} columns instead of \eqn{r}
#' (for the Gaussian kernel \eqn{q} is often much smaller: 227 of 1000
#' landmarks on the Swiss roll), and the Woodbury matrix from half of the LDL'
#' solve. This agrees with the formulation of earlier builds
#' (`options(manifoldOOS.lgrm_nystrom = "explicit")`) up to rounding, not bit
#' for bit. Training costs
#' \eqn{O(n r q + r^3)} plus the sparse factorisation, prediction
#' \eqn{O(r d)} per point. With every row a landmark it reproduces the exact
#' path.
#'
#' **Landmarks without a factorisation.** The sparse factor of
#' \eqn{L_{loc}} fills in heavily when the data have many dimensions (a
#' neighbourhood graph of 50 principal components, say). With
#' `eigen_solver = "lobpcg"` the Nyström eigenproblem is solved instead by
#' LOBPCG (Knyazev 2001) with the constant vector deflated, preconditioned
#' by an algebraic multigrid V-cycle built from \eqn{L_{loc}}; the global
#' term enters only through products (\eqn{O(nq)} per vector), so no
#' factorisation is made. `"auto"` chooses between the two as
#' [laplacian_eigenmaps()] does: shift-invert below 20,000 rows, above by
#' the predicted cost of factorising \eqn{L_{loc}} (a symbolic analysis,
#' from 100,000 rows on after a screen on two patches of the graph): LOBPCG
#' above 1,500 flops per nonzero of
#' \eqn{L_{loc}} (option `manifoldOOS.lgrm_lobpcg_flops_per_nnz`), a lower
#' threshold than Laplacian eigenmaps' because the Woodbury identity adds
#' \eqn{q + 1} solves with the factor. `"iterative"` keeps shift-invert.
#' Both solve the same eigenproblem to a residual bound; `fit$solver$method`
#' and `fit$solver$note` say which ran. Measured on 50,000 points of a
#' Swiss roll in 50 noisy dimensions (200 landmarks, `k = 15`), the fit
#' takes about 15 s with LOBPCG and 150 s with shift-invert.
#'
#' **Scale of `gamma`.** `gamma` is absolute. For an embedding normalised to
#' \eqn{Y^\top Y = I}, the ridge part of the local cost stays of order
#' \eqn{\gamma} as the sample grows, while the residual that curvature leaves
#' in the local fits of the true coordinates falls like \eqn{(k/n)^{4/q}} on a
#' \eqn{q}-dimensional manifold. So a `gamma` that suits one sample size
#' over-penalises a denser one: the paper's \eqn{10^{-4}} suits up to about
#' 3000 Swiss-roll points, while 20,000 or 100,000 points are no longer unrolled
#' (affine \eqn{R^2} about 0.94, measured). Scaling `gamma` like
#' \eqn{n^{-4/q}} restores it (measured: `gamma = 1e-7` gives 0.999998
#' at \eqn{n = 20000}; at \eqn{n = 100000}, `gamma = 1e-6` gives 0.945 and
#' `gamma = 1e-8` 0.996). `gamma = "scaled"` keeps the paper's value up to
#' 3000 points, where it still unrolls the roll (\eqn{R^2} 0.9994 measured),
#' and scales it beyond: on 100,000 points
#' with 500 landmarks it gives \eqn{9 \times 10^{-8}}, affine \eqn{R^2}
#' 0.9995, and a map within Procrustes distance 0.0025 of the exact fit of a
#' 3000-point subsample at \eqn{10^{-4}} (`bench/lgrm.R`). With
#' \eqn{\gamma \to 0} the local term is LTSA's.
#'
#' **Bad input.** `k < p + 2` and `p > ncol(X)` are errors
#' (`k = p + 1` would fit every clique exactly); `sigma <= 0`, `gamma <= 0`,
#' `mu < 0` are errors; a disconnected clique graph gives a
#' `manifoldOOS_disconnected_warning` (with `mu > 0` the global term still
#' links the components; with `mu = 0` the embedding is not determined);
#' duplicated rows are kept with a warning; cliques whose `p`-th local
#' singular value is below \eqn{10^{-10}} times the first are counted.
#'
#' @param X Training data: a numeric matrix or data frame, rows are points.
#' @param ndim Target dimension \eqn{m}.
#' @param k Clique size *including* the point itself (the point and its
#'   `k - 1` nearest neighbours).
#' @param p Local PCA dimension (default `ndim`): the dimension of
#'   the local tangent model. The paper takes \eqn{p \in [m, d]}; `p` below
#'   `ndim` is allowed for manifolds of lower intrinsic dimension embedded in
#'   more dimensions (a closed loop drawn in 2-D: `p = 1`, `ndim = 2`).
#' @param gamma Ridge parameter of the local and global regressions, or
#'   `"scaled"`: the paper's \eqn{10^{-4}} up to 3000 points, scaled to larger
#'   samples as \eqn{10^{-4} (3000/n)^{4/\mathrm{ndim}}} (see *Scale of
#'   `gamma`*).
#' @param mu Weight of the global term (\eqn{\ge 0}).
#' @param kernel `"rbf"`, `"linear"`, `"polynomial"` or a function `f(A, B)`.
#' @param sigma RBF width (eq. 17) or `"median"`.
#' @param local `"lgrm"`, `"le"`, `"lle"`, `"ltsa"` or an \eqn{n \times n}
#'   symmetric PSD matrix with zero row sums (see Details).
#' @param landmarks `NULL` (exact) or the number of landmarks, or their row
#'   indices (Nyström path).
#' @param degree,coef0 Polynomial kernel \eqn{(a^\top b + c_0)^q}.
#' @param gamma_local,gamma_global Separate ridge parameters (default `gamma`).
#' @param le_t Heat-kernel parameter for `local = "le"` (`NULL`: mean squared
#'   kNN-edge length).
#' @param lle_reg Regulariser of the LLE weights for `local = "lle"`.
#' @param eigen_solver `"auto"`, `"dense"`, `"iterative"` (shift-invert) or,
#'   with `landmarks`, `"lobpcg"` (no sparse factorisation; see
#'   "Landmarks without a factorisation").
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
#' @param seed Seed for the landmark sample (`NULL`: current stream).
#' @param knn_method Neighbour search of the kNN graph and of the kNN-based
#'   out-of-sample rules: `"auto"` (default; the option
#'   `manifoldOOS.knn_method`), `"exact"` or `"hnsw"` (see [knn()]). The
#'   search used is recorded in `fit$params$knn_method` and [predict()] uses it.
#' @return A `manifold_fit` of subclass `manifold_lgrm` with, besides the
#'   common fields, `basis` (the training rows, or the landmarks), `beta`,
#'   `c`, `kernel` (its specification; `params$sigma` is the eq. 17 width),
#'   `train_residual_rms`, `quad` (\eqn{\mathrm{tr}(Y^\top L_{loc} Y)},
#'   \eqn{\mathrm{tr}(Y^\top L_g Y)}), `n_rank_deficient` (cliques whose `p`-th
#'   singular value is at most 1e-6 times the first), `n_components`
#'   (of the clique graph), `n_duplicates`, `landmarks` and `solver`.
#' @references Yang, Y., Nie, F., Xiang, S., Zhuang, Y. and Wang, W. (2010).
#'   Local and global regressive mapping for manifold learning with
#'   out-of-sample extrapolation. AAAI-10.
#' @seealso [ltsa()], [spectral_regression()], [klpp()], [lpp()].
#' @export
#' @examples
#' roll <- swiss_roll(700, convention = "wittman", seed = 1)
#' fit <- lgrm(roll$x[1:500, ], ndim = 2, k = 10, sigma = 10)
#' fit
#' y_new <- predict(fit, roll$x[501:700, ])
#' plot(fit, color = roll$color[1:500], newdata = roll$x[501:700, ],
#'      new_color = roll$color[501:700])
lgrm <- function(X, ndim = 2, k = 10, p = ndim, gamma = 1e-4, mu = 1e-5, kernel = "rbf",
                 sigma = "median", local = c("lgrm", "le", "lle", "ltsa"), landmarks = NULL,
                 degree = 2, coef0 = 1, gamma_local = gamma, gamma_global = gamma, le_t = NULL,
                 lle_reg = 1e-3, eigen_solver = c("auto", "dense", "iterative", "lobpcg"), seed = NULL,
                 knn_method = getOption("manifoldOOS.knn_method", "auto"),
                 pca = NULL, pca_scale = FALSE, metric = "euclidean", neighbors = NULL,
                 verbose = getOption("manifoldOOS.verbose", FALSE)) {
  if (needs_input_model()) return(fit_input_model())
  X <- as_data_matrix(X, "X", min_rows = 4L)
  knn_method <- local_knn_method(knn_method, X)
  n <- nrow(X)
  ndim <- check_ndim(ndim, n - 2L)
  k <- check_k(k, n + 1L, min = 2L)
  p <- check_number(p, "p", lower = 1, integer = TRUE)
  if (p > ncol(X)) {
    abort_input("p", sprintf("must lie in [1, ncol(X)] = [1, %d]; got %d.", ncol(X), p))
  }
  if (k < p + 2L) {
    abort_input("k", sprintf(paste0("must be at least p + 2 = %d (a clique of p + 1 points is fitted ",
                                    "exactly by its local coordinates); got %d."), p + 2L, k))
  }
  if (is.character(gamma)) {
    check_choice(gamma, "scaled", "gamma")
    gamma <- 1e-4 * min(1, 3000 / n)^(4 / ndim)
  }
  gamma <- check_number(gamma, "gamma", lower = 0, lower_open = TRUE)
  gamma_local <- check_number(gamma_local, "gamma_local", lower = 0)
  gamma_global <- check_number(gamma_global, "gamma_global", lower = 0, lower_open = TRUE)
  mu <- check_number(mu, "mu", lower = 0)
  lle_reg <- check_number(lle_reg, "lle_reg", lower = 0)
  eigen_solver <- check_choice(eigen_solver, c("auto", "dense", "iterative", "lobpcg"), "eigen_solver")
  if (eigen_solver == "lobpcg" && is.null(landmarks)) {
    abort_input("eigen_solver", paste0("\"lobpcg\" needs `landmarks` (the exact path's eigenproblem is dense); ",
                                       "use \"auto\", \"dense\" or \"iterative\", or set `landmarks`."))
  }
  seed <- check_seed(seed)
  verbose <- check_verbose(verbose)
  user_local <- !is.character(local)
  if (!user_local) local <- check_choice(local, c("lgrm", "le", "lle", "ltsa"), "local")
  ks <- lgrm_kernel(kernel, sigma, degree, coef0, X)
  threads <- default_threads()

  t0 <- mo_progress(verbose, "LGRM: %d points x %d features -> %d dimensions (k = %d, p = %d, %s)",
                    n, ncol(X), ndim, k, p, if (is.null(landmarks)) "exact" else "Nystrom landmarks")
  res <- timed({
    # ---- local matrix
    n_def <- 0L
    n_dup <- 0L
    n_comp <- 1L
    if (user_local) {
      L <- lgrm_check_local(local, n)
    } else {
      nb <- lgrm_cliques(X, k, knn_method)
      n_comp <- nb$n_components
      n_dup <- count_duplicates(X, nb$dist)
      warn_duplicates(n_dup, "LGRM")
      nbhd <- cbind(seq_len(n), nb$idx)
      storage.mode(nbhd) <- "integer"
      L <- switch(local,
        lgrm = {
          lo <- core(.mo_lgrm_local(X, nbhd, p, gamma_local, threads))
          n_def <- as.integer(lo$n_rank_deficient)
          lo$L
        },
        ltsa = core(.mo_ltsa_alignment(X, nbhd, ndim)),
        le = lgrm_le_laplacian(X, nb, le_t),
        lle = lle_cost(X, k - 1L, lle_reg, knn_method))
      L <- methods::as(L, "CsparseMatrix")
    }
    t1 <- mo_progress(verbose, "LGRM: local matrix (%s) done", if (user_local) "user" else local, start = t0)
    if (n_def > 0L) {
      warn_mo(sprintf("%d clique%s ha%s local rank below `p` = %d; the embedding may be unreliable.",
                      n_def, if (n_def == 1L) "" else "s", if (n_def == 1L) "s" else "ve", p))
    }
    # ---- global term and embedding
    if (is.null(landmarks)) {
      check_memory(16 * as.numeric(n)^2, sprintf("the exact LGRM fit of %d points (two dense n x n matrices)", n),
                   "landmarks", "set `landmarks` (the Nystrom path needs n x landmarks numbers).")
      dense <- eigen_solver == "dense" || (eigen_solver == "auto" && n <= 500L)
      Kuser <- if (ks$type == "function") kernel_eval(ks, X) else matrix(0, 0, 0)
      mo_progress(verbose, "LGRM: kernel, global term and %s eigen-solve of the %d x %d matrix",
                  if (dense) "dense" else "shift-invert", n, n)
      m <- core(.mo_lgrm_fit(L, X, Kuser, ks$type, lgrm_sigma_pkg(ks), 1, ks$coef0, ks$degree,
                             ndim, gamma_global, mu, dense, lgrm_eig_opts(eigen_solver)))
      basis <- X
      lm_idx <- NULL
    } else {
      lm_idx <- lgrm_landmarks(landmarks, n, seed)
      # the reduced path holds F_q and V (n x (q + 1) each, q <= landmarks)
      check_memory(8 * as.numeric(n) * (2 * length(lm_idx) + 40),
                   sprintf("the Nystrom LGRM fit of %d points with %d landmarks", n, length(lm_idx)),
                   "landmarks", "use fewer landmarks.")
      basis <- X[lm_idx, , drop = FALSE]
      # user kernels: the n x r kernel matrix from R; built-in kernels: computed
      # by row blocks in the compiled code (never stored whole)
      Ckz <- if (ks$type == "function") kernel_eval(ks, X, basis) else matrix(0, 0, 0)
      WZ <- kernel_eval(ks, basis)
      mo_progress(verbose, "LGRM: %d landmarks; eigen-solve", length(lm_idx))
      kp <- if (ks$type == "function") list(type = "linear", sigma = 1, gamma = 1, coef0 = 1, degree = 1)
            else list(type = ks$type, sigma = lgrm_sigma_pkg(ks), gamma = ks$gamma, coef0 = ks$coef0,
                      degree = ks$degree)
      m <- core(.mo_lgrm_fit_nystrom(L, X, basis, Ckz, WZ, kp$type, kp$sigma, kp$gamma, kp$coef0, kp$degree,
                                     ndim, gamma_global, mu,
                                     c(lgrm_eig_opts(eigen_solver),
                                       list(nystrom_explicit = lgrm_nystrom_explicit())), threads))
    }
    m
  })
  m <- res$value
  mo_progress(verbose, "LGRM: eigen-solve done with %s (global term: %s)", describe_solver(m$method),
              m$global_method, start = t1)
  mo_progress(verbose, "LGRM: done", start = t0)
  if (n_comp > 1L) {
    warn_mo(sprintf(paste0("the clique graph (k = %d) has %d connected components; %s"), k, n_comp,
                    if (mu > 0) "only the global term links them, the embedding may be unreliable."
                    else "with mu = 0 the embedding is not determined. Increase `k`."),
            class = "manifoldOOS_disconnected_warning")
  }
  tr <- if (is.null(landmarks)) sqrt(mean(m$train_residual^2)) else NA_real_
  new_manifold_fit(
    class = "manifold_lgrm", method = "LGRM", embedding = m$Y, X = X,
    params = list(knn_method = knn_method, k = k, p = p, gamma = gamma, mu = mu,
                  kernel = if (ks$type == "function") "function" else ks$type,
                  sigma = ks$sigma17, local = if (user_local) "user" else local,
                  landmarks = if (is.null(lm_idx)) NULL else length(lm_idx)),
    eigenvalues = m$values,
    oos_default = "regression", oos_available = "regression",
    fit_time = res$time, call = match.call(),
    basis = unname(basis), beta = m$beta, c = m$c, kernel = ks,
    train_residual_rms = tr, quad = c(local = m$ll_quad, global = m$lg_quad),
    n_rank_deficient = n_def, n_components = n_comp, n_duplicates = n_dup,
    landmarks = lm_idx, solver = list(method = m$method, global = m$global_method, residual = NA_real_, note = m$note)
  )
}

#' @export
predict_native.manifold_lgrm <- function(object, x, method, ...) {
  ks <- object$kernel
  y <- if (ks$type == "function") {
    kernel_eval(ks, x, object$basis) %*% object$beta + rep(object$c, each = nrow(x))
  } else {
    core(.mo_lgrm_predict(object$basis, object$beta, object$c, unname(x), ks$type, lgrm_sigma_pkg(ks),
                          1, ks$coef0, ks$degree, default_threads()))
  }
  finish_prediction(y, method)
}

#' @export
summary_extra.manifold_lgrm <- function(object) {
  s <- object$solver
  lines <- c(sprintf("eigen-solver: %s; global term by %s", s$method, if (is.null(s$global)) "?" else s$global),
             sprintf("tr(Y' L_loc Y) = %s, tr(Y' L_g Y) = %s", format(signif(object$quad[1], 4)),
                     format(signif(object$quad[2], 4))))
  if (is.finite(object$train_residual_rms)) {
    lines <- c(lines, sprintf("RMS of predict(fit, X_train) - Y: %s (the map is a ridge regression)",
                              format(signif(object$train_residual_rms, 4))))
  }
  if (!is.null(object$landmarks)) lines <- c(lines, sprintf("Nystrom landmarks: %d", length(object$landmarks)))
  if (!is.null(s$note) && nzchar(s$note)) lines <- c(lines, paste("note:", s$note))
  if (object$n_rank_deficient > 0L) lines <- c(lines, sprintf("rank-deficient cliques: %d", object$n_rank_deficient))
  if (object$n_components > 1L) lines <- c(lines, sprintf("clique graph components: %d", object$n_components))
  structure(lines, class = "manifold_summary_lines")
}

# ---- helpers --------------------------------------------------------------------

# Kernel specification: the eq. 17 width sigma17 is stored; the package's
# kernels.h uses exp(-d^2 / (2 s^2)), so s = sigma17 / sqrt(2).
lgrm_kernel <- function(kernel, sigma, degree, coef0, X) {
  if (is.function(kernel)) {
    ks <- kernel_spec(kernel)
    ks$sigma17 <- NA_real_
    ks$coef0 <- NA_real_
    ks$degree <- NA_real_
    return(ks)
  }
  if (identical(kernel, "poly")) kernel <- "polynomial"
  type <- check_choice(kernel, c("rbf", "linear", "polynomial"), "kernel")
  s17 <- NA_real_
  if (type == "rbf") {
    if (is.character(sigma)) {
      check_choice(sigma, "median", "sigma")
      s17 <- pairwise_scale(X, "median_pairwise")
    } else {
      s17 <- check_number(sigma, "sigma", lower = 0, lower_open = TRUE)
    }
  }
  ks <- kernel_spec(type, sigma = if (type == "rbf") s17 / sqrt(2) else 1, degree = degree,
                    gamma = 1, coef0 = coef0)
  ks$sigma17 <- s17
  ks
}

lgrm_sigma_pkg <- function(ks) if (is.na(ks$sigma)) 1 else ks$sigma

# options(manifoldOOS.lgrm_nystrom = "explicit"): the Nystrom path's explicit
# formulation (F = H Phi with r columns; kept for comparison) instead of the
# reduced one (the kept eigen-directions of the landmark kernel only).
lgrm_nystrom_explicit <- function() {
  v <- getOption("manifoldOOS.lgrm_nystrom", "reduced")
  if (!(is.character(v) && length(v) == 1L && v %in% c("reduced", "explicit"))) {
    abort_input("options(manifoldOOS.lgrm_nystrom)", "must be \"reduced\" or \"explicit\".")
  }
  identical(v, "explicit")
}

lgrm_eig_opts <- function(eigen_solver) {
  # "iterative": shift-invert always; "auto": the automatic choice of the
  # deflated problems (used by the Nystrom path only), with LGRM's own
  # threshold: the Woodbury identity adds q + 1 solves with the factor to
  # shift-invert, so LOBPCG wins from a lower predicted cost than in LE
  # (bench/atlas.R, routes lgrm_iterative and lgrm_lobpcg)
  eig_opts(method = switch(eigen_solver, auto = "auto", dense = "dense", iterative = "iterative",
                           lobpcg = "iterative"),
           deflated = switch(eigen_solver, iterative = "shift_invert", lobpcg = "lobpcg", "auto"),
           lobpcg_flops_per_nnz = getOption("manifoldOOS.lgrm_lobpcg_flops_per_nnz", 1500),
           shift_eps = 1e-10)
}

# Cliques: the k - 1 nearest neighbours of every point (ties by index) and
# the number of connected components of the "or"-symmetrised clique graph.
lgrm_cliques <- function(X, k, knn_method = "exact") {
  g <- withCallingHandlers(
    neighbor_graph(X, k = k - 1L, symmetrize = "or", weights = "binary", on_disconnected = "connect",
                   knn_method = knn_method),
    manifoldOOS_warning = function(w) {
      if (grepl("connected components", conditionMessage(w))) invokeRestart("muffleWarning")
    })
  list(idx = g$idx, dist = g$dist, n_components = g$initial_components$n_components)
}

# Unnormalised heat-kernel Laplacian on the symmetrised kNN graph (W = max(W, W')),
# weights exp(-d^2 / le_t): the package's heat weights with sigma = sqrt(le_t / 2).
lgrm_le_laplacian <- function(X, nb, le_t) {
  if (is.null(le_t)) le_t <- mean(nb$dist^2)
  le_t <- check_number(le_t, "le_t", lower = 0, lower_open = TRUE)
  W <- core(.mo_knn_graph(nb$idx, nb$dist, nrow(X), "or", "heat", sqrt(le_t / 2)))
  graph_laplacian(W, "unnormalized")
}

lgrm_check_local <- function(L, n) {
  if (!(inherits(L, "Matrix") || is.matrix(L))) {
    abort_input("local", "must be \"lgrm\", \"le\", \"lle\", \"ltsa\" or an n x n matrix.")
  }
  if (nrow(L) != n || ncol(L) != n) abort_input("local", sprintf("must be %d x %d.", n, n))
  L <- methods::as(methods::as(L, "CsparseMatrix"), "generalMatrix")
  L <- methods::as(L, "dMatrix")
  if (any(!is.finite(L@x))) abort_input("local", "must contain only finite values.")
  sc <- max(abs(L@x), 1e-300)
  if (max(abs(L - Matrix::t(L))) > 1e-10 * sc) abort_input("local", "must be symmetric.")
  if (max(abs(Matrix::rowSums(L))) > 1e-8 * sc * sqrt(n)) {
    abort_input("local", "must have zero row sums (L 1 = 0).")
  }
  L
}

lgrm_landmarks <- function(landmarks, n, seed) {
  if (!is.numeric(landmarks) || anyNA(landmarks)) abort_input("landmarks", "must be NULL, a number or row indices.")
  if (length(landmarks) == 1L) {
    r <- check_number(landmarks, "landmarks", lower = 2, upper = n, integer = TRUE)
    if (r == n) return(seq_len(n))
    return(sort(with_seed_mo(seed, sample.int(n, r))))
  }
  idx <- as.integer(landmarks)
  if (length(idx) < 2L) abort_input("landmarks", "must name at least 2 rows (or be a number of landmarks).")
  if (any(idx < 1L | idx > n) || anyDuplicated(idx)) {
    abort_input("landmarks", sprintf("row indices must be distinct and lie in [1, %d].", n))
  }
  idx
}
