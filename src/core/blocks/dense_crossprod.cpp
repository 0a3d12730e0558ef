// Dense products of tall blocks: the blocked cross-product A' A and the
// panel products A' B and A C (see inst/include/manifoldOOS/blocks/dense_crossprod.h).
#include <manifoldOOS/blocks/dense_crossprod.h>

#include <manifoldOOS/core/common.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#ifdef MO_HAVE_AVX2_KERNELS
#include <immintrin.h>
#endif

namespace manifoldOOS {

namespace {

constexpr long kc_max = 128;  // rows per block (a packed strip: 8 KB)

// out (8 x 4, column-major) = a' b over kc packed rows: a is a strip of 8
// columns (row k at a[8 k .. 8 k + 7]), b points at 4 columns of a strip
// (row k at b[8 k .. 8 k + 3]).
void tile_portable(const double* a, const double* b, long kc, double* out) {
  double acc[32] = {0.0};
  for (long k = 0; k < kc; ++k) {
    const double* ak = a + 8 * k;
    const double* bk = b + 8 * k;
    for (int j = 0; j < 4; ++j) {
      const double bj = bk[j];
      for (int i = 0; i < 8; ++i) acc[8 * j + i] += ak[i] * bj;
    }
  }
  std::copy(acc, acc + 32, out);
}

#ifdef MO_HAVE_AVX2_KERNELS
__attribute__((target("avx2,fma"))) void tile_avx2(const double* a, const double* b, long kc, double* out) {
  __m256d c00 = _mm256_setzero_pd(), c10 = _mm256_setzero_pd();
  __m256d c01 = _mm256_setzero_pd(), c11 = _mm256_setzero_pd();
  __m256d c02 = _mm256_setzero_pd(), c12 = _mm256_setzero_pd();
  __m256d c03 = _mm256_setzero_pd(), c13 = _mm256_setzero_pd();
  for (long k = 0; k < kc; ++k) {
    const __m256d a0 = _mm256_load_pd(a + 8 * k);
    const __m256d a1 = _mm256_load_pd(a + 8 * k + 4);
    const double* bk = b + 8 * k;
    __m256d bj = _mm256_broadcast_sd(bk);
    c00 = _mm256_fmadd_pd(a0, bj, c00);
    c10 = _mm256_fmadd_pd(a1, bj, c10);
    bj = _mm256_broadcast_sd(bk + 1);
    c01 = _mm256_fmadd_pd(a0, bj, c01);
    c11 = _mm256_fmadd_pd(a1, bj, c11);
    bj = _mm256_broadcast_sd(bk + 2);
    c02 = _mm256_fmadd_pd(a0, bj, c02);
    c12 = _mm256_fmadd_pd(a1, bj, c12);
    bj = _mm256_broadcast_sd(bk + 3);
    c03 = _mm256_fmadd_pd(a0, bj, c03);
    c13 = _mm256_fmadd_pd(a1, bj, c13);
  }
  _mm256_storeu_pd(out, c00);
  _mm256_storeu_pd(out + 4, c10);
  _mm256_storeu_pd(out + 8, c01);
  _mm256_storeu_pd(out + 12, c11);
  _mm256_storeu_pd(out + 16, c02);
  _mm256_storeu_pd(out + 20, c12);
  _mm256_storeu_pd(out + 24, c03);
  _mm256_storeu_pd(out + 28, c13);
}
#endif

// 32-byte aligned storage for the packed strips
struct aligned_buffer {
  std::vector<double> raw;
  double* ptr = nullptr;
  explicit aligned_buffer(std::size_t n) : raw(n + 4) {
    std::uintptr_t p = reinterpret_cast<std::uintptr_t>(raw.data());
    ptr = reinterpret_cast<double*>((p + 31) & ~std::uintptr_t(31));
  }
};

}  // namespace

void crossprod_lower_acc(const double* A, long lda, long nrow, long p, double* C, long ldc, int n_threads) {
  if (nrow <= 0 || p <= 0) return;
  const long ns = (p + 7) / 8;  // strips of 8 columns (the last one zero-padded)
  aligned_buffer pack(std::size_t(ns) * 8 * kc_max);
  double* P = pack.ptr;
#ifdef MO_HAVE_AVX2_KERNELS
  const bool avx2 = cpu_has_avx2_fma();
#endif
  interrupt_flag flag(1);
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
  {
    double tile[32];
    for (long k0 = 0; k0 < nrow; k0 += kc_max) {
      const long kc = std::min(kc_max, nrow - k0);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
      for (long s = 0; s < ns; ++s) {
        double* ps = P + s * 8 * kc_max;
        for (int i = 0; i < 8; ++i) {
          const long col = s * 8 + i;
          if (col < p) {
            const double* src = A + col * lda + k0;
            for (long k = 0; k < kc; ++k) ps[8 * k + i] = src[k];
          } else {
            for (long k = 0; k < kc; ++k) ps[8 * k + i] = 0.0;
          }
        }
      }
      // (implicit barrier: every strip is packed)
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
      for (long s = ns - 1; s >= 0; --s) {
        if (flag.stopped()) continue;
        const double* a = P + s * 8 * kc_max;
        // column tiles of 4 that meet the lower triangle of rows 8s .. 8s + 7
        for (long t = 0; t <= 2 * s + 1; ++t) {
          const long j0 = 4 * t;
          if (j0 >= p) break;
          const double* b = P + (j0 / 8) * 8 * kc_max + (j0 % 8);
#ifdef MO_HAVE_AVX2_KERNELS
          if (avx2) tile_avx2(a, b, kc, tile);
          else tile_portable(a, b, kc, tile);
#else
          tile_portable(a, b, kc, tile);
#endif
          for (int j = 0; j < 4 && j0 + j < p; ++j) {
            double* cj = C + (j0 + j) * ldc;
            for (int i = 0; i < 8; ++i) {
              const long row = 8 * s + i;
              if (row < p && row >= j0 + j) cj[row] += tile[8 * j + i];
            }
          }
        }
      }
#ifdef _OPENMP
#pragma omp master
#endif
      flag.poll(0);  // the thread that may call into R (no barrier needed: the
                     // loop above ended with one)
    }
  }
  flag.rethrow_if_stopped();
}

arma::mat crossprod_cols(const arma::mat& A, arma::uword c0, arma::uword c1, int n_threads) {
  if (c1 < c0 || c1 > A.n_cols) throw error("internal: crossprod_cols columns out of range");
  const arma::uword p = c1 - c0;
  arma::mat C(p, p, arma::fill::zeros);
  if (p == 0) return C;
  crossprod_lower_acc(A.colptr(c0), long(A.n_rows), long(A.n_rows), long(p), C.memptr(), long(p), n_threads);
  for (arma::uword j = 0; j < p; ++j)
    for (arma::uword i = j + 1; i < p; ++i) C(j, i) = C(i, j);
  return C;
}

namespace {

constexpr arma::uword panel_rows = 8192;

// Runs body(b, r0, r1) on every row panel b = [r0, r1] of 0..n-1, threaded:
// one panel below 2 panel_rows rows, else fixed panels of panel_rows rows.
template <class Body>
void for_panels(arma::uword n, int n_threads, Body body) {
  if (n == 0) return;
  if (n < 2 * panel_rows) {
    body(0, 0, n - 1);
    return;
  }
  const arma::uword n_panels = (n + panel_rows - 1) / panel_rows;
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
#endif
  for (long b = 0; b < long(n_panels); ++b) {
    const arma::uword r0 = arma::uword(b) * panel_rows;
    body(arma::uword(b), r0, std::min(n, r0 + panel_rows) - 1);
  }
}

// The panel products below read the panel in place (no copies of its rows)
// and keep several independent sums in registers at once; each sum runs in
// the order stated in dense_crossprod.h.

// The PA x PB sums (PA <= 2, PB <= 4) of columns a, a + 1 of A and b .. b + 3
// of B over the rows r0 .. r0 + len - 1, each in its own register, into G.
template <int PA, int PB>
void tprod_tile(const arma::mat& A, const arma::mat& B, arma::uword a, arma::uword b, arma::uword r0,
                arma::uword len, double* G, arma::uword ldg) {
  static_assert(PA >= 1 && PA <= 2 && PB >= 1 && PB <= 4, "tile sizes");
  const double* x0 = A.colptr(a) + r0;
  const double* x1 = A.colptr(a + PA - 1) + r0;
  const double* y0 = B.colptr(b) + r0;
  const double* y1 = B.colptr(b + (PB > 1 ? 1 : 0)) + r0;
  const double* y2 = B.colptr(b + (PB > 2 ? 2 : 0)) + r0;
  const double* y3 = B.colptr(b + (PB > 3 ? 3 : 0)) + r0;
  double s00 = 0.0, s01 = 0.0, s02 = 0.0, s03 = 0.0, s10 = 0.0, s11 = 0.0, s12 = 0.0, s13 = 0.0;
  for (arma::uword i = 0; i < len; ++i) {
    const double u0 = x0[i];
    s00 += u0 * y0[i];
    if constexpr (PB > 1) s01 += u0 * y1[i];
    if constexpr (PB > 2) s02 += u0 * y2[i];
    if constexpr (PB > 3) s03 += u0 * y3[i];
    if constexpr (PA > 1) {
      const double u1 = x1[i];
      s10 += u1 * y0[i];
      if constexpr (PB > 1) s11 += u1 * y1[i];
      if constexpr (PB > 2) s12 += u1 * y2[i];
      if constexpr (PB > 3) s13 += u1 * y3[i];
    }
  }
  const double s[2][4] = {{s00, s01, s02, s03}, {s10, s11, s12, s13}};
  for (int r = 0; r < PA; ++r)
    for (int c = 0; c < PB; ++c) G[a + r + (b + c) * ldg] = s[r][c];
}

template <int PA>
void tprod_rows(const arma::mat& A, const arma::mat& B, arma::uword a, arma::uword r0, arma::uword len,
                double* G, arma::uword ldg) {
  const arma::uword q = B.n_cols;
  arma::uword b = 0;
  for (; b + 4 <= q; b += 4) tprod_tile<PA, 4>(A, B, a, b, r0, len, G, ldg);
  switch (q - b) {
    case 3: tprod_tile<PA, 3>(A, B, a, b, r0, len, G, ldg); break;
    case 2: tprod_tile<PA, 2>(A, B, a, b, r0, len, G, ldg); break;
    case 1: tprod_tile<PA, 1>(A, B, a, b, r0, len, G, ldg); break;
    default: break;
  }
}

// G (p x q, column-major) = A(r0:r1, :)' B(r0:r1, :), in tiles of 2 x 4 sums
void tprod_panel(const arma::mat& A, const arma::mat& B, arma::uword r0, arma::uword r1, double* G) {
  const arma::uword p = A.n_cols, len = r1 - r0 + 1;
  arma::uword a = 0;
  for (; a + 2 <= p; a += 2) tprod_rows<2>(A, B, a, r0, len, G, p);
  if (a < p) tprod_rows<1>(A, B, a, r0, len, G, p);
}

// Y(r0:r1, :) = A(r0:r1, :) C: strips of 8 rows, one column of Y at a time
void prod_panel(const arma::mat& A, const arma::mat& C, arma::uword r0, arma::uword r1, arma::mat& Y) {
  constexpr arma::uword strip = 8;
  const arma::uword k = A.n_cols, q = C.n_cols;
  arma::uword i0 = r0;
  for (; i0 + strip <= r1 + 1; i0 += strip) {
    for (arma::uword j = 0; j < q; ++j) {
      // eight named sums: an array of them is kept in memory by the compiler
      double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, a4 = 0.0, a5 = 0.0, a6 = 0.0, a7 = 0.0;
      const double* c = C.colptr(j);
      for (arma::uword l = 0; l < k; ++l) {
        const double t = c[l];
        const double* x = A.colptr(l) + i0;
        a0 += t * x[0];
        a1 += t * x[1];
        a2 += t * x[2];
        a3 += t * x[3];
        a4 += t * x[4];
        a5 += t * x[5];
        a6 += t * x[6];
        a7 += t * x[7];
      }
      double* y = Y.colptr(j) + i0;
      y[0] = a0;
      y[1] = a1;
      y[2] = a2;
      y[3] = a3;
      y[4] = a4;
      y[5] = a5;
      y[6] = a6;
      y[7] = a7;
    }
  }
  for (; i0 <= r1; ++i0)
    for (arma::uword j = 0; j < q; ++j) {
      double s = 0.0;
      for (arma::uword l = 0; l < k; ++l) s += C(l, j) * A(i0, l);
      Y(i0, j) = s;
    }
}

}  // namespace

arma::uword tall_panels(arma::uword n) {
  return n < 2 * panel_rows ? (n > 0 ? 1 : 0) : (n + panel_rows - 1) / panel_rows;
}

arma::mat tall_crossprod(const arma::mat& A, const arma::mat& B, int n_threads) {
  if (A.n_rows != B.n_rows) throw error("internal: tall_crossprod of blocks with different row counts");
  const arma::uword p = A.n_cols, q = B.n_cols;
  const arma::uword np = tall_panels(A.n_rows);
  if (np == 0 || p == 0 || q == 0) return arma::mat(p, q, arma::fill::zeros);
  arma::cube part(p, q, np);
  for_panels(A.n_rows, n_threads, [&](arma::uword b, arma::uword r0, arma::uword r1) {
    tprod_panel(A, B, r0, r1, part.slice_memptr(b));
  });
  arma::mat G = part.slice(0);
  for (arma::uword b = 1; b < np; ++b) G += part.slice(b);
  return G;
}

arma::mat tall_times(const arma::mat& A, const arma::mat& C, int n_threads) {
  if (A.n_cols != C.n_rows) throw error("internal: tall_times of blocks of non-conformable sizes");
  arma::mat Y(A.n_rows, C.n_cols);
  if (A.n_cols == 0) {
    Y.zeros();
    return Y;
  }
  for_panels(A.n_rows, n_threads, [&](arma::uword, arma::uword r0, arma::uword r1) { prod_panel(A, C, r0, r1, Y); });
  return Y;
}

}  // namespace manifoldOOS
