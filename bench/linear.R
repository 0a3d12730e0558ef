# Linear projections on COIL-20 (1440 x 1024): lpp, olpp, npe, onpp against
# their Rdimtools counterparts with the same k and target dimension.
# COIL-20 with k = 5 gives a disconnected kNN graph (9 components), so our
# graph methods use on_disconnected = "connect"; Rdimtools does not check.
# Also times spectral_regression() (SR, no Rdimtools counterpart).
coil <- bench_image_data("COIL20")
if (!is.null(coil)) {
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
  tab <- bench_table()
  for (nm in names(cases)) {
    cs <- cases[[nm]]
    fit <- NULL
    user <- system.time(fit <- eval(cs$ours))[["user.self"]]
    t <- bench_time(eval(cs$ours), reps = reps)
    cat(sprintf("  %-5s ours: elapsed %.2f s (median of %d), user %.2f s; solver %s\n", nm, t, reps, user,
                if (is.null(fit$solver$path)) "-" else paste(fit$solver$path, fit$solver$eig_method)))
    tab$add(nm, "manifoldOOS", t)
    if (!is.null(cs$peer) && have("Rdimtools")) {
      tp <- tryCatch(bench_time(suppressWarnings(suppressMessages(eval(cs$peer))), reps = reps),
                     error = function(e) { cat("  ", nm, "Rdimtools failed:", conditionMessage(e), "\n"); NA })
      tab$add(nm, paste0("Rdimtools::do.", nm), tp)
    }
  }
  bench_load()
  bench_report(tab$table())
}
