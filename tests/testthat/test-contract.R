# The predict contract, run over every entry of the fit registry
# (helper-fit-registry.R) and every rule the entry offers (its native rules
# and all generic rules; an oos_map its one rule):
#   * a batch equals the rows predicted one at a time (identical unless the
#     entry states a tolerance and why);
#   * a saveRDS()/readRDS() round trip predicts identically;
#   * predictions in chunks equal one call, whatever the chunk size;
#   * row names follow newdata, column names are the embedding's; a data
#     frame with its columns reordered gives the same answer;
#   * unknown arguments in `...` are classed errors naming them;
#   * novelty scores (fits): batch = row by row, attached identically in chunks;
#   * validate_fit() accepts the fit and rejects it with a damaged component.

rd <- registry_data()
reg_fits <- registry_fits(rd)

# predict() of entry `fit` with `rule` (the training data for the generic rules)
reg_predict <- function(fit, newdata, rule, ...) {
  if (inherits(fit, "manifold_oos_map")) return(predict(fit, newdata, ...))
  extra <- if (rule %in% fit$oos$available) list() else list(X = rd$train)
  suppressWarnings(do.call(predict, c(list(fit, newdata, method = rule), extra, list(...))))
}

values <- function(y) matrix(as.vector(y), nrow(y))

test_that("the registry covers every exported fitting function and every native rule", {
  exports <- getNamespaceExports("manifoldOOS")
  ns <- asNamespace("manifoldOOS")
  # the fitting functions: the exports with an `ndim` argument (found in the
  # namespace, so that a new one is not missed), besides step_manifold(),
  # the recipes step that calls them, and progressive_baseline(), a
  # reproduction helper that returns error rates; and sosi() and oos_map()
  fitters <- exports[vapply(exports, function(n) {
    f <- get(n, envir = ns)
    is.function(f) && "ndim" %in% names(formals(f))
  }, NA)]
  fitters <- c(setdiff(fitters, c("step_manifold", "progressive_baseline")), "sosi", "oos_map")
  known <- c("pca", "kpca", "mds", "isomap", "lle", "laplacian_eigenmaps", "ltsa", "lpp", "olpp",
             "npe", "onpp", "klpp", "spectral_regression", "lgrm", "plml", "nppe",
             "supervised_le", "fisher_embedding", "ke_lle", "diffusion_map", "sosi", "oos_map")
  expect_identical(setdiff(known, fitters), character(0))
  covered <- unique(vapply(fit_registry, `[[`, "", "export"))
  # an alias (npp() of npe()) is the same function as a covered one
  aliases <- fitters[vapply(fitters, function(n) {
    any(vapply(covered, function(m) identical(get(n, envir = ns), get(m, envir = ns)), NA))
  }, NA)]
  expect_identical(setdiff(fitters, c(covered, aliases)), character(0))
  # every class with a native predict method appears
  natives <- setdiff(sub("^predict_native\\.", "", as.character(utils::methods("predict_native"))),
                     "default")
  classes <- unique(unlist(lapply(reg_fits, class)))
  expect_identical(setdiff(natives, classes), character(0))
  expect_true(all(vapply(reg_fits, function(f) inherits(f, c("manifold_fit", "manifold_oos_map")), NA)))
  # every generic rule has its oos_map entry
  maps <- vapply(fit_registry, `[[`, NA, "map")
  expect_setequal(vapply(reg_fits[maps], `[[`, "", "method"), oos_map_methods)
})

# The rows checked one at a time: all new rows for the entry's own rules;
# the first 10 for the generic rules of a fit (the maps themselves are
# entries, checked on all rows).
contract_rows <- function(fit, rule) {
  own <- inherits(fit, "manifold_oos_map") || rule %in% fit$oos$available
  rd$new[if (own) seq_len(nrow(rd$new)) else 1:10, , drop = FALSE]
}

test_that("batch == row by row, for every entry and rule", {
  checked <- 0L
  for (nm in names(reg_fits)) {
    fit <- reg_fits[[nm]]
    tol <- fit_registry[[nm]]$tol
    for (rule in registry_rules(fit)) {
      new <- contract_rows(fit, rule)
      batch <- reg_predict(fit, new, rule)
      rows <- do.call(rbind, lapply(seq_len(nrow(new)), function(i)
        reg_predict(fit, new[i, , drop = FALSE], rule)))
      info <- sprintf("%s / %s", nm, rule)
      expect_identical(dim(batch), c(nrow(new), 2L), info = info)
      expect_true(all(is.finite(batch)), info = info)
      # values only: the per-row attributes (snapped, labels) are compared in chunks below
      if (tol == 0) {
        expect_identical(values(rows), values(batch), info = info)
      } else {
        expect_equal(values(rows), values(batch), tolerance = tol, info = info)
      }
      checked <- checked + 1L
    }
  }
  expect_gte(checked, length(reg_fits) + (length(reg_fits) - 7L) * length(oos_map_methods))
})

test_that("saveRDS()/readRDS() round trip predicts identically, for every entry and rule", {
  for (nm in names(reg_fits)) {
    fit <- reg_fits[[nm]]
    f <- tempfile(fileext = ".rds")
    saveRDS(fit, f)
    fit2 <- readRDS(f)
    unlink(f)
    expect_identical(fit2, fit, info = nm)
    for (rule in registry_rules(fit)) {
      expect_identical(reg_predict(fit2, rd$new, rule), reg_predict(fit, rd$new, rule),
                       info = sprintf("%s / %s", nm, rule))
    }
  }
})

