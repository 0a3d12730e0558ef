# Shared test helpers.

# Folder with the image data sets, or "" when absent.
shared_data_dir <- function() {
  d <- getOption("manifoldOOS.data", Sys.getenv("MANIFOLDOOS_DATA", ""))
  if (nzchar(d) && dir.exists(d)) return(d)
  for (cand in c("../../../shared/data", "../../../../shared/data")) {
    if (dir.exists(cand)) return(normalizePath(cand))
  }
  ""
}

skip_if_no_shared_data <- function(name = NULL) {
  d <- shared_data_dir()
  if (!nzchar(d)) skip("image data folder not available")
  if (!is.null(name) && !dir.exists(file.path(d, name))) skip(paste("data set", name, "not available"))
  d
}

# Largest principal angle (in radians) between the column spaces of A and B.
max_principal_angle <- function(A, B) {
  qa <- qr.Q(qr(A)); qb <- qr.Q(qr(B))
  s <- svd(crossprod(qa, qb))$d
  acos(min(1, max(0, min(s))))
}

expect_input_error <- function(expr, arg = NULL) {
  err <- expect_error(expr, class = "manifoldOOS_input_error")
  if (!is.null(arg)) expect_match(conditionMessage(err), arg, fixed = TRUE)
  invisible(err)
}

# A with each column's sign flipped to match B: sign(colSums(A * B)) (0 counts as +).
align_signs <- function(A, B) {
  s <- sign(colSums(A * B))
  s[s == 0] <- 1
  sweep(A, 2, s, "*")
}

# The test that a method unrolls the Swiss roll (n = 2000 unless `roll` says
# otherwise): trustworthiness(k = 10) of the embedding fit_fun(roll$x) is at least 0.99.
test_roll_trustworthiness <- function(fit_fun, roll = swiss_roll(2000, seed = 1)) {
  test_that("Swiss roll n = 2000, k = 10: trustworthiness(10) >= 0.99", {
    fit <- fit_fun(roll$x)
    expect_gte(trustworthiness(roll$x, embedding(fit), k = 10), 0.99)
  })
}

# The dense and the sparse eigen-solver paths of a fit agree: the sparse fit
# used Spectra (and the dense one `dense_method`, when given), the embeddings
# span the same space and the eigenvalues `eig` are equal.
# fit_fun(solver) fits with eigen_solver = solver.
expect_eigen_paths_agree <- function(fit_fun, eig = TRUE, dense_method = NULL) {
  fd <- fit_fun("dense")
  fs <- fit_fun("sparse")
  expect_match(fs$solver$method, "spectra")
  if (!is.null(dense_method)) expect_match(fd$solver$method, dense_method)
  expect_lt(max_principal_angle(embedding(fd), embedding(fs)), 1e-6)
  expect_equal(fd$eigenvalues[eig], fs$eigenvalues[eig], tolerance = 1e-7)
}

# Degenerate data a local method (LLE, LTSA) must handle; fit_fun(X, k) fits.
# Two far-apart clusters (drawn from the current random stream) with
# k = k_split: a classed error naming `k` whose message matches `components`;
# duplicated rows: kept with a warning, finite embedding; a neighbourhood of
# copies of one point: a fit of class `cls` or a classed error, never a crash.
# Returns the fit on the duplicated rows (`fit`) and the roll they came from.
expect_degenerate_data_handled <- function(fit_fun, cls, k_split, components = "connected components") {
  two <- rbind(matrix(rnorm(60), 30), matrix(rnorm(60), 30) + 100)
  err <- expect_input_error(fit_fun(two, k_split), "`k`")
  expect_match(conditionMessage(err), components)
  roll <- swiss_roll(200, seed = 3)
  Xd <- rbind(roll$x, roll$x[1:10, ])
  expect_warning(fd <- fit_fun(Xd, 8), class = "manifoldOOS_duplicates_warning")
  expect_true(all(is.finite(embedding(fd))))
  Xm <- rbind(roll$x, matrix(roll$x[1, ], 12, 3, byrow = TRUE))
  res <- tryCatch(suppressWarnings(fit_fun(Xm, 8)), manifoldOOS_error = function(e) e)
  expect_true(inherits(res, cls) || inherits(res, "manifoldOOS_error"))
  invisible(list(fit = fd, roll = roll))
}
