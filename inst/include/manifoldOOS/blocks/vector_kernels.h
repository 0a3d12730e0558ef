// SIMD vector kernels: dot products (one, four, or an R x C block of them),
// axpy updates, and the two loops of the l1 homotopy's step (entry ratios and
// the screening test). On x86-64 with GCC or clang every kernel is compiled
// twice (baseline and AVX2/FMA) and the AVX2 version is used when the CPU
// supports it (checked once). Each result is computed by the same sequence
// of operations whatever the batch it is part of; the two versions may differ
// in rounding (FMA), the same on every call on one machine.
#ifndef MANIFOLDOOS_BLOCKS_VECTOR_KERNELS_H
#define MANIFOLDOOS_BLOCKS_VECTOR_KERNELS_H

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <limits>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(MO_NO_AVX2_KERNELS)
#include <immintrin.h>
#endif

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {
namespace simd {

using arma::uword;

// On x86-64 with GCC or clang the hot loops are compiled twice (baseline and
// AVX2/FMA); the AVX2 version is used when the CPU supports it (checked once).
#define MO_SIMD_VDOT_BODY                                        \
  double s = 0.0;                                              \
  _Pragma("omp simd reduction(+ : s)")                         \
  for (uword i = 0; i < n; ++i) s += a[i] * b[i];              \
  return s;
// y += a0 x0 + a1 x1 + a2 x2 + a3 x3 (y read and written once)
#define MO_SIMD_VAXPY4_BODY                                                         \
  _Pragma("omp simd")                                                             \
  for (uword i = 0; i < n; ++i) y[i] += (a[0] * x0[i] + a[1] * x1[i]) + (a[2] * x2[i] + a[3] * x3[i]);
// out[q] = <xq, y> for four vectors (y read once)
#define MO_SIMD_VDOT4_BODY                                       \
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;               \
  _Pragma("omp simd reduction(+ : s0, s1, s2, s3)")            \
  for (uword i = 0; i < n; ++i) {                              \
    s0 += x0[i] * y[i];                                        \
    s1 += x1[i] * y[i];                                        \
    s2 += x2[i] * y[i];                                        \
    s3 += x3[i] * y[i];                                        \
  }                                                            \
  out[0] = s0; out[1] = s1; out[2] = s2; out[3] = s3;
#define MO_SIMD_VAXPY_BODY                                       \
  _Pragma("omp simd")                                          \
  for (uword i = 0; i < n; ++i) y[i] += alpha * x[i];
// (one entry; the division happens whatever the sign of the denominator
// and is then discarded, so that the loop has no branch)
#define MO_SIMD_RATIO_ONE(j)                                                      \
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
inline double vdot_base(const double* a, const double* b, uword n) { MO_SIMD_VDOT_BODY }
inline void vaxpy_base(double alpha, const double* x, double* y, uword n) { MO_SIMD_VAXPY_BODY }
inline void vdot4_base(const double* x0, const double* x1, const double* x2, const double* x3,
                       const double* y, uword n, double* out) { MO_SIMD_VDOT4_BODY }
inline void vaxpy4_base(const double* a, const double* x0, const double* x1, const double* x2,
                        const double* x3, double* y, uword n) { MO_SIMD_VAXPY4_BODY }
inline double ratio_base(const double* c, const double* g, const double* mask, double lam, uword n,
                         double* r) {
  const double inf = std::numeric_limits<double>::infinity();
  double best = inf;
  for (uword j = 0; j < n; ++j) MO_SIMD_RATIO_ONE(j)
  return best;
}

// Screening test of the homotopy: writes the positions k < n that fail
// |c_k - G0 h_k| < A0 and |c_k - G1 h_k| < A1 (NaN fails) to idx; returns
// their number.
#define MO_SIMD_SCAN_ONE(k)                                                             \
  if (!(std::abs(c[k] - G0 * h[k]) < A0) || !(std::abs(c[k] - G1 * h[k]) < A1)) idx[m++] = k;
inline uword screen_base(const double* c, const double* h, uword n, double G0, double A0,
                         double G1, double A1, uword* idx) {
  uword m = 0;
  for (uword k = 0; k < n; ++k) MO_SIMD_SCAN_ONE(k)
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
#define MO_SIMD_HAVE_AVX2 1
__attribute__((target("avx2,fma"))) inline double vdot_avx2(const double* a, const double* b,
                                                            uword n) { MO_SIMD_VDOT_BODY }
__attribute__((target("avx2,fma"))) inline void vaxpy_avx2(double alpha, const double* x,
                                                           double* y, uword n) { MO_SIMD_VAXPY_BODY }
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
                                                            uword n) { MO_SIMD_VAXPY4_BODY }
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
  for (uword j = n4; j < n; ++j) MO_SIMD_RATIO_ONE(j)
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
  for (uword k = n4; k < n; ++k) MO_SIMD_SCAN_ONE(k)
  return m;
}
// (the small loops over R and C are unrolled so that the R x C accumulators
// stay in registers)
#if defined(__clang__)
#define MO_SIMD_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define MO_SIMD_UNROLL _Pragma("GCC unroll 4")
#else
#define MO_SIMD_UNROLL
#endif
template <int R, int C>
__attribute__((target("avx2,fma"))) inline void dot_block_avx2(const double* X, const double* V,
                                                               uword D, double* out, uword ldo) {
  __m256d acc[R][C];
  MO_SIMD_UNROLL
  for (int r = 0; r < R; ++r) {
    MO_SIMD_UNROLL
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_pd();
  }
  const uword D4 = D / 4 * 4;
  for (uword i = 0; i < D4; i += 4) {
    __m256d xr[R];
    MO_SIMD_UNROLL
    for (int r = 0; r < R; ++r) xr[r] = _mm256_loadu_pd(X + r * D + i);
    MO_SIMD_UNROLL
    for (int c = 0; c < C; ++c) {
      const __m256d vc = _mm256_loadu_pd(V + c * D + i);
      MO_SIMD_UNROLL
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
#ifdef MO_SIMD_HAVE_AVX2
  if (kern::use_avx2()) return kern::vdot_avx2(a, b, n);
#endif
  return kern::vdot_base(a, b, n);
}

inline void vdot4(const double* x0, const double* x1, const double* x2, const double* x3,
                  const double* y, uword n, double* out) {
#ifdef MO_SIMD_HAVE_AVX2
  if (kern::use_avx2()) return kern::vdot4_avx2(x0, x1, x2, x3, y, n, out);
#endif
  kern::vdot4_base(x0, x1, x2, x3, y, n, out);
}

inline void vaxpy4(const double* a, const double* x0, const double* x1, const double* x2,
                   const double* x3, double* y, uword n) {
#ifdef MO_SIMD_HAVE_AVX2
  if (kern::use_avx2()) return kern::vaxpy4_avx2(a, x0, x1, x2, x3, y, n);
#endif
  kern::vaxpy4_base(a, x0, x1, x2, x3, y, n);
}

inline void vaxpy(double alpha, const double* x, double* y, uword n) {
#ifdef MO_SIMD_HAVE_AVX2
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
#ifdef MO_SIMD_HAVE_AVX2
  if (kern::use_avx2()) return kern::ratio_avx2(c, g, mask, lam, n, r);
#endif
  return kern::ratio_base(c, g, mask, lam, n, r);
}

inline uword screen(const double* c, const double* h, uword n, double G0, double A0, double G1,
                    double A1, uword* idx) {
#ifdef MO_SIMD_HAVE_AVX2
  if (kern::use_avx2()) return kern::screen_avx2(c, h, n, G0, A0, G1, A1, idx);
#endif
  return kern::screen_base(c, h, n, G0, A0, G1, A1, idx);
}

template <int R, int C>
inline void dot_block(const double* X, const double* V, uword D, double* out, uword ldo) {
#ifdef MO_SIMD_HAVE_AVX2
  if (kern::use_avx2()) return kern::dot_block_avx2<R, C>(X, V, D, out, ldo);
#endif
  kern::dot_block_base<R, C>(X, V, D, out, ldo);
}

}  // namespace simd
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_BLOCKS_VECTOR_KERNELS_H
