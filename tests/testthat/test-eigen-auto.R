# The automatic choice between shift-invert and LOBPCG for the deflated
# bottom eigenproblems (choose_deflated_solver() in eigen_sparse.h): the
# symbolic analysis it reads, the rule, and the record in the fit.

path_laplacian <- function(n) {
  W <- Matrix::sparseMatrix(i = 1:(n - 1), j = 2:n, x = 1, dims = c(n, n), symmetric = TRUE)
  methods::as(methods::as(graph_laplacian(W, "unnormalized"), "generalMatrix"), "CsparseMatrix")
}

test_that("the predicted factor is exact where the fill is known", {
  # a path: no fill, L has the diagonal and one subdiagonal
  f <- manifoldOOS:::.mo_predicted_fill(path_laplacian(500) + Matrix::Diagonal(500))
  expect_equal(f[["lnz"]], 2 * 500 - 1)
  # a complete graph: a dense factor, m (m + 1) / 2 entries; Cholesky flops
  # sum_j c_j^2 over the column counts c_j = m - j + 1
  m <- 60
  K <- Matrix::Matrix(-1, m, m, sparse = TRUE)
  Matrix::diag(K) <- m
  K <- methods::as(methods::as(K, "generalMatrix"), "CsparseMatrix")
  f <- manifoldOOS:::.mo_predicted_fill(K)
  expect_equal(f[["lnz"]], m * (m + 1) / 2)
  expect_equal(f[["flops"]], sum((m:1)^2), tolerance = 0.05)
})

test_that("auto chooses by the predicted factorisation between fill_min_n and lobpcg_min_n", {
  X <- swiss_roll(3000, seed = 9)$x
  withr::local_options(manifoldOOS.fill_min_n = 1000L, manifoldOOS.lobpcg_min_n = 1e6)
  si <- laplacian_eigenmaps(X, 2, k = 10)
  expect_identical(si$solver$method, "spectra_shift_invert_deflated")
  expect_match(si$solver$note, "automatic choice: .*flops.*: shift-invert")
  # the same graph with a threshold it exceeds: LOBPCG, the same embedding
  withr::local_options(manifoldOOS.lobpcg_flops_per_nnz = 1)
  lo <- laplacian_eigenmaps(X, 2, k = 10)
  expect_identical(lo$solver$method, "lobpcg_amg_deflated")
  expect_match(lo$solver$note, ": LOBPCG")
  Ys <- unname(si$embedding)
  Yl <- unname(lo$embedding)
  Yl <- sweep(Yl, 2, sign(colSums(Yl * Ys)), `*`)
  expect_lt(max(abs(Yl - Ys)) / max(abs(Ys)), 1e-5)
  # a factor that would not fit in the memory available: LOBPCG as well (1 MB:
  # the neighbour lists, 0.72 MB, fit; half of it for the factor, 0.8 MB, not)
  withr::local_options(manifoldOOS.lobpcg_flops_per_nnz = 1e12, manifoldOOS.memory_limit = 1e6)
  mem <- laplacian_eigenmaps(X, 2, k = 10)
  expect_identical(mem$solver$method, "lobpcg_amg_deflated")
  expect_match(mem$solver$note, "GB\\): LOBPCG")
  expect_true(any(grepl("automatic choice", format(summary(mem)))))
  # outside the window the rule is by size, without an analysis
  withr::local_options(manifoldOOS.fill_min_n = 2e4, manifoldOOS.memory_limit = NULL)
  expect_false(grepl("automatic choice", laplacian_eigenmaps(X, 2, k = 10)$solver$note))
  withr::local_options(manifoldOOS.lobpcg_min_n = 2000L, manifoldOOS.fill_screen_n = 0L)
  big <- laplacian_eigenmaps(X, 2, k = 10)
  expect_identical(big$solver$method, "lobpcg_amg_deflated")
  expect_false(grepl("automatic choice", big$solver$note))
  # a forced solver is never overruled
  withr::local_options(manifoldOOS.fill_min_n = 1000L, manifoldOOS.lobpcg_min_n = 1e6,
                       manifoldOOS.lobpcg_flops_per_nnz = 1)
  expect_identical(laplacian_eigenmaps(X, 2, k = 10, eigen_solver = "sparse")$solver$method,
                   "spectra_shift_invert_deflated")
})

