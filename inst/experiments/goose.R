# Reproduction of the GOoSE experiments of Strange's thesis, chapter 5, and
# Strange and Zwiggelaar (AAAI 2011).
#
# Full size:   Rscript inst/experiments/goose.R
# Options:     --n=2000 --runs=10 --folds=10 --out=inst/experiments/results
#              --parts=kstudy,flows,table51[,scale,restrict,yang_sigma,plmlflows,plmltears,aaai_k,aaai_faces]
#              --methods=Isomap,LLE,LTSA,PCA,PLML
#              --only_folds=1 (only these folds of Table 5.1 and the faces:
#              a cheap rerun that checks the committed rows)
# (aaai_faces needs the ISOFaces images: image_data_path(), MANIFOLDOOS_DATA)
#
# Sourcing this file with GOOSE_NO_MAIN <- TRUE defined only defines the
# functions (the vignette runs reduced sizes live).
#
# Errors: e = sqrt(sum_i ||r_i - y_i||^2 / m) over the m held-out points
# (thesis Eq. 5.13; oos_error(type = "goose")), where r_i is the reference
# position (ground truth, or the batch embedding of all points aligned to the
# training embedding by translation + rotation/reflection on the training
# rows) and y_i the out-of-sample position.
suppressPackageStartupMessages(library(manifoldOOS))

# Yang et al.'s LGRM regression map as in the thesis (Eq. 5.3): kernel ridge
# regression with a feature-space intercept, gamma = 1e-4, Gaussian sigma.
yang_map <- function(X, Y, sigma = 10, gamma = 1e-4) {
  oos_map(X, Y, method = "krr", kernel = "rbf", sigma = sigma, lambda = gamma, bias = "feature")
}

# ---- E5.1: choice of k ---------------------------------------------------------------
# Swiss roll with its ground-truth parameters (t, h) as the embedding; random
# half/half splits; GOoSE error for every k.
goose_k_study <- function(n = 2000, ks = 3:19, runs = 10, seed = 1) {
  out <- list()
  for (r in seq_len(runs)) {
    roll <- swiss_roll(n, seed = seed + r)
    set.seed(seed + 100 + r)
    tr <- sort(sample.int(n, n %/% 2))
    for (k in ks) {
      gm <- oos_map(roll$x[tr, ], roll$truth[tr, ], method = "goose", k = k)
      y <- predict(gm, roll$x[-tr, ])
      out[[length(out) + 1]] <- data.frame(run = r, k = k,
        error = oos_error(y, roll$truth[-tr, ], roll$truth[tr, ], roll$truth[tr, ], type = "goose"))
    }
  }
  do.call(rbind, out)
}

# AAAI11 A1: the same with an LTSA embedding of all n points (k_embed) as the
# target (the training rows' LTSA coordinates as Y, the held-out rows' as the
# reference: the "restrict" protocol below).
goose_k_study_embedding <- function(method = "LTSA", n = 2000, ks = 3:19, runs = 10, k_embed = 8, seed = 1) {
  out <- list()
  for (r in seq_len(runs)) {
    roll <- swiss_roll(n, seed = seed + r)
    Yb <- embedding(embed_with(method, roll$x, k_embed))
    set.seed(seed + 100 + r)
    tr <- sort(sample.int(n, n %/% 2))
    for (k in ks) {
      y <- predict(oos_map(roll$x[tr, ], Yb[tr, ], method = "goose", k = k), roll$x[-tr, ])
      out[[length(out) + 1]] <- data.frame(embedding = method, run = r, k = k,
        error = oos_error(y, Yb[-tr, ], Yb[tr, ], Yb[tr, ], type = "goose", align = "none"))
    }
  }
  do.call(rbind, out)
}

# ---- embeddings -----------------------------------------------------------------------
has_plml <- function() exists("plml", envir = asNamespace("manifoldOOS"), inherits = FALSE)

