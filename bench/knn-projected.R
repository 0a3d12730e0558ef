# Exact kNN in many columns: brute force against algorithm = "auto", which
# takes the kd-tree on the leading principal axes when its pilot says so.
# Both return the same lists (checked here with identical()); the table gives
# the path "auto" took and its time as a ratio to brute force, medians of
# KNNP_REPS runs (default 3), 2 threads. Data (2 x 10^4 training rows, 5,000
# query rows, 50 columns): the atlas roll (a Swiss roll rotated into 50
# dimensions, noise sd 0.3; bench/common.R), a 10-dimensional latent Gaussian
# with noise sd 0.1, white Gaussian noise, and Gaussian columns whose
# standard deviations decay as l^-0.7. Run from the package root:
#   Rscript bench/run.R knn-projected
if (!exists("bench_child")) source("bench/common.R")
reps <- as.integer(Sys.getenv("KNNP_REPS", "3"))
n <- 20000L
m <- 5000L
set.seed(1)
G <- matrix(rnorm((n + m) * 50), n + m)
sets <- list(
  roll = rotated_roll(n + m, 7, noise = 0.3, p = 50L)$x,
  latent10 = matrix(rnorm((n + m) * 10), n + m) %*% matrix(rnorm(500), 10) + 0.1 * G,
  gaussian = G,
  decaying = G %*% diag((1:50)^-0.7))
cases <- list(c("roll", "query", 16), c("roll", "query", 151), c("roll", "self", 15),
              c("latent10", "query", 16), c("latent10", "self", 15),
              c("gaussian", "query", 16), c("decaying", "query", 16))
rows <- list()
for (cs in cases) {
  D <- sets[[cs[1]]]
  X <- D[seq_len(n), ]
  Q <- if (cs[2] == "query") D[n + seq_len(m), ] else NULL
  k <- as.integer(cs[3])
  rb <- knn(X, k, query = Q, method = "exact", algorithm = "brute")
  ra <- knn(X, k, query = Q, method = "exact", algorithm = "auto")
  path <- manifoldOOS:::.mo_knn_last_path()
  tb <- bench_time(knn(X, k, query = Q, method = "exact", algorithm = "brute"), reps = reps)
  ta <- bench_time(knn(X, k, query = Q, method = "exact", algorithm = "auto"), reps = reps)
  rows[[length(rows) + 1L]] <- data.frame(
    data = cs[1], search = cs[2], k = k, brute_s = round(tb, 3), auto_s = round(ta, 3),
    auto_over_brute = round(ta / tb, 2), auto_path = path, identical = identical(ra, rb))
}
cat(sprintf("\n-- exact kNN, %s training rows x 50 (query: %s new rows), 2 threads, medians of %d --\n",
            format(n, big.mark = ","), format(m, big.mark = ","), reps))
print(do.call(rbind, rows), row.names = FALSE)
cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
            format(Sys.time(), tz = "UTC", usetz = TRUE)))