test_that("the analysis behind a shift-invert choice is not repeated by the factorisation", {
  X <- swiss_roll(3000, seed = 9)$x
  runs <- function(...) {
    before <- manifoldOOS:::.mo_cholmod_analyses()
    kept <- manifoldOOS:::.mo_cholmod_kept()
    fit <- laplacian_eigenmaps(X, 2, k = 10, ...)
    list(fit = fit, analyses = manifoldOOS:::.mo_cholmod_analyses() - before,
         kept = manifoldOOS:::.mo_cholmod_kept() - kept)
  }
  # no prediction (below fill_min_n): one analysis, inside the factorisation
  withr::local_options(manifoldOOS.fill_min_n = 2e4, manifoldOOS.lobpcg_min_n = 1e6)
  plain <- runs()
  expect_identical(plain$analyses, 1)
  # predicted, then factorised with the same analysis: still one, and the
  # same factor, so the same embedding to the last bit
  withr::local_options(manifoldOOS.fill_min_n = 1000L)
  reused <- runs()
  expect_match(reused$fit$solver$note, ": shift-invert")
  expect_identical(reused$analyses, 1)
  expect_identical(reused$kept, 1)
  expect_identical(reused$fit$embedding, plain$fit$embedding)
  # LTSA's alignment solve as well
  before <- manifoldOOS:::.mo_cholmod_analyses()
  fit <- ltsa(X[1:2500, ], 2, k = 12)
  expect_match(fit$solver$note, ": shift-invert")
  expect_identical(manifoldOOS:::.mo_cholmod_analyses() - before, 1)
  # a LOBPCG choice: the prediction only
  withr::local_options(manifoldOOS.lobpcg_flops_per_nnz = 1)
  lo <- runs()
  expect_match(lo$fit$solver$note, ": LOBPCG")
  expect_identical(lo$analyses, 1)
  # (the analysis was handed back with its pattern, then dropped unused)
  expect_identical(lo$kept, 1)
})

test_that("ltsa() records the automatic choice as well", {
  X <- swiss_roll(2500, seed = 3)$x
  withr::local_options(manifoldOOS.fill_min_n = 1000L, manifoldOOS.lobpcg_min_n = 1e6,
                       manifoldOOS.lobpcg_flops_per_nnz = 1)
  fit <- ltsa(X, 2, k = 12)
  expect_identical(fit$solver$method, "lobpcg_amg_deflated")
  expect_match(fit$solver$note, "automatic choice: .*: LOBPCG; .*the constant vector deflated")
})

test_that("the default threshold separates the low- and high-dimensional rolls of the calibration", {
  skip_on_cran()
  # 5 x 10^4 points, k = 15: the 3-D roll's factorisation is cheap (about
  # 1e3 flops per nonzero), the noisy 50-D roll's is not (about 2.5e4)
  # the benchmark's atlas roll: t uniform in [1.5 pi, 4.5 pi], height 21,
  # rotated into 50 dimensions with noise sd 0.3 (and its 3-D projection)
  n <- 5e4
  set.seed(19)
  rot <- qr.Q(qr(matrix(stats::rnorm(2500), 50)))[, 1:3]
  set.seed(11)
  t <- 1.5 * pi * (1 + 2 * stats::runif(n))
  h <- 21 * stats::runif(n)
  x50 <- cbind(t * cos(t), h, t * sin(t)) %*% t(rot) + 0.3 * matrix(stats::rnorm(n * 50), n, 50)
  for (case in list(list(X = x50 %*% rot, lobpcg = FALSE), list(X = x50, lobpcg = TRUE))) {
    g <- neighbor_graph(case$X, k = 15, knn_method = "hnsw")
    L <- methods::as(graph_laplacian(g$W, "symmetric"), "CsparseMatrix")
    f <- manifoldOOS:::.mo_predicted_fill(L)
    expect_identical(f[["flops"]] / length(L@x) > 1e4, case$lobpcg)
    # the screen of larger graphs (patches of 10^4 and 2 x 10^4 points) takes
    # the same decision; on the 50-D roll without analysing the whole graph
    ch <- manifoldOOS:::.mo_choose_deflated(L, manifoldOOS:::eig_opts(lobpcg_min_n = 0L))
    expect_identical(ch$lobpcg, case$lobpcg)
    expect_match(ch$note, if (case$lobpcg) "rows \\(above 2e\\+04\\): LOBPCG$" else "whole matrix was analysed")
  }
})