embed_with <- function(method, X, k = 12, ndim = 2) {
  switch(method,
    Isomap = isomap(X, ndim = ndim, k = k),
    LLE = lle(X, ndim = ndim, k = k),
    LTSA = ltsa(X, ndim = ndim, k = k),
    LE = laplacian_eigenmaps(X, ndim = ndim, k = k),
    PCA = pca(X, ndim = ndim),
    PLML = get("plml", envir = asNamespace("manifoldOOS"))(X, ndim = 2, k = 9, seed = 1))
}

# Reference positions of the held-out points: the batch embedding of all
# points, aligned (translation + rotation/reflection + isotropic scale) from
# its training rows onto the training embedding. The scale matters for LLE
# and LTSA, whose unit-norm coordinates shrink like 1/sqrt(n).
aligned_reference <- function(Y_batch, tr, Y_train) {
  pr <- procrustes(Y_batch[tr, , drop = FALSE], Y_train, scale = TRUE)
  Yb <- Y_batch[-tr, , drop = FALSE]
  sweep(pr$scale * Yb %*% pr$rotation, 2, pr$translation, "+")
}

# Two protocols. "reembed" (the thesis's: AAAI11 "a manifold learning
# algorithm was then used to obtain the full low-dimensional embedding as well
# as the training set's"): the training rows are embedded on their own and the
# reference is the aligned batch embedding, so every error also contains the
# difference between the two embeddings, which no out-of-sample rule can
# remove. "restrict": the training embedding is the batch embedding's
# training rows and the reference its held-out rows, exactly and in the same
# frame and scale for both maps: the error is the map's alone.

# ---- E5.2 / AAAI flows: one split, GOoSE vs Yang (and the method's own rule) ------------
goose_flow <- function(method = "Isomap", n = 2000, n_train = 1500, k_embed = 12, k_goose = 10,
                       sigma = 10, seed = 1, protocol = c("reembed", "restrict")) {
  protocol <- match.arg(protocol)
  roll <- swiss_roll(n, seed = seed)
  set.seed(seed + 7)
  tr <- sort(sample.int(n, n_train))
  if (protocol == "reembed") {
    fit <- embed_with(method, roll$x[tr, ], k_embed)
    Ytr <- embedding(fit)
    ref <- aligned_reference(embedding(embed_with(method, roll$x, k_embed)), tr, Ytr)
  } else {
    Yb <- embedding(embed_with(method, roll$x, k_embed))
    Ytr <- Yb[tr, , drop = FALSE]
    ref <- Yb[-tr, , drop = FALSE]
  }
  new <- roll$x[-tr, ]
  preds <- list(
    GOoSE = predict(oos_map(roll$x[tr, ], Ytr, method = "goose", k = k_goose), new),
    Yang = predict(yang_map(roll$x[tr, ], Ytr, sigma = sigma), new))
  if (protocol == "reembed") {
    native <- fit$oos$default
    if (method == "Isomap" && "nystrom" %in% fit$oos$available) native <- "nystrom"
    preds[[paste0("native (", native, ")")]] <- predict(fit, new, method = native)
  }
  err <- vapply(preds, function(p) oos_error(p, ref, Ytr, Ytr, type = "goose", align = "none"), 0)
  list(method = method, train = Ytr, reference = ref, predictions = preds, errors = err,
       color = roll$color[-tr], color_train = roll$color[tr])
}

