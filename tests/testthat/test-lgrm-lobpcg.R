# The Nystrom path of lgrm() without a sparse factorisation: LOBPCG on
# M = L_loc + mu (H - F S F') with the constant deflated, the global term
# entering through products (nystrom_lobpcg() in lgrm_nystrom.cpp). The
# invariant: it solves the same eigenproblem as the shift-invert path with
# the Woodbury identity, so the two paths agree.

align_signs <- function(Y, ref) sweep(Y, 2, sign(colSums(Y * ref)), `*`)
rel_diff <- function(a, b) max(abs(a - b)) / max(abs(b))

fit_paths <- function(X, ...) {
  list(si = lgrm(X, 2, eigen_solver = "iterative", ...),
       lo = lgrm(X, 2, eigen_solver = "lobpcg", ...))
}

test_that("LOBPCG and shift-invert give the same Nystrom fit", {
  X <- swiss_roll(2000, seed = 21)$x
  f <- fit_paths(X, k = 10, landmarks = 200, seed = 4)
  expect_identical(f$lo$solver$method, "lobpcg_amg_deflated")
  expect_identical(f$si$solver$method, "spectra_shift_invert_woodbury")
  expect_lt(rel_diff(f$lo$eigenvalues[1:2], f$si$eigenvalues[1:2]), 1e-6)
  expect_lt(rel_diff(align_signs(f$lo$embedding, f$si$embedding), f$si$embedding), 1e-5)
  Xn <- swiss_roll(300, seed = 22)$x
  ps <- predict(f$si, Xn)
  expect_lt(rel_diff(align_signs(predict(f$lo, Xn), ps), ps), 1e-4)
  # the embedding is centred and orthonormal, as on the other path
  expect_lt(max(abs(colMeans(f$lo$embedding))), 1e-12)
  expect_lt(max(abs(crossprod(f$lo$embedding) - diag(2))), 1e-10)
})

test_that("LOBPCG agrees with shift-invert in the explicit formulation, with mu = 0 and a larger mu", {
  X <- swiss_roll(1500, seed = 23)$x
  withr::with_options(list(manifoldOOS.lgrm_nystrom = "explicit"), {
    f <- fit_paths(X, k = 10, landmarks = 150, seed = 5)
  })
  expect_lt(rel_diff(align_signs(f$lo$embedding, f$si$embedding), f$si$embedding), 1e-5)
  # mu = 0: the local method alone (the global term is not applied)
  f0 <- fit_paths(X, k = 10, landmarks = 150, seed = 5, mu = 0)
  expect_lt(rel_diff(align_signs(f0$lo$embedding, f0$si$embedding), f0$si$embedding), 1e-5)
  # a global term that matters: the two paths still agree, and differ from mu = 0
  f1 <- fit_paths(X, k = 10, landmarks = 150, seed = 5, mu = 1e-2)
  expect_lt(rel_diff(align_signs(f1$lo$embedding, f1$si$embedding), f1$si$embedding), 1e-5)
  expect_gt(rel_diff(align_signs(f1$si$embedding, f0$si$embedding), f0$si$embedding), 1e-3)
})

test_that("auto takes LOBPCG on the Nystrom path by the predicted factorisation, and records it", {
  X <- swiss_roll(3000, seed = 24)$x
  withr::local_options(manifoldOOS.fill_min_n = 1000L, manifoldOOS.lobpcg_min_n = 1e6,
                       manifoldOOS.lgrm_lobpcg_flops_per_nnz = 1e12)
  analyses <- manifoldOOS:::.mo_cholmod_analyses()
  kept <- manifoldOOS:::.mo_cholmod_kept()
  si <- lgrm(X, 2, k = 10, landmarks = 200, seed = 6)
  expect_identical(si$solver$method, "spectra_shift_invert_woodbury")
  expect_match(si$solver$note, "automatic choice: .*: shift-invert")
  # the prediction's analysis is not kept: the Woodbury path factorises with
  # Eigen, not with CHOLMOD
  expect_identical(manifoldOOS:::.mo_cholmod_analyses() - analyses, 1)
  expect_identical(manifoldOOS:::.mo_cholmod_kept() - kept, 0)
  # LGRM's threshold, not Laplacian eigenmaps'
  withr::local_options(manifoldOOS.lobpcg_flops_per_nnz = 1)
  expect_identical(lgrm(X, 2, k = 10, landmarks = 200, seed = 6)$solver$method, "spectra_shift_invert_woodbury")
  withr::local_options(manifoldOOS.lgrm_lobpcg_flops_per_nnz = 1)
  lo <- lgrm(X, 2, k = 10, landmarks = 200, seed = 6)
  expect_identical(lo$solver$method, "lobpcg_amg_deflated")
  expect_match(lo$solver$note, "automatic choice: .*: LOBPCG")
  expect_true(any(grepl("lobpcg", format(summary(lo)))))
  # (both solvers stop at a residual bound; the vectors agree to about
  # that bound over the spectral gap, 1.4e-5 here)
  expect_lt(rel_diff(align_signs(lo$embedding, si$embedding), si$embedding), 5e-5)
  # "iterative" is shift-invert whatever the prediction
  expect_identical(lgrm(X, 2, k = 10, landmarks = 200, seed = 6, eigen_solver = "iterative")$solver$method,
                   "spectra_shift_invert_woodbury")
  # a LOBPCG fit survives saveRDS() and predicts the same
  f <- tempfile(fileext = ".rds")
  saveRDS(lo, f)
  Xn <- swiss_roll(100, seed = 25)$x
  expect_identical(predict(readRDS(f), Xn), predict(lo, Xn))
})

test_that("eigen_solver = \"lobpcg\" needs landmarks", {
  X <- swiss_roll(300, seed = 26)$x
  err <- expect_error(lgrm(X, 2, k = 10, eigen_solver = "lobpcg"), class = "manifoldOOS_input_error")
  expect_match(conditionMessage(err), "eigen_solver")
})
