# Reproduction of Strange (2011), thesis chapter 4 (PLML), and of ICMLA10
# Table I / BMVC10 Table 1, with manifoldOOS.
#
#   Rscript inst/experiments/plml.R [out_dir] [quick] [only=table,table,...]
#
# Writes CSV tables (plml_<table>.csv) to out_dir (default
# inst/experiments/results), each with the command, the seed and a
# sessionInfo() file beside it. "quick" runs the reduced grids used live in
# the vignette. Image experiments run when the shared image data are found
# (image_data_path(); MANIFOLDOOS_DATA), else they are skipped.
#
# Protocol (after Strange 2011, ch. 4): quality measures averaged over each method's
# neighbourhood size k and over the measure's own k (the thesis reports
# neither grid): trustworthiness T(m), residual variance ("RMSE") of the
# k = 10 graph geodesics, and a Procrustes error = matlab_d between the
# embedding and the isometric ground truth (1 - r^2 after the best
# similarity; the thesis's normalisation is unknown, so only orderings are
# comparable). Swiss roll: drtoolbox convention, h in [0, 30].
suppressPackageStartupMessages(library(manifoldOOS))
args <- commandArgs(trailingOnly = TRUE)
out_dir <- if (length(args) >= 1L && args[1] != "quick" && !grepl("=", args[1], fixed = TRUE)) args[1] else "inst/experiments/results"
quick <- "quick" %in% args
# "only=icmla10_table1,bmvc10_table1,images" runs those tables alone (names as
# in plml_<table>.csv); the session info then goes to
# plml_sessionInfo_<table>+<table>....txt (more than two tables:
# plml_sessionInfo_<first table>+<n>more.txt, so the path stays portable)
only <- sub("^only=", "", grep("^only=", args, value = TRUE))
only <- if (length(only)) strsplit(only[1], ",", fixed = TRUE)[[1]] else character()
want <- function(table) !length(only) || table %in% only
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
seed <- 20110901L
cmd <- paste("Rscript inst/experiments/plml.R", paste(args, collapse = " "))
# "contiguous=FALSE" fits PLML without the contiguity repair (the thesis's
# own algorithm; the repair is the package's default) and writes only the
# PLML rows, to plml_<table>_nocontig.csv, so that the verdicts can be given
# with and without it
contig <- !"contiguous=FALSE" %in% args
stamp <- function(df, table) {
  df$command <- cmd
  df$seed <- seed
  if (!contig) table <- paste0(table, "_nocontig")
  utils::write.csv(df, file.path(out_dir, sprintf("plml_%s.csv", table)), row.names = FALSE)
  message(sprintf("[%s] %s written (%d rows)", format(Sys.time(), "%H:%M:%S"), table, nrow(df)))
  invisible(df)
}

# "kgrid=wide" averages Tables 4.1/4.2 over the wide method grid k = 3..40
# (38 fits per method and data set; hours on a shared 2-core machine);
# "kgrid=spec", its former name, is still read (the results files record it)
kgrid_spec <- any(c("kgrid=wide", "kgrid=spec") %in% args)
method_k <- if (kgrid_spec) 3:40 else if (quick) c(8L, 12L) else c(6L, 9L, 12L)
measure_k <- if (quick) c(5L, 10L, 20L) else c(5L, 10L, 15L, 20L, 25L, 30L)

embed_with <- function(method, X, k, ndim = 2L) {
  Y <- tryCatch(suppressWarnings(switch(method,
    PCA = embedding(pca(X, ndim)),
    ISO = embedding(isomap(X, ndim, k = k)),
    LLE = embedding(lle(X, ndim, k = k)),
    LTSA = embedding(ltsa(X, ndim, k = max(k, ndim + 2L))),
    LE = embedding(laplacian_eigenmaps(X, ndim, k = k)),
    PLML = embedding(plml(X, ndim, k = k, seed = seed, contiguous = contig)),
    IHM = embedding(plml(X, ndim, k = k, seed = seed, variant = "ihm", backalign = "similarity"))
  )), error = function(e) NULL)
  Y
}

