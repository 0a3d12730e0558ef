# Neighbourhood graphs, components, Laplacians, geodesics (spec A.3-A.8, B.4).

# ---- dense R references -----------------------------------------------------

# Structure (logical n x n) of a sparse matrix, explicit zeros included.
structure_of <- function(W) {
  W <- methods::as(W, "CsparseMatrix")
  S <- matrix(FALSE, nrow(W), ncol(W))
  S[cbind(W@i + 1L, rep(seq_len(ncol(W)), diff(W@p)))] <- TRUE
  S
}

# Directed weights and presence from kNN lists.
directed_ref <- function(idx, dist, weights, sigma = 1) {
  n <- nrow(idx)
  A <- matrix(0, n, n)
  P <- matrix(FALSE, n, n)
  w <- switch(weights, binary = 1 + 0 * dist, heat = exp(-dist^2 / (2 * sigma^2)), distance = dist)
  for (i in seq_len(n)) {
    A[i, idx[i, ]] <- w[i, ]
    P[i, idx[i, ]] <- TRUE
  }
  list(A = A, P = P)
}

sym_ref <- function(d, rule) {
  A <- d$A; P <- d$P
  switch(rule,
    or = list(W = ifelse(P & t(P), pmax(A, t(A)), ifelse(P, A, t(A))) * (P | t(P)), S = P | t(P)),
    and = list(W = pmin(A, t(A)) * (P & t(P)), S = P & t(P)),
    mean = list(W = (A + t(A)) / 2, S = P | t(P)),
    none = list(W = A, S = P))
}

# Number of connected components of the structure S (BFS in R).
count_components <- function(S) {
  S <- S | t(S)
  n <- nrow(S)
  lab <- integer(n)
  cnt <- 0L
  for (s in seq_len(n)) {
    if (lab[s] > 0L) next
    cnt <- cnt + 1L
    queue <- s
    lab[s] <- cnt
    while (length(queue)) {
      u <- queue[1L]; queue <- queue[-1L]
      nb <- which(S[u, ] & lab == 0L)
      lab[nb] <- cnt
      queue <- c(queue, nb)
    }
  }
  list(n = cnt, label = lab)
}

floyd_warshall <- function(D) {
  n <- nrow(D)
  diag(D) <- 0
  for (m in seq_len(n)) D <- pmin(D, outer(D[, m], D[m, ], "+"))
  D
}

blobs <- function(sizes, gap = 50, p = 2, seed = 1) {
  set.seed(seed)
  do.call(rbind, lapply(seq_along(sizes), function(b) {
    matrix(rnorm(sizes[b] * p), ncol = p) + gap * (b - 1)
  }))
}

with_threads <- function(n, expr) {
  old <- options(manifoldOOS.threads = n)
  on.exit(options(old))
  expr
}

# ---- construction -------------------------------------------------------------

test_that("W equals a dense reference built from the same neighbour lists", {
  set.seed(11)
  X <- matrix(rnorm(60 * 3), ncol = 3)
  k <- 5
  nb <- knn(X, k)
  for (weights in c("binary", "heat", "distance")) {
    for (rule in c("or", "and", "mean", "none")) {
      g <- suppressWarnings(neighbor_graph(X, k = k, symmetrize = rule, weights = weights,
                                            sigma = 0.7, on_disconnected = "connect"))
      expect_identical(g$idx, nb$idx)
      ref <- sym_ref(directed_ref(nb$idx, nb$dist, weights, sigma = 0.7), rule)
      # the reference graph may be disconnected for "and": compare on the
      # graph before any added edges
      W <- g$W
      if (nrow(g$added_edges)) {
        ij <- as.matrix(g$added_edges[, c("i", "j")])
        W <- as.matrix(W)
        W[rbind(ij, ij[, 2:1])] <- 0
        S <- structure_of(g$W)
        S[rbind(ij, ij[, 2:1])] <- FALSE
      } else {
        S <- structure_of(W)
      }
      expect_equal(unname(as.matrix(W)), ref$W, tolerance = 1e-14,
                   info = paste(weights, rule))
      expect_identical(S, ref$S, info = paste(weights, rule))
      expect_true(all(Matrix::diag(g$W) == 0))
      if (rule != "none") expect_true(Matrix::isSymmetric(g$W), info = paste(weights, rule))
    }
  }
})

