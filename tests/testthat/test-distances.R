# Distances given by the user (a `dist` object, or metric = "precomputed"):
# knn(), neighbor_graph(), isomap(), mds(), laplacian_eigenmaps(),
# diffusion_map() and their predict().

dd_roll <- swiss_roll(260, seed = 11)
dd_X <- dd_roll$x[1:200, ]
dd_Q <- dd_roll$x[201:260, ]
dd_cross <- function(A, B) {
  # exact Euclidean cross distances (row by row, no cancellation)
  t(apply(A, 1L, function(a) sqrt(colSums((t(B) - a)^2))))
}
dd_DQ <- dd_cross(dd_Q, dd_X)
# the coordinates alone (no names, no attributes of the rule)
dd_plain <- function(y) {
  y <- unname(as.matrix(y))
  attributes(y) <- list(dim = dim(y))
  y
}

# Every fit that takes distances, as a pair: on coordinates and on dist().
dd_fits <- list(
  isomap = function(X) isomap(X, ndim = 2, k = 8),
  isomap_landmark = function(X) isomap(X, ndim = 2, k = 8, landmarks = 40, seed = 3),
  mds = function(X) mds(X, ndim = 3),
  le_knn = function(X) laplacian_eigenmaps(X, ndim = 2, k = 8),
  le_eps = function(X) laplacian_eigenmaps(X, ndim = 2, graph = "eps", eps = 8),
  le_symmetric_binary = function(X) laplacian_eigenmaps(X, ndim = 2, k = 8, weights = "binary",
                                                        laplacian = "symmetric"),
  diffusion_dense = function(X) diffusion_map(X, ndim = 2, t = 1),
  diffusion_knn = function(X) diffusion_map(X, ndim = 2, kernel = "knn", kernel_k = 60),
  diffusion_pairwise = function(X) diffusion_map(X, ndim = 2, bandwidth = "median_pairwise")
)

test_that("knn() of distances equals knn() of the coordinates, ties broken by index", {
  a <- knn(dd_X, 7)
  b <- knn(dist(dd_X), 7)
  expect_identical(a$idx, b$idx)
  expect_equal(a$dist, b$dist, tolerance = 1e-12)
  c2 <- knn(unname(as.matrix(dist(dd_X))), 7, metric = "precomputed")
  expect_identical(b, c2)
  aq <- knn(dd_X, 5, query = dd_Q)
  bq <- knn(dist(dd_X), 5, query = dd_DQ)
  expect_identical(aq$idx, bq$idx)
  expect_equal(aq$dist, bq$dist, tolerance = 1e-12)
  # a grid: equal distances are listed by the smaller index, as for coordinates
  G <- as.matrix(expand.grid(0:4, 0:4))
  expect_identical(knn(dist(G), 4)$idx, knn(G, 4)$idx)
  # labels of the dist object become row names
  Dl <- dist(`rownames<-`(dd_X[1:10, ], paste0("p", 1:10)))
  expect_identical(rownames(knn(Dl, 2)$idx), paste0("p", 1:10))
  # a general metric: every list is the k smallest off-diagonal entries of its row
  M <- as.matrix(dist(dd_X, "manhattan"))
  nb <- knn(M, 6, metric = "precomputed")
  for (i in c(1, 50, 200)) {
    o <- order(M[i, -i], seq_len(199))[1:6]
    expect_identical(nb$idx[i, ], seq_len(200)[-i][o])
    expect_identical(nb$dist[i, ], unname(M[i, -i][o]))
  }
  expect_error(knn(dist(dd_X), 5, method = "hnsw"), class = "manifoldOOS_input_error")
})

test_that("neighbor_graph() of distances equals the graph of the coordinates", {
  for (w in c("binary", "heat", "distance")) {
    a <- neighbor_graph(dd_X, k = 6, weights = w)
    b <- neighbor_graph(dist(dd_X), k = 6, weights = w)
    expect_equal(b$W, a$W, tolerance = 1e-12, info = w)
    expect_equal(b$sigma, a$sigma, tolerance = 1e-12, info = w)
  }
  a <- neighbor_graph(dd_X, type = "eps", eps = 8, weights = "heat", sigma = "mean_pairwise")
  b <- neighbor_graph(dist(dd_X), type = "eps", eps = 8, weights = "heat", sigma = "mean_pairwise")
  expect_equal(b$W, a$W, tolerance = 1e-12)
  # two clusters: the added edge is the closest pair, read off the distances
  set.seed(2)
  B <- rbind(matrix(rnorm(60), 30), matrix(rnorm(60, 15), 30))
  ga <- suppressWarnings(neighbor_graph(B, k = 4, on_disconnected = "connect", weights = "distance"))
  gb <- suppressWarnings(neighbor_graph(dist(B), k = 4, on_disconnected = "connect", weights = "distance"))
  expect_equal(gb$added_edges, ga$added_edges, tolerance = 1e-12)
  expect_equal(gb$W, ga$W, tolerance = 1e-12)
  DB <- as.matrix(dist(B))
  expect_equal(gb$added_edges$length, min(DB[1:30, 31:60]))
  e <- tryCatch(neighbor_graph(dist(B), k = 4), manifoldOOS_input_error = function(e) e)
  expect_identical(e$k_needed, tryCatch(neighbor_graph(B, k = 4), manifoldOOS_input_error = function(e) e)$k_needed)
})

