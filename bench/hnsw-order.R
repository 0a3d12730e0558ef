# The HNSW index built on the rows in their given order against the same
# rows inserted in the package's locality order (the default since the index
# sorts them itself: a Morton code of their coordinates on the 3 leading
# principal axes; inst/include/manifoldOOS/blocks/locality_order.h): build
# and self-search seconds, and the recall@15 of the self-search against the
# exact lists on HORDER_Q sampled rows; on the roll also the neighbours that
# lie on another sheet of it (more than 1 apart in its parameter), in the
# graph and in the answers. M = 16, ef_construction = 50,
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
tt <- NULL
X <- switch(what,
  roll = {
    d <- rotated_roll(n, 7, noise = 0.3, p = 50L, block = 2e5)
    tt <- d$t
    d$x
  },
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
  # on the roll: neighbours more than 1 apart in the roll parameter t lie on
  # another sheet (an exact list has none), in the graph's bottom layer and
  # in the search's answers
  across <- c(graph = NA, lists = NA, rows = NA)
  if (!is.null(tt)) {
    L <- manifoldOOS:::.mo_hnsw_links(ix)
    across[["graph"]] <- sum(abs(tt[unlist(L)] - tt[rep(seq_len(n), lengths(L))]) > 1)
    rm(L)
    far <- matrix(abs(tt[r$idx] - tt[rep(seq_len(n), ncol(r$idx))]) > 1, n)
    across[["lists"]] <- sum(far)
    across[["rows"]] <- sum(rowSums(far) > 0)
  }
  rm(ix)
  gc()
  list(build = b, search = s, idx = r$idx, across = across)
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
res$total_vs_given <- round(c(1, (o$build + o$search) / (a$build + a$search)), 2)
if (!is.null(tt)) {
  res$graph_links_across <- c(a$across[["graph"]], o$across[["graph"]])
  res$answers_across <- c(a$across[["lists"]], o$across[["lists"]])
  res$rows_with_any <- c(a$across[["rows"]], o$across[["rows"]])
}
cat(sprintf("\n-- HNSW build order, %s x %d %s data, k = 15, recall on %d rows --\n",
            format(n, big.mark = ",", scientific = FALSE), ncol(X), what, nq))
print(res, row.names = FALSE)
cat(sprintf("commit %s, %s\n", tryCatch(system("git rev-parse --short HEAD", intern = TRUE), error = function(e) "?"),
            format(Sys.time(), tz = "UTC", usetz = TRUE)))
