# SOSI (Vural & Guillemot 2015) and the supervised embeddings: spec-002 section 7.

# two curves in R^2, y = +-1 + 0.5 sin t (the spec's Fig. 2 toy)
toy_curves <- function(n_per = 40, seed = 1, sd = 0.03) {
  set.seed(seed)
  t <- c(seq(-4, 4, length.out = n_per), seq(-4, 4, length.out = n_per))
  cls <- rep(1:2, each = n_per)
  X <- cbind(t, ifelse(cls == 1, 1, -1) + 0.5 * sin(t) + rnorm(2 * n_per, sd = sd))
  list(X = X, cls = cls)
}

blobs <- function(n_per = 25, M = 3, p = 5, seed = 1, sep = 4) {
  set.seed(seed)
  X <- do.call(rbind, lapply(seq_len(M), function(m) matrix(rnorm(n_per * p), n_per) +
                               matrix(sep * rnorm(p), n_per, p, byrow = TRUE)))
  list(X = X, cls = rep(letters[seq_len(M)], each = n_per))
}

test_that("RBF interpolation is exact at the centres and equals ridgeless KRR", {
  set.seed(1)
  X <- matrix(rnorm(60), 30)
  Y <- cbind(sin(X[, 1]), X[, 2]^2)
  sig <- c(0.8, 1.5)
  fit <- manifoldOOS:::.mo_rbf_interpolate(X, Y, sig, 0, 1e-10)
  expect_equal(fit$jitter, 0)
  Fx <- manifoldOOS:::.mo_rbf_eval(X, fit$C, sig, X)
  expect_lt(max(abs(Fx - Y)), 1e-6)
  # KRR (eq. 22): f^k(x) = y^k' Phi^{-1} v(x), computed independently in R
  Xq <- matrix(rnorm(10), 5)
  D2 <- as.matrix(dist(X))^2
  D2q <- outer(rowSums(Xq^2), rowSums(X^2), "+") - 2 * Xq %*% t(X)
  for (k in 1:2) {
    Phi <- exp(-D2 / sig[k]^2)
    V <- exp(-D2q / sig[k]^2)
    krr <- V %*% solve(Phi, Y[, k])
    expect_equal(manifoldOOS:::.mo_rbf_eval(X, fit$C, sig, Xq)[, k], as.vector(krr), tolerance = 1e-6)
  }
})

test_that("analytic RBF gradients match finite differences", {
  set.seed(2)
  A <- matrix(rnorm(40), 10)
  cc <- rnorm(10)
  Q <- matrix(rnorm(12), 3)
  G <- manifoldOOS:::.mo_rbf_gradient(A, cc, 1.3, Q)
  h <- 1e-6
  for (i in 1:3) for (j in 1:4) {
    e <- matrix(0, 1, 4)
    e[j] <- h
    fp <- manifoldOOS:::.mo_rbf_eval(A, matrix(cc), 1.3, Q[i, , drop = FALSE] + e)
    fm <- manifoldOOS:::.mo_rbf_eval(A, matrix(cc), 1.3, Q[i, , drop = FALSE] - e)
    expect_equal(G[i, j], as.numeric(fp - fm) / (2 * h), tolerance = 1e-6)
  }
})

