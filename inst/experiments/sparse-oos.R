# Reproduction of Raducanu and Dornaika (2013), "Embedding new observations via
# sparse-coding for non-linear manifold learning": its protocol and its
# tables.
#
# Full size:   Rscript inst/experiments/sparse-oos.R
# Options:     --splits=10 (or --splits 10) --resume=TRUE --budget=25 (minutes)
#              --first_split=1 (run splits first_split..splits only, so that
#              two processes, each with its own --out, can share a machine)
#              --prune_old=TRUE (with --resume: drop the --data sets' rows run
#              before the protocol fix)
#              --fracs=0.3,0.5,0.7 --data=Yale,ORL,UMIST,YaleB,PIE
#              --svm=TRUE --alignment=TRUE --timing=TRUE --out=inst/experiments/results
# (1-NN on the whole dimension grid, the SVM on 12 dimensions of it.)
# The image data are found by image_data_path() (option manifoldOOS.data,
# environment variable MANIFOLDOOS_DATA, or ../shared/data).
#
# Sourcing this file with SPARSE_OOS_NO_MAIN <- TRUE defined only defines the
# functions (the vignette does that to run reduced sizes live).
#
# Pipeline per split (the paper's protocol): pixels scaled to [0, 1] -> random
# projection to D = 200 (Gaussian matrix with orthonormalised rows, drawn per
# split) -> unit l2 norm -> Laplacian eigenmaps on the training part (full
# graph, W = exp(-||xi - xj||^2 / beta), beta = mean squared distance,
# generalised problem L z = lambda D z) -> out-of-sample maps of the test part
# (sparse coding eq. 9, LVM with eps = 3, 5, 7 neighbours, linearization
# without intercept (ridge by leave-one-out, and the literal pseudo-inverse),
# RBF network with aperture beta (interpolating, and with a leave-one-out
# ridge)) -> 1-NN and RBF-SVM
# accuracies over embedding dimensions L; alignment error (Procrustes distance
# to the batch LE of all samples / ||batch||_F) at L_max.
suppressPackageStartupMessages(library(manifoldOOS))

# ---- data -----------------------------------------------------------------------
# Pixels in [0, 1]; Extended Yale B: the first 28 subjects (the
# paper's 1800-image, 28-subject subset is not identified).
sparse_oos_data <- function(name, path = image_data_path()) {
  d <- load_image_data(name, path)
  x <- d$x
  lab <- d$labels
  if (name == "YaleB") {
    keep <- lab %in% sort(unique(lab))[1:28]
    x <- x[keep, , drop = FALSE]
    lab <- lab[keep]
  }
  x <- (x - min(x)) / (max(x) - min(x))
  list(name = name, x = x, labels = lab)
}

# Gaussian random projection with orthonormal axes (P x D).
random_projection <- function(P, D = 200, seed = 1) {
  set.seed(seed)
  qr.Q(qr(matrix(stats::rnorm(P * D), P, D)))
}

# Stratified split with per-class rounding that keeps the total at
# round(frac * n): every class gets floor(frac * n_c) (at least 1), and the
# remaining samples go to the classes with the largest remainders
# frac * n_c - floor(frac * n_c) (ties broken at random with the split seed).
# Yale (15 x 11) at 30/50/70 %: 50/82/116 training images (30.3/49.7/70.3 %).
split_counts <- function(n_c, frac, u) {
  base <- pmax(1, floor(frac * n_c))
  extra <- round(frac * sum(n_c)) - sum(base)
  if (extra > 0) {
    rem <- frac * n_c - floor(frac * n_c)
    ok <- which(base < n_c - 1)
    pick <- ok[order(-rem[ok], u[ok])][seq_len(min(extra, length(ok)))]
    base[pick] <- base[pick] + 1
  }
  base
}

stratified_split <- function(labels, frac, seed) {
  set.seed(seed)
  groups <- split(seq_along(labels), labels)
  counts <- split_counts(lengths(groups), frac, stats::runif(length(groups)))
  tr <- unlist(Map(function(idx, ntr) idx[sample.int(length(idx), ntr)], groups, counts), use.names = FALSE)
  sort(tr)
}

