# Full-size reproduction of Yang et al. (AAAI 2010), LGRM.
#
# Usage (from the package root, with manifoldOOS installed):
#   Rscript inst/experiments/lgrm.R [parts] [--splits=10] [--out=inst/experiments/results]
# parts: any of fig1 seeds fig2 fig5 teapots frey (default: all; seeds = how
# often every method unrolls the 1000 + 1000 roll over --splits samples, k = 10,
# and LGRM also at k = 8). --p=3 (default; comma list) adds LGRM with local
# dimension p > ndim (rows "LGRM p=3") beside p = ndim ("LGRM"). Each part writes
# a CSV to the output folder, with the command, seed and sessionInfo() in a
# companion lgrm-sessioninfo.txt. The vignette `lgrm` prints these tables
# beside its reduced live run.
#
# Settings (the paper's): m = 2, gamma = 1e-4, mu = 1e-5, RBF kernel
# exp(-d^2/sigma^2) with sigma = 10 (Swiss roll, Swiss hole) and sigma = 100
# (teapots, faces, pixels scaled to [0, 1]); k = 10 (the paper gives no k
# except k = 30 for the half-rotation teapots). Baselines with their native
# out-of-sample rules: Isomap (L-MDS triangulation), LLE and LTSA
# (reconstruction weights), LE (Nystrom), KPCA (exact), KLPP (kernel map);
# KPCA/KLPP use the same RBF width (package convention sigma / sqrt(2)).
suppressPackageStartupMessages(library(manifoldOOS))
# image data: option / MANIFOLDOOS_DATA, else ../shared/data next to the repository
if (!nzchar(image_data_path())) {
  for (cand in c("../shared/data", "../../shared/data", "../../../shared/data")) {
    if (dir.exists(cand)) {
      options(manifoldOOS.data = normalizePath(cand))
      break
    }
  }
}