test_that("regulariser terms: Gram path equals the direct gradient path, and every G summand >= 1", {
  b <- blobs(n_per = 8, M = 3, p = 4, seed = 3)
  X <- b$X
  f <- factor(b$cls)
  Y <- cbind(as.integer(f) - 2, (as.integer(f) == 2) * 1.0)
  sig <- c(2, 3)
  fit <- manifoldOOS:::.mo_rbf_interpolate(X, Y, sig, 0, 1e-10)
  K_dir <- 2
  rt <- manifoldOOS:::.mo_sosi_reg_terms(X, as.integer(f), Y, X, fit$C, sig, 3L, K_dir, TRUE, 0)
  # direct path: gradients by the explicit formula and per-class direction sets
  D <- as.matrix(dist(X))
  for (k in 1:2) {
    Gd <- manifoldOOS:::.mo_rbf_gradient(X, fit$C[, k], sig[k], X)
    terms <- numeric(nrow(X))
    for (i in seq_len(nrow(X))) {
      nb <- unlist(lapply(levels(f), function(p) {
        w <- setdiff(which(f == p), i)
        w[order(D[i, w], w)][seq_len(min(K_dir, length(w)))]
      }))
      u <- sweep(-X[nb, , drop = FALSE], 2, X[i, ], "+") / D[i, nb]
      terms[i] <- sqrt(sum(Gd[i, ]^2)) / mean(abs(u %*% Gd[i, ]))
    }
    expect_equal(rt$G_terms[, k], terms, tolerance = 1e-6)
    expect_equal(rt$G[k], sum(terms), tolerance = 1e-6)
  }
  expect_true(all(rt$G_terms >= 1 - 1e-9))
  expect_equal(rt$n_skipped, 0)
  # centres other than the evaluation points (the general Gram path)
  set.seed(33)
  A <- rbind(X, matrix(rnorm(20, sd = 3), 5))
  Cr <- matrix(rnorm(2 * nrow(A)), ncol = 2)
  rt2 <- manifoldOOS:::.mo_sosi_reg_terms(X, as.integer(f), Y, A, Cr, sig, 3L, K_dir, TRUE, 0)
  for (k in 1:2) {
    Gd <- manifoldOOS:::.mo_rbf_gradient(A, Cr[, k], sig[k], X)
    terms <- vapply(seq_len(nrow(X)), function(i) {
      nb <- unlist(lapply(levels(f), function(p) {
        w <- setdiff(which(f == p), i)
        w[order(D[i, w], w)][seq_len(min(K_dir, length(w)))]
      }))
      u <- sweep(-X[nb, , drop = FALSE], 2, X[i, ], "+") / D[i, nb]
      sqrt(sum(Gd[i, ]^2)) / mean(abs(u %*% Gd[i, ]))
    }, 0)
    expect_equal(rt2$G_terms[, k], terms, tolerance = 1e-6)
  }
  expect_true(all(rt2$G_terms >= 1 - 1e-9))
})

test_that("the regulariser is invariant to scaling the embedding", {
  b <- blobs(n_per = 10, M = 3, p = 4, seed = 4)
  fit <- supervised_le(b$X, b$cls, ndim = 2)
  grid <- exp(seq(log(0.5), log(4), length.out = 8))  # well-conditioned kernel matrices
  r1 <- regularizer_path(fit, sigma_grid = grid)
  expect_true(all(r1$jitter == 0))
  r2 <- regularizer_path(3.7 * embedding(fit), X = b$X, labels = b$cls, sigma_grid = grid)
  expect_equal(r1$G, r2$G, tolerance = 1e-8)
  expect_equal(r1$D, r2$D, tolerance = 1e-8)
  expect_equal(r1$R, r2$R, tolerance = 1e-8)
})

test_that("simplex QP: weights on the simplex, exact inside the hull, KKT outside", {
  set.seed(5)
  P <- matrix(rnorm(8), 4)  # 4 points in R^2
  w_true <- c(0.2, 0.5, 0.3, 0)
  x <- colSums(P * w_true)
  G <- tcrossprod(sweep(-P, 2, x, "+"))
  w <- manifoldOOS:::.mo_simplex_qp(G)
  expect_true(all(w >= 0))
  expect_equal(sum(w), 1, tolerance = 1e-12)
  expect_lt(sqrt(sum((colSums(P * w) - x)^2)), 1e-6)  # x is reproduced exactly
  # a point outside the hull: KKT conditions of min w'Gw on the simplex
  x2 <- c(5, 5)
  G2 <- tcrossprod(sweep(-P, 2, x2, "+"))
  w2 <- manifoldOOS:::.mo_simplex_qp(G2)
  g <- 2 * G2 %*% w2
  act <- w2 > 1e-9
  expect_lt(diff(range(g[act])), 1e-6 * max(abs(g)))
  expect_true(all(g[!act] >= min(g[act]) - 1e-6 * max(abs(g))))
  if (requireNamespace("quadprog", quietly = TRUE)) {
    ref <- quadprog::solve.QP(2 * G2 + diag(1e-10, 4), rep(0, 4), cbind(1, diag(4)), c(1, rep(0, 4)), meq = 1)
    expect_equal(drop(t(w2) %*% G2 %*% w2), ref$value, tolerance = 1e-6)
  }
})

