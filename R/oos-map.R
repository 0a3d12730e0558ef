# Out-of-sample maps for any embedding: GOoSE, sparse coding, LVM,
# reconstruction weights, linearization, RBF network, kernel ridge regression.

# The registry of out-of-sample rules: one entry per rule, and everything
# else is derived from it (the choices of oos_map()'s `method`,
# `oos_map_methods`, the generic rules every fit accepts, the dispatch of
# predict() and the list of rules on the help page). An entry holds
#   doc     the rule's paragraph on ?oos_map (markdown; a leading line names it),
#   build   function(X, Y, a): checks the arguments the rule uses (`a`: the
#           arguments of oos_map(), `knn_method` resolved) and returns
#           list(params = , data = ): settings and what predict() needs,
#   predict function(d, p, x, km, n_threads): the coordinates of the rows of
#           `x` from data `d` and params `p` (`km`: the neighbour search);
#           per-row attributes named in `row_attributes` may be attached,
#   row_attributes  those attribute names (dropped where a caller strips them),
#   lazy    TRUE when build() only stores the training data and the work is
#           done in predict() (the local rules); FALSE when it solves for
#           coefficients.
# To add a rule: add an entry here (its position is its place in the
# documented order), test it in
# tests/testthat/test-oos-map.R, and regenerate the documentation.
oos_rules <- list(
  goose = list(
    doc = c(
      "the generalised out-of-sample extension (Strange and",
      "Zwiggelaar 2011), in its centred form:",
      "local PCA of `N_k(x)` (directions `V`, `q = ncol(Y)`), Procrustes",
      "rotation `R` of the centred projected neighbourhood onto the centred",
      "embedded neighbourhood, a scale `B` and",
      "`y = mean(Y_N) + ((x - mean(X_N)) V) R B`. `scale = \"axis\"` (default)",
      "uses per-axis range ratios measured after the rotation, `\"isotropic\"`",
      "the Procrustes scale `tr(Sigma) / ||Y'||^2`, `\"none\"` no scale.",
      "`variant = \"literal_thesis\"` runs the printed pseudocode (uncentred SVD,",
      "translation before rotation) for fidelity experiments only. Needs",
      "`k >= ncol(Y) + 1`; default `k = 10`."),
    build = function(X, Y, a) {
      params <- list(k = oos_local_k(a$k, nrow(X), 10L, ncol(Y) + 1L),
                     scale = check_choice(a$scale, c("axis", "isotropic", "none"), "scale"),
                     variant = check_choice(a$variant, c("centred", "literal_thesis"), "variant"),
                     snap = check_flag(a$snap, "snap"),
                     knn_method = a$knn_method)
      list(params = params, data = list(X = X, Y = Y))
    },
    predict = function(d, p, x, km, n_threads) {
      nn <- knn(d$X, p$k, query = x, method = km, n_threads = n_threads)
      core(.mo_goose(d$X, d$Y, x, nn$idx, nn$dist, p$scale, p$variant, p$snap, n_threads))
    },
    lazy = TRUE
  ),
  sparse = list(
    doc = c(
      "sparse-coding weights (Raducanu and Dornaika 2013): the",
      "exact l1 code `a` of `x` over the training rows plus an error basis",
      "([l1_code()]), weights `|a_i|`, and the weighted average",
      "`y = sum_i |a_i| y_i / sum_i |a_i|` (eq. 9). With `normalize = TRUE`",
      "(default) training rows and new rows are scaled to unit norm first, which",
      "makes the map scale-free and reproduces training points exactly. When",
      "all weights vanish (`x` is coded by the error part alone) the nearest",
      "training point's embedding is returned and attribute `fallback` is set."),
    build = function(X, Y, a) {
      params <- list(solver = check_choice(a$solver, c("homotopy", "admm"), "solver"),
                     normalize = check_flag(a$normalize, "normalize"))
      E <- check_error_basis(a$error_basis, ncol(X))
      params$error_basis <- if (length(E)) "user" else "identity"
      params$knn_method <- a$knn_method
      Xf <- if (params$normalize) unit_rows(X) else X
      list(params = params, data = list(X = Xf, Y = Y, E = E))
    },
    predict = function(d, p, x, km, n_threads) {
      xf <- if (p$normalize) unit_rows(x) else x
      r <- core(.mo_sparse_oos(d$X, d$E, d$Y, xf, p$solver, 20000L, 8L, n_threads))
      y <- r$y
      if (any(r$zero_weight)) {
        rows <- which(r$zero_weight)
        nn <- knn(d$X, 1L, query = xf[rows, , drop = FALSE], method = km, n_threads = n_threads)
        y[rows, ] <- d$Y[nn$idx[, 1], , drop = FALSE]
      }
      y <- as.matrix(y)
      attr(y, "fallback") <- r$zero_weight
      attr(y, "certified") <- r$certified
      y
    },
    row_attributes = c("fallback", "certified"),
    lazy = TRUE
  ),
  lvm = list(
    doc = c(
      "the Laplacian-eigenmaps latent variable model map",
      "(Carreira-Perpinan and Lu 2007): a Nadaraya--Watson average of the",
      "embeddings of `N_k(x)` with weights `exp(-||x - x_i||^2 / beta)`;",
      "`beta = \"mean\"` is the mean squared distance between training pairs.",
      "Default `k = 3` (the best setting of Raducanu and Dornaika)."),
    build = function(X, Y, a) {
      params <- list(k = oos_local_k(a$k, nrow(X), 3L),
                     beta = resolve_beta(a$beta, X),
                     snap = check_flag(a$snap, "snap"),
                     knn_method = a$knn_method)
      list(params = params, data = list(X = X, Y = Y))
    },
    predict = function(d, p, x, km, n_threads) {
      nn <- knn(d$X, p$k, query = x, method = km, n_threads = n_threads)
      y <- core(.mo_lvm_average(d$Y, nn$idx, nn$dist, sqrt(p$beta / 2)))$y
      if (p$snap) {
        hit <- nn$dist[, 1] == 0
        if (any(hit)) y[hit, ] <- d$Y[nn$idx[hit, 1], , drop = FALSE]
      }
      y
    },
    lazy = TRUE
  ),
  reconstruction = list(
    doc = c(
      "Saul and Roweis' rule: LLE reconstruction weights",
      "of `x` from `N_k(x)` (regulariser `reg * trace`), `y = sum_j w_j y_j`.",
      "Default `k = 10`."),
    build = function(X, Y, a) {
      params <- list(k = oos_local_k(a$k, nrow(X), 10L),
                     reg = check_number(a$reg, "reg", lower = 0),
                     snap = check_flag(a$snap, "snap"),
                     knn_method = a$knn_method)
      list(params = params, data = list(X = X, Y = Y))
    },
    predict = function(d, p, x, km, n_threads) {
      nn <- knn(d$X, p$k, query = x, method = km, n_threads = n_threads)
      W <- core(.mo_reconstruction_weights(d$X, x, nn$idx, p$reg,
                                           if (p$snap) nn$dist else matrix(0, 0, 0), n_threads))
      core(.mo_reconstruct_embedding(d$Y, nn$idx, W))
    },
    lazy = TRUE
  ),
  linear = list(
    doc = c(
      "linearization: `A = argmin ||Y_c - X_c A||^2 + ridge ||A||^2`",
      "(minimum-norm least squares via the SVD when `ridge = 0`, which",
      "interpolates the training embedding whenever `X_c` has full row rank;",
      "`ridge = \"loo\"` chooses one ridge per embedding coordinate by",
      "leave-one-out cross-validation (exact PRESS) on the training set over",
      "`s_max^2 * 10^(-10, -9.75, ..., 1)`, `s_max` the largest singular value",
      "of `X_c`; the ridges are in `params$ridge`),",
      "`y = ybar + (x - mu) A`; `intercept = FALSE` drops the centring",
      "(`Y = X A`, as in Raducanu and Dornaika)."),
    build = function(X, Y, a) {
      params <- list(intercept = check_flag(a$intercept, "intercept"))
      if (is.character(a$ridge)) {
        check_choice(a$ridge, "loo", "ridge")
        m <- linear_ridge_loo(X, Y, params$intercept)
        params$ridge <- m$ridge
        params$ridge_rule <- "loo"
      } else {
        params$ridge <- check_number(a$ridge, "ridge", lower = 0)
        m <- core(.mo_linear_fit(X, Y, params$intercept, params$ridge))
      }
      params$rank <- m$rank
      list(params = params, data = list(mu = m$mu, ybar = m$ybar, A = m$A))
    },
    predict = function(d, p, x, km, n_threads) core(.mo_linear_predict(d$mu, d$ybar, d$A, x)),
    lazy = FALSE
  ),
  rbf = list(
    doc = c(
      "RBF network with one Gaussian `exp(-||x - x_i||^2 / s)` per",
      "training point, aperture `s` = the mean squared distance between training",
      "pairs; the coefficients interpolate `Y` (`(Phi + ridge I) C = Y`); when",
      "`Phi` is numerically singular a jitter from `1e-12` is added and",
      "reported."),
    build = function(X, Y, a) {
      params <- list(aperture = resolve_beta(a$beta, X, arg = "beta"),
                     ridge = check_number(a$ridge, "ridge", lower = 0))
      m <- core(.mo_rbf_network_fit(X, Y, params$aperture, params$ridge))
      params$shift <- m$shift
      if (m$shift > params$ridge) {
        warn_mo(sprintf("the RBF interpolation matrix is numerically singular; a diagonal jitter of %.3g was added.",
                        m$shift - params$ridge))
      }
      list(params = params, data = list(X = X, C = m$C))
    },
    predict = function(d, p, x, km, n_threads) {
      core(.mo_kernel_map_predict(d$X, d$C, rep(0, ncol(d$C)), x, "rbf",
                                  sqrt(p$aperture / 2), 1, 1, 2, n_threads))
    },
    lazy = FALSE
  ),
  krr = list(
    doc = c(
      "kernel ridge regression with the package kernels (default",
      "Gaussian `exp(-||a - b||^2 / (2 sigma^2))` with",
      "`sigma = \"median_pairwise\"`, `lambda = 1e-3`; `lambda = \"gcv\"` picks it",
      "by generalised cross-validation on a log grid). With `bias = \"feature\"`",
      "(default) it is ridge regression in feature space with an unpenalised",
      "intercept -- Yang et al.'s (2010) LGRM regression map as written in",
      "Strange's thesis (Eq. 5.3):",
      "`y = ybar + (k(x) - K 1/n)^T H (H K H + lambda I)^{-1} H Y`",
      "(`H` the centring matrix); with `bias = \"mean\"` the offset is only the",
      "mean embedding: `y = ybar + k(x)^T (K + lambda I)^{-1} (Y - ybar)`.",
      "The thesis settings are `kernel = \"rbf\", sigma = 10, lambda = 1e-4`."),
    build = function(X, Y, a) {
      ks <- kernel_spec(a$kernel, sigma = a$sigma, X = X)
      if (identical(ks$type, "function")) abort_input("kernel", "must be \"rbf\", \"linear\" or \"polynomial\" for KRR.")
      params <- list(bias = check_choice(a$bias, c("feature", "mean"), "bias"))
      fi <- params$bias == "feature"
      if (is.character(a$lambda)) {
        check_choice(a$lambda, "gcv", "lambda")
        grid <- 10^seq(-8, 2, by = 0.25)
        gcv <- core(.mo_krr_gcv(X, Y, ks$type, ks$sigma, ks$gamma, ks$coef0, ks$degree, grid, fi))
        params$lambda <- grid[which.min(gcv)]
        params$lambda_rule <- "gcv"
      } else {
        params$lambda <- check_number(a$lambda, "lambda", lower = 0)
      }
      m <- core(.mo_krr_fit(X, Y, ks$type, ks$sigma, ks$gamma, ks$coef0, ks$degree, params$lambda, fi))
      params$kernel <- ks$type
      params$sigma <- ks$sigma
      params$shift <- m$shift
      list(params = params, data = list(X = X, C = m$C, ybar = m$ybar, kernel = unclass(ks)))
    },
    predict = function(d, p, x, km, n_threads) {
      ks <- d$kernel
      core(.mo_kernel_map_predict(d$X, d$C, d$ybar, x, ks$type, ks$sigma, ks$gamma,
                                  ks$coef0, ks$degree, n_threads))
    },
    lazy = FALSE
  )
)

