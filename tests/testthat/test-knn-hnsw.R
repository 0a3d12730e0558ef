# Approximate neighbours (HNSW): recall on a fixed data set, determinism,
# canonical distances, self excluded by index, and the exact path unchanged.

hnsw_data <- function(n = 3000, p = 40, seed = 11) {
  set.seed(seed)
  Z <- matrix(stats::rnorm(n * 6), n, 6)
  Z %*% matrix(stats::rnorm(6 * p), 6, p) + 0.3 * matrix(stats::rnorm(n * p), n, p)
}
recall_at <- function(a, b) mean(vapply(seq_len(nrow(a)), function(i) length(intersect(a[i, ], b[i, ])), 0)) / ncol(a)

test_that("HNSW recall@10 >= 0.95 on a fixed data set (self-search and queries)", {
  X <- hnsw_data()
  ex <- knn(X, 10, method = "exact")
  ap <- knn(X, 10, method = "hnsw")
  expect_gte(recall_at(ap$idx, ex$idx), 0.95)
  Q <- hnsw_data(500, seed = 12)
  exq <- knn(X, 10, query = Q, method = "exact")
  apq <- knn(X, 10, query = Q, method = "hnsw")
  expect_gte(recall_at(apq$idx, exq$idx), 0.95)
  # a larger search list never lowers recall on this set
  ap2 <- knn(X, 10, query = Q, method = "hnsw", hnsw_args = list(ef = 200))
  expect_gte(recall_at(ap2$idx, exq$idx), recall_at(apq$idx, exq$idx))
})

test_that("HNSW is reproducible for a seed and identical for any thread count", {
  X <- hnsw_data(2500)
  Q <- hnsw_data(300, seed = 5)
  old <- options(manifoldOOS.hnsw_cache = FALSE)
  on.exit(options(old), add = TRUE)
  a1 <- knn(X, 8, method = "hnsw", n_threads = 1, hnsw_args = list(seed = 3, ef = 20, M = 8))
  a2 <- knn(X, 8, method = "hnsw", n_threads = 2, hnsw_args = list(seed = 3, ef = 20, M = 8))
  a3 <- knn(X, 8, method = "hnsw", n_threads = 2, hnsw_args = list(seed = 3, ef = 20, M = 8))
  expect_identical(a1, a2)
  expect_identical(a2, a3)
  q1 <- knn(X, 8, query = Q, method = "hnsw", n_threads = 1, hnsw_args = list(seed = 3, ef = 20))
  q2 <- knn(X, 8, query = Q, method = "hnsw", n_threads = 2, hnsw_args = list(seed = 3, ef = 20))
  expect_identical(q1, q2)
  # the cache returns the same answers as a fresh build
  options(manifoldOOS.hnsw_cache = TRUE)
  expect_identical(knn(X, 8, query = Q, method = "hnsw", hnsw_args = list(seed = 3, ef = 20)), q1)
  expect_identical(knn(X, 8, query = Q, method = "hnsw", hnsw_args = list(seed = 3, ef = 20)), q1)
})

test_that("HNSW self-search answers each point as the same point asked as a query", {
  # the self-search runs its queries in another order (breadth-first in the
  # graph, for the cache); every answer is that of the point alone
  X <- hnsw_data(2000)
  old <- options(manifoldOOS.hnsw_cache = FALSE)
  on.exit(options(old), add = TRUE)
  s <- knn(X, 8, method = "hnsw", hnsw_args = list(ef = 20))
  q <- knn(X, 9, query = X, method = "hnsw", hnsw_args = list(ef = 20))
  expect_true(all(q$idx[, 1] == seq_len(nrow(X))))
  expect_identical(s$idx, q$idx[, -1])
  expect_identical(s$dist, q$dist[, -1])
})

test_that("HNSW distances are the canonical Euclidean distances, sorted by (distance, index)", {
  X <- hnsw_data(1500, p = 20)
  ap <- knn(X, 7, method = "hnsw")
  ex <- knn(X, 7, method = "exact")
  for (i in c(1, 50, 777, 1500)) {
    d <- sqrt(colSums((t(X[ap$idx[i, ], , drop = FALSE]) - X[i, ])^2))
    expect_equal(ap$dist[i, ], d, tolerance = 1e-14)
  }
  same <- ap$idx == ex$idx
  expect_true(mean(same) > 0.95)
  expect_identical(ap$dist[same], ex$dist[same])
  expect_true(all(t(apply(ap$dist, 1, diff)) >= 0))
})

