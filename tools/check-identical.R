# Bit-identical results before and after a refactoring of the C++ core.
#
#   Rscript tools/check-identical.R save    FILE   # with the old build installed
#   Rscript tools/check-identical.R compare FILE   # with the new build installed
#
# Fits every entry of the fit registry of the tests
# (tests/testthat/helper-fit-registry.R) on fixed data, predicts held-out
# rows with every native rule and every generic rule, and runs the other numerical
# exports (kNN, graphs, geodesics, quality measures, sparse codes). `save`
# writes the results; `compare` recomputes them and reports every entry that
# is not identical() to the saved one. Exits non-zero on any difference.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2L || !args[1] %in% c("save", "compare")) {
  stop("usage: Rscript tools/check-identical.R save|compare FILE")
}
suppressPackageStartupMessages(library(manifoldOOS))
options(manifoldOOS.threads = 2L)

roll <- swiss_roll(400, seed = 11)
X <- roll$x[1:300, ]
Xn <- roll$x[301:400, ]
colnames(X) <- colnames(Xn) <- c("a", "b", "c")
lab <- rep(1:3, length.out = 300)
set.seed(5)
Z <- matrix(rnorm(200 * 12), 200, 12)     # 12-D data: brute-force kNN path
Zn <- matrix(rnorm(40 * 12), 40, 12)

run <- function(expr) tryCatch(expr, error = function(e) paste("error:", conditionMessage(e)))

# every entry of the test suite's fit registry (one per kind of fit, and
# oos_map() with each rule), fitted on these data
source(file.path("tests", "testthat", "helper-fit-registry.R"), local = TRUE)
reg_data <- list(train = X, lab_train = lab, unlabeled = Xn[1:50, ])

out <- list()
for (nm in names(fit_registry)) {
  fit <- run(registry_fit(nm, reg_data))
  if (is.character(fit)) { out[[nm]] <- fit; next }
  if (inherits(fit, "manifold_oos_map")) {
    out[[paste0(nm, "/predict")]] <- run(predict(fit, Xn))
    next
  }
  out[[paste0(nm, "/embedding")]] <- embedding(fit)
  for (rule in fit$oos$available) {
    out[[paste0(nm, "/", rule)]] <- run(predict(fit, Xn, method = rule))
  }
}

# the parts of a fit an orchestration in the core produces (beyond the embedding)
keep_fields <- function(nm, fit, fields) {
  if (is.character(fit)) { out[[nm]] <<- fit; return(invisible()) }
  for (f in fields) out[[paste0(nm, "/", f)]] <<- fit[[f]]
}
isomap_runs <- list(
  isomap_lm_given = function() isomap(X, 2, k = 8, landmarks = seq(3, 300, by = 9)),
  isomap_lm_random = function() isomap(X, 2, k = 8, landmarks = 30, landmark_method = "random",
                                       normalize = FALSE, seed = 4),
  isomap_lm_maxmin = function() isomap(X, 3, k = 8, landmarks = 25, seed = 9)
)
for (nm in names(isomap_runs)) {
  fit <- run(isomap_runs[[nm]]())
  keep_fields(nm, fit, c("embedding", "geodesics", "landmarks", "lsharp", "landmark_coords", "mu", "center", "rotation", "eigenvalues"))
  if (!is.character(fit)) out[[paste0(nm, "/predict")]] <- run(predict(fit, Xn))
}
sl <- supervised_le(X[1:150, ], lab[1:150], ndim = 2)
fis <- fisher_embedding(X[1:150, ], lab[1:150], ndim = 2)
Xu <- X[151:300, ]
sosi_runs <- list(
  sosi_fisher = function() sosi(fis, X_unlabeled = Xu, n_iter = 4),
  sosi_refine = function() sosi(sl, X_unlabeled = Xu, n_iter = 3, refine = TRUE),
  sosi_reopt = function() sosi(sl, X_unlabeled = Xu, n_iter = 4, n_grid = 12, reoptimize_sigma = TRUE),
  sosi_reopt_ratio = function() sosi(sl, X_unlabeled = Xu, n_iter = 3, n_grid = 10, sigma_mode = "ratio",
                                     reoptimize_sigma = TRUE),
  sosi_fixed = function() sosi(sl, X_unlabeled = Xu, sigma_mode = "fixed", sigma = c(1, 2), n_iter = 3),
  sosi_grid = function() sosi(sl, X_unlabeled = Xu, sigma_grid = exp(seq(2, -1, length.out = 9)),
                              n_iter = 2, lambda = 0.3),
  sosi_global = function() sosi(sl, X_unlabeled = Xu, n_iter = 3, dir_neighbors = "global",
                                sep_quantile = 0.1, clip_sd = 0.5, n_grid = 15),
  sosi_dup = function() sosi(X = rbind(X[1:60, ], X[1:60, ]), fit_or_Y = rbind(embedding(sl)[1:60, ],
                             embedding(sl)[1:60, ]), labels = rep(lab[1:60], 2), X_unlabeled = Xu[1:20, ],
                             n_iter = 2, n_grid = 8)
)
for (nm in names(sosi_runs)) {
  fit <- run(suppressWarnings(sosi_runs[[nm]]()))
  keep_fields(nm, fit, c("sigma", "labels", "confidence", "coef", "centres", "rounds", "diagnostics"))
  if (!is.character(fit)) out[[paste0(nm, "/predict")]] <- run(predict(fit, Xn))
}
out$regularizer_path <- run(regularizer_path(sl, n_grid = 10))
out$regularizer_path_2 <- run(regularizer_path(sl, n_grid = 2, truncate = FALSE))

fit <- ltsa(X, 2, k = 8)
for (rule in c("goose", "sparse", "lvm", "reconstruction", "linear", "rbf", "krr")) {
  out[[paste0("generic/", rule)]] <- run(predict(fit, Xn, method = rule, X = X))
}

Y <- embedding(fit)
out$knn_kd <- knn(X, 7)
out$knn_brute <- knn(Z, 7, algorithm = "brute")
out$knn_query <- knn(Z, 5, query = Zn)
g <- neighbour_graph(X, k = 7)
out$graph <- g
out$laplacian <- graph_laplacian(g, "symmetric")
out$geodesic <- geodesic_distances(g, sources = 1:20)
out$trust <- trustworthiness(X, Y, k = c(5, 10))
out$cont <- continuity(X, Y, k = c(5, 10))
out$rnx <- rnx(X, Y)
out$coranking <- coranking(X, Y, K_max = 30)
out$resvar <- residual_variance(X, Y)
out$procrustes <- procrustes(Y, roll$truth[1:300, ])
out$l1 <- run(l1_code(Z[1:30, ], Z[31:200, ]))

file <- args[2]
if (args[1] == "save") {
  saveRDS(out, file)
  cat(sprintf("saved %d results to %s\n", length(out), file))
} else {
  ref <- readRDS(file)
  bad <- character()
  for (nm in union(names(ref), names(out))) {
    if (!identical(ref[[nm]], out[[nm]])) bad <- c(bad, nm)
  }
  cat(sprintf("%d results compared, %d differ\n", length(ref), length(bad)))
  for (nm in bad) {
    a <- ref[[nm]]; b <- out[[nm]]
    d <- if (is.numeric(unlist(a)) && is.numeric(unlist(b)) && length(unlist(a)) == length(unlist(b)))
      sprintf(" (max abs diff %.3g)", max(abs(unlist(a) - unlist(b)))) else ""
    cat("  differs:", nm, d, "\n")
  }
  if (length(bad)) quit(status = 1)
}