test_that("supervised LE satisfies Y' D_w Y = I and drops the constant vector", {
  b <- blobs(n_per = 15, M = 3, p = 5, seed = 6)
  fit <- supervised_le(b$X, b$cls, ndim = 2)
  Yf <- fit$Yfull
  expect_equal(crossprod(Yf, fit$dw * Yf), diag(ncol(Yf)), tolerance = 1e-8)
  expect_equal(fit$dropped, 1)
  z <- Yf[, 1]
  expect_lt(sd(z) / abs(mean(z)), 1e-6)
  expect_equal(ncol(embedding(fit)), 2L)
  # mu = 0: the top eigenspace is spanned by class indicators (within-class graph components)
  fit0 <- supervised_le(b$X, b$cls, ndim = 2, mu = 0)
  ind <- model.matrix(~ factor(b$cls) - 1)
  res <- embedding(fit0) - ind %*% qr.solve(ind, embedding(fit0))
  expect_lt(max(abs(res)), 1e-8)
  # Fisher: D_w-normalised columns
  fis <- fisher_embedding(b$X, b$cls, ndim = 2)
  Yfi <- embedding(fis)
  expect_equal(unname(colSums(fis$dw * Yfi^2)), c(1, 1), tolerance = 1e-8)
})

test_that("SOSI reaches 100% on the two-curve toy; confidences >= 1; predict is exact and batch-safe", {
  toy <- toy_curves(40, seed = 7)
  X <- toy$X
  cls <- toy$cls
  tr <- c(which(cls == 1)[c(1, 14, 27, 40)], which(cls == 2)[c(1, 14, 27, 40)])
  Y <- matrix(ifelse(cls[tr] == 1, 1, -1))
  # sigma = 2: the "good" scale of the paper's Fig. 2
  s <- sosi(Y, X = X[tr, ], labels = cls[tr], X_unlabeled = X[-tr, ], n_iter = 5,
            sigma_mode = "fixed", sigma = 2, labels_unlabeled = cls[-tr])
  expect_s3_class(s, "manifold_sosi")
  expect_equal(mean(as.character(s$labels) != as.character(cls[-tr])), 0)
  expect_true(all(s$confidence >= 1))
  expect_true(all(unlist(lapply(s$rounds, `[[`, "confidence")) >= 1))
  expect_equal(nrow(s$history), 5L)
  # exact interpolation at every final centre (training and added test points)
  P <- predict(s, X[tr, ])
  expect_lt(max(abs(unclass(P)[, 1] - Y[, 1])), 1e-6)
  expect_equal(as.character(attr(P, "labels")), as.character(cls[tr]))
  # batch == row by row
  Pb <- predict(s, X[1:6, ])
  Pr <- t(vapply(1:6, function(i) unclass(predict(s, X[i, , drop = FALSE]))[1, ], numeric(1)))
  expect_equal(unname(unclass(Pb)[, 1]), as.vector(Pr), tolerance = 1e-12)
  # saveRDS round trip
  f <- tempfile(fileext = ".rds")
  saveRDS(s, f)
  s2 <- readRDS(f)
  expect_identical(predict(s2, X[1:6, ]), Pb)
  # determinism
  s3 <- sosi(Y, X = X[tr, ], labels = cls[tr], X_unlabeled = X[-tr, ], n_iter = 5,
             sigma_mode = "fixed", sigma = 2)
  expect_identical(s3$labels, s$labels)
  expect_identical(s3$coef, s$coef)
})

test_that("the progressive stage keeps the first round (RBF fitting) and stop_frac truncates", {
  b <- blobs(n_per = 20, M = 3, p = 6, seed = 8, sep = 2.5)
  set.seed(8)
  tr <- unlist(lapply(split(seq_along(b$cls), b$cls), function(i) i[1:4]))
  fit <- supervised_le(b$X[tr, ], b$cls[tr], ndim = 2)
  s <- sosi(fit, X_unlabeled = b$X[-tr, ], n_iter = 6, stop_frac = 0.5, labels_unlabeled = b$cls[-tr])
  expect_gte(max(s$history$frac), 0.5)
  expect_lt(s$history$frac[nrow(s$history) - 1], 0.5)
  r1 <- sosi(fit, X_unlabeled = b$X[-tr, ], n_iter = 1)
  expect_identical(r1$labels, s$rounds[[1]]$labels)
  bl <- sosi_baselines(fit, b$X[-tr, ], methods = c("rbf", "lle", "nystrom", "nn", "ssl"), sosi_fit = s)
  expect_identical(bl$rbf, r1$labels)
  expect_true(all(vapply(bl, length, 1L) == nrow(b$X) - length(tr)))
  # ambient 1-NN agrees with knn()
  nb <- knn(b$X[tr, ], 1L, query = b$X[-tr, ])
  expect_equal(as.character(bl$nn), b$cls[tr][nb$idx[, 1]])
})

