# The HNSW index built on the rows in their given order against the same
# rows inserted in the package's locality order (the default since the index
# sorts them itself: a Morton code of their coordinates on the 3 leading
# principal axes; inst/include/manifoldOOS/blocks/locality_order.h): build
# and self-search seconds, and the recall@15 of the self-search against the
# exact lists on HORDER_Q sampled rows. M = 16, ef_construction = 50,
# ef = 32 (the package's defaults), 2 threads, one run each, in this
# process. Data: the atlas roll (a Swiss roll rotated into 50 dimensions,
# noise sd 0.3; bench/common.R) or, with HORDER_DATA=gauss, a 10-dimensional
# latent Gaussian in 50 columns with noise sd 0.5. Run from the package root:
#   HORDER_N=1e6 Rscript bench/run.R hnsw-order
# (HORDER_N, default 2e5; HORDER_Q, default 2000)
if (!exists("bench_child")) source("bench/common.R")
n <- as.numeric(Sys.getenv("HORDER_N", "2e5"))
nq <- as.integer(Sys.getenv("HORDER_Q", "2000"))
what <- Sys.getenv("HORDER_DATA", "roll")
X <- switch(what,
  roll = rotated_roll(n, 7, noise = 0.3, p = 50L, block = 2e5)$x,
  gauss = {
    set.seed(7)
    Z <- matrix(stats::rnorm(n * 10), n, 10)
    Z %*% matrix(stats::rnorm(500), 10, 50) + 0.5 * matrix(stats::rnorm(n * 50), n, 50)
  },
  stop("HORDER_DATA must be roll or gauss"))
n <- nrow(X)
set.seed(3)
sel <- sample(n, nq)
# exact lists of the sampled rows (the row itself comes first and is dropped)
ex <- knn(X, 16L, query = X[sel, ], method = "exact")$idx[, -1, drop = FALSE]
recall <- function(idx) mean(vapply(seq_along(sel), function(t) length(intersect(idx[t, ], ex[t, ])) / 15, 0))
build_search <- function(locality) {
  b <- system.time(ix <- manifoldOOS:::.mo_hnsw_build(X, 16L, 50L, 42, 2L, locality))[["elapsed"]]
  s <- system.time(r <- manifoldOOS:::.mo_hnsw_search(ix, NULL, 15L, 32L, 2L))[["elapsed"]]
  list(build = b, search = s, idx = r$idx)
}
a <- build_search(FALSE)
rec_a <- recall(a$idx[sel, , drop = FALSE])
a$idx <- NULL
gc()
o <- build_search(TRUE)
rec_o <- recall(o$idx[sel, , drop = FALSE])
res <- data.frame(order = c("given", "locality (the default)"),
                  build_s = round(c(a$build, o$build), 1), self_search_s = round(c(a$search, o$search), 1),
                  recall_at_15 = round(c(rec_a, rec_o), 5))
res$total_vs_given <- round((res$build_s + res$self_search_s) / (a$build + a$search), 2)
cat(sprintf("\n-- HNSW build order, %s x %d %s data, k = 15, recall on %d rows --\n",
            format(n, big.mark = ",", scientific = FALSE), ncol(X), what, nq))
print(res, row.names = FALSE)
cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
            format(Sys.time(), tz = "UTC", usetz = TRUE)))
