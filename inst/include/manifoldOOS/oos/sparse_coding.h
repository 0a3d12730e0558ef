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
//    rank-one updates (add) and Givens downdates (drop), and correlations
//    screened against a checkpoint pass (only the columns a bound cannot
//    exclude from entering are correlated; see homotopy_state). The end
//    point is a basis-pursuit solution; the last direction gives the dual
//    certificate.
//  * ADMM (Boyd et al. 2011, basis pursuit) on batches of queries, with a
//    support "polish" and dual certificate tried every 50 iterations.
// Every returned code carries its dual vector y and the certificate
// ||B^T y||_inf <= 1 + 1e-8, ||a'||_1 = x^T y (optimality of an LP).
#ifndef MANIFOLDOOS_SPARSE_CODING_H
#define MANIFOLDOOS_SPARSE_CODING_H

#include <armadillo>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(MO_NO_AVX2_KERNELS)
#include <immintrin.h>
#endif

#include <manifoldOOS/core/common.h>

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
// y += a0 x0 + a1 x1 + a2 x2 + a3 x3 (y read and written once)
#define MO_L1_VAXPY4_BODY                                                         \
  _Pragma("omp simd")                                                             \
  for (uword i = 0; i < n; ++i) y[i] += (a[0] * x0[i] + a[1] * x1[i]) + (a[2] * x2[i] + a[3] * x3[i]);
// out[q] = <xq, y> for four vectors (y read once)
#define MO_L1_VDOT4_BODY                                       \
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;               \
  _Pragma("omp simd reduction(+ : s0, s1, s2, s3)")            \
  for (uword i = 0; i < n; ++i) {                              \
    s0 += x0[i] * y[i];                                        \
    s1 += x1[i] * y[i];                                        \
    s2 += x2[i] * y[i];                                        \
    s3 += x3[i] * y[i];                                        \
  }                                                            \
  out[0] = s0; out[1] = s1; out[2] = s2; out[3] = s3;
#define MO_L1_VAXPY_BODY                                       \
  _Pragma("omp simd")                                          \
  for (uword i = 0; i < n; ++i) y[i] += alpha * x[i];
// (one entry; the division happens whatever the sign of the denominator
// and is then discarded, so that the loop has no branch)
#define MO_L1_RATIO_ONE(j)                                                      \
  {                                                                             \
    const double d1 = 1.0 - g[j], d2 = 1.0 + g[j];                              \
    const double n1 = std::max(lam - c[j], 0.0), n2 = std::max(lam + c[j], 0.0); \
    const double q1 = n1 / d1, q2 = n2 / d2;                                    \
    const double r1 = d1 > 0 ? q1 : inf;                                        \
    const double r2 = d2 > 0 ? q2 : inf;                                        \
    r[j] = std::min(r1, r2) + mask[j];                                          \
    best = std::min(best, r[j]);                                                \
  }