test_that("harmonic SSL is harmonic and recovers separated clusters", {
  b <- blobs(n_per = 20, M = 2, p = 3, seed = 9, sep = 6)
  tr <- c(1, 2, 21, 22)
  h <- harmonic_ssl(b$X[tr, ], b$cls[tr], b$X[-tr, ], k = 5)
  expect_equal(as.character(h$labels), b$cls[-tr])
  expect_equal(rowSums(h$scores), rep(1, nrow(h$scores)), tolerance = 1e-6)
  hf <- harmonic_ssl(b$X[tr, ], b$cls[tr], b$X[-tr, ], graph = "full")
  expect_true(all(hf$scores >= 0 & hf$scores <= 1 + 1e-12))
})

test_that("tuned baselines are scale-free and the record marks the CV choice", {
  # two overlapping Gaussians: 1-NN is near twice the Bayes error, a tuned RBF SVM near it
  set.seed(21)
  n <- 600
  cls <- rep(c("a", "b"), each = n / 2)
  X <- cbind(rnorm(n, ifelse(cls == "a", 0, 2)), rnorm(n))
  tr <- c(1:50, 301:350)
  fit <- supervised_le(X[tr, ], cls[tr], ndim = 1)
  b <- sosi_baselines(fit, X[-tr, ], methods = c("nn", "svm", "nystrom", "ssl"), labels_unlabeled = cls[-tr])
  err <- vapply(b, function(p) mean(as.character(p) != cls[-tr]), 0)
  expect_lt(err[["svm"]], err[["nn"]] - 0.05)
  tu <- attr(b, "tuning")
  for (m in c("svm", "nystrom", "ssl")) {
    t_m <- tu[tu$method == m, ]
    expect_equal(sum(t_m$selected), 1L)
    # the selected setting has the least CV error (Nystrom: among the data-scaled widths)
    sel_pool <- if (m == "nystrom") t_m[t_m$beta_rule == "nearest", ] else t_m
    expect_equal(t_m$cv_error[t_m$selected], min(sel_pool$cv_error))
    expect_true(all(t_m$test_error >= 0 & t_m$test_error <= 1))
  }
  # the SVM of the selected setting reproduces the reported test error
  s <- tu[tu$method == "svm" & tu$selected, ]
  expect_equal(s$test_error, err[["svm"]])
  # every width is scaled by the data: shrinking the data by 1e-3 changes no label
  fit_s <- supervised_le(X[tr, ] * 1e-3, cls[tr], ndim = 1)
  b_s <- sosi_baselines(fit_s, X[-tr, ] * 1e-3, methods = c("svm", "nystrom", "ssl"))
  for (m in names(b_s)) expect_identical(b_s[[m]], b[[m]])
  expect_true(all(is.na(attr(b_s, "tuning")$test_error)))
  # without tuning: Nystrom uses the graph's beta, SSL has no class mass normalisation
  b0 <- sosi_baselines(fit, X[-tr, ], methods = c("nystrom", "ssl"), tune = FALSE)
  t0 <- attr(b0, "tuning")
  expect_equal(t0$beta[t0$method == "nystrom" & t0$selected], fit$beta)
  expect_identical(t0$cmn[t0$method == "ssl"], FALSE)
})

test_that("class mass normalisation matches the labelled class proportions", {
  b <- blobs(n_per = 30, M = 3, p = 3, seed = 12, sep = 3)
  tr <- c(1:2, 31:35, 61:63)
  h <- harmonic_ssl(b$X[tr, ], b$cls[tr], b$X[-tr, ], k = 6, cmn = TRUE)
  expect_equal(unname(colSums(h$scores)), as.numeric(table(b$cls[tr])) / length(tr))
  # the bandwidth only rescales the default width: bandwidth 2 equals a doubled
  # width, i.e. the same graph on data shrunk by sqrt(2)
  h2 <- harmonic_ssl(b$X[tr, ], b$cls[tr], b$X[-tr, ], k = 6, bandwidth = 2)
  h1 <- harmonic_ssl(b$X[tr, ], b$cls[tr], b$X[-tr, ], k = 6)
  expect_false(isTRUE(all.equal(h1$scores, h2$scores)))
  expect_input_error(harmonic_ssl(b$X[tr, ], b$cls[tr], b$X[-tr, ], bandwidth = 0), "bandwidth")
  fit <- supervised_le(b$X[1:60, ], b$cls[1:60], ndim = 1)
  expect_input_error(sosi_baselines(fit, b$X[61:90, ], methods = "nn", labels_unlabeled = b$cls[1:3]),
                     "labels_unlabeled")
  expect_input_error(sosi_baselines(fit, b$X[61:90, ], methods = "nn", tune = NA), "tune")
})

