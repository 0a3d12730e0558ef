// Exact l1 coding over a dictionary with an error part (Raducanu & Dornaika,
// eq. 13; Wright et al.): for a query x (D-vector) solve basis pursuit
//
//     min ||a'||_1  subject to  B a' = x,    B = [X^T  E],
//
// where X (N x D) holds the training samples as rows and E (D x De) is the
// error basis (the identity by default). B has full row rank whenever E
// does, so the problem is feasible.
//
// Two solvers:
//  * homotopy (default): the Lasso path min 1/2 ||x - Ba||^2 + lam ||a||_1
//    followed from lam = ||B^T x||_inf down to 0 (Osborne, Presnell & Turlach
//    2000; Efron et al. 2004), with a Cholesky factor of B_A^T B_A kept by
//    rank-one updates (add) and Givens downdates (drop). The end point is a
//    basis-pursuit solution; the last direction gives the dual certificate.
//  * ADMM (Boyd et al. 2011, basis pursuit) on batches of queries, with a
//    support "polish" and dual certificate tried every 50 iterations.
// Every returned code carries its dual vector y and the certificate
// ||B^T y||_inf <= 1 + 1e-8, ||a'||_1 = x^T y (optimality of an LP).
#ifndef MANIFOLDOOS_SPARSE_CODING_H
#define MANIFOLDOOS_SPARSE_CODING_H

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(MO_NO_AVX2_KERNELS)
#include <immintrin.h>
#endif

#include "common.h"