namespace kern {
inline double vdot_base(const double* a, const double* b, uword n) { MO_L1_VDOT_BODY }
inline void vaxpy_base(double alpha, const double* x, double* y, uword n) { MO_L1_VAXPY_BODY }
inline void vdot4_base(const double* x0, const double* x1, const double* x2, const double* x3,
                       const double* y, uword n, double* out) { MO_L1_VDOT4_BODY }
inline void vaxpy4_base(const double* a, const double* x0, const double* x1, const double* x2,
                        const double* x3, double* y, uword n) { MO_L1_VAXPY4_BODY }
inline double ratio_base(const double* c, const double* g, const double* mask, double lam, uword n,
                         double* r) {
  const double inf = std::numeric_limits<double>::infinity();
  double best = inf;
  for (uword j = 0; j < n; ++j) MO_L1_RATIO_ONE(j)
  return best;
}

// Screening test of the homotopy: writes the positions k < n that fail
// |c_k - G0 h_k| < A0 and |c_k - G1 h_k| < A1 (NaN fails) to idx; returns
// their number.
#define MO_L1_SCAN_ONE(k)                                                             \
  if (!(std::abs(c[k] - G0 * h[k]) < A0) || !(std::abs(c[k] - G1 * h[k]) < A1)) idx[m++] = k;
inline uword screen_base(const double* c, const double* h, uword n, double G0, double A0,
                         double G1, double A1, uword* idx) {
  uword m = 0;
  for (uword k = 0; k < n; ++k) MO_L1_SCAN_ONE(k)
  return m;
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
// (two accumulators per row: eight independent FMA chains)
__attribute__((target("avx2,fma"))) inline void vdot4_avx2(const double* x0, const double* x1,
                                                           const double* x2, const double* x3,
                                                           const double* y, uword n,
                                                           double* out) {
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  const uword n8 = n / 8 * 8, n4 = n / 4 * 4;
  uword i = 0;
  for (; i < n8; i += 8) {
    const __m256d y0 = _mm256_loadu_pd(y + i), y1 = _mm256_loadu_pd(y + i + 4);
    a0 = _mm256_fmadd_pd(_mm256_loadu_pd(x0 + i), y0, a0);
    a1 = _mm256_fmadd_pd(_mm256_loadu_pd(x1 + i), y0, a1);
    a2 = _mm256_fmadd_pd(_mm256_loadu_pd(x2 + i), y0, a2);
    a3 = _mm256_fmadd_pd(_mm256_loadu_pd(x3 + i), y0, a3);
    b0 = _mm256_fmadd_pd(_mm256_loadu_pd(x0 + i + 4), y1, b0);
    b1 = _mm256_fmadd_pd(_mm256_loadu_pd(x1 + i + 4), y1, b1);
    b2 = _mm256_fmadd_pd(_mm256_loadu_pd(x2 + i + 4), y1, b2);
    b3 = _mm256_fmadd_pd(_mm256_loadu_pd(x3 + i + 4), y1, b3);
  }
  if (i < n4) {
    const __m256d y0 = _mm256_loadu_pd(y + i);
    a0 = _mm256_fmadd_pd(_mm256_loadu_pd(x0 + i), y0, a0);
    a1 = _mm256_fmadd_pd(_mm256_loadu_pd(x1 + i), y0, a1);
    a2 = _mm256_fmadd_pd(_mm256_loadu_pd(x2 + i), y0, a2);
    a3 = _mm256_fmadd_pd(_mm256_loadu_pd(x3 + i), y0, a3);
    i += 4;
  }
  alignas(32) double l[4][4];
  _mm256_store_pd(l[0], _mm256_add_pd(a0, b0));
  _mm256_store_pd(l[1], _mm256_add_pd(a1, b1));
  _mm256_store_pd(l[2], _mm256_add_pd(a2, b2));
  _mm256_store_pd(l[3], _mm256_add_pd(a3, b3));
  const double* xs[4] = {x0, x1, x2, x3};
  for (int q = 0; q < 4; ++q) {
    double t = (l[q][0] + l[q][1]) + (l[q][2] + l[q][3]);
    for (uword k = i; k < n; ++k) t = std::fma(xs[q][k], y[k], t);
    out[q] = t;
  }
}
__attribute__((target("avx2,fma"))) inline void vaxpy4_avx2(const double* a, const double* x0,
                                                            const double* x1, const double* x2,
                                                            const double* x3, double* y,
                                                            uword n) { MO_L1_VAXPY4_BODY }
__attribute__((target("avx2,fma"))) inline double ratio_avx2(const double* c, const double* g,
                                                             const double* mask, double lam,
                                                             uword n, double* r) {
  const double inf = std::numeric_limits<double>::infinity();
  const __m256d vlam = _mm256_set1_pd(lam), one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd(),
                vinf = _mm256_set1_pd(inf);
  __m256d vbest = vinf;
  const uword n4 = n / 4 * 4;
  for (uword j = 0; j < n4; j += 4) {
    const __m256d c4 = _mm256_loadu_pd(c + j), g4 = _mm256_loadu_pd(g + j);
    const __m256d d1 = _mm256_sub_pd(one, g4), d2 = _mm256_add_pd(one, g4);
    // max(lam -+ c, 0): the same operand order as std::max(x, 0.0)
    const __m256d n1 = _mm256_max_pd(zero, _mm256_sub_pd(vlam, c4));
    const __m256d n2 = _mm256_max_pd(zero, _mm256_add_pd(vlam, c4));
    const __m256d q1 = _mm256_div_pd(n1, d1), q2 = _mm256_div_pd(n2, d2);
    const __m256d r1 = _mm256_blendv_pd(vinf, q1, _mm256_cmp_pd(d1, zero, _CMP_GT_OQ));
    const __m256d r2 = _mm256_blendv_pd(vinf, q2, _mm256_cmp_pd(d2, zero, _CMP_GT_OQ));
    const __m256d rr = _mm256_add_pd(_mm256_min_pd(r1, r2), _mm256_loadu_pd(mask + j));
    _mm256_storeu_pd(r + j, rr);
    vbest = _mm256_min_pd(vbest, rr);
  }
  alignas(32) double b4[4];
  _mm256_store_pd(b4, vbest);
  double best = std::min(std::min(b4[0], b4[1]), std::min(b4[2], b4[3]));
  for (uword j = n4; j < n; ++j) MO_L1_RATIO_ONE(j)
  return best;
}
__attribute__((target("avx2,fma"))) inline uword screen_avx2(const double* c, const double* h,
                                                             uword n, double G0, double A0,
                                                             double G1, double A1, uword* idx) {
  const __m256d g0 = _mm256_set1_pd(G0), g1 = _mm256_set1_pd(G1), a0 = _mm256_set1_pd(A0),
                a1 = _mm256_set1_pd(A1), sgn = _mm256_set1_pd(-0.0);
  uword m = 0;
  const uword n4 = n / 4 * 4;
  for (uword k = 0; k < n4; k += 4) {
    const __m256d c4 = _mm256_loadu_pd(c + k), h4 = _mm256_loadu_pd(h + k);
    // |c - G h| (the margin of the test covers any rounding difference)
    const __m256d p0 = _mm256_andnot_pd(sgn, _mm256_sub_pd(c4, _mm256_mul_pd(g0, h4)));
    const __m256d p1 = _mm256_andnot_pd(sgn, _mm256_sub_pd(c4, _mm256_mul_pd(g1, h4)));
    const __m256d f = _mm256_or_pd(_mm256_cmp_pd(p0, a0, _CMP_NLT_UQ),
                                   _mm256_cmp_pd(p1, a1, _CMP_NLT_UQ));
    int bits = _mm256_movemask_pd(f);
    while (bits) {
      const int b = __builtin_ctz(bits);
      idx[m++] = k + uword(b);
      bits &= bits - 1;
    }
  }
  for (uword k = n4; k < n; ++k) MO_L1_SCAN_ONE(k)
  return m;
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
inline bool use_avx2() { return cpu_has_avx2_fma(); }
#endif
}  // namespace kern

inline double vdot(const double* a, const double* b, uword n) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::vdot_avx2(a, b, n);
#endif
  return kern::vdot_base(a, b, n);
}

inline void vdot4(const double* x0, const double* x1, const double* x2, const double* x3,
                  const double* y, uword n, double* out) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::vdot4_avx2(x0, x1, x2, x3, y, n, out);
#endif
  kern::vdot4_base(x0, x1, x2, x3, y, n, out);
}

inline void vaxpy4(const double* a, const double* x0, const double* x1, const double* x2,
                   const double* x3, double* y, uword n) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::vaxpy4_avx2(a, x0, x1, x2, x3, y, n);
#endif
  kern::vaxpy4_base(a, x0, x1, x2, x3, y, n);
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
// Returns min_j r_j.
inline double entry_ratios(const double* c, const double* g, const double* mask, double lam,
                           uword n, double* r) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::ratio_avx2(c, g, mask, lam, n, r);
