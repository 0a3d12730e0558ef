# Baselines of the SOSI comparison (Vural & Guillemot 2015, section V):
# out-of-sample maps of a supervised embedding + 1-NN, ambient 1-NN and SVM,
# harmonic-function semi-supervised learning, and the self-training
# (progressive re-embedding) versions of the out-of-sample baselines.

#' Harmonic-function semi-supervised classification
#'
#' Zhu, Ghahramani and Lafferty's Gaussian fields: on a graph over all
#' labelled and unlabelled points with weights \eqn{\exp(-\|x_i -
#' x_j\|^2/\sigma_g^2)}, the class scores of the unlabelled points are the
#' harmonic extension \eqn{F_u = (D_{uu} - W_{uu})^{-1} W_{ul} F_l} of the
#' one-hot labels. `graph = "knn"` symmetrises the `k`-nearest-neighbour
#' graph and takes \eqn{\sigma_g^2} = the mean squared distance to the
#' `k`-th neighbour; `"full"` connects all pairs with \eqn{\sigma_g^2} = the
#' mean squared pairwise distance. A ridge of `1e-10` keeps components without
#' labelled points solvable; `cmn = TRUE` applies class mass normalisation.
#'
#' @param X Labelled data; `labels` their classes.
#' @param labels Class labels of the rows of `X`.
#' @param X_unlabeled Unlabelled data (same columns).
#' @param k Graph neighbours (`graph = "knn"`).
#' @param graph `"knn"` or `"full"`.
#' @param cmn Class mass normalisation.
#' @return A list with `labels` (factor, one per unlabelled row) and
#'   `scores` (the harmonic function, one column per class).
#' @export
#' @examples
#' set.seed(1)
#' X <- rbind(matrix(rnorm(60), 30), matrix(rnorm(60, 4), 30))
#' lab <- rep(c("a", "b"), each = 30)
#' tr <- c(1:3, 31:33)
#' h <- harmonic_ssl(X[tr, ], lab[tr], X[-tr, ], k = 5)
#' mean(h$labels != lab[-tr])
harmonic_ssl <- function(X, labels, X_unlabeled, k = 10, graph = c("knn", "full"), cmn = FALSE) {
  X <- as_data_matrix(X, "X", min_rows = 2L)
  f <- check_labels(labels, nrow(X), min_per_class = 1L)
  Xu <- check_newdata(X_unlabeled, colnames(X), ncol(X), arg = "X_unlabeled")
  graph <- check_choice(graph, c("knn", "full"), "graph")
  cmn <- check_flag(cmn, "cmn")
  N <- nrow(X)
  m <- nrow(Xu)
  A <- rbind(X, Xu)
  Q <- N + m
  if (graph == "knn") {
    k <- check_k(k, Q)
    nb <- knn(A, k)
    s2 <- mean(nb$dist[, k]^2)
    if (!(s2 > 0)) s2 <- 1
    # symmetrised kNN graph (the weight of a pair does not depend on its direction)
    ii <- c(rep(seq_len(Q), k), as.vector(nb$idx))
    jj <- c(as.vector(nb$idx), rep(seq_len(Q), k))
    xx <- rep(exp(-as.vector(nb$dist)^2 / s2), 2L)
    keep <- !duplicated(ii * (Q + 1) + jj)
    W <- Matrix::sparseMatrix(i = ii[keep], j = jj[keep], x = xx[keep], dims = c(Q, Q))
  } else {
    D2 <- as.matrix(stats::dist(A))^2
    s2 <- mean(D2[upper.tri(D2)])
    W <- exp(-D2 / s2)
    diag(W) <- 0
    W <- Matrix::Matrix(W)
  }
  Fl <- matrix(0, N, nlevels(f))
  Fl[cbind(seq_len(N), as.integer(f))] <- 1
  u <- N + seq_len(m)
  l <- seq_len(N)
  deg <- Matrix::rowSums(W)
  Luu <- Matrix::Diagonal(m, deg[u] + 1e-10) - W[u, u]
  Fu <- as.matrix(Matrix::solve(Luu, W[u, l] %*% Fl))
  if (cmn) {
    q <- colMeans(Fl)
    Fu <- sweep(Fu, 2, pmax(colSums(Fu), 1e-300), "/") %*% diag(q, ncol(Fu))
  }
  colnames(Fu) <- levels(f)
  list(labels = factor(levels(f)[max.col(Fu, ties.method = "first")], levels = levels(f)), scores = Fu)
}