test_that("from lobpcg_min_n on, a screen on two patches decides whether the whole matrix is analysed", {
  X <- swiss_roll(3000, seed = 9)$x
  g <- neighbor_graph(X, k = 10)
  L <- methods::as(graph_laplacian(g$W, "symmetric"), "CsparseMatrix")
  choose <- function(...) {
    before <- manifoldOOS:::.mo_cholmod_analyses()
    r <- manifoldOOS:::.mo_choose_deflated(L, manifoldOOS:::eig_opts(lobpcg_min_n = 2000L, ...))
    r$analyses <- manifoldOOS:::.mo_cholmod_analyses() - before
    r
  }
  # a cheap factorisation (3-D roll): patches of 500 and 1000 rows, then the
  # whole matrix, whose analysis decides
  si <- choose(fill_screen_n = 1000L)
  expect_false(si$lobpcg)
  expect_identical(si$analyses, 3)
  expect_match(si$note, "patches of 500 and 1000 rows predict .* so the whole matrix was analysed; the sparse factorisation .*: shift-invert")
  # a threshold the patches exceed: LOBPCG without analysing the whole matrix
  lo <- choose(fill_screen_n = 1000L, lobpcg_flops_per_nnz = 1)
  expect_true(lo$lobpcg)
  expect_identical(lo$analyses, 2)
  expect_match(lo$note, "patches of 500 and 1000 rows .*\\(above 2\\): LOBPCG$")
  # no screen: LOBPCG by size; a screen as large as the matrix: the whole analysis
  none <- choose(fill_screen_n = 0L)
  expect_true(none$lobpcg)
  expect_identical(none$analyses, 0)
  expect_identical(none$note, "")
  whole <- choose(fill_screen_n = 5000L)
  expect_false(whole$lobpcg)
  expect_identical(whole$analyses, 1)
  expect_match(whole$note, "^automatic choice: the sparse factorisation")
  # below lobpcg_min_n the screen is not used
  win <- manifoldOOS:::.mo_choose_deflated(L, manifoldOOS:::eig_opts(fill_min_n = 1000L, fill_screen_n = 1000L))
  expect_false(grepl("patches", win$note))
  # the fits record it, and the embedding is the shift-invert one
  withr::local_options(manifoldOOS.lobpcg_min_n = 2000L, manifoldOOS.fill_screen_n = 1000L)
  fit <- laplacian_eigenmaps(X, 2, k = 10)
  expect_identical(fit$solver$method, "spectra_shift_invert_deflated")
  expect_match(fit$solver$note, "patches of 500 and 1000 rows")
  withr::local_options(manifoldOOS.fill_screen_n = 0L)
  expect_identical(laplacian_eigenmaps(X, 2, k = 10)$solver$method, "lobpcg_amg_deflated")
})

test_that("the screen's extrapolation follows the growth of the factorisation with the size", {
  predicted <- function(L, m) {
    note <- manifoldOOS:::.mo_choose_deflated(L, manifoldOOS:::eig_opts(lobpcg_min_n = 0L, fill_screen_n = m,
                                                                          lobpcg_flops_per_nnz = 1e12))$note
    as.numeric(sub(".*, about ([0-9.e+]+) at .*", "\\1", note))
  }
  whole <- function(L) manifoldOOS:::.mo_predicted_fill(L)[["flops"]] / length(L@x)
  # a path (tridiagonal): flops per nonzero do not grow, the patches predict
  # the whole matrix's
  n <- 6000
  P <- Matrix::bandSparse(n, k = c(0, 1), diagonals = list(rep(2, n), rep(-1, n - 1)), symmetric = TRUE)
  P <- methods::as(methods::as(P, "generalMatrix"), "CsparseMatrix")
  expect_equal(predicted(P, 1000L), whole(P), tolerance = 0.05)
  # a square grid: they grow (about as the square root of the size); patches
  # of 1/20 and 1/10 of the grid predict the whole within a factor of 1.5,
  # where the larger patch alone is off by a factor of about 6
  m <- 200
  A <- Matrix::kronecker(Matrix::Diagonal(m), P[1:m, 1:m]) + Matrix::kronecker(P[1:m, 1:m], Matrix::Diagonal(m))
  A <- methods::as(methods::as(A, "CsparseMatrix"), "generalMatrix")
  pr <- predicted(A, 4000L)
  wh <- whole(A)
  expect_lt(max(pr / wh, wh / pr), 1.5)
  r2 <- as.numeric(sub(".* predict [0-9.e+]+ and ([0-9.e+]+) flops.*", "\\1",
                       manifoldOOS:::.mo_choose_deflated(A, manifoldOOS:::eig_opts(lobpcg_min_n = 0L, fill_screen_n = 4000L,
                                                                                     lobpcg_flops_per_nnz = 1e12))$note))
  expect_gt(wh / r2, 2)
})
