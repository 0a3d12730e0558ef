# Baselines of the SOSI comparison (Vural & Guillemot 2015, section V):
# out-of-sample maps of a supervised embedding + 1-NN, ambient 1-NN and SVM,
# harmonic-function semi-supervised learning, and the self-training
# (progressive re-embedding) versions of the out-of-sample baselines.
# The parameters of the SVM, the modified Nystrom map and the harmonic
# function are chosen by cross-validation on the labelled set, on grids
# scaled by the data.

# Multipliers of the data scale searched by the tuned baselines.
baseline_grid <- 2^(-6:2)

#' Harmonic-function semi-supervised classification
#'
#' Zhu, Ghahramani and Lafferty's Gaussian fields: on a graph over all
#' labelled and unlabelled points with weights \eqn{\exp(-\|x_i -
#' x_j\|^2/\sigma_g^2)}, the class scores of the unlabelled points are the
#' harmonic extension \eqn{F_u = (D_{uu} - W_{uu})^{-1} W_{ul} F_l} of the
#' one-hot labels. `graph = "knn"` symmetrises the `k`-nearest-neighbour
#' graph and takes \eqn{\sigma_g^2} = `bandwidth` times the mean squared
#' distance to the `k`-th neighbour; `"full"` connects all pairs with
#' \eqn{\sigma_g^2} = `bandwidth` times the mean squared pairwise distance. A
#' ridge of `1e-10` keeps components without labelled points solvable;
#' `cmn = TRUE` applies class mass normalisation (Zhu et al.'s CMN: each
#' class column is rescaled so that its total mass over the unlabelled points
#' matches the class proportions of the labelled points, before the argmax).
#'
#' @param X Labelled data; `labels` their classes.
#' @param labels Class labels of the rows of `X`.
#' @param X_unlabeled Unlabelled data (same columns).
#' @param k Graph neighbours (`graph = "knn"`).
#' @param graph `"knn"` or `"full"`.
#' @param cmn Class mass normalisation.
#' @param bandwidth Positive multiplier of the default \eqn{\sigma_g^2}.
#' @return A list with `labels` (factor, one per unlabelled row) and
#'   `scores` (the harmonic function, one column per class; after class mass
#'   normalisation when `cmn = TRUE`).
#' @export
#' @examples
#' set.seed(1)
#' X <- rbind(matrix(rnorm(60), 30), matrix(rnorm(60, 4), 30))
#' lab <- rep(c("a", "b"), each = 30)
#' tr <- c(1:3, 31:33)
#' h <- harmonic_ssl(X[tr, ], lab[tr], X[-tr, ], k = 5, cmn = TRUE)
#' mean(h$labels != lab[-tr])
harmonic_ssl <- function(X, labels, X_unlabeled, k = 10, graph = c("knn", "full"), cmn = FALSE,
                         bandwidth = 1) {
  X <- as_data_matrix(X, "X", min_rows = 2L)
  f <- check_labels(labels, nrow(X), min_per_class = 1L)
  Xu <- check_newdata(X_unlabeled, colnames(X), ncol(X), arg = "X_unlabeled")
  graph <- check_choice(graph, c("knn", "full"), "graph")
  cmn <- check_flag(cmn, "cmn")
  bandwidth <- check_number(bandwidth, "bandwidth", lower = 0, lower_open = TRUE)
  G <- ssl_graph(rbind(X, Xu), k, graph)
  Fu <- ssl_solve(ssl_weights(G, bandwidth), seq_len(nrow(X)), f, cmn)
  list(labels = factor(levels(f)[max.col(Fu, ties.method = "first")], levels = levels(f)), scores = Fu)
}

