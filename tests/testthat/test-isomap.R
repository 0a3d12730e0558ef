# Isomap and landmark Isomap (spec B.4, B.5, C.1, C.2).

iso_roll <- function(n, seed = 1) swiss_roll(n, seed = seed, convention = "sklearn")

# Flat grid on [0, L] x [0, W], optionally rolled onto a cylinder of radius R
# (an isometric bend: the intrinsic coordinates stay (u, v)).
bent_rectangle <- function(nu = 41, nv = 21, L = 4, W = 2, R = 2, bend = TRUE) {
  g <- as.matrix(expand.grid(u = seq(0, L, length.out = nu), v = seq(0, W, length.out = nv)))
  x <- if (bend) cbind(R * sin(g[, 1] / R), g[, 2], R * (1 - cos(g[, 1] / R)))
       else cbind(g, 0)
  list(x = x, truth = g)
}

test_that("a flat rectangle in 3-D with the complete graph is recovered exactly (Isomap = CMDS = PCA)", {
  r <- bent_rectangle(15, 8, bend = FALSE)
  Q <- qr.Q(qr(matrix(c(1, 2, 0.5, -1, 0.3, 2, 0.7, -0.2, 1), 3)))
  X <- r$x %*% Q + 5
  n <- nrow(X)
  fit <- isomap(X, 2, k = n - 1)
  expect_lt(procrustes_dist(embedding(fit), r$truth, "matlab_d"), 1e-12)
  m <- mds(X, 2)
  expect_equal(fit$eigenvalues, m$eigenvalues, tolerance = 1e-9)
  expect_lt(max_principal_angle(embedding(fit), embedding(m)), 1e-6)
})

test_that("a rectangle bent onto a cylinder is recovered up to the graph's path error", {
  r <- bent_rectangle()
  fit <- isomap(r$x, 2, k = 20)
  # Issue #4 asks for a relative Procrustes residual < 1e-6; that is
  # unreachable with kNN-graph geodesics. The geodesic on a kNN graph is a
  # polygonal path through the sample points, longer than the surface geodesic
  # whenever the straight line is not along an available edge direction (on a
  # grid: a staircase), by a relative amount set by the edge directions the k
  # neighbours offer, not by the sampling density. Measured ("matlab_d", the
  # standardised squared residual):
  #   41 x 21 grid (n = 861),   k = 20: 4.4e-5;  k = 40: 3.0e-5
  #   81 x 41 grid (n = 3321),  k = 20: 4.8e-5;  k = 40: 4.2e-5
  #   121 x 61 grid (n = 7381), k = 40: 4.5e-5
  # so the test asserts 1e-4 (the isomap() docs say so too). With the
  # complete graph on the flat rectangle (test above) the recovery is exact
  # (< 1e-12). The linear embedding of the bent sheet is far off.
  expect_lt(procrustes_dist(embedding(fit), r$truth, "matlab_d"), 1e-4)
  expect_gt(procrustes_dist(embedding(pca(r$x, 2)), r$truth, "matlab_d"), 1e-3)
  # the geodesic matrix is symmetric with a zero diagonal
  G <- fit$geodesics
  expect_identical(G, t(G))
  expect_true(all(diag(G) == 0))
})

test_that("training rows come back at their embedding (snap, nystrom, triangulation)", {
  X <- iso_roll(400)$x
  fit <- isomap(X, 2, k = 10)
  expect_identical(predict(fit, X), embedding(fit))
  expect_equal(predict(fit, X, snap = FALSE), embedding(fit), tolerance = 1e-9)
  expect_equal(predict(fit, X, method = "nystrom", snap = FALSE), embedding(fit),
               tolerance = 1e-9)
})

