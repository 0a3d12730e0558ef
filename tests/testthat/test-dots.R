# No silent arguments: every exported function and S3 method with `...`
# rejects arguments nothing uses, with a classed error naming them. The list
# of functions is derived from the namespace, so a new method with `...`
# fails the first test until it gets a fixture below.

dots_functions <- function() {
  ns <- asNamespace("manifoldOOS")
  has_dots <- function(f) is.function(f) && "..." %in% names(formals(f))
  ex <- getNamespaceExports("manifoldOOS")
  ex <- ex[vapply(ex, function(n) has_dots(get(n, envir = ns)), logical(1))]
  m <- getNamespaceInfo(ns, "S3methods")
  s3 <- m[, 3]
  s3 <- s3[vapply(s3, function(n) has_dots(get0(n, envir = ns, inherits = FALSE)), logical(1))]
  # the package's internal generics have methods too (predict_native, summary_extra)
  sort(unique(c(ex, s3)))
}

# `...` of step_manifold() are tidyselect column selectors: every one is used
# by recipes_eval_select() in prep(), which fails on one that selects nothing
# it knows.
dots_exempt <- c(step_manifold = "column selectors")

dots_fixtures <- local({
  cache <- NULL
  function() {
    if (!is.null(cache)) return(cache)
    r <- swiss_roll(150, seed = 1)
    X <- r$x[1:120, ]
    Xn <- r$x[121:150, ]
    lab <- ifelse(r$color > stats::median(r$color), "a", "b")
    # the fits of the registry (helper-fit-registry.R) on these data
    fits <- registry_fits(list(train = X, lab_train = lab[1:120], unlabeled = Xn), maps = FALSE)
    sup <- fits$supervised_le
    map <- oos_map(X, embedding(fits$pca), method = "linear")
    imgs <- list(x = matrix(stats::runif(20 * 12), 20), labels = 1:20, image_dim = c(3, 4),
                 pixel_order = "column", name = "noise")
    pr <- function(obj) function(...) utils::capture.output(print(obj, ...))
    native <- function(f, rule) function(...) predict(fits[[f]], Xn, method = rule, ...)
    fx <- list(
      assess = function(...) assess(fits$pca, X = X, k = 5, ...),
      embedding = function(...) embedding(fits$pca, ...),
      embedding.manifold_fit = function(...) embedding(fits$lgrm, ...),
      embedding.default = function(...) embedding(1:3, ...),
      plot_images = function(...) plot_images(imgs, ...),
      plot_rnx = function(...) plot_rnx(X, list(PCA = fits$pca), K_max = 20, ...),
      sosi_baselines = function(...) sosi_baselines(sup, Xn, methods = c("nn", "lle"), ...),
      plot.manifold_fit = function(...) plot(fits$pca, newdata = Xn, ...),
      plot.manifold_plml = function(...) plot(fits$plml, what = "models", ...),
      predict.manifold_fit = function(...) predict(fits$pca, Xn, ...),
      predict.manifold_oos_map = function(...) predict(map, Xn, ...),
      predict_native.default = function(...) predict_native.default(fits$pca, Xn, "none", ...),
      predict_native.manifold_isomap = native("isomap", "triangulation"),
      predict_native.manifold_ke_lle = native("ke_lle", "ke"),
      predict_native.manifold_kpca = native("kpca", "exact"),
      predict_native.manifold_le = native("laplacian_eigenmaps", "nystrom"),
      predict_native.manifold_lgrm = native("lgrm", "regression"),
      predict_native.manifold_linear = native("lpp", "exact"),
      predict_native.manifold_lle = native("lle", "reconstruction"),
      predict_native.manifold_ltsa = native("ltsa", "reconstruction"),
      predict_native.manifold_mds = native("mds", "gower"),
      predict_native.manifold_nppe = native("nppe", "polynomial"),
      predict_native.manifold_pca = native("pca", "exact"),
      predict_native.manifold_plml = native("plml", "goose"),
      predict_native.manifold_sosi = native("sosi", "sosi"),
      predict_native.manifold_sr_kernel = native("spectral_regression_kernel", "exact"),
      predict_native.manifold_sr_linear = native("spectral_regression", "exact"),
      predict_native.manifold_supervised = native("supervised_le", "nystrom"),
      predict_native.manifold_diffusion = native("diffusion_map", "nystrom"),
      reconstruct = function(...) reconstruct(fits$pca, embedding(fits$pca)[1:3, ], ...),
      reconstruct.manifold_fit = function(...) reconstruct(fits$isomap, embedding(fits$isomap)[1:3, ], ...),
      reconstruct.default = function(...) reconstruct(1:3, matrix(0, 1, 2), ...),
      predict_file = function(...) {
        inp <- tempfile(fileext = ".csv")
        out <- tempfile(fileext = ".csv")
        on.exit(unlink(c(inp, out)), add = TRUE)
        utils::write.csv(Xn, inp, row.names = FALSE)
        predict_file(fits$pca, inp, out, ...)
      },
      print.manifold_fit = pr(fits$lgrm),
      print.manifold_oos_map = pr(map),
      print.manifold_graph = pr(neighbor_graph(X, k = 5)),
      print.manifold_gmm = pr(gmm_cluster(X[1:60, ], n_components = 3, seed = 1)),
      print.manifold_coranking = pr(coranking(X, embedding(fits$pca))),
      print.manifold_l1_code = pr(l1_code(X[1:40, ], Xn[1:2, ])),
      print.manifold_procrustes = pr(procrustes(embedding(fits$pca), embedding(fits$lpp))),
      print.manifold_summary_lines = pr(summary(fits$isomap)$extra),
      print.manifold_text = pr(summary(fits$lpp)$extra),
      print.summary.manifold_fit = pr(summary(fits$nppe)),
      print.summary.manifold_oos_map = pr(summary(map)),
      summary.manifold_fit = function(...) summary(fits$ltsa, ...),
      summary.manifold_oos_map = function(...) summary(map, ...),
      augment.manifold_fit = function(...) generics::augment(fits$pca, ...),
      glance.manifold_fit = function(...) generics::glance(fits$pca, ...),
      tidy.manifold_fit = function(...) generics::tidy(fits$pca, ...),
      autoplot.manifold_fit = function(...) ggplot2::autoplot(fits$pca, ...),
      autoplot.manifold_plml = function(...) ggplot2::autoplot(fits$plml, what = "models", ...),
      autoplot.manifold_sosi = function(...) ggplot2::autoplot(fits$sosi, what = "rounds", ...),
      fortify.manifold_fit = function(...) ggplot2::fortify(fits$pca, ...),
      transfer_labels = function(...) transfer_labels(fits$isomap, Xn, lab[1:120], ...)
    )
    if (requireNamespace("SingleCellExperiment", quietly = TRUE)) {
      sce <- SingleCellExperiment::SingleCellExperiment(
        list(logcounts = `dimnames<-`(t(Xn), list(NULL, paste0("c", 1:30)))))
      fx$add_embedding <- function(...) add_embedding(sce, fits$isomap, ...)
    } else {
      dots_exempt[["add_embedding"]] <<- "needs SingleCellExperiment, not installed"
    }
    if (requireNamespace("recipes", quietly = TRUE)) {
      df <- data.frame(X, t = r$color[1:120])
      rec <- step_manifold(recipes::recipe(t ~ ., data = df), recipes::all_predictors(),
                           method = "pca", ndim = 2)
      step <- rec$steps[[1]]
      trained <- recipes::prep(rec, training = df)$steps[[1]]
      fx$prep.step_manifold <- function(...) recipes::prep(step, training = df, info = rec$var_info, ...)
      fx$bake.step_manifold <- function(...) recipes::bake(trained, new_data = df, ...)
      fx$print.step_manifold <- pr(trained)
      fx$required_pkgs.step_manifold <- function(...) recipes::required_pkgs(trained, ...)
      fx$tidy.step_manifold <- function(...) generics::tidy(trained, ...)
    }
    cache <<- list(fx = fx, fits = fits, X = X, Xn = Xn, map = map)
    cache
  }
})