test_that("HNSW self-search excludes the point by index; duplicates stay at distance 0", {
  X <- hnsw_data(800, p = 20)
  X <- rbind(X, X[1:5, ])                      # rows 801..805 copy rows 1..5
  ap <- knn(X, 5, method = "hnsw")
  expect_false(any(ap$idx == seq_len(nrow(X))))
  expect_identical(ap$idx[1:5, 1], 801:805)
  expect_identical(ap$idx[801:805, 1], 1:5)
  expect_identical(ap$dist[1:5, 1], rep(0, 5))
})

test_that("HNSW with k close to n falls back to the exact answer", {
  X <- hnsw_data(30, p = 18)
  expect_identical(knn(X, 29, method = "hnsw"), knn(X, 29, method = "exact"))
  Q <- hnsw_data(4, p = 18, seed = 2)
  expect_identical(knn(X, 30, query = Q, method = "hnsw"), knn(X, 30, query = Q, method = "exact"))
})

test_that("row names are kept and the cache follows the data", {
  X <- hnsw_data(600, p = 20)
  rownames(X) <- paste0("p", seq_len(nrow(X)))
  ap <- knn(X, 3, method = "hnsw")
  expect_identical(rownames(ap$idx), rownames(X))
  X2 <- X
  X2[1, 1] <- X2[1, 1] + 100                   # another matrix: another index
  b <- knn(X2, 3, method = "hnsw")
  expect_identical(b, knn(X2, 3, method = "exact"))
})

test_that("the exact path is unchanged and \"auto\" is exact below the thresholds", {
  X <- hnsw_data(1000, p = 20)
  Q <- hnsw_data(50, p = 20, seed = 3)
  ref <- knn(X, 6, algorithm = "brute")
  expect_identical(knn(X, 6, method = "exact"), ref)
  expect_identical(knn(X, 6, method = "auto"), ref)
  expect_identical(knn(X, 6, method = "exact", algorithm = "kdtree"), ref)
  expect_identical(knn(X, 6, query = Q, method = "auto"), knn(X, 6, query = Q, algorithm = "kdtree"))
  ns <- asNamespace("manifoldOOS")
  res <- get("resolve_knn_method", envir = ns)
  expect_identical(res("auto", 1e6, 15, 1e6), "exact")      # low dimension: kd-tree
  expect_identical(res("auto", 99999, 100, 1e6), "exact")   # moderate n
  expect_identical(res("auto", 1e6, 100, 100), "exact")     # few queries
  expect_identical(res("auto", 1e5, 16, 1e5), "hnsw")
  expect_identical(res("hnsw", 10, 2, 10), "hnsw")
  expect_identical(res("exact", 1e6, 100, 1e6), "exact")
  # the session option sets the default
  old <- options(manifoldOOS.knn_method = "hnsw")
  on.exit(options(old), add = TRUE)
  expect_identical(knn(X, 6), knn(X, 6, method = "hnsw"))
})

test_that("fits record the search and predict() uses it", {
  X <- hnsw_data(700, p = 20)
  Xn <- hnsw_data(40, p = 20, seed = 9)
  cache <- get("hnsw_cache", envir = asNamespace("manifoldOOS"))
  fe <- laplacian_eigenmaps(X, 2, k = 8)
  expect_identical(fe$params$knn_method, "exact")
  fh <- laplacian_eigenmaps(X, 2, k = 8, knn_method = "hnsw")
  expect_identical(fh$params$knn_method, "hnsw")
  expect_null(getOption("manifoldOOS.knn_method"))   # the fit restored the option
  cache$key <- NULL
  y <- predict(fh, Xn)
  expect_match(cache$key, sprintf(" %d %d ", nrow(X), ncol(X)), fixed = TRUE)
  cache$key <- NULL
  predict(fe, Xn)
  expect_null(cache$key)                               # exact fit: no index built
  # generic rules inherit the fit's search
  fm <- get("generic_map", envir = asNamespace("manifoldOOS"))(fh, "goose", X)
  expect_identical(fm$params$knn_method, "hnsw")
  for (f in list(lle, ltsa, isomap, lgrm, npe, onpp, lpp, olpp, klpp, spectral_regression, nppe, ke_lle)) {
    fit <- suppressWarnings(f(X, 2, k = 8, knn_method = "hnsw"))
    expect_identical(fit$params$knn_method, "hnsw")
  }
  expect_identical(neighbor_graph(X, 5, knn_method = "hnsw")$knn_method, "hnsw")
  expect_identical(oos_map(X, embedding(fe), knn_method = "hnsw")$params$knn_method, "hnsw")
})

