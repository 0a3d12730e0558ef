# How many threads "all available" means: OpenMP's default capped by the
# CPU quota / affinity and by OMP_THREAD_LIMIT.

resolve <- get("resolve_available_threads", envir = asNamespace("manifoldOOS"))
quota <- get("cgroup_cpu_quota", envir = asNamespace("manifoldOOS"))
cores <- get("available_cores", envir = asNamespace("manifoldOOS"))

omp <- function(max_threads, thread_limit = 0L) {
  c(max_threads = as.integer(max_threads), thread_limit = as.integer(thread_limit), openmp = 1L)
}

test_that("resolution: the smallest of OpenMP's default, the CPU quota and the thread limit", {
  expect_identical(resolve(omp(8), cores = NA_integer_), 8L)
  expect_identical(resolve(omp(8), cores = 2L), 2L)
  expect_identical(resolve(omp(2), cores = 16L), 2L)
  expect_identical(resolve(omp(8, 3), cores = 4L), 3L)
  expect_identical(resolve(omp(8, 0), cores = 4L), 4L)
  # never below one
  expect_identical(resolve(omp(0), cores = 0L), 1L)
  expect_identical(resolve(omp(NA), cores = NA), 1L)
})

test_that("cgroup v2 cpu.max and v1 cfs quota are read; no quota is NA", {
  root <- withr::local_tempdir()
  expect_identical(quota(root), NA_integer_)
  writeLines("max 100000", file.path(root, "cpu.max"))
  expect_identical(quota(root), NA_integer_)
  writeLines("250000 100000", file.path(root, "cpu.max"))
  expect_identical(quota(root), 2L)
  writeLines("50000 100000", file.path(root, "cpu.max"))
  expect_identical(quota(root), 1L)
  writeLines("garbage", file.path(root, "cpu.max"))
  expect_identical(quota(root), NA_integer_)

  v1 <- withr::local_tempdir()
  dir.create(file.path(v1, "cpu,cpuacct"))
  writeLines("-1", file.path(v1, "cpu,cpuacct", "cpu.cfs_quota_us"))
  writeLines("100000", file.path(v1, "cpu,cpuacct", "cpu.cfs_period_us"))
  expect_identical(quota(v1), NA_integer_)
  writeLines("400000", file.path(v1, "cpu,cpuacct", "cpu.cfs_quota_us"))
  expect_identical(quota(v1), 4L)
})

test_that("available_cores() without parallelly falls back to the cgroup quota", {
  withr::with_envvar(c("_R_CHECK_LIMIT_CORES_" = ""), {
    expect_identical(cores(has_parallelly = FALSE), quota())
  })
  # R CMD check --as-cran: at most two
  withr::with_envvar(c("_R_CHECK_LIMIT_CORES_" = "TRUE"), {
    n <- cores(has_parallelly = FALSE)
    expect_true(n %in% 1:2)
  })
  skip_if_not_installed("parallelly")
  expect_identical(cores(has_parallelly = TRUE), as.integer(parallelly::availableCores()))
})

test_that("max_threads() is at least 1 and at most OpenMP's default; n_threads options agree", {
  n <- max_threads()
  expect_true(is.integer(n) && n >= 1L)
  info <- manifoldOOS:::.mo_omp_info()
  expect_lte(n, max(1L, info[["max_threads"]]))
  if (!info[["openmp"]]) expect_identical(n, 1L)
})

test_that("OMP_THREAD_LIMIT=1 and a CPU quota of one core give one thread (child R process)", {
  skip_if_not_installed("callr")
  probe <- function() {
    library(manifoldOOS)
    max_threads()
  }
  env <- callr::rcmd_safe_env()
  n <- callr::r(probe, libpath = .libPaths(), timeout = 120,
                env = c(env, OMP_THREAD_LIMIT = "1", OMP_NUM_THREADS = "2"))
  expect_identical(n, 1L)
  # mc.cores is one of the limits parallelly knows (a stand-in for a quota)
  skip_if_not_installed("parallelly")
  n <- callr::r(function() {
    options(mc.cores = 1L)
    library(manifoldOOS)
    max_threads()
  }, libpath = .libPaths(), timeout = 120, env = c(env, OMP_NUM_THREADS = "2", MC_CORES = "1"))
  expect_identical(n, 1L)
})
