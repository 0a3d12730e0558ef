# Corrupted models: every component of every fit class (and of every kind of
# out-of-sample map) dropped, truncated, replaced by a string, given a NaN,
# and objects of one class relabelled as another. predict(), reconstruct()
# and predict_file() must either return finite numbers or stop with a
# manifoldOOS_error; never an unclassed error, a crash or a silent NaN.

d <- registry_data()
fits <- registry_fits(d, maps = FALSE)
# the oos_map entries, named by their rule
maps <- registry_fits(d, names = paste0("oos_map_", oos_map_methods))
names(maps) <- oos_map_methods

# The damaged versions of one model: list(label = object).
corrupt_variants <- function(obj) {
  out <- list()
  for (nm in names(obj)) {
    v <- obj[[nm]]
    drop <- obj
    drop[nm] <- list(NULL)
    drop[[nm]] <- NULL
    out[[paste0(nm, ": dropped")]] <- drop
    out[[paste0(nm, ": string")]] <- replace(obj, nm, list("a"))
    if (is.matrix(v) && nrow(v) > 1L) {
      out[[paste0(nm, ": last row removed")]] <- replace(obj, nm, list(v[-nrow(v), , drop = FALSE]))
      if (ncol(v) > 1L) {
        out[[paste0(nm, ": last column removed")]] <- replace(obj, nm, list(v[, -ncol(v), drop = FALSE]))
      }
    } else if (is.atomic(v) && length(v) > 1L) {
      out[[paste0(nm, ": truncated")]] <- replace(obj, nm, list(v[-length(v)]))
    } else if (is.list(v) && length(v) > 0L) {
      out[[paste0(nm, ": emptied")]] <- replace(obj, nm, list(v[0]))
    }
    if (is.numeric(v) && length(v)) {
      v[ceiling(length(v) / 2)] <- NaN
      out[[paste0(nm, ": NaN inside")]] <- replace(obj, nm, list(v))
    }
    if (is.numeric(v) && length(v) == 1L) out[[paste0(nm, ": zero")]] <- replace(obj, nm, list(0))
  }
  out
}

# "ok" (finite numbers), "classed" (a manifoldOOS_error) or a description of
# the defect.
outcome <- function(expr) {
  r <- tryCatch(suppressWarnings(expr), error = function(e) e)
  if (inherits(r, "error")) {
    if (inherits(r, "manifoldOOS_error")) return("classed")
    return(paste("unclassed error:", conditionMessage(r)))
  }
  if (is.numeric(r) && any(!is.finite(r))) return("non-finite result")
  "ok"
}

fuzz_model <- function(label, obj, calls) {
  variants <- corrupt_variants(obj)
  res <- character()
  for (v in names(variants)) {
    for (cl in names(calls)) {
      res[sprintf("%s | %s | %s", label, v, cl)] <- outcome(calls[[cl]](variants[[v]]))
    }
  }
  res
}

# the calls made on every damaged version of `fit` (every native rule of the
# undamaged fit, plus the default rule in chunks)
fit_calls <- function(fit) {
  calls <- lapply(stats::setNames(nm = fit$oos$available), function(m) {
    force(m)
    function(f) predict(f, d$new, method = m)
  })
  calls$predict_default_chunked <- function(f) predict(f, d$new, chunk_size = 5)
  calls
}

results <- character()

test_that("every fit class: corrupted components give finite results or classed errors", {
  for (nm in names(fits)) {
    calls <- fit_calls(fits[[nm]])
    if (length(reconstruct_own <- get("reconstruct_own_rule", asNamespace("manifoldOOS"))(fits[[nm]]))) {
      calls$reconstruct <- function(f) reconstruct(f, embedding(fits[[nm]])[1:5, , drop = FALSE])
    }
    results <<- c(results, fuzz_model(nm, fits[[nm]], calls))
  }
  bad <- results[!results %in% c("ok", "classed")]
  expect_gt(length(results), 1000)
  cat(sprintf("\n[fuzz] %d calls on corrupted fits: %d returned finite numbers, %d classed errors\n",
              length(results), sum(results == "ok"), sum(results == "classed")))
  expect_identical(length(bad), 0L,
                   info = paste(sprintf("%s: %s", names(bad), bad), collapse = "\n"))
})

