# Exact l1 coding (spec-004 section 3.4).

# Class-structured unit-norm dictionary (rows) and queries.
l1_problem <- function(D, N, m, seed) {
  set.seed(seed)
  ncl <- 5
  centres <- matrix(rnorm(ncl * D), ncl)
  cl <- rep_len(seq_len(ncl), N)
  X <- centres[cl, ] + 0.5 * matrix(rnorm(N * D), N)
  X <- X / sqrt(rowSums(X^2))
  Q <- centres[sample(ncl, m, TRUE), ] + 0.5 * matrix(rnorm(m * D), m)
  Q <- Q / sqrt(rowSums(Q^2))
  list(X = X, Q = Q)
}

dict_of <- function(X, E = diag(ncol(X))) cbind(t(X), E)

test_that("homotopy and ADMM reach the LP optimum on random problems, feasibly", {
  skip_if_not_installed("lpSolve")
  for (D in c(10, 20, 40)) {
    for (N in c(30, 60, 120)) {
      pr <- l1_problem(D, N, 3, seed = D + N)
      lp <- l1_code(pr$X, pr$Q, solver = "lp")
      B <- dict_of(pr$X)
      for (s in c("homotopy", "admm")) {
        cd <- l1_code(pr$X, pr$Q, solver = s)
        expect_true(all(cd$certified), info = paste(s, D, N))
        expect_false(any(cd$fallback), info = paste(s, D, N))
        expect_lt(max(abs(cd$objective - lp$objective) / lp$objective), 1e-7)
        # the objective is recomputed here from the returned codes
        expect_equal(rowSums(abs(cd$a)) + rowSums(abs(cd$e)), cd$objective, tolerance = 1e-12)
        resid <- t(B %*% t(cbind(cd$a, cd$e))) - pr$Q
        expect_lt(max(abs(resid)), 1e-10)
      }
    }
  }
})

test_that("every solution carries a valid dual certificate", {
  pr <- l1_problem(20, 60, 4, seed = 3)
  B <- dict_of(pr$X)
  for (s in c("homotopy", "admm")) {
    cd <- l1_code(pr$X, pr$Q, solver = s)
    dual_max <- apply(abs(cd$dual %*% B), 1, max)
    expect_true(all(dual_max <= 1 + 1e-8))
    obj <- rowSums(abs(cbind(cd$a, cd$e)))
    expect_lt(max(abs(obj - rowSums(pr$Q * cd$dual)) / obj), 1e-8)
  }
})

test_that("codes agree across solvers when the certificate is strict (unique solution)", {
  pr <- l1_problem(20, 60, 6, seed = 11)
  B <- dict_of(pr$X)
  h <- l1_code(pr$X, pr$Q, solver = "homotopy")
  a <- l1_code(pr$X, pr$Q, solver = "admm")
  n_strict <- 0
  for (i in seq_len(nrow(pr$Q))) {
    code <- c(h$a[i, ], h$e[i, ])
    S <- which(code != 0)
    corr <- abs(drop(h$dual[i, ] %*% B))
    strict <- all(corr[-S] < 1 - 1e-9) && qr(B[, S, drop = FALSE])$rank == length(S)
    if (strict) {
      n_strict <- n_strict + 1
      expect_equal(c(a$a[i, ], a$e[i, ]), code, tolerance = 1e-8)
    }
  }
  expect_gt(n_strict, 0)
})

test_that("a training sample is coded by itself (a = delta_j, e = 0)", {
  pr <- l1_problem(20, 60, 1, seed = 5)
  for (s in c("homotopy", "admm")) {
    cd <- l1_code(pr$X, pr$X[c(7, 42), ], solver = s)
    expect_equal(unname(cd$a[1, ]), replace(numeric(60), 7, 1), tolerance = 1e-10)
    expect_equal(unname(cd$a[2, ]), replace(numeric(60), 42, 1), tolerance = 1e-10)
    expect_equal(max(abs(cd$e)), 0, tolerance = 1e-10)
  }
})

test_that("a scaled coordinate vector is coded by the error part alone", {
  pr <- l1_problem(20, 60, 1, seed = 6)
  x <- replace(numeric(20), 4, 2.5)
  expect_true(all(abs(pr$X[, 4]) < 1))
  for (s in c("homotopy", "admm")) {
    cd <- l1_code(pr$X, x, solver = s)
    expect_equal(max(abs(cd$a)), 0, tolerance = 1e-10)
    expect_equal(unname(cd$e[1, ]), x, tolerance = 1e-10)
    expect_equal(cd$objective, 2.5, tolerance = 1e-10)
  }
})

