# Exact k-nearest neighbours and radius search.

# Reference: full distance matrix, lists sorted by (distance, index).
ref_dist <- function(X, Q = NULL) {
  if (is.null(Q)) {
    D <- as.matrix(dist(X))
    diag(D) <- Inf
  } else {
    D <- t(apply(Q, 1, function(q) sqrt(colSums((t(X) - q)^2))))
    if (nrow(Q) == 1L) D <- matrix(D, 1)
  }
  unname(D)
}

ref_knn <- function(X, k, Q = NULL) {
  D <- ref_dist(X, Q)
  idx <- t(apply(D, 1, function(d) order(d, seq_along(d))[seq_len(k)]))
  if (k == 1L || nrow(D) == 1L) idx <- matrix(idx, nrow(D), k)
  dd <- matrix(D[cbind(rep(seq_len(nrow(D)), k), as.vector(idx))], nrow(D), k)
  list(idx = matrix(as.integer(idx), nrow(D)), dist = dd)
}

expect_knn_ref <- function(res, ref, tol = 1e-12) {
  expect_identical(unname(res$idx), ref$idx)
  expect_equal(unname(res$dist), ref$dist, tolerance = tol)
}

algos <- c("auto", "kdtree", "brute")

test_that("knn equals the brute-force reference on random data (p = 2, 3, 10, 50)", {
  set.seed(11)
  for (p in c(2, 3, 10, 50)) {
    X <- matrix(rnorm(600 * p), ncol = p)
    ref <- ref_knn(X, 7)
    for (a in algos) expect_knn_ref(knn(X, 7, algorithm = a), ref)
    # distances agree with dist() to the last bit (same summation order)
    expect_identical(unname(knn(X, 7)$dist), ref$dist)
  }
})

test_that("integer-grid data with massive ties: ties broken by the smaller index", {
  G3 <- as.matrix(expand.grid(0:7, 0:7, 0:3))
  ref <- ref_knn(G3, 12)
  for (a in algos) expect_knn_ref(knn(G3, 12, algorithm = a), ref, tol = 0)
  # the 6 axis neighbours of an interior point come first, in index order
  i <- which(G3[, 1] == 3 & G3[, 2] == 3 & G3[, 3] == 1)
  nn <- knn(G3, 6)
  expect_identical(nn$idx[i, ], sort(nn$idx[i, ]))
  expect_identical(nn$dist[i, ], rep(1, 6))
  # shuffled rows: the tie order follows the new indices
  set.seed(2)
  Gs <- G3[sample(nrow(G3)), ]
  for (a in algos) expect_knn_ref(knn(Gs, 12, algorithm = a), ref_knn(Gs, 12), tol = 0)
  # higher-dimensional binary data (brute-force path by default)
  B <- matrix(sample(0:1, 300 * 20, TRUE), 300)
  for (a in algos) expect_knn_ref(knn(B, 15, algorithm = a), ref_knn(B, 15), tol = 0)
})

test_that("exact ties hidden by rounding in the expansion are still resolved by index", {
  # query v; training points v + 0.5 e_l (all exactly at distance 0.5) in a
  # shuffled order among far points, with a large offset so that the
  # expansion |a|^2 + |b|^2 - 2 a'b is noisy
  set.seed(5)
  p <- 40
  v <- round(runif(p, 1e3, 2e3))
  S <- t(vapply(seq_len(p), function(l) { x <- v; x[l] <- x[l] + 0.5; x }, numeric(p)))
  Fa <- matrix(round(runif(200 * p, 1e3, 2e3)), ncol = p)
  X <- rbind(Fa, S)[sample(200 + p), ]
  Q <- rbind(v, v + 0.25)
  for (k in c(1, 5, 20)) {
    ref <- ref_knn(X, k, Q)
    for (a in algos) expect_knn_ref(knn(X, k, query = Q, algorithm = a), ref)
  }
  expect_identical(knn(X, 5, query = Q, algorithm = "kdtree"),
                   knn(X, 5, query = Q, algorithm = "brute"))
})

test_that("exact duplicates: self excluded by index, twins at distance exactly 0", {
  set.seed(3)
  Y <- matrix(rnorm(40 * 3), ncol = 3)
  X <- rbind(Y, Y[1:10, ], Y[1:5, ])  # rows 1:5 appear three times
  n <- nrow(X)
  for (a in algos) {
    nn <- knn(X, 4, algorithm = a)
    expect_false(any(nn$idx == seq_len(n)))
    for (i in 1:5) {
      twins <- setdiff(c(i, 40 + i, 50 + i), i)
      expect_identical(nn$idx[i, 1:2], as.integer(twins))
      expect_identical(nn$dist[i, 1:2], c(0, 0))
    }
    # the twin of row 45 is row 5 (smaller index first), then row 55
    expect_identical(nn$idx[45, 1:2], c(5L, 55L))
    expect_knn_ref(nn, ref_knn(X, 4))
  }
})