#endif
  return kern::ratio_base(c, g, mask, lam, n, r);
}

inline uword screen(const double* c, const double* h, uword n, double G0, double A0, double G1,
                    double A1, uword* idx) {
#ifdef MO_L1_HAVE_AVX2
  if (kern::use_avx2()) return kern::screen_avx2(c, h, n, G0, A0, G1, A1, idx);
#endif
  return kern::screen_base(c, h, n, G0, A0, G1, A1, idx);
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
          vaxpy4(cend, pend[0], pend[1], pend[2], pend[3], out, D_);
          np = 0;
        }
      } else if (identity_) {
        out[j - N_] += coef[t];
      } else {
        vaxpy(coef[t], E_.colptr(j - N_), out, D_);
      }
    }
    for (int q = 0; q < np; ++q) vaxpy(cend[q], pend[q], out, D_);
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
  // (or 2) queries share every load; all b queries share one pass over the
  // dictionary. Every (sample, query) pair goes through the same arithmetic
  // (see kern::dot_block_base), so a query's correlations do not depend on
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
        if (three) dot_block<3, 4>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
        else dot_block<1, 4>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
      }
      for (; q + 2 <= b; q += 2) {
        if (three) dot_block<3, 2>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
        else dot_block<1, 2>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
      }
      for (; q < b; ++q) {
        if (three) dot_block<3, 1>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
        else dot_block<1, 1>(xj, V + q * D_, D_, out + q * ldo + j, ldo);
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
  r.gap = std::abs(obj - vdot(x, r.dual.memptr(), D));
  r.certified = r.dual_max <= 1.0 + 1e-8 && r.gap <= 1e-8 * std::max(obj, 1e-300) + 1e-14 &&
                res <= 1e-9 * std::max(1.0, xnorm);
}

// ---- Cholesky factor with updates -----------------------------------------
// Upper-triangular R with R^T R = S, kept while columns enter (append),
// leave (Givens rotations), and while S changes by a rank-one term
// (S + w w^T: update; S - w w^T: downdate; Golub & Van Loan 6.5.4, as in
// LINPACK dchud / dchdd).
class active_cholesky {
 public:
  explicit active_cholesky(uword cap)
      : R_(cap, cap, arma::fill::zeros), p_(cap), cs_(cap), sn_(cap), s_(0) {}
  uword size() const { return s_; }
  void clear() { s_ = 0; }