test_that("queries are coded independently of the batch and of the thread count", {
  # 40 queries, advanced eight at a time in lockstep: a query's code must
  # not depend on the others it shares the correlation passes with
  pr <- l1_problem(20, 80, 40, seed = 8)
  full <- l1_code(pr$X, pr$Q, n_threads = 1)
  full2 <- l1_code(pr$X, pr$Q, n_threads = 2)
  expect_identical(full$a, full2$a)
  for (i in c(1, 5, 9, 40)) {
    one <- l1_code(pr$X, pr$Q[i, ], n_threads = 1)
    expect_identical(unname(one$a[1, ]), unname(full$a[i, ]))
    expect_identical(unname(one$e[1, ]), unname(full$e[i, ]))
  }
})

test_that("a user error basis gives the LP optimum with that basis", {
  skip_if_not_installed("lpSolve")
  pr <- l1_problem(12, 40, 3, seed = 9)
  set.seed(2)
  E <- qr.Q(qr(matrix(rnorm(144), 12)))
  lp <- l1_code(pr$X, pr$Q, solver = "lp", error_basis = E)
  cd <- l1_code(pr$X, pr$Q, error_basis = E)
  expect_true(all(cd$certified))
  expect_lt(max(abs(cd$objective - lp$objective) / lp$objective), 1e-7)
  resid <- t(cbind(t(pr$X), E) %*% t(cbind(cd$a, cd$e))) - pr$Q
  expect_lt(max(abs(resid)), 1e-10)
})

test_that("a non-square error basis is coded by ADMM, still exactly", {
  skip_if_not_installed("lpSolve")
  pr <- l1_problem(10, 30, 3, seed = 12)
  set.seed(3)
  E <- cbind(diag(10), matrix(rnorm(50), 10) / 3)  # 10 x 15, full row rank
  lp <- l1_code(pr$X, pr$Q, solver = "lp", error_basis = E)
  cd <- l1_code(pr$X, pr$Q, error_basis = E)
  expect_true(all(cd$certified))
  expect_true(all(cd$fallback))
  expect_identical(unique(cd$solver), "admm")
  expect_lt(max(abs(cd$objective - lp$objective) / lp$objective), 1e-7)
})

test_that("the homotopy stays exact on degenerate dictionaries", {
  # duplicated samples, samples equal to coordinate vectors (parallel to
  # error columns) and many exact zeros: the active-set factor must refuse
  # dependent columns and still end at the LP optimum
  skip_if_not_installed("lpSolve")
  set.seed(21)
  D <- 12
  X <- matrix(rnorm(25 * D), 25)
  X[X < 0.3 & X > -0.3] <- 0
  X <- rbind(X, X[1:4, ], diag(D)[c(2, 5), ])
  X <- X / sqrt(rowSums(X^2))
  Q <- rbind(X[c(1, 26), ], matrix(rnorm(6 * D), 6), 0.5 * X[3, ] + 0.5 * X[27, ], diag(D)[5, ] * 2)
  lp <- l1_code(X, Q, solver = "lp")
  cd <- l1_code(X, Q, solver = "homotopy")
  expect_true(all(cd$certified))
  expect_lt(max(abs(cd$objective - lp$objective) / pmax(lp$objective, 1e-12)), 1e-7)
  B <- dict_of(X)
  expect_lt(max(abs(t(B %*% t(cbind(cd$a, cd$e))) - Q)), 1e-10)
})

test_that("normalize = TRUE makes the codes scale-free", {
  pr <- l1_problem(15, 40, 3, seed = 10)
  a1 <- l1_code(pr$X, pr$Q, normalize = TRUE)
  a2 <- l1_code(7 * pr$X, 0.1 * pr$Q, normalize = TRUE)
  expect_equal(a1$a, a2$a, tolerance = 1e-8)
  # without it the trade-off between a and e changes with the scale of X
  b <- l1_code(10 * pr$X, 10 * pr$Q)
  expect_gt(max(abs(b$a - l1_code(pr$X, pr$Q)$a)), 1e-3)
})