measures <- function(X, Y, truth) {
  if (is.null(Y)) return(c(T = NA, C = NA, PE = NA, RV = NA))
  mk <- measure_k[measure_k < nrow(X) - 2L]
  c(T = mean(trustworthiness(X, Y, k = mk)),
    C = mean(continuity(X, Y, k = mk)),
    PE = if (is.null(truth)) NA else procrustes_dist(Y, truth, type = "matlab_d"),
    RV = tryCatch(residual_variance(X, Y, k = 10), error = function(e) NA))
}

# one data set, several methods, averaged over the methods' k
study <- function(X, truth, methods, label) {
  rows <- list()
  for (m in methods) {
    ks <- if (m == "PCA") NA_integer_ else method_k
    vals <- t(vapply(ks, function(k) measures(X, embed_with(m, X, k), truth), numeric(4)))
    rows[[m]] <- data.frame(label, method = m, T = mean(vals[, "T"], na.rm = TRUE),
                            T_sd = sd(vals[, "T"], na.rm = TRUE),
                            C = mean(vals[, "C"], na.rm = TRUE),
                            PE = mean(vals[, "PE"], na.rm = TRUE),
                            RV = mean(vals[, "RV"], na.rm = TRUE),
                            RV_sd = sd(vals[, "RV"], na.rm = TRUE))
  }
  do.call(rbind, rows)
}

circ_rho <- function(y, t) {
  # |Spearman rho| between a 1-D coordinate and the circular parameter after
  # the best circular shift of the parameter
  shifts <- seq(0, 2 * pi, length.out = 73)[-73]
  max(vapply(shifts, function(s) abs(cor(y, (t + s) %% (2 * pi), method = "spearman")), 0))
}

methods5 <- c("PCA", "ISO", "LLE", "LTSA", "PLML")
if (!contig) methods5 <- "PLML"  # the repair changes only PLML's rows

# ---- Table 4.1: sparsity ---------------------------------------------------------
if (want("table4_1")) {
  sizes <- if (quick) c(250L, 1000L) else c(250L, 500L, 1000L, 2000L)
  t41 <- do.call(rbind, lapply(sizes, function(n) {
    r <- swiss_roll(n, seed = seed)
    study(r$x, r$truth_isometric, methods5, data.frame(n = n))
  }))
  stamp(t41, "table4_1")
}

# ---- Table 4.2: noise ----------------------------------------------------------------
if (want("table4_2")) {
  n_noise <- if (quick) 1000L else 2000L
  noises <- if (quick) c(0, 0.5, 1) else c(0, 0.25, 0.5, 1)
  t42 <- do.call(rbind, lapply(noises, function(s) {
    r <- swiss_roll(n_noise, noise = s, seed = seed)
    study(r$x, r$truth_isometric, methods5, data.frame(n = n_noise, sigma = s))
  }))
  stamp(t42, "table4_2")
}

# ---- Table 4.3: root invariance ----------------------------------------------------------
if (want("table4_3")) {
  n_root <- if (quick) 1000L else 2000L
  r <- swiss_roll(n_root, seed = seed)
  base <- plml(r$x, k = 9, seed = seed, contiguous = contig)
  cen <- rowsum(r$truth, base$labels) / as.vector(table(base$labels))
  tq <- quantile(r$truth[, "t"], c(0.05, 0.25, 0.5, 0.75, 0.95))
  hq <- quantile(r$truth[, "h"], c(0.9, 0.5, 0.1))
  pos <- expand.grid(v = c("T", "M", "B"), u = c("L", "CL", "C", "CR", "R"), stringsAsFactors = FALSE)
  t43 <- do.call(rbind, lapply(seq_len(nrow(pos)), function(i) {
    target <- c(tq[match(pos$u[i], c("L", "CL", "C", "CR", "R"))], hq[match(pos$v[i], c("T", "M", "B"))])
    d <- (cen[, 1] - target[1])^2 / diff(range(r$truth[, 1]))^2 +
      (cen[, 2] - target[2])^2 / diff(range(r$truth[, 2]))^2
    root <- which.min(d)
    f <- plml(r$x, k = 9, seed = seed, root = root, contiguous = contig)
    Tm <- trustworthiness(r$x, embedding(f), k = measure_k)
    data.frame(start = paste0(pos$v[i], pos$u[i]), root = root, T = mean(Tm), T_sd = sd(Tm),
               PE = procrustes_dist(embedding(f), r$truth_isometric, type = "matlab_d"),
               RV = residual_variance(r$x, embedding(f), k = 10))
  }))
  stamp(t43, "table4_3")
}