test_that("a tuned RBF SVM beats ambient 1-NN on faces (Extended Yale B subset)", {
  d <- skip_if_no_shared_data("YaleB")
  skip_if_not_installed("e1071")
  yb <- load_image_data("YaleB", path = d)
  keep <- which(yb$labels %in% sort(unique(yb$labels))[1:6])
  X <- yb$x[keep, ]
  X <- X / sqrt(rowSums(X^2))
  lab <- yb$labels[keep]
  set.seed(3)
  tr <- sort(unlist(lapply(split(seq_along(lab), lab), function(i) i[sample.int(length(i), 10)])))
  fit <- supervised_le(X[tr, ], lab[tr], ndim = 5)
  b <- sosi_baselines(fit, X[-tr, ], methods = c("nn", "svm"))
  err <- vapply(b, function(p) mean(as.character(p) != as.character(lab[-tr])), 0)
  expect_lt(err[["svm"]], err[["nn"]])
})

test_that("progressive baselines re-embed and record every round", {
  b <- blobs(n_per = 15, M = 2, p = 4, seed = 10, sep = 3)
  tr <- c(1:4, 16:19)
  pb <- progressive_baseline(b$X[tr, ], b$cls[tr], b$X[-tr, ], oos = "lle", ndim = 1, n_iter = 3,
                             labels_unlabeled = b$cls[-tr])
  expect_equal(pb$L, c(8, 8 + 11, 30))
  expect_length(attr(pb, "labels"), 3L)
  expect_true(all(pb$error >= 0 & pb$error <= 1))
})

test_that("bad input gives classed errors", {
  b <- blobs(n_per = 10, M = 3, p = 4, seed = 11)
  X <- b$X
  lab <- b$cls
  lab1 <- lab
  lab1[1:9] <- "b"  # class a keeps one sample
  expect_input_error(supervised_le(X, lab1, ndim = 2), "labels")
  expect_input_error(supervised_le(X, lab[-1], ndim = 2), "labels")
  fit <- supervised_le(X[1:24, ], lab[1:24], ndim = 2)
  expect_input_error(sosi(fit, X_unlabeled = X[0, , drop = FALSE]), "X_unlabeled")
  expect_input_error(sosi(fit), "X_unlabeled")
  expect_input_error(sosi(fit, X_unlabeled = X[25:30, 1:3]), "X_unlabeled")
  expect_input_error(sosi(embedding(fit), X = X[1:24, ], labels = lab1[1:24], X_unlabeled = X[25:30, ]), "labels")
  expect_input_error(sosi(embedding(fit), X = X[1:24, ], labels = lab[1:20], X_unlabeled = X[25:30, ]), "labels")
  expect_input_error(sosi(fit, X_unlabeled = X[25:30, ], sigma_mode = "fixed"), "sigma")
  expect_input_error(sosi(fit, X_unlabeled = X[25:30, ], schedule = c(5, 10)), "schedule")
  expect_input_error(sosi(fit, X_unlabeled = X[25:30, ], stop_frac = 0), "stop_frac")
})

test_that("COIL-20: SOSI improves on RBF fitting (shared data)", {
  d <- skip_if_no_shared_data("COIL20")
  img <- load_image_data("COIL20", path = d)
  keep <- img$labels <= 5
  X <- img$x[keep, ] / sqrt(rowSums(img$x[keep, ]^2))
  lab <- img$labels[keep]
  set.seed(1)
  tr <- unlist(lapply(split(seq_along(lab), lab), function(i) sample(i, 8)))
  fit <- supervised_le(X[tr, ], lab[tr], ndim = 4)
  s <- sosi(fit, X_unlabeled = X[-tr, ], labels_unlabeled = lab[-tr])
  expect_lte(s$history$error[nrow(s$history)], s$history$error[1])
})