# Squared distances of the harmonic-function graph over the rows of A and
# the default squared bandwidth s2.
ssl_graph <- function(A, k, graph) {
  Q <- nrow(A)
  if (graph == "knn") {
    k <- check_k(k, Q)
    nb <- knn(A, k)
    s2 <- mean(nb$dist[, k]^2)
    # symmetrised kNN graph (the weight of a pair does not depend on its direction)
    ii <- c(rep(seq_len(Q), k), as.vector(nb$idx))
    jj <- c(as.vector(nb$idx), rep(seq_len(Q), k))
    d2 <- rep(as.vector(nb$dist)^2, 2L)
    keep <- !duplicated(ii * (Q + 1) + jj)
    G <- list(type = "knn", i = ii[keep], j = jj[keep], d2 = d2[keep], Q = Q)
  } else {
    D2 <- as.matrix(stats::dist(A))^2
    s2 <- mean(D2[upper.tri(D2)])
    G <- list(type = "full", D2 = D2, Q = Q)
  }
  if (!(s2 > 0)) s2 <- 1
  G$s2 <- s2
  G
}

ssl_weights <- function(G, bandwidth) {
  s2 <- G$s2 * bandwidth
  if (G$type == "knn") {
    return(Matrix::sparseMatrix(i = G$i, j = G$j, x = exp(-G$d2 / s2), dims = c(G$Q, G$Q)))
  }
  W <- exp(-G$D2 / s2)
  diag(W) <- 0
  Matrix::Matrix(W)
}

# Harmonic scores of the points outside `l` (the labelled rows of W, labels
# f), with optional class mass normalisation.
ssl_solve <- function(W, l, f, cmn) {
  u <- setdiff(seq_len(nrow(W)), l)
  Fl <- matrix(0, length(l), nlevels(f))
  Fl[cbind(seq_along(l), as.integer(f))] <- 1
  deg <- Matrix::rowSums(W)
  Luu <- Matrix::Diagonal(length(u), deg[u] + 1e-10) - W[u, u]
  Fu <- as.matrix(Matrix::solve(Luu, W[u, l, drop = FALSE] %*% Fl))
  if (cmn) {
    q <- colMeans(Fl)
    Fu <- sweep(Fu, 2, pmax(colSums(Fu), 1e-300), "/") %*% diag(q, ncol(Fu))
  }
  colnames(Fu) <- levels(f)
  Fu
}

# Stratified cross-validation folds of the labelled set: min(5, smallest
# class) folds; NULL when a class has a single sample.
cv_folds <- function(f, seed, n_folds = 5L) {
  nf <- min(n_folds, min(table(f)))
  if (nf < 2L) return(NULL)
  old <- if (exists(".Random.seed", envir = globalenv())) get(".Random.seed", envir = globalenv()) else NULL
  on.exit(if (!is.null(old)) assign(".Random.seed", old, envir = globalenv()) else
    rm(".Random.seed", envir = globalenv()))
  set.seed(seed)
  folds <- integer(length(f))
  for (lv in levels(f)) {
    w <- which(f == lv)
    folds[w] <- sample(rep_len(seq_len(nf), length(w)))
  }
  folds
}

# Median squared pairwise distance of the rows of X (the SVM's data scale).
median_sq_dist <- function(X) {
  d2 <- stats::dist(X)^2
  s <- stats::median(d2)
  if (!(s > 0)) s <- 1
  s
}

# Grid record of a tuned baseline: one row per parameter setting.
tuning_rows <- function(method, grid, cv_error, test_error, chosen) {
  data.frame(method = method, grid, cv_error = cv_error, test_error = test_error,
             selected = seq_len(nrow(grid)) == chosen, row.names = NULL)
}