# ---- k studies (Figs. 4.16-4.21) --------------------------------------------------------------
if (want("k_study")) {
  ks <- if (quick) c(4L, 9L, 14L, 24L) else c(3L, 4L, 6L, 9L, 14L, 18L, 24L, 36L)
  settings <- if (quick) list(c(250, 0), c(1000, 0), c(1000, 1)) else
    list(c(250, 0), c(2000, 0), c(2000, 1))
  kst <- do.call(rbind, lapply(settings, function(s) {
    r <- swiss_roll(s[1], noise = s[2], seed = seed)
    do.call(rbind, lapply(ks[ks <= s[1] / 2], function(k) {
      Y <- embed_with("PLML", r$x, k)
      data.frame(n = s[1], sigma = s[2], k = k, T10 = trustworthiness(r$x, Y, k = 10),
                 RV = residual_variance(r$x, Y, k = 10))
    }))
  }))
  stamp(kst, "k_study")
}

# ---- dense-roll k grid: the collapse on dense rolls ----------------------------------------------
# PLML on three Swiss rolls of 2000 points (seeds seed, seed + 1, seed + 2),
# k = 3..40, T(10), with the contiguity repair (default) and without it
# (the clusters as the constrained k-means returns them).
if (want("k_grid")) {
  ks <- if (quick) c(5L, 9L, 14L) else 3:40
  kg <- do.call(rbind, lapply(seed + 0:2, function(rs) {
    r <- swiss_roll(2000, seed = rs)
    do.call(rbind, lapply(ks, function(k) {
      do.call(rbind, lapply(c(TRUE, FALSE), function(cg) {
        f <- plml(r$x, 2, k = k, seed = seed, contiguous = cg)
        data.frame(roll_seed = rs, n = 2000, k = k, contiguous = cg, moved = f$n_moved,
                   T10 = trustworthiness(r$x, embedding(f), k = 10))
      }))
    }))
  }))
  stamp(kg, "k_grid")
}

# ---- essential loops (Figs. 4.3-4.8) ------------------------------------------------------------
if (want("loops")) {
  n_loop <- if (quick) 800L else 2000L
  loops <- list()
  hx <- helix(n_loop, seed = seed)
  for (m in if (contig) c("PCA", "ISO", "LLE", "LTSA", "PLML") else "PLML") {
    y1 <- embed_with(m, hx$x, 10L, ndim = 1L)
    y2 <- embed_with(m, hx$x, 10L, ndim = 2L)
    loops[[length(loops) + 1L]] <- data.frame(
      data = "helix", method = m,
      rho_1d = if (is.null(y1)) NA else circ_rho(y1[, 1], hx$truth[, 1]),
      T_1d = if (is.null(y1)) NA else trustworthiness(hx$x, y1, 10),
      T_2d = if (is.null(y2)) NA else trustworthiness(hx$x, y2, 10))
  }
  for (nm in c("fishbowl", "broken_swiss_roll", "swiss_hole")) {
    d <- switch(nm, fishbowl = fishbowl(n_loop, seed = seed),
                broken_swiss_roll = broken_swiss_roll(n_loop, seed = seed),
                swiss_hole = swiss_roll(n_loop, hole = TRUE, seed = seed))
    for (m in methods5) {
      Y <- embed_with(m, d$x, 10L)
      loops[[length(loops) + 1L]] <- data.frame(
        data = nm, method = m, rho_1d = NA,
        T_1d = NA, T_2d = if (is.null(Y)) NA else trustworthiness(d$x, Y, 10))
    }
  }
  stamp(do.call(rbind, loops), "loops")
}