lgrm_exp <- new.env()
local(envir = lgrm_exp, {

  # Fit one method on Xtr and map Xte; returns list(train, test, oos_time, fit_time).
  # "LGRM" has the local dimension p = ndim = 2 (its local term is then
  # LTSA's); "LGRM p=3" etc. use a larger local PCA dimension (the paper's
  # p in [m, d]).
  run_method <- function(method, Xtr, Xte, sigma, k) {
    t0 <- proc.time()[["elapsed"]]
    p_loc <- 2L
    if (startsWith(method, "LGRM p=")) {
      p_loc <- min(as.integer(sub("LGRM p=", "", method, fixed = TRUE)), ncol(Xtr), k - 1L)
      method <- "LGRM"
    }
    fit <- switch(method,
      LGRM = lgrm(Xtr, ndim = 2, k = k, p = p_loc, sigma = sigma, gamma = 1e-4, mu = 1e-5),
      LTSA = ltsa(Xtr, ndim = 2, k = k),
      LLE = lle(Xtr, ndim = 2, k = k),
      Isomap = isomap(Xtr, ndim = 2, k = k),
      LE = laplacian_eigenmaps(Xtr, ndim = 2, k = k, on_disconnected = "connect"),
      KPCA = kpca(Xtr, ndim = 2, sigma = sigma / sqrt(2)),
      KLPP = klpp(Xtr, ndim = 2, k = k, kernel_sigma = sigma / sqrt(2), on_disconnected = "connect"))
    t1 <- proc.time()[["elapsed"]]
    yte <- if (is.null(Xte)) NULL else predict(fit, Xte)
    t2 <- proc.time()[["elapsed"]]
    list(train = embedding(fit), test = yte, fit_time = t1 - t0, oos_time = t2 - t1)
  }
  safe_run <- function(...) {
    tryCatch(suppressWarnings(run_method(...)), error = function(e) {
      message("  failed: ", conditionMessage(e))
      NULL
    })
  }

  methods7 <- c("LGRM", "LTSA", "LLE", "Isomap", "LE", "KPCA", "KLPP")
  methods5 <- c("LGRM", "Isomap", "LLE", "LTSA", "LE")

  # E1 / E2: train + unseen, affine R^2 against the isometric coordinates.
  fig12 <- function(n_train, n_test, hole, seed, methods = methods7, k = 10, sigma = 10) {
    d <- swiss_roll(n_train + n_test, convention = "wittman", hole = hole, seed = seed)
    tr <- seq_len(n_train)
    te <- n_train + seq_len(n_test)
    res <- lapply(methods, function(m) safe_run(m, d$x[tr, ], d$x[te, ], sigma, k))
    names(res) <- methods
    tab <- do.call(rbind, lapply(methods, function(m) {
      r <- res[[m]]
      if (is.null(r)) return(data.frame(method = m, r2_train = NA, r2_unseen = NA, fit_s = NA, oos_s = NA))
      data.frame(method = m, r2_train = affine_r2(r$train, d$truth_isometric[tr, ]),
                 r2_unseen = affine_r2(r$test, d$truth_isometric[te, ]),
                 fit_s = r$fit_time, oos_s = r$oos_time)
    }))
    list(table = tab, res = res, data = d, tr = tr, te = te)
  }

  # Embedding error (Fig. 5; oos_error(type = "embedding")): Y from all of D,
  # Yp from A plus the OOS map of B; both normalised by their training rows and
  # aligned by the orthogonal Procrustes rotation fitted on the training rows.
  embedding_error <- function(Y, Yp_train, Yp_test, A, B) {
    oos_error(Yp_test, Y[B, , drop = FALSE], Yp_train, Y[A, , drop = FALSE], type = "embedding")
  }

  # E5: splits of D into A (train) and B (test); truth = NULL: no failure test.
  fig5 <- function(X, truth, n_train, n_splits, seed, sigma, k = 10, methods = methods5,
                   n_total = nrow(X), save = NULL) {
    rows <- list()
    set.seed(seed)
    for (s in seq_len(n_splits)) {
      D <- sort(sample.int(nrow(X), n_total))
      A_pos <- sort(sample.int(n_total, n_train))
      B_pos <- setdiff(seq_len(n_total), A_pos)
      XD <- X[D, , drop = FALSE]
      for (m in methods) {
        full <- safe_run(m, XD, NULL, sigma, k)
        part <- safe_run(m, XD[A_pos, , drop = FALSE], XD[B_pos, , drop = FALSE], sigma, k)
        if (is.null(full) || is.null(part)) {
          rows[[length(rows) + 1L]] <- data.frame(split = s, method = m, error = NA, failed = NA,
                                                  oos_s = NA)
          next
        }
        err <- embedding_error(full$train, part$train, part$test, A_pos, B_pos)
        failed <- if (is.null(truth)) NA else
          affine_r2(full$train, truth[D, , drop = FALSE]) < 0.95 ||
          affine_r2(part$train, truth[D[A_pos], , drop = FALSE]) < 0.95
        rows[[length(rows) + 1L]] <- data.frame(split = s, method = m, error = err, failed = failed,
                                                oos_s = part$oos_time)
      }
      # runs so far (a long run that is stopped keeps its finished splits)
      if (!is.null(save)) utils::write.csv(do.call(rbind, rows), save, row.names = FALSE)
    }
    do.call(rbind, rows)
  }

  summarise_fig5 <- function(runs) {
    do.call(rbind, lapply(split(runs, factor(runs$method, levels = unique(runs$method))), function(r) {
      data.frame(method = r$method[1], mean = mean(r$error, na.rm = TRUE),
                 median = stats::median(r$error, na.rm = TRUE),
                 # NA when failures were not measured (no ground truth, e.g. Frey)
                 failures = if (all(is.na(r$failed))) NA_integer_ else sum(r$failed, na.rm = TRUE),
                 splits = nrow(r),
                 oos_ms = 1000 * stats::median(r$oos_s, na.rm = TRUE))
    }))
  }

  # misplaced frames: loop_misplaced() / arc_misplaced() (exported)
  arc_scores <- function(Y) {
    m <- arc_misplaced(Y)
    c(spearman = attr(m, "spearman"), misplaced = as.numeric(m))
  }

  # 100-frame teapots: loop (all frames) for several k, and the half-rotation
  # arc (first 50 frames; the paper's "first 200 of 400, k = 30" is k/n = 0.15).
  teapots <- function(path = image_data_path(), methods = methods7, k_loop = c(4L, 5L, 6L, 8L, 10L),
                      k_arc = c(5L, 8L, 30L)) {
    tp <- load_image_data("Teapots", path = path)
    X <- tp$x / 255
    n <- nrow(X)
    full <- do.call(rbind, lapply(k_loop, function(kk) {
      do.call(rbind, lapply(methods, function(m) {
        r <- safe_run(m, X, NULL, 100, kk)
        data.frame(case = sprintf("all %d frames", n), k = kk, method = m,
                   misplaced = if (is.null(r)) NA else loop_misplaced(r$train), spearman = NA)
      }))
    }))
    half <- seq_len(n / 2)
    arcs <- do.call(rbind, lapply(k_arc, function(kk) {
      do.call(rbind, lapply(methods, function(m) {
        r <- safe_run(m, X[half, ], NULL, 100, kk)
        sc <- if (is.null(r)) c(NA, NA) else arc_scores(r$train)
        data.frame(case = sprintf("first %d frames", length(half)), k = kk, method = m,
                   misplaced = unname(sc[2]), spearman = unname(sc[1]))
      }))
    }))
    rbind(full, arcs)
  }

  write_info <- function(out, cmd, seed) {
    f <- file.path(out, "lgrm-sessioninfo.txt")
    txt <- c(paste("command:", cmd), paste("seed:", seed), paste("date:", format(Sys.time(), tz = "UTC")),
             paste("load:", paste(system("uptime", intern = TRUE), collapse = " ")),
             utils::capture.output(utils::sessionInfo()))
    # a run of some parts appends its block: the record keeps the command of
    # every part whose CSV is committed
    if (file.exists(f)) txt <- c(readLines(f), "", txt)
    writeLines(txt, f)
  }
})

