# S3 classes share one prefix, manifold_ (issue 18); the exported objects
# that had another class keep it second for one release.

test_that("objects carry manifold_ classes, the former class second", {
  X <- swiss_roll(90, seed = 2)$x
  Y <- embedding(pca(X, 2))
  g <- neighbor_graph(X, k = 5)
  expect_identical(class(g), c("manifold_graph", "mlgraph"))
  expect_output(print(g), "<manifold_graph>")
  Q <- coranking(X, Y, K_max = 10)
  expect_identical(class(Q), c("manifold_coranking", "mo_coranking"))
  pr <- procrustes(Y, X[, 1:2])
  expect_identical(class(pr), c("manifold_procrustes", "mo_procrustes"))
  l1 <- l1_code(X[1:40, ], X[41:42, ])
  expect_identical(class(l1), c("manifold_l1_code", "mo_l1_code"))
  gm <- gmm_cluster(X[1:60, ], n_components = 3, seed = 1)
  expect_identical(class(gm), c("manifold_gmm", "manifoldOOS_gmm"))
  for (obj in list(g, Q, pr, l1, gm)) {
    expect_true(inherits(obj, class(obj)[2]))
    # print dispatches to the manifold_ method (one per class, registered)
    expect_false(is.null(getS3method("print", class(obj)[1], optional = TRUE)))
    expect_null(getS3method("print", class(obj)[2], optional = TRUE))
  }
  expect_identical(class(summary(isomap(X, 2, k = 8))$extra), "manifold_summary_lines")
  expect_identical(class(summary(lpp(X, 2, k = 6))$extra), "manifold_text")
})

test_that("a graph saved under the former class only is still taken as a graph", {
  X <- swiss_roll(80, seed = 3)$x
  g <- neighbor_graph(X, k = 6, weights = "distance")
  old <- g
  class(old) <- "mlgraph"
  expect_identical(graph_laplacian(old, "symmetric"), graph_laplacian(g, "symmetric"))
  expect_identical(geodesic_distances(old, sources = 1:3), geodesic_distances(g, sources = 1:3))
  expect_identical(embedding(lpp(X, 2, graph = old)), embedding(lpp(X, 2, graph = g)))
  expect_error(geodesic_distances(unclass(g), sources = 1), class = "manifoldOOS_input_error")
})

test_that("every registered S3 method is for a manifold_ class, a default or the recipes step", {
  tab <- ls(get(".__S3MethodsTable__.", envir = asNamespace("manifoldOOS")))
  ok <- grepl("\\.(summary\\.)?manifold_[a-z0-9_]+$|\\.default$|\\.step_manifold$", tab)
  expect_identical(tab[!ok], character(0))
})

test_that("fits and out-of-sample maps print the same opening lines", {
  r <- swiss_roll(60, seed = 5)
  f <- pca(r$x, 2)
  m <- oos_map(r$x, r$truth, method = "linear")
  out_f <- capture.output(print(f))
  out_m <- capture.output(print(m))
  expect_identical(out_f[1:2], c("<manifoldOOS fit: PCA>", "  60 training points, 3 features -> 2 dimensions"))
  expect_identical(out_m[1:2], c(sprintf("<manifoldOOS out-of-sample map: %s>", m$method),
                                 "  60 training points, 3 features -> 2 embedding dimensions"))
  expect_identical(sum(startsWith(out_f, "  parameters:")), as.integer(length(f$params) > 0))
  sum_f <- capture.output(print(summary(f)))
  sum_m <- capture.output(print(summary(m)))
  expect_identical(sum_f[1:2], c("manifoldOOS fit: PCA",
                                 "  training points: 60   features: 3   embedding dimensions: 2"))
  expect_identical(sum_m[1:2], c(sprintf("manifoldOOS out-of-sample map: %s", m$method),
                                 "  training points: 60   features: 3   embedding dimensions: 2"))
  expect_gte(sum(grepl("^    [a-z_]+ +", sum_m)), length(m$params))
})