# Multi-class RBF SVM in the ambient space (e1071): gamma = a multiplier in
# `gamma_mult` over the median squared pairwise distance of the labelled set,
# cost in `cost`, both chosen by stratified cross-validation on the labelled
# set (the first setting of least CV error; gamma multiplier 1 and cost 1
# when a class has one sample). `truth`: test errors of every setting.
svm_ambient <- function(X, f, Xu, cost = 10^(0:3), gamma_mult = 2^(-4:2), seed = 1L,
                        truth = NULL) {
  if (!requireNamespace("e1071", quietly = TRUE)) {
    abort_input("methods", "includes \"svm\", which needs the package e1071 (install it or drop \"svm\").")
  }
  s <- median_sq_dist(X)
  grid <- expand.grid(gamma_mult = gamma_mult, cost = cost)
  grid$gamma <- grid$gamma_mult / s
  fitp <- function(Xa, fa, Xb, g) {
    mdl <- e1071::svm(Xa, fa, kernel = "radial", cost = grid$cost[g], gamma = grid$gamma[g], scale = FALSE)
    as.character(stats::predict(mdl, Xb))
  }
  folds <- cv_folds(f, seed)
  cv <- rep(NA_real_, nrow(grid))
  if (!is.null(folds)) {
    for (g in seq_len(nrow(grid))) {
      wrong <- 0
      for (fo in unique(folds)) {
        te <- folds == fo
        wrong <- wrong + sum(fitp(X[!te, , drop = FALSE], f[!te], X[te, , drop = FALSE], g) != f[te])
      }
      cv[g] <- wrong / length(f)
    }
    best <- which.min(cv)
  } else {
    best <- which(grid$gamma_mult == 1 & grid$cost == 1)[1]
    if (is.na(best)) best <- 1L
  }
  test <- rep(NA_real_, nrow(grid))
  if (!is.null(truth)) {
    for (g in seq_len(nrow(grid))) test[g] <- mean(fitp(X, f, Xu, g) != truth)
  }
  pred <- fitp(X, f, Xu, best)
  list(labels = factor(pred, levels = levels(f)), tuning = tuning_rows("svm", grid, cv, test, best))
}

# Modified Nystrom map (normalised Gaussian weights of all training points,
# exp(-||x - x_i||^2 / beta), computed stably) from squared distances D2
# (query x training) to the training embedding Y.
nystrom_from_d2 <- function(D2, Y, beta) {
  E <- exp(-(D2 - apply(D2, 1, min)) / beta)
  (E / rowSums(E)) %*% Y
}

cross_sq_dist <- function(A, B) {
  pmax(outer(rowSums(A^2), rowSums(B^2), "+") - 2 * tcrossprod(A, B), 0)
}

# The modified Nystrom baseline with its width chosen by leave-one-out on the
# labelled set: beta = a multiplier in `mult` times the median squared
# distance of a labelled point to its nearest labelled neighbour; each
# labelled point is mapped from the others and labelled by 1-NN against their
# embedding. The graph's beta (the paper's kernel, `beta_graph`) is in the
# record too. Returns the chosen beta and the record.
nystrom_tune <- function(X, Y, f, beta_graph, mult = baseline_grid, Xu = NULL, truth = NULL) {
  D2 <- cross_sq_dist(X, X)
  diag(D2) <- Inf
  s0 <- stats::median(apply(D2, 1, min))
  if (!(s0 > 0)) s0 <- beta_graph
  grid <- data.frame(beta_rule = c(rep("nearest", length(mult)), "graph"), beta_mult = c(mult, 1),
                     beta = c(mult * s0, beta_graph))
  fi <- as.integer(f)
  cv <- vapply(seq_len(nrow(grid)), function(g) {
    # every labelled point mapped from the others (the diagonal of D2 is Inf)
    Ym <- nystrom_from_d2(D2, Y, grid$beta[g])
    Dy <- cross_sq_dist(Ym, Y)
    diag(Dy) <- Inf
    mean(fi[max.col(-Dy, ties.method = "first")] != fi)
  }, 0)
  best <- which.min(cv[seq_along(mult)])
  test <- rep(NA_real_, nrow(grid))
  if (!is.null(truth)) {
    Du <- cross_sq_dist(Xu, X)
    for (g in seq_len(nrow(grid))) {
      lab <- embedding_labels(nystrom_from_d2(Du, Y, grid$beta[g]), Y, f)$labels
      test[g] <- mean(as.character(lab) != truth)
    }
  }
  list(beta = grid$beta[best], tuning = tuning_rows("nystrom", grid, cv, test, best))
}