test_that("bad method and hnsw_args are classed errors naming the argument", {
  X <- hnsw_data(100, p = 20)
  err_arg <- function(expr) tryCatch(expr, manifoldOOS_input_error = function(e) e$arg)
  expect_identical(err_arg(knn(X, 3, method = "annoy")), "method")
  expect_identical(err_arg(knn(X, 3, method = "hnsw", hnsw_args = list(M = 1))), "hnsw_args$M")
  expect_identical(err_arg(knn(X, 3, method = "hnsw", hnsw_args = list(ef = -1))), "hnsw_args$ef")
  expect_identical(err_arg(knn(X, 3, method = "hnsw", hnsw_args = list(foo = 1))), "hnsw_args")
  expect_identical(err_arg(knn(X, 3, method = "hnsw", hnsw_args = 5)), "hnsw_args")
  expect_identical(err_arg(lle(X, 2, knn_method = "fast")), "knn_method")
  expect_identical(err_arg(oos_map(X, X[, 1:2], knn_method = NA)), "knn_method")
})

test_that("PLML's kNN-graph MST uses the chosen search (HNSW graph passed to the core)", {
  d <- swiss_roll(600, seed = 3)
  # with HNSW at recall 1 (low dimension, re-ranked) the graph, the MST and the fit are the exact ones
  nb_h <- knn(d$x, 15, method = "hnsw")
  expect_identical(nb_h$idx, knn(d$x, 15, method = "exact")$idx)
  fe <- plml(d$x, 2, k = 10, seed = 1, mst_knn = 15, knn_method = "exact")
  fh <- plml(d$x, 2, k = 10, seed = 1, mst_knn = 15, knn_method = "hnsw")
  expect_identical(fh$params$knn_method, "hnsw")
  expect_identical(embedding(fh), embedding(fe))
  # the core reads the graph it is given: a graph of the wrong shape is refused
  ns <- asNamespace("manifoldOOS")
  fit_core <- get(".mo_plml_fit", envir = ns)
  opts <- list(q = 2L, k = 10L, h = 10L, cluster = "constrained", topology = "point_mst", variant = "pp",
               backalign = "rigid", root = 0L, literal_path = FALSE, pivot_origin = FALSE, own_axes = FALSE,
               mst_knn = 15L, n_start = 1L, max_iter = 50L, init = "kmeans++", lloyd_iter = 0L,
               n_candidates = 16L, seed = 1, n_threads = 1L, contiguous = TRUE,
               mst_idx = nb_h$idx[-1, ], mst_dist = nb_h$dist[-1, ])
  expect_error(fit_core(d$x, opts), "MST neighbour graph")
  # and a different graph gives a different tree: a chain along the data's first coordinate
  o <- order(d$x[, 1])
  nxt <- integer(600)
  nxt[o] <- c(o[-1], o[599])
  chain <- matrix(nxt, 600, 15)
  opts$mst_idx <- chain
  opts$mst_dist <- matrix(sqrt(rowSums((d$x - d$x[nxt, ])^2)), 600, 15)
  opts$mst_knn <- 1L
  r_chain <- fit_core(d$x, opts)
  opts$mst_idx <- NULL
  opts$mst_dist <- NULL
  opts$mst_knn <- 15L
  r_exact <- fit_core(d$x, opts)
  expect_false(identical(r_chain$Y, r_exact$Y))
})

test_that("knn_method = \"hnsw\" is in force for the whole fit, not only for its opening checks", {
  # a deliberately poor index (M = 2, ef_construction = 2): its graph differs from the exact one
  old <- options(manifoldOOS.hnsw_args = list(M = 2, ef_construction = 2, ef = 11))
  on.exit(options(old), add = TRUE)
  set.seed(5)
  X <- matrix(rnorm(1500 * 20), 1500)
  expect_false(identical(knn(X, 10, method = "hnsw")$idx, knn(X, 10, method = "exact")$idx))
  for (f in list(laplacian_eigenmaps, ltsa, lle)) {
    fe <- suppressWarnings(f(X, 2, k = 10, knn_method = "exact"))
    fh <- suppressWarnings(f(X, 2, k = 10, knn_method = "hnsw"))
    expect_identical(fh$params$knn_method, "hnsw")
    expect_false(isTRUE(all.equal(embedding(fh), embedding(fe))))
  }
  expect_null(getOption("manifoldOOS.knn_method"))   # restored when each fit returned
})

