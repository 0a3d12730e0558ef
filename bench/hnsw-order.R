# The HNSW index built on the rows in their given order against the same
# rows sorted first into a locality order (a Morton code of their coordinates
# on the 3 leading principal axes, 10 bits each), as a candidate change of
# the build: build and self-search seconds, and the recall@15 of the
# self-search against the exact lists on HORDER_Q sampled rows. M = 16,
# ef_construction = 50, ef = 32 (the package's defaults), 2 threads, one
# run each, in this process. Data: the atlas roll (a Swiss roll rotated into
# 50 dimensions, noise sd 0.3; bench/common.R). Run from the package root:
#   HORDER_N=1e6 Rscript bench/run.R hnsw-order
# (HORDER_N, default 2e5; HORDER_Q, default 2000)
if (!exists("bench_child")) source("bench/common.R")
n <- as.numeric(Sys.getenv("HORDER_N", "2e5"))
nq <- as.integer(Sys.getenv("HORDER_Q", "2000"))
X <- rotated_roll(n, 7, noise = 0.3, p = 50L, block = 2e5)$x
set.seed(2)
pc <- stats::prcomp(X[sample(n, min(n, 5000)), ], rank. = 3)
Z <- sweep(X, 2, pc$center) %*% pc$rotation
q <- apply(Z, 2, function(z) as.integer(pmin(1023, floor(1024 * (rank(z, ties.method = "first") - 1) / n))))
morton <- numeric(n)
for (b in 9:0) for (j in 1:3) morton <- morton * 2 + bitwAnd(bitwShiftR(q[, j], b), 1L)
ord <- order(morton)
rm(Z, q, morton)
set.seed(3)
sel <- sample(n, nq)
# exact lists of the sampled rows (the row itself comes first and is dropped)
ex <- knn(X, 16L, query = X[sel, ], method = "exact")$idx[, -1, drop = FALSE]
recall <- function(idx) mean(vapply(seq_along(sel), function(t) length(intersect(idx[t, ], ex[t, ])) / 15, 0))
build_search <- function(Y) {
  b <- system.time(ix <- manifoldOOS:::.mo_hnsw_build(Y, 16L, 50L, 42, 2L))[["elapsed"]]
  s <- system.time(r <- manifoldOOS:::.mo_hnsw_search(ix, NULL, 15L, 32L, 2L))[["elapsed"]]
  list(build = b, search = s, idx = r$idx)
}
a <- build_search(X)
rec_a <- recall(a$idx[sel, , drop = FALSE])
a$idx <- NULL
gc()
o <- build_search(X[ord, ])
back <- matrix(ord[o$idx], nrow(o$idx))  # neighbours as rows of X
rec_o <- recall(back[match(sel, ord), , drop = FALSE])
res <- data.frame(order = c("given", "Morton (3 principal axes)"),
                  build_s = round(c(a$build, o$build), 1), self_search_s = round(c(a$search, o$search), 1),
                  recall_at_15 = round(c(rec_a, rec_o), 5))
res$total_vs_given <- round((res$build_s + res$self_search_s) / (a$build + a$search), 2)
cat(sprintf("\n-- HNSW build order, %s x 50 atlas roll, k = 15, recall on %d rows --\n",
            format(n, big.mark = ",", scientific = FALSE), nq))
print(res, row.names = FALSE)
cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
            format(Sys.time(), tz = "UTC", usetz = TRUE)))
