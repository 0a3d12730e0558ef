# Data frames with non-numeric columns: one rule for every function taking data.

df_X <- swiss_roll(40, seed = 3)$x
colnames(df_X) <- c("a", "b", "c")
df_lab <- rep(c("u", "v"), each = 20)
df_frame <- data.frame(df_X, kind = factor(df_lab), note = rep("n", 40), stringsAsFactors = FALSE)

# Every fitting function with valid arguments besides X.
df_fits <- list(
  pca = list(ndim = 2), kpca = list(ndim = 2), mds = list(ndim = 2),
  isomap = list(ndim = 2, k = 8), lle = list(ndim = 2, k = 8),
  laplacian_eigenmaps = list(ndim = 2, k = 8), ltsa = list(ndim = 2, k = 8),
  lpp = list(ndim = 2, k = 6), olpp = list(ndim = 2, k = 6), npe = list(ndim = 2, k = 8),
  onpp = list(ndim = 2, k = 8), klpp = list(ndim = 2, k = 6),
  spectral_regression = list(ndim = 2, k = 6), lgrm = list(ndim = 2, k = 8),
  plml = list(ndim = 2, k = 8, seed = 1), nppe = list(ndim = 2, k = 8),
  supervised_le = list(labels = df_lab, ndim = 2), fisher_embedding = list(labels = df_lab, ndim = 2),
  ke_lle = list(ndim = 2, k = 8)
)

test_that("every fitting function: a classed error naming X and the non-numeric columns", {
  for (nm in names(df_fits)) {
    fun <- getExportedValue("manifoldOOS", nm)
    err <- expect_error(do.call(fun, c(list(X = df_frame), df_fits[[nm]])),
                        class = "manifoldOOS_input_error", info = nm)
    expect_identical(err$arg, "X", info = nm)
    expect_identical(err$columns, c("kind", "note"), info = nm)
    expect_match(conditionMessage(err), "non-numeric: kind, note", fixed = TRUE, info = nm)
  }
  # other functions taking data follow the same rule
  expect_error(knn(df_frame, 3), class = "manifoldOOS_input_error")
  expect_error(trustworthiness(df_frame, df_X[, 1:2]), class = "manifoldOOS_input_error")
  expect_error(oos_map(df_frame, df_X[, 1:2]), class = "manifoldOOS_input_error")
  fit <- pca(df_X, 2)
  err <- expect_error(predict(fit, df_frame[1:3, ]), class = "manifoldOOS_input_error")
  expect_identical(err$arg, "newdata")
})

test_that("options(manifoldOOS.non_numeric = \"drop\"): dropped with a message, same results", {
  old <- options(manifoldOOS.non_numeric = "drop")
  on.exit(options(old))
  new <- df_frame[1:5, c("note", "c", "a", "kind", "b")]      # other column order
  for (nm in names(df_fits)) {
    fun <- getExportedValue("manifoldOOS", nm)
    expect_message(fit <- suppressWarnings(do.call(fun, c(list(X = df_frame), df_fits[[nm]]))),
                   "dropping 2 non-numeric columns: kind, note", class = "manifoldOOS_message")
    ref <- suppressWarnings(do.call(fun, c(list(X = df_X), df_fits[[nm]])))
    expect_identical(fit$feature_names, c("a", "b", "c"), info = nm)
    expect_equal(embedding(fit), embedding(ref), tolerance = 1e-12, info = nm)
    y <- suppressMessages(predict(fit, new))
    expect_equal(y, predict(ref, df_X[1:5, ]), tolerance = 1e-10, info = nm)
  }
  # nothing numeric left: the usual error
  expect_error(suppressMessages(pca(df_frame[, c("kind", "note")], 1)),
               class = "manifoldOOS_input_error")
})