# Embedding dimensions: {5, 10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 250, ...}
# up to L_max (always included).
dims_grid <- function(L_max, max_points = Inf) {
  g <- c(5, 10, 15, 20, 30, 40, 50, 75, 100, seq(150, max(150, L_max), by = 50))
  g <- sort(unique(c(g[g <= L_max], L_max)))
  if (length(g) > max_points) g <- unique(g[round(seq(1, length(g), length.out = max_points))])
  g
}

mean_sq_dist <- function(F) 2 * sum(sweep(F, 2, colMeans(F))^2) / (nrow(F) - 1)

# Batch-mode LE (as in the paper) with the full graph and beta = mean
# squared distance of the set being embedded; the package's heat kernel is
# exp(-d^2 / (2 sigma^2)), so sigma = sqrt(beta / 2).
le_full <- function(F, L) {
  beta <- mean_sq_dist(F)
  fit <- laplacian_eigenmaps(F, ndim = L, graph = "full", bandwidth = sqrt(beta / 2))
  list(Y = embedding(fit), beta = beta)
}

# linear: one ridge per embedding coordinate, chosen by leave-one-out
# cross-validation (exact PRESS) on the training set (the fix of the
# unregularised map, which interpolates the training embedding when the
# features have full row rank); linear0: the paper's literal pseudo-inverse.
# rbf: the interpolating RBF network (C = Phi^-1 Y); rbfreg: the regularised
# RBF network (Orr's ridge-regression RBF network: a Gaussian
# exp(-||x - x_i||^2 / beta) centred on every training sample, aperture beta =
# mean squared distance, output weights C = argmin ||Y - Phi C||^2 +
# ridge ||C||^2 with one ridge per coordinate by leave-one-out, i.e. the
# linearization with ridge = "loo" on the RBF design).
sparse_oos_methods <- c("sparse", "lvm3", "lvm5", "lvm7", "linear", "linear0", "rbf", "rbfreg")

rbf_design <- function(A, B, beta) {
  exp(-pmax(outer(rowSums(A^2), rowSums(B^2), "+") - 2 * tcrossprod(A, B), 0) / beta)
}

rbf_network_ridge <- function(Ftr, Ytr) {
  beta <- mean_sq_dist(Ftr)
  list(X = Ftr, beta = beta,
       map = oos_map(rbf_design(Ftr, Ftr, beta), Ytr, method = "linear", intercept = FALSE, ridge = "loo"))
}

predict_rbf_network_ridge <- function(net, Fte) unclass(predict(net$map, rbf_design(Fte, net$X, net$beta)))

# Out-of-sample embeddings of Fte for every method (all L_max columns; the
# rules are coordinate-wise) and the time each took (fit + prediction).
oos_all <- function(Ftr, Ytr, Fte, methods = sparse_oos_methods, n_threads = 1) {
  out <- list()
  secs <- numeric()
  for (m in methods) {
    t0 <- proc.time()[["elapsed"]]
    mp <- switch(m,
      sparse = oos_map(Ftr, Ytr, method = "sparse", n_threads = n_threads),
      lvm3 = oos_map(Ftr, Ytr, method = "lvm", k = 3),
      lvm5 = oos_map(Ftr, Ytr, method = "lvm", k = 5),
      lvm7 = oos_map(Ftr, Ytr, method = "lvm", k = 7),
      linear = oos_map(Ftr, Ytr, method = "linear", intercept = FALSE, ridge = "loo"),
      linear0 = oos_map(Ftr, Ytr, method = "linear", intercept = FALSE),
      rbf = suppressWarnings(oos_map(Ftr, Ytr, method = "rbf")),
      rbfreg = rbf_network_ridge(Ftr, Ytr))
    out[[m]] <- if (m == "rbfreg") predict_rbf_network_ridge(mp, Fte) else unclass(predict(mp, Fte, n_threads = n_threads))
    secs[m] <- proc.time()[["elapsed"]] - t0
  }
  list(Y = out, seconds = secs)
}

