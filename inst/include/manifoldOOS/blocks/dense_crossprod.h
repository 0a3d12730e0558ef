// Blocked cross-product C += A' A of a tall dense matrix (compiled in
// src/core/blocks/dense_crossprod.cpp).
//
// A is nrow x p, column-major with leading dimension lda (nrow can be much
// larger than p: the n x r blocks of LGRM's Nystrom path). The rows are taken
// 128 at a time, packed into strips of 8 columns, and every 8 x 4 tile of the
// lower triangle of C is accumulated in registers over the 128 rows before it
// is added to C: an AVX2/FMA register kernel on CPUs that have it (run-time
// dispatch, core/common.h), a portable loop otherwise. Threads split the
// strips of C, never the rows, so C does not depend on the number of threads
// (and C(i, j) is summed in row order within each block of 128 rows).
#ifndef MANIFOLDOOS_DENSE_CROSSPROD_H
#define MANIFOLDOOS_DENSE_CROSSPROD_H

#include <armadillo>

namespace manifoldOOS {

// Lower triangle (i >= j, diagonal included) of C (p x p, leading dimension
// ldc) += A' A; the strict upper triangle is not touched.
void crossprod_lower_acc(const double* A, long lda, long nrow, long p, double* C, long ldc, int n_threads);

// A' A of the columns [c0, c1) of A (symmetric, both triangles filled).
arma::mat crossprod_cols(const arma::mat& A, arma::uword c0, arma::uword c1, int n_threads);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_DENSE_CROSSPROD_H