# ---- Where the PLML flow error comes from -----------------------------------------------
# The thesis's PLML flows (Figs. 5.6-5.7) on the exact reference (the batch
# PLML embedding's training rows given to both maps, its held-out rows the
# reference): GOoSE's and Yang's errors grouped by the number of PLML models
# among a held-out point's 10 training neighbours, and how PLML stretches the
# kNN edges (k = 10, all points) of its embedding, within a model and across
# two (1 = isometric; PLML keeps the input scale). With and without the
# contiguity repair of plml().
plml_tears <- function(n = 2000, n_train = 1500, k_plml = 9, k_goose = 10, sigma = 2, seed = 1) {
  roll <- swiss_roll(n, seed = seed)
  set.seed(seed + 7)
  tr <- sort(sample.int(n, n_train))
  new <- roll$x[-tr, ]
  nbq <- knn(roll$x[tr, ], k_goose, query = new)$idx
  nbt <- knn(roll$x, 10)$idx
  i <- rep(seq_len(n), ncol(nbt))
  j <- as.vector(nbt)
  rmse <- function(e2) if (length(e2)) sqrt(mean(e2)) else NA_real_
  do.call(rbind, lapply(c(TRUE, FALSE), function(contig) {
    fit <- plml(roll$x, ndim = 2, k = k_plml, seed = 1, contiguous = contig)
    Yb <- embedding(fit)
    Ytr <- Yb[tr, , drop = FALSE]
    ref <- Yb[-tr, , drop = FALSE]
    e_g <- rowSums((predict(oos_map(roll$x[tr, ], Ytr, method = "goose", k = k_goose), new) - ref)^2)
    e_y <- rowSums((predict(yang_map(roll$x[tr, ], Ytr, sigma = sigma), new) - ref)^2)
    lab <- fit$labels
    spanned <- apply(nbq, 1, function(r) length(unique(lab[tr][r])))
    st <- sqrt(rowSums((Yb[i, ] - Yb[j, ])^2)) / sqrt(rowSums((roll$x[i, ] - roll$x[j, ])^2))
    across <- lab[i] != lab[j]
    grp <- c("all", "1", "2", "3", ">=4")
    sel <- list(rep(TRUE, length(spanned)), spanned == 1, spanned == 2, spanned == 3, spanned >= 4)
    data.frame(contiguous = contig, n_models = fit$n_models, models_spanned = grp,
               n_test = vapply(sel, sum, 0), GOoSE = vapply(sel, function(s) rmse(e_g[s]), 0),
               Yang = vapply(sel, function(s) rmse(e_y[s]), 0),
               stretch_within_q99 = unname(stats::quantile(st[!across], 0.99)),
               stretch_across_q50 = unname(stats::quantile(st[across], 0.5)),
               stretch_across_q95 = unname(stats::quantile(st[across], 0.95)),
               stretch_across_q99 = unname(stats::quantile(st[across], 0.99)))
  }))
}

plot_flow <- function(fl, which = names(fl$predictions), ...) {
  old <- graphics::par(mfrow = c(1, length(which)), mar = c(2, 2, 3, 1))
  on.exit(graphics::par(old))
  for (w in which) {
    p <- fl$predictions[[w]]
    graphics::plot(fl$train, pch = 16, cex = 0.3, col = "grey80", asp = 1, xlab = "", ylab = "",
                   main = sprintf("%s: %s\ne = %.4g", fl$method, w, fl$errors[[w]]), cex.main = 0.9, ...)
    graphics::segments(fl$reference[, 1], fl$reference[, 2], p[, 1], p[, 2], col = "firebrick", lwd = 0.7)
    graphics::points(p, pch = 16, cex = 0.3, col = "black")
  }
}