test_that("compressed W equals, slot for slot, a matrix built from triplets (ties, all rules)", {
  # integer grid: many equal distances, so neighbour lists have ties; the
  # package writes W's compressed columns directly from bucketed half-edges
  X <- as.matrix(expand.grid(1:7, 1:6, 0:1))
  n <- nrow(X)
  k <- 6
  nb <- knn(X, k)
  for (weights in c("binary", "heat", "distance")) {
    w <- switch(weights, binary = 1 + 0 * nb$dist, heat = exp(-nb$dist^2 / (2 * 0.9^2)), distance = nb$dist)
    A <- matrix(0, n, n); P <- matrix(FALSE, n, n)
    for (i in seq_len(n)) { A[i, nb$idx[i, ]] <- w[i, ]; P[i, nb$idx[i, ]] <- TRUE }
    for (rule in c("or", "and", "mean", "none")) {
      r <- sym_ref(list(A = A, P = P), rule)
      ij <- which(r$S, arr.ind = TRUE)
      ref <- Matrix::sparseMatrix(i = ij[, 1], j = ij[, 2], x = r$W[ij], dims = c(n, n))
      g <- suppressWarnings(neighbor_graph(X, k = k, symmetrize = rule, weights = weights, sigma = 0.9,
                                            on_disconnected = "largest"))
      expect_true(methods::validObject(g$W), info = paste(weights, rule))  # sorted row indices
      expect_identical(g$W@p, ref@p, info = paste(weights, rule))
      expect_identical(g$W@i, ref@i, info = paste(weights, rule))
      expect_identical(g$W@x, ref@x, info = paste(weights, rule))
    }
  }
  # an eps-ball graph on the same grid: exactly the pairs within eps, distance weights
  ge <- neighbor_graph(X, type = "eps", eps = 1.5, weights = "distance")
  D <- as.matrix(dist(X))
  ij <- which(D <= 1.5 & D > 0, arr.ind = TRUE)
  ref <- Matrix::sparseMatrix(i = ij[, 1], j = ij[, 2], x = D[ij], dims = c(n, n))
  expect_identical(ge$W@p, ref@p)
  expect_identical(ge$W@i, ref@i)
  expect_equal(ge$W@x, ref@x, tolerance = 1e-15)
})

test_that("directed graph keeps exactly the kNN relation", {
  set.seed(2)
  X <- matrix(rnorm(80), ncol = 2)
  g <- neighbor_graph(X, k = 4, symmetrize = "none")
  expect_equal(unname(Matrix::rowSums(g$W)), rep(4, 40))
  expect_false(Matrix::isSymmetric(g$W))
})

test_that("heat weights follow exp(-d^2 / (2 sigma^2)) with the median_knn bandwidth", {
  set.seed(3)
  X <- matrix(rnorm(50 * 2), ncol = 2)
  k <- 6
  g <- neighbor_graph(X, k = k, weights = "heat")
  nb <- knn(X, k)
  expect_equal(g$sigma, median(nb$dist[, k]))
  expect_identical(g$sigma_rule, "median_knn")
  D <- as.matrix(dist(X))
  S <- structure_of(g$W)
  Wd <- as.matrix(g$W)
  expect_equal(Wd[S], exp(-D[S]^2 / (2 * g$sigma^2)), tolerance = 1e-13)
  # user bandwidth
  g2 <- neighbor_graph(X, k = k, weights = "heat", sigma = 0.25)
  expect_identical(g2$sigma_rule, "user")
  expect_equal(as.matrix(g2$W)[S], exp(-D[S]^2 / (2 * 0.25^2)), tolerance = 1e-13)
})

test_that("pairwise bandwidth rules equal the mean / median of dist()", {
  set.seed(4)
  X <- matrix(rnorm(70 * 3), ncol = 3)
  d <- as.vector(dist(X))
  g1 <- neighbor_graph(X, k = 8, weights = "heat", sigma = "mean_pairwise")
  g2 <- neighbor_graph(X, k = 8, weights = "heat", sigma = "median_pairwise")
  expect_equal(g1$sigma, mean(d), tolerance = 1e-13)
  expect_equal(g2$sigma, median(d), tolerance = 1e-13)
  # odd number of pairs (n = 6 -> 15 pairs) uses the middle value
  X6 <- X[1:6, ]
  g3 <- neighbor_graph(X6, k = 5, weights = "heat", sigma = "median_pairwise")
  expect_equal(g3$sigma, median(as.vector(dist(X6))))
})