# The rule names, in the registry's order.
oos_map_methods <- names(oos_rules)

# The "Methods" list of ?oos_map, from the registry (used by roxygen).
oos_rules_doc <- function() {
  paste0("* `\"", names(oos_rules), "\"` -- ",
         vapply(oos_rules, function(r) paste(r$doc, collapse = "\n  "), ""),
         collapse = "\n")
}

# The rule names as a sentence for the help page: `"a"`, `"b"`, ... or `"z"`.
oos_rules_names_doc <- function() {
  q <- sprintf("`\"%s\"`", oos_map_methods)
  paste0(paste(q[-length(q)], collapse = ", "), " or ", q[length(q)])
}

# The number of neighbours of a local rule: the user's `k` (checked against
# the `n` training points) or the rule's default, at least `min`.
oos_local_k <- function(k, n, default, min = 1L) {
  if (is.null(k)) {
    kk <- min(max(default, min), n)
    if (kk < min) abort_input("k", sprintf("must be at least %d, but there are only %d training points.", min, n))
    return(kk)
  }
  kk <- check_k(k, n, "k", self = FALSE)
  if (kk < min) abort_input("k", sprintf("must be at least %d for this method (got %d).", min, kk))
  kk
}

#' Out-of-sample maps for any embedding
#'
#' Builds a map that places new observations on a given embedding `Y` of the
#' training rows `X`, whatever method produced `Y` (t-SNE, UMAP, a fitted
#' `manifold_fit`, coordinates from elsewhere). [predict()] applies it to new
#' rows. Every rule treats each new point independently, so batch
#' predictions equal row-by-row predictions.
#'
#' Methods (rows are points; `N_k(x)` = the `k` nearest training points of `x`):
#'
#' `r oos_rules_doc()`
#'
#' The local rules (`goose`, `lvm`, `reconstruction`) return the training
#' embedding exactly for a new point identical to a training point
#' (`snap = TRUE`); `sparse` does so by construction with `normalize = TRUE`;
#' `rbf` interpolates; `linear` and `krr` smooth.
#'
#' @param X Training data (`n x p`), one row per point.
#' @param Y Embedding of the training rows: a numeric matrix (or data frame)
#'   with `nrow(X)` rows and no missing values; or an embedding made by
#'   another package: the result of `Rtsne::Rtsne()`, a model returned by
#'   `uwot::umap(ret_model = TRUE)`, a Seurat `DimReduc`, or the name of a
#'   reduction of `X` when `X` is a `SingleCellExperiment` or Seurat object
#'   (see [manifoldOOS-containers]).
#' @param method One of `r oos_rules_names_doc()`.
#' @param k Number of neighbours for the local rules (`NULL`: the method's
#'   default).
#' @param scale,variant GOoSE scale (`"axis"`, `"isotropic"`, `"none"`) and
#'   variant (`"centred"`, `"literal_thesis"`).
#' @param snap Return `y_j` exactly for a new point at distance 0 from
#'   training point `j` (local rules).
#' @param solver,normalize,error_basis Sparse coding: l1 solver
#'   (`"homotopy"` or `"admm"`), unit-norm rows, error basis (see
#'   [l1_code()]).
#' @param beta LVM kernel width: `"mean"` or a positive number.
#' @param reg Regulariser of the reconstruction weights.
#' @param intercept,ridge Linearization options (`ridge`: a number or
#'   `"loo"`); a numeric `ridge` is also the RBF network's diagonal shift.
#' @param kernel,sigma,lambda,bias KRR kernel (`"rbf"`, `"linear"`,
#'   `"polynomial"`), its bandwidth (number, `"median_pairwise"` or
#'   `"mean_pairwise"`), ridge (number or `"gcv"`) and bias form
#'   (`"feature"` or `"mean"`).
#' @param n_threads Number of threads used by `predict()` for the local and
#'   sparse rules (results do not depend on it).
#' @param knn_method Neighbour search of the local rules and of the sparse
#'   rule's fallback: `"auto"`, `"exact"` or `"hnsw"` (see [knn()]); `"auto"`
#'   is resolved for the training data when the map is built and recorded in
#'   `params$knn_method`.
#' @param pca `NULL` (default) or the number of principal components of `X`
#'   the map works on: the columns are centred (and scaled, with
#'   `pca_scale = TRUE`) and reduced by [pca()] first (sparse matrices stay
#'   sparse); the projection is part of the map and [predict()] applies it.
#'   See [manifoldOOS-input].
#' @param pca_scale With `pca`: scale the columns to unit variance first.
#' @param metric `"euclidean"` (default), `"cosine"` or `"correlation"`:
#'   with the last two the map works on the rows of `X` scaled to unit length
#'   (centred first, for correlation), and so do the new rows given to
#'   [predict()]. See [manifoldOOS-input].
#' @param verbose Report the stages of building the map (and of `predict()`)
#'   with time-stamped messages (see [manifoldOOS-progress]).
#' @return An object of class `"manifold_oos_map"` (with [print()],
#'   [summary()] and [predict()] methods) that stores only what its rule
#'   needs. `predict(map, newdata)` returns a matrix with one row per row of
#'   `newdata` and the columns of `Y`; the sparse rule adds attributes
#'   `fallback` and `certified` (logical, one per row).
#' @references Strange, H. and Zwiggelaar, R. (2011) A generalised solution to
#'   the out-of-sample extension problem in manifold learning. *AAAI*.
#'
#'   Raducanu, B. and Dornaika, F. (2013) Embedding new observations via
#'   sparse-coding for non-linear manifold learning. *Pattern Recognition*.
#'
#'   Carreira-Perpinan, M. A. and Lu, Z. (2007) The Laplacian eigenmaps latent
#'   variable model. *AISTATS*.
#'
#'   Saul, L. K. and Roweis, S. T. (2003) Think globally, fit locally.
#'   *JMLR* 4, 119--155.
#' @seealso [predict.manifold_fit()] routes any fitted embedding through
#'   these maps (`method = "goose"` etc.).
#' @export
#' @examples
#' roll <- swiss_roll(600, seed = 1)
#' train <- 1:500
#' Y <- roll$truth[train, ]          # any embedding of the training rows
#' gm <- oos_map(roll$x[train, ], Y, method = "goose", k = 10)
#' gm
#' y_new <- predict(gm, roll$x[-train, ])
#' head(y_new)
#' # compare with the ground truth of the held-out points
#' sqrt(mean((y_new - roll$truth[-train, ])^2))
#' # an embedding computed elsewhere, e.g. UMAP
#' if (requireNamespace("uwot", quietly = TRUE)) {
#'   set.seed(1)
#'   Yu <- uwot::umap(roll$x[train, ], n_neighbors = 15)
#'   um <- oos_map(roll$x[train, ], Yu, method = "goose")
#'   head(predict(um, roll$x[-train, ]))
#' }
oos_map <- function(X, Y, method = "goose",
                    k = NULL, scale = c("axis", "isotropic", "none"),
                    variant = c("centred", "literal_thesis"), snap = TRUE,
                    solver = c("homotopy", "admm"), normalize = TRUE, error_basis = "identity",
                    beta = "mean", reg = 1e-3, intercept = TRUE, ridge = 0,
                    kernel = "rbf", sigma = "median_pairwise", lambda = 1e-3,
                    bias = c("feature", "mean"), n_threads = default_threads(),
                    knn_method = getOption("manifoldOOS.knn_method", "auto"),
                    pca = NULL, pca_scale = FALSE, metric = "euclidean",
                    verbose = getOption("manifoldOOS.verbose", FALSE)) {
  call <- match.call()
  # an embedding made elsewhere: Rtsne's or uwot's result, a Seurat DimReduc,
  # or the name of a reduction of the container X
  Y <- resolve_embedding(Y, X)
  if (needs_input(X, pca, metric)) {
    inner <- call
    inner$Y <- Y
    fit <- fit_with_input(X, pca, metric, pca_scale, inner, sys.function(), parent.frame())
    fit$call <- call
    return(fit)
  }
  verbose <- check_verbose(verbose)
  X <- as_data_matrix(X, "X")
  Y <- as_embedding_matrix(Y, nrow(X))
  method <- check_choice(method, oos_map_methods, "method")
  n_threads <- check_threads(n_threads)
  knn_method <- resolve_knn_method(check_knn_method(knn_method, "knn_method"), nrow(X), ncol(X))
  n <- nrow(X)
  q <- ncol(Y)
  t0 <- mo_progress(verbose, "oos_map(\"%s\"): %d training points x %d features -> %d dimensions",
                    method, n, ncol(X), q)
  rule <- oos_rules[[method]]
  built <- rule$build(X, Y, list(k = k, scale = scale, variant = variant, snap = snap, solver = solver,
                                 normalize = normalize, error_basis = error_basis, beta = beta, reg = reg,
                                 intercept = intercept, ridge = ridge, kernel = kernel, sigma = sigma,
                                 lambda = lambda, bias = bias, knn_method = knn_method))
  params <- built$params
  data <- built$data
  mo_progress(verbose, "oos_map(\"%s\"): built%s", method,
              if (rule$lazy) " (stores the training data; the work is done in predict())" else
                " (coefficients solved)", start = t0)
  structure(
    list(method = method, params = params, data = data, n = n, ndim = q,
         n_features = ncol(X), feature_names = colnames(X), embedding_names = colnames(Y),
         n_threads = n_threads, fit_time = proc.time()[["elapsed"]] - t0, call = call),
    class = "manifold_oos_map"
  )
}