test_that("triangulation and Nystrom agree; predictions match a hand computation", {
  roll <- iso_roll(500)
  X <- roll$x[1:400, ]
  Xn <- roll$x[401:500, ]
  fit <- isomap(X, 2, k = 8)
  tri <- predict(fit, Xn)
  expect_equal(predict(fit, Xn, method = "nystrom"), tri, tolerance = 1e-9)
  nb <- knn(X, 8, query = Xn)
  G <- fit$geodesics
  g2 <- t(vapply(seq_len(nrow(Xn)), function(a) {
    apply(nb$dist[a, ] + G[nb$idx[a, ], , drop = FALSE], 2, min)^2
  }, numeric(nrow(X))))
  Y <- embedding(fit)
  mu <- colMeans(G^2)
  hand_tri <- -0.5 * sweep(g2, 2, mu) %*% sweep(Y, 2, fit$eigenvalues, "/")
  expect_equal(unname(tri), unname(hand_tri), tolerance = 1e-9)
  # Bengio et al.: y_k = (1/l_k) sum_i Kt(x, x_i) Y_ik with the centred kernel
  Kt <- -0.5 * (g2 - matrix(mu, nrow(g2), ncol(g2), byrow = TRUE) - rowMeans(g2) + mean(mu))
  hand_nys <- sweep(Kt %*% Y, 2, fit$eigenvalues, "/")
  expect_equal(unname(tri), unname(hand_nys), tolerance = 1e-9)
})

test_that("batch predictions equal row-by-row predictions and survive saveRDS()", {
  roll <- iso_roll(450)
  X <- roll$x[1:400, ]
  Xn <- roll$x[401:450, ]
  for (fit in list(isomap(X, 2, k = 10), isomap(X, 2, k = 10, landmarks = 40, seed = 2))) {
    for (meth in c("triangulation", "nystrom")) expect_predict_contract(fit, Xn, method = meth)
  }
})

test_that("dense and iterative eigen-solvers agree (n = 500)", {
  X <- iso_roll(500, seed = 3)$x
  d <- isomap(X, 3, k = 10, eigen_solver = "dense")
  it <- isomap(X, 3, k = 10, eigen_solver = "iterative")
  expect_match(d$solver, "dense")
  expect_match(it$solver, "spectra")
  expect_equal(it$eigenvalues, d$eigenvalues, tolerance = 1e-8)
  expect_equal(embedding(it), embedding(d), tolerance = 1e-6)
  expect_true(d$negative_mass > 0 && d$negative_mass < 1)
})

test_that("landmark Isomap with all points as landmarks equals Isomap", {
  X <- iso_roll(300, seed = 4)$x
  full <- isomap(X, 2, k = 10)
  lm <- isomap(X, 2, k = 10, landmarks = seq_len(nrow(X)))
  expect_equal(lm$eigenvalues, full$eigenvalues, tolerance = 1e-9)
  expect_equal(embedding(lm), embedding(full), tolerance = 1e-8)
  Xn <- iso_roll(50, seed = 5)$x
  expect_equal(predict(lm, Xn), predict(full, Xn), tolerance = 1e-8)
})

test_that("landmarks are triangulated onto their own LMDS coordinates", {
  X <- iso_roll(400, seed = 6)$x
  for (meth in c("maxmin", "random")) {
    fit <- isomap(X, 2, k = 10, landmarks = 30, landmark_method = meth, seed = 7)
    lmk <- fit$landmarks
    expect_length(unique(lmk), 30)
    # LMDS coordinates, normalised as the embedding
    L <- sweep(fit$landmark_coords, 2, fit$center) %*% fit$rotation
    expect_equal(unname(embedding(fit)[lmk, ]), unname(L), tolerance = 1e-9)
    # and predict() returns them for the landmark rows (no snapping needed)
    expect_identical(predict(fit, X[lmk, ], snap = FALSE), embedding(fit)[lmk, ])
    expect_identical(predict(fit, X, snap = FALSE), embedding(fit))
  }
  # without normalisation the landmark rows are exactly the LMDS coordinates
  raw <- isomap(X, 2, k = 10, landmarks = 30, normalize = FALSE, seed = 7)
  expect_equal(unname(embedding(raw)[raw$landmarks, ]), unname(raw$landmark_coords),
               tolerance = 1e-9)
  expect_null(raw$rotation)
})