test_that("bandwidth is floored with a warning when duplicates make it zero", {
  set.seed(5)
  X <- rbind(matrix(1, 30, 2), matrix(rnorm(20), 10))
  expect_warning(g <- neighbor_graph(X, k = 5, weights = "heat"),
                 class = "manifoldOOS_warning")
  expect_equal(g$sigma, 1e-12 * max(g$dist))
  expect_true(g$sigma > 0)
})

test_that("mutual kNN edges are a subset of the union", {
  set.seed(6)
  X <- matrix(rnorm(100 * 2), ncol = 2)
  g_or <- neighbor_graph(X, k = 7, symmetrize = "or", weights = "distance")
  g_and <- neighbor_graph(X, k = 7, symmetrize = "and", weights = "distance",
                           on_disconnected = "largest") |> suppressWarnings()
  S_or <- structure_of(g_or$W)[g_and$kept, g_and$kept]
  S_and <- structure_of(g_and$W)
  expect_true(all(S_or[S_and]))
  expect_lt(sum(S_and), sum(S_or))
  # common edges carry the same (symmetric) length
  expect_equal(as.matrix(g_and$W)[S_and], as.matrix(g_or$W)[g_and$kept, g_and$kept][S_and])
})

test_that("eps-ball graph contains exactly the pairs within eps", {
  set.seed(7)
  X <- matrix(runif(80 * 2), ncol = 2)
  eps <- 0.3
  g <- neighbor_graph(X, type = "eps", eps = eps, weights = "distance",
                       on_disconnected = "connect") |> suppressWarnings()
  D <- unname(as.matrix(dist(X)))
  ref <- D <= eps
  diag(ref) <- FALSE
  S <- structure_of(g$W)
  if (nrow(g$added_edges)) {
    ij <- as.matrix(g$added_edges[, c("i", "j")])
    S[rbind(ij, ij[, 2:1])] <- FALSE
  }
  expect_identical(S, ref)
  expect_equal(as.matrix(g$W)[ref], D[ref], tolerance = 1e-14)
  expect_true(is.null(g$idx))
})

test_that("duplicate points give explicit zero-length edges and zero geodesics", {
  set.seed(8)
  X <- matrix(rnorm(40), ncol = 2)
  X <- rbind(X, X[3, ])  # row 21 duplicates row 3
  g <- neighbor_graph(X, k = 4, weights = "distance")
  S <- structure_of(g$W)
  expect_true(S[3, 21] && S[21, 3])
  expect_equal(as.matrix(g$W)[3, 21], 0)
  G <- geodesic_distances(g, sources = c(3, 21))
  expect_equal(G[1, ], G[2, ])
})

# ---- components and policies ---------------------------------------------------

test_that("two far-apart blobs: error lists both components and the connecting k", {
  X <- blobs(c(30, 20))
  err <- expect_input_error(neighbor_graph(X, k = 5), "`k`")
  expect_match(conditionMessage(err), "2 connected components")
  expect_match(conditionMessage(err), "sizes 30, 20")
  expect_identical(err$sizes, c(30L, 20L))
  # smallest k that connects it, checked by brute force on the structures
  kc <- err$k_needed
  nb <- knn(X, nrow(X) - 1)
  conn <- function(kk) {
    d <- directed_ref(nb$idx[, 1:kk, drop = FALSE], nb$dist[, 1:kk, drop = FALSE], "binary")
    count_components(d$P)$n == 1L
  }
  expect_true(conn(kc))
  expect_false(conn(kc - 1))
  expect_identical(kc, 20L)
})

test_that("mutual kNN: the connecting k uses the mutual rule", {
  set.seed(9)
  X <- matrix(rnorm(60), ncol = 2)
  err <- tryCatch(neighbor_graph(X, k = 2, symmetrize = "and"),
                  manifoldOOS_input_error = function(e) e)
  expect_s3_class(err, "manifoldOOS_input_error")
  nb <- knn(X, nrow(X) - 1)
  conn <- function(kk) {
    d <- directed_ref(nb$idx[, 1:kk, drop = FALSE], nb$dist[, 1:kk, drop = FALSE], "binary")
    count_components(d$P & t(d$P))$n == 1L
  }
  expect_true(conn(err$k_needed))
  expect_false(conn(err$k_needed - 1))
})