# Harmonic SSL with the bandwidth multiplier and class mass normalisation
# chosen by cross-validation on the labelled set (held-out labelled points
# become unlabelled nodes of the same graph).
ssl_tune <- function(X, f, Xu, k, mult = baseline_grid, cmn = c(TRUE, FALSE), seed = 1L, truth = NULL) {
  N <- nrow(X)
  G <- ssl_graph(rbind(X, Xu), min(k, N + nrow(Xu) - 1L), "knn")
  grid <- expand.grid(bandwidth = mult, cmn = cmn)
  folds <- cv_folds(f, seed)
  cv <- rep(NA_real_, nrow(grid))
  test <- rep(NA_real_, nrow(grid))
  lab_of <- function(Fu) levels(f)[max.col(Fu, ties.method = "first")]
  for (b in seq_along(mult)) {
    W <- ssl_weights(G, mult[b])
    rows <- which(grid$bandwidth == mult[b])
    if (!is.null(folds)) {
      wrong <- numeric(length(rows))
      for (fo in unique(folds)) {
        keep <- which(folds != fo)
        fk <- droplevels(f[keep])
        held <- which(folds == fo)
        # scores of the held-out labelled points (first in the unlabelled order)
        for (r in seq_along(rows)) {
          Fu <- ssl_solve(W, keep, fk, grid$cmn[rows[r]])
          wrong[r] <- wrong[r] + sum(levels(fk)[max.col(Fu[seq_along(held), , drop = FALSE],
                                                        ties.method = "first")] != as.character(f[held]))
        }
      }
      cv[rows] <- wrong / N
    }
    if (!is.null(truth)) {
      for (r in rows) test[r] <- mean(lab_of(ssl_solve(W, seq_len(N), f, grid$cmn[r])) != truth)
    }
  }
  best <- if (is.null(folds)) which(grid$bandwidth == 1 & grid$cmn == cmn[length(cmn)])[1] else which.min(cv)
  Fu <- ssl_solve(ssl_weights(G, grid$bandwidth[best]), seq_len(N), f, grid$cmn[best])
  list(labels = factor(lab_of(Fu), levels = levels(f)), tuning = tuning_rows("ssl", grid, cv, test, best))
}

# 1-NN labels (and confidences) in an embedding against the training embedding.
embedding_labels <- function(Fte, Ftr, f) {
  lc <- core(.mo_nn_label_conf(unname(as.matrix(Fte)), unname(as.matrix(Ftr)), as.integer(f)))
  list(labels = factor(levels(f)[lc$labels], levels = levels(f)), confidence = lc$confidence)
}

# The out-of-sample maps of the comparison applied to one embedding.
oos_baseline_embed <- function(method, X, Y, Xu, beta, k_lle = 5L, reg = 1e-3, sigma = NULL) {
  switch(method,
    lle = predict_reconstruction(list(X_train = X, k = min(k_lle, nrow(X)), embedding = Y), Xu, reg,
                                 snap = TRUE)$y,
    nystrom = nystrom_from_d2(cross_sq_dist(Xu, X), Y, beta),
    rbf = {
      fit <- core(.mo_rbf_interpolate(X, unname(Y), sigma, 0, 1e-10))
      core(.mo_rbf_eval(X, fit$C, sigma, Xu))
    }
  )
}

