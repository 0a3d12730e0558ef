# The registry of fits: one entry per kind of fitted model the package makes
# (every exported fitting function, its variants with another native rule or
# another stored model, and oos_map() with each of its rules). Every test
# that needs "all the fits" takes them from here, so a new method is added in
# one place; test-contract.R runs the predict contract over every entry.
#
# An entry is a list with
#   fun        the fitting function (an export, or a wrapper fixing a variant);
#              called as fun(X = , [labels = ,] [X_unlabeled = ,] <args>)
#   args       its arguments besides the data (small and fast on ~50 rows)
#   export     the exported function the entry exercises
#   labels     TRUE when the fit needs class labels
#   unlabeled  TRUE when it needs unlabelled rows (semi-supervised)
#   map        TRUE for an oos_map (no native/generic rule choice, no novelty)
#   tol        0: batch and row-by-row predictions are identical; else the
#              relative tolerance, with `why` saying where the difference
#              comes from
#
# The file is plain R (no testthat): tools/check-identical.R sources it too.

reg_entry <- function(fun, args = list(), export, labels = FALSE, unlabeled = FALSE,
                      map = FALSE, tol = 0, why = NULL) {
  list(fun = fun, args = args, export = export, labels = labels, unlabeled = unlabeled,
       map = map, tol = tol, why = why)
}

# an oos_map with rule `rule`, built on the training rows and their Isomap embedding
reg_map <- function(rule) {
  force(rule)
  reg_entry(function(X, ...) oos_map(X, embedding(isomap(X, 2, k = 8)), method = rule, ...),
            export = "oos_map", map = TRUE)
}

fit_registry <- c(list(
  pca = reg_entry(pca, list(ndim = 2), "pca"),
  kpca = reg_entry(kpca, list(ndim = 2), "kpca"),
  kpca_poly = reg_entry(kpca, list(ndim = 2, kernel = "polynomial", degree = 2), "kpca"),
  mds = reg_entry(mds, list(ndim = 2), "mds"),
  isomap = reg_entry(isomap, list(ndim = 2, k = 8), "isomap"),
  isomap_landmarks = reg_entry(isomap, list(ndim = 2, k = 8, landmarks = 15, seed = 1), "isomap"),
  lle = reg_entry(lle, list(ndim = 2, k = 8), "lle"),
  lle_hessian = reg_entry(function(...) lle(..., variant = "hessian"), list(ndim = 2, k = 8), "lle"),
  lle_modified = reg_entry(function(...) lle(..., variant = "modified"), list(ndim = 2, k = 8), "lle"),
  ke_lle = reg_entry(ke_lle, list(ndim = 2, k = 8), "ke_lle"),
  laplacian_eigenmaps = reg_entry(laplacian_eigenmaps, list(ndim = 2, k = 8), "laplacian_eigenmaps"),
  laplacian_eigenmaps_full = reg_entry(function(...) laplacian_eigenmaps(..., graph = "full"),
                                       list(ndim = 2), "laplacian_eigenmaps"),
  diffusion_map = reg_entry(diffusion_map, list(ndim = 2), "diffusion_map"),
  diffusion_map_knn = reg_entry(function(...) diffusion_map(..., kernel = "knn"),
                                list(ndim = 2, k = 8), "diffusion_map"),
  ltsa = reg_entry(ltsa, list(ndim = 2, k = 8), "ltsa"),
  lgrm = reg_entry(lgrm, list(ndim = 2, k = 8), "lgrm"),
  lgrm_landmarks = reg_entry(lgrm, list(ndim = 2, k = 8, sigma = 10, landmarks = 20), "lgrm"),
  nppe = reg_entry(nppe, list(ndim = 2, k = 8), "nppe"),
  snppe = reg_entry(nppe, list(ndim = 2, k = 8, basis = "hadamard"), "nppe"),
  plml = reg_entry(plml, list(ndim = 2, k = 8, seed = 1), "plml"),
  plml_ihm = reg_entry(plml, list(ndim = 2, k = 8, seed = 1, variant = "ihm"), "plml"),
  lpp = reg_entry(lpp, list(ndim = 2, k = 6), "lpp"),
  olpp = reg_entry(olpp, list(ndim = 2, k = 6), "olpp"),
  npe = reg_entry(npe, list(ndim = 2, k = 8), "npe"),
  onpp = reg_entry(onpp, list(ndim = 2, k = 8), "onpp"),
  klpp = reg_entry(klpp, list(ndim = 2, k = 6), "klpp"),
  spectral_regression = reg_entry(spectral_regression, list(ndim = 2, k = 6), "spectral_regression"),
  spectral_regression_kernel = reg_entry(spectral_regression, list(ndim = 2, k = 6, kernel = "rbf"),
                                         "spectral_regression"),
  supervised_le = reg_entry(supervised_le, list(ndim = 2), "supervised_le", labels = TRUE),
  fisher_embedding = reg_entry(fisher_embedding, list(ndim = 2), "fisher_embedding", labels = TRUE),
  sosi = reg_entry(function(X, labels, ...) sosi(supervised_le(X, labels, ndim = 2), ...),
                   list(n_grid = 8, n_iter = 3), "sosi", labels = TRUE, unlabeled = TRUE),
  # fits with an input model: PCA first, a metric other than Euclidean
  isomap_pca = reg_entry(isomap, list(ndim = 2, k = 8, pca = 2), "isomap"),
  laplacian_eigenmaps_cosine = reg_entry(laplacian_eigenmaps, list(ndim = 2, k = 8, metric = "cosine"),
                                         "laplacian_eigenmaps")),
  lapply(stats::setNames(nm = paste0("oos_map_", manifoldOOS:::oos_map_methods)), function(nm) {
    reg_map(sub("^oos_map_", "", nm))
  }))