test_that("connect = 'mst' adds c - 1 edges, 'all_pairs' c(c - 1) / 2, both connect", {
  X <- blobs(c(25, 15, 20, 10))
  cc <- 4
  comp_true <- rep(1:4, c(25, 15, 20, 10))
  D <- as.matrix(dist(X))
  for (rule in c("mst", "all_pairs")) {
    expect_warning(g <- neighbor_graph(X, k = 5, weights = "distance",
                                        on_disconnected = "connect", connect = rule),
                   class = "manifoldOOS_warning")
    expect_identical(g$n_components, 1L)
    expect_identical(g$initial_components$n_components, 4L)
    expect_identical(count_components(structure_of(g$W))$n, 1L)
    ne <- nrow(g$added_edges)
    expect_equal(ne, if (rule == "mst") cc - 1 else cc * (cc - 1) / 2)
    # each added edge joins two components, has the Euclidean length, and
    # is the closest pair of points between those two components
    ae <- g$added_edges
    expect_true(all(ae$i < ae$j))
    expect_true(all(comp_true[ae$i] != comp_true[ae$j]))
    expect_equal(ae$length, D[cbind(ae$i, ae$j)], tolerance = 1e-14)
    expect_equal(ae$weight, ae$length)
    expect_equal(as.matrix(g$W)[cbind(ae$i, ae$j)], ae$length)
    for (e in seq_len(ne)) {
      a <- comp_true[ae$i[e]]; b <- comp_true[ae$j[e]]
      expect_equal(ae$length[e], min(D[comp_true == a, comp_true == b]))
    }
  }
  # the mst edges form a minimum spanning tree over the component distances
  Dc <- outer(1:4, 1:4, Vectorize(function(a, b) if (a == b) 0 else min(D[comp_true == a, comp_true == b])))
  g <- suppressWarnings(neighbor_graph(X, k = 5, on_disconnected = "connect"))
  mst_weight <- function(M) {  # Prim on a dense matrix
    inT <- c(TRUE, rep(FALSE, nrow(M) - 1)); tot <- 0
    while (!all(inT)) {
      sub <- M[inT, !inT, drop = FALSE]
      tot <- tot + min(sub)
      inT[which(!inT)[which(sub == min(sub), arr.ind = TRUE)[1, 2]]] <- TRUE
    }
    tot
  }
  expect_equal(sum(g$added_edges$length), mst_weight(Dc))
  expect_equal(g$added_edges$weight, rep(1, 3))
})

test_that("connect with heat weights gives added edges the heat weight of their length", {
  X <- blobs(c(20, 20), gap = 6)
  g <- suppressWarnings(neighbor_graph(X, k = 4, weights = "heat", sigma = 2,
                                        on_disconnected = "connect"))
  ae <- g$added_edges
  expect_equal(ae$weight, exp(-ae$length^2 / 8))
  expect_equal(as.matrix(g$W)[cbind(ae$i, ae$j)], ae$weight)
})

test_that("on_disconnected = 'largest' keeps the largest component", {
  X <- blobs(c(15, 40, 10))
  expect_warning(g <- neighbor_graph(X, k = 5, on_disconnected = "largest"),
                 class = "manifoldOOS_warning")
  expect_identical(g$kept, 16:55)
  expect_identical(dim(g$W), c(40L, 40L))
  expect_identical(g$n_components, 1L)
  expect_identical(g$initial_components$sizes, c(15L, 40L, 10L))
  full <- suppressWarnings(neighbor_graph(X, k = 5, on_disconnected = "connect"))
  expect_equal(as.matrix(g$W), as.matrix(full$W)[16:55, 16:55])
})

test_that("eps graphs: error gives the connecting eps, which indeed connects", {
  X <- blobs(c(20, 20), gap = 8)
  err <- expect_input_error(neighbor_graph(X, type = "eps", eps = 1), "`eps`")
  expect_match(conditionMessage(err), "connected components")
  e_need <- err$eps_needed
  # (these small graphs are dense: the average-degree warning is expected)
  g <- suppressWarnings(neighbor_graph(X, type = "eps", eps = e_need))
  expect_identical(g$n_components, 1L)
  expect_error(suppressWarnings(neighbor_graph(X, type = "eps", eps = e_need * (1 - 1e-8))),
               class = "manifoldOOS_input_error")
})

