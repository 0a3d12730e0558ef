// Blocked cross-product A' A (see inst/include/manifoldOOS/blocks/dense_crossprod.h).
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

}  // namespace manifoldOOS