test_that("MaxMin picks the farthest point each time; seeds are reproducible and leave the RNG alone", {
  X <- iso_roll(300, seed = 8)$x
  set.seed(123)
  before <- runif(1)
  set.seed(123)
  a <- isomap(X, 2, k = 10, landmarks = 12, seed = 42)
  expect_identical(runif(1), before)
  b <- isomap(X, 2, k = 10, landmarks = 12, seed = 42)
  expect_identical(a$landmarks, b$landmarks)
  D <- a$geodesics  # 12 x n, rows in selection order
  for (l in 2:12) {
    mind <- apply(D[seq_len(l - 1), , drop = FALSE], 2, min)
    expect_equal(a$landmarks[l], which.max(mind))
  }
})

test_roll_trustworthiness(function(X) isomap(X, 2, k = 10, eigen_solver = "iterative"),
                          roll = iso_roll(2000, seed = 1))

test_that("a disconnected graph is connected with a warning, or is a classed error", {
  set.seed(3)
  X <- rbind(matrix(rnorm(120), 40), matrix(rnorm(120), 40) + 50)
  expect_warning(fit <- isomap(X, 2, k = 5), class = "manifoldOOS_warning")
  expect_equal(fit$graph$n_components, 2L)
  expect_equal(nrow(fit$graph$added_edges), 1L)
  expect_true(all(is.finite(fit$geodesics)))
  expect_true(all(is.finite(predict(fit, X[1:5, ] + 0.1))))
  expect_input_error(isomap(X, 2, k = 5, on_disconnected = "error"), "`k`")
  # landmark geodesics on the same connected graph
  expect_warning(lf <- isomap(X, 2, k = 5, landmarks = 10, seed = 1), class = "manifoldOOS_warning")
  expect_true(all(is.finite(lf$geodesics)))
})

test_that("large n without landmarks switches to landmark Isomap with a message", {
  X <- iso_roll(350, seed = 9)$x
  old <- options(manifoldOOS.isomap_max_n = 300)
  on.exit(options(old))
  expect_message(fit <- isomap(X, 2, k = 10, seed = 1), "landmark")
  expect_equal(fit$method, "Landmark Isomap")
  expect_length(fit$landmarks, 100L)
})

test_that("bad input gives classed errors naming the argument", {
  X <- iso_roll(60)$x
  expect_input_error(isomap(X, 2, k = 60), "`k`")
  expect_input_error(isomap(X, 2, k = 0), "`k`")
  expect_input_error(isomap(X, 60, k = 5), "`ndim`")
  expect_input_error(isomap(X, 2, k = 5, landmarks = 2), "`landmarks`")
  expect_input_error(isomap(X, 2, k = 5, landmarks = c(1, 2, 2, 5)), "`landmarks`")
  expect_input_error(isomap(X, 2, k = 5, landmarks = c(1, 2, 99)), "`landmarks`")
  expect_input_error(isomap(X, 2, k = 5, landmarks = "all"), "`landmarks`")
  expect_input_error(isomap(X, 2, k = 5, landmark_method = "kmeans"), "`landmark_method`")
  expect_input_error(isomap(X, 2, k = 5, eigen_solver = "qr"), "`eigen_solver`")
  fit <- isomap(X, 2, k = 5)
  expect_input_error(predict(fit, X, method = "lle"), "`method`")
  expect_input_error(predict(fit, X, snap = NA), "`snap`")
  expect_input_error(predict(fit, X[, 1:2]), "`newdata`")
  # too many dimensions for the geodesic MDS: only positive eigenvalues are usable
  Xl <- cbind(seq(0, 1, length.out = 30), 0)
  expect_input_error(isomap(Xl, 2, k = 2), "`ndim`")
})

test_that("print, summary and plot work on full and landmark fits", {
  X <- iso_roll(200)$x
  fit <- isomap(X, 2, k = 8)
  expect_output(print(fit), "Isomap")
  expect_output(print(summary(fit)), "geodesic matrix: 200 x 200")
  lf <- isomap(X, 2, k = 8, landmarks = 20, seed = 1)
  expect_output(print(summary(lf)), "landmarks: 20")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(fit, newdata = X[1:10, ] + 0.01), fit)
})

