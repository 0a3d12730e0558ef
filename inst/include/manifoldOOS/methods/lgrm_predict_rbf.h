// Fused AVX2/FMA (and AVX-512) kernel of LGRM's out-of-sample map for the Gaussian kernel
// (compiled in src/core/methods/lgrm_predict_rbf.cpp).
//
// y(x) = beta' kappa(x, B) + c with kappa(x, b) = exp(cr |x - b|^2) (cr < 0):
// per row, four landmarks per vector (two vectors per step): the squared
// distance by differences, the scaled argument clamped at -708, the
// exponential (Cody-Waite reduction to |r| <= ln2/2, exp(r) - 1 by a
// degree-11 minimax polynomial, 2^k from the exponent bits; at most 1 ulp from
// std::exp) and the coefficient products accumulated in registers, so
// the kernel row is never stored. The landmarks are padded to a multiple of 8
// with zero coefficients (exact zero contributions). Every row goes through
// the same operations in the same order whatever the batch (a row alone
// equals the same row in a batch, bit for bit); threaded over rows. On CPUs
// with AVX-512F the rows are those of methods/lgrm_predict_rbf_avx512.h
// (eight landmarks per vector, a table-driven exponential with fewer
// operations; landmarks padded to a multiple of 16).
#ifndef MANIFOLDOOS_LGRM_PREDICT_RBF_H
#define MANIFOLDOOS_LGRM_PREDICT_RBF_H

#include <armadillo>

namespace manifoldOOS {

// The path the Gaussian-kernel map takes: the best this build and CPU have
// (avx512: AVX-512F rows of methods/lgrm_predict_rbf_avx512.h; avx2: the
// AVX2/FMA rows; portable: lgrm.h's generic loop), or a lower one forced with
// the environment variable MANIFOLDOOS_LGRM_KERNEL = "avx2" or "portable"
// ("auto", "avx512" or unset: the best; tests compare the paths). Read at
// every call; another value is an input_error.
enum class lgrm_rbf_path { portable, avx2, avx512 };
lgrm_rbf_path lgrm_predict_rbf_path();

// True when a fused kernel (avx512 or avx2) is the path; otherwise the caller
// uses the portable path.
bool lgrm_predict_rbf_available();

// Y (Xnew.n_rows x beta.n_cols) = exp(cr |x - b|^2) map; B: m x d landmarks
// (or training rows), beta: m x q, c: 1 x q. Throws if unavailable.
arma::mat lgrm_predict_rbf_fused(const arma::mat& B, const arma::mat& beta, const arma::rowvec& c,
                                 const arma::mat& Xnew, double cr, int n_threads);

// exp(x) for x in [-708, 0] by the path's exponential, in place (tests).
void lgrm_predict_rbf_exp(double* x, std::size_t n);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LGRM_PREDICT_RBF_H