namespace manifoldOOS {
namespace l1 {

using arma::uword;

// ---- small vector kernels ---------------------------------------------------
// On x86-64 with GCC or clang the hot loops are compiled twice (baseline and
// AVX2/FMA); the AVX2 version is used when the CPU supports it (checked once).
#define MO_L1_VDOT_BODY                                        \
  double s = 0.0;                                              \
  _Pragma("omp simd reduction(+ : s)")                         \
  for (uword i = 0; i < n; ++i) s += a[i] * b[i];              \
  return s;
#define MO_L1_VAXPY_BODY                                       \
  _Pragma("omp simd")                                          \
  for (uword i = 0; i < n; ++i) y[i] += alpha * x[i];
#define MO_L1_RATIO_BODY                                                        \
  _Pragma("omp simd")                                                           \
  for (uword j = 0; j < n; ++j) {                                               \
    const double d1 = 1.0 - g[j], d2 = 1.0 + g[j];                              \
    const double n1 = std::max(lam - c[j], 0.0), n2 = std::max(lam + c[j], 0.0); \
    const double r1 = d1 > 0 ? n1 / d1 : inf;                                   \
    const double r2 = d2 > 0 ? n2 / d2 : inf;                                   \
    r[j] = std::min(r1, r2) + mask[j];                                          \
  }

namespace kern {
inline double vdot_base(const double* a, const double* b, uword n) { MO_L1_VDOT_BODY }
inline void vaxpy_base(double alpha, const double* x, double* y, uword n) { MO_L1_VAXPY_BODY }
inline void ratio_base(const double* c, const double* g, const double* mask, double lam, uword n,
                       double* r) {
  const double inf = std::numeric_limits<double>::infinity();
  MO_L1_RATIO_BODY
}

// Block of dot products out[q * ldo + j] = <x_j, v_q> for R training samples
// (x_j = X + j * D) and C queries (v_q = V + q * D). Every pair is computed
// with the same sequence of operations (four lanes over the first 4 floor(D/4)
// entries, lanes summed as (l0 + l1) + (l2 + l3), then the tail), whatever
// R and C are, so a query's correlations do not depend on the batch it is in.
template <int R, int C>
inline void dot_block_base(const double* X, const double* V, uword D, double* out, uword ldo) {
  double acc[R][C][4] = {};
  const uword D4 = D / 4 * 4;
  for (uword i = 0; i < D4; i += 4) {
    for (int r = 0; r < R; ++r) {
      const double* x = X + r * D + i;
      for (int c = 0; c < C; ++c) {
        const double* v = V + c * D + i;
        for (int l = 0; l < 4; ++l) acc[r][c][l] += x[l] * v[l];
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      double s = (acc[r][c][0] + acc[r][c][1]) + (acc[r][c][2] + acc[r][c][3]);
      for (uword i = D4; i < D; ++i) s += X[r * D + i] * V[c * D + i];
      out[c * ldo + r] = s;
    }
  }
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(MO_NO_AVX2_KERNELS)
#define MO_L1_HAVE_AVX2 1
__attribute__((target("avx2,fma"))) inline double vdot_avx2(const double* a, const double* b,
                                                            uword n) { MO_L1_VDOT_BODY }
__attribute__((target("avx2,fma"))) inline void vaxpy_avx2(double alpha, const double* x,
                                                           double* y, uword n) { MO_L1_VAXPY_BODY }
__attribute__((target("avx2,fma"))) inline void ratio_avx2(const double* c, const double* g,
                                                           const double* mask, double lam, uword n,
                                                           double* r) {
  const double inf = std::numeric_limits<double>::infinity();
  MO_L1_RATIO_BODY
}
// (the small loops over R and C are unrolled so that the R x C accumulators
// stay in registers)
#if defined(__clang__)
#define MO_L1_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define MO_L1_UNROLL _Pragma("GCC unroll 4")
#else
#define MO_L1_UNROLL
#endif
template <int R, int C>
__attribute__((target("avx2,fma"))) inline void dot_block_avx2(const double* X, const double* V,
                                                               uword D, double* out, uword ldo) {
  __m256d acc[R][C];
  MO_L1_UNROLL
  for (int r = 0; r < R; ++r) {
    MO_L1_UNROLL
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_pd();
  }
  const uword D4 = D / 4 * 4;
  for (uword i = 0; i < D4; i += 4) {
    __m256d xr[R];
    MO_L1_UNROLL
    for (int r = 0; r < R; ++r) xr[r] = _mm256_loadu_pd(X + r * D + i);
    MO_L1_UNROLL
    for (int c = 0; c < C; ++c) {
      const __m256d vc = _mm256_loadu_pd(V + c * D + i);
      MO_L1_UNROLL
      for (int r = 0; r < R; ++r) acc[r][c] = _mm256_fmadd_pd(xr[r], vc, acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      alignas(32) double l[4];
      _mm256_store_pd(l, acc[r][c]);
      double s = (l[0] + l[1]) + (l[2] + l[3]);
      for (uword i = D4; i < D; ++i) s = std::fma(X[r * D + i], V[c * D + i], s);
      out[c * ldo + r] = s;
    }
  }
}
inline bool use_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}
#endif
}  // namespace kern

inline double vdot(const double* a, const double* b, uword n) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::vdot_avx2(a, b, n);
#endif
  return kern::vdot_base(a, b, n);
}

inline void vaxpy(double alpha, const double* x, double* y, uword n) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::vaxpy_avx2(alpha, x, y, n);
#endif
  kern::vaxpy_base(alpha, x, y, n);
}

// Homotopy step lengths to the next entry of each inactive column:
// r_j = min over the signs of max(lam -+ c_j, 0) / (1 -+ g_j) (positive
// denominators only) plus mask_j (0, or +inf for columns that may not enter).
inline void entry_ratios(const double* c, const double* g, const double* mask, double lam, uword n,
                         double* r) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::ratio_avx2(c, g, mask, lam, n, r);
#endif
  kern::ratio_base(c, g, mask, lam, n, r);
}

template <int R, int C>
inline void dot_block(const double* X, const double* V, uword D, double* out, uword ldo) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::dot_block_avx2<R, C>(X, V, D, out, ldo);
#endif
  kern::dot_block_base<R, C>(X, V, D, out, ldo);
}

