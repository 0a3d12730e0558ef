// AVX-512 rows of LGRM's fused Gaussian-kernel map (compiled in
// src/core/methods/lgrm_predict_rbf_avx512.cpp; used by lgrm_predict_rbf.cpp
// only, on CPUs with AVX-512F, AVX2 and FMA).
//
// Same layout and the same operations up to the exponential as the AVX2 rows
// of methods/lgrm_predict_rbf.h, eight landmarks per vector (two vectors per
// step). The exponential needs fewer operations: n = round(16 v / ln 2) by the
// shifter trick, r = v - n ln2/16 (two FMAs, |r| <= ln2/32), 2^(j/16)
// (j = n mod 16) looked up in a 16-entry table held in two registers
// (vpermt2q, no memory gather), 2^floor(n/16) added to its exponent bits
// (one shift and one integer add: the table stores 2^(j/16) - j 2^48 in bits),
// and exp(r) - 1 = r + r^2 q(r) with q a degree-4 minimax polynomial
// (relative error 1.2e-17 on |r| <= ln2/32): exp(v) = T + T (exp(r) - 1).
// 10 multiplies/FMAs per exponential instead of 17 (degree-13 Taylor after a
// 2^k reduction); within 2 ulp of std::exp on [-708, 0].
#ifndef MANIFOLDOOS_LGRM_PREDICT_RBF_AVX512_H
#define MANIFOLDOOS_LGRM_PREDICT_RBF_AVX512_H

#include <cstddef>

namespace manifoldOOS {
namespace lgrm_rbf_avx512 {

// Landmarks per step: the landmark count is padded to a multiple of this.
constexpr long step = 16;

// One row: Bt (d x mp, row a at Bt + a mp, 64-byte aligned, mp a multiple of
// `step`), bt (q x mp, same), x (d), out (q) = beta' exp(max(-|x - b|^2, -708)) + c,
// with landmarks and x scaled by sqrt(-cr) by the caller.
void row(const double* Bt, const double* bt, long mp, int d, int q, const double* x,
         const double* c, double* out);

// exp(x) for x in [-708, 0], in place.
void exp_inplace(double* x, std::size_t n);

}  // namespace lgrm_rbf_avx512
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LGRM_PREDICT_RBF_AVX512_H
