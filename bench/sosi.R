# SOSI on COIL-20 (1440 images, 32 x 32, unit-norm; labelled ratio ~ 0.11:
# 7 labelled images per object), S-LE embedding d = 25 as in the paper.
# Times one full run (scale selection + 11 progressive rounds) and reports
# the time per round. Needs the shared image data (MANIFOLDOOS_DATA or
# ../shared/data).
cat("load (uptime):", system("uptime", intern = TRUE), "\n")
cat("note: the machine is shared by other jobs; elapsed times grow with the load above.\n")
path <- image_data_path()
if (!nzchar(path) && dir.exists("../shared/data")) path <- "../shared/data"
if (!nzchar(path) || !dir.exists(file.path(path, "COIL20"))) {
  cat("COIL20 not available: skipped.\n")
} else {
  d <- load_image_data("COIL20", path = path)
  X <- d$x / sqrt(rowSums(d$x^2))
  lab <- d$labels
  set.seed(1)
  tr <- unlist(lapply(split(seq_along(lab), lab), function(i) sample(i, 7)))
  cat(sprintf("N = %d labelled, %d unlabelled (ratio %.3f)\n", length(tr), length(lab) - length(tr),
              length(tr) / (length(lab) - length(tr))))
  t_emb <- bench_once(fit <- supervised_le(X[tr, ], lab[tr], ndim = 25))
  cpu0 <- proc.time()
  t_sel <- bench_once(s1 <- sosi(fit, X_unlabeled = X[-tr, ], n_iter = 1))
  t_all <- bench_once(s <- sosi(fit, X_unlabeled = X[-tr, ], labels_unlabeled = lab[-tr]))
  cpu <- proc.time() - cpu0
  n_r <- nrow(s$history)
  cat(sprintf("S-LE embedding: %.2f s\n", t_emb))
  cat(sprintf("SOSI full run: %.2f s elapsed (%d rounds, %d distinct scales); round 1 alone (scale selection + RBF fit): %.2f s\n",
              t_all, n_r, length(unique(s$sigma)), t_sel))
  cat(sprintf("time per progressive round (rounds 2..%d): %.2f s\n", n_r, (t_all - t_sel) / (n_r - 1)))
  cat(sprintf("CPU (user) of both SOSI calls: %.2f s\n", cpu[["user.self"]]))
  print(s$history)
  df <- data.frame(case = "COIL20 SOSI d=25", impl = "manifoldOOS", seconds = t_all)
  cat("peers: no R package implements SOSI (Rdimtools, which has S-LE, cannot be installed on this R 4.2.2).\n")
  bench_report(df)
}