# ---- Laplacians ------------------------------------------------------------------

test_that("Laplacians: rows sum to 0, D^(1/2) 1 is in the null space of L_sym", {
  set.seed(10)
  X <- matrix(rnorm(80 * 3), ncol = 3)
  g <- neighbor_graph(X, k = 6, weights = "heat")
  W <- as.matrix(g$W)
  d <- rowSums(W)
  L <- graph_laplacian(g)
  expect_s4_class(L, "dgCMatrix")
  expect_equal(as.matrix(L), diag(d) - W, tolerance = 1e-14, ignore_attr = TRUE)
  expect_lt(max(abs(Matrix::rowSums(L))), 1e-13)
  expect_equal(attr(L, "degree"), d, tolerance = 1e-14)
  Ls <- graph_laplacian(g, "symmetric")
  expect_true(Matrix::isSymmetric(Ls))
  expect_lt(max(abs(as.vector(Ls %*% sqrt(d)))), 1e-13)
  expect_equal(as.matrix(Ls), diag(80) - diag(1 / sqrt(d)) %*% W %*% diag(1 / sqrt(d)),
               tolerance = 1e-13, ignore_attr = TRUE)
  Lr <- graph_laplacian(g, "random_walk")
  expect_lt(max(abs(Matrix::rowSums(Lr))), 1e-13)
  expect_equal(as.matrix(Lr), diag(80) - W / d, tolerance = 1e-13, ignore_attr = TRUE)
  # a plain symmetric matrix is accepted
  expect_equal(as.matrix(graph_laplacian(W)), as.matrix(L), ignore_attr = TRUE)
})

test_that("Laplacian slots equal a triplet-built reference (diagonal in W, isolated vertex, explicit zero)", {
  n <- 9
  for (iso in c(TRUE, FALSE)) {
    set.seed(12)
    A <- matrix(0, n, n)
    up <- which(upper.tri(A) & matrix(runif(n * n), n) < 0.5, arr.ind = TRUE)
    if (iso) up <- up[up[, 1] != 4 & up[, 2] != 4, , drop = FALSE]  # vertex 4 isolated
    A[up] <- runif(nrow(up))
    A[1, 4] <- if (iso) 0 else 0.3
    A[2, 7] <- 0  # an explicit zero weight: (2, 7) is stored
    A <- A + t(A)
    S <- A != 0 | (row(A) == 2 & col(A) == 7) | (row(A) == 7 & col(A) == 2)
    diag(S) <- c(TRUE, FALSE, TRUE, FALSE, FALSE, TRUE, FALSE, FALSE, TRUE)  # stored diagonal, ignored
    diag(A)[diag(S)] <- 5
    ij <- which(S, arr.ind = TRUE)
    W <- Matrix::sparseMatrix(i = ij[, 1], j = ij[, 2], x = A[ij], dims = c(n, n))
    d <- rowSums(A) - diag(A)
    for (type in if (iso) "unnormalized" else c("unnormalized", "symmetric", "random_walk")) {
      sc <- switch(type, unnormalized = rep(1, n), symmetric = 1 / sqrt(d), random_walk = 1 / d)
      off <- ij[ij[, 1] != ij[, 2], , drop = FALSE]
      v <- switch(type, unnormalized = -A[off], symmetric = -A[off] * (sc[off[, 1]] * sc[off[, 2]]),
                  random_walk = -A[off] * sc[off[, 1]])
      dg <- if (type == "unnormalized") d else rep(1, n)
      ref <- Matrix::sparseMatrix(i = c(off[, 1], 1:n), j = c(off[, 2], 1:n), x = c(v, dg), dims = c(n, n))
      L <- graph_laplacian(W, type)
      expect_identical(L@p, ref@p, info = paste(type, iso))
      expect_identical(L@i, ref@i, info = paste(type, iso))
      expect_identical(L@x, ref@x, info = paste(type, iso))
    }
  }
})

