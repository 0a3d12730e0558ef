// Bottom eigenpairs of a large sparse PSD matrix with a known null vector by
// LOBPCG (Knyazev 2001, "Toward the optimal preconditioned eigensolver:
// locally optimal block preconditioned conjugate gradient method", SIAM J.
// Sci. Comput. 23(2)), preconditioned by a smoothed-aggregation AMG V-cycle
// (amg.h). No sparse factorisation: the cost per iteration is O(nnz) for the
// products and the V-cycle, where the shift-invert solver's factor of a kNN
// graph of high-dimensional data fills in heavily.
//
// Details: a block of m + extra vectors; every iterate (X, the preconditioned
// residuals W, the directions P) is projected orthogonal to the unit null
// vector u, so only non-trivial pairs are computed (as in eigen_deflate.h).
// The trial basis [X, W, P] is made orthonormal (W and P orthogonalised
// against X twice, then [W, P] by a scaled Gram eigendecomposition that drops
// numerically dependent directions, twice) before the Rayleigh-Ritz step, so
// the small eigenproblem is a standard one. Soft locking: converged columns
// stay in X but get no new W or P. The start block is a seeded random block
// smoothed by two V-cycles. Convergence: |A x_j - theta_j x_j| <=
// tol * |A|_inf for the first m columns. With `reorder` (default) the
// problem is solved on a copy of A renumbered in breadth-first order of its
// graph, where a row's neighbours lie close in memory (a kNN graph's rows
// come in the data's order, scattered), and the vectors are mapped back.
//
// Implemented in src/core/blocks/eigen_lobpcg.cpp.
#ifndef MANIFOLDOOS_EIGEN_LOBPCG_H
#define MANIFOLDOOS_EIGEN_LOBPCG_H

#include <armadillo>
#include <Eigen/Sparse>

#include <functional>

#include <manifoldOOS/blocks/amg.h>
#include <manifoldOOS/blocks/eigen_dense.h>

namespace manifoldOOS {

struct lobpcg_options {
  long maxit = 1000;   // iterations
  double tol = 1e-10;  // residual norm relative to |A|_inf
  long extra = 0;      // guard vectors beyond m (0: max(3, m / 2))
  unsigned seed = 42;  // start block (the solver never touches R's generator)
  int n_threads = 0;
  bool reorder = true; // solve in breadth-first order of A's graph (memory locality), results mapped back
  amg_options amg;
};

// Bottom m eigenpairs (ascending) of the symmetric PSD A on the orthogonal
// complement of null_vec. Requires A u ~ 0 (the AMG carries the null vector
// through its levels) and 3 (m + extra) + 1 < n. Throws convergence_error
// after maxit iterations. method_used: "lobpcg_amg_deflated"; n_iter: the
// iterations; n_ops: the preconditioned vectors.
eigen_result lobpcg_bottom_deflated(const Eigen::SparseMatrix<double>& A, const arma::vec& null_vec,
                                    long m, const lobpcg_options& o = lobpcg_options());

// A term added to the sparse matrix, known by its products: Y += E Z for an
// n x p block Z (E symmetric PSD with E u = 0; Z and Y in the sparse
// matrix's numbering).
using lobpcg_term = std::function<void(const arma::mat& Z, arma::mat& Y)>;

// The bottom m eigenpairs of S + E on the complement of null_vec, where the
// AMG preconditioner is built from the sparse S alone (S u ~ 0) and E enters
// the products (a low-rank or cheap dense term, e.g. LGRM's global
// regression term); norm_e >= |E| sets the tolerance's scale with |S|_inf.
// With an empty add_e this is the call above.
eigen_result lobpcg_bottom_deflated(const Eigen::SparseMatrix<double>& S, const lobpcg_term& add_e, double norm_e,
                                    const arma::vec& null_vec, long m, const lobpcg_options& o = lobpcg_options());

// The same, with A itself renumbered while the solve runs and restored
// (bitwise) before return, also when it throws: one copy of a large matrix
// in memory during the solve instead of two. Results equal those of
// lobpcg_bottom_deflated().
eigen_result lobpcg_bottom_deflated_in_place(Eigen::SparseMatrix<double>& A, const arma::vec& null_vec, long m,
                                             const lobpcg_options& o = lobpcg_options());

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_EIGEN_LOBPCG_H