# ---- E5.4: Table 5.1, K-fold cross-validation -------------------------------------------
# `scale = "unit_var"` rescales every embedding axis to unit variance (over
# the points embedded) before the maps are fitted and the errors measured:
# both maps are equivariant to an isotropic scaling of the embedding (the
# ratio of their errors does not change), but not to a per-axis one, which
# is how toolboxes that standardise their output would see the comparison.
table_5_1 <- function(n = 2000, folds = 10, methods = c("Isomap", "LLE", "LTSA", "PCA", "PLML"),
                      k_embed = 12, k_goose = 10, sigma = 10, seed = 1, scale = c("none", "unit_var"),
                      protocol = c("reembed", "restrict"), only_folds = NULL) {
  scale <- match.arg(scale)
  protocol <- match.arg(protocol)
  rescale <- function(Y) if (scale == "unit_var") sweep(Y, 2, apply(Y, 2, stats::sd), "/") else Y
  roll <- swiss_roll(n, seed = seed)
  set.seed(seed + 11)
  fold <- sample(rep_len(seq_len(folds), n))
  if (!has_plml()) methods <- setdiff(methods, "PLML")
  out <- list()
  for (m in methods) {
    Yb <- rescale(embedding(embed_with(m, roll$x, k_embed)))
    for (f in intersect(seq_len(folds), if (is.null(only_folds)) seq_len(folds) else only_folds)) {
      tr <- which(fold != f)
      if (protocol == "reembed") {
        Ytr <- rescale(embedding(embed_with(m, roll$x[tr, ], k_embed)))
        ref <- aligned_reference(Yb, tr, Ytr)
      } else {
        Ytr <- Yb[tr, , drop = FALSE]
        ref <- Yb[-tr, , drop = FALSE]
      }
      new <- roll$x[-tr, ]
      yg <- predict(oos_map(roll$x[tr, ], Ytr, method = "goose", k = k_goose), new)
      yy <- predict(yang_map(roll$x[tr, ], Ytr, sigma = sigma), new)
      out[[length(out) + 1]] <- data.frame(embedding = m, fold = f, scale = scale, protocol = protocol,
        Yang = oos_error(yy, ref, Ytr, Ytr, type = "goose", align = "none"),
        GOoSE = oos_error(yg, ref, Ytr, Ytr, type = "goose", align = "none"))
    }
  }
  do.call(rbind, out)
}

# ---- AAAI11 A5: ISOMAP faces, 10-fold CV, GOoSE (minimum over k) vs each
# method's own extension (LLE, LTSA: Saul and Roweis' reconstruction
# weights; Laplacian eigenmaps: Bengio et al.'s Nystrom formula), embedding
# k = 8, intrinsic dimension 4; "reembed" protocol (training rows embedded on
# their own, reference = the aligned batch embedding).
aaai_faces <- function(x, folds = 10, methods = c("LLE", "LTSA", "LE"), k_embed = 8, ndim = 4,
                       ks = 3:19, seed = 1, only_folds = NULL) {
  n <- nrow(x)
  ks <- ks[ks > ndim]  # GOoSE needs k >= ndim + 1
  set.seed(seed + 13)
  fold <- sample(rep_len(seq_len(folds), n))
  out <- list()
  for (m in methods) {
    Yb <- embedding(embed_with(m, x, k_embed, ndim))
    for (f in intersect(seq_len(folds), if (is.null(only_folds)) seq_len(folds) else only_folds)) {
      tr <- which(fold != f)
      fit <- embed_with(m, x[tr, ], k_embed, ndim)
      Ytr <- embedding(fit)
      ref <- aligned_reference(Yb, tr, Ytr)
      new <- x[-tr, , drop = FALSE]
      eg <- vapply(ks, function(k) {
        oos_error(predict(oos_map(x[tr, ], Ytr, method = "goose", k = k), new), ref, Ytr, Ytr,
                  type = "goose", align = "none")
      }, 0)
      en <- oos_error(predict(fit, new, method = fit$oos$default), ref, Ytr, Ytr, type = "goose", align = "none")
      out[[length(out) + 1]] <- data.frame(embedding = m, fold = f, native_rule = fit$oos$default,
                                           native = en, goose_min = min(eg), goose_k = ks[which.min(eg)],
                                           goose_k10 = eg[ks == 10])
    }
  }
  do.call(rbind, out)
}

summarise_5_1 <- function(cv) {
  f <- function(v) sprintf("%.3f \u00b1 %.2f", mean(v), stats::sd(v))
  do.call(rbind, lapply(split(cv, factor(cv$embedding, unique(cv$embedding))), function(d) {
    data.frame(embedding = d$embedding[1], Yang = f(d$Yang), GOoSE = f(d$GOoSE),
               GOoSE_better = mean(d$GOoSE < d$Yang))
  }))
}

