# Piecewise-linear manifold learning (spec 003 §1-4, unit-test invariants of §11).

# flat_plane() and rds_roundtrip(): helper-flat.R

test_that("a flat rectangle in R^10 is reproduced up to a rigid motion for every root", {
  r <- flat_plane(300, seed = 4, p = 10, extent = c(6, 2), shift = NULL)  # a 6 x 2 rectangle in R^10
  D0 <- as.matrix(dist(r$Z))
  fit <- plml(r$X, ndim = 2, k = 10, seed = 2)
  expect_equal(fit$n_models, 30L)
  worst <- 0
  for (root in seq_len(fit$n_models)) {
    f <- plml(r$X, ndim = 2, k = 10, seed = 2, root = root)
    expect_equal(f$root, root)
    worst <- max(worst, max(abs(as.matrix(dist(embedding(f))) - D0)))
  }
  expect_lt(worst, 1e-8)
  # the literal p-space path and IHM (no rotation needed) as well
  fp <- plml(r$X, ndim = 2, k = 10, seed = 2, path = "pspace")
  expect_lt(max(abs(as.matrix(dist(embedding(fp))) - D0)), 1e-8)
  fi <- plml(r$X, ndim = 2, k = 10, seed = 2, variant = "ihm")
  expect_lt(max(abs(as.matrix(dist(embedding(fi))) - D0)), 1e-8)
})

test_that("the fast q-dimensional path equals the literal p-space path on the Swiss roll", {
  roll <- swiss_roll(800, seed = 5)
  for (root in c(1L, 40L, 88L)) {
    ff <- plml(roll$x, k = 9, seed = 3, root = root)
    fp <- plml(roll$x, k = 9, seed = 3, root = root, path = "pspace")
    expect_identical(ff$labels, fp$labels)
    expect_lt(max(abs(embedding(ff) - embedding(fp))), 1e-8)
  }
  # also with a similarity back-alignment and for IHM with backtracking
  ff <- plml(roll$x, k = 9, seed = 3, backalign = "similarity")
  fp <- plml(roll$x, k = 9, seed = 3, backalign = "similarity", path = "pspace")
  expect_lt(max(abs(embedding(ff) - embedding(fp))), 1e-8)
  ff <- plml(roll$x, k = 9, seed = 3, variant = "ihm", backalign = "similarity")
  fp <- plml(roll$x, k = 9, seed = 3, variant = "ihm", backalign = "similarity", path = "pspace")
  expect_lt(max(abs(embedding(ff) - embedding(fp))), 1e-8)
})

test_that("the constrained assignment is the exact optimum of the transportation problem", {
  set.seed(7)
  for (rep in 1:3) {
    X <- matrix(rnorm(18), 9)
    X[1:7, ] <- X[1:7, ] * 0.2  # most points near one centre: the constraint binds
    C <- rbind(c(0, 0), c(2, 2), c(-2, 1))
    lab <- manifoldOOS:::.mo_constrained_assignment(X, C, 3L, 3L)
    expect_equal(as.vector(table(factor(lab, 1:3))), c(3, 3, 3))
    cost <- function(l) sum(0.5 * rowSums((X - C[l, ])^2))
    grid <- as.matrix(expand.grid(rep(list(1:3), 9)))
    ok <- apply(grid, 1, function(l) all(tabulate(l, 3) >= 3))
    best <- min(apply(grid[ok, ], 1, cost))
    expect_equal(cost(lab), best, tolerance = 1e-12)
  }
  # larger problem: minimum sizes respected; restricting every point to its
  # nearest centres can only cost more than the full problem, and little
  X <- swiss_roll(500, seed = 8)$x
  C <- X[seq(1, 500, by = 10), ]
  l1 <- manifoldOOS:::.mo_constrained_assignment(X, C, 10L, 50L)
  l2 <- manifoldOOS:::.mo_constrained_assignment(X, C, 10L, 8L)
  expect_true(all(tabulate(l1, 50) >= 10))
  cost <- function(l) sum(0.5 * rowSums((X - C[l, ])^2))
  expect_true(all(tabulate(l2, 50) >= 10))
  expect_gte(cost(l2), cost(l1) - 1e-9)
  expect_lt(cost(l2), 1.01 * cost(l1))
})