# The SVM is trained on the training embedding, which every out-of-sample
# rule shares, so one SVM per dimension L serves all methods: Yte is a list
# of test embeddings (one per method) and the result their accuracies.
# (LIBSVM's C-SVC without probabilities is deterministic, so this equals
# training one SVM per method; it is 8 times cheaper.)
svm_accuracy <- function(Ytr, ltr, Yte, lte) {
  L <- ncol(Ytr)
  sv <- e1071::svm(Ytr, factor(ltr), kernel = "radial", scale = TRUE, gamma = 1 / L, cost = 1)
  vapply(Yte, function(Y) mean(as.character(stats::predict(sv, Y)) == as.character(lte)), numeric(1))
}

# One split: accuracies over the dimension grid and the alignment error.
run_split <- function(dat, frac, seed, D = 200, methods = sparse_oos_methods, svm = TRUE,
                      alignment = TRUE, max_dims = Inf, svm_dims = 12, n_threads = 1, align_L = FALSE) {
  Rp <- random_projection(ncol(dat$x), D, seed = 1000 + seed)
  F <- unit_norm_rows(dat$x %*% Rp)
  tr <- stratified_split(dat$labels, frac, seed)
  Ftr <- F[tr, , drop = FALSE]
  Fte <- F[-tr, , drop = FALSE]
  ltr <- dat$labels[tr]
  lte <- dat$labels[-tr]
  L_max <- nrow(Ftr) - 2L  # all non-trivial LE dimensions the package returns
  le <- le_full(Ftr, L_max)
  oo <- oos_all(Ftr, le$Y, Fte, methods, n_threads)
  dims <- dims_grid(L_max, max_dims)
  dims_svm <- dims_grid(L_max, min(max_dims, svm_dims))  # the SVM on a thinner grid (cost)
  use_svm <- svm && requireNamespace("e1071", quietly = TRUE)
  svm_acc <- matrix(NA_real_, length(dims), length(methods), dimnames = list(dims, methods))
  if (use_svm) {
    for (L in intersect(dims, dims_svm)) {
      svm_acc[as.character(L), ] <- svm_accuracy(le$Y[, 1:L, drop = FALSE], ltr,
                                                 lapply(oo$Y[methods], function(Y) Y[, 1:L, drop = FALSE]), lte)
    }
  }
  acc <- list()
  for (m in methods) {
    for (L in dims) {
      a1 <- c(knn_accuracy(le$Y[, 1:L, drop = FALSE], ltr, oo$Y[[m]][, 1:L, drop = FALSE], lte, k = 1))
      a2 <- svm_acc[as.character(L), m]
      acc[[length(acc) + 1]] <- data.frame(dataset = dat$name, frac = frac, split = seed, method = m,
                                           L = L, nn1 = a1, svm = a2)
    }
  }
  acc <- do.call(rbind, acc)
  al <- NULL
  if (alignment) {
    # batch LE of all samples, the test rows, the first L_max coordinates;
    # the projection depends only on the split seed, so the batch LE is
    # shared by the training fractions of one split (cached)
    Lb <- min(L_max, nrow(F) - 2L)
    key <- paste(dat$name, seed, D, sep = "/")
    if (is.null(batch_cache[[key]])) batch_cache[[key]] <- le_full(F, nrow(F) - 2L)$Y
    Yb <- batch_cache[[key]][-tr, 1:Lb, drop = FALSE]
    # align_L: at every L of the grid (Fig. 12, Table 3 over L), else at L_max
    Ls <- if (align_L) dims[dims <= Lb] else Lb
    al <- do.call(rbind, lapply(setdiff(methods, c("lvm5", "lvm7")), function(m) {
      do.call(rbind, lapply(Ls, function(L) {
        data.frame(dataset = dat$name, frac = frac, split = seed, method = m, L = L,
                   error = oos_error(oo$Y[[m]][, 1:L, drop = FALSE], Yb[, 1:L, drop = FALSE], type = "procrustes"))
      }))
    }))
  }
  list(accuracy = acc, alignment = al, seconds = oo$seconds, n_train = nrow(Ftr), n_test = nrow(Fte))
}

