# SingleCellExperiment and Seurat objects in and out: the same fits and
# predictions as the matrices they hold, features matched by name.

ct_data <- local({
  set.seed(3)
  lam <- outer(seq(0.5, 5, length.out = 40), seq(0.2, 2, length.out = 300))
  counts <- matrix(rpois(length(lam), lam), 40, 300,
                   dimnames = list(paste0("gene", 1:40), paste0("cell", 1:300)))
  list(counts = counts, lc = log1p(counts), ref = 1:240, query = 241:300)
})

ct_sce <- function(sparse = FALSE) {
  skip_if_not_installed("SingleCellExperiment")
  lc <- if (sparse) methods::as(ct_data$lc, "dgCMatrix") else ct_data$lc
  SingleCellExperiment::SingleCellExperiment(list(counts = ct_data$counts, logcounts = lc))
}

ct_plain <- function(y) {
  y <- unname(as.matrix(y))
  attributes(y) <- list(dim = dim(y))
  y
}

test_that("a SingleCellExperiment gives the fit and predictions of the matrix it holds", {
  d <- ct_data
  Xr <- t(d$lc[, d$ref])
  Xq <- t(d$lc[, d$query])
  for (sparse in c(FALSE, TRUE)) {
    sce <- ct_sce(sparse)
    fits <- list(
      le = function(X) laplacian_eigenmaps(X, ndim = 2, k = 10),
      isomap_pca = function(X) isomap(X, ndim = 2, k = 10, pca = 8),
      diffusion = function(X) diffusion_map(X, ndim = 2),
      ltsa = function(X) ltsa(X, ndim = 2, k = 12))
    for (nm in names(fits)) {
      f1 <- fits[[nm]](sce[, d$ref])
      f2 <- fits[[nm]](Xr)
      expect_equal(ct_plain(embedding(f1)), ct_plain(embedding(f2)), tolerance = 1e-10, info = nm)
      expect_identical(rownames(embedding(f1)), colnames(sce)[d$ref])
      expect_identical(f1$feature_names, rownames(sce))
      expect_identical(f1$input$source$assay, "logcounts")
      y1 <- predict(f1, sce[, d$query])
      expect_equal(ct_plain(y1), ct_plain(predict(f2, Xq)), tolerance = 1e-10, info = nm)
      # genes in another order: identical predictions
      expect_identical(predict(f1, sce[sample(nrow(sce)), d$query]), y1, info = nm)
    }
  }
})

test_that("missing genes: a classed error that counts them, or zeros with a counted warning", {
  sce <- ct_sce()
  d <- ct_data
  fit <- isomap(sce[, d$ref], ndim = 2, k = 10)
  q <- sce[-c(4, 9, 30), d$query]
  e <- tryCatch(predict(fit, q), manifoldOOS_input_error = function(e) e)
  expect_identical(e$arg, "newdata")
  expect_match(conditionMessage(e), "Missing 3 of 40: \"gene4\", \"gene9\", \"gene30\"", fixed = TRUE)
  expect_warning(y <- predict(fit, q, missing = "zero"), "lacks 3 of the 40",
                 class = "manifoldOOS_missing_features_warning")
  Xq <- t(d$lc[, d$query])
  Xq[, c(4, 9, 30)] <- 0
  expect_equal(ct_plain(y), ct_plain(predict(fit, Xq)), tolerance = 1e-12)
  # extra genes in the query are ignored
  big <- rbind(d$lc[, d$query], extra = 1)
  sq <- SingleCellExperiment::SingleCellExperiment(list(logcounts = big))
  expect_identical(ct_plain(predict(fit, sq)), ct_plain(predict(fit, sce[, d$query])))
})

test_that("cell_input() chooses the assay or a reducedDim; add_embedding() stores the coordinates", {
  sce <- ct_sce()
  d <- ct_data
  f <- pca(cell_input(sce[, d$ref], assay = "counts"), ndim = 3)
  expect_identical(f$input$source$assay, "counts")
  expect_equal(ct_plain(predict(f, sce[, d$query])), ct_plain(predict(pca(t(d$counts[, d$ref]), 3),
                                                                      t(d$counts[, d$query]))),
               tolerance = 1e-10)
  SingleCellExperiment::reducedDim(sce, "PCA") <- stats::prcomp(t(d$lc))$x[, 1:6]
  fr <- isomap(cell_input(sce[, d$ref], reduction = "PCA"), ndim = 2, k = 10)
  expect_identical(fr$feature_names, paste0("PC", 1:6))
  expect_equal(ct_plain(predict(fr, sce[, d$query])),
               ct_plain(predict(fr, SingleCellExperiment::reducedDim(sce, "PCA")[d$query, ])))
  # results back: the training embedding for the training cells, predictions otherwise
  ref <- add_embedding(sce[, d$ref], fr, "iso")
  expect_identical(ct_plain(SingleCellExperiment::reducedDim(ref, "iso")), ct_plain(embedding(fr)))
  q <- add_embedding(sce[, d$query], fr, "iso")
  rd <- SingleCellExperiment::reducedDim(q, "iso")
  expect_identical(rownames(rd), colnames(sce)[d$query])
  expect_identical(ct_plain(rd), ct_plain(predict(fr, sce[, d$query])))
  err <- function(expr, arg) expect_identical(tryCatch(expr, manifoldOOS_input_error = function(e) e$arg), arg)
  err(cell_input(sce, assay = "tpm"), "assay")
  err(cell_input(sce, reduction = "UMAP"), "reduction")
  err(cell_input(sce, assay = "counts", reduction = "PCA"), "reduction")
  err(cell_input(sce, layer = "data"), "layer")
  err(cell_input(matrix(1, 3, 3)), "object")
  err(add_embedding(sce[, d$query], fr, training = TRUE), "training")
})