test_that("query set different from the training set; k = 1, k = n and k = n - 1", {
  set.seed(4)
  X <- matrix(runif(120 * 3), ncol = 3)
  Q <- matrix(runif(30 * 3), ncol = 3)
  for (a in algos) {
    expect_knn_ref(knn(X, 1, query = Q, algorithm = a), ref_knn(X, 1, Q))
    expect_knn_ref(knn(X, 120, query = Q, algorithm = a), ref_knn(X, 120, Q))
    expect_knn_ref(knn(X, 1, algorithm = a), ref_knn(X, 1))
    full <- knn(X, 119, algorithm = a)
    expect_knn_ref(full, ref_knn(X, 119))
    # every other point appears exactly once in each full list
    expect_true(all(apply(full$idx, 1, function(r) length(unique(r)) == 119)))
  }
  # a query equal to a training point finds it at distance 0
  nn <- knn(X, 2, query = X[c(7, 9), ])
  expect_identical(nn$idx[, 1], c(7L, 9L))
  expect_identical(nn$dist[, 1], c(0, 0))
  # one query row
  expect_knn_ref(knn(X, 3, query = Q[1, , drop = FALSE]), ref_knn(X, 3, Q[1, , drop = FALSE]))
})

test_that("kd-tree, brute force and auto return identical lists; threads do not matter", {
  set.seed(6)
  sets <- list(
    low = matrix(rnorm(3000 * 3), ncol = 3),
    grid = as.matrix(expand.grid(0:14, 0:14, 0:9)),
    dup = { Z <- matrix(rnorm(800 * 5), ncol = 5); rbind(Z, Z[1:300, ]) },
    p20 = matrix(rnorm(1500 * 20), ncol = 20),
    far = 1e8 + matrix(rnorm(1000 * 8, sd = 1e-3), ncol = 8)
  )
  for (nm in names(sets)) {
    X <- sets[[nm]]
    a <- knn(X, 10, algorithm = "kdtree", n_threads = 1)
    b <- knn(X, 10, algorithm = "brute", n_threads = 1)
    expect_identical(a, b, info = nm)
    expect_identical(knn(X, 10, algorithm = "auto"), a, info = nm)
    expect_identical(knn(X, 10, algorithm = "kdtree", n_threads = 2), a, info = nm)
    expect_identical(knn(X, 10, algorithm = "brute", n_threads = 2), a, info = nm)
    Q <- X[seq(1, nrow(X), by = 7), , drop = FALSE] + 0.25
    expect_identical(knn(X, 10, query = Q, algorithm = "kdtree"),
                     knn(X, 10, query = Q, algorithm = "brute", n_threads = 2), info = nm)
  }
  # cancellation-prone data: still the exact reference
  Xf <- sets$far[1:300, ]
  expect_knn_ref(knn(Xf, 5, algorithm = "brute"), ref_knn(Xf, 5), tol = 0)
})