# Ridge of the linearization by leave-one-out cross-validation, one ridge per
# embedding coordinate (each column of Y is its own ridge regression). With
# X (centred when `intercept`) = U diag(s) V' and g = ridge / (s^2 + ridge),
# the residuals of the fit are R = (Y - U U'Y) + U diag(g) U'Y and the
# leverages h_i = [intercept]/N + sum_k U_ik^2 (1 - g_k); the leave-one-out
# residual of a penalised least-squares fit is R_i / (1 - h_i) exactly, so
# PRESS_j(ridge) = sum_i (R_ij / (1 - h_i))^2 (Allen 1974). Computing
# 1 - h_i from g keeps it accurate when X has full row rank, where the
# unregularised map interpolates and h_i -> 1. Grid: s_max^2 * 10^(-10,
# -9.75, ..., 1); the smallest minimiser is taken. Returns the map in the
# form of .mo_linear_fit() plus the ridges and the PRESS table (grid x
# coordinates).
linear_ridge_loo <- function(X, Y, intercept) {
  N <- nrow(X)
  mu <- if (intercept) colMeans(X) else numeric(ncol(X))
  ybar <- if (intercept) colMeans(Y) else numeric(ncol(Y))
  Xc <- sweep(X, 2, mu)
  Yc <- sweep(Y, 2, ybar)
  sv <- svd(Xc)
  if (!(sv$d[1] > 0)) {
    return(list(mu = mu, ybar = ybar, A = matrix(0, ncol(X), ncol(Y)), rank = 0L,
                ridge = rep(0, ncol(Y)), press = NULL))
  }
  keep <- sv$d > max(dim(X)) * .Machine$double.eps * sv$d[1]
  d <- sv$d[keep]
  s2 <- d^2
  U <- sv$u[, keep, drop = FALSE]
  U2 <- U^2
  UY <- crossprod(U, Yc)
  R0 <- Yc - U %*% UY  # the part of Y outside the column space of X
  free0 <- 1 - intercept / N - rowSums(U2)  # 1 - leverage at ridge 0 (>= 0 up to rounding)
  grid <- s2[1] * 10^seq(-10, 1, by = 0.25)
  press <- t(vapply(grid, function(r) {
    g <- r / (s2 + r)
    R <- R0 + U %*% (g * UY)
    colSums((R / (pmax(free0, 0) + c(U2 %*% g)))^2)
  }, numeric(ncol(Y))))
  if (ncol(Y) == 1L) press <- matrix(press, ncol = 1L)
  ridge <- grid[apply(press, 2, which.min)]
  A <- sv$v[, keep, drop = FALSE] %*% (UY * outer(d, ridge, function(s, r) s / (s^2 + r)))
  list(mu = mu, ybar = ybar, A = A, rank = length(d), ridge = ridge, grid = grid, press = press)
}

