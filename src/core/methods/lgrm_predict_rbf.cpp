// Fused Gaussian-kernel map of LGRM (see methods/lgrm_predict_rbf.h).
#include <manifoldOOS/methods/lgrm_predict_rbf.h>
#include <manifoldOOS/methods/lgrm_predict_rbf_avx512.h>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef MO_HAVE_AVX2_KERNELS
#include <immintrin.h>
#endif

namespace manifoldOOS {

#ifdef MO_HAVE_AVX2_KERNELS
namespace {

// exp(v) for v in [-708, 0], four lanes: v = k ln2 + r (Cody-Waite, |r| <= ln2/2),
// exp(r) - 1 = r + r^2 q(r) with q of degree 9 (minimax for the relative error
// of exp(r): 9.3e-18 with the coefficients as doubles; even and odd parts in r^2),
// exp(v) = 2^k + 2^k (exp(r) - 1), 2^k from the exponent bits. 14 multiplies/FMAs.
__attribute__((target("avx2,fma"))) inline __m256d exp4(__m256d v) {
  const __m256d log2e = _mm256_set1_pd(1.4426950408889634074);
  const __m256d ln2hi = _mm256_set1_pd(6.93147180369123816490e-01);
  const __m256d ln2lo = _mm256_set1_pd(1.90821492927058770002e-10);
  const __m256d shifter = _mm256_set1_pd(6755399441055744.0);
  __m256d kd = _mm256_fmadd_pd(v, log2e, shifter);
  const __m256i kb = _mm256_castpd_si256(kd);
  kd = _mm256_sub_pd(kd, shifter);
  __m256d r = _mm256_fnmadd_pd(kd, ln2hi, v);
  r = _mm256_fnmadd_pd(kd, ln2lo, r);
  const __m256d r2 = _mm256_mul_pd(r, r);
  __m256d ev = _mm256_fmadd_pd(_mm256_set1_pd(0x1.28b40639f7187p-22), r2, _mm256_set1_pd(0x1.a01993bebde07p-16));
  __m256d od = _mm256_fmadd_pd(_mm256_set1_pd(0x1.af631dc77317bp-26), r2, _mm256_set1_pd(0x1.71ddf6badec7dp-19));
  ev = _mm256_fmadd_pd(ev, r2, _mm256_set1_pd(0x1.6c16c185fded5p-10));
  od = _mm256_fmadd_pd(od, r2, _mm256_set1_pd(0x1.a01a01b009b94p-13));
  ev = _mm256_fmadd_pd(ev, r2, _mm256_set1_pd(0x1.55555555503f4p-5));
  od = _mm256_fmadd_pd(od, r2, _mm256_set1_pd(0x1.111111110f808p-7));
  ev = _mm256_fmadd_pd(ev, r2, _mm256_set1_pd(0x1.0000000000009p-1));
  od = _mm256_fmadd_pd(od, r2, _mm256_set1_pd(0x1.5555555555558p-3));
  const __m256d s = _mm256_fmadd_pd(_mm256_fmadd_pd(od, r, ev), r2, r);
  // 2^k: k's low bits of kb shifted into the exponent field, plus the bias
  const __m256d p2k = _mm256_castsi256_pd(
      _mm256_add_epi64(_mm256_slli_epi64(kb, 52), _mm256_set1_epi64x(0x3ff0000000000000LL)));
  return _mm256_fmadd_pd(p2k, s, p2k);
}

__attribute__((target("avx2,fma"))) void exp_array_avx2(double* x, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, exp4(_mm256_loadu_pd(x + i)));
  if (i < n) {
    double buf[4] = {0.0, 0.0, 0.0, 0.0};
    for (std::size_t j = i; j < n; ++j) buf[j - i] = x[j];
    _mm256_storeu_pd(buf, exp4(_mm256_loadu_pd(buf)));
    for (std::size_t j = i; j < n; ++j) x[j] = buf[j - i];
  }
}

// Horizontal sum in a fixed order: (l0 + l1) + (l2 + l3).
__attribute__((target("avx2,fma"))) inline double hsum4(__m256d a) {
  alignas(32) double t[4];
  _mm256_store_pd(t, a);
  return (t[0] + t[1]) + (t[2] + t[3]);
}

#define MO_RBF_TARGET __attribute__((target("avx2,fma")))
#include "lgrm_predict_rbf_row.h"
// The vector operations of the shared row (lgrm_predict_rbf_row.h), 4 lanes.
struct v4 {
  using reg = __m256d;
  static constexpr long width = 4;
  struct exp_state {};
  MO_RBF_ARITHMETIC(__m256d, _mm256)
  MO_RBF_TARGET static exp_state exp_init() { return {}; }
  MO_RBF_TARGET static reg exp(reg v, const exp_state&) { return exp4(v); }
  MO_RBF_TARGET static double hsum(reg a) { return hsum4(a); }
};
#undef MO_RBF_TARGET

// 64-byte aligned, zero-initialised storage
struct aligned_doubles {
  std::vector<double> raw;
  double* ptr;
  explicit aligned_doubles(std::size_t n) : raw(n + 8, 0.0) {
    const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(raw.data());
    ptr = reinterpret_cast<double*>((p + 63) & ~std::uintptr_t(63));
  }
};

}  // namespace
#endif  // MO_HAVE_AVX2_KERNELS