#' Baselines of the SOSI comparison
#'
#' Labels the unlabelled points with the methods Vural and Guillemot compare
#' SOSI with: `"rbf"` (RBF fitting: SOSI's first round, with the scales
#' selected by [sosi()]), `"lle"` (LLE reconstruction weights over the `k_lle`
#' nearest labelled points, regulariser `1e-3`), `"nystrom"` (the modified
#' Nystrom rule: normalised Gaussian average of the training embedding), each
#' followed by 1-NN against the training embedding; `"nn"` (1-NN in the
#' ambient space); `"svm"` (RBF SVM from e1071 in the ambient space); `"ssl"`
#' (the harmonic function of [harmonic_ssl()] on the symmetrised
#' `ssl_k`-nearest-neighbour graph).
#'
#' With `tune = TRUE` (default) the parameters the paper leaves open are
#' chosen on the labelled set alone, on grids scaled by the data
#' (multipliers \eqn{2^{-6}, \dots, 2^2} unless said otherwise):
#' * SVM: \eqn{\gamma} = multiplier (\eqn{2^{-4}, \dots, 2^2}) / median
#'   squared pairwise distance of the labelled points, cost in 1, 10, 100,
#'   1000; stratified
#'   \eqn{\min(5, n_{\min})}-fold cross-validation (\eqn{n_{\min}} the
#'   smallest class).
#' * Nystrom: kernel width \eqn{\beta} = multiplier times the median squared
#'   distance of a labelled point to its nearest labelled neighbour, by
#'   leave-one-out 1-NN error of the labelled points mapped from the others.
#'   The graph's \eqn{\beta} (the paper's default, mean squared distance) is
#'   evaluated and recorded but not selected: the average then collapses to
#'   the mean embedding.
#' * SSL: \eqn{\sigma_g^2} multiplier and class mass normalisation (on/off),
#'   by the same stratified cross-validation, the held-out labelled points
#'   staying in the graph as unlabelled nodes.
#' With a single labelled sample in some class, or `tune = FALSE`, the
#' multipliers are 1, the SVM cost 1, SSL without class mass normalisation and
#' Nystrom with the graph's \eqn{\beta}.
#'
#' @param fit A [supervised_le()] or [fisher_embedding()] fit of the
#'   labelled data.
#' @param X_unlabeled Unlabelled data.
#' @param methods Subset of `c("rbf", "lle", "nystrom", "nn", "svm", "ssl")`.
#' @param sosi_fit Optional [sosi()] result on the same data: its first
#'   round gives `"rbf"` without refitting.
#' @param k_lle Neighbours of the LLE map.
#' @param ssl_k Graph neighbours of `"ssl"`.
#' @param tune Choose the parameters of `"svm"`, `"nystrom"` and `"ssl"` by
#'   cross-validation on the labelled set (see Details).
#' @param labels_unlabeled Optional true labels of the unlabelled points:
#'   the tuning record then holds the test error of every grid setting (the
#'   parameter sensitivity); they are never used for the choice.
#' @param seed Seed of the cross-validation folds (the caller's random
#'   stream is left as it was).
#' @param ... Passed to [sosi()] when `"rbf"` needs the scales (without
#'   `sosi_fit`); any other argument is an error of class
#'   `manifoldOOS_dots_error`.
#' @return A named list of factors (one label per unlabelled row) with
#'   attribute `tuning`: a data frame with one row per grid setting of the
#'   tuned baselines (`method`, the parameters, `cv_error`, `test_error`,
#'   `selected`).
#' @export
#' @examples
#' set.seed(1)
#' X <- rbind(matrix(rnorm(80), 40), matrix(rnorm(80, 3), 40))
#' lab <- rep(c("a", "b"), each = 40)
#' tr <- c(1:6, 41:46)
#' fit <- supervised_le(X[tr, ], lab[tr], ndim = 1)
#' b <- sosi_baselines(fit, X[-tr, ], methods = c("lle", "nystrom", "nn", "ssl"),
#'                     labels_unlabeled = lab[-tr])
#' sapply(b, function(p) mean(p != lab[-tr]))
#' subset(attr(b, "tuning"), selected)
sosi_baselines <- function(fit, X_unlabeled, methods = c("rbf", "lle", "nystrom", "nn", "svm", "ssl"),
                           sosi_fit = NULL, k_lle = 5, ssl_k = 10, tune = TRUE, labels_unlabeled = NULL,
                           seed = 1L, ...) {
  if (!inherits(fit, "manifold_supervised")) {
    abort_input("fit", "must be a supervised_le() or fisher_embedding() fit.")
  }
  methods <- unique(vapply(methods, check_choice, "", choices = c("rbf", "lle", "nystrom", "nn", "svm", "ssl"),
                           arg = "methods"))
  check_dots(..., accepted = if ("rbf" %in% methods && is.null(sosi_fit))
    setdiff(names(formals(sosi)), c("fit_or_Y", "X_unlabeled", "n_iter")),
    fun = "sosi_baselines()",
    context = "only method \"rbf\" without `sosi_fit` passes `...` on, to sosi()")
  X <- fit$X_train
  f <- fit$labels
  Y <- embedding(fit)
  Xu <- check_newdata(X_unlabeled, fit$feature_names, fit$n_features, arg = "X_unlabeled")
  k_lle <- check_number(k_lle, "k_lle", lower = 1, integer = TRUE)
  ssl_k <- check_number(ssl_k, "ssl_k", lower = 1, integer = TRUE)
  tune <- check_flag(tune, "tune")
  seed <- check_number(seed, "seed", integer = TRUE)
  truth <- NULL
  if (!is.null(labels_unlabeled)) {
    if (!is.atomic(labels_unlabeled) || length(labels_unlabeled) != nrow(Xu) || anyNA(labels_unlabeled)) {
      abort_input("labels_unlabeled", sprintf("must hold one label per row of `X_unlabeled` (%d), without NA.",
                                              nrow(Xu)))
    }
    truth <- as.character(labels_unlabeled)
  }
  one <- c(1)
  out <- list()
  tuning <- list()
  for (meth in methods) {
    res <- switch(meth,
      rbf = {
        s <- if (is.null(sosi_fit)) sosi(fit, X_unlabeled = Xu, n_iter = 1, ...) else sosi_fit
        s$rounds[[1]]$labels
      },
      lle = embedding_labels(oos_baseline_embed("lle", X, Y, Xu, fit$beta, k_lle), Y, f)$labels,
      nystrom = {
        nt <- nystrom_tune(X, Y, f, fit$beta, mult = if (tune) baseline_grid else one, Xu = Xu, truth = truth)
        if (!tune) nt$tuning$selected <- nt$tuning$beta_rule == "graph"
        list(labels = embedding_labels(oos_baseline_embed("nystrom", X, Y, Xu, nt$tuning$beta[nt$tuning$selected]),
                                       Y, f)$labels, tuning = nt$tuning)
      },
      nn = {
        nb <- knn(X, 1L, query = Xu)
        factor(levels(f)[as.integer(f)[nb$idx[, 1]]], levels = levels(f))
      },
      svm = if (tune) svm_ambient(X, f, Xu, seed = seed, truth = truth) else
        svm_ambient(X, f, Xu, cost = 1, gamma_mult = 1, seed = seed, truth = truth),
      ssl = if (tune) ssl_tune(X, f, Xu, ssl_k, seed = seed, truth = truth) else
        ssl_tune(X, f, Xu, ssl_k, mult = 1, cmn = FALSE, seed = seed, truth = truth)
    )
    if (is.list(res)) {
      tuning[[meth]] <- res$tuning
      res <- res$labels
    }
    out[[meth]] <- res
  }
  attr(out, "tuning") <- if (length(tuning)) tuning_table(tuning) else NULL
  out
}