test_that("separable_pairs: symmetric, no diagonal, and complete for well-separated classes", {
  b <- blobs(n_per = 12, M = 3, p = 4, seed = 12, sep = 8)
  fit <- supervised_le(b$X, b$cls, ndim = 2)
  I <- separable_pairs(fit)
  expect_equal(dim(I), c(3L, 3L, 2L))
  for (k in 1:2) {
    expect_equal(I[, , k], t(I[, , k]))
    expect_false(any(diag(I[, , k])))
  }
  # every pair of well-separated blobs is separated in some dimension
  any_k <- apply(I, c(1, 2), any)
  expect_true(all(any_k[upper.tri(any_k)]))
  expect_input_error(separable_pairs(pca(b$X, 2)), "fit")
})

test_that("golden-section refinement never ends above the grid minimum of the criterion", {
  b <- blobs(n_per = 12, M = 3, p = 5, seed = 13, sep = 3)
  fit <- supervised_le(b$X, b$cls, ndim = 2)
  f <- factor(b$cls)
  Xu <- b$X[1:6, ] + 0.05
  base <- sosi(fit, X_unlabeled = Xu, n_iter = 1, n_grid = 12, lambda = 0.5)
  s <- sosi(fit, X_unlabeled = Xu, n_iter = 1, n_grid = 12, lambda = 0.5, refine = TRUE)
  dg <- s$diagnostics
  expect_equal(dg$mode_used, "regularizer")
  crit <- dg$G - dg$lambda * dg$D
  expect_equal(dg$sigma_grid_min, dg$grid[dg$index])
  # the refinement stays inside the bracket of grid neighbours of the grid minimum
  ng <- length(dg$grid)
  expect_true(all(dg$sigma_refined >= dg$grid[pmax(dg$index - 1, 1)] * (1 - 1e-12)))
  expect_true(all(dg$sigma_refined <= dg$grid[pmin(dg$index + 1, ng)] * (1 + 1e-12)))
  for (k in which(dg$I_sizes > 0)) {
    # the criterion at the refined scale, recomputed on the grid path (all dimensions at one scale)
    g1 <- manifoldOOS:::.mo_sosi_grid(b$X, as.integer(f), unname(embedding(fit)), b$X, unname(embedding(fit)),
                                      dg$sigma_refined[k], 3L, 5L, TRUE, 0, 0, 1e-10)
    v <- g1$G[1, k] - dg$lambda * g1$D[1, k]
    expect_equal(v, dg$crit_refined[k], tolerance = 1e-8)
    expect_true(all(v <= crit[, k] + 1e-9 * abs(crit[, k])))
    expect_gt(dg$refine_evals[k], 3)
  }
  # refine = FALSE (the default) is the plain grid search
  expect_null(base$diagnostics$sigma_refined)
  expect_equal(base$diagnostics$index, dg$index)
  expect_input_error(sosi(fit, X_unlabeled = Xu, refine = NA), "refine")
  expect_input_error(sosi(fit, X_unlabeled = Xu, refine = TRUE, refine_tol = 0), "refine_tol")
})