# packages a delayed S3 method needs before it can be called
dots_needs <- function(name) {
  m <- getNamespaceInfo(asNamespace("manifoldOOS"), "S3methods")
  pkg <- m[m[, 3] == name, 4]
  c(if (length(pkg) && !is.na(pkg[1])) pkg[1],
    if (grepl("step_manifold$", name)) c("recipes", "generics"))
}

test_that("every function and S3 method with ... has a fixture (derived from the namespace)", {
  fns <- dots_functions()
  expect_true(all(c("predict.manifold_fit", "embedding", "plot.manifold_fit",
                    "print.manifold_fit") %in% fns))
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  fx <- dots_fixtures()$fx
  missing <- setdiff(fns, c(names(fx), names(dots_exempt)))
  expect_identical(missing, character(0))
})

test_that("every function and S3 method with ... rejects an unused argument, naming it", {
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  fx <- dots_fixtures()$fx
  tested <- 0L
  for (name in setdiff(dots_functions(), names(dots_exempt))) {
    needs <- dots_needs(name)
    if (!all(vapply(needs, requireNamespace, logical(1), quietly = TRUE))) next
    f <- fx[[name]]
    # the fixture works without the extra argument (the default methods
    # always refuse: no fit offers the rule "none", 1:3 is no fit)
    if (name %in% c("predict_native.default", "embedding.default", "reconstruct.default")) {
      expect_error(f(), class = "manifoldOOS_input_error")
    } else {
      expect_error(f(), NA, label = name)
    }
    err <- tryCatch(f(zz_unused_arg = 1), error = function(e) e)
    expect_s3_class(err, "manifoldOOS_dots_error")
    expect_s3_class(err, "manifoldOOS_input_error")
    expect_identical(err$arg, "zz_unused_arg", label = paste(name, "arg field"))
    expect_match(conditionMessage(err), "`zz_unused_arg`", fixed = TRUE, label = name)
    # two at once: both reported
    err2 <- tryCatch(f(zz_a = 1, zz_b = 2), error = function(e) e)
    expect_s3_class(err2, "manifoldOOS_dots_error")
    expect_identical(err2$arg, c("zz_a", "zz_b"), label = paste(name, "two arguments"))
    tested <- tested + 1L
  }
  expect_gte(tested, 35L)
})