test_that("chunked predictions == one call (identical, attributes included), for every entry and rule", {
  for (nm in names(reg_fits)) {
    fit <- reg_fits[[nm]]
    for (rule in registry_rules(fit)) {
      # the generic rules of a fit run the maps' code (entries of their own,
      # checked with every chunk size): two sizes on 10 rows
      new <- contract_rows(fit, rule)
      sizes <- if (nrow(new) < nrow(rd$new)) c(1L, 7L) else c(1L, 3L, 7L, nrow(rd$new), 1000L)
      one <- reg_predict(fit, new, rule)
      for (cs in sizes) {
        expect_identical(reg_predict(fit, new, rule, chunk_size = cs), one,
                         info = sprintf("%s / %s / chunk_size = %d", nm, rule, cs))
      }
    }
  }
})

test_that("row names follow newdata, column names are the embedding's, data frames match by name", {
  df <- as.data.frame(rd$new)[, c("c", "a", "b")]
  bare <- unname(rd$new)
  for (nm in names(reg_fits)) {
    fit <- reg_fits[[nm]]
    cn <- if (inherits(fit, "manifold_oos_map")) fit$embedding_names else colnames(embedding(fit))
    # the entry's own rules and one generic rule (names are set after the rule ran)
    rules <- registry_rules(fit)
    if (!inherits(fit, "manifold_oos_map")) rules <- c(fit$oos$available, "goose")
    for (rule in unique(rules)) {
      info <- sprintf("%s / %s", nm, rule)
      y <- reg_predict(fit, rd$new, rule)
      expect_identical(rownames(y), rownames(rd$new), info = info)
      expect_identical(colnames(y), cn, info = info)
      expect_identical(reg_predict(fit, df, rule), y, info = info)
      yb <- reg_predict(fit, bare, rule)
      expect_null(rownames(yb), info = info)
      expect_identical(unname(values(yb)), unname(values(y)), info = info)
    }
  }
})

test_that("unknown arguments in ... are classed errors naming them, for every entry and rule", {
  for (nm in names(reg_fits)) {
    fit <- reg_fits[[nm]]
    for (rule in registry_rules(fit)) {
      info <- sprintf("%s / %s", nm, rule)
      err <- tryCatch(reg_predict(fit, rd$new, rule, zz_unused_arg = 1), error = function(e) e)
      expect_s3_class(err, "manifoldOOS_dots_error")
      expect_identical(err$arg, "zz_unused_arg", info = info)
      expect_match(conditionMessage(err), "`zz_unused_arg`", fixed = TRUE, info = info)
    }
  }
})

test_that("novelty scores: batch == row by row, the same in chunks, for every fit", {
  ref <- novelty_scores(reg_fits$pca, rd$new, X = rd$train)
  far <- rbind(rd$new[1:3, ], far = c(a = 0, b = -100, c = 0))
  for (nm in names(reg_fits)) {
    fit <- reg_fits[[nm]]
    if (inherits(fit, "manifold_oos_map")) {
      # a map takes nothing in ...: novelty is asked of the fit
      expect_error(predict(fit, rd$new, novelty = TRUE), class = "manifoldOOS_dots_error")
      next
    }
    # a fit that does not store its training data needs it as X
    stored <- !is.null(fit[["X_train"]]) || !is.null(fit[["x_train"]])
    if (!stored) expect_input_error(predict(fit, rd$new, novelty = TRUE), "`X`")
    y <- suppressWarnings(predict(fit, rd$new, novelty = TRUE, X = rd$train))
    s <- attr(y, "novelty")
    expect_length(s, nrow(rd$new))
    rows <- vapply(seq_len(nrow(rd$new)), function(i) attr(suppressWarnings(
      predict(fit, rd$new[i, , drop = FALSE], novelty = TRUE, X = rd$train)), "novelty"), 0)
    expect_identical(rows, as.vector(s), info = nm)
    expect_identical(suppressWarnings(predict(fit, rd$new, novelty = TRUE, X = rd$train, chunk_size = 5)),
                     y, info = nm)
    # the scores are computed in the space the fit was made in: the raw
    # columns unless the fit has an input model (PCA, a metric)
    if (is.null(fit$input)) expect_identical(s, ref, info = nm)
    sf <- attr(suppressWarnings(predict(fit, far, novelty = TRUE, X = rd$train)), "novelty")
    expect_gt(sf[[4]], 1, label = paste(nm, "score of a far point"))
  }
})

test_that("validate_fit() accepts every entry and rejects a damaged component", {
  for (nm in names(reg_fits)) {
    fit <- reg_fits[[nm]]
    expect_invisible(validate_fit(fit))
    bad <- fit
    bad$embedding <- "a"
    if (inherits(fit, "manifold_oos_map")) {
      bad <- fit
      bad$data <- NULL
    }
    expect_error(validate_fit(bad), class = "manifoldOOS_model_error", info = nm)
    expect_error(reg_predict(bad, rd$new, registry_rules(fit)[1]), class = "manifoldOOS_model_error",
                 info = nm)
  }
})