test_that("relabelled multi-source Dijkstra and pruned MaxMin equal the plain runs on a graph full of ties", {
  # a 70 x 60 grid (n = 4200 >= 4096: the multi-source run relabels the
  # vertices in breadth-first order) with unit and sqrt(2) edge lengths
  X <- as.matrix(expand.grid(a = 1:70, b = 1:60))
  g <- neighbor_graph(X, k = 8, weights = "distance")
  src <- c(1L, 2100L, 4200L, 77L)
  multi <- geodesic_distances(g, sources = src)
  single <- do.call(rbind, lapply(src, function(s) geodesic_distances(g, sources = s)))
  expect_identical(unname(multi), unname(single))
  # the distances between the sources agree both ways (up to the rounding of the path sums)
  expect_equal(unname(multi[, src]), unname(t(multi[, src])), tolerance = 1e-13)
  # MaxMin on the tied grid: each landmark is the first (smallest-index)
  # vertex farthest from the earlier ones, by the full rows
  fit <- isomap(X, 2, k = 8, landmarks = 25, seed = 1)
  D <- fit$geodesics
  expect_identical(unname(D), unname(geodesic_distances(g, sources = fit$landmarks)))
  for (l in 2:25) {
    mind <- apply(D[seq_len(l - 1), , drop = FALSE], 2, min)
    expect_identical(fit$landmarks[l], which.max(mind))
  }
})

test_that("a fit needing more memory than available fails early, naming `landmarks`", {
  X <- iso_roll(300, seed = 3)$x
  withr::local_options(manifoldOOS.memory_limit = 5e5)  # bytes; full Isomap of 300 points plans 1.44e6
  err <- tryCatch(isomap(X, 2, k = 10), error = function(e) e)
  expect_s3_class(err, "manifoldOOS_memory_error")
  expect_s3_class(err, "manifoldOOS_input_error")
  expect_identical(err$arg, "landmarks")
  expect_equal(err$needed, 16 * 300^2)
  expect_match(conditionMessage(err), "landmarks")
  # landmark Isomap fits in the same budget and gives the unconstrained result
  lf <- isomap(X, 2, k = 10, landmarks = 20, seed = 1)
  withr::local_options(manifoldOOS.memory_limit = NULL)
  expect_identical(embedding(lf), embedding(isomap(X, 2, k = 10, landmarks = 20, seed = 1)))
})

test_that("landmark Isomap in one core call: given landmarks keep their order, the geodesic rows are theirs", {
  roll <- swiss_roll(120, seed = 3)
  lm <- c(100L, 5L, 60L, 33L, 80L)
  fit <- isomap(roll$x, 2, k = 8, landmarks = lm)
  expect_identical(fit$landmarks, lm)
  G <- geodesic_distances(neighbor_graph(roll$x, k = 8, weights = "distance"), sources = lm)
  expect_identical(dim(fit$geodesics), c(length(lm), 120L))
  expect_equal(unname(fit$geodesics), unname(G), tolerance = 1e-12)
  expect_identical(unname(diag(fit$geodesics[, lm])), rep(0, length(lm)))
  # normalisation: the training coordinates are centred and on principal axes
  Y <- embedding(fit)
  expect_lt(max(abs(colMeans(Y))), 1e-10)
  expect_lt(abs(crossprod(Y)[1, 2]), 1e-8 * max(crossprod(Y)))
  mm <- isomap(roll$x, 2, k = 8, landmarks = 12, seed = 2)
  expect_length(unique(mm$landmarks), 12L)
  expect_identical(dim(mm$geodesics), c(12L, 120L))
})

