# Full-size reproduction of Qiao, Zhang, Wang & Zhang, "An explicit nonlinear
# mapping for manifold learning", experiments E1-E6.
#
# Usage (from the package root, with the package installed):
#   Rscript inst/experiments/nppe.R [output_dir]
# output_dir defaults to inst/experiments/results. Image sets are read with
# load_image_data() (option manifoldOOS.data, MANIFOLDOOS_DATA or
# ../shared/data); E5/E6 are skipped when they are absent.
# Writes nppe_e1.csv, nppe_e23.csv, nppe_e4.csv, nppe_images.csv,
# nppe_image_times.csv and nppe_session.txt (command, seed, sessionInfo()).
suppressPackageStartupMessages(library(manifoldOOS))
args <- commandArgs(trailingOnly = TRUE)
out_dir <- if (length(args)) args[1] else file.path("inst", "experiments", "results")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
seed <- 7L
reps <- 5L
t_start <- Sys.time()
load_line <- system("uptime", intern = TRUE)

# residual variance 1 - R^2 between the pairwise distances of Y and of Z
# (Tenenbaum et al. 2000), via the package's residual_variance().
rho <- function(Y, Z) residual_variance(NULL, Y, distances = dist(Z))
std <- function(Z) scale(Z)
# median over `reps` repeats of the time of one evaluation; each repeat runs
# the expression as many times as it takes to fill at least `min_s` seconds
# (the clock resolves about 1 ms, and an explicit map places thousands of
# points in less), and divides
med_time <- function(expr, reps, min_s = 0.2) {
  e <- substitute(expr)
  env <- parent.frame()
  stats::median(vapply(seq_len(reps), function(i) {
    n <- 0L
    t0 <- proc.time()[["elapsed"]]
    repeat {
      eval(e, env)
      n <- n + 1L
      el <- proc.time()[["elapsed"]] - t0
      if (el >= min_s) break
    }
    el / n
  }, numeric(1)))
}
# the same for several expressions at once (a named list of functions without
# arguments): each repeat times every one of them in turn, so that a burst of
# load on the shared machine falls on all of them alike; the median per name
med_times <- function(fns, reps, min_s = 0.2) {
  per <- sapply(seq_len(reps), function(i) {
    ord <- c(seq(((i - 1L) %% length(fns)) + 1L, length(fns)), seq_len(((i - 1L) %% length(fns))))
    out <- setNames(numeric(length(fns)), names(fns))
    for (j in ord) {
      n <- 0L
      t0 <- proc.time()[["elapsed"]]
      repeat {
        fns[[j]]()
        n <- n + 1L
        el <- proc.time()[["elapsed"]] - t0
        if (el >= min_s) break
      }
      out[j] <- el / n
    }
    out
  })
  setNames(apply(matrix(per, nrow = length(fns)), 1, stats::median), names(fns))
}

# ---- E1: SwissRoll, SwissHole, Gaussian (Fig. 1) -----------------------------
surfaces <- list(
  SwissRoll = swiss_roll(1000, convention = "wittman", seed = seed),
  SwissHole = swiss_roll(1000, hole = TRUE, hole_convention = "wittman", seed = seed),
  Gaussian = gaussian_surface(1000, seed = seed)
)
e1 <- list()
for (nm in names(surfaces)) {
  d <- surfaces[[nm]]
  fits <- list(
    SNPPE = embedding(nppe(d$x, 2, k = 10, degree = 2)),
    `SNPPE literal` = embedding(nppe(d$x, 2, k = 10, degree = 2, center = FALSE, scale = "none")),
    `NPPE full p=2` = embedding(nppe(d$x, 2, k = 10, degree = 2, basis = "full")),
    `NPPE full p=3` = embedding(nppe(d$x, 2, k = 10, degree = 3, basis = "full")),
    LLE = embedding(lle(d$x, 2, k = 10, eigen_solver = "sparse")),
    NPP = embedding(npp(d$x, 2, k = 10)),
    ONPP = embedding(onpp(d$x, 2, k = 10))
  )
  for (m in names(fits)) {
    e1[[length(e1) + 1L]] <- data.frame(data = nm, method = m, rho = rho(fits[[m]], d$truth),
                                        rho_std = rho(fits[[m]], std(d$truth)))
  }
}
e1 <- do.call(rbind, e1)
write.csv(e1, file.path(out_dir, "nppe_e1.csv"), row.names = FALSE)
print(e1, digits = 3)