paper_5_1 <- function() {
  data.frame(embedding = c("Isomap", "LLE", "LTSA", "PCA", "PLML"),
             Yang = c("0.273 \u00b1 0.01", "0.014 \u00b1 0.00", "0.022 \u00b1 0.00", "0.319 \u00b1 0.03", "0.308 \u00b1 0.10"),
             GOoSE = c("0.138 \u00b1 0.01", "0.000 \u00b1 0.00", "0.000 \u00b1 0.00", "0.085 \u00b1 0.01", "0.085 \u00b1 0.01"))
}

# ---- main ------------------------------------------------------------------------------
if (!exists("GOOSE_NO_MAIN") || !isTRUE(GOOSE_NO_MAIN)) {
  args <- commandArgs(trailingOnly = TRUE)
  opt <- function(name, default) {
    hit <- grep(paste0("^--", name, "="), args, value = TRUE)
    if (length(hit)) sub(paste0("^--", name, "="), "", hit[1]) else default
  }
  n <- as.integer(opt("n", "2000"))
  runs <- as.integer(opt("runs", "10"))
  folds <- as.integer(opt("folds", "10"))
  # --only_folds=1,2: run only these of the --folds folds (same fold
  # assignment; a cheap rerun to check committed rows)
  only_folds <- if (is.null(opt("only_folds", NULL))) NULL else as.integer(strsplit(opt("only_folds", NULL), ",")[[1]])
  out_dir <- opt("out", file.path("inst", "experiments", "results"))
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  # --parts=kstudy,flows,table51,scale (default: the first three); --methods=
  # restricts Table 5.1 to those embeddings and replaces only their rows
  parts <- strsplit(opt("parts", "kstudy,flows,table51"), ",", fixed = TRUE)[[1]]
  methods51 <- strsplit(opt("methods", "Isomap,LLE,LTSA,PCA,PLML"), ",", fixed = TRUE)[[1]]
  if ("kstudy" %in% parts) {
    ks <- goose_k_study(n = n, runs = runs)
    utils::write.csv(ks, file.path(out_dir, "goose-k-study.csv"), row.names = FALSE)
  }
  if ("flows" %in% parts) {
    fl <- lapply(c("Isomap", "LTSA"), function(m) {
      f <- goose_flow(m, n = n, n_train = round(0.75 * n), k_embed = if (m == "Isomap") 12 else 8)
      data.frame(embedding = m, rule = names(f$errors), error = unname(f$errors))
    })
    utils::write.csv(do.call(rbind, fl), file.path(out_dir, "goose-flow-errors.csv"), row.names = FALSE)
  }
  if ("table51" %in% parts) {
    cv <- table_5_1(n = n, folds = folds, only_folds = only_folds, methods = methods51)
    cv$scale <- NULL
    cv$protocol <- NULL
    f51 <- file.path(out_dir, "goose-table-5-1.csv")
    if (file.exists(f51)) {
      old <- utils::read.csv(f51)
      cv <- rbind(old[!old$embedding %in% cv$embedding, names(cv)], cv)
    }
    utils::write.csv(cv, f51, row.names = FALSE)
  }
  if ("scale" %in% parts) {
    sc <- rbind(table_5_1(n = n, folds = folds, only_folds = only_folds, methods = c("LLE", "LTSA", "PCA"), scale = "none"),
                table_5_1(n = n, folds = folds, only_folds = only_folds, methods = c("LLE", "LTSA", "PCA"), scale = "unit_var"))
    utils::write.csv(sc, file.path(out_dir, "goose-table-5-1-scale.csv"), row.names = FALSE)
  }
  if ("restrict" %in% parts) {
    # Table 5.1 with the "restrict" protocol: both maps get the batch
    # embedding's training rows and are scored on its held-out rows
    rs <- table_5_1(n = n, folds = folds, only_folds = only_folds, methods = methods51, protocol = "restrict")
    utils::write.csv(rs, file.path(out_dir, "goose-table-5-1-restrict.csv"), row.names = FALSE)
  }
  if ("yang_sigma" %in% parts) {
    # The thesis does not say how sigma enters Yang's Gaussian kernel: the
    # three usual conventions exp(-d^2 / (2 sigma^2)) (the package's),
    # exp(-d^2 / sigma^2) and exp(-d^2 / sigma) give, for sigma = 10, the
    # package bandwidths 10, 10 / sqrt(2) and sqrt(10 / 2); Table 5.1 with
    # each, under both protocols
    conv <- c(two_sigma2 = 10, sigma2 = 10 / sqrt(2), sigma = sqrt(10 / 2))
    ys <- do.call(rbind, lapply(names(conv), function(cv) do.call(rbind, lapply(c("reembed", "restrict"), function(pr) {
      d <- table_5_1(n = n, folds = folds, only_folds = only_folds, methods = methods51, sigma = conv[[cv]], protocol = pr)
      d$kernel_convention <- cv
      d$sigma_package <- conv[[cv]]
      d
    }))))
    utils::write.csv(ys, file.path(out_dir, "goose-table-5-1-yang-sigma.csv"), row.names = FALSE)
  }
  if ("plmlflows" %in% parts) {
    # thesis Figs. 5.6-5.7: PLML k = 9, Yang sigma = 2, GOoSE k = 10, 1500/500
    pf <- do.call(rbind, lapply(c("reembed", "restrict"), function(pr) {
      f <- goose_flow("PLML", n = n, n_train = round(0.75 * n), sigma = 2, protocol = pr)
      data.frame(embedding = "PLML", protocol = pr, rule = names(f$errors), error = unname(f$errors))
    }))
    utils::write.csv(pf, file.path(out_dir, "goose-plml-flows.csv"), row.names = FALSE)
  }
  if ("plmltears" %in% parts) {
    utils::write.csv(plml_tears(n = n, n_train = round(0.75 * n)), file.path(out_dir, "goose-plml-tears.csv"),
                     row.names = FALSE)
  }
  if ("aaai_k" %in% parts) {
    ak <- goose_k_study_embedding("LTSA", n = n, runs = runs)
    utils::write.csv(ak, file.path(out_dir, "goose-aaai-k-study-ltsa.csv"), row.names = FALSE)
  }
  if ("aaai_faces" %in% parts) {
    path <- image_data_path()
    faces <- if (nzchar(path)) tryCatch(load_image_data("ISOFaces", path), error = function(e) NULL)
    if (is.null(faces)) {
      message("ISOFaces not found (image_data_path()): part aaai_faces skipped")
    } else {
      af <- aaai_faces(faces$x, folds = folds, only_folds = only_folds)
      af$n <- nrow(faces$x)
      af$p <- ncol(faces$x)
      utils::write.csv(af, file.path(out_dir, "goose-aaai-faces.csv"), row.names = FALSE)
    }
  }
  session_file <- file.path(out_dir, "goose-session.txt")
  prev <- if (!identical(parts, c("kstudy", "flows", "table51")) && file.exists(session_file))
    c(readLines(session_file), "", "---- partial run ----") else NULL
  writeLines(c(prev, paste("command: Rscript inst/experiments/goose.R", paste(args, collapse = " ")),
               "seeds: k study run r uses swiss_roll(seed = 1 + r) and set.seed(101 + r); flows seed 1 (+7 for the split); Table 5.1 swiss_roll(seed = 1), folds set.seed(12); AAAI k study as the k study (LTSA k = 8 of all n points); ISOFaces folds set.seed(14)",
               sprintf("PLML row: %s", if (has_plml()) "included" else "pending (plml() not in this build)"),
               sprintf("finished: %s", format(Sys.time(), tz = "UTC", usetz = TRUE)),
               "", utils::capture.output(print(utils::sessionInfo()))),
             session_file)
}