test_that("many columns: the kd-tree on the principal axes gives the brute-force lists", {
  path <- function() manifoldOOS:::.mo_knn_last_path()
  set.seed(21)
  # a curve in 3 latent dimensions embedded in 40 columns with small noise:
  # the pilot of algorithm = "auto" takes the projected kd-tree
  n <- 3000
  t <- runif(n + 1200, 0, 4 * pi)
  L <- cbind(t * cos(t), t * sin(t), rnorm(n + 1200, sd = 2))
  A <- qr.Q(qr(matrix(rnorm(40 * 40), 40)))[, 1:3]
  Z <- L %*% t(A) + matrix(rnorm((n + 1200) * 40, sd = 0.05), ncol = 40)
  X <- Z[1:n, ]
  Q <- Z[-(1:n), ]
  b <- knn(X, 12, algorithm = "brute")
  expect_identical(path(), "brute")
  a <- knn(X, 12, algorithm = "auto")
  expect_identical(path(), "kdtree_projected")
  expect_identical(a, b)
  expect_identical(knn(X, 12, algorithm = "kdtree", n_threads = 2), b)
  expect_identical(path(), "kdtree_projected")
  bq <- knn(X, 31, query = Q, algorithm = "brute", n_threads = 2)
  expect_identical(knn(X, 31, query = Q, algorithm = "auto", n_threads = 1), bq)
  expect_identical(path(), "kdtree_projected")
  expect_knn_ref(knn(X, 5, query = Q[1:50, ], algorithm = "kdtree"), ref_knn(X, 5, Q[1:50, ]))
  # exact ties: duplicated rows and points at equal distances, and queries far
  # outside the data and at its centre
  Xd <- rbind(X, X[1:500, ], round(X[501:800, ]))
  Qd <- rbind(Q, 1e6 * Q[1:5, ], matrix(colMeans(X), 3, 40, byrow = TRUE), X[1:20, ])
  expect_identical(knn(Xd, 9, algorithm = "auto"), knn(Xd, 9, algorithm = "brute"))
  aq <- knn(Xd, 9, query = Qd, algorithm = "auto")
  expect_identical(path(), "kdtree_projected")
  expect_identical(aq, knn(Xd, 9, query = Qd, algorithm = "brute"))
  expect_identical(knn(Xd, 9, query = Qd, algorithm = "kdtree"), knn(Xd, 9, query = Qd, algorithm = "brute"))
  G <- as.matrix(expand.grid(0:5, 0:5, 0:5, 0:1, 0:1))
  G <- cbind(G, G[, 1:3] * 0, G[, c(1, 1, 2, 3, 5, 4, 2, 1, 3)])[, 1:17]
  expect_knn_ref(knn(G, 20, algorithm = "kdtree"), ref_knn(G, 20), tol = 0)
  # a plane in 30 columns far from the origin or near underflow, and columns
  # without variance: the slack of the bounds, the projection's centring
  set.seed(22)
  P <- matrix(rnorm(3000 * 2), ncol = 2) %*% matrix(rnorm(60), 2)
  for (Y in list(1e8 + P, 1e-150 * P, cbind(P[, 1:4], matrix(0, 3000, 14)))) {
    ay <- knn(Y, 8, algorithm = "auto")
    expect_identical(path(), "kdtree_projected")
    expect_identical(ay, knn(Y, 8, algorithm = "brute"))
  }
  # data without a low-dimensional structure: the pilot keeps brute force
  W <- matrix(rnorm(3000 * 40), ncol = 40)
  aw <- knn(W, 10, algorithm = "auto")
  expect_identical(path(), "brute")
  expect_identical(aw, knn(W, 10, algorithm = "kdtree"))
  expect_identical(path(), "kdtree_projected")
  expect_identical(aw, knn(W, 10, algorithm = "brute"))
})

test_that("the cross-product kernel does not change the result", {
  on.exit(manifoldOOS:::.mo_knn_kernel("auto"))
  set.seed(7)
  X <- matrix(rnorm(700 * 37), ncol = 37)
  Q <- matrix(rnorm(50 * 37), ncol = 37)
  manifoldOOS:::.mo_knn_kernel("portable")
  expect_identical(manifoldOOS:::.mo_knn_kernel(""), "portable")
  a <- knn(X, 9, algorithm = "brute")
  aq <- knn(X, 9, query = Q, algorithm = "brute")
  manifoldOOS:::.mo_knn_kernel("auto")
  expect_identical(knn(X, 9, algorithm = "brute"), a)
  expect_identical(knn(X, 9, query = Q, algorithm = "brute"), aq)
  expect_identical(a, knn(X, 9, algorithm = "kdtree"))
})

test_that("row names are carried over", {
  X <- matrix(c(0, 1, 3, 6, 10), ncol = 1, dimnames = list(letters[1:5], "x"))
  nn <- knn(X, 2)
  expect_identical(rownames(nn$idx), letters[1:5])
  expect_identical(rownames(nn$dist), letters[1:5])
  expect_identical(unname(nn$idx[, 1]), c(2L, 1L, 2L, 3L, 4L))
  Q <- matrix(c(2.9, 7), ncol = 1, dimnames = list(c("q1", "q2"), NULL))
  nq <- knn(X, 1, query = Q)
  expect_identical(rownames(nq$idx), c("q1", "q2"))
  expect_identical(unname(nq$idx[, 1]), c(3L, 4L))
  expect_equal(unname(nq$dist[, 1]), c(0.1, 1))
  expect_null(rownames(knn(unname(X), 2)$idx))
  # data frames are accepted
  expect_identical(unname(knn(as.data.frame(X), 2)$idx), unname(nn$idx))
})