test_that("a zero query gets the zero code", {
  pr <- l1_problem(10, 20, 1, seed = 1)
  cd <- l1_code(pr$X, numeric(10))
  expect_equal(sum(abs(cd$a)) + sum(abs(cd$e)), 0)
  expect_true(cd$certified)
})

test_that("l1_code rejects bad input with classed errors", {
  pr <- l1_problem(10, 20, 1, seed = 1)
  expect_input_error(l1_code(pr$X, numeric(9)), "`x`")
  expect_input_error(l1_code(pr$X, matrix(0, 2, 9)), "`x`")
  expect_input_error(l1_code(pr$X, pr$Q, solver = "simplex"), "`solver`")
  expect_input_error(l1_code(pr$X, pr$Q, error_basis = diag(9)), "`error_basis`")
  expect_input_error(l1_code(pr$X, pr$Q, error_basis = matrix(0, 10, 3)), "`error_basis`")
  expect_input_error(l1_code(pr$X, c(NA, numeric(9))), "`x`")
  expect_output(print(l1_code(pr$X, pr$Q)), "certified: 1 of 1")
})

# The homotopy skips the correlations of columns that provably cannot enter
# within a step (screening against a checkpoint; see sparse_coding.h).
# `check = TRUE` recomputes every skipped column at every step and counts
# those that would have entered first; `refresh = 0` is the reference with a
# full correlation pass at every step.
l1_path <- function(X, Q, refresh = -1L, check = FALSE) {
  manifoldOOS:::.mo_l1_code(X, matrix(0, 0, 0), Q, "homotopy", 20000L, 8L, 1L,
                            as.integer(refresh), check)
}

expect_same_path <- function(a, b, info) {
  expect_identical(a$steps, b$steps, info = info)
  expect_identical(a$drops, b$drops, info = info)
  expect_identical(a$a != 0, b$a != 0, info = info)
  expect_equal(a$a, b$a, tolerance = 1e-12, info = info)
  expect_equal(a$e, b$e, tolerance = 1e-12, info = info)
}

test_that("the screened correlations never skip an entering column", {
  skip_if_not_installed("lpSolve")
  set.seed(31)
  D <- 30
  # unit-norm rows, rows of unequal norms, and a degenerate dictionary
  # (duplicates, coordinate vectors, many exact zeros)
  pr <- l1_problem(D, 400, 4, seed = 31)
  Xn <- pr$X * exp(rnorm(400, sd = 0.7))
  Xd <- matrix(rnorm(150 * D), 150)
  Xd[abs(Xd) < 0.4] <- 0
  Xd <- rbind(Xd, Xd[1:20, ], diag(D)[c(3, 7, 11), ], -Xd[21:25, ])
  Xd <- Xd / sqrt(rowSums(Xd^2))
  cases <- list(unit = list(X = pr$X, Q = rbind(pr$Q, pr$X[17, ])),
                norms = list(X = Xn, Q = pr$Q),
                degenerate = list(X = Xd, Q = rbind(Xd[c(1, 151), ], matrix(rnorm(3 * D), 3),
                                                    0.5 * Xd[2, ] + 0.5 * Xd[152, ])))
  for (nm in names(cases)) {
    cs <- cases[[nm]]
    ref <- l1_path(cs$X, cs$Q, refresh = 0)
    lp <- l1_code(cs$X, cs$Q, solver = "lp")
    expect_true(all(ref$certified), info = nm)
    expect_lt(max(abs(ref$objective - lp$objective) / lp$objective), 1e-7)
    # the default, a checkpoint after every step and no checkpoint at all
    for (rf in c(-1L, 1L, 1000000L)) {
      info <- paste(nm, "refresh", rf)
      cd <- l1_path(cs$X, cs$Q, refresh = rf, check = TRUE)
      expect_identical(sum(cd$screen_violations), 0L, info = info)
      expect_true(all(cd$certified), info = info)
      expect_lt(max(abs(cd$objective - lp$objective) / lp$objective), 1e-7)
      # the same path as the full passes; with exact ties (duplicated
      # columns) round-off decides which of them enters, so only the
      # optimum is compared there
      if (nm != "degenerate") expect_same_path(cd, ref, info)
    }
  }
  # screening does skip most columns (the checks above are not vacuous)
  expect_lt(mean(l1_path(cases$unit$X, cases$unit$Q)$tracked), 0.25 * 400)
  expect_lt(mean(l1_path(cases$norms$X, cases$norms$Q)$tracked), 0.5 * 400)
})
