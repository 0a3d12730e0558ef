# Fuzz of the input model (see helper-fuzz.R): sparse matrices, `metric`,
# `pca` and `pca_scale` on knn(), pca(), the fitting functions and
# predict(); every outcome is a value or a classed condition naming an
# argument.

fzi_sparse_pool <- function(n = 30L, p = 6L) {
  set.seed(9)
  good <- Matrix::rsparsematrix(n, p, density = 0.5)
  good[cbind(seq_len(n), rep_len(seq_len(p), n))] <- 1
  with_x <- function(v, at) {
    s <- good
    s@x[at] <- v
    s
  }
  list(
    na = with_x(NA, 3L), nan = with_x(NaN, 2L), inf = with_x(Inf, 5L), neg_inf = with_x(-Inf, 1L),
    huge = with_x(1e300, 4L), zero_rows = good[0, , drop = FALSE], one_row = good[1, , drop = FALSE],
    zero_cols = good[, 0, drop = FALSE], empty = Matrix::Matrix(0, n, p, sparse = TRUE),
    pattern = methods::as(good != 0, "nMatrix"), triplet = methods::as(good, "TsparseMatrix"),
    row_compressed = methods::as(good, "RsparseMatrix"), symmetric = Matrix::forceSymmetric(good[1:p, ]),
    zero_row = { s <- good; s[2, ] <- 0; Matrix::drop0(s) }
  )
}

fzi_run <- function(name, fun, args, arg, values) {
  out <- lapply(names(values), function(case) {
    a <- args
    if (is.null(values[[case]])) a[arg] <- list(NULL) else a[[arg]] <- values[[case]]
    r <- fuzz_call(fun, a, arg)
    data.frame(fun = name, arg = arg, case = case, status = r$status, message = r$message,
               stringsAsFactors = FALSE)
  })
  do.call(rbind, out)
}

test_that("sparse inputs, metrics and pca = give values or classed errors", {
  sp <- fzi_sparse_pool()
  X <- as.matrix(fzi_sparse_pool()$triplet)
  fits <- list(
    knn = list(fun = knn, args = list(X = sp$triplet, k = 3)),
    pca = list(fun = pca, args = list(X = sp$triplet, ndim = 2)),
    isomap = list(fun = isomap, args = list(X = sp$triplet, ndim = 2, k = 6, pca = 4)),
    lle = list(fun = lle, args = list(X = sp$triplet, ndim = 2, k = 6, metric = "cosine")),
    laplacian_eigenmaps = list(fun = laplacian_eigenmaps, args = list(X = X, ndim = 2, k = 6, pca = 3)),
    ltsa = list(fun = ltsa, args = list(X = X, ndim = 2, k = 6, metric = "correlation")),
    lpp = list(fun = lpp, args = list(X = X, ndim = 2, k = 6, pca = 3)),
    neighbor_graph = list(fun = neighbor_graph, args = list(X = X, k = 6, metric = "cosine"))
  )
  res <- list()
  for (nm in names(fits)) {
    f <- fits[[nm]]
    res[[length(res) + 1L]] <- fzi_run(nm, f$fun, f$args, "X", sp)
    if (nm != "pca") res[[length(res) + 1L]] <- fzi_run(nm, f$fun, f$args, "metric", fuzz_pool("choice"))
    if (!nm %in% c("knn", "pca", "neighbor_graph")) {
      res[[length(res) + 1L]] <- fzi_run(nm, f$fun, f$args, "pca", fuzz_pool("int"))
      if (nm != "lpp") res[[length(res) + 1L]] <- fzi_run(nm, f$fun, f$args, "pca_scale", fuzz_pool("flag"))
    }
  }
  # predict() of a fit with an input model, on malformed new rows
  fit <- isomap(X, ndim = 2, k = 6, pca = 3, metric = "cosine")
  res[[length(res) + 1L]] <- fzi_run("predict", function(...) predict(fit, ...), list(newdata = X[1:5, ]),
                                     "newdata", c(sp, fuzz_pool("data", p = 6L)))
  res <- do.call(rbind, res)
  defects <- res[res$status == "defect", ]
  expect_identical(nrow(defects), 0L,
                   info = paste(utils::capture.output(print(defects[, c("fun", "arg", "case", "message")])),
                                collapse = "\n"))
  # the malformed cases do reach the checks (not all "ok")
  expect_gt(sum(res$status == "classed"), 100)
})

test_that("a sparse matrix with NA and an unknown metric name the argument", {
  sp <- fzi_sparse_pool()
  e <- expect_error(isomap(sp$na, ndim = 2, k = 5, pca = 3), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "X")
  e <- expect_error(pca(sp$inf, 2), class = "manifoldOOS_input_error")
  expect_identical(e$arg, "X")
  e <- expect_error(ltsa(as.matrix(sp$triplet), ndim = 2, k = 5, metric = "cityblock"),
                    class = "manifoldOOS_input_error")
  expect_identical(e$arg, "metric")
})
