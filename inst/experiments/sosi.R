# Reproduction of Vural & Guillemot (2015), "Out-of-sample generalizations for
# supervised manifold learning for classification", Figs. 5/7/8/9.
#
# Usage (from the package root, with the package installed):
#   Rscript inst/experiments/sosi.R [quick|full] [outdir]
# quick (default): 2 labelled ratios per data set (1 for ORL), 2 random splits,
# and Figs. 8 and 9; full: the comparison alone at 6 labelled ratios per data
# set and 5 splits (about an hour or more on a 2-core machine; an optional
# third argument is a time budget in minutes, after which no new run starts;
# a fourth argument "splits=2-5" runs those splits and appends to the CSVs);
# fig8rbf: only the self-training RBF baseline of Fig. 8 (40-point scale grid,
# replaces the RBF rows of sosi_progressive.csv); baselines: the tuned
# baselines (NN, SVM, SSL, Nystrom) on the 5 splits of the full comparison
# (replaces their rows in sosi_compare_full.csv, writes
# sosi_baseline_tuning.csv; optional third argument: budget in minutes;
# optional fourth argument "splits=A-B": only those splits, their rows added
# to the tuning record of the other splits); fig8nystrom: only the
# progressive Nystrom baseline of Fig. 8 with the cross-validated width of the
# tuned baseline (replaces the Nystrom rows of sosi_progressive.csv); fig8:
# the quick mode's Fig. 8 alone (SOSI, LLE, graph-width Nystrom rows).
# Data: the image sets of load_image_data() (MANIFOLDOOS_DATA or ../shared/data).
# Writes sosi_compare.csv (Figs. 5/7), sosi_progressive.csv (Fig. 8),
# sosi_scale.csv (Fig. 9) and sosi_meta.txt (command, seed, sessionInfo());
# full: sosi_compare_full.csv, sosi_full_runs.csv (time per run),
# sosi_baseline_tuning.csv (the tuned baselines' grids, as mode baselines),
# sosi_full_ratio_rel.csv (the Fisher embedding's threshold ratio_rel chosen
# per setting and split on the labelled points, choose_ratio_rel()) and
# sosi_full_meta.txt; with a fifth argument "fisher" (after "splits=A-B")
# only the rows the Fisher threshold changes (Fisher SOSI and RBF) are rerun
# and replaced; fig8rbf: sosi_fig8rbf_meta.txt.
suppressPackageStartupMessages(library(manifoldOOS))
args <- commandArgs(trailingOnly = TRUE)
mode <- if (length(args) >= 1) args[1] else "quick"
outdir <- if (length(args) >= 2) args[2] else file.path("inst", "experiments", "results")
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
path <- image_data_path()
if (!nzchar(path)) path <- "../shared/data"
seed <- 20150209L

# Data sets as in the paper where possible (unit l2-norm images):
# YaleB: subjects 1-12, the 58 brightest images of each (the paper's 58 of 64),
#        32 x 32 (the paper: 17 x 20); d = 20.
# COIL20: 20 objects x 72 views, 32 x 32 (the paper: 71 views); d = 25.
# ORL: 40 x 10, 32 x 32 (not in the paper: a second face set); d = 39 (M - 1:
#      with d = 20 < M - 1 the S-LE embedding cannot separate the 40 classes);
#      2..7 labelled per person (ratios 0.25 .. 2.33: 10 images per person
#      allow no ratio near 0.11).
sosi_data <- function(name, path) {
  d <- load_image_data(name, path = path)
  X <- d$x
  lab <- d$labels
  if (name == "YaleB") {
    keep <- unlist(lapply(1:12, function(s) {
      i <- which(lab == s)
      i[order(-rowMeans(X[i, ]))][1:58]
    }))
    X <- X[keep, ]
    lab <- lab[keep]
  }
  X <- X / sqrt(rowSums(X^2))
  list(X = X, labels = lab, name = name)
}

stratified_split <- function(lab, n_per, seed) {
  set.seed(seed)
  sort(unlist(lapply(split(seq_along(lab), lab), function(i) i[sample.int(length(i), n_per)])))
}

err <- function(pred, truth) mean(as.character(pred) != as.character(truth))