// ---- dictionary B = [X^T E] -------------------------------------------------
class dictionary {
 public:
  // X: N x D training samples (rows). E: D x De error basis; an empty matrix
  // means the identity I_D.
  dictionary(const arma::mat& X, const arma::mat& E = arma::mat())
      : X_(X), Xt_(X.t()), identity_(E.is_empty()), E_(E) {
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
      XE_ = X * E;
      EtE_ = E.t() * E;
    }
    sqnorm_.set_size(N_ + De_);
    for (uword a = 0; a < N_; ++a) sqnorm_(a) = vdot(Xt_.colptr(a), Xt_.colptr(a), D_);
    for (uword l = 0; l < De_; ++l) sqnorm_(N_ + l) = identity_ ? 1.0 : EtE_(l, l);
  }

  uword D() const { return D_; }
  uword N() const { return N_; }
  uword De() const { return De_; }
  uword M() const { return N_ + De_; }
  bool identity() const { return identity_; }
  const arma::mat& Xt() const { return Xt_; }
  double sqnorm(uword j) const { return sqnorm_(j); }

  // Precompute the Gram matrix X X^T of the training columns (N x N), so
  // that col_dot() of two training columns is a look-up. Pays off when many
  // queries are coded against the same dictionary (O(N^2 D) once, versus
  // O(|A| D) per homotopy step that adds a training column).
  void build_gram(int n_threads = 1) {
    gram_.set_size(N_, N_);
    const uword nb = (N_ + 3) / 4;
    const double* Xt = Xt_.memptr();
    double* G = gram_.memptr();
    const uword N = N_, D = D_;
    (void)n_threads;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4) num_threads(n_threads)