test_that("a Seurat object gives the fit and predictions of its data layer; DimReduc back", {
  skip_if_not_installed("SeuratObject")
  d <- ct_data
  so <- suppressWarnings(SeuratObject::CreateSeuratObject(counts = methods::as(d$counts, "dgCMatrix")))
  so <- SeuratObject::SetAssayData(so, slot = "data", new.data = methods::as(d$lc, "dgCMatrix"))
  f1 <- laplacian_eigenmaps(so[, d$ref], ndim = 2, k = 10)
  f2 <- laplacian_eigenmaps(t(d$lc[, d$ref]), ndim = 2, k = 10)
  expect_equal(ct_plain(embedding(f1)), ct_plain(embedding(f2)), tolerance = 1e-12)
  expect_identical(f1$input$source$layer, "data")
  y <- predict(f1, so[, d$query])
  expect_equal(ct_plain(y), ct_plain(predict(f2, t(d$lc[, d$query]))), tolerance = 1e-12)
  so2 <- add_embedding(so[, d$query], f1, "LE")
  dr <- so2[["LE"]]
  expect_s4_class(dr, "DimReduc")
  expect_identical(ct_plain(SeuratObject::Embeddings(dr)), ct_plain(y))
  expect_identical(rownames(SeuratObject::Embeddings(dr)), colnames(so)[d$query])
  # counts layer chosen explicitly
  fc <- pca(cell_input(so[, d$ref], layer = "counts"), ndim = 2)
  expect_equal(ct_plain(embedding(fc)), ct_plain(embedding(pca(t(d$counts[, d$ref]), 2))), tolerance = 1e-10)
  # a DimReduc as the embedding of oos_map()
  ref <- add_embedding(so[, d$ref], f1, "LE")
  m <- oos_map(so[, d$ref], ref[["LE"]], method = "linear")
  expect_equal(ct_plain(predict(m, so[, d$query])),
               ct_plain(predict(oos_map(t(d$lc[, d$ref]), embedding(f1), method = "linear"),
                                t(d$lc[, d$query]))), tolerance = 1e-10)
})

test_that("oos_map() takes embeddings made elsewhere: a reducedDim name, Rtsne, uwot", {
  d <- ct_data
  Xr <- t(d$lc[, d$ref])
  Xq <- t(d$lc[, d$query])
  set.seed(1)
  Y <- stats::prcomp(Xr)$x[, 1:2] + matrix(stats::rnorm(480, sd = 0.01), 240)
  sce <- ct_sce()[, d$ref]
  SingleCellExperiment::reducedDim(sce, "EMB") <- Y
  a <- oos_map(sce, "EMB", method = "goose")
  b <- oos_map(Xr, Y, method = "goose")
  expect_equal(ct_plain(predict(a, ct_sce()[, d$query])), ct_plain(predict(b, Xq)))
  skip_if_not_installed("Rtsne")
  ts <- Rtsne::Rtsne(Xr, perplexity = 10, check_duplicates = FALSE, max_iter = 100)
  expect_identical(predict(oos_map(Xr, ts, method = "lvm"), Xq), predict(oos_map(Xr, ts$Y, method = "lvm"), Xq))
  skip_if_not_installed("uwot")
  um <- uwot::umap(Xr, n_neighbors = 10, n_epochs = 20, ret_model = TRUE)
  expect_identical(predict(oos_map(Xr, um, method = "lvm"), Xq),
                   predict(oos_map(Xr, um$embedding, method = "lvm"), Xq))
})

test_that("every fitting function takes a SingleCellExperiment", {
  sce <- ct_sce()
  d <- ct_data
  ref <- sce[, d$ref]
  q <- sce[sample(nrow(sce)), d$query]
  lab <- rep(c("a", "b", "c"), each = 80)
  fits <- list(pca = function(X) pca(X), kpca = function(X) kpca(X), mds = function(X) mds(X),
               lle = function(X) lle(X, k = 12), lgrm = function(X) lgrm(X), nppe = function(X) nppe(X),
               ke_lle = function(X) ke_lle(X), plml = function(X) plml(X), lpp = function(X) lpp(X),
               npe = function(X) npe(X), sr = function(X) spectral_regression(X), klpp = function(X) klpp(X),
               sle = function(X) supervised_le(X, lab), fisher = function(X) fisher_embedding(X, lab))
  for (nm in names(fits)) {
    set.seed(9)  # for the fits that draw random numbers (PLML's clustering)
    f1 <- suppressWarnings(fits[[nm]](ref))
    set.seed(9)
    f2 <- suppressWarnings(fits[[nm]](t(d$lc[, d$ref])))
    expect_equal(ct_plain(embedding(f1)), ct_plain(embedding(f2)), tolerance = 1e-10, info = nm)
    expect_equal(ct_plain(predict(f1, q)), ct_plain(predict(f2, t(d$lc[, d$query]))), tolerance = 1e-10,
                 info = nm)
  }
})