# The Fisher embedding's scale threshold ratio_rel (the paper: the largest
# scale whose D/G ratio stays above "a certain threshold", value not given),
# chosen on the labelled points alone: a stratified 2/3 - 1/3 split of them
# (the third treated as unlabelled, seed cv_seed), the SOSI error on the held
# out third for each threshold of the grid; the lowest error wins, ties to the
# smallest threshold (the largest scale). Returns the grid with its errors and
# the column chosen. With fewer than 3 labelled points in a class (ORL at 2
# per person) the fitted part would keep a single point of it: no choice is
# possible, and the default 0.5 is kept (cv_error NA).
rel_grid <- c(0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
choose_ratio_rel <- function(X, lab, ndim, cv_seed, grid = rel_grid) {
  if (min(table(lab)) < 3) return(data.frame(ratio_rel = grid, cv_error = NA_real_, chosen = grid == 0.5))
  set.seed(cv_seed)
  held <- unlist(lapply(split(seq_along(lab), lab), function(i) i[sample.int(length(i), max(1, length(i) %/% 3))]))
  fit_cv <- fisher_embedding(X[-held, ], lab[-held], ndim = ndim)
  cv <- vapply(grid, function(r) err(sosi(fit_cv, X_unlabeled = X[held, ], ratio_rel = r,
                                          labels_unlabeled = lab[held])$labels, lab[held]), 0)
  best <- which(cv == min(cv))
  data.frame(ratio_rel = grid, cv_error = cv, chosen = seq_along(grid) == best[which.min(grid[best])])
}

# Rows of the comparison table for the baselines b of one embedding, and their
# tuning record (one row per grid setting; shared by modes full and baselines)
baseline_rows <- function(ds, n_per, split, ratio, emb, b, truth) {
  names_b <- c(rbf = "RBF", lle = "LLE", nystrom = "Nystrom", nn = "NN", svm = "SVM", ssl = "SSL")
  rows <- do.call(rbind, lapply(names(b), function(m) {
    data.frame(dataset = ds$name, n_per_class = n_per, ratio = ratio, split = split, embedding = emb,
               method = names_b[[m]], error = err(b[[m]], truth), seconds = NA)
  }))
  tu <- attr(b, "tuning")
  if (!is.null(tu)) tu <- cbind(dataset = ds$name, n_per_class = n_per, split = split, embedding = emb, tu)
  list(rows = rows, tuning = tu)
}

# One setting and split of the comparison: SOSI and its baselines on both
# embeddings (the Fisher embedding's ratio_rel chosen on the labelled points,
# column ratio_rel of its SOSI and RBF rows; the RBF map uses SOSI's scales),
# the ambient classifiers. Returns the rows, the tuning record of the tuned
# baselines, and the threshold study on the labelled points.
run_compare <- function(ds, n_per, split, ndim, stop_frac, embeddings = c("S-LE", "Fisher"),
                        methods = c("rbf", "lle", "nystrom"), ambient = TRUE) {
  tr <- stratified_split(ds$labels, n_per, seed + split)
  X <- ds$X[tr, ]; lab <- ds$labels[tr]; Xu <- ds$X[-tr, ]; truth <- ds$labels[-tr]
  ratio <- length(tr) / nrow(Xu)
  rows <- list(); tun <- list()
  rel <- choose_ratio_rel(X, lab, ndim, seed + 99 + split)
  r_rel <- rel$ratio_rel[rel$chosen]
  for (emb in embeddings) {
    t0 <- proc.time()[["elapsed"]]
    if (emb == "S-LE") {
      fit <- supervised_le(X, lab, ndim = ndim)
      s <- sosi(fit, X_unlabeled = Xu, stop_frac = stop_frac, labels_unlabeled = truth)
    } else {
      fit <- fisher_embedding(X, lab, ndim = ndim)
      s <- sosi(fit, X_unlabeled = Xu, ratio_rel = r_rel, stop_frac = stop_frac, labels_unlabeled = truth)
    }
    rows[[length(rows) + 1]] <- data.frame(dataset = ds$name, n_per_class = n_per, ratio = ratio, split = split,
                                           embedding = emb, method = "SOSI", error = err(s$labels, truth),
                                           seconds = proc.time()[["elapsed"]] - t0)
    b <- baseline_rows(ds, n_per, split, ratio, emb,
                       sosi_baselines(fit, Xu, methods = methods, sosi_fit = s, labels_unlabeled = truth), truth)
    rows[[length(rows) + 1]] <- b$rows
    tun[[length(tun) + 1]] <- b$tuning
  }
  if (ambient) {
    amb <- c("nn", "ssl", if (requireNamespace("e1071", quietly = TRUE)) "svm")
    b <- baseline_rows(ds, n_per, split, ratio, "ambient",
                       sosi_baselines(supervised_le(X, lab, ndim = 2), Xu, methods = amb, labels_unlabeled = truth),
                       truth)
    rows[[length(rows) + 1]] <- b$rows
    tun[[length(tun) + 1]] <- b$tuning
  }
  out <- do.call(rbind, rows)
  out$ratio_rel <- ifelse(out$embedding == "Fisher" & out$method %in% c("SOSI", "RBF"), r_rel, NA)
  list(compare = out, tuning = bind_fill(tun), rel = cbind(dataset = ds$name, n_per_class = n_per, split = split, rel))
}

# mode "fig8rbf": only the self-training RBF baseline of Fig. 8 (slow: the
# scales are re-selected on every re-embedding on a 40-point grid),
# written into sosi_progressive.csv (replacing the RBF rows of the same
# embedding) after each embedding. An optional third argument selects the
# embeddings ("S-LE", "Fisher" or "both", the default); the second is outdir.
# mode "fig8nystrom": the same for the progressive Nystrom baseline, whose
# width is chosen by cross-validation on the labelled set at every
# re-embedding (progressive_baseline(nystrom_beta = "cv"), as the tuned
# Nystrom baseline of the comparison); replaces the Nystrom rows.
if (mode %in% c("fig8rbf", "fig8nystrom")) {
  t_start <- Sys.time()
  cpu0 <- proc.time()
  embs <- if (length(args) >= 3 && args[3] != "both") strsplit(args[3], ",", fixed = TRUE)[[1]] else c("S-LE", "Fisher")
  oos8 <- if (mode == "fig8rbf") "rbf" else "nystrom"
  meth8 <- c(rbf = "RBF", nystrom = "Nystrom")[[oos8]]
  n_grid8 <- 40
  meta8 <- file.path(outdir, sprintf("sosi_%s_meta.txt", mode))
  ds <- sosi_data("YaleB", path)
  tr <- stratified_split(ds$labels, 10, seed + 1)
  f <- file.path(outdir, "sosi_progressive.csv")
  for (emb in embs) {
    pb <- progressive_baseline(ds$X[tr, ], ds$labels[tr], ds$X[-tr, ], embed = if (emb == "S-LE") "sle" else "fisher",
                               oos = oos8, ndim = 20, n_grid = n_grid8, labels_unlabeled = ds$labels[-tr],
                               nystrom_beta = "cv")
    rows <- data.frame(embedding = emb, method = meth8, L_over_N = pb$L / length(tr), error = pb$error,
                       n_grid = if (oos8 == "rbf") n_grid8 else NA)
    old <- if (file.exists(f)) utils::read.csv(f) else NULL
    if (!is.null(old)) {
      if (is.null(old$n_grid)) old$n_grid <- ifelse(old$method == "RBF", 8, NA)
      old <- old[!(old$method == meth8 & old$embedding == emb), ]
    }
    utils::write.csv(rbind(old, rows), f, row.names = FALSE)
    cpu <- proc.time() - cpu0
    msg <- sprintf("Fig. 8 %s %s done: %s; elapsed so far %.0f s, CPU (user + system) %.0f s, load %s", meth8, emb,
                   format(Sys.time()), cpu[["elapsed"]], cpu[["user.self"]] + cpu[["sys.self"]],
                   sub(".*load average: ", "", system("uptime", intern = TRUE)))
    message(msg)
    cat(msg, "\n", file = meta8, append = TRUE)
  }
  cat(c(sprintf("command: nice -n 19 Rscript inst/experiments/sosi.R %s %s %s", mode, outdir, paste(embs, collapse = ",")),
        sprintf("seed: %d (split: seed + 1), YaleB 12 subjects, 10 labelled each, d = 20, %s", seed,
                if (oos8 == "rbf") sprintf("%d-point scale grid", n_grid8) else
                  "Nystrom width by cross-validation at every re-embedding"),
        sprintf("started: %s, finished: %s", format(t_start), format(Sys.time())),
        capture.output(sessionInfo()), ""),
      sep = "\n", file = meta8, append = TRUE)
  quit(save = "no")
}

# mode "baselines": the tuned baselines alone (ambient NN, SVM and SSL; the
# Nystrom map of both embeddings) on the splits of the full comparison; their
# rows replace the old ones in sosi_compare_full.csv (SOSI, RBF and LLE rows
# are kept: they do not depend on the baselines' parameters) and every grid
# setting's CV and test error goes to sosi_baseline_tuning.csv (parameter
# sensitivity). Optional third argument: time budget in minutes (no new run
# starts after it).
run_baselines <- function(ds, n_per, split, ndim) {
  tr <- stratified_split(ds$labels, n_per, seed + split)
  X <- ds$X[tr, ]; lab <- ds$labels[tr]; Xu <- ds$X[-tr, ]; truth <- ds$labels[-tr]
  ratio <- length(tr) / nrow(Xu)
  out <- list()
  for (emb in c("S-LE", "Fisher")) {
    fit <- if (emb == "S-LE") supervised_le(X, lab, ndim = ndim) else fisher_embedding(X, lab, ndim = ndim)
    out[[emb]] <- baseline_rows(ds, n_per, split, ratio, emb,
                                sosi_baselines(fit, Xu, methods = "nystrom", labels_unlabeled = truth), truth)
  }
  amb <- c("nn", "ssl", if (requireNamespace("e1071", quietly = TRUE)) "svm")
  out$ambient <- baseline_rows(ds, n_per, split, ratio, "ambient",
                               sosi_baselines(supervised_le(X, lab, ndim = 2), Xu, methods = amb,
                                              labels_unlabeled = truth), truth)
  list(compare = do.call(rbind, lapply(out, `[[`, "rows")), tuning = bind_fill(lapply(out, `[[`, "tuning")))
}

prune_untuned <- function(comp, done) {
  key <- sprintf("%s/%d/%d", comp$dataset, comp$n_per_class, comp$split)
  comp[!(comp$method %in% c("SVM", "SSL", "Nystrom") & !key %in% done), ]
}

# rbind of data frames with different parameter columns (NA where absent)
bind_fill <- function(l) {
  l <- Filter(Negate(is.null), l)
  cols <- unique(unlist(lapply(l, names)))
  do.call(rbind, lapply(l, function(d) { for (cn in setdiff(cols, names(d))) d[[cn]] <- NA; d[cols] }))
}

cfg <- list(
  YaleB = list(ndim = 20, n_per = c(6, 10, 14, 19, 24, 29), quick = c(6, 14)),
  ORL = list(ndim = 39, n_per = c(2, 3, 4, 5, 6, 7), quick = c(3)),
  COIL20 = list(ndim = 25, n_per = c(7, 12, 18, 24, 30, 35), quick = c(7, 18))
)
n_split <- if (mode == "full") 5 else 2
t_start <- Sys.time()

# The meta file of a mode's run: its command, seed, times and sessionInfo().
write_mode_meta <- function(mode, file, seed_note) {
  writeLines(c(sprintf("command: Rscript inst/experiments/sosi.R %s %s", mode, outdir),
               sprintf("seed: %d (%s)", seed, seed_note),
               sprintf("started: %s, finished: %s", format(t_start), format(Sys.time())),
               capture.output(sessionInfo())), file.path(outdir, file))
}
cpu_start <- proc.time()

# mode "full": the comparison of Figs. 5/7 only (Figs. 8 and 9 do not depend on
# the mode: run them with quick / fig8rbf). Splits are the outer loop, so that
# with a time budget (third argument, minutes; no new run starts after it)
# every ratio gets the same number of splits. Writes sosi_compare_full.csv and
# sosi_full_meta.txt.
if (mode == "full") {
  budget <- if (length(args) >= 3 && nzchar(args[3])) as.numeric(args[3]) else Inf
  # optional fourth argument "DATASET:n_per[:split]": run that setting only and
  # append its rows to the existing CSVs (to complete a budgeted run)
  # or "splits=A-B": run splits A to B of every setting and append their rows
  only <- if (length(args) >= 4) strsplit(args[4], ":", fixed = TRUE)[[1]] else NULL
  # optional fifth argument "fisher": rerun only what the Fisher embedding's
  # threshold ratio_rel changes (its SOSI and RBF rows, the RBF map using
  # SOSI's scales), replacing those rows in the CSV; the other rows (S-LE,
  # LLE, Nystrom, ambient) do not depend on it and are kept
  fisher_only <- length(args) >= 5 && args[5] == "fisher"
  split_range <- NULL
  if (!is.null(only) && startsWith(only[1], "splits=")) {
    split_range <- as.integer(strsplit(sub("^splits=", "", only[1]), "-", fixed = TRUE)[[1]])
    split_range <- seq(split_range[1], split_range[length(split_range)])
    only <- NULL
  }
  res <- list()
  runs <- list()
  tun <- list()
  rels <- list()
  f_c <- file.path(outdir, "sosi_compare_full.csv")
  f_r <- file.path(outdir, "sosi_full_runs.csv")
  f_t <- file.path(outdir, "sosi_baseline_tuning.csv")
  f_rel <- file.path(outdir, "sosi_full_ratio_rel.csv")
  if (!is.null(only) || !is.null(split_range)) {
    if (file.exists(f_c)) res[[1]] <- utils::read.csv(f_c)
    if (file.exists(f_r)) runs[[1]] <- utils::read.csv(f_r)
    if (file.exists(f_t)) tun[[1]] <- utils::read.csv(f_t)
    if (file.exists(f_rel)) rels[[1]] <- utils::read.csv(f_rel)
  }
  if (!is.null(only)) {
    cfg <- cfg[only[1]]
    cfg[[1]]$n_per <- as.numeric(only[2])
  }
  stopped <- FALSE
  dsets <- list()
  for (nm in names(cfg)) {
    if (dir.exists(file.path(path, nm))) dsets[[nm]] <- sosi_data(nm, path) else message("data set ", nm, " not available: skipped")
  }
  splits <- if (!is.null(only) && length(only) >= 3) as.integer(only[3]) else if (!is.null(split_range)) split_range else seq_len(n_split)
  for (sp in splits) {
    for (nm in intersect(names(dsets), names(cfg))) for (n_per in cfg[[nm]]$n_per) {
      el <- as.numeric(difftime(Sys.time(), t_start, units = "mins"))
      if (el > budget) { stopped <- TRUE; break }
      sf <- if (nm == "YaleB" && n_per == min(cfg[[nm]]$n_per)) 0.8 else 1
      c0 <- proc.time()
      r <- if (fisher_only) {
        run_compare(dsets[[nm]], n_per, sp, cfg[[nm]]$ndim, sf, embeddings = "Fisher", methods = "rbf", ambient = FALSE)
      } else run_compare(dsets[[nm]], n_per, sp, cfg[[nm]]$ndim, sf)
      c1 <- proc.time() - c0
      if (fisher_only) {
        # replace the rows this run redoes
        old <- bind_fill(res)
        k_old <- paste(old$dataset, old$n_per_class, old$split, old$embedding, old$method)
        res <- list(old[!k_old %in% paste(r$compare$dataset, r$compare$n_per_class, r$compare$split,
                                          r$compare$embedding, r$compare$method), , drop = FALSE])
        r$rel$elapsed <- c1[["elapsed"]]
        r$rel$cpu <- c1[["user.self"]] + c1[["sys.self"]]
        rels <- if (length(rels)) {
          o <- bind_fill(rels)
          list(o[!paste(o$dataset, o$n_per_class, o$split) %in% paste(nm, n_per, sp), , drop = FALSE])
        } else list()
      }
      res[[length(res) + 1]] <- r$compare
      tun[[length(tun) + 1]] <- r$tuning
      rels[[length(rels) + 1]] <- r$rel
      if (!fisher_only) runs[[length(runs) + 1]] <- data.frame(dataset = nm, n_per_class = n_per, split = sp, elapsed = c1[["elapsed"]],
                                             cpu = c1[["user.self"]] + c1[["sys.self"]],
                                             load = sub(".*load average: ", "", system("uptime", intern = TRUE)))
      message(sprintf("%s n_per=%d split=%d done in %.0f s (%s)", nm, n_per, sp, c1[["elapsed"]], format(Sys.time())))
      utils::write.csv(bind_fill(res), f_c, row.names = FALSE)
      utils::write.csv(do.call(rbind, runs), f_r, row.names = FALSE)
      utils::write.csv(bind_fill(tun), f_t, row.names = FALSE)
      utils::write.csv(bind_fill(rels), f_rel, row.names = FALSE)
    }
    if (stopped) break
  }
  cpu <- proc.time() - cpu_start
  done <- do.call(rbind, runs)
  meta <- file.path(outdir, "sosi_full_meta.txt")
  if (!is.null(only) || !is.null(split_range)) {
    cat(sprintf("added: Rscript inst/experiments/sosi.R full %s %s %s (under nice): started %s, elapsed %.0f s, CPU %.0f s, load %s\n",
                outdir, if (is.finite(budget)) budget else "\"\"", paste(args[-(1:3)], collapse = " "), format(t_start),
                cpu[["elapsed"]], cpu[["user.self"]] + cpu[["sys.self"]],
                sub(".*load average: ", "", system("uptime", intern = TRUE))), file = meta, append = TRUE)
    if (fisher_only) {
      rl <- bind_fill(rels)
      cat(sprintf("Fisher SOSI and RBF rows with ratio_rel chosen on the labelled points now for (data set/n_per/split): %s\n",
                  paste(unique(sprintf("%s/%d/%d", rl$dataset, rl$n_per_class, rl$split)), collapse = ", ")),
          file = meta, append = TRUE)
      done <- NULL
    }
    if (!is.null(done)) cat(sprintf("splits completed per data set and ratio now: %s\n",
                paste(sprintf("%s/%d: %d", done$dataset, done$n_per_class,
                              ave(done$split, done$dataset, done$n_per_class, FUN = length))[
                                !duplicated(paste(done$dataset, done$n_per_class))], collapse = ", ")),
        file = meta, append = TRUE)
    cat(c(sprintf("seed: %d (split s uses seed + s; the labelled points' split for ratio_rel seed + 99 + s)", seed),
          capture.output(sessionInfo()), ""), sep = "\n", file = meta, append = TRUE)
    quit(save = "no")
  }
  writeLines(c(sprintf("command: nice -n 5 Rscript inst/experiments/sosi.R full %s %s", outdir,
                       if (is.finite(budget)) budget else ""),
               sprintf("seed: %d (split s uses seed + s; the labelled points' split for ratio_rel seed + 99 + s)", seed),
               paste("the Fisher embedding's ratio_rel is chosen per split on the labelled points",
                     "(choose_ratio_rel(); the study in sosi_full_ratio_rel.csv, the choice in column ratio_rel);",
                     "the tuned baselines' grids in sosi_baseline_tuning.csv"),
               sprintf("started: %s, finished: %s", format(t_start), format(Sys.time())),
               sprintf("elapsed %.0f s, CPU (user + system) %.0f s", cpu[["elapsed"]], cpu[["user.self"]] + cpu[["sys.self"]]),
               sprintf("time budget: %s min; %s", format(budget),
                       if (stopped) "reached: later splits were not run (see sosi_full_runs.csv)" else "not reached: every split ran"),
               sprintf("splits completed per data set and ratio: %s",
                       paste(sprintf("%s/%d: %d", done$dataset, done$n_per_class,
                                     ave(done$split, done$dataset, done$n_per_class, FUN = length))[
                                       !duplicated(paste(done$dataset, done$n_per_class))], collapse = ", ")),
               sprintf("load at the end: %s", paste(system("uptime", intern = TRUE), collapse = " ")),
               capture.output(sessionInfo())),
             meta)
  quit(save = "no")
}

# Fig. 9's data and S-LE fit: split 1 (seed + 1) with the labelled counts of
# the figure.
fig9_fit <- function(nm) {
  ds <- sosi_data(nm, path)
  n_per <- c(YaleB = 10, COIL20 = 7, ORL = 3)[[nm]]
  tr <- stratified_split(ds$labels, n_per, seed + 1)
  list(ds = ds, tr = tr, fit = supervised_le(ds$X[tr, ], ds$labels[tr], ndim = cfg[[nm]]$ndim))
}

# mode "scale": Fig. 9 on a widened grid of common scales (S-LE, split 1):
# the default grid of regularizer_path() (25 scales) extended to 30 times its
# largest scale (40 scales in all), so that the error's rise at large scales
# (the U shape the figure shows) is inside the grid if it exists. Writes
# sosi_scale.csv (with the grid's bounds) and sosi_scale_meta.txt.
if (mode == "scale") {
  scale_rows <- list()
  for (nm in names(cfg)) {
    if (!dir.exists(file.path(path, nm))) next
    f9 <- fig9_fit(nm)
    ds <- f9$ds; tr <- f9$tr; fit <- f9$fit
    g <- regularizer_path(fit, n_grid = 25)$sigma
    grid <- exp(seq(log(min(g)), log(30 * max(g)), length.out = 40))
    rp <- regularizer_path(fit, sigma_grid = grid, X_unlabeled = ds$X[-tr, ], labels_unlabeled = ds$labels[-tr])
    scale_rows[[length(scale_rows) + 1]] <- cbind(dataset = nm, rp, default_grid_max = max(g))
    message(nm, " done")
  }
  utils::write.csv(do.call(rbind, scale_rows), file.path(outdir, "sosi_scale.csv"), row.names = FALSE)
  write_mode_meta("scale", "sosi_scale_meta.txt", "split 1 uses seed + 1")
  quit(save = "no")
}

# mode "ratio": the Fisher embedding's scale threshold ratio_rel (the paper:
# the largest scale whose D/G ratio stays above "a certain threshold",
# value not given). Split 1, YaleB at 6, 14 and 29 labelled and COIL-20 at 7
# and 18: the test error of SOSI for each threshold, and the threshold the
# labelled points alone choose: a stratified 2/3 - 1/3 split of the labelled
# points (the third treated as unlabelled), lowest error of SOSI on it, ties
# to the smallest threshold (the largest scale). Writes sosi_ratio_rel.csv and
# sosi_ratio_meta.txt.
if (mode == "ratio") {
  settings <- list(c("YaleB", 6), c("YaleB", 14), c("YaleB", 29), c("COIL20", 7), c("COIL20", 18))
  rows <- list()
  for (st in settings) {
    nm <- st[1]; n_per <- as.integer(st[2])
    if (!dir.exists(file.path(path, nm))) next
    ds <- sosi_data(nm, path)
    tr <- stratified_split(ds$labels, n_per, seed + 1)
    X <- ds$X[tr, ]; lab <- ds$labels[tr]; Xu <- ds$X[-tr, ]; truth <- ds$labels[-tr]
    stop_frac <- if (nm == "YaleB" && n_per == 6) 0.8 else 1
    rel <- choose_ratio_rel(X, lab, cfg[[nm]]$ndim, seed + 100, rel_grid)
    fit <- fisher_embedding(X, lab, ndim = cfg[[nm]]$ndim)
    for (j in seq_along(rel_grid)) {
      t0 <- proc.time()[["elapsed"]]
      s <- sosi(fit, X_unlabeled = Xu, ratio_rel = rel_grid[j], stop_frac = stop_frac, labels_unlabeled = truth)
      rows[[length(rows) + 1]] <- data.frame(dataset = nm, n_per_class = n_per, split = 1, ratio_rel = rel_grid[j],
                                             cv_error = rel$cv_error[j], test_error = err(s$labels, truth),
                                             seconds = proc.time()[["elapsed"]] - t0, chosen = rel$chosen[j])
      message(sprintf("%s %d ratio_rel %.1f: cv %.3f, test %.3f", nm, n_per, rel_grid[j], rel$cv_error[j],
                      rows[[length(rows)]]$test_error))
    }
  }
  d <- do.call(rbind, rows)
  utils::write.csv(d, file.path(outdir, "sosi_ratio_rel.csv"), row.names = FALSE)
  write_mode_meta("ratio", "sosi_ratio_meta.txt", "split 1 uses seed + 1; the labelled points' own split seed + 100")
  quit(save = "no")
}

if (mode == "baselines") {
  budget <- if (length(args) >= 3 && nzchar(args[3])) as.numeric(args[3]) else Inf
  fc <- file.path(outdir, "sosi_compare_full.csv")
  ft <- file.path(outdir, "sosi_baseline_tuning.csv")
  comp <- utils::read.csv(fc)
  tuned <- list()
  done <- character(0)
  b_splits <- seq_len(5)
  if (length(args) >= 4 && startsWith(args[4], "splits=")) {
    b_splits <- as.integer(strsplit(sub("^splits=", "", args[4]), "-", fixed = TRUE)[[1]])
    b_splits <- seq(b_splits[1], b_splits[length(b_splits)])
    # the tuned settings of the other splits stay: their tuning rows, and the
    # settings whose baseline rows are tuned (every SVM row is a tuned one)
    if (file.exists(ft)) {
      old_t <- utils::read.csv(ft)
      tuned[[1]] <- old_t[!old_t$split %in% b_splits, , drop = FALSE]
    }
    sv <- comp[comp$method == "SVM" & !comp$split %in% b_splits, ]
    done <- sprintf("%s/%d/%d", sv$dataset, sv$n_per_class, sv$split)
    # settings of these splits that an earlier, budgeted run already tuned
    # (they have SVM rows and tuning rows) are kept and not run again: the
    # result would be the same, as every split has a fixed seed
    if (file.exists(ft)) {
      sv_b <- comp[comp$method == "SVM" & comp$split %in% b_splits, ]
      key_b <- sprintf("%s/%d/%d", sv_b$dataset, sv_b$n_per_class, sv_b$split)
      key_t <- sprintf("%s/%d/%d", old_t$dataset, old_t$n_per_class, old_t$split)
      prior <- intersect(key_b, key_t)
      tuned[[1]] <- rbind(tuned[[1]], old_t[key_t %in% prior, , drop = FALSE])
      done <- c(done, prior)
    }
  }
  stopped <- FALSE
  for (sp in b_splits) {
    for (nm in names(cfg)) {
      if (!dir.exists(file.path(path, nm))) next
      ds <- sosi_data(nm, path)
      for (n_per in cfg[[nm]]$n_per) {
        if (sprintf("%s/%d/%d", nm, n_per, sp) %in% done) next
        if (as.numeric(difftime(Sys.time(), t_start, units = "mins")) > budget) { stopped <- TRUE; break }
        c0 <- proc.time()[["elapsed"]]
        r <- run_baselines(ds, n_per, sp, cfg[[nm]]$ndim)
        key <- paste(comp$dataset, comp$n_per_class, comp$split, comp$embedding, comp$method)
        comp <- bind_fill(list(comp[!key %in% paste(r$compare$dataset, r$compare$n_per_class, r$compare$split,
                                                     r$compare$embedding, r$compare$method), ], r$compare))
        tuned[[length(tuned) + 1]] <- r$tuning
        done <- c(done, sprintf("%s/%d/%d", nm, n_per, sp))
        utils::write.csv(comp, fc, row.names = FALSE)
        utils::write.csv(bind_fill(tuned), ft, row.names = FALSE)
        message(sprintf("baselines %s n_per=%d split=%d: %.0f s (%s)", nm, n_per, sp,
                        proc.time()[["elapsed"]] - c0, format(Sys.time())))
      }
      if (stopped) break
    }
    if (stopped) break
  }
  # rows of the changed baselines (SVM, SSL, Nystrom) on settings this run did
  # not reach still come from the old, untuned rules: drop them, so that the
  # tuned baselines are averaged over the splits that ran (NN is unchanged)
  comp <- prune_untuned(comp, done)
  utils::write.csv(comp, fc, row.names = FALSE)
  cpu <- proc.time() - cpu_start
  cat(sprintf(paste0("baselines (tuned SVM, Nystrom, SSL; NN) rerun: nice -n 19 Rscript inst/experiments/sosi.R ",
                     "baselines %s %s %s: started %s, elapsed %.0f s, CPU %.0f s; %d of 90 settings/splits tuned now %s; ",
                     "NN/SVM/SSL/Nystrom rows of sosi_compare_full.csv tuned for: %s\n"),
              outdir, if (is.finite(budget)) budget else "\"\"", if (length(args) >= 4) args[4] else "",
              format(t_start), cpu[["elapsed"]],
              cpu[["user.self"]] + cpu[["sys.self"]], length(done),
              if (stopped) "(time budget reached)" else "(all)", paste(done, collapse = ", ")),
      file = file.path(outdir, "sosi_full_meta.txt"), append = TRUE)
  quit(save = "no")
}

# mode "fig8": the quick mode's Fig. 8 alone (the SOSI, LLE and graph-width
# Nystrom trajectories; the RBF rows of sosi_progressive.csv are kept), e.g.
# to check the committed trajectories; writes sosi_fig8_meta.txt
if (mode != "fig8") {
  res <- list()
  for (nm in names(cfg)) {
    if (!dir.exists(file.path(path, nm))) { message("data set ", nm, " not available: skipped"); next }
    ds <- sosi_data(nm, path)
    for (n_per in cfg[[nm]]$quick) for (sp in seq_len(n_split)) {
      # early stopping at 80 % at the leftmost Yale ratio, as in the paper
      sf <- if (nm == "YaleB" && n_per == min(cfg[[nm]]$n_per)) 0.8 else 1
      r <- run_compare(ds, n_per, sp, cfg[[nm]]$ndim, sf)
      res[[length(res) + 1]] <- r$compare
      message(sprintf("%s n_per=%d split=%d done (%s)", nm, n_per, sp, format(Sys.time())))
      utils::write.csv(bind_fill(res), file.path(outdir, "sosi_compare.csv"), row.names = FALSE)
    }
  }
}

# Fig. 8: progressive trajectories on YaleB, 10 labelled per subject
prog <- list()
if (dir.exists(file.path(path, "YaleB"))) {
  ds <- sosi_data("YaleB", path)
  tr <- stratified_split(ds$labels, 10, seed + 1)
  X <- ds$X[tr, ]; lab <- ds$labels[tr]; Xu <- ds$X[-tr, ]; truth <- ds$labels[-tr]
  for (emb in c("S-LE", "Fisher")) {
    fit <- if (emb == "S-LE") supervised_le(X, lab, ndim = 20) else fisher_embedding(X, lab, ndim = 20)
    s <- sosi(fit, X_unlabeled = Xu, labels_unlabeled = truth)
    prog[[length(prog) + 1]] <- data.frame(embedding = emb, method = "SOSI", L_over_N = s$history$L / length(tr),
                                           error = s$history$error)
    for (oos in c("lle", "nystrom")) {
      pb <- progressive_baseline(X, lab, Xu, embed = if (emb == "S-LE") "sle" else "fisher", oos = oos,
                                 ndim = 20, labels_unlabeled = truth)
      prog[[length(prog) + 1]] <- data.frame(embedding = emb, method = c(lle = "LLE", nystrom = "Nystrom")[[oos]],
                                             L_over_N = pb$L / length(tr), error = pb$error)
    }
    message("Fig. 8 ", emb, " done")
  }
  f8 <- file.path(outdir, "sosi_progressive.csv")
  old <- if (file.exists(f8)) utils::read.csv(f8) else NULL
  old <- if (!is.null(old)) old[old$method == "RBF", ] else NULL
  prog <- do.call(rbind, prog)
  prog$n_grid <- NA
  if (!is.null(old) && is.null(old$n_grid)) old$n_grid <- 8
  utils::write.csv(rbind(prog, old), f8, row.names = FALSE)
}

if (mode == "fig8") {
  write_mode_meta("fig8", "sosi_fig8_meta.txt", "split 1 uses seed + 1")
  quit(save = "no")
}

# Fig. 9: regulariser and RBF-fitting error against a common scale (S-LE)
scale_rows <- list()
for (nm in names(cfg)) {
  if (!dir.exists(file.path(path, nm))) next
  f9 <- fig9_fit(nm)
  ds <- f9$ds; tr <- f9$tr; fit <- f9$fit
  rp <- regularizer_path(fit, n_grid = 25, X_unlabeled = ds$X[-tr, ], labels_unlabeled = ds$labels[-tr])
  scale_rows[[length(scale_rows) + 1]] <- cbind(dataset = nm, rp)
}
utils::write.csv(do.call(rbind, scale_rows), file.path(outdir, "sosi_scale.csv"), row.names = FALSE)

writeLines(c(sprintf("command: Rscript inst/experiments/sosi.R %s", mode),
             sprintf("seed: %d (split s uses seed + s)", seed),
             sprintf("started: %s, finished: %s", format(t_start), format(Sys.time())),
             sprintf("load at the end: %s", paste(system("uptime", intern = TRUE), collapse = " ")),
             capture.output(sessionInfo())),
           file.path(outdir, "sosi_meta.txt"))