test_that("every kind of oos_map: corrupted components give finite results or classed errors", {
  res <- character()
  for (nm in names(maps)) {
    res <- c(res, fuzz_model(paste("oos_map", nm), maps[[nm]],
                             list(predict = function(m) predict(m, d$new))))
    # and inside a fit that carries a map (KE)
  }
  for (part in c("data", "params")) {
    for (nm in names(maps)) {
      inner <- corrupt_variants(maps[[nm]][[part]])
      for (v in names(inner)) {
        m <- maps[[nm]]
        m[[part]] <- inner[[v]]
        res[sprintf("oos_map %s | %s$%s", nm, part, v)] <- outcome(predict(m, d$new))
      }
    }
  }
  bad <- res[!res %in% c("ok", "classed")]
  expect_identical(length(bad), 0L, info = paste(sprintf("%s: %s", names(bad), bad), collapse = "\n"))
})

test_that("an object of one class relabelled as another is a classed error, not a crash", {
  res <- character()
  for (a in names(fits)) {
    for (b in names(fits)) {
      if (a == b) next
      obj <- fits[[a]]
      class(obj) <- class(fits[[b]])
      obj$oos <- fits[[b]]$oos
      res[sprintf("%s as %s", a, b)] <- outcome(predict(obj, d$new))
    }
  }
  bad <- res[!res %in% c("ok", "classed")]
  expect_identical(length(bad), 0L, info = paste(sprintf("%s: %s", names(bad), bad), collapse = "\n"))
})

test_that("the model error names the component and the argument", {
  f <- fits$ltsa
  f$X_train <- f$X_train[-1, ]
  e <- tryCatch(predict(f, d$new), error = function(e) e)
  expect_s3_class(e, "manifoldOOS_model_error")
  expect_s3_class(e, "manifoldOOS_input_error")
  expect_identical(e$arg, "object")
  expect_identical(e$component, "X_train")
  expect_match(conditionMessage(e), "`X_train` must have 44 rows; it has 43")

  f <- fits$lgrm
  f$beta[2, 1] <- NaN
  e <- tryCatch(predict(f, d$new), error = function(e) e)
  expect_identical(e$component, "beta")
  expect_match(conditionMessage(e), "finite")

  p <- fits$pca
  p$rotation <- "a"
  e <- tryCatch(reconstruct(p, embedding(fits$pca)[1:3, ]), error = function(e) e)
  expect_s3_class(e, "manifoldOOS_model_error")
  expect_identical(e$arg, "fit")
  expect_identical(e$component, "rotation")

  m <- maps$krr
  m$data$C <- m$data$C[, 1, drop = FALSE]
  e <- tryCatch(predict(m, d$new), error = function(e) e)
  expect_identical(e$component, "data$C")
  # an unnamed extra element is ignored; a fit without names is a classed error
  f <- fits$pca
  f[[length(f) + 1L]] <- 1
  expect_invisible(validate_fit(f))
  f <- fits$pca
  names(f) <- NULL
  expect_error(predict(f, d$new), class = "manifoldOOS_model_error")
  expect_error(validate_fit(unclass(fits$pca)), class = "manifoldOOS_input_error")
  for (f in fits) expect_invisible(validate_fit(f))
  for (m in maps) expect_invisible(validate_fit(m))
})

test_that("predict_file() checks the model before it writes anything", {
  io <- local_csv_files(d$new)
  f <- fits$lle
  f$k <- "a"
  e <- tryCatch(predict_file(f, io$input, io$output), error = function(e) e)
  expect_s3_class(e, "manifoldOOS_model_error")
  expect_identical(e$arg, "fit")
  expect_identical(e$component, "k")
  expect_false(file.exists(io$output))
})

test_that("the parallel path checks the model on the worker", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  install <- get("worker_install", asNamespace("manifoldOOS"))
  f <- fits$isomap
  f$geodesics <- f$geodesics[, -1]
  expect_error(install(1L, "k", f), class = "manifoldOOS_model_error")
  chunk <- get("worker_chunk", asNamespace("manifoldOOS"))
  expect_error(chunk(d$new, "k", function(m, b) b, list(), 1L, model = f),
               class = "manifoldOOS_model_error")
})