test_that("radius search equals the reference (d <= eps, sorted, self excluded)", {
  ref_radius <- function(X, eps, Q = NULL) {
    D <- ref_dist(X, Q)
    lapply(seq_len(nrow(D)), function(i) {
      j <- which(D[i, ] <= eps)
      j[order(D[i, j], j)]
    })
  }
  check <- function(res, X, eps, Q = NULL) {
    ref <- ref_radius(X, eps, Q)
    m <- length(ref)
    expect_identical(res$ptr, c(0L, cumsum(lengths(ref))))
    expect_identical(res$idx, as.integer(unlist(ref)))
    D <- ref_dist(X, Q)
    rows <- rep(seq_len(m), lengths(ref))
    expect_equal(res$dist, D[cbind(rows, res$idx)], tolerance = 1e-12)
  }
  set.seed(8)
  for (p in c(2, 30)) {
    X <- matrix(rnorm(700 * p), ncol = p)
    eps <- unname(quantile(dist(X[1:100, ]), 0.05))
    Q <- matrix(rnorm(20 * p), ncol = p)
    for (a in algos) {
      r <- manifoldOOS:::radius_neighbors(X, eps, algorithm = a)
      check(r, X, eps)
      rq <- manifoldOOS:::radius_neighbors(X, eps, query = Q, algorithm = a)
      check(rq, X, eps, Q)
    }
    expect_identical(manifoldOOS:::radius_neighbors(X, eps, algorithm = "kdtree"),
                     manifoldOOS:::radius_neighbors(X, eps, algorithm = "brute", n_threads = 2))
  }
  # boundary: grid points at distance exactly eps are included; duplicates at 0
  G <- as.matrix(expand.grid(0:5, 0:5))
  G <- rbind(G, G[c(1, 8), ])
  for (a in algos) {
    r <- manifoldOOS:::radius_neighbors(G, 1, algorithm = a)
    check(r, G, 1)
    # interior point 8 = (1, 1): its twin 38 at 0, then 2, 7, 9, 14
    nb8 <- r$idx[(r$ptr[8] + 1):r$ptr[9]]
    expect_identical(nb8, c(38L, 2L, 7L, 9L, 14L))
    r0 <- manifoldOOS:::radius_neighbors(G, 0, algorithm = a)
    expect_identical(r0$idx, c(37L, 38L, 1L, 8L))
    expect_identical(r0$dist, rep(0, 4))
  }
})

test_that("invalid arguments give classed errors naming the argument", {
  set.seed(9)
  X <- matrix(rnorm(60), 20)
  expect_input_error(knn(X, k = 20), "`k`")
  expect_input_error(knn(X, k = 0), "`k`")
  expect_input_error(knn(X, k = 2.5), "`k`")
  expect_input_error(knn(X, k = NA), "`k`")
  expect_input_error(knn(X, k = 21, query = X[1:2, ]), "`k`")
  expect_identical(dim(knn(X, k = 20, query = X[1:2, ])$idx), c(2L, 20L))
  expect_input_error(knn(X, k = 3, query = matrix(1, 2, 2)), "`query`")
  expect_input_error(knn(X, k = 3, query = matrix(c(1, NA, 3), 1)), "`query`")
  expect_input_error(knn(X, k = 3, query = matrix(numeric(0), 0, 3)), "`query`")
  Xna <- X
  Xna[4, 1] <- NaN
  expect_input_error(knn(Xna, k = 3), "`X`")
  expect_input_error(knn(X, k = 3, algorithm = "ball"), "`algorithm`")
  expect_input_error(knn(X, k = 3, n_threads = -1), "`n_threads`")
  expect_input_error(manifoldOOS:::radius_neighbors(X, -1), "`eps`")
  expect_input_error(manifoldOOS:::radius_neighbors(X, Inf), "`eps`")
  expect_input_error(manifoldOOS:::radius_neighbors(X, 1, query = matrix(1, 1, 2)), "`query`")
})

test_that("neighbour lists that cannot fit in memory are refused before the search, naming `k`", {
  X <- matrix(stats::rnorm(3000), 1000, 3)
  # 24 bytes per point and neighbour: 1000 x 50 x 24 = 1.2 MB
  withr::local_options(manifoldOOS.memory_limit = 1e6)
  err <- expect_error(knn(X, 50), class = "manifoldOOS_memory_error")
  expect_identical(err$arg, "k")
  expect_match(conditionMessage(err), "neighbour lists of 1000 points \\(50 neighbours each\\)")
  expect_error(knn(X, 50, query = X[1:10, ]), NA)
  expect_identical(dim(knn(X, 20)$idx), c(1000L, 20L))
})
