#' Gaussian mixture clustering with an MDL choice of the number of clusters
#'
#' The clustering of iterative hyperplane merging (IHM; Strange and
#' Zwiggelaar, BMVC 2010), after Bouman's *CLUSTER* (1997): a Gaussian
#' mixture with full covariances is fitted by EM from `n_components`
#' initial components; then the two components whose merger costs the least
#' likelihood are merged, EM is rerun, and so on down to `min_components`.
#' The number of components with the smallest minimum description length
#' (Rissanen's MDL) is kept, and every point goes to the component of
#' highest density \eqn{\arg\max_c p(x \mid \omega_c)} (BMVC10 Eqs. 1-2: a
#' hard partition).
#'
#' **EM.** Initial means: `n_components` distinct data points drawn at
#' random (`seed`); initial covariances: the covariance of all data; equal
#' weights. The M-step is the maximum a posteriori step of a
#' Wishart-type prior on each precision matrix, which keeps the covariances
#' positive definite: \eqn{\Sigma_c = (S_c + \delta I) / (N_c + p + 2)}, with
#' \eqn{S_c} the responsibility-weighted scatter about the new mean,
#' \eqn{N_c} the component's responsibility mass and
#' \eqn{\delta = } `reg` \eqn{\times \mathrm{tr}(\mathrm{cov}(X)) / p}.
#' EM therefore never decreases the penalised log-likelihood
#' \eqn{\ell(\theta) - \sum_c [\frac{\delta}{2}\mathrm{tr}\,\Sigma_c^{-1} +
#' \frac{p+2}{2}\log|\Sigma_c|]}; every run records it per iteration
#' (`trace`). A run stops when an iteration raises it by less than
#' `tol` times its absolute value, or after `max_iter` iterations.
#'
#' **Merging and MDL.** The cost of merging components \eqn{l} and \eqn{m}
#' is Bouman's
#' \eqn{d(l,m) = \frac{N\pi_l}{2}\log\frac{|\Sigma_{lm}|}{|\Sigma_l|} +
#' \frac{N\pi_m}{2}\log\frac{|\Sigma_{lm}|}{|\Sigma_m|}}, where
#' \eqn{\Sigma_{lm}} is the covariance of the pooled component (weights
#' added, means and second moments pooled). The description length of a
#' mixture of \eqn{K} components is
#' \eqn{-\ell(\theta) + \frac{L}{2}\log(Np)} with
#' \eqn{L = K(1 + p + p(p+1)/2) - 1} parameters.
#'
#' **Cost.** \eqn{O(N K p^2)} per EM iteration and \eqn{O(K^2 p^3)} per
#' merge, for every \eqn{K} from `n_components` down: cheap on
#' low-dimensional data (a Swiss roll of 2000 points from 32 components takes
#' a few seconds), impractical on images of hundreds of pixels (which the
#' thesis, section 3.3, gives as the reason PLML dropped it).
#'
#' @param X Numeric matrix or data frame, one row per point.
#' @param n_components Initial number of components (the BMVC10
#'   experiments used 32).
#' @param min_components Smallest number of components tried.
#' @param reg Relative strength \eqn{\delta} of the covariance prior (see
#'   Details); must be positive.
#' @param max_iter,tol EM iterations per number of components and the
#'   relative stopping tolerance.
#' @param seed Seed of the initial means; `NULL` uses R's random number
#'   generator as it stands.
#' @return A list of class `manifold_gmm` (and `manifoldOOS_gmm`, its former class, for one
#'   release): `labels` (hard cluster of
#'   every point, 1..`n_clusters`, numbered without gaps), `n_clusters`,
#'   `weights`, `means` (`K x p`), `covariances` (`p x p x K`), `loglik`
#'   (log-likelihood of the chosen mixture), `mdl` (data frame: `K`,
#'   `loglik`, `mdl`, `iterations` for every number of components tried),
#'   `trace` (list, by number of components, of the penalised
#'   log-likelihood at the start of EM and after each iteration).
#' @references Bouman, C. A. (1997) *CLUSTER: an unsupervised algorithm for
#'   modeling Gaussian mixtures*. Purdue University.
#'
#'   Strange, H. and Zwiggelaar, R. (2010) Iterative hyperplane merging: a
#'   framework for manifold learning. *BMVC*.
#' @seealso [plml()] with `cluster = "gmm"`.
#' @export
#' @examples
#' set.seed(1)
#' X <- rbind(matrix(rnorm(200, 0), ncol = 2), matrix(rnorm(200, 8), ncol = 2),
#'            cbind(rnorm(100, 0), rnorm(100, 8)))
#' g <- gmm_cluster(X, n_components = 6, seed = 1)
#' g$n_clusters
#' table(g$labels, rep(1:3, each = 100))
#' g$mdl
gmm_cluster <- function(X, n_components = 32L, min_components = 1L, reg = 1e-3,
                        max_iter = 200L, tol = 1e-6, seed = NULL) {
  X <- as_data_matrix(X, "X", min_rows = 2L)
  n <- nrow(X)
  p <- ncol(X)
  n_components <- check_number(n_components, "n_components", lower = 1, upper = n, integer = TRUE)
  min_components <- check_number(min_components, "min_components", lower = 1,
                                 upper = n_components, integer = TRUE)
  reg <- check_number(reg, "reg", lower = 0, lower_open = TRUE)
  max_iter <- check_number(max_iter, "max_iter", lower = 1, integer = TRUE)
  tol <- check_number(tol, "tol", lower = 0)
  if (!is.null(seed)) seed <- check_number(seed, "seed", lower = 0, integer = TRUE)
  tot <- sum(apply(X, 2L, stats::var))
  if (!(tot > 0)) abort_input("X", "has no variance: all rows are equal.")
  delta <- reg * tot / p
  nu <- p + 2
  draw <- function() sample.int(n, n_components)
  start <- if (is.null(seed)) draw() else with_seed_mo(seed, draw())
  S0 <- stats::cov(X)
  # a singular sample covariance (a constant column, p >= n) starts from the prior's ridge;
  # the MAP steps keep every later covariance positive definite
  if (inherits(try(chol(S0), silent = TRUE), "try-error")) S0 <- S0 + diag(delta, p)
  par <- list(w = rep(1 / n_components, n_components), mu = X[start, , drop = FALSE],
              sigma = array(S0, c(p, p, n_components)))
  runs <- list()
  fits <- list()
  K <- n_components
  repeat {
    fit <- gmm_em(X, par, delta, nu, max_iter, tol)
    L <- K * (1 + p + p * (p + 1) / 2) - 1
    runs[[length(runs) + 1L]] <- data.frame(K = K, loglik = fit$loglik,
                                            mdl = -fit$loglik + 0.5 * L * log(n * p),
                                            iterations = length(fit$trace) - 1L)
    fits[[as.character(K)]] <- fit
    if (K <= min_components) break
    par <- gmm_merge_closest(fit$par, n)
    K <- K - 1L
  }
  mdl <- do.call(rbind, runs)
  best <- fits[[as.character(mdl$K[which.min(mdl$mdl)])]]
  logd <- gmm_log_densities(X, best$par)
  lab <- max.col(logd, ties.method = "first")
  used <- sort(unique(lab))
  structure(list(labels = match(lab, used), n_clusters = length(used),
                 weights = best$par$w[used], means = best$par$mu[used, , drop = FALSE],
                 covariances = best$par$sigma[, , used, drop = FALSE],
                 loglik = best$loglik, mdl = mdl,
                 trace = stats::setNames(lapply(fits, `[[`, "trace"), names(fits))),
            class = c("manifold_gmm", "manifoldOOS_gmm"))
}