batch_cache <- new.env()

unit_norm_rows <- function(F) F / pmax(sqrt(rowSums(F^2)), .Machine$double.xmin)

# Tables 1-2 statistic: max over L of the mean over splits.
best_average <- function(acc, what = c("nn1", "svm")) {
  what <- match.arg(what)
  acc <- acc[!is.na(acc[[what]]), , drop = FALSE]
  ag <- stats::aggregate(acc[[what]], by = acc[c("dataset", "frac", "method", "L")], FUN = mean)
  names(ag)[5] <- "acc"
  best <- stats::aggregate(ag$acc, by = ag[c("dataset", "frac", "method")], FUN = max)
  names(best)[4] <- "acc"
  stats::reshape(best, idvar = c("dataset", "frac"), timevar = "method", direction = "wide")
}

# ---- timing (Tables 4-6) -------------------------------------------------------------
# Per-sample times (ms) of the four rules at the Table-4 size (N training
# samples of Extended Yale B, D = 200, L = 1200), fit time separately; sparse
# per-sample time versus D (Table 5) and versus N at D = 100 (Table 6).
# Timing does not depend on the values of the training embedding, so a random
# N x L matrix stands in for the LE coordinates (the LE of N = 1241 points is
# not part of the per-sample cost the paper reports).
timing_tables <- function(dat, n_test = 50, N = 1241, L = 1200, Ds = seq(80, 200, by = 20),
                          Ns = seq(600, 1200, by = 100), seed = 1) {
  set.seed(seed)
  idx <- sample.int(nrow(dat$x), min(nrow(dat$x), N + n_test))
  N <- min(N, length(idx) - n_test)
  L <- min(L, N - 2L)
  tr <- idx[seq_len(N)]
  te <- idx[N + seq_len(n_test)]
  Y <- matrix(stats::rnorm(N * L), N, L)
  per <- function(expr) {
    t0 <- proc.time()
    force(expr)
    tt <- proc.time() - t0
    tt[["user.self"]] + tt[["sys.self"]]
  }
  # a prediction's CPU time as the median of `reps` runs (the first run of a
  # setting also pays for warming caches, and the machine is shared)
  per_med <- function(f, reps = 5L) stats::median(vapply(seq_len(reps), function(i) per(f()), numeric(1)))
  feats <- function(D) unit_norm_rows(dat$x %*% random_projection(ncol(dat$x), D, seed = seed))
  F <- feats(200)
  t4 <- do.call(rbind, lapply(c("sparse", "lvm", "linear", "rbf"), function(m) {
    fit_s <- per(mp <- switch(m,
      sparse = oos_map(F[tr, ], Y, method = "sparse", n_threads = 1),
      lvm = oos_map(F[tr, ], Y, method = "lvm", k = 3),
      linear = oos_map(F[tr, ], Y, method = "linear", intercept = FALSE),
      rbf = suppressWarnings(oos_map(F[tr, ], Y, method = "rbf"))))
    pred_s <- per_med(function() predict(mp, F[te, ], n_threads = 1))
    data.frame(method = m, N = N, D = 200, L = L, fit_ms = 1000 * fit_s,
               per_sample_ms = 1000 * pred_s / n_test,
               fit_plus_one_ms = 1000 * (fit_s + pred_s / n_test))
  }))
  t5 <- do.call(rbind, lapply(Ds, function(D) {
    FD <- feats(D)
    mp <- oos_map(FD[tr, ], Y, method = "sparse", n_threads = 1)
    data.frame(D = D, N = N, per_sample_ms = 1000 * per_med(function() predict(mp, FD[te, ], n_threads = 1)) / n_test)
  }))
  F100 <- feats(100)
  t6 <- do.call(rbind, lapply(Ns[Ns <= N], function(n) {
    mp <- oos_map(F100[tr[seq_len(n)], ], Y[seq_len(n), ], method = "sparse", n_threads = 1)
    data.frame(N = n, D = 100, per_sample_ms = 1000 * per_med(function() predict(mp, F100[te, ], n_threads = 1)) / n_test)
  }))
  list(table4 = t4, table5 = t5, table6 = t6)
}