test_that("fits of Euclidean distances equal the fits of the coordinates, predictions included", {
  for (nm in names(dd_fits)) {
    f1 <- dd_fits[[nm]](dd_X)
    f2 <- dd_fits[[nm]](dist(dd_X))
    sc <- max(abs(embedding(f1)))
    expect_equal(embedding(f2), embedding(f1), tolerance = 1e-9 * sc, info = nm)
    expect_identical(f2$params$metric, "precomputed", info = nm)
    expect_null(f2$x_train %||% f2$X_train, info = nm)
    for (rule in f1$oos$available) {
      p1 <- predict(f1, dd_Q, method = rule)
      p2 <- predict(f2, dd_DQ, method = rule)
      expect_equal(dd_plain(p2), dd_plain(p1), tolerance = 1e-9 * sc, info = paste(nm, rule))
    }
    # the training points' distance rows come back at their coordinates
    Dt <- as.matrix(dist(dd_X))[c(3, 77, 150), ]
    expect_equal(dd_plain(predict(f2, Dt)), dd_plain(embedding(f2)[c(3, 77, 150), ]),
                 tolerance = 1e-9 * sc, info = nm)
  }
})

test_that("a fit of distances keeps the predict contract: rows alone, chunks, saveRDS, novelty", {
  for (nm in names(dd_fits)) {
    f <- dd_fits[[nm]](dist(dd_X))
    expect_silent(validate_fit(f))
    y <- predict(f, dd_DQ)
    rows <- do.call(rbind, lapply(seq_len(nrow(dd_DQ)), function(i) predict(f, dd_DQ[i, , drop = FALSE])))
    expect_identical(dd_plain(rows), dd_plain(y), info = nm)
    expect_identical(predict(f, dd_DQ, chunk_size = 7), y, info = nm)
    tf <- tempfile(fileext = ".rds")
    saveRDS(f, tf)
    expect_identical(predict(readRDS(tf), dd_DQ), y, info = nm)
    unlink(tf)
    # novelty: the same scores as the fit of the coordinates
    f1 <- dd_fits[[nm]](dd_X)
    expect_equal(attr(predict(f, dd_DQ, novelty = TRUE), "novelty"),
                 attr(predict(f1, dd_Q, novelty = TRUE), "novelty"), tolerance = 1e-12, info = nm)
  }
})

test_that("non-Euclidean distances: Isomap's geodesics are the graph's shortest paths, MDS is Torgerson scaling", {
  M <- as.matrix(dist(dd_X, "manhattan"))
  f <- isomap(M, metric = "precomputed", ndim = 2, k = 8, eigen_solver = "dense")
  g <- neighbor_graph(M, k = 8, metric = "precomputed", weights = "distance")
  expect_equal(f$geodesics, geodesic_distances(g), tolerance = 1e-12, ignore_attr = TRUE)
  # the embedding is classical MDS of the geodesics
  m <- mds(f$geodesics, metric = "precomputed", ndim = 2, eigen_solver = "dense")
  expect_equal(abs(unname(embedding(m))), abs(unname(embedding(f))), tolerance = 1e-8)
  # Torgerson scaling by hand: top eigenvectors of -1/2 J D^2 J, scaled by sqrt(eigenvalue)
  n <- nrow(M)
  J <- diag(n) - 1 / n
  e <- eigen(-0.5 * J %*% (M^2) %*% J, symmetric = TRUE)
  ref <- e$vectors[, 1:2] %*% diag(sqrt(e$values[1:2]))
  mm <- mds(M, metric = "precomputed", ndim = 2, eigen_solver = "dense")
  sgn <- sign(colSums(ref * embedding(mm)))
  expect_equal(unname(embedding(mm)), sweep(ref, 2, sgn, "*"), tolerance = 1e-8)
  # the Gower rule on the training rows reproduces the training coordinates
  expect_equal(unname(predict(mm, M[1:20, ])), unname(embedding(mm)[1:20, ]), tolerance = 1e-8)
  expect_equal(unname(predict(mm, M[1:20, ], method = "nystrom")), unname(embedding(mm)[1:20, ]),
               tolerance = 1e-8)
})