#' @export
print.manifold_gmm <- function(x, ...) {
  check_dots(..., fun = "print()")
  cat(sprintf("Gaussian mixture clustering (MDL): %d clusters of sizes %s\n", x$n_clusters,
              paste(tabulate(x$labels, x$n_clusters), collapse = " ")))
  cat(sprintf("log-likelihood %.6g; components tried: %d to %d\n", x$loglik,
              max(x$mdl$K), min(x$mdl$K)))
  invisible(x)
}

# log N(x_i | mu_c, Sigma_c) for every point and component (n x K).
gmm_log_densities <- function(X, par) {
  n <- nrow(X)
  p <- ncol(X)
  K <- length(par$w)
  out <- matrix(0, n, K)
  for (c in seq_len(K)) {
    R <- chol(par$sigma[, , c])
    Z <- backsolve(R, t(X) - par$mu[c, ], transpose = TRUE)
    out[, c] <- -0.5 * (p * log(2 * pi) + colSums(Z^2)) - sum(log(diag(R)))
  }
  out
}

# EM from par; returns the final parameters, the log-likelihood of the final
# parameters and the penalised log-likelihood after every iteration.
gmm_em <- function(X, par, delta, nu, max_iter, tol) {
  n <- nrow(X)
  p <- ncol(X)
  K <- length(par$w)
  objective <- function(par, ll) {
    pen <- 0
    for (c in seq_len(K)) {
      R <- chol(par$sigma[, , c])
      pen <- pen - 0.5 * delta * sum(chol2inv(R) * diag(p)) - nu * sum(log(diag(R)))
    }
    ll + pen
  }
  loglik_of <- function(par) {
    a <- sweep(gmm_log_densities(X, par), 2L, log(par$w), `+`)
    m <- a[cbind(seq_len(nrow(a)), max.col(a, ties.method = "first"))]
    list(a = a, m = m, ll = sum(m + log(rowSums(exp(a - m)))))
  }
  cur <- loglik_of(par)
  prev <- objective(par, cur$ll)
  trace <- prev
  for (it in seq_len(max_iter)) {
    r <- exp(cur$a - cur$m)
    r <- r / rowSums(r)
    Nc <- colSums(r)
    par$w <- Nc / n
    for (c in seq_len(K)) {
      if (Nc[c] > 0) par$mu[c, ] <- colSums(r[, c] * X) / Nc[c]
      Xc <- sweep(X, 2L, par$mu[c, ])
      S <- crossprod(Xc * sqrt(r[, c]))
      par$sigma[, , c] <- (S + delta * diag(p)) / (Nc[c] + nu)
    }
    cur <- loglik_of(par)
    obj <- objective(par, cur$ll)
    trace <- c(trace, obj)
    if (obj - prev <= tol * abs(obj)) break
    prev <- obj
  }
  list(par = par, loglik = cur$ll, trace = trace)
}