test_that("isolated vertices (underflowing heat weights) are detected", {
  set.seed(12)
  X <- matrix(rnorm(40), ncol = 2)
  g <- neighbor_graph(X, k = 3, weights = "heat", sigma = 1e-160)
  expect_identical(g$n_components, 1L)  # edges exist, their weights underflow
  L <- graph_laplacian(g)
  expect_identical(attr(L, "isolated"), 1:20)
  err <- expect_input_error(graph_laplacian(g, "symmetric"), "`g`")
  expect_match(conditionMessage(err), "isolated")
})

test_that("Laplacian input checks", {
  set.seed(13)
  X <- matrix(rnorm(40), ncol = 2)
  g <- neighbor_graph(X, k = 3, symmetrize = "none")
  expect_input_error(graph_laplacian(g), "`g`")
  expect_input_error(graph_laplacian(matrix(1:6, 2)), "`g`")
  expect_input_error(graph_laplacian(matrix(c(0, 1, 2, 0), 2)), "`g`")
  expect_input_error(graph_laplacian(g, "bogus"), "`type`")
})

# ---- geodesics --------------------------------------------------------------------

test_that("Dijkstra equals Floyd-Warshall on random graphs (with unreachable parts)", {
  set.seed(14)
  n <- 40
  # random symmetric graph with zero-length edges and an isolated pair
  M <- matrix(0, n, n)
  S <- matrix(runif(n * n) < 0.08, n, n)
  S[39:40, ] <- FALSE; S[, 39:40] <- FALSE; S[39, 40] <- TRUE
  S <- S | t(S); diag(S) <- FALSE
  len <- matrix(round(runif(n * n, 0, 3), 1), n, n); len <- pmin(len, t(len))
  ij <- which(S, arr.ind = TRUE)
  W <- Matrix::sparseMatrix(i = ij[, 1], j = ij[, 2], x = len[ij], dims = c(n, n))
  ref <- matrix(Inf, n, n); ref[ij] <- len[ij]
  ref <- floyd_warshall(ref)
  G <- geodesic_core(W, 1:n)
  expect_equal(G, ref, tolerance = 1e-13)
  expect_true(all(is.infinite(G[1, 39:40])))
  # directed graph: edge i -> j stored in W[i, j]
  Sd <- matrix(runif(n * n) < 0.1, n, n); diag(Sd) <- FALSE
  ijd <- which(Sd, arr.ind = TRUE)
  Wd <- Matrix::sparseMatrix(i = ijd[, 1], j = ijd[, 2], x = len[ijd], dims = c(n, n))
  refd <- matrix(Inf, n, n); refd[ijd] <- len[ijd]
  expect_equal(geodesic_core(Matrix::t(Wd), 1:n), floyd_warshall(refd), tolerance = 1e-13)
})

test_that("geodesic_distances on a kNN graph equals Floyd-Warshall and is thread independent", {
  set.seed(15)
  X <- matrix(rnorm(120 * 3), ncol = 3)
  g <- neighbor_graph(X, k = 6, weights = "distance")
  ref <- as.matrix(g$W)
  ref[!structure_of(g$W)] <- Inf
  ref <- floyd_warshall(ref)
  G1 <- with_threads(1, geodesic_distances(g))
  G2 <- with_threads(2, geodesic_distances(g))
  expect_identical(G1, G2)
  expect_equal(G1, ref, tolerance = 1e-12)
  expect_equal(G1, t(G1))
  src <- c(5, 17, 99)
  expect_identical(with_threads(2, geodesic_distances(g, sources = src)), G1[src, ])
  # directed kNN graph follows edge directions
  gd <- neighbor_graph(X, k = 6, symmetrize = "none", weights = "distance")
  refd <- as.matrix(gd$W)
  refd[!structure_of(gd$W)] <- Inf
  expect_equal(geodesic_distances(gd), floyd_warshall(refd), tolerance = 1e-12)
})

test_that("geodesics of points along a line are |i - j| times the spacing", {
  h <- 0.37
  X <- cbind(seq(0, by = h, length.out = 30), 0)
  g <- neighbor_graph(X, k = 3, weights = "distance")
  G <- geodesic_distances(g)
  expect_equal(G, h * abs(outer(1:30, 1:30, "-")), tolerance = 1e-12)
  # binary weights: hop counts
  gb <- neighbor_graph(X, k = 2, weights = "binary")
  hops <- ifelse(structure_of(gb$W), 1, Inf)
  expect_equal(geodesic_distances(gb), floyd_warshall(hops))
  expect_equal(geodesic_distances(gb, sources = 1)[1, 30], 27)  # 1 -> 3 -> ... -> 28 -> 30
})