# Y: numeric, finite, nrow(X) rows.
as_embedding_matrix <- function(Y, n) {
  if (is.numeric(Y) && is.null(dim(Y))) Y <- matrix(Y, ncol = 1L)
  Y <- as_data_matrix(Y, "Y", min_rows = 1L)
  if (nrow(Y) != n) {
    abort_input("Y", sprintf("must have one row per row of `X` (%d); it has %d.", n, nrow(Y)))
  }
  if (is.null(colnames(Y))) colnames(Y) <- paste0("Dim", seq_len(ncol(Y)))
  Y
}

# beta = "mean": the mean squared distance over training pairs,
# sum_{i<j} ||x_i - x_j||^2 / choose(n, 2) = 2 sum_i ||x_i - mean||^2 / (n - 1).
resolve_beta <- function(beta, X, arg = "beta") {
  if (is.character(beta)) {
    check_choice(beta, "mean", arg)
    Xc <- sweep(X, 2, colMeans(X))
    b <- 2 * sum(Xc^2) / (nrow(X) - 1)
    if (!(b > 0)) abort_input("X", "has all rows identical; a distance-based width cannot be chosen.")
    return(b)
  }
  check_number(beta, arg, lower = 0, lower_open = TRUE)
}

#' @rdname oos_map
#' @param object A `manifold_oos_map`.
#' @param newdata New observations (matrix or data frame with the training
#'   columns).
#' @param chunk_size,parallel Predict in chunks of `chunk_size` rows,
#'   optionally on the workers of the user's [future::plan()]; identical to
#'   one call (see [manifoldOOS-chunked]). On workers, `n_threads` is
#'   replaced by `getOption("manifoldOOS.worker_threads", 1)`.
#' @param ... Must be empty: any argument here (a misspelled name, say) is an
#'   error of class `manifoldOOS_dots_error`.
#' @export
predict.manifold_oos_map <- function(object, newdata, n_threads = object$n_threads, ...,
                                     chunk_size = NULL, parallel = FALSE,
                                     verbose = getOption("manifoldOOS.verbose", FALSE)) {
  validate_fit(object)
  check_dots(..., fun = "predict()", context = "an oos_map takes nothing in `...`")
  verbose <- check_verbose(verbose)
  chunk_size <- check_chunk_size(chunk_size)
  parallel <- check_flag(parallel, "parallel")
  if (parallel) require_future()
  x <- fit_newdata(object, newdata)
  n_threads <- check_threads(n_threads)
  t0 <- mo_progress(verbose, "predict(oos_map \"%s\"): %d new points", object$method, nrow(x))
  if (parallel && is.null(chunk_size)) chunk_size <- parallel_chunk_size(nrow(x))
  y <- run_chunked(object, x, predict_map_rows, list(n_threads = if (parallel) NULL else n_threads),
                   chunk_size = chunk_size, parallel = parallel, verbose = verbose,
                   label = sprintf("predict(oos_map \"%s\")", object$method))
  mo_progress(verbose, "predict(oos_map \"%s\"): done", object$method, start = t0)
  dimnames(y) <- list(rownames(x), object$embedding_names)
  y
}