test_that("candidate lists that cannot fill a cluster are widened before a solve, with the same result", {
  # one centre far from every point: no point lists it among its 2 nearest,
  # so the lists are widened (2 -> 8 >= 6 centres) without a failed solve
  set.seed(4)
  X <- matrix(rnorm(60, sd = 0.3), 30)
  C <- rbind(matrix(rnorm(10, sd = 0.3), 5), c(20, 20))
  a <- manifoldOOS:::.mo_constrained_assignment(X, C, 3L, 2L)
  b <- manifoldOOS:::.mo_constrained_assignment(X, C, 3L, 6L)
  expect_identical(as.vector(a), as.vector(b))
  expect_true(all(tabulate(a, 6) >= 3))
  expect_equal(attr(a, "stats")[["candidates"]], 6)
  expect_equal(attr(a, "stats")[["solves"]], 1)
  expect_equal(attr(b, "stats")[["solves"]], 1)
  # plml() records the candidates and solves of every step
  f <- plml(swiss_roll(400, seed = 2)$x, k = 10, seed = 1)
  expect_identical(colnames(f$kmeans$trace), c("paths", "phases", "seconds", "candidates", "solves"))
  expect_true(all(f$kmeans$trace[, "solves"] >= 1))
  expect_true(all(f$kmeans$trace[, "candidates"] >= 16))
})

# Exact optimum of the transportation problem min sum T_il cost_il, sum_l T_il = 1,
# sum_i T_il >= h (T integral), by the LP (totally unimodular); cost_il = Inf
# marks pairs outside the candidate lists.
lp_assignment_cost <- function(cost, h) {
  big <- 1e3 * max(cost[is.finite(cost)]) + 1
  cm <- cost
  cm[!is.finite(cm)] <- big
  sol <- lpSolve::lp.transport(cm, "min", rep("=", nrow(cm)), rep(1, nrow(cm)),
                               rep(">=", ncol(cm)), rep(h, ncol(cm)))
  expect_equal(sol$status, 0L)
  sol$objval
}
sq_cost <- function(X, C) 0.5 * outer(rowSums(X^2), rowSums(C^2), "+") - X %*% t(C)
assign_cost <- function(X, C, lab) sum(0.5 * rowSums((X - C[lab, , drop = FALSE])^2))
# The certificate returned with the labels: every point sits at its best
# candidate for the prices, and a priced cluster holds exactly h points.
expect_price_certificate <- function(X, C, lab, h, L) {
  pr <- attr(lab, "price")
  cost <- sq_cost(X, C)
  cand <- t(apply(cost, 1, function(r) order(r)[seq_len(L)]))
  v <- cost - matrix(pr, nrow(X), nrow(C), byrow = TRUE)
  mine <- v[cbind(seq_len(nrow(X)), as.vector(lab))]
  best <- vapply(seq_len(nrow(X)), function(i) min(v[i, cand[i, ]]), 0)
  expect_true(all(lab == cand[cbind(seq_len(nrow(X)), apply(cand == as.vector(lab), 1, which))]))
  expect_lte(max(mine - best), 1e-9 * max(1, max(abs(v))))
  expect_true(all(pr >= 0))
  expect_true(all(tabulate(lab, nrow(C))[pr > 1e-9 * max(1, max(pr))] == h))
}