test_that("reoptimize_sigma: constant re-selection reproduces the fixed-scale loop; the last round's scales are the rule's", {
  b <- blobs(n_per = 15, M = 3, p = 5, seed = 14, sep = 2.5)
  tr <- unlist(lapply(split(seq_along(b$cls), b$cls), function(i) i[1:5]))
  fit <- supervised_le(b$X[tr, ], b$cls[tr], ndim = 2)
  Xu <- b$X[-tr, ]
  # a grid of one repeated scale: every re-selection returns it, so the
  # rounds must be bit-identical to the loop without re-selection
  g2 <- c(1.7, 1.7)
  s0 <- sosi(fit, X_unlabeled = Xu, n_iter = 4, sigma_grid = g2, lambda = 1)
  s1 <- sosi(fit, X_unlabeled = Xu, n_iter = 4, sigma_grid = g2, lambda = 1, reoptimize_sigma = TRUE)
  expect_identical(s1$coef, s0$coef)
  expect_identical(s1$labels, s0$labels)
  expect_identical(s1$confidence, s0$confidence)
  expect_true(all(vapply(s1$rounds, function(r) all(r$sigma == 1.7), TRUE)))
  # with the default grid the scales change over the rounds; those of the last
  # round are what the rule selects for its centres and targets
  s2 <- sosi(fit, X_unlabeled = Xu, n_iter = 4, n_grid = 15, reoptimize_sigma = TRUE, labels_unlabeled = b$cls[-tr])
  s3 <- sosi(fit, X_unlabeled = Xu, n_iter = 4, n_grid = 15, labels_unlabeled = b$cls[-tr])
  expect_identical(s2$rounds[[1]]$labels, s3$rounds[[1]]$labels)
  expect_equal(s2$rounds[[1]]$sigma, s3$sigma)
  sig_r <- t(vapply(s2$rounds, `[[`, numeric(2), "sigma"))
  expect_true(any(abs(sweep(sig_r, 2, sig_r[1, ])) > 1e-8))  # the re-selection is active
  expect_equal(s2$sigma, s2$rounds[[length(s2$rounds)]]$sigma)
  A <- unname(s2$centres)
  Tg <- unclass(predict(s2, A))
  attributes(Tg) <- list(dim = dim(Tg))
  f <- factor(b$cls[tr])
  dg <- s2$diagnostics
  ref <- manifoldOOS:::select_sigma(b$X[tr, ], as.integer(f), 3L, embedding(fit), dg$mode_used, dg$grid_all, 15,
                                    dg$lambda, 5L, "per_class", 2, 0.5, 0, 0, 1e-10, A = A, Tg = Tg)
  expect_equal(s2$sigma, ref$sigma, tolerance = 1e-8)
  # the final interpolator is exact at all its centres
  expect_lt(max(abs(Tg[seq_along(tr), ] - embedding(fit))), 1e-6)
  expect_input_error(sosi(fit, X_unlabeled = Xu, sigma_mode = "fixed", sigma = 1, reoptimize_sigma = TRUE),
                     "reoptimize_sigma")
  expect_input_error(sosi(fit, X_unlabeled = Xu, reoptimize_sigma = "yes"), "reoptimize_sigma")
})

test_that("the default scale grid of the core equals its definition on R's dist()", {
  ref_grid <- function(X, n_grid) {
    D <- as.matrix(stats::dist(X))
    diag(D) <- Inf
    dnn <- stats::median(apply(D, 1, min))
    dmed <- stats::median(D[upper.tri(D)])
    if (!(dnn > 0)) dnn <- min(D[D > 0])
    exp(seq(log(0.25 * dnn), log(4 * dmed), length.out = n_grid))
  }
  set.seed(21)
  X_odd <- matrix(rnorm(23 * 4), 23, 4)    # odd number of points and of pairs
  X_even <- matrix(rnorm(16 * 3), 16, 3)   # even numbers: medians average two values
  X_dup <- rbind(X_even, X_even)           # every nearest-neighbour distance is 0
  for (X in list(X_odd, X_even, X_dup)) {
    for (ng in c(2L, 3L, 40L)) {
      expect_identical(manifoldOOS:::.mo_sosi_default_grid(X, ng), ref_grid(X, ng))
    }
  }
  g <- manifoldOOS:::.mo_sosi_default_grid(X_dup, 5L)
  expect_equal(g[1], 0.25 * min(dist(X_even)))  # the smallest positive distance replaces dnn = 0
  expect_error(manifoldOOS:::core(manifoldOOS:::.mo_sosi_default_grid(X_odd, 1L)), class = "manifoldOOS_input_error")
})

test_that("scale selection is one core call: sosi()'s diagnostics equal select_sigma() on the same data", {
  b <- blobs(n_per = 10, M = 3, p = 4, seed = 31, sep = 3)
  fit <- supervised_le(b$X, b$cls, ndim = 2)
  f <- factor(b$cls)
  for (mode in c("regularizer", "ratio")) {
    s <- sosi(fit, X_unlabeled = b$X[1:5, ] + 0.1, n_iter = 1, n_grid = 9, sigma_mode = mode)
    sel <- manifoldOOS:::select_sigma(b$X, as.integer(f), 3L, embedding(fit), mode, NULL, 9L, NULL, 5L,
                                      "per_class", 2, 0.5, 0, 0, 1e-10)
    expect_identical(s$sigma, sel$sigma)
    expect_identical(s$diagnostics[names(sel)[-1]], sel[-1])
    # the chosen scales lie on the kept grid (or at the clipping bounds / the mean scale)
    expect_true(all(sel$sigma >= sel$grid[1]))
    expect_identical(length(sel$grid), nrow(sel$G))
  }
  expect_input_error(sosi(fit, X_unlabeled = b$X[1:5, ], sigma_grid = 1), "sigma_grid")
})