  // Append a column with inner products k (with the current columns) and
  // squared norm kk; `scale` is the squared norm the rank test is relative
  // to. Returns false when the column is (numerically) in the span of the
  // current ones.
  bool add(const double* k, double kk, double scale) {
    if (s_ >= R_.n_cols) return false;
    double* w = R_.colptr(s_);
    double ww = 0.0;
    for (uword i = 0; i < s_; ++i) {
      const double* Ri = R_.colptr(i);
      w[i] = (k[i] - vdot(Ri, w, i)) / Ri[i];
      ww += w[i] * w[i];
    }
    const double r2 = kk - ww;
    if (!(r2 > 1e-12 * scale) || !std::isfinite(r2)) return false;
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
    }
  }

  // S <- S + w w^T (always possible).
  void update(const double* w) {
    for (uword j = 0; j < s_; ++j) {
      double* Rj = R_.colptr(j);
      double xj = w[j];
      for (uword i = 0; i < j; ++i) {
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
    for (uword i = 0; i < s_; ++i) {  // R^T p = w
      const double* Ri = R_.colptr(i);
      p_[i] = (w[i] - vdot(Ri, p_.memptr(), i)) / Ri[i];
      nrm += p_[i] * p_[i];
    }
    const double r2 = 1.0 - nrm;
    if (!(r2 > 1e-12 * scale) || !std::isfinite(r2)) return false;
    double alpha = std::sqrt(r2);
    for (uword i = s_; i-- > 0;) {
      const double sc = alpha + std::abs(p_[i]);
      const double a = alpha / sc, b = p_[i] / sc;
      const double h = std::sqrt(a * a + b * b);
      cs_[i] = a / h;
      sn_[i] = b / h;
      alpha = sc * h;
    }
    for (uword j = 0; j < s_; ++j) {
      double* Rj = R_.colptr(j);
      double xx = 0.0;
      for (uword i = j + 1; i-- > 0;) {
        const double t = cs_[i] * xx + sn_[i] * Rj[i];
        Rj[i] = cs_[i] * Rj[i] - sn_[i] * xx;
        xx = t;
      }
    }
    return true;
  }

  // Solve R^T R z = rhs in place (size s).
  void solve(double* z) const {
    for (uword i = 0; i < s_; ++i) {  // R^T t = rhs
      const double* Ri = R_.colptr(i);
      z[i] = (z[i] - vdot(Ri, z, i)) / Ri[i];
    }
    for (uword jj = s_; jj-- > 0;) {  // R z = t, column-oriented
      const double* Rj = R_.colptr(jj);
      const double zj = z[jj] / Rj[jj];
      z[jj] = zj;
      vaxpy(-zj, Rj, z, jj);
    }
  }

 private:
  arma::mat R_;
  arma::vec p_, cs_, sn_;
  uword s_;
};

// ---- homotopy ----------------------------------------------------------------
// One query's Lasso path over B = [X^T I], written as a state machine so
// that several queries can be advanced in lockstep.
//
// The active set is split into training columns A (x_j, j in A) and
// coordinates I (identity columns e_l). With F the coordinates not in I, the
// system (B_act^T B_act) [d_A; d_I] = [s_A; s_I] reduces to
//     S d_A = s_A - X_A sigma,   S = X_A[, F] X_A[, F]^T,   d_I = s_I - (X_A^T d_A)_I,
// (sigma = s_I on I, 0 elsewhere), and the direction v = B_act d is
// u = X_A^T d_A on F and s_I on I. Only the Cholesky factor of S
// (|A| x |A|, about a third of the active set at the end of the path on face
// data) is kept: a coordinate entering or leaving I is a rank-one downdate
// or update of S, a training column entering or leaving is an append or a
// Givens removal.
//
// Correlations with safe screening. A step needs, for every inactive
// training column j, its correlation c_j = x_j^T r with the residual
// r = x - B a and g_j = x_j^T v, to find the step length gamma at which the
// next column enters. Computing them for all N columns costs N D per step.
// Instead, at a "checkpoint" (a full pass over the dictionary, shared by the
// queries advanced in lockstep) c_j(T) = x_j^T r_T and h_j = x_j^T v_T are
// stored. Later, with G = the sum of the steps since T, w = v - v_T and
// p = r - r_T + G v_T (so that r = r_T - G v_T + p),
//     c_j - t g_j = c_j(T) - (G + t) h_j + x_j^T (p - t w),
// and with n = max_j ||x_j|| column j cannot reach |c_j - t g_j| = lam - t
// for any t in [0, gamma] when
//     |c_j(T) - G h_j| < lam - n ||p||   and
//     |c_j(T) - (G + gamma) h_j| < lam - gamma - n ||p - gamma w||
// (lam - t - |c_j - t g_j| is bounded below by a concave function of t,
// whose minimum over the interval is at an end point). p and w stay small
// while the active set changes little (the direction moves by an
// orthogonal increment as a column enters), so few columns fail the test:
// only those are "tracked" (c_j and g_j computed exactly and kept up to
// date, D flops per column and step). gamma is first taken over the tracked
// columns, the coordinates and the drops; newly tracked columns can only
// make it smaller, which keeps every test valid. When many columns are
// tracked, the next step starts with a new checkpoint. Every decision is
// the one a full pass would make (the tests check this along whole paths
// with `check_screening`, and against `refresh = 0`, a full pass every
// step).
struct homotopy_options {
  int max_steps = 0;       // 0 = 50 * D + 100
  long refresh = -1;       // new checkpoint when more tracked columns than
                           // this (-1 = max(16, sqrt(N)); 0 = a full pass
                           // every step)
  bool check_screening = false;  // recompute every screened column (tests)
};

class homotopy_state {
 public:
  explicit homotopy_state(const dictionary& B)
      : B_(B), c_(B.M()), a_(B.M()), gbuf_(B.M()), dA_(B.D() + 1), rhs_(B.D() + 1), v_(B.D()),
        u_(B.D()), sigma_(B.D()), xF_(B.D()), kbuf_(B.D() + 1), r_(B.D()), p_(B.D()),
        vT_(B.D()), w_(B.D()), uc_(B.N()), uh_(B.N()), mask_(B.M()), cc_(B.M()), cg_(B.M()), cm_(B.M()), cr_(B.M()),
        active_(B.M()), blocked_(B.M()), uidx_(B.N()), cidx_(B.M()), chol_(B.D()) {
    trk_.reserve(B.N());
    fpos_.resize(B.N());
    A_.reserve(B.D() + 1);
    sA_.reserve(B.D() + 1);
    I_.reserve(B.D() + 1);
    double m = 0.0;
    for (uword j = 0; j < B.N(); ++j) m = std::max(m, B.sqnorm(j));
    nmax_ = std::sqrt(m) * (1.0 + 1e-12);
  }

  // Start query `id` with vector x (D).
  void start(uword id, const double* x, const homotopy_options& opt) {
    id_ = id;
    x_ = x;
    max_steps_ = opt.max_steps > 0 ? opt.max_steps : int(50 * B_.D() + 100);
    // a pass costs 2 N D, a tracked column D per step, and the tracked set
    // grows roughly linearly between checkpoints: the best limit grows like
    // sqrt(N) (36 at N = 1241; 30-50 measured equally good there)
    refresh_ = opt.refresh < 0 ? std::max(16L, long(std::ceil(std::sqrt(double(B_.N())))))
                               : opt.refresh;
    check_ = opt.check_screening;
    out = code_result();
    out.dual.zeros(B_.D());
    A_.clear();
    sA_.clear();
    I_.clear();
    sigma_.zeros();
    chol_.clear();
    std::fill(active_.begin(), active_.end(), 0);
    std::fill(blocked_.begin(), blocked_.end(), 0);
    blocked_list_.clear();
    mask_.zeros();
    a_.zeros();
    last_dropped_ = -1;
    last_sign_ = 0.0;
    phase_ = 0;
    status = 0;
    need_pass_ = true;
    std::copy(x, x + B_.D(), r_.begin());
    v_.zeros();
  }

  uword id() const { return id_; }
  // The two D-vectors whose training correlations are needed before the
  // query can go on: the residual r and the direction v.
  const double* request_r() const { return r_.memptr(); }
  const double* request_v() const { return v_.memptr(); }

  // cN = X r, hN = X v for the vectors requested. Runs steps until the next
  // checkpoint is due or the path ends. Sets status to 1 (finished; `out`
  // holds the certified or uncertified code) or 2 (failed: the caller falls
  // back to ADMM).
  void receive(const double* cN, const double* hN) {
    const uword N = B_.N(), D = B_.D();
    ++out.passes;
    if (phase_ == 0) {
      std::copy(cN, cN + N, c_.begin());
      std::copy(x_, x_ + D, c_.memptr() + N);
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
      need_pass_ = true;  // the first checkpoint needs X v as well
      return;
    }
    checkpoint(cN, hN);
    while (true) {
      const int ev = step();
      if (ev < 0) { status = 2; return; }
      if (ev == 0) {
        status = finish() ? 1 : 2;
        return;
      }
      if (out.steps >= max_steps_) { status = 2; return; }
      direction();
      if (need_pass_) return;
    }
  }

  code_result out;
  int status = 0;

 private:
  uword n_active() const { return A_.size() + I_.size(); }

  // New checkpoint at the current residual and direction (cN = X r,
  // hN = X v): every inactive training column goes to the untracked set U
  // with c_j(T), h_j; active ones are tracked.
  void checkpoint(const double* cN, const double* hN) {
    const uword N = B_.N();
    nU_ = 0;
    trk_.clear();
    for (uword j = 0; j < N; ++j) {
      if (active_[j]) {
        trk_.push_back(j);
      } else {
        c_[j] = cN[j];
        uidx_[nU_] = j;
        uc_[nU_] = cN[j];
        uh_[nU_] = hN[j];
        ++nU_;
      }
    }
    vT_ = v_;
    p_.zeros();
    Gsum_ = 0.0;
    fresh_ = true;
    need_pass_ = false;
  }

  // w_t = x_{A_t, l} (the coordinate l of the active training columns)
  void gather_coordinate(uword l) {
    const double* Xt = B_.Xt().memptr();
    const uword D = B_.D();
    for (uword t = 0; t < A_.size(); ++t) kbuf_[t] = Xt[A_[t] * D + l];
  }

  bool try_add(uword j, double s) {
    const uword N = B_.N(), D = B_.D();
    const double* Xt = B_.Xt().memptr();
    if (j < N) {
      // k_t = x_{A_t}[F] . x_j[F], kk = ||x_j[F]||^2
      const double* xj = Xt + j * D;
      for (uword l = 0; l < D; ++l) xF_[l] = sigma_[l] != 0.0 ? 0.0 : xj[l];
      const uword na = A_.size();
      uword t = 0;
      for (; t + 4 <= na; t += 4)
        vdot4(Xt + A_[t] * D, Xt + A_[t + 1] * D, Xt + A_[t + 2] * D, Xt + A_[t + 3] * D,
              xF_.memptr(), D, kbuf_.memptr() + t);
      for (; t < na; ++t) kbuf_[t] = vdot(Xt + A_[t] * D, xF_.memptr(), D);
      double kk;
      dot_block<1, 1>(xF_.memptr(), xF_.memptr(), D, &kk, 1);
      if (!chol_.add(kbuf_.memptr(), kk, B_.sqnorm(j))) return false;
      A_.push_back(j);
      sA_.push_back(s);
      rhs_[na] = s - vdot(xj, sigma_.memptr(), D);
    } else {
      const uword l = j - N;
      gather_coordinate(l);
      if (!chol_.downdate(kbuf_.memptr(), 1.0)) return false;
      for (uword t = 0; t < A_.size(); ++t) rhs_[t] -= kbuf_[t] * s;
      I_.push_back(l);
      sigma_[l] = s;
    }
    active_[j] = 1;
    mask_[j] = std::numeric_limits<double>::infinity();
    return true;
  }

  // Remove training column at position p of A, or coordinate at position p of I.
  void drop_training(uword p) {
    chol_.remove(p);
    A_.erase(A_.begin() + p);
    sA_.erase(sA_.begin() + p);
    for (uword t = p; t < A_.size(); ++t) rhs_[t] = rhs_[t + 1];
  }
  void drop_coordinate(uword p) {
    const uword l = I_[p];
    gather_coordinate(l);
    chol_.update(kbuf_.memptr());
    for (uword t = 0; t < A_.size(); ++t) rhs_[t] += kbuf_[t] * sigma_[l];
    sigma_[l] = 0.0;
    I_[p] = I_.back();
    I_.pop_back();
  }

  // d_A = S^{-1} (s_A - X_A sigma), u = X_A^T d_A, v = u on F and s_I on I.
  void direction() {
    const uword na = A_.size(), D = B_.D();
    if (out.steps % 64 == 63) {  // re-form the right-hand side (drift)
      const double* Xt = B_.Xt().memptr();
      for (uword t = 0; t < na; ++t) rhs_[t] = sA_[t] - vdot(Xt + A_[t] * D, sigma_.memptr(), D);
    }
    std::copy(rhs_.memptr(), rhs_.memptr() + na, dA_.memptr());
    chol_.solve(dA_.memptr());
    B_.combine(A_, dA_.memptr(), u_.memptr());
    double* v = v_.memptr();
    std::copy(u_.memptr(), u_.memptr() + D, v);
    for (uword l : I_) v[l] = sigma_[l];
  }

  // Entry step of inactive column j (c_j, g_j in c_, gbuf_), with the rule
  // for the column dropped last (it may re-enter only with the other sign).
  double entry_step(uword j) const {
    const double c = c_[j], g = gbuf_[j];
    const double d1 = 1.0 - g, d2 = 1.0 + g;
    double best = std::numeric_limits<double>::infinity();
    const bool last = long(j) == last_dropped_;
    if (d1 > 0 && !(last && last_sign_ > 0)) best = std::max(lam_ - c, 0.0) / d1;
    if (d2 > 0 && !(last && last_sign_ < 0)) best = std::min(best, std::max(lam_ + c, 0.0) / d2);
    return best + mask_[j];
  }

  // Correlations g_j = x_j^T v of the training columns in idx[0 .. n-1]
  // (into gbuf_), and c_j = x_j^T r as well when with_c.
  void correlate_tracked(const uword* idx, uword n, bool with_c) {
    const uword D = B_.D();
    const double* Xt = B_.Xt().memptr();
    double o[4];
    uword t = 0;
    for (; t + 4 <= n; t += 4) {
      const double* p0 = Xt + idx[t] * D;
      const double* p1 = Xt + idx[t + 1] * D;
      const double* p2 = Xt + idx[t + 2] * D;
      const double* p3 = Xt + idx[t + 3] * D;
      vdot4(p0, p1, p2, p3, v_.memptr(), D, o);
      for (int q = 0; q < 4; ++q) gbuf_[idx[t + q]] = o[q];
      if (with_c) {
        vdot4(p0, p1, p2, p3, r_.memptr(), D, o);
        for (int q = 0; q < 4; ++q) c_[idx[t + q]] = o[q];
      }
    }
    for (; t < n; ++t) {
      const double* p = Xt + idx[t] * D;
      gbuf_[idx[t]] = vdot(p, v_.memptr(), D);
      if (with_c) c_[idx[t]] = vdot(p, r_.memptr(), D);
    }
  }

  // One homotopy step. Returns 0 when lam reached 0, 1 after an add or drop
  // event, -1 on failure.
  int step() {
    const uword N = B_.N(), D = B_.D();
    const double inf = std::numeric_limits<double>::infinity();
    ++out.steps;
    const uword nA = A_.size(), nI = I_.size();
    const bool can_add = nA + nI < D;
    // refresh = 0: a full pass every step, all columns tracked (the
    // reference the screening is tested against)
    const bool track_all = refresh_ == 0;
    if (track_all && !fresh_) correlate_all_c();
    // 1. the tracked inactive training columns and all coordinates
    uword nc = 0;
    for (uword j : trk_)
      if (!active_[j]) cidx_[nc++] = j;
    correlate_tracked(cidx_.memptr(), nc, false);
    std::copy(v_.memptr(), v_.memptr() + D, gbuf_.memptr() + N);
    for (uword l = 0; l < D; ++l) cidx_[nc++] = N + l;
    double gadd = inf;
    if (can_add) {
      for (uword k = 0; k < nc; ++k) {
        const uword j = cidx_[k];
        cc_[k] = c_[j];
        cg_[k] = gbuf_[j];
        cm_[k] = mask_[j];
      }
      gadd = entry_ratios(cc_.memptr(), cg_.memptr(), cm_.memptr(), lam_, nc, cr_.memptr());
      if (last_dropped_ >= 0) {
        for (uword k = 0; k < nc; ++k) {
          if (long(cidx_[k]) != last_dropped_) continue;
          const double old = cr_[k];
          cr_[k] = entry_step(cidx_[k]);
          if (cr_[k] < gadd) {
            gadd = cr_[k];
          } else if (old == gadd && cr_[k] != old) {
            gadd = inf;
            for (uword kk = 0; kk < nc; ++kk) gadd = std::min(gadd, cr_[kk]);
          }
          break;
        }
      }
    }
    // 2. drops: training columns (direction dA), coordinates (d_l = s_l - u_l)
    double gdrop = inf;
    long pdrop = -1;
    bool drop_coord = false;
    for (uword t = 0; t < nA; ++t) {
      const double dt = dA_[t];
      if (dt == 0.0) continue;
      const double gam = -a_[A_[t]] / dt;
      if (gam > 0 && gam < gdrop) { gdrop = gam; pdrop = long(t); }
    }
    for (uword p = 0; p < nI; ++p) {
      const uword l = I_[p];
      const double dl = sigma_[l] - u_[l];
      if (dl == 0.0) continue;
      const double gam = -a_[N + l] / dl;
      if (gam > 0 && gam < gdrop) { gdrop = gam; pdrop = long(p); drop_coord = true; }
    }
    // 3. track the untracked columns that cannot be excluded: candidates
    // from the step found so far (an upper bound of the final one), taken
    // by decreasing key until the next key passes the test for the current
    // step (the rest then pass it too)
    double gam = std::min(std::min(gadd, gdrop), lam_);
    if ((can_add || track_all) && nU_ > 0) {
      double* w = w_.memptr();
      const double* v = v_.memptr();
      const double* vT = vT_.memptr();
      for (uword l = 0; l < D; ++l) w[l] = v[l] - vT[l];
      const double pp = vdot(p_.memptr(), p_.memptr(), D);
      const double pw = vdot(p_.memptr(), w, D);
      const double ww = vdot(w, w, D);
      const double margin = 1e-9 * lam0_;
      const double t0 = gam;
      const double e2 = std::max(pp - 2.0 * t0 * pw + t0 * t0 * ww, 0.0);
      const double A0 = track_all ? -inf : lam_ - nmax_ * std::sqrt(pp) - margin;
      const double A1 = track_all ? -inf : lam_ - t0 - nmax_ * std::sqrt(e2) - margin;
      // one scan: every column failing the test for the current step is
      // tracked (a smaller final step only makes the test easier to pass)
      uword nnew = 0, fresh_idx[4];
      auto flush = [&]() {
        if (!fresh_) correlate_tracked(fresh_idx, nnew, true);
        for (uword t = 0; t < nnew; ++t) {
          const uword j = fresh_idx[t];
          trk_.push_back(j);
          cidx_[nc] = j;
          cr_[nc] = can_add ? entry_step(j) : inf;
          if (cr_[nc] < gadd) gadd = cr_[nc];
          ++nc;
        }
        nnew = 0;
      };
      const uword nf = screen(uc_.memptr(), uh_.memptr(), nU_, Gsum_, A0, Gsum_ + t0, A1,
                              fpos_.data());
      // failing positions in decreasing order: each leaves U by a swap with
      // the last entry (which is not a later failure)
      uword keep = nU_;
      for (uword q = nf; q-- > 0;) {
        const uword k = fpos_[q];
        const uword j = uidx_[k];
        if (fresh_) {  // c and g from the checkpoint pass are exact
          c_[j] = uc_[k];
          gbuf_[j] = uh_[k];
        }
        fresh_idx[nnew++] = j;
        if (nnew == 4) flush();
        --keep;
        uidx_[k] = uidx_[keep];
        uc_[k] = uc_[keep];
        uh_[k] = uh_[keep];
      }
      flush();
      nU_ = keep;
      gam = std::min(std::min(gadd, gdrop), lam_);
    }
    out.tracked += double(nc - D);
    if (check_) check_screening(nc, gam);
    int event = 0;  // 0: reach lam = 0, 1: add, 2: drop
    gam = lam_;
    if (gadd < gam) { gam = gadd; event = 1; }
    if (gdrop < gam) { gam = gdrop; event = 2; }
    if (!std::isfinite(gam)) return -1;
    long jadd = -1;
    double sadd = 0.0;
    if (event == 1) {
      // the first minimiser (ties: the lower index, the + sign first)
      for (uword k = 0; k < nc; ++k)
        if (cr_[k] == gadd && (jadd < 0 || cidx_[k] < uword(jadd))) jadd = long(cidx_[k]);
      const uword j = uword(jadd);
      const double d1 = 1.0 - gbuf_[j];
      const bool plus_ok = d1 > 0 && !(long(j) == last_dropped_ && last_sign_ > 0);
      sadd = (plus_ok && std::max(lam_ - c_[j], 0.0) / d1 == gadd) ? 1.0 : -1.0;
    }
    // 4. move along the path
    for (uword t = 0; t < nA; ++t) a_[A_[t]] += gam * dA_[t];
    for (uword l : I_) a_[N + l] += gam * (sigma_[l] - u_[l]);
    for (uword k = 0; k < nc; ++k) {
      const uword j = cidx_[k];
      c_[j] -= gam * gbuf_[j];
    }
    vaxpy(-gam, v_.memptr(), r_.memptr(), D);
    {  // p <- p - gam (v - v_T)
      double* pv = p_.memptr();
      const double* v = v_.memptr();
      const double* vT = vT_.memptr();
      for (uword l = 0; l < D; ++l) pv[l] -= gam * (v[l] - vT[l]);
    }
    Gsum_ += gam;
    fresh_ = false;
    lam_ -= gam;
    for (uword t = 0; t < nA; ++t) c_[A_[t]] = lam_ * sA_[t];
    for (uword l : I_) c_[N + l] = lam_ * sigma_[l];
    if (event == 0 || lam_ <= 1e-14 * lam0_) return 0;
    if (event == 2) {
      uword j;
      if (drop_coord) {
        j = N + I_[pdrop];
        last_sign_ = sigma_[I_[pdrop]];
        drop_coordinate(uword(pdrop));
      } else {
        j = A_[pdrop];
        last_sign_ = sA_[pdrop];
        drop_training(uword(pdrop));
      }
      a_[j] = 0.0;
      last_dropped_ = long(j);
      active_[j] = 0;
      // unblock every column
      for (uword i : blocked_list_) { blocked_[i] = 0; mask_[i] = 0.0; }
      blocked_list_.clear();
      mask_[j] = 0.0;
      ++out.drops;
    } else {
      last_dropped_ = -1;
      if (!try_add(uword(jadd), sadd)) {
        blocked_[jadd] = 1;
        blocked_list_.push_back(uword(jadd));
        mask_[jadd] = inf;
      }
    }
    // the next step starts with a checkpoint when tracking costs too much
    need_pass_ = refresh_ > 0 && long(nc - D) > refresh_;
    return 1;
  }

  // refresh = 0: exact correlations of every inactive column (a full pass
  // every step; the reference the screening is tested against)
  void correlate_all_c() {
    const uword N = B_.N(), D = B_.D();
    kwork_.set_size(2 * D);
    std::copy(r_.memptr(), r_.memptr() + D, kwork_.memptr());
    std::copy(v_.memptr(), v_.memptr() + D, kwork_.memptr() + D);
    gwork_.set_size(2 * N);
    B_.correlate_block(kwork_.memptr(), 2, gwork_.memptr(), N);
    checkpoint(gwork_.memptr(), gwork_.memptr() + N);
    ++out.passes;
  }

  // Tests: every untracked inactive training column must have an entry step
  // larger than gamma. Counts violations in out.screen_violations.
  void check_screening(uword nc, double gam) {
    const uword N = B_.N(), D = B_.D();
    if (n_active() >= D) return;
    std::vector<char> seen(N, 0);
    for (uword k = 0; k < nc; ++k)
      if (cidx_[k] < N) seen[cidx_[k]] = 1;
    const double* Xt = B_.Xt().memptr();
    for (uword j = 0; j < N; ++j) {
      if (seen[j] || active_[j] || blocked_[j]) continue;
      const double c = vdot(Xt + j * D, r_.memptr(), D), g = vdot(Xt + j * D, v_.memptr(), D);
      double best = std::numeric_limits<double>::infinity();
      if (1.0 - g > 0) best = std::max(lam_ - c, 0.0) / (1.0 - g);
      if (1.0 + g > 0) best = std::min(best, std::max(lam_ + c, 0.0) / (1.0 + g));
      if (!(best > gam)) ++out.screen_violations;
    }
  }

  // End point: least-squares solve of B_act a = x on the final active set
  // (exact for |A| + |I| = D) with two refinement steps: S a_A = X_A[, F]
  // x[F], a_I = (x - X_A^T a_A)_I. Dual y = the direction of the last
  // segment. Then certify.
  bool finish() {
    const uword N = B_.N(), D = B_.D();
    const uword na = A_.size();
    if (n_active() == 0) return false;
    const double* Xt = B_.Xt().memptr();
    arma::vec aa(na, arma::fill::zeros), rhs(na), r(D);
    std::copy(x_, x_ + D, r.memptr());
    for (int it = 0; it < 3; ++it) {  // r = residual on F
      for (uword l : I_) r[l] = 0.0;
      for (uword t = 0; t < na; ++t) rhs[t] = vdot(Xt + A_[t] * D, r.memptr(), D);
      chol_.solve(rhs.memptr());
      aa += rhs;
      B_.combine(A_, aa.memptr(), u_.memptr());
      for (uword l = 0; l < D; ++l) r[l] = x_[l] - u_[l];
    }
    // r = x - X_A^T a_A: its I-part is a_I
    out.support.clear();
    out.values.clear();
    for (uword t = 0; t < na; ++t) {
      if (aa[t] == 0.0) continue;
      out.support.push_back(A_[t]);
      out.values.push_back(aa[t]);
    }
    std::vector<uword> Is(I_);
    std::sort(Is.begin(), Is.end());
    for (uword l : Is) {
      if (r[l] == 0.0) continue;
      out.support.push_back(N + l);
      out.values.push_back(r[l]);
    }
    direction();
    std::copy(v_.memptr(), v_.memptr() + D, out.dual.memptr());
    certify(B_, x_, out, gwork_);
    return out.certified;
  }

  const dictionary& B_;
  arma::vec c_, a_, gbuf_, dA_, rhs_, v_, u_, sigma_, xF_, kbuf_, r_, p_, vT_, w_, uc_, uh_;
  arma::vec gwork_, kwork_;
  arma::vec mask_;             // +inf for active or blocked columns
  arma::vec cc_, cg_, cm_, cr_;  // compact c, g, mask, entry steps of the candidates
  std::vector<char> active_, blocked_;
  std::vector<uword> uidx_;    // untracked columns U (c_j(T), h_j in uc_, uh_)
  std::vector<uword> trk_;     // tracked training columns (active ones included)
  std::vector<uword> fpos_;    // positions in U failing the screening test
  arma::uvec cidx_;            // candidate columns (compact order)
  std::vector<uword> blocked_list_;  // columns refused by the factor since the last drop
  std::vector<uword> A_, I_;   // active training columns (Cholesky order), coordinates
  std::vector<double> sA_;     // signs of the active training columns
  active_cholesky chol_;
  uword id_ = 0, nU_ = 0;
  const double* x_ = nullptr;
  int max_steps_ = 0, phase_ = 0;
  long refresh_ = 0;
  bool check_ = false, fresh_ = false, need_pass_ = false;
  double lam_ = 0.0, lam0_ = 0.0, last_sign_ = 0.0, nmax_ = 1.0, Gsum_ = 0.0;
  long last_dropped_ = -1;
};

// Run the homotopy for the queries `ids` (columns of Qt, D x m) with `width`
// of them in lockstep: each round computes the checkpoint correlations
// (X r and X v) of every live query in one pass over the dictionary. Finished queries go to
// sink(); failed ones to `failed`.
inline void homotopy_lockstep(const dictionary& B, const arma::mat& Qt,
                              const std::vector<uword>& ids, uword width,
                              const homotopy_options& hopt,
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
      slots[s].start(ids[next], Qt.colptr(ids[next]), hopt);
      live[s] = 1;
      ++next;
    }
  }
  arma::mat V(D, 2 * width, arma::fill::zeros), G(N, 2 * width);
  std::vector<uword> col(width);
  // a round takes from well under a millisecond (one query) to tens of
  // them, and a poll from R (R_CheckUserInterrupt inside a top-level
  // context and an R-level tryCatch) tens of microseconds: poll when 20 ms
  // have passed since the last poll
  auto last_poll = std::chrono::steady_clock::now();
  while (true) {
    // live requests packed into the first columns
    uword nl = 0;
    for (uword s = 0; s < width; ++s) {
      if (!live[s]) continue;
      std::copy(slots[s].request_r(), slots[s].request_r() + D, V.colptr(2 * nl));
      std::copy(slots[s].request_v(), slots[s].request_v() + D, V.colptr(2 * nl + 1));
      col[s] = nl++;
    }
    if (nl == 0) break;
    if (flag.stopped()) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_poll >= std::chrono::milliseconds(20)) {
      last_poll = now;
      if (flag.poll(0)) return;
    }
    B.correlate_block(V.memptr(), 2 * nl, G.memptr(), N);
    for (uword s = 0; s < width; ++s) {
      if (!live[s]) continue;
      homotopy_state& st = slots[s];
      st.receive(G.colptr(2 * col[s]), G.colptr(2 * col[s] + 1));
      if (st.status == 0) continue;
      if (st.status == 1 && st.out.certified) {
        sink(st.id(), st.out);
      } else {
        failed.push_back(st.id());
      }
      live[s] = 0;
      if (next < ids.size()) {
        st.start(ids[next], Qt.colptr(ids[next]), hopt);
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
  long refresh = -1;        // homotopy checkpoints (see homotopy_options)
  bool check_screening = false;
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

  // The homotopy works on [X^T I]. A square invertible error basis E is
  // brought to that form by x -> E^{-1} x (the same codes; the dual is
  // y = E^{-T} y', certified again against the original dictionary); any
  // other error basis goes to ADMM (flagged as a fallback).
  const dictionary* Bh = &B;
  const arma::mat* Qh = &Qt;
  std::unique_ptr<dictionary> Bh_own;
  arma::mat Xh, Qht, Einv;
  bool homotopy_ok = opt.solver == solver_type::homotopy;
  if (homotopy_ok && !B.identity()) {
    homotopy_ok = E.n_cols == D && arma::rcond(E) > 1e-10 && arma::inv(Einv, E);
    if (homotopy_ok) {
      Xh = X * Einv.t();
      Qht = Einv * Qt;
      Bh_own.reset(new dictionary(Xh));
      Bh = Bh_own.get();
      Qh = &Qht;
    }
  }
  auto hsink = [&](uword i, code_result& r) {
    if (Bh != &B) {
      r.dual = Einv.t() * r.dual;
      arma::vec gw;
      certify(B, Qt.colptr(i), r, gw);
    }
    sink(i, r);
  };

  if (homotopy_ok) {
    homotopy_options hopt;
    hopt.max_steps = opt.max_steps > 0 ? opt.max_steps : int(50 * D + 100);
    hopt.refresh = opt.refresh;
    hopt.check_screening = opt.check_screening;
    // (homotopy_lockstep polls at most every 20 ms)
    interrupt_flag flag(1);
    std::vector<std::vector<uword>> fails(nt);
    bool crashed = false;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
      int tid = 0;
#ifdef _OPENMP
      tid = omp_get_thread_num();
#endif
      std::vector<uword> mine;
      for (uword i = uword(tid); i < m; i += uword(nt)) mine.push_back(i);
      try {
        homotopy_lockstep(*Bh, *Qh, mine, opt.width, hopt, hsink, fails[tid], flag);
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
    if (opt.solver == solver_type::homotopy) std::fill(fb.begin(), fb.end(), 1);
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
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
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
