# Small fits of every exported fitting function (shared by the chunked,
# parallel and file prediction tests).
scale_data <- function() {
  X <- swiss_roll(60, seed = 3)$x
  colnames(X) <- c("a", "b", "c")
  lab <- rep(c("u", "v"), each = 30)
  tr <- c(1:22, 31:52)
  new <- X[-tr, ]
  rownames(new) <- paste0("r", seq_len(nrow(new)))
  list(X = X, lab = lab, tr = tr, train = X[tr, ], new = new)
}

scale_fits <- function(d = scale_data()) {
  Xt <- d$train
  fits <- suppressWarnings(list(
    pca = pca(Xt, 2), kpca = kpca(Xt, 2), mds = mds(Xt, 2),
    isomap = isomap(Xt, 2, k = 8), isomap_landmarks = isomap(Xt, 2, k = 8, landmarks = 15, seed = 1),
    lle = lle(Xt, 2, k = 8), lle_hessian = lle(Xt, 2, k = 8, variant = "hessian"),
    lle_modified = lle(Xt, 2, k = 8, variant = "modified"),
    diffusion_map = diffusion_map(Xt, 2, k = 8, kernel = "knn"),
    le = laplacian_eigenmaps(Xt, 2, k = 8),
    le_full = laplacian_eigenmaps(Xt, 2, graph = "full"),
    ltsa = ltsa(Xt, 2, k = 8), lpp = lpp(Xt, 2, k = 6), olpp = olpp(Xt, 2, k = 6),
    npe = npe(Xt, 2, k = 8), onpp = onpp(Xt, 2, k = 8), klpp = klpp(Xt, 2, k = 6),
    spectral_regression = spectral_regression(Xt, 2, k = 6), lgrm = lgrm(Xt, 2, k = 8),
    plml = plml(Xt, 2, k = 8, seed = 1), nppe = nppe(Xt, 2, k = 8),
    supervised_le = supervised_le(Xt, d$lab[d$tr], 2),
    fisher_embedding = fisher_embedding(Xt, d$lab[d$tr], 2),
    ke_lle = ke_lle(Xt, 2, k = 8),
    # fits with an input model (PCA first, a metric)
    isomap_pca = isomap(Xt, 2, k = 8, pca = 2), le_cosine = laplacian_eigenmaps(Xt, 2, k = 8, metric = "cosine")))
  fits$sosi <- suppressWarnings(sosi(fits$supervised_le, X_unlabeled = d$X[23:30, ], n_grid = 8,
                                     n_iter = 3))
  fits
}

scale_generic_rules <- c("goose", "lvm", "reconstruction", "linear", "rbf", "krr", "sparse")

# Run `code` under a future plan, restoring the previous plan afterwards.
with_plan <- function(strategy, code, ...) {
  old <- future::plan(strategy, ...)
  on.exit(future::plan(old), add = TRUE)
  force(code)
}
