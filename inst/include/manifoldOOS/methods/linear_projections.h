// Linear projections with an explicit map (LPP, OLPP, NPE/NPP, ONPP) and the
// regression steps of spectral regression (SR, KSR, kernel LPP).
//
// One generalised-eigen path serves every linear method (He & Niyogi 2003; Cai et al. 2006; He et al. 2005; Kokiopoulou & Saad 2007):
//
//     Xc' N Xc a = lambda Xc' B Xc a     ("weighted" constraint A' Xc'B Xc A = I)
//     Xc' N Xc a = lambda a              ("orthogonal" constraint A'A = I)
//
// with Xc (n x p) the centred data, N a sparse symmetric n x n matrix (the
// graph weights W, the Laplacian L or the LLE matrix M) and B = diag(b) a
// non-negative diagonal (degrees for LPP, ones for the covariance form and
// NPE). The p x p matrices are formed as Xc' (N Xc) with a sparse-times-dense
// product and one dense product (Eigen's own matrix kernels, not the
// reference BLAS), and the problem is reduced to a standard symmetric one in a
// basis of the row space of Xc:
//
//   * "cholesky": Xc'B Xc = L L' is numerically SPD; C = L^{-1} S_N L^{-T},
//                 a = L^{-T} u;
//   * "pca":      (p < n) eigendecomposition Xc'B Xc = V diag(s) V', kept
//                 directions s_i > rank_tol * s_1; a = V s^{-1/2} u (the PCA
//                 step of Cai's codes: the minimum-norm solution in the row
//                 space of Xc);
//   * "pca_dual": (p >= n) the same from the n x n Gram matrix
//                 B^{1/2} Xc Xc' B^{1/2} = Q diag(s) Q', a = Xc' B^{1/2} Q s^{-1} u;
//   * "ridge":    Xc'B Xc + ridge I (user ridge, no PCA step);
//   * "auto_ridge": no PCA step allowed and Xc'B Xc singular: the smallest
//                 ridge 1e-8 * 10^j * tr/p that makes it SPD (reported).
// The reduced standard problem goes to the eigen adapter: dense LAPACK up to
// `dense_max` rows, otherwise matrix-free Lanczos (top) or shift-invert with
// a dense Cholesky factor (bottom). A final symmetric re-orthonormalisation
// makes the constraint hold to rounding error.
#ifndef MANIFOLDOOS_LINEAR_PROJECTIONS_H
#define MANIFOLDOOS_LINEAR_PROJECTIONS_H

#include <armadillo>

#include <string>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_dense.h>
#include <manifoldOOS/blocks/eigen_sparse.h>

namespace manifoldOOS {

enum class lp_constraint { weighted, orthogonal };

// The glue fills every field by position (aggregate initialisation, in
// mo_linear_projection()): a new or moved field is added there too.
struct lp_options {
  lp_constraint constraint = lp_constraint::weighted;
  eig_which which = eig_which::bottom;
  long m = 2;
  bool pca = true;         // PCA step when Xc'BXc is singular or p >= n
  bool force_pca = false;  // PCA step always
  double ridge = 0.0;      // > 0: Xc'BXc + ridge I, no PCA step (weighted only)
  double rank_tol = 1e-10; // kept PCA directions: eigenvalue > rank_tol * largest
  long dense_max = 400;    // reduced size up to which LAPACK is used
  bool deflate_orthogonal = false;  // OLPP (Cai): successive top pairs with a_k' a_j = 0
  eig_options eig;
};

struct lp_result {
  arma::mat A;          // p x m projection vectors
  arma::vec values;     // eigenvalues (the problem's own: ascending bottom / descending top)
  long rank = 0;        // dimension of the reduced problem
  std::string path;     // cholesky | pca | pca_dual | ridge | auto_ridge | identity
  std::string eig_method;
  double ridge = 0.0;
  std::string note;
};

// Solve the linear-projection problem (see the header comment). Xc must be
// centred by the caller (the centre is part of the model); b has length n
// (ignored for the orthogonal constraint).
lp_result linear_projection(const arma::mat& Xc, const sp_mat_e& N, const arma::vec& b,
                            const lp_options& o);

// LLE cost matrix M = (I - W)'(I - W) from reconstruction weights: row i of W
// holds w(i, j) at column idx(i, j) (0-based).
sp_mat_e lle_cost_matrix(const arma::Mat<int>& idx, const arma::mat& w, long n);

// Ridge regression coefficients of the centred embedding on the centred data
// (spectral regression); `path` receives the solver used.
arma::mat ridge_coefficients(const arma::mat& Xc, const arma::mat& Y, double alpha,
                             std::string* path = nullptr);

struct kernel_ridge_fit {
  arma::mat beta;
  arma::rowvec c;
};

// Kernel ridge regression of the embedding on the kernel matrix (kernel
// spectral regression, kernel LPP).
kernel_ridge_fit kernel_ridge(const arma::mat& K, const arma::mat& Y, double delta, bool intercept);

namespace lp_detail {
// A B through Eigen's product (the package's bit-exact convention for it).
arma::mat mult(const arma::mat& A, const arma::mat& B);
}  // namespace lp_detail

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LINEAR_PROJECTIONS_H
