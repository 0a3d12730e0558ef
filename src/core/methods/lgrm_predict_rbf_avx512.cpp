// AVX-512 rows of LGRM's fused Gaussian-kernel map (see
// methods/lgrm_predict_rbf_avx512.h). Compiled for AVX-512F with a function
// target attribute; called only after the run-time check cpu_has_avx512().
// With -Wall, GCC reports -Wmaybe-uninitialized inside its own
// avx512fintrin.h here (the _mm512_undefined_*() operand of
// _mm512_slli_epi64() and others, once inlined): a false positive in the
// compiler's header, left unsilenced because R CMD check rejects pragmas that
// suppress diagnostics in a package's sources.

#include <manifoldOOS/methods/lgrm_predict_rbf_avx512.h>

#include <manifoldOOS/core/common.h>

#ifdef MO_HAVE_AVX2_KERNELS
#include <immintrin.h>

#include <cstdint>

namespace manifoldOOS {
namespace lgrm_rbf_avx512 {
namespace {

// Bits of 2^(j/16) (correctly rounded) minus j 2^48: adding n 2^48 (n = 16 k + j)
// gives the bits of 2^k 2^(j/16).
alignas(64) const std::uint64_t exp_table[16] = {
    0x3ff0000000000000ULL, 0x3fefb5586cf9890fULL, 0x3fef72b83c7d517bULL, 0x3fef387a6e756238ULL,
    0x3fef06fe0a31b715ULL, 0x3feedea64c123422ULL, 0x3feebfdad5362a27ULL, 0x3feeab07dd485429ULL,
    0x3feea09e667f3bcdULL, 0x3feea11473eb0187ULL, 0x3feeace5422aa0dbULL, 0x3feec49182a3f090ULL,
    0x3feee89f995ad3adULL, 0x3fef199bdd85529cULL, 0x3fef5818dcfba487ULL, 0x3fefa4afa2a490daULL};

// exp(v) for v in [-708, 0], eight lanes.
__attribute__((target("avx512f"))) inline __m512d exp8(__m512d v, __m512i tlo, __m512i thi) {
  const __m512d shifter = _mm512_set1_pd(0x1.8p52);
  // n = round(16 v / ln 2) in the low bits of kd's significand
  __m512d kd = _mm512_fmadd_pd(v, _mm512_set1_pd(0x1.71547652b82fep+4), shifter);
  const __m512i kb = _mm512_castpd_si512(kd);
  kd = _mm512_sub_pd(kd, shifter);
  // r = v - n ln2/16 (ln2/16 as a sum of two doubles; |r| <= ln2/32)
  __m512d r = _mm512_fnmadd_pd(kd, _mm512_set1_pd(0x1.62e42fefa39efp-5), v);
  r = _mm512_fnmadd_pd(kd, _mm512_set1_pd(0x1.abc9e3b39803fp-60), r);
  // T = 2^floor(n/16) 2^(j/16): the table entry selected by n's low 4 bits
  const __m512i tb = _mm512_permutex2var_epi64(tlo, kb, thi);
  const __m512d T = _mm512_castsi512_pd(_mm512_add_epi64(tb, _mm512_slli_epi64(kb, 48)));
  // exp(r) - 1 = r + r^2 (c2 + c3 r + r^2 (c4 + c5 r + c6 r^2)) (minimax, Estrin's scheme)
  const __m512d r2 = _mm512_mul_pd(r, r);
  const __m512d a = _mm512_fmadd_pd(_mm512_set1_pd(0x1.555555548f893p-3), r, _mm512_set1_pd(0x1.fffffffffffb9p-2));
  __m512d b = _mm512_fmadd_pd(_mm512_set1_pd(0x1.11123aae4efeap-7), r, _mm512_set1_pd(0x1.55555558fca5ep-5));
  b = _mm512_fmadd_pd(_mm512_set1_pd(0x1.6c14c6ebcb2c3p-10), r2, b);
  const __m512d s = _mm512_fmadd_pd(_mm512_fmadd_pd(b, r2, a), r2, r);
  return _mm512_fmadd_pd(T, s, T);
}

// Horizontal sum in a fixed order: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
__attribute__((target("avx512f"))) inline double hsum8(__m512d a) {
  alignas(64) double t[8];
  _mm512_store_pd(t, a);
  return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

#define MO_RBF_TARGET __attribute__((target("avx512f")))
#include "lgrm_predict_rbf_row.h"
// The vector operations of the shared row (lgrm_predict_rbf_row.h), 8 lanes.
struct v8 {
  using reg = __m512d;
  static constexpr long width = 8;
  struct exp_state {
    __m512i tlo, thi;  // the 16-entry table in two registers
  };
  MO_RBF_ARITHMETIC(__m512d, _mm512)
  MO_RBF_TARGET static exp_state exp_init() {
    return {_mm512_load_si512(exp_table), _mm512_load_si512(exp_table + 8)};
  }
  MO_RBF_TARGET static reg exp(reg v, const exp_state& s) { return exp8(v, s.tlo, s.thi); }
  MO_RBF_TARGET static double hsum(reg a) { return hsum8(a); }
};
#undef MO_RBF_TARGET

__attribute__((target("avx512f"))) void exp_array(double* x, std::size_t n) {
  const __m512i tlo = _mm512_load_si512(exp_table), thi = _mm512_load_si512(exp_table + 8);
  alignas(64) double buf[8];
  for (std::size_t i = 0; i < n; i += 8) {
    const std::size_t w = n - i < 8 ? n - i : 8;
    for (std::size_t j = 0; j < 8; ++j) buf[j] = j < w ? x[i + j] : 0.0;
    _mm512_store_pd(buf, exp8(_mm512_load_pd(buf), tlo, thi));
    for (std::size_t j = 0; j < w; ++j) x[i + j] = buf[j];
  }
}

}  // namespace

void row(const double* Bt, const double* bt, long mp, int d, int q, const double* x,
         const double* c, double* out) {
  rbf_row<v8>(Bt, bt, mp, d, q, x, c, out);
}

void exp_inplace(double* x, std::size_t n) { exp_array(x, n); }

}  // namespace lgrm_rbf_avx512
}  // namespace manifoldOOS

#endif  // MO_HAVE_AVX2_KERNELS