test_that("the constrained assignment equals the LP optimum (ties, tight h * c = n, restricted candidates)", {
  skip_if_not_installed("lpSolve")
  set.seed(21)
  cases <- list(
    # clustered: most points near a few centres, h * c = n (every cluster exactly h)
    list(X = rbind(matrix(rnorm(120, sd = 0.3), 60), matrix(rnorm(40, 3), 20)),
         C = matrix(rnorm(20, sd = 2), 10), h = 8L, L = 10L),
    # ties: integer grid points and centres (many equal costs), slack n - c h = 4
    list(X = as.matrix(expand.grid(0:7, 0:7))[sample(64, 64), ],
         C = as.matrix(expand.grid(c(0, 7), c(0, 7, 3))), h = 10L, L = 6L),
    # duplicated points, a lonely far centre
    list(X = rbind(matrix(rep(c(0, 0), 30), 30, byrow = TRUE), matrix(runif(60), 30)),
         C = rbind(c(0, 0), c(0.5, 0.5), c(10, 10), c(1, 0)), h = 15L, L = 4L),
    # more clusters than candidates: the candidate-restricted problem
    list(X = matrix(runif(300), 150), C = matrix(runif(30), 15), h = 10L, L = 5L),
    list(X = matrix(rnorm(400), 200), C = matrix(rnorm(40, sd = 0.2), 20), h = 9L, L = 8L)
  )
  for (cs in cases) {
    X <- cs$X; C <- cs$C; c0 <- nrow(C)
    lab <- manifoldOOS:::.mo_constrained_assignment(X, C, cs$h, cs$L)
    expect_true(all(tabulate(lab, c0) >= cs$h))
    cost <- sq_cost(X, C)
    if (cs$L < c0) {  # keep every point's L nearest centres only
      keep <- t(apply(cost, 1, function(r) rank(r, ties.method = "first") <= cs$L))
      cost[!keep] <- Inf
    }
    ref <- lp_assignment_cost(cost, cs$h)
    expect_equal(assign_cost(X, C, lab), ref, tolerance = 1e-9)
    expect_price_certificate(X, C, lab, cs$h, cs$L)
  }
})

test_that("warm starts (prices and labels of another step) reach the same optimum", {
  skip_if_not_installed("lpSolve")
  set.seed(22)
  X <- rbind(matrix(rnorm(200, sd = 0.5), 100), matrix(rnorm(100, 2), 50))
  C1 <- X[sample(150, 15), ]
  a <- manifoldOOS:::.mo_constrained_assignment(X, C1, 10L, 15L)
  # the same centres: the warm start is already optimal, no path needed
  b <- manifoldOOS:::.mo_constrained_assignment(X, C1, 10L, 15L, attr(a, "price"), a)
  expect_equal(attr(b, "stats")[["augment"]], 0)
  expect_equal(assign_cost(X, C1, b), assign_cost(X, C1, a), tolerance = 1e-12)
  # moved centres (a Lloyd step), stale and even random prices: still the LP optimum
  C2 <- rowsum(X, a) / tabulate(a, 15)
  ref <- lp_assignment_cost(sq_cost(X, C2), 10L)
  for (pr in list(attr(a, "price"), runif(15, 0, 5), rep(0, 15))) {
    w <- manifoldOOS:::.mo_constrained_assignment(X, C2, 10L, 15L, pr, a)
    expect_equal(assign_cost(X, C2, w), ref, tolerance = 1e-9)
    expect_price_certificate(X, C2, w, 10L, 15L)
  }
  cold <- manifoldOOS:::.mo_constrained_assignment(X, C2, 10L, 15L)
  expect_equal(assign_cost(X, C2, cold), ref, tolerance = 1e-9)
})

test_that("a large assignment with many shortest-path phases stays optimal", {
  # k-means++-like seeds on a Swiss roll: a far-from-balanced start (thousands of
  # missing points, served by multi-path phases); compared
  # with a brute-force certificate: no point can move to a candidate cluster
  # more cheaply than the prices allow, and priced clusters are exactly full
  X <- swiss_roll(3000, seed = 23)$x
  set.seed(23)
  C <- X[sample(3000, 333), ]
  lab <- manifoldOOS:::.mo_constrained_assignment(X, C, 9L, 16L)
  st <- attr(lab, "stats")
  expect_gt(st[["phases"]], 10)
  expect_gt(st[["augment"]], st[["phases"]])  # some phases served several deficits
  expect_true(all(tabulate(lab, 333) >= 9))
  expect_price_certificate(X, C, lab, 9L, 16L)
  # the exact reference: the same problem restricted to 16 candidates as an LP
  skip_if_not_installed("lpSolve")
  Xs <- X[1:600, ]; Cs <- C[1:60, ]
  ls <- manifoldOOS:::.mo_constrained_assignment(Xs, Cs, 10L, 6L)
  cost <- sq_cost(Xs, Cs)
  keep <- t(apply(cost, 1, function(r) rank(r, ties.method = "first") <= 6))
  cost[!keep] <- Inf
  expect_equal(assign_cost(Xs, Cs, ls), lp_assignment_cost(cost, 10L), tolerance = 1e-9)
})

