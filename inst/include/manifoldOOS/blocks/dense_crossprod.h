// Dense products of tall matrices (compiled in
// src/core/blocks/dense_crossprod.cpp): the blocked cross-product C += A' A,
// and the panel products A' B and A C of tall blocks with few columns.
//
// Blocked cross-product:
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

// Panel products of tall n x p blocks with few columns (the block iterations
// of LOBPCG): the rows are split into panels, one panel when n < 16384 and
// panels of 8192 rows otherwise, and the panels are shared among the
// threads. Each entry is summed in a fixed order, that of the reference BLAS
// on a panel, so the results depend neither on the number of threads nor on
// the BLAS R uses:
//  - tall_crossprod(A, B) = A' B (p x q): in each panel, entry (a, b) is
//    sum_i A(i, a) B(i, b) summed from zero over the rows in order; the
//    panels' products are then added in panel order;
//  - tall_times(A, C) = A C (n x q, C small): entry (i, j) is
//    sum_l C(l, j) A(i, l) summed from zero over l in order.
// Number of panels of an n-row block.
arma::uword tall_panels(arma::uword n);
arma::mat tall_crossprod(const arma::mat& A, const arma::mat& B, int n_threads);
arma::mat tall_times(const arma::mat& A, const arma::mat& C, int n_threads);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_DENSE_CROSSPROD_H