test_that("one glue call projects with the core's exact search or with given neighbour lists", {
  r <- iso_roll(300, seed = 4)
  X <- r$x[1:250, ]
  Xn <- r$x[251:300, ]
  for (lm in list(NULL, 40L)) {
    fit <- isomap(X, 2, k = 8, landmarks = lm, knn_method = "exact")
    coords <- if (is.null(fit$landmarks)) unname(fit$embedding) else fit$landmark_coords
    project <- function(idx, dist) {
      manifoldOOS:::core(manifoldOOS:::.mo_isomap_project(
        fit$x_train, Xn, fit$k, idx, dist, fit$geodesics, fit$lsharp, coords, fit$eigenvalues,
        fit$mu, fit$grand_mean, "nystrom", unname(fit$embedding), TRUE,
        if (is.null(fit$center)) numeric(0) else fit$center,
        if (is.null(fit$rotation)) matrix(0, 0, 0) else fit$rotation, 1L))
    }
    nb <- knn(X, 8, query = Xn)
    searched <- project(matrix(0L, 0, 0), matrix(0, 0, 0))
    expect_identical(project(nb$idx, unname(nb$dist)), searched)
    expect_identical(unname(predict(fit, Xn, method = "nystrom")), searched)
    # lists from a worse search (the 2nd to 9th neighbours) change the projection
    nb2 <- knn(X, 9, query = Xn)
    expect_false(isTRUE(all.equal(project(nb2$idx[, -1], unname(nb2$dist[, -1])), searched)))
    bad <- nb$idx
    bad[3, 2] <- nrow(X) + 1L
    expect_error(project(bad, unname(nb$dist)), class = "manifoldOOS_input_error")
    bad[3, 2] <- 0L
    expect_error(project(bad, unname(nb$dist)), class = "manifoldOOS_input_error")
    expect_error(project(nb$idx[-1, ], unname(nb$dist[-1, ])), class = "manifoldOOS_input_error")
  }
})

test_that("full Isomap's geodesics are the searches from every point made symmetric by the min", {
  # isomap() writes each source's distances as a column and then takes
  # min(G_ij, G_ji); geodesic_distances() writes them as rows: the same matrix
  X <- iso_roll(300, seed = 4)$x
  fit <- isomap(X, 2, k = 7)
  G <- geodesic_distances(neighbor_graph(X, k = 7, weights = "distance"))
  expect_identical(unname(fit$geodesics), unname(pmin(G, t(G))))
  # the two directions differ in the rounding of the path sums only
  expect_equal(unname(G), unname(t(G)), tolerance = 1e-14)
})

test_that("the geodesic matrix held outside R's heap behaves as a plain matrix", {
  X <- iso_roll(250, seed = 6)$x
  Xn <- iso_roll(300, seed = 6)$x[251:300, ]
  fit <- isomap(X, 2, k = 8)
  G <- fit$geodesics
  plain <- matrix(as.vector(G), nrow(G), ncol(G))
  expect_true(is.matrix(G) && is.double(G))
  expect_identical(dim(G), c(250L, 250L))
  expect_identical(G, plain)
  expect_identical(G[17, ], plain[17, ])
  expect_identical(sum(G), sum(plain))
  # copy-on-modify: a modified copy leaves the fit's matrix alone
  H <- G
  H[1, 2] <- -1
  expect_identical(fit$geodesics, plain)
  expect_identical(which(H != plain), 251L)
  # saveRDS() writes the values; the restored fit predicts the same
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f), add = TRUE)
  saveRDS(fit, f)
  back <- readRDS(f)
  expect_identical(back$geodesics, plain)
  expect_identical(predict(back, Xn), predict(fit, Xn))
  # the matrix outlives its fit and the garbage collections after it
  rm(fit, back)
  invisible(gc())
  expect_identical(G, plain)
  # landmark fits keep their m x n distances the same way
  lf <- isomap(X, 2, k = 8, landmarks = 20, seed = 2)
  expect_identical(dim(lf$geodesics), c(20L, 250L))
  g <- neighbor_graph(X, k = 8, weights = "distance")
  expect_identical(unname(lf$geodesics), unname(geodesic_distances(g, sources = lf$landmarks)))
})