# Multi-class SVM in the ambient space (e1071, RBF kernel, 5-fold CV over a
# small grid when every class has at least 5 samples).
svm_ambient <- function(X, f, Xu, cost = c(0.1, 1, 10, 100), gamma_mult = c(0.25, 1, 4), seed = 1L) {
  if (!requireNamespace("e1071", quietly = TRUE)) {
    abort_input("methods", "includes \"svm\", which needs the package e1071 (install it or drop \"svm\").")
  }
  n <- ncol(X)
  best <- c(cost = 1, gamma = 1 / n)
  if (min(table(f)) >= 5L) {
    old <- if (exists(".Random.seed", envir = globalenv())) get(".Random.seed", envir = globalenv()) else NULL
    on.exit(if (!is.null(old)) assign(".Random.seed", old, envir = globalenv()))
    set.seed(seed)
    folds <- integer(length(f))
    for (lv in levels(f)) {
      w <- which(f == lv)
      folds[w] <- sample(rep_len(1:5, length(w)))
    }
    best_err <- Inf
    for (cc in cost) for (gm in gamma_mult) {
      err <- 0
      for (fo in 1:5) {
        te <- folds == fo
        mdl <- e1071::svm(X[!te, , drop = FALSE], f[!te], kernel = "radial", cost = cc, gamma = gm / n,
                          scale = FALSE)
        err <- err + sum(stats::predict(mdl, X[te, , drop = FALSE]) != f[te])
      }
      if (err < best_err) { best_err <- err; best <- c(cost = cc, gamma = gm / n) }
    }
  }
  mdl <- e1071::svm(X, f, kernel = "radial", cost = best[["cost"]], gamma = best[["gamma"]], scale = FALSE)
  factor(as.character(stats::predict(mdl, Xu)), levels = levels(f))
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
    nystrom = {
      map <- oos_map(X, Y, method = "lvm", k = nrow(X), beta = beta)
      unclass(predict(map, Xu))[, seq_len(ncol(Y)), drop = FALSE]
    },
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
#' Nystrom rule: kernel average with the graph's \eqn{\beta}), each followed
#' by 1-NN against the training embedding; `"nn"` (1-NN in the ambient
#' space); `"svm"` (RBF SVM from e1071 in the ambient space, cost and gamma
#' by 5-fold CV over cost in 0.1, 1, 10, 100 and gamma in 0.25, 1, 4 over
#' the dimension, defaults when a class has fewer than 5 samples); `"ssl"`
#' ([harmonic_ssl()]).
#'
#' @param fit A [supervised_le()] or [fisher_embedding()] fit of the
#'   labelled data.
#' @param X_unlabeled Unlabelled data.
#' @param methods Subset of `c("rbf", "lle", "nystrom", "nn", "svm", "ssl")`.
#' @param sosi_fit Optional [sosi()] result on the same data: its first
#'   round gives `"rbf"` without refitting.
#' @param k_lle Neighbours of the LLE map.
#' @param ssl_k Graph neighbours of `"ssl"`.
#' @param ... Passed to [sosi()] when `"rbf"` needs the scales (without
#'   `sosi_fit`); any other argument is an error of class
#'   `manifoldOOS_dots_error`.
#' @return A named list of factors (one label per unlabelled row).
#' @export
#' @examples
#' set.seed(1)
#' X <- rbind(matrix(rnorm(80), 40), matrix(rnorm(80, 3), 40))
#' lab <- rep(c("a", "b"), each = 40)
#' tr <- c(1:6, 41:46)
#' fit <- supervised_le(X[tr, ], lab[tr], ndim = 1)
#' b <- sosi_baselines(fit, X[-tr, ], methods = c("lle", "nystrom", "nn", "ssl"))
#' sapply(b, function(p) mean(p != lab[-tr]))
sosi_baselines <- function(fit, X_unlabeled, methods = c("rbf", "lle", "nystrom", "nn", "svm", "ssl"),
                           sosi_fit = NULL, k_lle = 5, ssl_k = 10, ...) {
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
  out <- list()
  for (meth in methods) {
    out[[meth]] <- switch(meth,
      rbf = {
        s <- if (is.null(sosi_fit)) sosi(fit, X_unlabeled = Xu, n_iter = 1, ...) else sosi_fit
        s$rounds[[1]]$labels
      },
      lle = , nystrom = embedding_labels(oos_baseline_embed(meth, X, Y, Xu, fit$beta, k_lle), Y, f)$labels,
      nn = {
        nb <- knn(X, 1L, query = Xu)
        factor(levels(f)[as.integer(f)[nb$idx[, 1]]], levels = levels(f))
      },
      svm = svm_ambient(X, f, Xu),
      ssl = harmonic_ssl(X, f, Xu, k = min(ssl_k, nrow(X) + nrow(Xu) - 1L))$labels
    )
  }
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
                                 embed_args = list(), labels_unlabeled = NULL, n_grid = 40) {
  X <- as_data_matrix(X, "X", min_rows = 4L)
  f <- check_labels(labels, nrow(X))
  Xu <- check_newdata(X_unlabeled, colnames(X), ncol(X), arg = "X_unlabeled")
  embed <- check_choice(embed, c("sle", "fisher"), "embed")
  oos <- check_choice(oos, c("rbf", "lle", "nystrom"), "oos")
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
      Fu[rest, ] <- oos_baseline_embed(oos, Xe, Ye, Xu[rest, , drop = FALSE], fit$beta, sigma = sig)
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
