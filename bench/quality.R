# Quality measures: trustworthiness + continuity (k = 10) and the R_NX curve
# (K <= 100) for n = 10,000 points of a Swiss roll against its 2-D ground
# truth; coRanking (full co-ranking matrix, then R_NX; T and C from its matrix)
# for comparison when installed. Set MO_BENCH_QUICK=1 for n = 3,000.
if (!exists("bench_time")) source(file.path("bench", "common.R"))
suppressPackageStartupMessages(library(manifoldOOS))

n <- if (nzchar(Sys.getenv("MO_BENCH_QUICK"))) 3000L else 10000L
set.seed(42)
u <- stats::runif(n)
tt <- 1.5 * pi * (1 + 2 * u)
hh <- 30 * stats::runif(n)
X <- cbind(tt * cos(tt), hh, tt * sin(tt))   # Swiss roll (rows are points)
Y <- cbind(tt, hh)                            # its 2-D ground truth
k <- 10L
K_max <- 100L

# T and C from a co-ranking matrix (Lee and Verleysen 2009), for the coRanking route
tc_from_Q <- function(Q, K) {
  n <- nrow(Q) + 1
  G <- if (K < n / 2) 2 / (n * K * (2 * n - 3 * K - 1)) else 2 / (n * (n - K) * (n - K - 1))
  kk <- seq_len(nrow(Q))
  low <- kk <= K
  c(T = 1 - G * sum((kk[!low] - K) * Q[!low, low, drop = FALSE]),
    C = 1 - G * sum(sweep(Q[low, !low, drop = FALSE], 2, kk[!low] - K, "*")))
}

rows <- list()
tc <- NULL
case1 <- sprintf("T+C n=%d k=%d", n, k)
t1 <- bench_time(tc <- c(trustworthiness(X, Y, k), continuity(X, Y, k)), reps = 3L)
rows[[length(rows) + 1]] <- data.frame(case = case1, impl = "manifoldOOS", seconds = t1)
r <- NULL
case2 <- sprintf("R_NX K<=%d n=%d", K_max, n)
t2 <- bench_time(r <- rnx(X, Y, K_max = K_max), reps = 3L)
rows[[length(rows) + 1]] <- data.frame(case = case2, impl = "manifoldOOS", seconds = t2)
cat(sprintf("  T(10) = %.6f, C(10) = %.6f, R_NX(10) = %.6f, R_NX(100) = %.6f, AUC(K<=100) = %.6f\n",
            tc[1], tc[2], r[10], r[100], rnx_auc(r)))
if (have("coRanking")) {
  Qc <- NULL
  tq <- bench_time(Qc <- coRanking::coranking(X, Y), reps = 1L)
  tcq <- NULL
  tt2 <- bench_time(tcq <- tc_from_Q(Qc, k), reps = 1L)
  rc <- NULL
  tr <- bench_time(rc <- coRanking::R_NX(Qc), reps = 1L)
  rows[[length(rows) + 1]] <- data.frame(case = case1, impl = "coRanking (Q + T/C)", seconds = tq + tt2)
  rows[[length(rows) + 1]] <- data.frame(case = case2, impl = "coRanking (Q + R_NX)", seconds = tq + tr)
  cat(sprintf("  coRanking: T(10) = %.6f, C(10) = %.6f; max |R_NX difference| (K <= %d) = %.2e\n",
              tcq[1], tcq[2], K_max, max(abs(rc[seq_len(K_max)] - r))))
  rm(Qc)
} else {
  cat("  coRanking not installed: no comparison\n")
}
bench_report(do.call(rbind, rows))