lgrm_rbf_path lgrm_predict_rbf_path() {
  lgrm_rbf_path best = lgrm_rbf_path::portable;
#ifdef MO_HAVE_AVX2_KERNELS
  if (cpu_has_avx2_fma()) best = cpu_has_avx512() ? lgrm_rbf_path::avx512 : lgrm_rbf_path::avx2;
#endif
  const char* env = std::getenv("MANIFOLDOOS_LGRM_KERNEL");
  if (env == nullptr || *env == '\0' || std::strcmp(env, "auto") == 0 || std::strcmp(env, "avx512") == 0)
    return best;
  if (std::strcmp(env, "avx2") == 0) return best == lgrm_rbf_path::portable ? best : lgrm_rbf_path::avx2;
  if (std::strcmp(env, "portable") == 0) return lgrm_rbf_path::portable;
  throw input_error(
      "the environment variable `MANIFOLDOOS_LGRM_KERNEL` must be \"auto\", \"avx512\", \"avx2\" or "
      "\"portable\" (or unset)");
}

bool lgrm_predict_rbf_available() { return lgrm_predict_rbf_path() != lgrm_rbf_path::portable; }

void lgrm_predict_rbf_exp(double* x, std::size_t n) {
  const lgrm_rbf_path path = lgrm_predict_rbf_path();
  if (path == lgrm_rbf_path::portable) throw error("internal: the fused kernel is not available on this CPU");
#ifdef MO_HAVE_AVX2_KERNELS
  if (path == lgrm_rbf_path::avx512)
    lgrm_rbf_avx512::exp_inplace(x, n);
  else
    exp_array_avx2(x, n);
#else
  (void)x;
  (void)n;
#endif
}

arma::mat lgrm_predict_rbf_fused(const arma::mat& B, const arma::mat& beta, const arma::rowvec& c,
                                 const arma::mat& Xnew, double cr, int n_threads) {
  const lgrm_rbf_path path = lgrm_predict_rbf_path();
  if (path == lgrm_rbf_path::portable) throw error("internal: the fused kernel is not available on this CPU");
  const bool wide = path == lgrm_rbf_path::avx512;
  const long m = B.n_rows, mp = wide ? (m + 15) / 16 * 16 : (m + 7) / 8 * 8;
  const int d = int(B.n_cols), q = int(beta.n_cols);
  if (d < 1 || Xnew.n_cols != B.n_cols || long(beta.n_rows) != m || c.n_elem != beta.n_cols)
    throw error("internal: lgrm_predict_rbf_fused dimensions");
  const arma::uword nn = Xnew.n_rows;
  arma::mat Y(nn, q);
#ifdef MO_HAVE_AVX2_KERNELS
  aligned_doubles Bt(std::size_t(d) * mp), bt(std::size_t(q) * mp);
  // landmarks and rows scaled by sqrt(-cr): the row computes -|x - b|^2
  if (!(cr < 0.0)) throw error("internal: lgrm_predict_rbf_fused needs cr < 0");
  const double sc = std::sqrt(-cr);
  for (int a = 0; a < d; ++a)
    for (long l = 0; l < m; ++l) Bt.ptr[a * mp + l] = B(l, a) * sc;
  for (int j = 0; j < q; ++j)
    for (long l = 0; l < m; ++l) bt.ptr[j * mp + l] = beta(l, j);
  const double* cp = c.memptr();
  parallel_row_blocks(
      nn, 65536, n_threads, [](std::size_t, std::size_t) {},
      [&]() { return std::vector<double>(std::size_t(d) + std::size_t(q)); },
      [&](std::vector<double>& buf, std::size_t i) {
        double* x = buf.data();
        double* out = x + d;
        for (int a = 0; a < d; ++a) x[a] = Xnew(i, a) * sc;
        if (wide) {
          lgrm_rbf_avx512::row(Bt.ptr, bt.ptr, mp, d, q, x, cp, out);
        } else {
          rbf_row<v4>(Bt.ptr, bt.ptr, mp, d, q, x, cp, out);
        }
        for (int j = 0; j < q; ++j) Y(i, j) = out[j];
      },
      [](std::vector<double>&) {}, 64);
#else
  (void)cr;
  (void)n_threads;
  (void)wide;
  (void)mp;
#endif
  return Y;
}

}  // namespace manifoldOOS