test_that("predict() rejects misspelled arguments of every fit and rule, and suggests the name", {
  d <- dots_fixtures()
  for (fit in d$fits) {
    for (rule in c(fit$oos$available, "goose")) {
      err <- tryCatch(predict(fit, d$Xn, method = rule, X = d$X, methd = "goose"),
                      error = function(e) e)
      expect_s3_class(err, "manifoldOOS_dots_error")
      expect_identical(err$arg, "methd")
      expect_match(conditionMessage(err), "Did you mean `method`?", fixed = TRUE)
      expect_match(conditionMessage(err), sprintf("rule \"%s\"", rule), fixed = TRUE)
    }
  }
  fit <- d$fits$lgrm
  expect_identical(predict(fit), embedding(fit))
  expect_error(predict(fit, methd = "goose"), class = "manifoldOOS_dots_error")
  err <- expect_error(predict(fit, d$Xn, chunk_sz = 5), class = "manifoldOOS_dots_error")
  expect_match(conditionMessage(err), "`chunk_sz`", fixed = TRUE)
  # the typo is not ignored: the same call with the right name gives another answer
  expect_false(isTRUE(all.equal(predict(fit, d$Xn, method = "goose", X = d$X),
                                predict(fit, d$Xn))))
})

test_that("arguments a rule does take still pass through ...", {
  d <- dots_fixtures()
  f <- d$fits
  # native rule arguments: snap of Isomap's triangulation, k of PLML's GOoSE
  tr <- f$isomap$embedding[1:3, ]
  y_snap <- predict(f$isomap, d$X[1:3, ], snap = TRUE)
  expect_identical(unname(y_snap), unname(tr))
  y_k <- predict(f$plml, d$Xn, method = "goose", k = 12)
  expect_equal(y_k, predict(oos_map(d$X, embedding(f$plml), method = "goose", k = 12), d$Xn))
  # generic rules take the arguments of oos_map(), partially matched like R does
  y_lin <- predict(f$pca, d$Xn, method = "linear", X = d$X, ridge = 0.5)
  expect_equal(y_lin, predict(oos_map(d$X, embedding(f$pca), method = "linear", ridge = 0.5), d$Xn))
  expect_identical(predict(f$pca, d$Xn, method = "linear", X = d$X, rid = 0.5), y_lin)
  # graphical parameters go to plot()
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_error(plot(f$pca, cex.main = 2, col.axis = "grey30", las = 1), NA)
  expect_error(plot(pca(d$X, 3), gap = 0), NA)
  expect_error(plot_images(list(x = diag(4), image_dim = c(2, 2)), interpolate = TRUE), NA)
  expect_error(plot(f$pca, cex.mian = 2), class = "manifoldOOS_dots_error")
  # recipes' print passes `form_width`
  if (requireNamespace("recipes", quietly = TRUE)) {
    fx <- d$fx
    expect_match(fx$print.step_manifold(form_width = 12), "\\[trained\\]")
  }
})