# The rule of an oos_map on one block of rows (x: a checked matrix). Returns
# the coordinates with the per-row attributes of the rule (`strip` drops
# them). n_threads = NULL: the package thread option (set on workers).
predict_map_rows <- function(object, x, n_threads = NULL, strip = FALSE) {
  if (is.null(n_threads)) n_threads <- default_threads()
  p <- object$params
  # the neighbour search chosen when the map was built (exact for older maps)
  km <- if (is.null(p$knn_method)) "exact" else p$knn_method
  rule <- oos_rules[[object$method]]
  y <- as.matrix(rule$predict(object$data, p, x, km, n_threads))
  if (strip) for (nm in rule$row_attributes) attr(y, nm) <- NULL
  y
}

#' @rdname oos_map
#' @param x A `manifold_oos_map`.
#' @export
print.manifold_oos_map <- function(x, ...) {
  check_dots(..., fun = "print()")
  print_header("out-of-sample map", x, "embedding dimensions")
  invisible(x)
}

#' @rdname oos_map
#' @export
summary.manifold_oos_map <- function(object, ...) {
  check_dots(..., fun = "summary()")
  structure(list(method = object$method, n = object$n, n_features = object$n_features,
                 ndim = object$ndim, params = object$params, fit_time = object$fit_time,
                 stored = vapply(object$data, function(v) {
                   if (is.matrix(v)) sprintf("%d x %d", nrow(v), ncol(v)) else sprintf("length %d", length(v))
                 }, "")),
            class = "summary.manifold_oos_map")
}

#' @export
print.summary.manifold_oos_map <- function(x, ...) {
  check_dots(..., fun = "print()")
  print_summary_header("out-of-sample map", x)
  cat(sprintf("  build time: %s\n", format_seconds(x$fit_time)))
  cat("  stored:", paste(sprintf("%s (%s)", names(x$stored), x$stored), collapse = ", "), "\n")
  invisible(x)
}
