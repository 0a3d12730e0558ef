// An updatable Cholesky factor: upper-triangular R with R^T R = S, kept
// while columns enter (append), leave (Givens rotations), and while S changes
// by a rank-one term (S + w w^T: update; S - w w^T: downdate; Golub & Van
// Loan 6.5.4, as in LINPACK dchud / dchdd). Used by the l1 homotopy
// (oos/l1_homotopy.h) for its active set.
#ifndef MANIFOLDOOS_BLOCKS_UPDATABLE_CHOLESKY_H
#define MANIFOLDOOS_BLOCKS_UPDATABLE_CHOLESKY_H

#include <armadillo>
#include <algorithm>
#include <cmath>

#include <manifoldOOS/blocks/vector_kernels.h>

namespace manifoldOOS {

// Upper-triangular R with R^T R = S, kept while columns enter (append),
// leave (Givens rotations), and while S changes by a rank-one term
// (S + w w^T: update; S - w w^T: downdate; Golub & Van Loan 6.5.4, as in
// LINPACK dchud / dchdd).
class updatable_cholesky {
 public:
  explicit updatable_cholesky(arma::uword cap)
      : R_(cap, cap, arma::fill::zeros), p_(cap), cs_(cap), sn_(cap), s_(0) {}
  arma::uword size() const { return s_; }
  void clear() { s_ = 0; }

  // Append a column with inner products k (with the current columns) and
  // squared norm kk; `scale` is the squared norm the rank test is relative
  // to. Returns false when the column is (numerically) in the span of the
  // current ones.
  bool add(const double* k, double kk, double scale) {
    if (s_ >= R_.n_cols) return false;
    double* w = R_.colptr(s_);
    double ww = 0.0;
    for (arma::uword i = 0; i < s_; ++i) {
      const double* Ri = R_.colptr(i);
      w[i] = (k[i] - simd::vdot(Ri, w, i)) / Ri[i];
      ww += w[i] * w[i];
    }
    const double r2 = kk - ww;
    if (!(r2 > 1e-12 * scale) || !std::isfinite(r2)) return false;
    w[s_] = std::sqrt(r2);
    ++s_;
    return true;
  }

  // Remove the column at position p (Givens rotations restore the triangle).
  void remove(arma::uword p) {
    for (arma::uword j = p; j + 1 < s_; ++j) {
      std::copy(R_.colptr(j + 1), R_.colptr(j + 1) + s_, R_.colptr(j));
    }
    --s_;
    for (arma::uword i = p; i < s_; ++i) {
      const double a = R_(i, i), b = R_(i + 1, i);
      const double h = std::hypot(a, b);
      if (h == 0.0) continue;
      const double c = a / h, s = b / h;
      for (arma::uword j = i; j < s_; ++j) {
        const double u = R_(i, j), v = R_(i + 1, j);
        R_(i, j) = c * u + s * v;
        R_(i + 1, j) = -s * u + c * v;
      }
      R_(i + 1, i) = 0.0;
    }
  }

  // S <- S + w w^T (always possible).
  void update(const double* w) {
    for (arma::uword j = 0; j < s_; ++j) {
      double* Rj = R_.colptr(j);
      double xj = w[j];
      for (arma::uword i = 0; i < j; ++i) {
        const double t = cs_[i] * Rj[i] + sn_[i] * xj;
        xj = cs_[i] * xj - sn_[i] * Rj[i];
        Rj[i] = t;
      }
      const double h = std::hypot(Rj[j], xj);
      cs_[j] = Rj[j] / h;
      sn_[j] = xj / h;
      Rj[j] = h;
    }
  }

  // S <- S - w w^T when the result stays positive definite with the pivot
  // test of add() (1 - w^T S^{-1} w > 1e-12 * scale); otherwise returns false
  // and leaves R unchanged.
  bool downdate(const double* w, double scale) {
    double nrm = 0.0;
    for (arma::uword i = 0; i < s_; ++i) {  // R^T p = w
      const double* Ri = R_.colptr(i);
      p_[i] = (w[i] - simd::vdot(Ri, p_.memptr(), i)) / Ri[i];
      nrm += p_[i] * p_[i];
    }
    const double r2 = 1.0 - nrm;
    if (!(r2 > 1e-12 * scale) || !std::isfinite(r2)) return false;
    double alpha = std::sqrt(r2);
    for (arma::uword i = s_; i-- > 0;) {
      const double sc = alpha + std::abs(p_[i]);
      const double a = alpha / sc, b = p_[i] / sc;
      const double h = std::sqrt(a * a + b * b);
      cs_[i] = a / h;
      sn_[i] = b / h;
      alpha = sc * h;
    }
    for (arma::uword j = 0; j < s_; ++j) {
      double* Rj = R_.colptr(j);
      double xx = 0.0;
      for (arma::uword i = j + 1; i-- > 0;) {
        const double t = cs_[i] * xx + sn_[i] * Rj[i];
        Rj[i] = cs_[i] * Rj[i] - sn_[i] * xx;
        xx = t;
      }
    }
    return true;
  }

  // Solve R^T R z = rhs in place (size s).
  void solve(double* z) const {
    for (arma::uword i = 0; i < s_; ++i) {  // R^T t = rhs
      const double* Ri = R_.colptr(i);
      z[i] = (z[i] - simd::vdot(Ri, z, i)) / Ri[i];
    }
    for (arma::uword jj = s_; jj-- > 0;) {  // R z = t, column-oriented
      const double* Rj = R_.colptr(jj);
      const double zj = z[jj] / Rj[jj];
      z[jj] = zj;
      simd::vaxpy(-zj, Rj, z, jj);
    }
  }

 private:
  arma::mat R_;
  arma::vec p_, cs_, sn_;
  arma::uword s_;
};

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_BLOCKS_UPDATABLE_CHOLESKY_H
