// The ADMM solver of exact l1 coding (oos/sparse_coding.h): basis pursuit by
// ADMM (Boyd et al. 2011) on batches of queries, with a support "polish" and
// a dual certificate tried every `check_every` iterations.
#ifndef MANIFOLDOOS_OOS_L1_ADMM_H
#define MANIFOLDOOS_OOS_L1_ADMM_H

#include <armadillo>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/vector_kernels.h>
#include <manifoldOOS/oos/l1_dictionary.h>

namespace manifoldOOS {
namespace l1 {

// ---- ADMM --------------------------------------------------------------------
struct admm_options {
  int maxit = 20000;
  int check_every = 50;
  double alpha = 1.6;
};

inline bool admm_polish_support(const dictionary& B, const arma::mat& Bfull, const double* x,
                                const double* z, double th, code_result& out, arma::vec& gwork);

// Try to certify the soft-thresholded iterate z (M) for query x.
inline bool admm_polish(const dictionary& B, const arma::mat& Bfull, const double* x,
                        const double* z, code_result& out, arma::vec& gwork) {
  const uword M = B.M();
  double zmax = 0.0;
  for (uword j = 0; j < M; ++j) zmax = std::max(zmax, std::abs(z[j]));
  // supports from the absolute threshold 1e-9 and from relative thresholds
  // (slowly vanishing entries of z otherwise block the polish)
  double last = -1.0;
  for (double th : {1e-9, 1e-7 * zmax, 1e-5 * zmax, 1e-3 * zmax, 1e-2 * zmax}) {
    th = std::max(th, 1e-9);
    if (th == last) continue;
    last = th;
    if (admm_polish_support(B, Bfull, x, z, th, out, gwork)) return true;
  }
  // the D largest entries (a basic solution has at most D non-zeros)
  const uword D = B.D();
  std::vector<double> mags;
  for (uword j = 0; j < M; ++j)
    if (std::abs(z[j]) > 1e-9) mags.push_back(std::abs(z[j]));
  if (mags.size() > D) {
    std::nth_element(mags.begin(), mags.begin() + (D - 1), mags.end(), std::greater<double>());
    const double th = mags[D - 1];
    // strictly above the D-th largest minus a hair keeps exactly D entries (no ties)
    if (admm_polish_support(B, Bfull, x, z, std::nextafter(th, 0.0), out, gwork)) return true;
  }
  return false;
}

inline bool admm_polish_support(const dictionary& B, const arma::mat& Bfull, const double* x,
                                const double* z, double th, code_result& out, arma::vec& gwork) {
  const uword D = B.D(), M = B.M();
  std::vector<uword> S;
  for (uword j = 0; j < M; ++j)
    if (std::abs(z[j]) > th) S.push_back(j);
  if (S.empty() || S.size() > D) return false;
  const uword s = S.size();
  arma::mat BS(D, s);
  for (uword t = 0; t < s; ++t) BS.col(t) = Bfull.col(S[t]);
  arma::mat Gs = BS.t() * BS;
  arma::mat R;
  if (!arma::chol(R, Gs)) return false;
  const arma::vec xv(const_cast<double*>(x), D, false, true);
  arma::vec aS = arma::solve(arma::trimatu(R), arma::solve(arma::trimatl(R.t()), BS.t() * xv));
  arma::vec res = xv - BS * aS;
  aS += arma::solve(arma::trimatu(R), arma::solve(arma::trimatl(R.t()), BS.t() * res));
  arma::vec sg(s);
  for (uword t = 0; t < s; ++t) {
    if ((aS[t] > 0) != (z[S[t]] > 0) || aS[t] == 0.0) return false;
    sg[t] = aS[t] > 0 ? 1.0 : -1.0;
  }
  out.dual = BS * arma::solve(arma::trimatu(R), arma::solve(arma::trimatl(R.t()), sg));
  out.support = S;
  out.values.assign(aS.begin(), aS.end());
  certify(B, x, out, gwork);
  return out.certified;
}

// Batched basis-pursuit ADMM for the queries in the columns of Q (D x m).
// `sink(i, result)` receives each query's result (in any order).
inline void admm_batch(const dictionary& B, const arma::mat& Bfull, const arma::mat& Gchol,
                       const arma::mat& Q, const std::vector<uword>& ids,
                       const admm_options& opt,
                       const std::function<void(uword, code_result&)>& sink,
                       interrupt_flag* flag = nullptr) {
  const uword D = B.D(), M = B.M();
  std::vector<uword> live(ids);
  const uword m = live.size();
  if (m == 0) return;
  arma::mat X(D, m);
  for (uword t = 0; t < m; ++t) X.col(t) = Q.col(live[t]);
  auto Ginv = [&](const arma::mat& R) -> arma::mat {
    return arma::solve(arma::trimatu(Gchol), arma::solve(arma::trimatl(Gchol.t()), R));
  };
  arma::mat z = Bfull.t() * Ginv(X);  // least-norm feasible start
  arma::mat u(M, m, arma::fill::zeros);
  arma::rowvec rho(m);
  for (uword t = 0; t < m; ++t) {
    const double mz = arma::mean(arma::abs(z.col(t)));
    rho[t] = mz > 0 ? 1.0 / mz : 1.0;
  }
  arma::vec gwork;
  std::vector<char> finished(m, 0);
  // queries equal to zero: a' = 0
  for (uword t = 0; t < m; ++t) {
    if (arma::abs(X.col(t)).max() == 0.0) {
      code_result r;
      r.dual.zeros(D);
      r.certified = true;
      r.solver = 1;
      sink(live[t], r);
      finished[t] = 1;
    }
  }
  int it = 0;
  while (true) {
    // keep only live columns
    std::vector<uword> keep;
    for (uword t = 0; t < live.size(); ++t)
      if (!finished[t]) keep.push_back(t);
    if (keep.empty()) break;
    if (keep.size() < live.size()) {
      arma::uvec kk(keep.size());
      std::vector<uword> nl;
      for (uword t = 0; t < keep.size(); ++t) { kk[t] = keep[t]; nl.push_back(live[keep[t]]); }
      X = X.cols(kk);
      z = z.cols(kk);
      u = u.cols(kk);
      rho = rho.cols(kk);
      live = nl;
      finished.assign(live.size(), 0);
    }
    for (int inner = 0; inner < opt.check_every; ++inner) {
      arma::mat t = z - u;
      arma::mat w = t - Bfull.t() * Ginv(Bfull * t - X);
      arma::mat wh = opt.alpha * w + (1.0 - opt.alpha) * z;
      arma::mat s = wh + u;
      for (uword c = 0; c < s.n_cols; ++c) {
        const double th = 1.0 / rho[c];
        double* sc = s.colptr(c);
        double* zc = z.colptr(c);
        for (uword j = 0; j < M; ++j) {
          const double val = sc[j];
          zc[j] = val > th ? val - th : (val < -th ? val + th : 0.0);
        }
      }
      u += wh - z;
    }
    it += opt.check_every;
    if (flag && flag->poll(0)) return;
    for (uword t = 0; t < live.size(); ++t) {
      code_result r;
      r.solver = 1;
      if (admm_polish(B, Bfull, X.colptr(t), z.colptr(t), r, gwork) || it >= opt.maxit) {
        if (!r.certified) {
          // return the iterate itself
          r = code_result();
          r.solver = 1;
          r.dual.zeros(D);
          for (uword j = 0; j < M; ++j)
            if (z(j, t) != 0.0) { r.support.push_back(j); r.values.push_back(z(j, t)); }
          // dual estimate from the scaled multiplier: B^T y ~ rho u
          arma::vec y = rho[t] * Ginv(Bfull * u.col(t));
          r.dual = y;
          certify(B, X.colptr(t), r, gwork);
        }
        r.steps = it;
        sink(live[t], r);
        finished[t] = 1;
      }
    }
  }
}

}  // namespace l1
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_OOS_L1_ADMM_H