# One data frame from the tuning records of several baselines (columns
# filled with NA where a baseline has no such parameter).
tuning_table <- function(tuning) {
  cols <- unique(unlist(lapply(tuning, names)))
  out <- do.call(rbind, lapply(tuning, function(d) {
    for (cn in setdiff(cols, names(d))) d[[cn]] <- NA
    d[cols]
  }))
  rownames(out) <- NULL
  out
}

#' Self-training versions of the out-of-sample baselines
#'
#' The progressive baselines of Vural and Guillemot's Fig. 8: in round 1 the
#' labelled data are embedded (`embed`), mapped out of sample (`oos`) and the
#' unlabelled points labelled by 1-NN with the confidence of [sosi()]. In
#' round \eqn{r} the labelled set is extended by the \eqn{L_r - N} most
#' confident unlabelled points with their estimated labels, re-embedded from
#' scratch, the map rebuilt and every unlabelled point relabelled (points in
#' the extended set take their own new coordinates; labels come from 1-NN
#' against the original labelled points). `oos = "rbf"` re-selects the scales
#' on every new embedding with the rule of [sosi()].
#'
#' @inheritParams sosi
#' @param X,labels Labelled data and labels.
#' @param embed `"sle"` ([supervised_le()]) or `"fisher"` ([fisher_embedding()]).
#' @param oos `"rbf"`, `"lle"` or `"nystrom"`.
#' @param ndim Embedding dimension.
#' @param embed_args List of further arguments of the embedding.
#' @param labels_unlabeled Optional true labels: errors per round.
#' @param n_grid Scale-grid size of the re-selection (`oos = "rbf"`).
#' @param nystrom_beta Width of the Nystrom map (`oos = "nystrom"`): `"cv"`
#'   (default) re-selects it on every re-embedding by the leave-one-out rule
#'   of [sosi_baselines()]; `"graph"` uses the graph's \eqn{\beta}.
#' @return A data frame with `round`, `L`, `frac` and `error` (NA without
#'   true labels); attribute `labels` holds the labels of every round.
#' @export
#' @examples
#' set.seed(1)
#' X <- rbind(matrix(rnorm(80), 40), matrix(rnorm(80, 3), 40))
#' lab <- rep(c("a", "b"), each = 40)
#' tr <- c(1:6, 41:46)
#' progressive_baseline(X[tr, ], lab[tr], X[-tr, ], oos = "lle", ndim = 1, n_iter = 3,
#'                      labels_unlabeled = lab[-tr])
progressive_baseline <- function(X, labels, X_unlabeled, embed = c("sle", "fisher"),
                                 oos = c("rbf", "lle", "nystrom"), ndim = 2, n_iter = 11,
                                 embed_args = list(), labels_unlabeled = NULL, n_grid = 40,
                                 nystrom_beta = c("cv", "graph")) {
  X <- as_data_matrix(X, "X", min_rows = 4L)
  f <- check_labels(labels, nrow(X))
  Xu <- check_newdata(X_unlabeled, colnames(X), ncol(X), arg = "X_unlabeled")
  embed <- check_choice(embed, c("sle", "fisher"), "embed")
  oos <- check_choice(oos, c("rbf", "lle", "nystrom"), "oos")
  nystrom_beta <- check_choice(nystrom_beta, c("cv", "graph"), "nystrom_beta")
  n_iter <- check_number(n_iter, "n_iter", lower = 1, integer = TRUE)
  n_grid <- check_number(n_grid, "n_grid", lower = 3, integer = TRUE)
  N <- nrow(X)
  m <- nrow(Xu)
  schedule <- if (n_iter == 1L) N else N + round((seq_len(n_iter) - 1) / (n_iter - 1) * m)
  efun <- if (embed == "sle") supervised_le else fisher_embedding
  truth <- if (is.null(labels_unlabeled)) NULL else as.character(labels_unlabeled)
  lab <- NULL
  conf <- NULL
  res <- vector("list", length(schedule))
  for (r in seq_along(schedule)) {
    nt <- schedule[r] - N
    sel <- if (nt > 0) order(-conf, seq_len(m))[seq_len(nt)] else integer(0)
    Xe <- rbind(X, Xu[sel, , drop = FALSE])
    fe <- factor(c(as.character(f), as.character(lab[sel])), levels = levels(f))
    fe <- droplevels(fe)
    fit <- do.call(efun, c(list(Xe, fe, ndim = ndim), embed_args))
    Ye <- embedding(fit)
    rest <- setdiff(seq_len(m), sel)
    Fu <- matrix(0, m, ncol(Ye))
    if (length(sel)) Fu[sel, ] <- Ye[N + seq_along(sel), ]
    if (length(rest)) {
      sig <- NULL
      if (oos == "rbf") {
        sig <- select_sigma(Xe, as.integer(fe), nlevels(fe), Ye,
                            if (embed == "fisher") "ratio" else "regularizer", NULL, n_grid, NULL, 5L,
                            "per_class", 2, 0.5, 0, 0, 1e-10)$sigma
      }
      beta <- if (oos == "nystrom" && nystrom_beta == "cv") nystrom_tune(Xe, Ye, fe, fit$beta)$beta else fit$beta
      Fu[rest, ] <- oos_baseline_embed(oos, Xe, Ye, Xu[rest, , drop = FALSE], beta, sigma = sig)
    }
    el <- embedding_labels(Fu, Ye[seq_len(N), , drop = FALSE], f)
    lab <- el$labels
    conf <- el$confidence
    res[[r]] <- lab
  }
  err <- vapply(res, function(l) if (is.null(truth)) NA_real_ else mean(as.character(l) != truth), 0)
  out <- data.frame(round = seq_along(schedule), L = schedule, frac = (schedule - N) / m, error = err)
  attr(out, "labels") <- res
  out
}