if (sys.nframe() == 0L) {
  args <- commandArgs(trailingOnly = TRUE)
  opt <- function(name, default) {
    a <- grep(paste0("^--", name, "="), args, value = TRUE)
    if (length(a)) sub(paste0("^--", name, "="), "", a[1]) else default
  }
  parts <- args[!grepl("^--", args)]
  if (!length(parts)) parts <- c("fig1", "seeds", "fig2", "fig5", "teapots", "frey")
  n_splits <- as.integer(opt("splits", "10"))
  out <- opt("out", file.path("inst", "experiments", "results"))
  dir.create(out, showWarnings = FALSE, recursive = TRUE)
  seed <- 20100711L
  cmd <- paste("Rscript inst/experiments/lgrm.R", paste(args, collapse = " "))
  E <- lgrm_exp
  # --p=3: LGRM also with these local dimensions (p > ndim = 2), reported
  # beside p = ndim; --p= (empty) runs p = ndim only
  p_extra <- as.integer(strsplit(opt("p", "3"), ",", fixed = TRUE)[[1]])
  p_extra <- p_extra[!is.na(p_extra) & p_extra > 2L]
  # (paste0() of a zero-length vector with a string would give "LGRM p=")
  lgrm_p <- if (length(p_extra)) paste0("LGRM p=", p_extra) else character(0)
  methods_all <- c("LGRM", lgrm_p, setdiff(E$methods7, "LGRM"))
  methods_fig5 <- c("LGRM", lgrm_p, setdiff(E$methods5, "LGRM"))
  # --methods="LGRM p=3": run only these methods (same samples and splits:
  # they do not depend on the method list) and replace their rows in the
  # existing CSVs of fig1, fig2 and fig5/frey (summaries recomputed)
  only_m <- opt("methods", "")
  merge_rows <- function(new, file, key = "method") {
    if (!nzchar(only_m) || !file.exists(file)) return(new)
    old <- utils::read.csv(file)
    for (cn in setdiff(names(new), names(old))) old[[cn]] <- NA
    rbind(old[!old[[key]] %in% new[[key]], names(new)], new)
  }
  if (nzchar(only_m)) {
    sel <- strsplit(only_m, ",", fixed = TRUE)[[1]]
    methods_all <- intersect(methods_all, sel)
    methods_fig5 <- intersect(methods_fig5, sel)
  }
  if ("fig1" %in% parts) {
    r <- E$fig12(1000, 1000, hole = FALSE, seed = seed, methods = methods_all)
    print(r$table, digits = 4)
    utils::write.csv(merge_rows(r$table, file.path(out, "lgrm-fig1.csv")), file.path(out, "lgrm-fig1.csv"),
                     row.names = FALSE)
  }
  if ("seeds" %in% parts) {
    # how often does the 1000 + 1000 setting unroll, for every method? fresh
    # samples (--splits of them), k = 10 for all methods and k = 8 for LGRM
    sw <- do.call(rbind, lapply(seq_len(n_splits), function(i) {
      d <- swiss_roll(2000, convention = "wittman", seed = seed + 100L + i)
      runs <- c(lapply(methods_all, function(m) list(m = m, k = 10L)),
                lapply(grep("^LGRM", methods_all, value = TRUE), function(m) list(m = m, k = 8L)))
      rows <- do.call(rbind, lapply(runs, function(rk) {
        r <- E$safe_run(rk$m, d$x[1:1000, ], d$x[1001:2000, ], 10, rk$k)
        data.frame(sample = i, method = rk$m, k = rk$k,
                   r2_train = if (is.null(r)) NA else affine_r2(r$train, d$truth_isometric[1:1000, ]),
                   r2_unseen = if (is.null(r)) NA else affine_r2(r$test, d$truth_isometric[1001:2000, ]))
      }))
      message(sprintf("seeds: sample %d done (%s)", i, format(Sys.time())))
      rows
    }))
    print(sw, digits = 5)
    utils::write.csv(sw, file.path(out, "lgrm-fig1-samples.csv"), row.names = FALSE)
  }
  if ("fig2" %in% parts) {
    r <- E$fig12(1000, 1000, hole = TRUE, seed = seed + 1L, methods = methods_all)
    print(r$table, digits = 4)
    utils::write.csv(merge_rows(r$table, file.path(out, "lgrm-fig2.csv")), file.path(out, "lgrm-fig2.csv"),
                     row.names = FALSE)
  }
  # E5 on X (part `name`): the runs (saved after every split unless --methods
  # is given) and their summary, in lgrm-fig5-<name>-runs.csv and lgrm-fig5-<name>.csv
  run_fig5 <- function(name, X, truth, n_train, seed, sigma, n_total = nrow(X)) {
    f_runs <- file.path(out, sprintf("lgrm-fig5-%s-runs.csv", name))
    runs <- E$fig5(X, truth, n_train, n_splits, seed, sigma = sigma, n_total = n_total, methods = methods_fig5,
                   save = if (nzchar(only_m)) NULL else f_runs)
    runs <- merge_rows(runs, f_runs)
    utils::write.csv(runs, f_runs, row.names = FALSE)
    s <- E$summarise_fig5(runs)
    print(s, digits = 4)
    utils::write.csv(s, file.path(out, sprintf("lgrm-fig5-%s.csv", name)), row.names = FALSE)
  }
  if ("fig5" %in% parts) {
    d <- swiss_roll(1000, convention = "wittman", seed = seed + 2L)
    run_fig5("swissroll", d$x, d$truth_isometric, 800, seed + 3L, sigma = 10)
  }
  have_data <- function(name) {
    ok <- tryCatch(name %in% list_image_data(), error = function(e) FALSE)
    if (!ok) message("data set ", name, " not found (set MANIFOLDOOS_DATA); part skipped")
    ok
  }
  if ("teapots" %in% parts && have_data("Teapots")) {
    tp <- E$teapots(methods = methods_all)
    print(tp, digits = 4)
    utils::write.csv(tp, file.path(out, "lgrm-teapots.csv"), row.names = FALSE)
  }
  if ("frey" %in% parts && have_data("Frey")) {
    fr <- load_image_data("Frey")
    run_fig5("frey", fr$x / 255, NULL, 1575, seed + 4L, sigma = 100, n_total = 1775)
  }
  if ("timing" %in% parts) {
    # Fig. 5's timing claim: the time to map new points, at a stated size
    # (800 training points of the Fig. 5 roll, 200 and 2000 new points), as
    # the median of --reps runs; each run repeats predict() for at least
    # 0.2 s and divides, since the clock resolves about a millisecond, and
    # times the methods in turn
    reps <- as.integer(opt("reps", "9"))
    d <- swiss_roll(2800, convention = "wittman", seed = seed + 2L)
    Xtr <- d$x[1:800, ]
    fits <- lapply(setNames(methods_fig5, methods_fig5), function(m) {
      p_loc <- if (startsWith(m, "LGRM p=")) as.integer(sub("LGRM p=", "", m, fixed = TRUE)) else 2L
      switch(sub(" p=.*", "", m),
        LGRM = lgrm(Xtr, ndim = 2, k = 10, p = p_loc, sigma = 10, gamma = 1e-4, mu = 1e-5),
        LTSA = ltsa(Xtr, ndim = 2, k = 10), LLE = lle(Xtr, ndim = 2, k = 10),
        Isomap = isomap(Xtr, ndim = 2, k = 10),
        LE = laplacian_eigenmaps(Xtr, ndim = 2, k = 10, on_disconnected = "connect"))
    })
    # every run times each method in turn (the starting method rotates), so
    # that a burst of load on the shared machine falls on all of them alike
    tm <- do.call(rbind, lapply(c(200L, 2000L), function(n_new) {
      Xte <- d$x[800L + seq_len(n_new), ]
      per <- sapply(seq_len(reps), function(i) {
        ord <- c(seq(((i - 1L) %% length(fits)) + 1L, length(fits)), seq_len((i - 1L) %% length(fits)))
        out <- setNames(numeric(length(fits)), names(fits))
        for (j in ord) {
          n <- 0L
          t0 <- proc.time()[["elapsed"]]
          repeat {
            predict(fits[[j]], Xte)
            n <- n + 1L
            el <- proc.time()[["elapsed"]] - t0
            if (el >= 0.2) break
          }
          out[j] <- el / n
        }
        out
      })
      per <- matrix(per, nrow = length(fits), dimnames = list(names(fits), NULL))
      data.frame(method = names(fits), n_train = 800L, n_new = n_new, runs = reps,
                 median_ms = 1000 * apply(per, 1, stats::median), min_ms = 1000 * apply(per, 1, min),
                 max_ms = 1000 * apply(per, 1, max), command = cmd, row.names = NULL)
    }))
    print(tm, digits = 4)
    utils::write.csv(tm, file.path(out, "lgrm-timing.csv"), row.names = FALSE)
  }
  if (nzchar(only_m)) {
    cat(c("", paste("added rows:", cmd, "at", format(Sys.time(), tz = "UTC"))), sep = "\n",
        file = file.path(out, "lgrm-sessioninfo.txt"), append = TRUE)
  } else {
    E$write_info(out, cmd, seed)
  }
}