# Merge the pair of components with the smallest Bouman cost.
gmm_merge_closest <- function(par, n) {
  K <- length(par$w)
  ldet <- function(S) 2 * sum(log(diag(chol(S))))
  pooled <- function(l, m) {
    w <- par$w[l] + par$w[m]
    mu <- (par$w[l] * par$mu[l, ] + par$w[m] * par$mu[m, ]) / w
    dl <- par$mu[l, ] - mu
    dm <- par$mu[m, ] - mu
    S <- (par$w[l] * (par$sigma[, , l] + tcrossprod(dl)) +
            par$w[m] * (par$sigma[, , m] + tcrossprod(dm))) / w
    list(w = w, mu = mu, sigma = S)
  }
  ld <- vapply(seq_len(K), function(c) ldet(par$sigma[, , c]), 0)
  best <- c(NA, NA)
  best_cost <- Inf
  for (l in seq_len(K - 1L)) for (m in (l + 1L):K) {
    s <- ldet(pooled(l, m)$sigma)
    cost <- n * par$w[l] / 2 * (s - ld[l]) + n * par$w[m] / 2 * (s - ld[m])
    if (cost < best_cost) {
      best_cost <- cost
      best <- c(l, m)
    }
  }
  pm <- pooled(best[1], best[2])
  keep <- setdiff(seq_len(K), best[2])
  par$w[best[1]] <- pm$w
  par$mu[best[1], ] <- pm$mu
  par$sigma[, , best[1]] <- pm$sigma
  list(w = par$w[keep], mu = par$mu[keep, , drop = FALSE], sigma = par$sigma[, , keep, drop = FALSE])
}
