# Linear projections on COIL-20 (1440 x 1024): lpp, olpp, npe, onpp against
# their Rdimtools counterparts with the same k and target dimension.
# COIL-20 with k = 5 gives a disconnected kNN graph (9 components), so our
# graph methods use on_disconnected = "connect"; Rdimtools does not check.
# Also times spectral_regression() (SR, no Rdimtools counterpart).
data_dirs <- c(image_data_path(), "../shared/data",
               file.path(get0("bench_dir", ifnotfound = "bench"), "..", "..", "shared", "data"))
data_dirs <- data_dirs[nzchar(data_dirs) & dir.exists(data_dirs)]
coil <- NULL
for (dd in data_dirs) {
  coil <- tryCatch(load_image_data("COIL20", path = dd), error = function(e) NULL)
  if (!is.null(coil)) break
}
if (is.null(coil)) {
  cat("  COIL20 not available (set options(manifoldOOS.data =) or MANIFOLDOOS_DATA); skipped\n")
} else {
  X <- coil$x
  ndim <- 10L
  k <- 5L
  reps <- as.integer(Sys.getenv("MO_BENCH_REPS", "3"))
  cat(sprintf("  data: %d x %d, ndim = %d, k = %d, reps = %d\n", nrow(X), ncol(X), ndim, k, reps))
  sig <- manifoldOOS:::pairwise_scale(X, "mean_pairwise")
  cases <- list(
    lpp = list(ours = quote(lpp(X, ndim, k = k, on_disconnected = "connect", min_beta = 0)),
               peer = quote(Rdimtools::do.lpp(X, ndim = ndim, type = c("knn", k), t = 2 * sig^2))),
    olpp = list(ours = quote(olpp(X, ndim, k = k, on_disconnected = "connect", min_beta = 0)),
                peer = quote(Rdimtools::do.olpp(X, ndim = ndim, type = c("knn", k), t = 2 * sig^2))),
    npe = list(ours = quote(npe(X, ndim, k = k)),
               peer = quote(Rdimtools::do.npe(X, ndim = ndim, type = c("knn", k)))),
    onpp = list(ours = quote(onpp(X, ndim, k = k)),
                peer = quote(Rdimtools::do.onpp(X, ndim = ndim, type = c("knn", k)))),
    sr = list(ours = quote(spectral_regression(X, ndim, k = k, on_disconnected = "connect")),
              peer = NULL)
  )
  rdimtools_note()
  rows <- list()
  for (nm in names(cases)) {
    cs <- cases[[nm]]
    fit <- NULL
    user <- system.time(fit <- eval(cs$ours))[["user.self"]]
    t <- bench_time(eval(cs$ours), reps = reps)
    cat(sprintf("  %-5s ours: elapsed %.2f s (median of %d), user %.2f s; solver %s\n", nm, t, reps, user,
                if (is.null(fit$solver$path)) "-" else paste(fit$solver$path, fit$solver$eig_method)))
    rows[[length(rows) + 1]] <- data.frame(case = nm, impl = "manifoldOOS", seconds = t)
    if (!is.null(cs$peer) && have("Rdimtools")) {
      tp <- tryCatch(bench_time(suppressWarnings(suppressMessages(eval(cs$peer))), reps = reps),
                     error = function(e) { cat("  ", nm, "Rdimtools failed:", conditionMessage(e), "\n"); NA })
      rows[[length(rows) + 1]] <- data.frame(case = nm, impl = paste0("Rdimtools::do.", nm), seconds = tp)
    }
  }
  bench_load()
  bench_report(do.call(rbind, rows))
}