test_that("clusters respect the minimum size (constrained and kmeans_merge)", {
  roll <- swiss_roll(1003, seed = 9)
  fit <- plml(roll$x, k = 9, seed = 1, contiguous = FALSE)
  sz <- tabulate(fit$labels)
  expect_equal(fit$n_models, 1003L %/% 9L)
  expect_true(all(sz >= 9))
  expect_equal(sum(sz), 1003)
  expect_equal(fit$n_moved, 0L)
  # the contiguity repair keeps the models and only takes detached pieces away
  fc <- plml(roll$x, k = 9, seed = 1)
  szc <- tabulate(fc$labels, nbins = fc$n_models)
  expect_equal(fc$n_models, 1003L %/% 9L)
  expect_true(all(szc >= 3))
  expect_lte(sum(pmax(9 - szc, 0)), fc$n_moved)
  expect_equal(sum(fc$labels != fit$labels), fc$n_moved)
  fm <- plml(roll$x, k = 9, seed = 1, cluster = "kmeans_merge")
  expect_true(all(tabulate(fm$labels) >= 9))
  expect_lte(fm$n_models, 1003L %/% 9L)
})

test_that("seeding: random data points or k-means++, and the auto rule", {
  expect_identical(manifoldOOS:::plml_init("auto", "constrained", 5000L), "kmeans++")
  expect_identical(manifoldOOS:::plml_init("auto", "constrained", 5001L), "random")
  expect_identical(manifoldOOS:::plml_init("auto", "kmeans_merge", 50000L), "kmeans++")
  expect_identical(manifoldOOS:::plml_init("kmeans++", "constrained", 50000L), "kmeans++")
  expect_identical(manifoldOOS:::plml_init("random", "kmeans_merge", 100L), "random")
  roll <- swiss_roll(3000, seed = 4)
  fa <- plml(roll$x, k = 9, seed = 2)
  expect_identical(fa$params$init, "kmeans++")
  # clustering-level checks on the clusters as the constrained k-means returns them
  fr <- plml(roll$x, k = 9, seed = 2, init = "random", contiguous = FALSE)
  expect_identical(fr$params$init, "random")
  expect_true(all(tabulate(fr$labels, fr$n_models) >= 9))
  expect_equal(fr$n_models, 3000L %/% 9L)
  # the stored objective is the one of the returned clusters
  M <- rowsum(roll$x, fr$labels) / tabulate(fr$labels)
  expect_equal(fr$kmeans$objective, sum(0.5 * rowSums((roll$x - M[fr$labels, ])^2)), tolerance = 1e-10)
  expect_true(fr$kmeans$converged)
  # different seeds, a different local optimum of the same problem
  expect_false(identical(fa$labels, fr$labels))
  # reproducible, and a different seed gives different seeds
  expect_identical(plml(roll$x, k = 9, seed = 2, init = "random", contiguous = FALSE)$labels, fr$labels)
  expect_false(identical(plml(roll$x, k = 9, seed = 3, init = "random", contiguous = FALSE)$labels, fr$labels))
  # the embedding is as good either way
  expect_gt(trustworthiness(roll$x, embedding(fr), k = 10), 0.99)
  expect_error(plml(roll$x, k = 9, init = "best"), class = "manifoldOOS_input_error")
})

