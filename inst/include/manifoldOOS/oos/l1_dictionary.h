// The dictionary of exact l1 coding (oos/sparse_coding.h), B = [X^T E] with
// the training samples X (rows) and an error basis E, the result of one
// query, and the certificate that checks a result (primal feasibility, dual
// feasibility and a zero duality gap). Shared by the homotopy and ADMM
// solvers.
#ifndef MANIFOLDOOS_OOS_L1_DICTIONARY_H
#define MANIFOLDOOS_OOS_L1_DICTIONARY_H

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

namespace manifoldOOS {
namespace l1 {

using arma::uword;

// ---- dictionary B = [X^T E] -------------------------------------------------
class dictionary {
 public:
  // X: N x D training samples (rows). E: D x De error basis; an empty matrix
  // means the identity I_D.
  dictionary(const arma::mat& X, const arma::mat& E = arma::mat())
      : Xt_(X.t()), identity_(E.is_empty()), E_(E) {
    D_ = X.n_cols;
    N_ = X.n_rows;
    if (D_ < 1 || N_ < 1) throw input_error("the dictionary needs at least one sample and one feature");
    if (!X.is_finite()) throw input_error("the dictionary contains non-finite values");
    if (identity_) {
      De_ = D_;
    } else {
      if (E.n_rows != D_) throw input_error("the error basis must have one row per feature");
      if (!E.is_finite()) throw input_error("the error basis contains non-finite values");
      De_ = E.n_cols;
      EtE_ = E.t() * E;
    }
    sqnorm_.set_size(N_ + De_);
    for (uword a = 0; a < N_; ++a) sqnorm_(a) = simd::vdot(Xt_.colptr(a), Xt_.colptr(a), D_);
    for (uword l = 0; l < De_; ++l) sqnorm_(N_ + l) = identity_ ? 1.0 : EtE_(l, l);
  }

  uword D() const { return D_; }
  uword N() const { return N_; }
  uword De() const { return De_; }
  uword M() const { return N_ + De_; }
  bool identity() const { return identity_; }
  const arma::mat& Xt() const { return Xt_; }
  double sqnorm(uword j) const { return sqnorm_(j); }

  // out (D) = sum_t coef[t] * b_{cols[t]}
  // (training columns four at a time)
  void combine(const std::vector<uword>& cols, const double* coef, double* out) const {
    std::fill(out, out + D_, 0.0);
    const double* pend[4];
    double cend[4];
    int np = 0;
    for (uword t = 0; t < cols.size(); ++t) {
      const uword j = cols[t];
      if (j < N_) {
        pend[np] = Xt_.colptr(j);
        cend[np] = coef[t];
        if (++np == 4) {
          simd::vaxpy4(cend, pend[0], pend[1], pend[2], pend[3], out, D_);
          np = 0;
        }
      } else if (identity_) {
        out[j - N_] += coef[t];
      } else {
        simd::vaxpy(coef[t], E_.colptr(j - N_), out, D_);
      }
    }
    for (int q = 0; q < np; ++q) simd::vaxpy(cend[q], pend[q], out, D_);
  }

  // g (M) = B^T v (direct: O(M D)).
  void correlate(const double* v, double* g) const {
    for (uword a = 0; a < N_; ++a) g[a] = simd::vdot(Xt_.colptr(a), v, D_);
    error_correlate(v, g + N_);
  }

  // The error part of B^T v.
  void error_correlate(const double* v, double* gE) const {
    if (identity_) {
      std::copy(v, v + D_, gE);
    } else {
      for (uword l = 0; l < De_; ++l) gE[l] = simd::vdot(E_.colptr(l), v, D_);
    }
  }

  // Training part of B^T V for the columns of V (D x b, column-major): out
  // (N x b, column q contiguous). Register blocks of 3 training samples x 4
  // (or 2) queries share every load; all b queries share one pass over the
  // dictionary. Every (sample, query) pair goes through the same arithmetic
  // (see simd::kern::dot_block_base), so a query's correlations do not depend on
  // the other queries of the batch.
  void correlate_block(const double* V, uword b, double* out, uword ldo = 0) const {
    if (ldo == 0) ldo = N_;
    const double* Xt = Xt_.memptr();
    const uword N3 = N_ / 3 * 3;
    for (uword j = 0; j < N_; j += (j < N3 ? 3 : 1)) {
      const bool three = j < N3;
      const double* xj = Xt + j * D_;
      uword q = 0;
      for (; q + 4 <= b; q += 4) {
        if (three) simd::dot_block<3, 4>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
        else simd::dot_block<1, 4>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
      }
      for (; q + 2 <= b; q += 2) {
        if (three) simd::dot_block<3, 2>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
        else simd::dot_block<1, 2>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
      }
      for (; q < b; ++q) {
        if (three) simd::dot_block<3, 1>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
        else simd::dot_block<1, 1>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
      }
    }
  }

  // Explicit D x M matrix (used by ADMM).
  arma::mat explicit_matrix() const {
    arma::mat B(D_, N_ + De_);
    B.cols(0, N_ - 1) = Xt_;
    if (identity_) {
      B.cols(N_, N_ + De_ - 1) = arma::eye(D_, D_);
    } else {
      B.cols(N_, N_ + De_ - 1) = E_;
    }
    return B;
  }

 private:
  arma::mat Xt_;
  bool identity_;
  arma::mat E_;
  uword D_ = 0, N_ = 0, De_ = 0;
  arma::mat EtE_;
  arma::vec sqnorm_;
};

// ---- result of one query ----------------------------------------------------
struct code_result {
  std::vector<uword> support;  // indices into the M dictionary columns
  std::vector<double> values;  // a'_j on the support
  arma::vec dual;              // y (D)
  double objective = 0.0;      // ||a'||_1
  double dual_max = 0.0;       // ||B^T y||_inf
  double gap = 0.0;            // | ||a'||_1 - x^T y |
  double residual = 0.0;       // ||B a' - x||_inf
  int steps = 0;               // homotopy steps or ADMM iterations
  int drops = 0;
  int passes = 0;              // homotopy: full correlation passes over the dictionary
  double tracked = 0.0;        // homotopy: training columns correlated, summed over steps
  int screen_violations = 0;   // homotopy with check_screening: must stay 0
  bool certified = false;
  int solver = 0;              // 0 = homotopy, 1 = ADMM
  bool fallback = false;       // homotopy failed, ADMM used instead
};

// Certificate of a candidate: a' on `support` (values), dual y. Fills the
// diagnostics and `certified`.
inline void certify(const dictionary& B, const double* x, code_result& r, arma::vec& work_g) {
  const uword D = B.D();
  arma::vec Ba(D, arma::fill::zeros);
  B.combine(r.support, r.values.data(), Ba.memptr());
  double res = 0.0, xnorm = 0.0;
  for (uword i = 0; i < D; ++i) {
    res = std::max(res, std::abs(Ba[i] - x[i]));
    xnorm = std::max(xnorm, std::abs(x[i]));
  }
  r.residual = res;
  double obj = 0.0;
  for (double v : r.values) obj += std::abs(v);
  r.objective = obj;
  work_g.set_size(B.M());
  B.correlate(r.dual.memptr(), work_g.memptr());
  r.dual_max = arma::abs(work_g).max();
  r.gap = std::abs(obj - simd::vdot(x, r.dual.memptr(), D));
  r.certified = r.dual_max <= 1.0 + 1e-8 && r.gap <= 1e-8 * std::max(obj, 1e-300) + 1e-14 &&
                res <= 1e-9 * std::max(1.0, xnorm);
}

}  // namespace l1
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_OOS_L1_DICTIONARY_H