test_that("Isomap of precomputed distances agrees with scikit-learn's Isomap(metric = 'precomputed')", {
  skip_if_no_sklearn()
  M <- as.matrix(dist(rbind(dd_X, dd_Q), "manhattan"))
  Mt <- M[1:200, 1:200]
  Mq <- M[201:260, 1:200]
  f <- isomap(Mt, metric = "precomputed", ndim = 2, k = 8, eigen_solver = "dense")
  theirs <- run_sklearn(M, paste0(
    "from sklearn.manifold import Isomap\n",
    "iso = Isomap(n_neighbors=8, n_components=2, metric='precomputed', eigen_solver='dense', path_method='D')\n",
    "Y = iso.fit_transform(X[:200, :200])\n",
    "OUT = np.vstack([Y, iso.transform(X[200:, :200])])"))
  ours <- rbind(embedding(f), predict(f, Mq))
  sgn <- sign(colSums(ours * theirs))
  expect_equal(unname(ours), sweep(theirs, 2, sgn, "*"), tolerance = 1e-8)
})

test_that("named distances: labels name the embedding, new columns are matched by name", {
  Xn <- dd_X
  rownames(Xn) <- sprintf("cell%03d", seq_len(nrow(Xn)))
  f <- isomap(dist(Xn), ndim = 2, k = 8)
  expect_identical(rownames(embedding(f)), rownames(Xn))
  DQ <- dd_DQ
  colnames(DQ) <- rownames(Xn)
  perm <- sample(ncol(DQ))
  expect_identical(predict(f, DQ[, perm]), predict(f, DQ))
  expect_identical(dd_plain(predict(f, DQ)), dd_plain(predict(f, dd_DQ)))
  bad <- DQ
  colnames(bad)[5] <- "other"
  expect_error(predict(f, bad), class = "manifoldOOS_input_error")
})

test_that("bad distances get classed errors naming the argument", {
  D <- as.matrix(dist(dd_X))
  err <- function(expr, arg) {
    e <- tryCatch(expr, manifoldOOS_input_error = function(e) e)
    expect_s3_class(e, "manifoldOOS_input_error")
    expect_identical(e$arg, arg)
  }
  A <- D
  A[1, 2] <- A[1, 2] + 1
  err(isomap(A, metric = "precomputed"), "X")
  A <- D
  A[3, 3] <- 1
  err(mds(A, metric = "precomputed"), "X")
  A <- D
  A[2, 1] <- A[1, 2] <- -1
  err(laplacian_eigenmaps(A, metric = "precomputed"), "X")
  A <- D
  A[2, 1] <- A[1, 2] <- NA
  err(diffusion_map(A, metric = "precomputed"), "X")
  err(isomap(D[, -1], metric = "precomputed"), "X")
  err(isomap(dist(dd_X), pca = 2), "pca")
  err(isomap(dist(dd_X), neighbors = knn(dd_X, 8)), "neighbors")
  err(laplacian_eigenmaps(dist(dd_X), graph = "full"), "graph")
  err(lle(dist(dd_X)), "X")
  err(ltsa(D, metric = "precomputed"), "metric")
  f <- isomap(dist(dd_X), k = 8)
  err(predict(f, dd_Q), "newdata")
  err(predict(f, dist(dd_Q)), "newdata")
  Qn <- dd_DQ
  Qn[1, 1] <- -1
  err(predict(f, Qn), "newdata")
  err(predict(f, dd_DQ, method = "goose"), "method")
  err(reconstruct(f, embedding(f)[1:3, ]), "fit")
  # rounding-level asymmetry and diagonal are accepted
  A <- D
  A[1, 2] <- A[1, 2] * (1 + 1e-14)
  diag(A) <- 1e-15
  expect_equal(dd_plain(embedding(isomap(A, metric = "precomputed", k = 8))), dd_plain(embedding(f)),
               tolerance = 1e-9)
})

test_that("a damaged fit of distances is caught by validate_fit()", {
  f <- isomap(dist(dd_X), ndim = 2, k = 8)
  broken <- f
  broken$input$knn_dist <- broken$input$knn_dist[1:10, ]
  e <- tryCatch(predict(broken, dd_DQ), manifoldOOS_model_error = function(e) e)
  expect_identical(e$component, "input$knn_dist")
  broken <- f
  broken$geodesics <- broken$geodesics[, -1]
  expect_error(predict(broken, dd_DQ), class = "manifoldOOS_model_error")
  # a fit of coordinates still needs its training rows
  g <- isomap(dd_X, ndim = 2, k = 8)
  g$x_train <- NULL
  expect_error(predict(g, dd_Q), class = "manifoldOOS_model_error")
})