test_that("MSTs: exact point MST, kNN-graph MST, model tree and Euler walk", {
  set.seed(10)
  X <- matrix(rnorm(300), 100)
  e <- manifoldOOS:::.mo_euclidean_mst(X, 0L, 1L)
  expect_equal(nrow(e), 99L)
  # total weight equals a brute-force Prim in R
  D <- as.matrix(dist(X))
  intree <- c(TRUE, rep(FALSE, 99)); best <- D[1, ]; total <- 0
  for (s in 1:99) {
    v <- which(!intree)[which.min(best[!intree])]
    total <- total + best[v]; intree[v] <- TRUE; best <- pmin(best, D[v, ])
  }
  expect_equal(sum(e$weight), unname(total), tolerance = 1e-12)
  # the kNN-graph MST is the exact MST when the kNN graph contains it;
  # disconnected kNN graphs are joined
  ek <- manifoldOOS:::.mo_euclidean_mst(X, 10L, 1L)
  expect_equal(sum(ek$weight), unname(total), tolerance = 1e-12)
  ek2 <- manifoldOOS:::.mo_euclidean_mst(rbind(X, X + 100), 3L, 1L)
  expect_equal(nrow(ek2), 199L)
  # model tree and walk
  roll <- swiss_roll(600, seed = 11)
  fit <- plml(roll$x, k = 10, seed = 1, root = 5)
  cc <- fit$n_models
  expect_equal(nrow(fit$model_tree), cc - 1L)
  expect_setequal(unique(fit$walk), seq_len(cc))
  expect_equal(fit$walk[1], 5L)
  expect_equal(unname(fit$moves), c(cc - 1L, length(fit$walk) - cc))
  # consecutive walk entries are tree edges; the walk stops at the last new model
  key <- function(a, b) paste(pmin(a, b), pmax(a, b))
  w <- fit$walk
  expect_true(all(key(head(w, -1), tail(w, -1)) %in% key(fit$model_tree$from, fit$model_tree$to)))
  expect_false(tail(w, 1) %in% head(w, -1))
  expect_lte(length(w) - 1L, 2L * (cc - 1L))
  fi <- plml(roll$x, k = 10, seed = 1, variant = "ihm")
  expect_equal(fi$params$topology, "centroid_mst")
  expect_equal(nrow(fi$model_tree), fi$n_models - 1L)
})

test_that("Swiss roll n = 2000, k = 9: trustworthiness >= 0.99, embedding keeps its scale", {
  roll <- swiss_roll(2000, seed = 1)
  fit <- plml(roll$x, ndim = 2, k = 9, seed = 1)
  Y <- embedding(fit)
  expect_gte(trustworthiness(roll$x, Y, k = 10), 0.99)
  # not normalised: the similarity fitted onto the isometric unrolling has scale ~ 1
  pr <- procrustes(roll$truth_isometric, Y, scale = TRUE)
  expect_gt(pr$scale, 0.9)
  expect_lt(pr$scale, 1.1)
  # the root hardly matters
  tr <- vapply(c(1L, 222L), function(r)
    trustworthiness(roll$x, embedding(plml(roll$x, k = 9, seed = 1, root = r)), k = 10), 0)
  expect_lt(diff(range(tr)), 0.005)
  expect_true(all(tr >= 0.99))
})

test_that("dense rolls: no cluster spans two layers and T(10) >= 0.99 for k in 5..14", {
  # issue 22: without the contiguity repair the constrained assignment gave
  # some clusters points of the next layer and the fit folded (T(10) 0.86 at
  # k = 9 and 0.97 at k = 6 on this roll)
  roll <- swiss_roll(2000, seed = 20110901)
  layer_ratio <- function(fit) {  # intrinsic over ambient diameter, worst cluster
    max(tapply(seq_len(2000), fit$labels, function(i)
      max(stats::dist(roll$truth_isometric[i, ])) / max(stats::dist(roll$x[i, ]))))
  }
  f0 <- plml(roll$x, ndim = 2, k = 9, seed = 1, contiguous = FALSE)
  expect_gt(layer_ratio(f0), 3)
  expect_lt(trustworthiness(roll$x, embedding(f0), k = 10), 0.95)
  for (k in c(6L, 9L, 13L)) {
    f <- plml(roll$x, ndim = 2, k = k, seed = 1)
    expect_lt(layer_ratio(f), 2)
    expect_gte(trustworthiness(roll$x, embedding(f), k = 10), 0.99)
  }
  roll2 <- swiss_roll(2000, seed = 2)
  expect_gte(trustworthiness(roll2$x, embedding(plml(roll2$x, ndim = 2, k = 13, seed = 1)), k = 10), 0.99)
})