# ---- E2/E3: locating 1000 new samples (Figs. 2-3) ----------------------------
split_fit <- function(d, train, test, label) {
  Xtr <- d$x[train, ]
  Xte <- d$x[test, ]
  Ztr <- d$truth[train, ]
  Zte <- d$truth[test, ]
  fits <- list(SNPPE = nppe(Xtr, 2, k = 10), NPP = npp(Xtr, 2, k = 10), ONPP = onpp(Xtr, 2, k = 10),
               `KE (stand-in)` = ke_lle(Xtr, 2, k = 10))
  do.call(rbind, lapply(names(fits), function(m) {
    f <- fits[[m]]
    Yte <- predict(f, Xte)
    data.frame(data = label, method = m, rho_train = rho(embedding(f), Ztr), rho_test = rho(Yte, Zte),
               rho_all = rho(rbind(embedding(f), Yte), rbind(Ztr, Zte)),
               fit_s = f$fit_time, predict_s = med_time(predict(f, Xte), reps))
  }))
}
even <- swiss_roll_grid(100, 20)
set.seed(seed)
perm <- sample.int(2000)
e23 <- rbind(split_fit(even, perm[1:1000], perm[1001:2000], "even roll (2000 grid)"),
             {
               r2 <- swiss_roll(2000, convention = "wittman", seed = seed)
               split_fit(r2, 1:1000, 1001:2000, "random roll (2000)")
             })
write.csv(e23, file.path(out_dir, "nppe_e23.csv"), row.names = FALSE)
print(e23, digits = 3)

# ---- E4: 1000 training, up to 10,000 test points (Fig. 4) ---------------------
r11 <- swiss_roll(11000, convention = "wittman", seed = seed)
tr <- 1:1000
Xtr <- r11$x[tr, ]
fits <- list(SNPPE = nppe(Xtr, 2, k = 10), NPP = npp(Xtr, 2, k = 10), ONPP = onpp(Xtr, 2, k = 10),
             `KE (stand-in)` = ke_lle(Xtr, 2, k = 10))
grid <- seq(0, 10000, by = 1000)
set.seed(seed + 1L)
e4 <- list()
# the times of the four maps at each size, interleaved (med_times)
times4 <- lapply(grid, function(nt) {
  if (nt == 0) return(setNames(numeric(length(fits)), names(fits)))
  Xte <- r11$x[1000 + seq_len(nt), , drop = FALSE]
  med_times(lapply(fits, function(f) function() predict(f, Xte)), reps)
})
for (m in names(fits)) {
  f <- fits[[m]]
  for (nt in grid) {
    if (nt == 0) {
      Y <- embedding(f)
      Z <- r11$truth[tr, ]
      tm <- 0
    } else {
      Xte <- r11$x[1000 + seq_len(nt), , drop = FALSE]
      Yte <- predict(f, Xte)
      tm <- times4[[match(nt, grid)]][[m]]
      # rho on the mapped test points (a fixed random subsample of at most
      # 2000 of them: the distance matrix of 10,000 points needs 800 MB)
      sub <- if (nt > 2000) sort(sample.int(nt, 2000)) else seq_len(nt)
      Y <- Yte[sub, , drop = FALSE]
      Z <- r11$truth[1000 + sub, ]
    }
    e4[[length(e4) + 1L]] <- data.frame(method = m, n_test = nt, rho = rho(Y, Z), predict_s = tm,
                                        timer = "repeated to 0.2 s, methods interleaved")
  }
}
e4 <- do.call(rbind, e4)
write.csv(e4, file.path(out_dir, "nppe_e4.csv"), row.names = FALSE)
print(e4, digits = 3)

