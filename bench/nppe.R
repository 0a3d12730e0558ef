# NPPE / SNPPE (Qiao et al.). Targets (machine shared with other jobs,
# see the load line):
#   * SNPPE fit on a Swiss roll with n = 10,000: < 2 s;
#   * predict() of 1,000,000 points: < 2 s;
#   * Frey faces (1965 x 560), degree-2 Hadamard fit: < 10 s;
#   * KE (stand-in) predict time >= 10x SNPPE's at 10,000 test points.
# No R package implements NPPE (Rdimtools, which has no NPPE either, cannot be
# installed on this R 4.2.2), so the peers are our own NPP / ONPP / LLE / KE.
cat("  load:", system("uptime", intern = TRUE), "\n")
reps <- as.integer(Sys.getenv("MO_BENCH_REPS", "3"))
tab <- bench_table()
add <- tab$add

# 1. fit, n = 10,000
roll <- swiss_roll(10000, convention = "wittman", seed = 1)
t_fit <- bench_time(nppe(roll$x, ndim = 2, k = 10), reps = reps)
cat(sprintf("  SNPPE fit, Swiss roll n = 10,000, k = 10, p = 2: %.3f s (target < 2 s)\n", t_fit))
add("fit n=10000", "manifoldOOS", t_fit)
add("fit n=10000", "npe() (linear, same weights)", bench_time(npe(roll$x, ndim = 2, k = 10), reps = reps))
add("fit n=10000", "lle() (no explicit map)", bench_time(lle(roll$x, ndim = 2, k = 10), reps = 1L))
if (have("dimRed") && have("lle")) {
  add("fit n=10000", "dimRed LLE", bench_once(suppressMessages(
    dimRed::embed(roll$x, "LLE", knn = 10, ndim = 2, .mute = c("message", "output")))))
} else {
  cat("  dimRed's LLE needs the 'lle' package (not installed): no external LLE peer\n")
}

# 2. predict 1,000,000 points
fit <- nppe(roll$x[1:1000, ], ndim = 2, k = 10)
big <- swiss_roll(1e6, convention = "wittman", seed = 2)$x
t_pred <- bench_time(predict(fit, big), reps = reps)
cat(sprintf("  SNPPE predict, 1,000,000 points: %.3f s (target < 2 s)\n", t_pred))
add("predict 1e6", "manifoldOOS", t_pred)
add("predict 1e6", "manifoldOOS, 1 thread", bench_time(predict(fit, big, n_threads = 1), reps = reps))
fit_full3 <- nppe(roll$x[1:1000, ], ndim = 2, k = 10, basis = "full", degree = 3)
add("predict 1e6", "full basis, degree 3 (19 features)", bench_time(predict(fit_full3, big), reps = reps))
fnpp <- npp(roll$x[1:1000, ], ndim = 2, k = 10)
add("predict 1e6", "npp() linear map", bench_time(predict(fnpp, big), reps = reps))
rm(big)

# 3. Frey faces
frey <- bench_image_data("Frey")
if (!is.null(frey)) {
  Xf <- frey$x / 255
  ff <- NULL
  t_frey <- bench_time(ff <- nppe(Xf, ndim = 2, k = 15), reps = 1L)
  cat(sprintf("  SNPPE fit, Frey %d x %d, k = 15, p = 2 (q = %d): %.2f s (target < 10 s); solver %s/%s\n",
              nrow(Xf), ncol(Xf), ff$n_features_poly, t_frey, ff$solver$path, ff$solver$eig_method))
  add("fit Frey", "manifoldOOS", t_frey)
  add("fit Frey", "ridge = 1e-6", bench_time(nppe(Xf, ndim = 2, k = 15, ridge = 1e-6), reps = 1L))
  add("fit Frey", "npe() (linear)", bench_time(npe(Xf, ndim = 2, k = 15), reps = 1L))
}

# 4. time to map 10,000 test points (1000 training), KE vs SNPPE vs NPP/ONPP
r11 <- swiss_roll(11000, convention = "wittman", seed = 3)
tr <- r11$x[1:1000, ]
te <- r11$x[1001:11000, ]
fs <- nppe(tr, 2, 10)
fk <- ke_lle(tr, 2, 10)
fo <- onpp(tr, 2, 10)
fp <- npp(tr, 2, 10)
# SNPPE needs about a millisecond: time 20 calls at once for resolution
t_s <- bench_time(for (i in 1:20) predict(fs, te), reps = 5L) / 20
t_k <- bench_time(predict(fk, te), reps = 5L)
add("predict 10,000 (1000 train)", "manifoldOOS", t_s)
add("predict 10,000 (1000 train)", "KE stand-in (ke_lle)", t_k)
add("predict 10,000 (1000 train)", "NPP", bench_time(for (i in 1:20) predict(fp, te), reps = 5L) / 20)
add("predict 10,000 (1000 train)", "ONPP", bench_time(for (i in 1:20) predict(fo, te), reps = 5L) / 20)
cat(sprintf("  predict 10,000 test points: SNPPE %.2f ms, KE stand-in %.1f ms: KE / SNPPE = %.0fx (target >= 10x)\n",
            1e3 * t_s, 1e3 * t_k, t_k / t_s))
bench_report(tab$table())
