# LPP and OLPP on disconnected graphs: fitted by default with a message, and
# the solution satisfies the generalised eigenproblem of the graph as it is.

# COIL-20-like data: `n_obj` objects, each photographed at `n_view` angles:
# a closed loop per object (non-planar), far from the others, in p dimensions.
coil_like <- function(n_obj = 6, n_view = 30, p = 12, seed = 1) {
  set.seed(seed)
  th <- seq(0, 2 * pi, length.out = n_view + 1L)[-1L]
  X <- do.call(rbind, lapply(seq_len(n_obj), function(j) {
    B <- qr.Q(qr(matrix(stats::rnorm(p * 3), p)))
    centre <- stats::rnorm(p, sd = 12)
    pts <- cbind(cos(th), sin(th), 0.3 * cos(2 * th)) %*% t(B) * (1 + 0.2 * j)
    sweep(pts, 2, centre, "+")
  }))
  list(x = X, labels = rep(seq_len(n_obj), each = n_view))
}

# || Xc' L Xc A - Xc' D Xc A diag(lambda) || relative to || Xc' L Xc A ||, and
# the constraint A' Xc' D Xc A = I, for the graph of the fit's parameters.
lpp_equations <- function(fit, X, W) {
  d <- Matrix::rowSums(W)
  Xc <- sweep(X, 2, fit$center)
  LX <- as.matrix(Matrix::Diagonal(x = d) %*% Xc - W %*% Xc)
  A <- unname(fit$rotation)
  lhs <- crossprod(Xc, LX) %*% A
  DXA <- crossprod(Xc, d * Xc) %*% A
  list(residual = norm(lhs - DXA %*% diag(fit$eigenvalues, ncol(A)), "F") / norm(lhs, "F"),
       constraint = max(abs(crossprod(A, DXA) - diag(ncol(A)))),
       lhs = crossprod(Xc, LX), rhs = crossprod(Xc, d * Xc))
}

test_that("LPP fits a disconnected kNN graph with a message, and solves its eigenproblem", {
  co <- coil_like()
  g <- neighbor_graph(co$x, k = 5, weights = "heat", sigma = "mean_pairwise", on_disconnected = "keep")
  expect_identical(g$n_components, 6L)
  # every component is one object
  expect_identical(as.vector(table(g$component, co$labels) > 0), as.vector(diag(6) > 0))
  expect_error(lpp(co$x, k = 5, on_disconnected = "error"), class = "manifoldOOS_input_error")
  expect_message(fit <- lpp(co$x, ndim = 3, k = 5), class = "manifoldOOS_disconnected")
  msg <- tryCatch(lpp(co$x, ndim = 3, k = 5), message = function(m) conditionMessage(m))
  expect_match(msg, "6 connected components (sizes 30, 30, 30, 30, 30, 30)", fixed = TRUE)
  expect_identical(fit$n_components, 6L)
  eq <- lpp_equations(fit, co$x, g$W)
  expect_lt(eq$residual, 1e-8)
  expect_lt(eq$constraint, 1e-8)
  # the eigenvalues are the smallest of the whole generalised problem
  R <- chol(eq$rhs)
  M <- backsolve(R, t(backsolve(R, eq$lhs, transpose = TRUE)), transpose = TRUE)
  all_values <- sort(eigen((M + t(M)) / 2, symmetric = TRUE, only.values = TRUE)$values)
  expect_equal(fit$eigenvalues, all_values[1:3], tolerance = 1e-8)
  # predictions are the exact linear map
  expect_equal(unname(predict(fit, co$x[1:10, ])), unname(embedding(fit)[1:10, ]), tolerance = 1e-12)
  # "connect" still joins the components (with its warning) and changes the problem
  fit_c <- suppressWarnings(lpp(co$x, ndim = 3, k = 5, on_disconnected = "connect"))
  expect_identical(fit_c$n_components, 1L)
  expect_false(isTRUE(all.equal(fit_c$eigenvalues, fit$eigenvalues)))
  # a connected graph gives no message
  roll <- swiss_roll(200, seed = 1)
  expect_silent(lpp(roll$x, ndim = 2, k = 8))
})

