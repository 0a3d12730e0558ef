// Bottom eigenpairs of a sparse PSD matrix with a KNOWN null vector, solved on
// the orthogonal complement of that vector (deflation).
//
// Graph Laplacians (L 1 = 0, L_sym D^{1/2} 1 = 0) have a trivial null vector
// that the embeddings discard. Asking a shift-invert solver for the bottom
// q + 1 pairs and dropping the first one works while the next eigenvalues
// are well separated from 0; on very large graphs (10^6 points) they are not,
// and the solver may return a mixture of the null vector and the next
// eigenvectors. Here the operator is P (A - sigma I)^{-1} P with
// P = I - u u' (u the unit null vector): u is an exact eigenvector of
// (A - sigma I)^{-1}, so P commutes with it, the null direction is mapped to
// 0 and never competes with the wanted pairs, and only q pairs are computed.
//
// Implemented in src/core/blocks/eigen_sparse.cpp (the package's single
// Spectra translation unit); this header only declares.
#ifndef MANIFOLDOOS_EIGEN_DEFLATE_H
#define MANIFOLDOOS_EIGEN_DEFLATE_H

#include <armadillo>

#include <manifoldOOS/blocks/eigen_sparse.h>

namespace manifoldOOS {

// Bottom m (ascending) eigenpairs of the sparse symmetric PSD matrix A
// restricted to the orthogonal complement of `null_vec` (any non-zero
// scaling). Requirements, checked: ||A u|| <= 1e-8 ||A||_inf for the unit
// u = null_vec / |null_vec| (an input_error otherwise), 1 <= m <= n - 2.
// Solver (o.deflated): shift-invert Lanczos around sigma = -shift_eps *
// trace(A)/n with the package's factorisation (CHOLMOD when registered, else
// Eigen's LDL'), the retry of eigs_sparse_bottom() and, when
// n <= fallback_max_n, the dense solver on the deflated matrix; or LOBPCG
// preconditioned by smoothed-aggregation AMG (eigen_lobpcg.h: no
// factorisation, for large kNN graphs whose factor fills in); automatic:
// LOBPCG when n >= o.lobpcg_min_n. Every returned vector is orthogonal to u;
// `residual` is max_j ||A v_j - lambda_j v_j|| / (||A||_inf + |lambda_j|),
// and a residual above 1e-6 raises convergence_error (never a wrong basis).
// method_used: "spectra_shift_invert_deflated" or "lobpcg_amg_deflated".
eigen_result eigs_sparse_bottom_deflated(const sp_mat_e& A, const arma::vec& null_vec, long m,
                                         const eig_options& o = eig_options());

// The same; on the LOBPCG route A itself is renumbered during the solve and
// restored before return (lobpcg_bottom_deflated_in_place()), so a large
// matrix is held once, not twice. Results equal the const overload's.
eigen_result eigs_sparse_bottom_deflated_in_place(sp_mat_e& A, const arma::vec& null_vec, long m,
                                                  const eig_options& o = eig_options());

// The graph-connectivity test of drop_trivial() for a deflated result: the
// smallest non-trivial eigenvalue must be >= tol_rel * scale, else
// input_error ("graph disconnected or degenerate problem ...").
void check_deflated_gap(const arma::vec& values, double scale, double tol_rel = 1e-9);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_EIGEN_DEFLATE_H