# ---- ICMLA10 Table I (Swiss roll, Moebius strip; k and m averaged over 8..16) -------------------
if (want("icmla10_table1")) {
  icmla_k <- if (quick) c(8L, 12L, 16L) else c(8L, 12L, 16L)
  n_icmla <- if (quick) 1000L else 2000L
  icmla <- do.call(rbind, lapply(c("swiss_roll", "mobius"), function(nm) {
    d <- if (nm == "swiss_roll") swiss_roll(n_icmla, seed = seed) else mobius(n_icmla, seed = seed)
    do.call(rbind, lapply(if (contig) c("ISO", "LE", "LLE", "LTSA", "PLML") else "PLML", function(m) {
      v <- t(vapply(icmla_k, function(k) {
        Y <- embed_with(m, d$x, k)
        if (is.null(Y)) return(c(NA, NA))
        c(trustworthiness(d$x, Y, k), continuity(d$x, Y, k))
      }, numeric(2)))
      data.frame(data = nm, method = m, T = mean(v[, 1], na.rm = TRUE), T_sd = sd(v[, 1], na.rm = TRUE),
                 C = mean(v[, 2], na.rm = TRUE), C_sd = sd(v[, 2], na.rm = TRUE))
    }))
  }))
  stamp(icmla, "icmla10_table1")
}

# ---- BMVC10 Table 1 (IHM; noise-free Swiss roll, k averaged over 2..32 for the others) ----------
# IHM as in BMVC10: GMM clustering (Bouman's CLUSTER: 32 initial components,
# the number chosen by MDL), centroid MST, similarity backtracking; averaged
# over three GMM initialisations (seeds seed, seed + 1, seed + 2). The row
# "IHM (k-means)" is the package's IHM before the GMM clustering existed
# (constrained k-means, model size k averaged like the others).
if (want("bmvc10_table1")) {
  bmvc_k <- if (quick) c(6L, 12L, 24L) else c(4L, 8L, 16L, 32L)
  r <- swiss_roll(if (quick) 1000L else 2000L, seed = seed)
  ihm_gmm <- function(s) {
    tryCatch(embedding(plml(r$x, 2, k = nrow(r$x) %/% 32L, variant = "ihm", cluster = "gmm",
                            n_components = 32L, backalign = "similarity", seed = s)),
             error = function(e) NULL)
  }
  bmvc <- do.call(rbind, lapply(if (contig) c("PCA", "ISO", "LTSA", "IHM", "IHM (k-means)", "PLML") else "PLML", function(m) {
    kk <- if (m == "PCA") NA_integer_ else if (m == "IHM") seed + 0:2 else bmvc_k
    v <- t(vapply(kk, function(k) {
      Y <- if (m == "IHM") ihm_gmm(k) else embed_with(if (m == "IHM (k-means)") "IHM" else m, r$x, max(k, 3L))
      if (is.null(Y)) return(c(NA, NA, NA))
      c(trustworthiness(r$x, Y, 10), continuity(r$x, Y, 10),
        procrustes_dist(Y, r$truth_isometric, type = "matlab_d"))
    }, numeric(3)))
    v <- matrix(v, ncol = 3)
    data.frame(method = m, T = mean(v[, 1], na.rm = TRUE), T_sd = sd(v[, 1], na.rm = TRUE),
               C = mean(v[, 2], na.rm = TRUE), PE = mean(v[, 3], na.rm = TRUE))
  }))
  stamp(bmvc, "bmvc10_table1")
}