test_that("OLPP on a disconnected graph: orthonormal vectors solving their problems", {
  co <- coil_like(n_obj = 5, seed = 2)
  g <- neighbor_graph(co$x, k = 5, weights = "heat", sigma = "mean_pairwise", on_disconnected = "keep")
  expect_identical(g$n_components, 5L)
  expect_message(cai <- olpp(co$x, ndim = 3, k = 5), class = "manifoldOOS_disconnected")
  expect_equal(crossprod(unname(cai$rotation)), diag(3), tolerance = 1e-10)
  # Cai's OLPP starts with LPP's first vector
  lp <- suppressMessages(lpp(co$x, ndim = 1, k = 5))
  a1 <- lp$rotation[, 1] / sqrt(sum(lp$rotation[, 1]^2))
  expect_equal(abs(sum(a1 * cai$rotation[, 1])), 1, tolerance = 1e-8)
  expect_message(tr <- olpp(co$x, ndim = 3, k = 5, type = "trace"), class = "manifoldOOS_disconnected")
  eq <- lpp_equations(tr, co$x, g$W)
  A <- unname(tr$rotation)
  expect_equal(crossprod(A), diag(3), tolerance = 1e-10)
  expect_lt(norm(eq$lhs %*% A - A %*% diag(tr$eigenvalues), "F") / norm(eq$lhs %*% A, "F"), 1e-8)
  expect_equal(tr$eigenvalues, sort(eigen(eq$lhs, symmetric = TRUE)$values)[1:3], tolerance = 1e-8)
})

test_that("with as many dimensions as points, c - 1 directions collapse each component to a point", {
  set.seed(3)
  n_obj <- 3
  X <- do.call(rbind, lapply(seq_len(n_obj), function(j) {
    sweep(matrix(stats::rnorm(20 * 80), 20), 2, stats::rnorm(80, sd = 30), "+")
  }))
  lab <- rep(seq_len(n_obj), each = 20)
  g <- neighbor_graph(X, k = 5, weights = "heat", sigma = "mean_pairwise", on_disconnected = "keep")
  expect_identical(g$n_components, 3L)
  msg <- tryCatch(lpp(X, ndim = 2, k = 5), message = function(m) conditionMessage(m))
  expect_match(msg, "2 of the 2 directions have eigenvalue 0", fixed = TRUE)
  fit <- suppressMessages(lpp(X, ndim = 2, k = 5))
  expect_lt(max(abs(fit$eigenvalues)), 1e-8)
  Y <- embedding(fit)
  within <- sum(vapply(1:3, function(j) sum(scale(Y[lab == j, ], scale = FALSE)^2), 0))
  expect_lt(within / sum(scale(Y, scale = FALSE)^2), 1e-8)
})

test_that("COIL-20 at k = 5 (9 graph components) fits with LPP and OLPP", {
  skip_if_no_shared_data("COIL20")
  skip_on_cran()
  d <- load_image_data("COIL20", path = shared_data_dir())
  X <- unname(d$x)
  msg <- NULL
  fit <- withCallingHandlers(lpp(X, ndim = 2, k = 5), manifoldOOS_disconnected = function(m) {
    msg <<- conditionMessage(m)
    invokeRestart("muffleMessage")
  })
  g <- neighbor_graph(X, k = 5, weights = "heat", sigma = "mean_pairwise", on_disconnected = "keep")
  expect_identical(fit$n_components, g$n_components)
  expect_gt(g$n_components, 1L)
  expect_match(msg, sprintf("%d connected components", g$n_components), fixed = TRUE)
  eq <- lpp_equations(fit, X, g$W)
  expect_lt(eq$residual, 1e-6)
  expect_lt(eq$constraint, 1e-6)
  o <- suppressMessages(olpp(X, ndim = 2, k = 5))
  expect_equal(crossprod(unname(o$rotation)), diag(2), tolerance = 1e-8)
})
