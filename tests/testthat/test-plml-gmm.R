# Gaussian mixture clustering (Bouman's CLUSTER as used by IHM, BMVC 2010)
# and plml(cluster = "gmm").

three_blobs <- function(seed = 1, m = 80) {
  set.seed(seed)
  centres <- rbind(c(0, 0, 0), c(12, 0, 0), c(0, 12, 6))
  # anisotropic, correlated covariances
  A <- list(diag(c(1, 0.3, 0.5)), matrix(c(1, 0.6, 0, 0, 1, 0, 0, 0, 0.4), 3),
            matrix(c(0.5, 0, 0, 0.4, 1.2, 0, 0.2, 0, 0.7), 3))
  x <- do.call(rbind, lapply(1:3, function(j) {
    sweep(matrix(rnorm(3 * m), m) %*% A[[j]], 2, centres[j, ], "+")
  }))
  list(x = x, truth = rep(1:3, each = m), centres = centres)
}

test_that("EM never decreases the penalised log-likelihood, for every number of components", {
  b <- three_blobs(2)
  g <- gmm_cluster(b$x, n_components = 8, seed = 3)
  expect_length(g$trace, 8L)
  expect_setequal(as.integer(names(g$trace)), 1:8)
  for (tr in g$trace) {
    expect_gt(length(tr), 1L)
    expect_true(all(diff(tr) >= -1e-9 * abs(tr[-1])))
  }
  # the same holds on a Swiss roll started from 32 components
  r <- swiss_roll(600, seed = 5)
  g2 <- gmm_cluster(r$x, n_components = 12, min_components = 6, seed = 1)
  for (tr in g2$trace) expect_true(all(diff(tr) >= -1e-9 * abs(tr[-1])))
  expect_equal(g2$mdl$K, 12:6)
})

test_that("well-separated Gaussians: MDL picks their number and the partition is theirs", {
  for (s in 1:3) {
    b <- three_blobs(s)
    g <- gmm_cluster(b$x, n_components = 10, seed = s)
    expect_equal(g$n_clusters, 3L)
    tab <- table(g$labels, b$truth)
    # a permutation matrix times the class size: every point recovered
    expect_equal(sort(as.vector(tab)), c(rep(0, 6), rep(80, 3)))
    # the chosen K has the smallest description length among those tried
    expect_equal(g$mdl$K[which.min(g$mdl$mdl)], 3L)
    # means recovered within sampling error (sd <= 1.5, 80 points per class)
    o <- apply(tab, 2L, which.max)
    expect_lt(max(abs(g$means[o, ] - b$centres)), 0.6)
    expect_equal(sum(g$weights), 1, tolerance = 1e-12)
    expect_equal(g$weights[o], rep(1 / 3, 3), tolerance = 1e-6)
  }
})

test_that("the partition is equivariant: translated and rotated data give the same labels", {
  b <- three_blobs(4)
  g <- gmm_cluster(b$x, n_components = 6, seed = 9)
  Q <- qr.Q(qr(matrix(c(2, 1, 0, -1, 3, 1, 0.5, 0, 1), 3)))
  x2 <- sweep(b$x %*% Q, 2, c(100, -40, 7), "+")
  g2 <- gmm_cluster(x2, n_components = 6, seed = 9)
  expect_identical(g2$labels, g$labels)
  expect_equal(g2$loglik, g$loglik, tolerance = 1e-8)
  expect_equal(g2$means, sweep(g$means %*% Q, 2, c(100, -40, 7), "+"), tolerance = 1e-6)
})

test_that("hard labels are the argmax of the component densities and are numbered without gaps", {
  r <- swiss_roll(500, seed = 2)
  g <- gmm_cluster(r$x, n_components = 10, seed = 4)
  expect_equal(sort(unique(g$labels)), seq_len(g$n_clusters))
  logd <- vapply(seq_len(g$n_clusters), function(c) {
    S <- g$covariances[, , c]
    d <- sweep(r$x, 2L, g$means[c, ])
    -0.5 * (3 * log(2 * pi) + as.numeric(determinant(S)$modulus) + rowSums((d %*% solve(S)) * d))
  }, numeric(nrow(r$x)))
  expect_identical(g$labels, max.col(logd, ties.method = "first"))
})

test_that("plml(cluster = 'gmm') uses the mixture's partition (small clusters merged)", {
  r <- swiss_roll(800, seed = 7)
  f <- plml(r$x, 2, k = 40, variant = "ihm", cluster = "gmm", n_components = 12, seed = 3,
            backalign = "similarity")
  g <- gmm_cluster(r$x, n_components = 12, seed = 3)
  expect_equal(f$gmm$n_clusters, g$n_clusters)
  expect_equal(f$gmm$mdl, g$mdl)
  expect_identical(f$labels, manifoldOOS:::merge_small_clusters(r$x, g$labels, 3L))
  expect_true(all(tabulate(f$labels) >= 3L))
  expect_equal(f$n_models, max(f$labels))
  expect_identical(f$params$cluster, "gmm")
  expect_identical(f$params$n_components, 12L)
  # the fit is a deterministic function of the seed
  f2 <- plml(r$x, 2, k = 40, variant = "ihm", cluster = "gmm", n_components = 12, seed = 3,
             backalign = "similarity")
  expect_identical(embedding(f2), embedding(f))
  # the merging of small clusters: every cluster ends with >= h points
  lab <- manifoldOOS:::merge_small_clusters(r$x, rep(1:80, each = 10), 25L)
  expect_true(all(tabulate(lab) >= 25L))
  expect_equal(sort(unique(lab)), seq_len(max(lab)))
})

test_that("gmm_cluster and plml(cluster = 'gmm') reject bad input with classed errors", {
  x <- matrix(rnorm(60), 20)
  expect_error(gmm_cluster(x, n_components = 0), class = "manifoldOOS_input_error")
  expect_error(gmm_cluster(x, n_components = 21), class = "manifoldOOS_input_error")
  expect_error(gmm_cluster(x, n_components = 4, min_components = 5), class = "manifoldOOS_input_error")
  expect_error(gmm_cluster(x, reg = 0), class = "manifoldOOS_input_error")
  expect_error(gmm_cluster(matrix(1, 10, 3), n_components = 2), "no variance", class = "manifoldOOS_input_error")
  expect_error(plml(x, 2, k = 5, cluster = "gmm", n_components = 1), class = "manifoldOOS_input_error")
  # one tight blob: the mixture keeps one cluster, which PLML cannot use
  set.seed(1)
  blob <- matrix(rnorm(300), 100)
  expect_error(plml(blob, 2, k = 10, cluster = "gmm", n_components = 4, seed = 1),
               "single cluster", class = "manifoldOOS_input_error")
})

test_that("a constant column (singular sample covariance) is fitted, not an unclassed chol() error", {
  set.seed(2)
  X <- rbind(matrix(rnorm(60, 0), 30), matrix(rnorm(60, 8), 30))
  Xc <- cbind(X, 5)
  g <- gmm_cluster(Xc, n_components = 4, seed = 1)
  expect_length(g$labels, 60L)
  # the two well-separated groups stay apart
  expect_length(intersect(unique(g$labels[1:30]), unique(g$labels[31:60])), 0L)
})