test_that("the insertion order is a permutation that keeps neighbours together", {
  lo <- manifoldOOS:::.mo_locality_order
  # a 16 x 16 x 16 grid in shuffled rows: consecutive rows of the order are
  # grid neighbours far more often than in the given order
  g <- as.matrix(expand.grid(x = 0:15, y = 0:15, z = 0:15))
  set.seed(4)
  X <- g[sample(nrow(g)), ] %*% qr.Q(qr(matrix(stats::rnorm(9), 3)))
  o <- lo(X)
  expect_identical(sort(o), seq_len(nrow(X)))
  step <- function(ord) mean(sqrt(rowSums(diff(X[ord, ])^2)))
  expect_lt(step(o), 3)
  expect_gt(step(seq_len(nrow(X))), 9)
  # constant data and a single column: the identity and a sort
  expect_identical(lo(matrix(1, 50, 4)), 1:50)
  v <- c(5, 3, 9, 1, 7)
  expect_identical(lo(matrix(v, 5, 1)), order(v))
  # depends on the values, not on the thread count or the row names
  Y <- hnsw_data(2000)
  expect_identical(lo(Y), lo(Y))
})

test_that("HNSW in the locality order agrees with HNSW in row order (recall, distances)", {
  # two builds of the same graph index, inserting the rows in another order:
  # both near-exact, the locality order no worse
  X <- hnsw_data(4000)
  ex <- knn(X, 10, method = "exact")
  run <- function(locality) {
    ix <- manifoldOOS:::.mo_hnsw_build(X, 16L, 50L, 42, 2L, locality)
    manifoldOOS:::.mo_hnsw_search(ix, NULL, 10L, 32L, 2L)
  }
  a <- run(TRUE)
  b <- run(FALSE)
  ra <- recall_at(a$idx, ex$idx)
  rb <- recall_at(b$idx, ex$idx)
  expect_gte(ra, 0.97)
  expect_gte(rb, 0.97)
  expect_gte(ra, rb - 0.01)
  # the bottom layer, read back in rows: at most 2 M links, none to the
  # point itself, and in both orders a list's links are mostly among the
  # point's exact neighbours' neighbourhood (its nearest neighbour is linked)
  for (locality in c(TRUE, FALSE)) {
    L <- manifoldOOS:::.mo_hnsw_links(manifoldOOS:::.mo_hnsw_build(X, 16L, 50L, 42, 2L, locality))
    expect_length(L, nrow(X))
    expect_true(all(lengths(L) >= 1 & lengths(L) <= 32))
    expect_false(any(vapply(seq_along(L), function(i) i %in% L[[i]], TRUE)))
    expect_gte(mean(vapply(seq_along(L), function(i) ex$idx[i, 1] %in% L[[i]], TRUE)), 0.95)
  }
  # the default build is the locality order, and answers in rows
  d <- knn(X, 10, method = "hnsw", hnsw_args = list(ef = 32))
  expect_identical(d$idx, a$idx)
  same <- a$idx == ex$idx
  expect_identical(a$dist[same], ex$dist[same])
})

test_that("HNSW keeps to the sheet of a point: no neighbours across a gap, self-search or queries", {
  # two parallel noisy sheets, 6 apart, in 30 columns: every exact neighbour
  # lies on the point's own sheet, and so must every approximate one (the
  # search enters the graph next to the point in the locality order)
  sheets <- function(n, seed) {
    set.seed(seed)
    s <- rep(0:1, length.out = n)
    Y <- cbind(stats::runif(n, 0, 40), stats::runif(n, 0, 40), 6 * s)
    list(x = cbind(Y, matrix(0, n, 27)) + 0.25 * matrix(stats::rnorm(n * 30), n, 30), s = s)
  }
  tr <- sheets(20000, 1)
  te <- sheets(2000, 2)
  ex <- knn(tr$x, 10, method = "exact")
  expect_true(all(tr$s[ex$idx] == tr$s))
  ap <- knn(tr$x, 10, method = "hnsw", hnsw_args = list(ef = 12))
  expect_true(all(tr$s[ap$idx] == tr$s))
  aq <- knn(tr$x, 10, query = te$x, method = "hnsw", hnsw_args = list(ef = 12))
  expect_true(all(tr$s[aq$idx] == te$s))
})