# The fixed data of the registry fits: 60 points of a Swiss roll, two classes;
# 44 training rows (22 of each class), 8 unlabelled rows for SOSI, and 16 new
# rows with row names.
registry_data <- function() {
  X <- swiss_roll(60, seed = 3)$x
  colnames(X) <- c("a", "b", "c")
  lab <- rep(c("u", "v"), each = 30)
  tr <- c(1:22, 31:52)
  new <- X[-tr, ]
  rownames(new) <- paste0("r", seq_len(nrow(new)))
  list(X = X, lab = lab, tr = tr, train = X[tr, ], lab_train = lab[tr], unlabeled = X[23:30, ],
       new = new)
}

# The arguments of entry `nm` on data X (labels and unlabelled rows when it needs them).
registry_args <- function(nm, X, labels = NULL, X_unlabeled = NULL) {
  e <- fit_registry[[nm]]
  c(list(X = X), if (e$labels) list(labels = labels), if (e$unlabeled) list(X_unlabeled = X_unlabeled),
    e$args)
}

registry_fit <- function(nm, d = registry_data()) {
  args <- registry_args(nm, d$train, d$lab_train, d$unlabeled)
  suppressWarnings(do.call(fit_registry[[nm]]$fun, args))
}

# The fits of the registry on its data (or of the entries `names`); `maps`
# FALSE leaves out the oos_map entries.
registry_fits <- function(d = registry_data(), names = NULL, maps = TRUE) {
  if (is.null(names)) {
    names <- names(fit_registry)
    if (!maps) names <- names[!vapply(fit_registry[names], `[[`, NA, "map")]
  }
  lapply(stats::setNames(nm = names), registry_fit, d = d)
}

# The rules a registry fit is checked with: its native rules and every
# generic rule (an oos_map has its one rule).
registry_rules <- function(fit) {
  if (inherits(fit, "manifold_oos_map")) return(fit$method)
  unique(c(fit$oos$available, manifoldOOS:::oos_map_methods))
}