test_that("assess(), augment() and autoplot() pass ... to predict() only with newdata", {
  d <- dots_fixtures()
  fit <- d$fits$lle
  ref <- predict(fit, d$Xn, method = "nystrom")
  perr <- function(a) a$value[a$measure == "procrustes_error"]
  expect_equal(perr(assess(fit, newdata = d$Xn, reference_new = ref, k = 5, method = "nystrom")), 0)
  expect_gt(perr(assess(fit, newdata = d$Xn, reference_new = ref, k = 5, method = "reconstruction")), 1e-6)
  err <- expect_error(assess(fit, newdata = d$Xn, k = 5, metod = "nystrom"),
                      class = "manifoldOOS_dots_error")
  expect_match(conditionMessage(err), "Did you mean `method`?", fixed = TRUE)
  expect_error(assess(fit, X = d$X, k = 5, method = "nystrom"), class = "manifoldOOS_dots_error")
  if (requireNamespace("generics", quietly = TRUE)) {
    aug <- generics::augment(fit, newdata = as.data.frame(d$Xn), method = "nystrom")
    expect_equal(unname(as.matrix(aug[, c(".Dim1", ".Dim2")])), unname(ref[, 1:2]))
    expect_error(generics::augment(fit, newdata = as.data.frame(d$Xn), snp = FALSE),
                 class = "manifoldOOS_dots_error")
  }
})

test_that("check_dots() accepts exact names and unique prefixes, nothing else", {
  f <- function(...) check_dots(..., accepted = list(c("alpha", "beta"), function(gamma, ...) NULL))
  expect_null(f(alpha = 1, gamma = 2))
  expect_null(f(al = 1))
  err <- expect_error(f(delta = 1, alpha = 2, 3), class = "manifoldOOS_dots_error")
  expect_identical(err$arg, c("delta", "..."))
  expect_match(conditionMessage(err), "an unnamed argument (`3`)", fixed = TRUE)
  g <- function(...) check_dots(..., accepted = c("abc", "abd"))
  expect_error(g(ab = 1), class = "manifoldOOS_dots_error")   # ambiguous prefix
  h <- function(...) check_dots(..., unnamed = TRUE)
  expect_null(h(1, 2))
  expect_error(h(1, b = 2), class = "manifoldOOS_dots_error")
  # arguments are not evaluated by the check
  expect_error(f(alpha = stop("evaluated")), NA)
})