# ---- the paper's numbers (its tables) -----------------------------------------------
# Tables 1 (1-NN accuracy, %), 2 (SVM accuracy, %) and 3 (alignment error) as
# printed in the paper: one row per (data set, fraction), one column per
# method. The three tables share their rows, so they are typed as one: the
# columns of Table 2 end in ".svm", those of Table 3 in ".align".
paper_tables <- function() {
  tabs <- utils::read.table(header = TRUE, stringsAsFactors = FALSE, text = "
dataset frac sparse lvm3 lvm5 lvm7 linear rbf sparse.svm lvm3.svm lvm5.svm lvm7.svm linear.svm rbf.svm sparse.align lvm3.align linear.align rbf.align
Yale  0.3 72.36 51.84 41.66 33.15 65.43 64.38 72.10 55.00 44.00 36.30 78.50 78.10 0.4956 0.5300 0.5322 0.5306
ORL   0.3 69.25 51.35 37.71 30.25 41.71 43.00 65.50 51.90 40.80 31.50 48.70 49.50 0.4915 0.5227 0.6343 0.6319
UMIST 0.3 87.56 69.72 60.49 52.65 58.31 60.76 86.30 74.60 63.10 55.00 57.20 61.40 0.4337 0.5069 0.7181 0.7016
YaleB 0.3 87.29 46.66 31.33 24.25 49.90 81.45 89.57 54.00 45.57 37.57 83.28 82.14 0.5086 0.6470 0.7699 0.6384
PF01  0.3 45.00 19.50 13.41 10.36 10.22 34.58 44.42 20.00 14.71 10.42 24.57 50.28 0.5833 0.6564 0.8095 0.6466
PIE   0.3 55.79 19.86 13.75 11.18 14.58 44.35 60.28 22.57 17.71 12.85 43.14 59.71 0.6981 0.7580 0.8047 0.6352
Yale  0.5 81.85 70.12 61.60 52.09 68.14 67.90 81.00 71.70 65.80 56.20 87.20 87.40 0.3786 0.4429 0.4578 0.4549
ORL   0.5 82.50 72.05 60.35 49.25 46.38 52.44 82.60 75.40 64.00 52.80 53.70 62.60 0.3597 0.4058 0.9614 0.7167
UMIST 0.5 95.03 85.90 76.04 70.03 76.25 83.61 94.40 89.00 80.80 72.90 79.50 86.90 0.3470 0.4103 0.5834 0.5564
YaleB 0.5 91.46 61.09 46.85 39.03 53.14 89.61 94.14 68.85 63.00 56.42 88.28 88.00 0.3564 0.3892 0.7528 0.4958
PF01  0.5 52.65 27.32 20.40 20.23 8.27 42.10 53.42 28.71 23.00 17.42 20.14 62.28 0.4040 0.4746 0.7746 0.4433
PIE   0.5 66.20 27.47 20.57 16.79 12.26 56.24 73.28 31.57 23.57 18.00 38.57 74.28 0.4248 0.4514 0.7758 0.4462
Yale  0.7 86.73 77.15 73.87 67.95 75.51 75.51 87.20 78.60 78.00 72.80 86.60 87.40 0.2685 0.3173 0.3540 0.3486
ORL   0.7 88.75 82.16 73.66 65.41 53.25 68.66 90.50 85.60 77.00 68.00 62.80 75.70 0.2520 0.2686 0.3623 0.3440
UMIST 0.7 97.74 93.06 85.20 79.94 80.52 91.79 97.40 93.20 88.00 81.70 88.20 94.70 0.2442 0.2675 0.3722 0.3296
YaleB 0.7 92.12 70.97 58.36 48.74 57.14 92.49 95.71 78.57 75.00 69.57 90.57 91.00 0.1982 0.2174 0.6658 0.3534
PF01  0.7 54.41 33.99 27.06 21.52 8.66 47.85 60.28 35.85 29.14 22.71 15.71 72.14 0.2474 0.2647 0.6707 0.2639
PIE   0.7 72.82 35.39 26.78 21.83 13.42 64.03 80.71 40.57 30.14 23.71 36.71 80.71 0.2474 0.2607 0.6794 0.2587")
  suffixed <- function(suffix) {
    t <- tabs[c("dataset", "frac", grep(suffix, names(tabs), fixed = TRUE, value = TRUE))]
    names(t) <- sub(suffix, "", names(t), fixed = TRUE)
    t
  }
  t1 <- tabs[!grepl(".", names(tabs), fixed = TRUE)]
  t2 <- suffixed(".svm")
  t3 <- suffixed(".align")
  t4 <- data.frame(method = c("sparse", "lvm", "linear", "rbf"), paper_ms = c(840.52, 6.07, 5.50, 139.42))
  t5 <- data.frame(D = seq(80, 200, by = 20),
                   paper_ms = c(609.75, 647.27, 677.30, 724.20, 772.98, 804.87, 840.52))
  t6 <- data.frame(N = seq(600, 1200, by = 100),
                   paper_ms = c(169.68, 219.23, 285.85, 351.48, 447.37, 513.04, 647.27))
  list(table1 = t1, table2 = t2, table3 = t3, table4 = t4, table5 = t5, table6 = t6)
}

# ---- main ------------------------------------------------------------------------------
# Settings run in the order split 1 of every (data set, fraction), then split
# 2, ..., so that a run stopped by --budget leaves whole splits. With
# --resume=TRUE the CSVs already in --out are read, settings complete there
# (1-NN for every method of sparse_oos_methods, plus SVM and alignment when
# asked for) are skipped, and the new rows replace the old ones of the
# settings they redo (so settings run before the protocol change,
# which lack the "linear" and "rbfreg" rows, are run again).
if (!exists("SPARSE_OOS_NO_MAIN") || !isTRUE(SPARSE_OOS_NO_MAIN)) {
  args <- commandArgs(trailingOnly = TRUE)
  opt <- function(name, default) {  # --name=value or --name value
    key <- paste0("--", name)
    hit <- grep(paste0("^", key, "="), args, value = TRUE)
    if (length(hit)) return(sub(paste0("^", key, "="), "", hit[1]))
    pos <- match(key, args)
    if (!is.na(pos) && pos < length(args)) args[pos + 1L] else default
  }
  n_splits <- as.integer(opt("splits", "10"))
  # without --first_split every split 1..splits runs (none with --splits=0:
  # only --prune_old or the timing tables)
  first_arg <- opt("first_split", NA)
  first_split <- if (is.na(first_arg)) 1L else suppressWarnings(as.integer(first_arg))
  if (!is.na(first_arg) && (is.na(first_split) || first_split < 1L || first_split > n_splits)) {
    stop("--first_split must be an integer between 1 and --splits", call. = FALSE)
  }
  fracs <- as.numeric(strsplit(opt("fracs", "0.3,0.5,0.7"), ",")[[1]])
  sets <- strsplit(opt("data", "Yale,ORL,UMIST,YaleB,PIE"), ",")[[1]]
  use_svm <- as.logical(opt("svm", "TRUE"))
  use_al <- as.logical(opt("alignment", "TRUE"))
  do_timing <- as.logical(opt("timing", "TRUE"))
  resume <- as.logical(opt("resume", "FALSE"))
  budget_min <- as.numeric(opt("budget", "Inf"))  # start no new setting after this many minutes
  out_dir <- opt("out", file.path("inst", "experiments", "results"))
  dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
  out_file <- function(nm) file.path(out_dir, paste0("sparse-oos-", nm, ".csv"))
  read_old <- function(nm) if (resume && file.exists(out_file(nm))) utils::read.csv(out_file(nm)) else NULL
  old <- list(accuracy = read_old("accuracy"), alignment = read_old("alignment"), splits = read_old("splits"))
  key_of <- function(d) paste(d$dataset, d$frac, d$split)
  # --prune_old=TRUE (with --resume): remove the rows of the --data sets'
  # settings that lack a method of the current protocol (run before the
  # protocol fix), so that a data set's averages never mix the two protocols
  if (resume && as.logical(opt("prune_old", "FALSE")) && !is.null(old$accuracy)) {
    a <- old$accuracy
    cur <- tapply(a$method, key_of(a), function(m) all(sparse_oos_methods %in% m))
    stale <- names(cur)[!cur & names(cur) %in% unique(key_of(a)[a$dataset %in% sets])]
    for (nm in names(old)) {
      if (is.null(old[[nm]])) next
      old[[nm]] <- old[[nm]][!key_of(old[[nm]]) %in% stale, , drop = FALSE]
      utils::write.csv(old[[nm]], out_file(nm), row.names = FALSE)
    }
    cat(sprintf("pruned %d setting(s) of the old protocol: %s\n", length(stale), paste(sort(stale), collapse = ", ")))
  }
  done <- function(s, f, sp) {
    k <- paste(s, f, sp)
    if (is.null(old$splits) || !k %in% key_of(old$splits)) return(FALSE)
    acc <- old$accuracy[key_of(old$accuracy) == k, , drop = FALSE]
    if (!nrow(acc)) return(FALSE)
    # rows of an older protocol (without a method of the current list) are redone
    if (!all(sparse_oos_methods %in% acc$method)) return(FALSE)
    if (use_svm && requireNamespace("e1071", quietly = TRUE) && all(is.na(acc$svm))) return(FALSE)
    if (use_al && !k %in% key_of(old$alignment)) return(FALSE)
    TRUE
  }
  # old rows not redone, then the new ones
  merged <- function(nm, new) {
    new <- do.call(rbind, new)
    o <- old[[nm]]
    if (!is.null(o) && !is.null(new)) o <- o[!key_of(o) %in% key_of(new), , drop = FALSE]
    if (!is.null(o) && !is.null(new)) {
      for (cn in setdiff(names(new), names(o))) o[[cn]] <- NA
      for (cn in setdiff(names(o), names(new))) new[[cn]] <- NA
      new <- new[names(o)]
    }
    rbind(o, new)
  }
  # --alignment_L=TRUE: only the alignment error at every L of the grid (the
  # paper's Fig. 12 and Table 3 over L), for --data, --fracs and splits
  # --first_split..--splits, into sparse-oos-alignment-L.csv (rows of the
  # settings it redoes replaced); accuracies and timing are not written
  if (as.logical(opt("alignment_L", "FALSE"))) {
    f_L <- out_file("alignment-L")
    o <- if (file.exists(f_L)) utils::read.csv(f_L) else NULL
    t_run <- proc.time()[["elapsed"]]
    for (sp in seq_len(n_splits)[seq_len(n_splits) >= first_split]) for (s in sets) for (f in fracs) {
      if ((proc.time()[["elapsed"]] - t_run) / 60 > budget_min) break
      t0 <- proc.time()[["elapsed"]]
      r <- run_split(sparse_oos_data(s), f, sp, svm = FALSE, alignment = TRUE, align_L = TRUE)
      if (!is.null(o)) o <- o[!key_of(o) %in% key_of(r$alignment), , drop = FALSE]
      o <- rbind(o, r$alignment)
      utils::write.csv(o, f_L, row.names = FALSE)
      cat(sprintf("alignment over L: %s frac %.1f split %d (%d L), %.1f s\n", s, f, sp,
                  length(unique(r$alignment$L)), proc.time()[["elapsed"]] - t0))
    }
    # one block per run, appended: a run redoes only its --data and splits
    cat(c(paste("command: Rscript inst/experiments/sparse-oos.R", paste(args, collapse = " ")),
          "seeds: split s uses set.seed(s) for the stratified split and set.seed(1000 + s) for the random projection",
          sprintf("finished: %s; %.1f min elapsed", format(Sys.time(), tz = "UTC", usetz = TRUE),
                  (proc.time()[["elapsed"]] - t_run) / 60),
          "", utils::capture.output(print(utils::sessionInfo())), ""),
        sep = "\n", file = file.path(out_dir, "sparse-oos-alignment-L-session.txt"), append = TRUE)
    quit(save = "no")
  }
  cat("PF01 is not available in the shared data; its rows stay empty.\n")
  acc <- list(); al <- list(); info <- list()
  t_run <- proc.time()[["elapsed"]]
  data_cache <- list()
  stopped <- FALSE
  for (sp in seq_len(n_splits)[seq_len(n_splits) >= first_split]) {
    for (s in sets) for (f in fracs) {
      if (stopped || done(s, f, sp)) next
      if ((proc.time()[["elapsed"]] - t_run) / 60 > budget_min) {
        cat(sprintf("budget of %g min reached: no new setting started (next: %s %.1f split %d)\n",
                    budget_min, s, f, sp))
        stopped <- TRUE
        next
      }
      if (is.null(data_cache[[s]])) data_cache[[s]] <- sparse_oos_data(s)
      t0 <- proc.time()
      r <- run_split(data_cache[[s]], f, sp, svm = use_svm, alignment = use_al)
      dt <- proc.time() - t0
      acc[[length(acc) + 1]] <- r$accuracy
      al[[length(al) + 1]] <- r$alignment
      info[[length(info) + 1]] <- data.frame(dataset = s, frac = f, split = sp, n_train = r$n_train,
                                             n_test = r$n_test, t(r$seconds),
                                             total_seconds = dt[["elapsed"]],
                                             cpu_seconds = dt[["user.self"]] + dt[["sys.self"]])
      cat(sprintf("%s frac %.1f split %d: N = %d, %.1f s elapsed, %.1f s CPU (load %s)\n", s, f, sp,
                  r$n_train, dt[["elapsed"]], dt[["user.self"]] + dt[["sys.self"]],
                  tryCatch(readLines("/proc/loadavg", warn = FALSE), error = function(e) "?")))
      utils::write.csv(merged("accuracy", acc), out_file("accuracy"), row.names = FALSE)
      if (length(al)) utils::write.csv(merged("alignment", al), out_file("alignment"), row.names = FALSE)
      utils::write.csv(merged("splits", info), out_file("splits"), row.names = FALSE)
    }
  }
  if (do_timing && !stopped && "YaleB" %in% list_image_data()) {
    tt <- timing_tables(sparse_oos_data("YaleB"))
    for (nm in names(tt)) {
      utils::write.csv(tt[[nm]], out_file(paste0("timing-", nm)), row.names = FALSE)
    }
  }
  log_lines <- c(paste("command: Rscript inst/experiments/sparse-oos.R", paste(args, collapse = " ")),
                 "seeds: split s uses set.seed(s) for the stratified split and set.seed(1000 + s) for the random projection; timing uses seed 1",
                 sprintf("finished: %s; %.1f min elapsed; load average: %s",
                         format(Sys.time(), tz = "UTC", usetz = TRUE),
                         (proc.time()[["elapsed"]] - t_run) / 60,
                         tryCatch(paste(readLines("/proc/loadavg", warn = FALSE), collapse = " "),
                                  error = function(e) "unknown")))
  session_file <- file.path(out_dir, "sparse-oos-session.txt")
  prev <- if (resume && file.exists(session_file)) c(readLines(session_file), "", "---- resumed run ----") else NULL
  writeLines(c(prev, log_lines, "", utils::capture.output(print(utils::sessionInfo()))), session_file)
}