# ---- E5/E6: Frey faces and USPS zeros (Figs. 5-7) -----------------------------
find_set <- function(name) {
  dirs <- c(image_data_path(), "../shared/data", file.path("..", "..", "shared", "data"))
  for (dd in dirs[nzchar(dirs) & dir.exists(dirs)]) {
    s <- tryCatch(load_image_data(name, path = dd), error = function(e) NULL)
    if (!is.null(s)) return(s)
  }
  NULL
}
# ink (mean intensity; tracks line width) and bounding-box aspect (shape) of a
# digit image, the two degrees of freedom the paper names for usps-0
digit_params <- function(x, dim) {
  t(apply(x, 1, function(v) {
    img <- matrix(v, dim[1], dim[2])
    on <- which(img > 0.5 * max(img), arr.ind = TRUE)
    c(ink = mean(v) / 255, aspect = diff(range(on[, 2]) + c(0, 1)) / diff(range(on[, 1]) + c(0, 1)))
  }))
}
img_rows <- list()
img_times <- list()
image_experiment <- function(set, label, n_train, n_test, k, methods) {
  set.seed(seed)
  idx <- sample.int(nrow(set$x), n_train + n_test)
  tr <- idx[seq_len(n_train)]
  te <- idx[n_train + seq_len(n_test)]
  X <- set$x / 255
  res <- list()
  fits <- list()
  for (m in names(methods)) {
    t0 <- proc.time()[["elapsed"]]
    f <- methods[[m]](X[tr, ], k)
    fit_s <- proc.time()[["elapsed"]] - t0
    Yte <- predict(f, X[te, ])
    # train/test consistency: distance of a test point's image to the mean
    # image of its 5 nearest training points (in pixel space), relative to
    # the spread of the training embedding
    nb <- knn(X[tr, ], 5, query = X[te, ])
    Ynb <- apply(nb$idx, 1, function(r) colMeans(embedding(f)[r, , drop = FALSE]))
    cons <- sqrt(mean(rowSums((Yte - t(Ynb))^2))) / sqrt(mean(rowSums(sweep(embedding(f), 2, colMeans(embedding(f)))^2)))
    fits[[m]] <- f
    row <- data.frame(data = label, method = m, n_train = n_train, n_test = n_test, k = k,
                      fit_s = fit_s, predict_all_s = NA_real_, test_consistency = cons)
    if (!is.null(set$params_truth)) {
      P <- set$params_truth[te, ]
      for (p in colnames(P)) {
        row[[paste0("spearman_", p)]] <- max(abs(cor(Yte, P[, p], method = "spearman")))
      }
    }
    res[[m]] <- row
  }
  # mapping times, the methods interleaved (med_times)
  for (nt in seq(0, n_test, length.out = 11)) {
    tm <- if (nt == 0) setNames(numeric(length(fits)), names(fits)) else
      med_times(lapply(fits, function(f) function() predict(f, X[te[seq_len(nt)], , drop = FALSE])), reps)
    for (m in names(fits)) {
      img_times[[length(img_times) + 1L]] <<- data.frame(data = label, method = m, n_test = nt, seconds = tm[[m]],
                                                         timer = "repeated to 0.2 s, methods interleaved")
      if (nt == n_test) res[[m]]$predict_all_s <- tm[[m]]
    }
  }
  do.call(rbind, res)
}
# SNPPE without and with the coefficient ridge (a penalty on the coefficients)
snppe_ridge_methods <- function(ridges = c(1e-8, 1e-6, 1e-4, 1e-2)) {
  fs <- lapply(ridges, function(r) { force(r); function(X, k) nppe(X, 2, k = k, ridge = r) })
  names(fs) <- sprintf("SNPPE ridge %s", sub("e-0", "e-", format(ridges)))
  c(list(SNPPE = function(X, k) nppe(X, 2, k = k)), fs)
}
frey <- find_set("Frey")
if (!is.null(frey)) {
  img_rows[[length(img_rows) + 1L]] <- image_experiment(frey, "Frey (lleface)", 1500, 400, 15, c(
    snppe_ridge_methods(),
    list(NPP = function(X, k) npp(X, 2, k = k), `KE (stand-in)` = function(X, k) ke_lle(X, 2, k = k))))
}
usps <- find_set("USPS")
if (!is.null(usps)) {
  zeros <- which(usps$labels == 0)[1:765]   # the first 765 zeros
  z <- list(x = usps$x[zeros, ], image_dim = usps$image_dim)
  z$params_truth <- digit_params(z$x, z$image_dim)
  img_rows[[length(img_rows) + 1L]] <- image_experiment(z, "USPS zeros (usps-0)", 600, 150, 5, c(
    snppe_ridge_methods(),
    list(ONPP = function(X, k) onpp(X, 2, k = k), `KE (stand-in)` = function(X, k) ke_lle(X, 2, k = k))))
}
if (length(img_rows)) {
  cols <- unique(unlist(lapply(img_rows, names)))
  img <- do.call(rbind, lapply(img_rows, function(d) { d[setdiff(cols, names(d))] <- NA; d[cols] }))
  write.csv(img, file.path(out_dir, "nppe_images.csv"), row.names = FALSE)
  write.csv(do.call(rbind, img_times), file.path(out_dir, "nppe_image_times.csv"), row.names = FALSE)
  print(img, digits = 3)
} else {
  message("image data not found: E5/E6 skipped")
}

writeLines(c(
  "command: Rscript inst/experiments/nppe.R",
  sprintf("seed: %d; timing: median of %d repeats, each repeating the call for at least 0.2 s, the methods timed in turn within each repeat", seed, reps),
  sprintf("started %s, took %.0f s", format(t_start), as.numeric(difftime(Sys.time(), t_start, units = "secs"))),
  paste("load at start:", load_line),
  paste("threads:", manifoldOOS::max_threads()),
  "", capture.output(sessionInfo())), file.path(out_dir, "nppe_session.txt"))