test_that("predict: GOoSE default and per-model maps; batch = row-by-row; RDS round trip", {
  roll <- swiss_roll(1600, seed = 12)
  tr <- 1:1500
  fit <- plml(roll$x[tr, ], k = 9, seed = 1)
  Xn <- roll$x[-tr, ]
  yg <- predict(fit, Xn)
  expect_equal(dim(yg), c(100L, 2L))
  # the default is the GOoSE core of oos_map()
  ref <- predict(oos_map(roll$x[tr, ], embedding(fit), method = "goose", k = 10), Xn)
  expect_equal(unname(yg), unname(ref), tolerance = 1e-12, ignore_attr = TRUE)
  ym <- predict(fit, Xn, method = "model")
  one_g <- t(vapply(1:100, function(i) predict(fit, Xn[i, , drop = FALSE])[1, ], numeric(2)))
  one_m <- t(vapply(1:100, function(i) predict(fit, Xn[i, , drop = FALSE], method = "model")[1, ],
                    numeric(2)))
  expect_equal(unname(one_g), unname(yg), tolerance = 1e-12)
  expect_equal(unname(one_m), unname(ym), tolerance = 1e-12)
  # per-model maps reproduce the training embedding exactly
  expect_lt(max(abs(predict(fit, roll$x[tr, ], method = "model") - embedding(fit))), 1e-8)
  # both rules place held-out points close to where the truth says (up to a similarity)
  pr <- procrustes(embedding(fit), roll$truth_isometric[tr, ])
  for (y in list(yg, ym)) {
    e <- sqrt(rowSums((roll$truth_isometric[-tr, ] - (pr$scale * y %*% pr$rotation +
                       matrix(pr$translation, 100, 2, byrow = TRUE)))^2))
    expect_lt(median(e), 1)
  }
  fit2 <- rds_roundtrip(fit)
  expect_identical(predict(fit2, Xn), yg)
  expect_identical(predict(fit2, Xn, method = "model"), ym)
})

test_that("the same seed gives the same fit; IHM and kmeans_merge run", {
  roll <- swiss_roll(500, seed = 13)
  a <- plml(roll$x, k = 10, seed = 42)
  b <- plml(roll$x, k = 10, seed = 42)
  expect_identical(embedding(a), embedding(b))
  set.seed(1); c1 <- plml(roll$x, k = 10)
  set.seed(1); c2 <- plml(roll$x, k = 10)
  expect_identical(embedding(c1), embedding(c2))
  fi <- plml(roll$x, k = 10, seed = 1, variant = "ihm", cluster = "kmeans_merge")
  expect_true(all(is.finite(embedding(fi))))
  expect_s3_class(summary(fi), "summary.manifold_fit")
})

test_that("bad input gives classed errors or the documented fallback", {
  roll <- swiss_roll(100, seed = 14)
  expect_input_error(plml(roll$x, ndim = 2, k = 2), "k")
  expect_input_error(plml(roll$x, ndim = 2, k = 51), "k")
  expect_input_error(plml(roll$x, ndim = 3, k = 10), "ndim")
  expect_input_error(plml(roll$x, k = 10, root = 11), "root")
  expect_input_error(plml(roll$x, k = 10, variant = "x"), "variant")
  expect_input_error(plml(roll$x, k = 10, h = 20), "h")
  fit <- plml(roll$x, k = 10, seed = 1)
  expect_input_error(predict(fit, roll$x, method = "nope"), "method")
  expect_input_error(predict(fit, roll$x[, 1:2]))
  # clusters of rank <= ndim (points on a line in R^3): warning, finite result
  set.seed(1)
  t <- runif(60)
  L <- cbind(t, 2 * t, -t)
  expect_warning(fl <- plml(L, ndim = 2, k = 6, seed = 1), "rank")
  expect_true(all(is.finite(embedding(fl))))
})