test_that("geodesic_distances input checks", {
  set.seed(16)
  X <- matrix(rnorm(40), ncol = 2)
  g <- neighbor_graph(X, k = 3, weights = "heat")
  expect_input_error(geodesic_distances(g), "`g`")
  gd <- neighbor_graph(X, k = 3, weights = "distance")
  expect_input_error(geodesic_distances(gd, sources = 0), "`sources`")
  expect_input_error(geodesic_distances(gd, sources = 21), "`sources`")
  expect_input_error(geodesic_distances(gd, sources = 1.5), "`sources`")
  expect_input_error(geodesic_distances(as.matrix(gd$W)), "`g`")
})

# ---- neighbor_graph input checks and printing ---------------------------------

test_that("neighbor_graph validates its arguments", {
  set.seed(17)
  X <- matrix(rnorm(40), ncol = 2)
  expect_input_error(neighbor_graph(X, k = 20), "`k`")
  expect_input_error(neighbor_graph(X, k = 0), "`k`")
  expect_input_error(neighbor_graph(X, type = "eps"), "`eps`")
  expect_input_error(neighbor_graph(X, type = "eps", eps = -1), "`eps`")
  expect_input_error(neighbor_graph(X, type = "ball"), "`type`")
  expect_input_error(neighbor_graph(X, symmetrize = "xor"), "`symmetrize`")
  expect_input_error(neighbor_graph(X, weights = "gauss"), "`weights`")
  expect_input_error(neighbor_graph(X, weights = "heat", sigma = -1), "`sigma`")
  expect_input_error(neighbor_graph(X, weights = "heat", sigma = "silverman"), "`sigma`")
  expect_input_error(neighbor_graph(X, on_disconnected = "ignore"), "`on_disconnected`")
  expect_input_error(neighbor_graph(X, connect = "star"), "`connect`")
  Xna <- X; Xna[2, 1] <- NA
  expect_input_error(neighbor_graph(Xna), "`X`")
})

test_that("print shows the graph summary", {
  X <- blobs(c(20, 20))
  g <- suppressWarnings(neighbor_graph(X, k = 4, weights = "heat", on_disconnected = "connect"))
  out <- capture.output(print(g))
  expect_match(out[1], "kNN graph \\(k = 4\\) on 40 points")
  expect_true(any(grepl("2 components joined by 1 added edge", out)))
  expect_true(any(grepl("median_knn", out)))
})

test_that("edges added to connect components carry the graph's own weights", {
  X <- blobs(c(15, 12), gap = 40, seed = 4)
  for (w in c("binary", "heat", "distance")) {
    g <- neighbor_graph(X, k = 4, weights = w, sigma = 2.5, on_disconnected = "connect") |>
      suppressWarnings()
    e <- g$added_edges
    expect_gt(nrow(e), 0L)
    ref <- switch(w, binary = rep(1, nrow(e)), heat = exp(-e$length^2 / (2 * 2.5^2)),
                  distance = e$length)
    expect_identical(e$weight, ref)
    expect_identical(as.matrix(g$W)[as.matrix(e[, c("i", "j")])], ref)
    # the same rule as the kNN edges of the graph
    expect_identical(e$weight, unname(manifoldOOS:::core(manifoldOOS:::.mo_edge_weights(e$length, w, 2.5))))
  }
})

test_that("the former name neighbour_graph() works and warns with class manifoldOOS_deprecated", {
  set.seed(2)
  X <- matrix(rnorm(60), 30, 2)
  expect_warning(g_old <- neighbour_graph(X, k = 5, weights = "heat"), "neighbor_graph",
                 class = "manifoldOOS_deprecated")
  expect_identical(g_old, neighbor_graph(X, k = 5, weights = "heat"))
  expect_warning(expect_input_error(neighbour_graph(X, k = 0), "k"), class = "manifoldOOS_deprecated")
  expect_true("neighbour_graph" %in% getNamespaceExports("manifoldOOS"))
})