# ---- images (thesis §4.4): Frey k = 7, the COIL-20 cat k = 4, ISOFaces k = 5 --------------------
if (want("images")) {
  path <- image_data_path()
  if (nzchar(path) && dir.exists(path)) {
    img <- list()
    fr <- tryCatch(load_image_data("Frey", path), error = function(e) NULL)
    if (!is.null(fr)) {
      f <- plml(fr$x, 2, k = 7, seed = seed)
      img[[length(img) + 1L]] <- data.frame(data = "Frey", n = nrow(fr$x), p = ncol(fr$x), k = 7, ndim = 2,
                                            models = f$n_models, T10 = trustworthiness(fr$x, embedding(f), 10),
                                            rho_1d = NA, tree_max_degree = NA, axis_cos_median = NA,
                                            orientation_follows_travel = NA)
    }
    co <- tryCatch(load_image_data("COIL20", path), error = function(e) NULL)
    if (!is.null(co)) {
      # the thesis's object is the cat: object 4 of COIL-20 (72 views, 5 degree steps)
      x1 <- co$x[co$labels == 4L, ]
      ang <- 2 * pi * (seq_len(nrow(x1)) - 1) / nrow(x1)
      for (q in 1:2) {
        f <- plml(x1, q, k = 4, seed = seed)
        # why a 1-D layout can fold: along each model-tree edge a -> b the
        # parallel projection orients b by sign(u_a . u_b) of the models'
        # first axes; it follows the direction of travel only when that sign
        # equals sign(u_a . c) * sign(u_b . c), c = the centre-to-centre chord
        edge_cos <- vapply(seq_len(nrow(f$model_tree)), function(e) {
          a <- f$model_tree$from[e]; b <- f$model_tree$to[e]
          ua <- f$bases[, 1, a]; ub <- f$bases[, 1, b]
          ch <- f$centres[b, ] - f$centres[a, ]
          c(sum(ua * ub), sum(ua * ch), sum(ub * ch))
        }, numeric(3))
        img[[length(img) + 1L]] <- data.frame(data = "COIL20 cat (object 4)", n = nrow(x1), p = ncol(x1), k = 4,
                                              ndim = q, models = f$n_models,
                                              T10 = trustworthiness(x1, embedding(f), 10),
                                              rho_1d = if (q == 1) circ_rho(embedding(f)[, 1], ang) else NA,
                                              tree_max_degree = max(tabulate(c(f$model_tree$from, f$model_tree$to))),
                                              axis_cos_median = stats::median(abs(edge_cos[1, ])),
                                              orientation_follows_travel = mean(sign(edge_cos[1, ]) ==
                                                                                  sign(edge_cos[2, ]) * sign(edge_cos[3, ])))
      }
    }
    if (!is.null(co)) {
      # the same 1-D ordering over other settings, and the baselines read on one axis
      x1 <- co$x[co$labels == 4L, ]
      ang <- 2 * pi * (seq_len(nrow(x1)) - 1) / nrow(x1)
      g <- expand.grid(k = 3:8, axis_target = c("projected", "own"), variant = c("pp", "ihm"),
                       stringsAsFactors = FALSE)
      g$method <- "PLML"
      g$rho_1d <- vapply(seq_len(nrow(g)), function(i) {
        f <- plml(x1, 1, k = g$k[i], axis_target = g$axis_target[i], variant = g$variant[i], seed = seed)
        circ_rho(embedding(f)[, 1], ang)
      }, 0)
      base <- data.frame(k = c(4L, 6L, 6L), axis_target = NA, variant = NA, method = c("Isomap", "LTSA", "LLE"))
      base$rho_1d <- c(circ_rho(embedding(isomap(x1, 1, k = 4))[, 1], ang),
                       circ_rho(embedding(ltsa(x1, 1, k = 6))[, 1], ang),
                       circ_rho(embedding(lle(x1, 1, k = 6))[, 1], ang))
      stamp(rbind(g, base), "coil_settings")
    }
    isf <- tryCatch(load_image_data("ISOFaces", path), error = function(e) NULL)
    if (!is.null(isf)) {
      for (q in c(2L, 6L)) {
        f <- plml(isf$x, q, k = max(5L, q + 1L), seed = seed)
        Tm <- mean(trustworthiness(isf$x, embedding(f), k = measure_k))
        img[[length(img) + 1L]] <- data.frame(data = "ISOFaces", n = nrow(isf$x), p = ncol(isf$x),
                                              k = max(5L, q + 1L), ndim = q, models = f$n_models,
                                              T10 = Tm, rho_1d = NA, tree_max_degree = NA, axis_cos_median = NA,
                                              orientation_follows_travel = NA)
      }
    }
    if (length(img)) stamp(do.call(rbind, img), "images")
  } else {
    message("image data not found: image experiments skipped")
  }
}

writeLines(c(cmd, paste("seed:", seed), capture.output(sessionInfo())),
           file.path(out_dir, if (length(only)) sprintf("plml_sessionInfo_%s.txt",
                                                  if (length(only) > 2L) sprintf("%s+%dmore", only[1], length(only) - 1L)
                                                  else paste(only, collapse = "+"))
                              else "plml_sessionInfo.txt") |>
             sub(pattern = "\\.txt$", replacement = if (contig) ".txt" else "_nocontig.txt"))
