// Global regression out-of-sample maps for any embedding (the baselines of
// Raducanu & Dornaika's sparse-coding OOS, section 4): linearization (least squares, optional
// intercept and ridge), RBF network (one Gaussian per training point,
// interpolation) and kernel ridge regression.
#ifndef MANIFOLDOOS_OOS_REGRESSION_H
#define MANIFOLDOOS_OOS_REGRESSION_H

#include <armadillo>
#include <cmath>
#include <limits>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/kernels.h>

namespace manifoldOOS {

// ---- linearization ---------------------------------------------------------
// y(x) = ybar + (x - mu) A with A = argmin ||Yc - Xc A||_F^2 + ridge ||A||_F^2
// (mu = 0, ybar = 0 without intercept). One thin SVD Xc = U S W^T serves both
// cases: A = W diag(s / (s^2 + ridge)) U^T Yc; with ridge = 0 singular values
// below max(n, p) eps s_1 are dropped (the pseudo-inverse rule of MATLAB's
// pinv), which gives the minimum-norm least-squares solution.
struct linear_map {
  arma::rowvec mu, ybar;
  arma::mat A;  // p x q
  arma::uword rank = 0;
};

inline linear_map linear_fit(const arma::mat& X, const arma::mat& Y, bool intercept, double ridge) {
  if (X.n_rows != Y.n_rows) throw input_error("X and Y must have the same number of rows");
  if (!(ridge >= 0)) throw input_error("ridge must be non-negative");
  linear_map m;
  m.mu = intercept ? arma::rowvec(arma::mean(X, 0)) : arma::rowvec(X.n_cols, arma::fill::zeros);
  m.ybar = intercept ? arma::rowvec(arma::mean(Y, 0)) : arma::rowvec(Y.n_cols, arma::fill::zeros);
  const arma::mat Xc = X.each_row() - m.mu;
  const arma::mat Yc = Y.each_row() - m.ybar;
  arma::mat U, W;
  arma::vec s;
  if (!arma::svd_econ(U, s, W, Xc)) throw error("SVD failed in the linear out-of-sample map");
  m.A.zeros(X.n_cols, Y.n_cols);
  if (s.n_elem == 0 || s[0] == 0.0) return m;
  const double tol = double(std::max(X.n_rows, X.n_cols)) * std::numeric_limits<double>::epsilon() * s[0];
  arma::vec f(s.n_elem, arma::fill::zeros);
  for (arma::uword i = 0; i < s.n_elem; ++i) {
    if (ridge > 0) {
      f[i] = s[i] / (s[i] * s[i] + ridge);
      if (s[i] > tol) ++m.rank;
    } else if (s[i] > tol) {
      f[i] = 1.0 / s[i];
      ++m.rank;
    }
  }
  m.A = W * arma::diagmat(f) * (U.t() * Yc);
  return m;
}

inline arma::mat linear_predict(const linear_map& m, const arma::mat& Q) {
  arma::mat out = (Q.each_row() - m.mu) * m.A;
  out.each_row() += m.ybar;
  return out;
}

// ---- kernel interpolation / ridge regression --------------------------------
// Solve (K + lambda I) C = Yc with kernels.h's kernel_chol_solve (Cholesky;
// on failure a jitter from jitter0, times 10 per attempt, at most 40
// attempts). The total diagonal shift used (lambda + jitter) is returned in
// `used`.
inline arma::mat kernel_solve(const arma::mat& K, const arma::mat& Yc, double lambda,
                              double jitter0, double& used) {
  kernel_solution s = kernel_chol_solve(K, Yc, lambda, jitter0, 0.0, 40);
  used = lambda + s.jitter;
  return std::move(s.C);
}

// RBF network (Elgammal & Lee; Raducanu & Dornaika, section 4): phi_i(x) = exp(-||x - x_i||^2 / s),
// C = (Phi + ridge I)^{-1} Y (ridge = 0 is plain interpolation; jitter from
// 1e-12 tr(Phi)/n when Phi is numerically singular), y(x) = phi(x)^T C.
struct kernel_map {
  arma::mat C;          // n x q coefficients
  arma::rowvec ybar;    // added to predictions (zeros for the RBF network)
  double shift = 0.0;   // diagonal shift used
};

inline kernel_map rbf_network_fit(const arma::mat& X, const arma::mat& Y, double s, double ridge) {
  if (!(s > 0) || !std::isfinite(s)) throw input_error("the RBF aperture must be positive and finite");
  kernel_spec ks;
  ks.type = kernel_type::rbf;
  ks.sigma = std::sqrt(s / 2.0);
  const arma::mat Phi = kernel_train(X, ks);
  kernel_map m;
  m.ybar.zeros(Y.n_cols);
  m.C = kernel_solve(Phi, Y, ridge, 1e-12 * arma::trace(Phi) / double(X.n_rows), m.shift);
  return m;
}

// Kernel ridge regression (C.7). Two forms of the bias:
//  * feature_intercept = true (Yang et al. 2010's LGRM regression, thesis
//    Eq. 5.3): ridge regression in feature space with an unpenalised
//    intercept, f(x) = W^T phi(x) + b. With H the centring matrix,
//      y(x) = ybar + (k(x) - K 1/n)^T C,   C = H (H K H + lambda I)^{-1} H Y,
//    stored as coefficients C and offset b = ybar - (1/n) 1^T K C, so that
//    y(x) = k(x)^T C + b.
//  * feature_intercept = false: C = (K + lambda I)^{-1} (Y - ybar),
//    y(x) = ybar + k(x)^T C (the offset is the mean embedding only).
inline kernel_map krr_fit(const arma::mat& X, const arma::mat& Y, const kernel_spec& ks, double lambda,
                          bool feature_intercept = true) {
  if (!(lambda >= 0)) throw input_error("lambda must be non-negative");
  arma::mat K = kernel_train(X, ks);
  kernel_map m;
  const arma::rowvec ybar = arma::mean(Y, 0);
  const arma::mat Yc = Y.each_row() - ybar;
  const double jit = 1e-12 * std::max(1.0, arma::trace(K) / double(X.n_rows));
  if (!feature_intercept) {
    m.ybar = ybar;
    m.C = kernel_solve(K, Yc, lambda, jit, m.shift);
    return m;
  }
  const arma::rowvec kmean = arma::mean(K, 0);  // (1/n) 1^T K
  arma::mat Kc = K;
  kernel_center_train(Kc, kernel_center_stats(K));
  arma::mat Z = kernel_solve(Kc, Yc, lambda, jit, m.shift);
  Z.each_row() -= arma::mean(Z, 0);  // C = H Z
  m.C = std::move(Z);
  m.ybar = ybar - kmean * m.C;
  return m;
}

// Generalised cross-validation score of KRR for each lambda in `grid`:
// GCV = n ||(I - S) Y||^2 / tr(I - S)^2 with the hat matrix S of the fit,
// from one eigendecomposition of K (or of H K H with the feature-space
// intercept, whose hat matrix is 1 1^T / n + S_c: the constant direction is
// fitted exactly and removed from the trace).
inline arma::vec krr_gcv(const arma::mat& X, const arma::mat& Y, const kernel_spec& ks,
                         const arma::vec& grid, bool feature_intercept = true) {
  arma::mat K = kernel_train(X, ks);
  if (feature_intercept) kernel_center_train(K, kernel_center_stats(K));
  arma::vec ev;
  arma::mat Q;
  if (!arma::eig_sym(ev, Q, K)) throw convergence_error("eigendecomposition failed in KRR GCV");
  const arma::mat Yc = Y.each_row() - arma::mean(Y, 0);
  const arma::mat QtY = Q.t() * Yc;
  const arma::vec rs = arma::sum(arma::square(QtY), 1);
  const double n = double(X.n_rows);
  arma::vec out(grid.n_elem);
  for (arma::uword g = 0; g < grid.n_elem; ++g) {
    const double lam = grid[g];
    double num = 0.0, tr = feature_intercept ? -1.0 : 0.0;
    for (arma::uword i = 0; i < ev.n_elem; ++i) {
      const double e = std::max(ev[i], 0.0);
      const double f = lam / (e + lam);
      num += f * f * rs[i];
      tr += f;
    }
    out[g] = tr > 0 ? n * num / (tr * tr) : std::numeric_limits<double>::infinity();
  }
  return out;
}

// Prediction of a kernel map: ybar + K(Q, X) C, computed in blocks of rows.
inline arma::mat kernel_map_predict(const kernel_map& m, const arma::mat& X, const arma::mat& Q,
                                    const kernel_spec& ks, int n_threads = 0) {
  const arma::uword nq = Q.n_rows, block = 512;
  const arma::uword nb = (nq + block - 1) / block;
  arma::mat out(nq, m.C.n_cols);
  interrupt_flag flag(1);
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
#endif
  for (long b = 0; b < long(nb); ++b) {
    if (flag.poll(b)) continue;
    const arma::uword i0 = arma::uword(b) * block, i1 = std::min(nq, i0 + block) - 1;
    const arma::mat Kq = kernel_cross(Q.rows(i0, i1), X, ks);
    arma::mat o = Kq * m.C;
    o.each_row() += m.ybar;
    out.rows(i0, i1) = o;
  }
  flag.rethrow_if_stopped();
  return out;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_OOS_REGRESSION_H
