// Dense symmetric eigen-solvers (Armadillo / LAPACK).
//
// * eig_dense():   all, bottom m or top m eigenpairs of a symmetric matrix.
// * geig_dense():  symmetric-definite generalised problem A v = lambda B v
//                  (B symmetric positive definite) by Cholesky reduction.
//
// Conventions (package-wide): results are sorted after the solver returns
// (ascending for "bottom" and "all", descending for "top"), and every
// eigenvector column gets the sign convention of fix_signs() (largest |entry|
// positive, ties to the smallest index). The result structure is shared with
// the iterative solvers of eigen_sparse.h.
#ifndef MANIFOLDOOS_EIGEN_DENSE_H
#define MANIFOLDOOS_EIGEN_DENSE_H

#include <armadillo>
#include <string>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/linalg.h>

namespace manifoldOOS {

// Which end of the spectrum is wanted.
enum class eig_which { bottom, top, all };

inline constexpr choice<eig_which> eig_which_names[] = {
    {"bottom", eig_which::bottom}, {"top", eig_which::top}, {"all", eig_which::all}};
inline eig_which parse_eig_which(const std::string& s) {
  return parse_choice(s, eig_which_names, "`which` must be \"bottom\", \"top\" or \"all\"");
}

// Result of every eigen-solver of the package.
struct eigen_result {
  arma::vec values;          // sorted: ascending (bottom, all) or descending (top)
  arma::mat vectors;         // n x m, columns match `values`
  std::string method_used;   // e.g. "dense_dc", "spectra_shift_invert", ...
  long n_iter = 0;           // restarts of the iterative solver (0 for dense)
  long n_ops = 0;            // operator applications (0 for dense)
  int status = 0;            // 0 = success (Spectra's code of the last attempt otherwise)
  int attempts = 0;          // iterative attempts made (0 for a pure dense solve)
  double shift = 0.0;        // shift sigma used by shift-invert (0 otherwise)
  double ridge = 0.0;        // ridge delta added to B (generalised problems)
  double residual = -1.0;    // max_j ||A v_j - lambda_j B v_j|| / scale (-1: not computed)
  std::string note;          // human-readable remarks (fallbacks, retries)
};

namespace detail {

// Throws input_error unless A is square, non-empty and finite.
void check_square_finite(const arma::mat& A, const char* name);
// Throws input_error when A is not symmetric to relative tolerance tol.
void check_symmetric(const arma::mat& A, const char* name, double tol = 1e-8);
// Full symmetric eigendecomposition (ascending): divide-and-conquer first,
// then the standard QR algorithm. Only the lower/upper triangle is read.
void eig_sym_full(const arma::mat& A, arma::vec& val, arma::mat& vec,
                         std::string& how);

}  // namespace detail

// Sort pairs (ascending or descending) and apply the sign convention. Used
// after iterative solvers: never trust a solver's output order.
void sort_and_fix(eigen_result& res, bool descending);

// All, bottom m or top m eigenpairs of a dense symmetric matrix (LAPACK).
eigen_result eig_dense(const arma::mat& A, eig_which which, arma::uword m);

// A v = lambda B v with A symmetric and B symmetric positive definite.
// ridge > 0 : solve with B + ridge * I.
// ridge == 0: no ridge; a B that is not numerically SPD is an input error.
// ridge < 0 : automatic; B is used as is when its Cholesky factor is sound,
//             otherwise delta = 1e-8 * tr(B)/p is added and multiplied by 10
//             until it is (at most 1e-2 * tr(B)/p). The ridge used is reported
//             in result.ridge. Eigenvectors are B-orthonormal.
eigen_result geig_dense(const arma::mat& A, const arma::mat& B, eig_which which,
                               arma::uword m, double ridge = -1.0);

// Drops the trivial pair (null vector `null_vec`) from the bottom q + 1 pairs
// of a Laplacian-type problem; see src/core/blocks/eigen_dense.cpp for the rule.
eigen_result drop_trivial(const eigen_result& res, const arma::vec& null_vec,
                                 double scale, double* dropped_value = nullptr,
                                 double tol_rel = 1e-9, double cos_tol = 1e-6);

// Throws input_error unless the q leading eigenvalues (descending `values`)
// are positive and above 1e-12 |l_1| (the rank test of every spectral
// embedding scaled by sqrt(l)).
void require_positive_leading(const arma::vec& values, arma::uword q,
                                     const std::string& what, const std::string& extra,
                                     const std::string& advice);

// V diag(l)^{1/2} and V diag(l)^{-1/2} for positive eigenvalues l.
void scale_by_sqrt(const arma::mat& V, const arma::vec& l, arma::mat& times,
                          arma::mat& over);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_EIGEN_DENSE_H
