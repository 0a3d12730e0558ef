# Out-of-sample maps.
# (a) Sparse-coding OOS at the size of Raducanu & Dornaika's Table 4:
#     N = 1241 training samples, D = 200 (unit norm), L = 1200 embedding
#     columns; time per new point single-threaded (homotopy, lockstep), with
#     exactness: certificates and, when lpSolve is installed, the LP objective
#     on a few points. The paper reports 840 ms per point (MATLAB, l1-magic).
# (b) GOoSE and LVM placing 100,000 new points (d = 3) on a 2-D embedding of
#     N = 5000 training points (kNN included), all threads.
quick <- nzchar(Sys.getenv("MO_BENCH_QUICK"))

# ---- (a) sparse coding ----------------------------------------------------------
set.seed(42)
N <- 1241L; D <- 200L; L <- 1200L; m <- if (quick) 40L else 200L
ncl <- 28L
centres <- matrix(stats::rnorm(ncl * D), ncl)
cl <- rep_len(seq_len(ncl), N)
X <- centres[cl, ] + 0.7 * matrix(stats::rnorm(N * D), N)
X <- X / sqrt(rowSums(X^2))
Q <- centres[sample(ncl, m, TRUE), ] + 0.7 * matrix(stats::rnorm(m * D), m)
Q <- Q / sqrt(rowSums(Q^2))
Y <- matrix(stats::rnorm(N * L), N)
map <- oos_map(X, Y, method = "sparse")
yq <- NULL
t_batch <- bench_time(yq <- predict(map, Q, n_threads = 1), reps = 3)
t_one <- bench_time(for (i in 1:5) predict(map, Q[i, , drop = FALSE], n_threads = 1), reps = 3) / 5
cd <- l1_code(X, Q, n_threads = 1)
cat(sprintf("  (a) sparse OOS N=%d D=%d L=%d: %.2f ms per point in a batch of %d (1 thread); %.2f ms for a single point\n",
            N, D, L, 1000 * t_batch / m, m, 1000 * t_one))
cat(sprintf("      homotopy: certified %d/%d, ADMM fallbacks %d, steps median %d (range %d-%d), |support| median %d\n",
            sum(cd$certified), m, sum(cd$fallback), as.integer(stats::median(cd$steps)),
            min(cd$steps), max(cd$steps), as.integer(stats::median(rowSums(cd$a != 0) + rowSums(cd$e != 0)))))
cat(sprintf("      max dual infeasibility %.2e, max relative duality gap %.2e, max residual %.2e\n",
            max(cd$dual_max - 1), max(cd$gap / cd$objective), max(cd$residual)))
if (have("lpSolve")) {
  nlp <- if (quick) 1L else 3L
  lp <- l1_code(X, Q[seq_len(nlp), , drop = FALSE], solver = "lp")
  cat(sprintf("      vs lpSolve on %d points: max relative objective difference %.2e\n", nlp,
              max(abs(lp$objective - cd$objective[seq_len(nlp)]) / lp$objective)))
}
t_admm <- bench_time(l1_code(X, Q[1:8, ], solver = "admm", n_threads = 1), reps = 1) / 8
cat(sprintf("      batched ADMM (8 points, 1 thread): %.1f ms per point\n", 1000 * t_admm))

# ---- (b) GOoSE and LVM: 100,000 new points ---------------------------------------
roll <- swiss_roll(5000, seed = 1)
Xtr <- roll$x
Ytr <- roll$truth
nq <- if (quick) 20000L else 100000L
set.seed(3)
newp <- swiss_roll(nq, seed = 2)$x
rows <- list()
for (meth in c("goose", "lvm")) {
  mp <- oos_map(Xtr, Ytr, method = meth, k = if (meth == "goose") 10 else 3)
  tt <- bench_time(predict(mp, newp), reps = 3)
  rows[[length(rows) + 1]] <- data.frame(case = sprintf("(b) %s, %d new points, N=5000, d=3", meth, nq),
                                         impl = "manifoldOOS", seconds = tt)
}
bench_report(do.call(rbind, rows))