#endif
    for (long blk = 0; blk < long(nb); ++blk) {
      // columns q0 .. q0 + w - 1; rows i >= q0 (lower triangle, then mirrored)
      const uword q0 = uword(blk) * 4, w = std::min<uword>(4, N - q0);
      const double* V = Xt + q0 * D;
      uword i = q0;
      for (; i + 3 <= N; i += 3) {
        if (w == 4) dot_block<3, 4>(Xt + i * D, V, D, G + q0 * N + i, N);
        else for (uword c = 0; c < w; ++c) dot_block<3, 1>(Xt + i * D, V + c * D, D, G + (q0 + c) * N + i, N);
      }
      for (; i < N; ++i) {
        if (w == 4) dot_block<1, 4>(Xt + i * D, V, D, G + q0 * N + i, N);
        else for (uword c = 0; c < w; ++c) dot_block<1, 1>(Xt + i * D, V + c * D, D, G + (q0 + c) * N + i, N);
      }
    }
    for (uword j = 0; j < N; ++j)
      for (uword i = 0; i < j; ++i) G[j * N + i] = G[i * N + j];
  }
  bool has_gram() const { return !gram_.is_empty(); }

  // Inner product of dictionary columns i and j.
  double col_dot(uword i, uword j) const {
    if (i > j) std::swap(i, j);
    if (j < N_) {
      // the same arithmetic as the Gram matrix (dot_block), so a code does
      // not depend on whether its batch built one
      if (!gram_.is_empty()) return gram_(i, j);
      double out;
      dot_block<1, 1>(Xt_.colptr(i), Xt_.colptr(j), D_, &out, 1);
      return out;
    }
    if (i < N_) return identity_ ? X_(i, j - N_) : XE_(i, j - N_);
    if (identity_) return i == j ? 1.0 : 0.0;
    return EtE_(i - N_, j - N_);
  }

  // b_j^T x for a D-vector x.
  double col_dot_query(uword j, const double* x) const {
    if (j < N_) return vdot(Xt_.colptr(j), x, D_);
    if (identity_) return x[j - N_];
    return vdot(E_.colptr(j - N_), x, D_);
  }

  // out (D) = b_j
  void col_copy(uword j, double* out) const {
    if (j < N_) {
      std::copy(Xt_.colptr(j), Xt_.colptr(j) + D_, out);
    } else if (identity_) {
      std::fill(out, out + D_, 0.0);
      out[j - N_] = 1.0;
    } else {
      std::copy(E_.colptr(j - N_), E_.colptr(j - N_) + D_, out);
    }
  }

  // out (D) = sum_t coef[t] * b_{cols[t]}
  void combine(const std::vector<uword>& cols, const double* coef, double* out) const {
    std::fill(out, out + D_, 0.0);
    for (uword t = 0; t < cols.size(); ++t) {
      const uword j = cols[t];
      if (j < N_) {
        vaxpy(coef[t], Xt_.colptr(j), out, D_);
      } else if (identity_) {
        out[j - N_] += coef[t];
      } else {
        vaxpy(coef[t], E_.colptr(j - N_), out, D_);
      }
    }
  }

  // g (M) = B^T v (direct: O(M D)).
  void correlate(const double* v, double* g) const {
    for (uword a = 0; a < N_; ++a) g[a] = vdot(Xt_.colptr(a), v, D_);
    error_correlate(v, g + N_);
  }

  // The error part of B^T v.
  void error_correlate(const double* v, double* gE) const {
    if (identity_) {
      std::copy(v, v + D_, gE);
    } else {
      for (uword l = 0; l < De_; ++l) gE[l] = vdot(E_.colptr(l), v, D_);
    }
  }

  // Training part of B^T V for the columns of V (D x b, column-major): out
  // (N x b, column q contiguous). Register blocks of 3 training samples x 4
  // queries share every load; all b queries share one pass over the
  // dictionary. Every (sample, query) pair goes through the same arithmetic
  // (see kern::dot_block_base), so a query's correlations do not depend on
  // the other queries of the batch.
  void correlate_block(const double* V, uword b, double* out) const {
    const double* Xt = Xt_.memptr();
    const uword N3 = N_ / 3 * 3;
    for (uword j = 0; j < N_; j += (j < N3 ? 3 : 1)) {
      const bool three = j < N3;
      const double* xj = Xt + j * D_;
      uword q = 0;
      for (; q + 4 <= b; q += 4) {
        if (three) dot_block<3, 4>(xj, V + q * D_, D_, out + q * N_ + j, N_);
        else dot_block<1, 4>(xj, V + q * D_, D_, out + q * N_ + j, N_);
      }
      for (; q < b; ++q) {
        if (three) dot_block<3, 1>(xj, V + q * D_, D_, out + q * N_ + j, N_);
        else dot_block<1, 1>(xj, V + q * D_, D_, out + q * N_ + j, N_);
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
  const arma::mat& X_;
  arma::mat Xt_;
  bool identity_;
  arma::mat E_;
  uword D_ = 0, N_ = 0, De_ = 0;
  arma::mat XE_, EtE_;
  arma::vec sqnorm_;
  arma::mat gram_;  // X X^T when build_gram() was called
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
  r.gap = std::abs(obj - vdot(x, r.dual.memptr(), D));
  r.certified = r.dual_max <= 1.0 + 1e-8 && r.gap <= 1e-8 * std::max(obj, 1e-300) + 1e-14 &&
                res <= 1e-9 * std::max(1.0, xnorm);
}

// ---- Cholesky factor of B_A^T B_A with updates -----------------------------
// Besides R (R^T R = B_A^T B_A) it keeps t = R^{-T} s for the sign vector s
// of the active set, updated in O(|A|) when a column enters (one new entry)
// or leaves (the same Givens rotations as R), so that the homotopy direction
// d = (B_A^T B_A)^{-1} s needs only the back substitution R d = t.
class active_cholesky {
 public:
  explicit active_cholesky(uword cap) : R_(cap, cap, arma::fill::zeros), t_(cap + 1), s_(0) {}
  uword size() const { return s_; }
  void clear() { s_ = 0; }

  // Append a column with sign `sign` (s_A gains that entry); see add().
  bool add_signed(const double* k, double kk, double sign) {
    if (!add(k, kk)) return false;
    const uword p = s_ - 1;
    t_[p] = (sign - vdot(R_.colptr(p), t_.memptr(), p)) / R_(p, p);
    return true;
  }

  // Recompute t = R^{-T} s from scratch (guards against drift).
  void refresh(const double* sign) {
    for (uword i = 0; i < s_; ++i) {
      const double* Ri = R_.colptr(i);
      t_[i] = (sign[i] - vdot(Ri, t_.memptr(), i)) / Ri[i];
    }
  }

  // d = (B_A^T B_A)^{-1} s_A = R^{-1} t.
  void direction(double* d) const {
    std::copy(t_.memptr(), t_.memptr() + s_, d);
    back_substitute(d);
  }

  // Append column j (its inner products with the current columns in k,
  // squared norm kk). Returns false when the column is (numerically) in the
  // span of the current ones. (t is not extended: use add_signed.)
  bool add(const double* k, double kk) {
    if (s_ >= R_.n_cols) return false;
    double* w = R_.colptr(s_);
    double ww = 0.0;
    for (uword i = 0; i < s_; ++i) {
      const double* Ri = R_.colptr(i);
      w[i] = (k[i] - vdot(Ri, w, i)) / Ri[i];
      ww += w[i] * w[i];
    }
    const double r2 = kk - ww;
    if (!(r2 > 1e-12 * kk) || !std::isfinite(r2)) {
      return false;
    }
    w[s_] = std::sqrt(r2);
    ++s_;
    return true;
  }

  // Remove the column at position p (Givens rotations restore the triangle).
  void remove(uword p) {
    for (uword j = p; j + 1 < s_; ++j) {
      std::copy(R_.colptr(j + 1), R_.colptr(j + 1) + s_, R_.colptr(j));
    }
    --s_;
    for (uword i = p; i < s_; ++i) {
      const double a = R_(i, i), b = R_(i + 1, i);
      const double h = std::hypot(a, b);
      if (h == 0.0) continue;
      const double c = a / h, s = b / h;
      for (uword j = i; j < s_; ++j) {
        const double u = R_(i, j), v = R_(i + 1, j);
        R_(i, j) = c * u + s * v;
        R_(i + 1, j) = -s * u + c * v;
      }
      R_(i + 1, i) = 0.0;
      const double tu = t_[i], tv = t_[i + 1];
      t_[i] = c * tu + s * tv;
      t_[i + 1] = -s * tu + c * tv;
    }
  }

  // Solve R^T R z = rhs in place (size s).
  void solve(double* z) const {
    for (uword i = 0; i < s_; ++i) {  // R^T t = rhs
      const double* Ri = R_.colptr(i);
      z[i] = (z[i] - vdot(Ri, z, i)) / Ri[i];
    }
    back_substitute(z);
  }

 private:
  // Solve R z = rhs in place.
  void back_substitute(double* z) const {
    for (uword jj = s_; jj-- > 0;) {  // R z = t, column-oriented
      const double* Rj = R_.colptr(jj);
      const double zj = z[jj] / Rj[jj];
      z[jj] = zj;
      vaxpy(-zj, Rj, z, jj);
    }
  }

  arma::mat R_;
  arma::vec t_;
  uword s_;
};

// ---- homotopy ----------------------------------------------------------------
// One query's Lasso path, written as a state machine so that several queries
// can be advanced in lockstep: every step needs the training correlations
// B_N^T r of one D-vector r (request()), which the driver computes for all
// live queries in one pass over the dictionary (correlate_block), then
// receive() finishes the step.
class homotopy_state {
 public:
  explicit homotopy_state(const dictionary& B)
      : B_(B), c_(B.M()), g_(B.M()), a_(B.M()), d_(B.D() + 1), v_(B.D()), kbuf_(B.D() + 1),
        mask_(B.M()), ratio_(B.M()), active_(B.M()), blocked_(B.M()), chol_(B.D()) {
    A_.reserve(B.D() + 1);
    sgn_.reserve(B.D() + 1);
  }

  // Start query `id` with vector x (D).
  void start(uword id, const double* x, int max_steps) {
    id_ = id;
    x_ = x;
    max_steps_ = max_steps;
    out = code_result();
    out.dual.zeros(B_.D());
    A_.clear();
    sgn_.clear();
    chol_.clear();
    std::fill(active_.begin(), active_.end(), 0);
    std::fill(blocked_.begin(), blocked_.end(), 0);
    mask_.zeros();
    a_.zeros();
    last_dropped_ = -1;
    last_sign_ = 0.0;
    phase_ = 0;
    status = 0;
    std::copy(x, x + B_.D(), v_.begin());
  }

  uword id() const { return id_; }
  // The D-vector whose training correlations are needed next.
  const double* request() const { return v_.memptr(); }

  // Training correlations gN (N) of request(); advances one step. Sets
  // status to 1 (finished; `out` holds the certified or uncertified code)
  // or 2 (failed: the caller falls back to ADMM).
  void receive(const double* gN) {
    const uword N = B_.N();
    if (phase_ == 0) {
      std::copy(gN, gN + N, c_.begin());
      B_.error_correlate(x_, c_.memptr() + N);
      lam_ = 0.0;
      uword jmax = 0;
      for (uword j = 0; j < B_.M(); ++j) {
        if (std::abs(c_[j]) > lam_) { lam_ = std::abs(c_[j]); jmax = j; }
      }
      if (!(lam_ > 0)) {  // x = 0: a' = 0, y = 0 is optimal
        out.certified = true;
        status = 1;
        return;
      }
      lam0_ = lam_;
      if (!try_add(jmax, c_[jmax] > 0 ? 1.0 : -1.0)) { status = 2; return; }
      phase_ = 1;
      direction();
      return;
    }
    std::copy(gN, gN + N, g_.begin());
    B_.error_correlate(v_.memptr(), g_.memptr() + N);
    const int ev = step();
    if (ev < 0) { status = 2; return; }
    if (ev == 0) {
      status = finish() ? 1 : 2;
      return;
    }
    if (out.steps >= max_steps_) { status = 2; return; }
    direction();
  }

  code_result out;
  int status = 0;

 private:
  bool try_add(uword j, double s) {
    const uword na = A_.size();
    // k = B_A^T b_j (look-ups in the Gram matrix or in X when it is cached)
    for (uword t = 0; t < na; ++t) kbuf_[t] = B_.col_dot(A_[t], j);
    if (!chol_.add_signed(kbuf_.memptr(), B_.sqnorm(j), s)) return false;
    A_.push_back(j);
    sgn_.push_back(s);
    active_[j] = 1;
    mask_[j] = std::numeric_limits<double>::infinity();
    return true;
  }

  // d = (B_A^T B_A)^{-1} s_A, v = B_A d.
  void direction() {
    if (out.steps % 64 == 63) chol_.refresh(sgn_.data());
    chol_.direction(d_.memptr());
    B_.combine(A_, d_.memptr(), v_.memptr());
  }

  // One homotopy step given g = B^T v. Returns 0 when lam reached 0, 1 after
  // an add or drop event, -1 on failure.
  int step() {
    const uword D = B_.D(), M = B_.M();
    ++out.steps;
    const uword na = A_.size();
    double gadd = std::numeric_limits<double>::infinity();
    long jadd = -1;
    double sadd = 0.0;
    if (na < D) {
      const double* c = c_.memptr();
      const double* g = g_.memptr();
      // vectorised ratios, then the first minimiser (ties: the lower index,
      // the + sign first)
      entry_ratios(c, g, mask_.memptr(), lam_, M, ratio_.memptr());
      const double* r = ratio_.memptr();
      if (last_dropped_ >= 0) {  // the column just dropped may re-enter only with the other sign
        const uword j = uword(last_dropped_);
        double best = std::numeric_limits<double>::infinity();
        const double d1 = 1.0 - g[j], d2 = 1.0 + g[j];
        if (d1 > 0 && !(last_sign_ > 0)) best = std::max(lam_ - c[j], 0.0) / d1;
        if (d2 > 0 && !(last_sign_ < 0)) best = std::min(best, std::max(lam_ + c[j], 0.0) / d2);
        ratio_[j] = best + mask_[j];
      }
      for (uword j = 0; j < M; ++j) gadd = std::min(gadd, r[j]);
      if (gadd < std::numeric_limits<double>::infinity()) {
        uword j = 0;
        while (!(r[j] == gadd)) ++j;
        jadd = long(j);
        const double d1 = 1.0 - g[j];
        const bool plus_ok = d1 > 0 && !(long(j) == last_dropped_ && last_sign_ > 0);
        sadd = (plus_ok && std::max(lam_ - c[j], 0.0) / d1 == gadd) ? 1.0 : -1.0;
      }
    }
    double gdrop = std::numeric_limits<double>::infinity();
    long pdrop = -1;
    for (uword t = 0; t < na; ++t) {
      const double dt = d_[t];
      if (dt == 0.0) continue;
      const double gam = -a_[A_[t]] / dt;
      if (gam > 0 && gam < gdrop) { gdrop = gam; pdrop = long(t); }
    }
    double gam = lam_;
    int event = 0;  // 0: reach lam = 0, 1: add, 2: drop
    if (gadd < gam) { gam = gadd; event = 1; }
    if (gdrop < gam) { gam = gdrop; event = 2; }
    if (!std::isfinite(gam)) return -1;
    for (uword t = 0; t < na; ++t) a_[A_[t]] += gam * d_[t];
    {
      double* c = c_.memptr();
      const double* g = g_.memptr();
      for (uword j = 0; j < M; ++j) c[j] -= gam * g[j];
    }
    lam_ -= gam;
    for (uword t = 0; t < na; ++t) c_[A_[t]] = lam_ * sgn_[t];
    if (event == 0 || lam_ <= 1e-14 * lam0_) return 0;
    if (event == 2) {
      const uword j = A_[pdrop];
      a_[j] = 0.0;
      last_sign_ = sgn_[pdrop];
      last_dropped_ = long(j);
      chol_.remove(uword(pdrop));
      A_.erase(A_.begin() + pdrop);
      sgn_.erase(sgn_.begin() + pdrop);
      active_[j] = 0;
      std::fill(blocked_.begin(), blocked_.end(), 0);
      mask_.zeros();
      for (uword t : A_) mask_[t] = std::numeric_limits<double>::infinity();
      ++out.drops;
    } else {
      last_dropped_ = -1;
      if (!try_add(uword(jadd), sadd)) {
        blocked_[jadd] = 1;
        mask_[jadd] = std::numeric_limits<double>::infinity();
      }
    }
    return 1;
  }

  // End point: least-squares solve of B_A a_A = x on the final active set
  // (exact for |A| = D) with two refinement steps; dual y = B_A (B_A^T
  // B_A)^{-1} s_A, the direction of the last segment. Then certify.
  bool finish() {
    const uword D = B_.D();
    const uword na = A_.size();
    if (na == 0) return false;
    arma::vec aa(na), rhs(na), r(D);
    for (uword t = 0; t < na; ++t) rhs[t] = B_.col_dot_query(A_[t], x_);
    aa = rhs;
    chol_.solve(aa.memptr());
    for (int it = 0; it < 2; ++it) {
      B_.combine(A_, aa.memptr(), r.memptr());
      for (uword i = 0; i < D; ++i) r[i] = x_[i] - r[i];
      for (uword t = 0; t < na; ++t) rhs[t] = B_.col_dot_query(A_[t], r.memptr());
      chol_.solve(rhs.memptr());
      aa += rhs;
    }
    for (uword t = 0; t < na; ++t) d_[t] = sgn_[t];
    chol_.solve(d_.memptr());
    B_.combine(A_, d_.memptr(), out.dual.memptr());
    out.support.clear();
    out.values.clear();
    for (uword t = 0; t < na; ++t) {
      if (aa[t] == 0.0) continue;
      out.support.push_back(A_[t]);
      out.values.push_back(aa[t]);
    }
    certify(B_, x_, out, gwork_);
    return out.certified;
  }

  const dictionary& B_;
  arma::vec c_, g_, a_, d_, v_, kbuf_, gwork_;
  arma::vec mask_, ratio_;  // mask_j = +inf for active or blocked columns
  std::vector<char> active_, blocked_;
  std::vector<uword> A_;
  std::vector<double> sgn_;
  active_cholesky chol_;
  uword id_ = 0;
  const double* x_ = nullptr;
  int max_steps_ = 0, phase_ = 0;
  double lam_ = 0.0, lam0_ = 0.0, last_sign_ = 0.0;
  long last_dropped_ = -1;
};

// Run the homotopy for the queries `ids` (columns of Qt, D x m) with `width`
// of them in lockstep. Finished queries go to sink(); failed ones to `failed`.
inline void homotopy_lockstep(const dictionary& B, const arma::mat& Qt,
                              const std::vector<uword>& ids, uword width, int max_steps,
                              const std::function<void(uword, code_result&)>& sink,
                              std::vector<uword>& failed, interrupt_flag& flag) {
  const uword D = B.D(), N = B.N();
  width = std::max<uword>(1, width);
  std::vector<homotopy_state> slots;
  slots.reserve(width);
  std::vector<char> live(width, 0);
  uword next = 0;
  for (uword s = 0; s < width; ++s) {
    slots.emplace_back(B);
    if (next < ids.size()) {
      slots[s].start(ids[next], Qt.colptr(ids[next]), max_steps);
      live[s] = 1;
      ++next;
    }
  }
  arma::mat V(D, width, arma::fill::zeros), G(N, width);
  std::vector<uword> col(width);
  long iter = 0;
  while (true) {
    // live requests packed into the first columns
    uword nl = 0;
    for (uword s = 0; s < width; ++s) {
      if (!live[s]) continue;
      std::copy(slots[s].request(), slots[s].request() + D, V.colptr(nl));
      col[s] = nl++;
    }
    if (nl == 0) break;
    const uword b = nl;
    if (flag.poll(iter++)) return;
    B.correlate_block(V.memptr(), b, G.memptr());
    for (uword s = 0; s < width; ++s) {
      if (!live[s]) continue;
      homotopy_state& st = slots[s];
      st.receive(G.colptr(col[s]));
      if (st.status == 0) continue;
      if (st.status == 1 && st.out.certified) {
        sink(st.id(), st.out);
      } else {
        failed.push_back(st.id());
      }
      live[s] = 0;
      if (next < ids.size()) {
        st.start(ids[next], Qt.colptr(ids[next]), max_steps);
        live[s] = 1;
        ++next;
      }
    }
  }
}

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

// ---- driver ------------------------------------------------------------------
enum class solver_type { homotopy, admm };

struct solve_options {
  solver_type solver = solver_type::homotopy;
  int max_steps = 0;        // homotopy; 0 = 50 * D + 100
  admm_options admm;
  uword width = 8;          // homotopy queries advanced in lockstep
  int n_threads = 0;
  uword admm_chunk = 64;    // queries per ADMM batch
};

// Codes for the rows of Q (m x D). sink(i, result) is called once per row,
// possibly from several threads (for distinct i).
inline void solve(const arma::mat& X, const arma::mat& E, const arma::mat& Q,
                  const solve_options& opt,
                  const std::function<void(uword, code_result&)>& sink) {
  dictionary B(X, E);
  const uword D = B.D(), m = Q.n_rows;
  if (Q.n_cols != D) throw input_error("queries and dictionary have different numbers of features");
  if (!Q.is_finite()) throw input_error("queries contain non-finite values");
  if (m == 0) return;
  const int nt = resolve_threads(opt.n_threads);
  const arma::mat Qt = Q.t();
  std::vector<uword> need_admm;
  std::vector<char> fb(m, 0);

  if (opt.solver == solver_type::homotopy) {
    const int max_steps = opt.max_steps > 0 ? opt.max_steps : int(50 * D + 100);
    // the Gram matrix of the training columns costs about as much as N / 4
    // homotopy steps and saves O(|A| D) per added column: worth it for
    // batches, and kept to 64 MB
    if (m >= 32 && double(B.N()) * B.N() * 8.0 <= 64.0 * 1024 * 1024) B.build_gram(nt);
    interrupt_flag flag(1);
    std::vector<std::vector<uword>> fails(nt);
    bool crashed = false;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
    {
      int tid = 0;
#ifdef _OPENMP
      tid = omp_get_thread_num();
#endif
      std::vector<uword> mine;
      for (uword i = uword(tid); i < m; i += uword(nt)) mine.push_back(i);
      try {
        homotopy_lockstep(B, Qt, mine, opt.width, max_steps, sink, fails[tid], flag);
      } catch (...) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
        crashed = true;
      }
    }
    if (crashed) throw error("the homotopy solver failed (out of memory?)");
    flag.rethrow_if_stopped();
    for (auto& f : fails)
      for (uword i : f) { need_admm.push_back(i); fb[i] = 1; }
    std::sort(need_admm.begin(), need_admm.end());
  } else {
    need_admm.resize(m);
    for (uword i = 0; i < m; ++i) need_admm[i] = i;
  }
  if (need_admm.empty()) return;

  const arma::mat Bfull = B.explicit_matrix();
  arma::mat G = Bfull * Bfull.t();
  arma::mat Gchol;
  if (!arma::chol(Gchol, G)) throw error("the dictionary does not have full row rank (Cholesky of B B^T failed)");
  const uword chunk = std::max<uword>(1, opt.admm_chunk);
  const uword nchunks = (need_admm.size() + chunk - 1) / chunk;
  interrupt_flag flag(1);
  auto wrapped = [&](uword i, code_result& r) {
    r.fallback = fb[i] != 0;
    sink(i, r);
  };
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
#endif
  for (long c = 0; c < long(nchunks); ++c) {
    if (flag.poll(c)) continue;
    const uword i0 = uword(c) * chunk, i1 = std::min<uword>(need_admm.size(), i0 + chunk);
    std::vector<uword> ids(need_admm.begin() + i0, need_admm.begin() + i1);
    admm_batch(B, Bfull, Gchol, Qt, ids, opt.admm, wrapped, &flag);
  }
  flag.rethrow_if_stopped();
}

}  // namespace l1
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_SPARSE_CODING_H
