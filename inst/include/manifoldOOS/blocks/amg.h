// Smoothed-aggregation algebraic multigrid (Vanek, Mandel & Brezina 1996,
// "Algebraic multigrid by smoothed aggregation for second and fourth order
// elliptic problems", Computing 56) for a sparse symmetric PSD matrix with a
// KNOWN null vector b (a graph Laplacian: b = 1, or D^{1/2} 1 for L_sym).
//
// Setup, per level: symmetric strength of connection
// |a_ij| >= theta sqrt(a_ii a_jj); greedy aggregation (seeds whose strong
// neighbourhood is still free form an aggregate with it, the rest join a
// neighbouring aggregate, leftovers group with their free neighbours); the
// tentative prolongator T is piecewise b (column a: b restricted to the
// aggregate, normalised), smoothed once by damped Jacobi,
// P = (I - omega D^{-1} A) T with omega = 4 / (3 rho(D^{-1} A)); the coarse
// operator is the Galerkin product P' A P (formed by rows: A P, then P' (A P)). Because
// A b = 0 and T b_c = b, P b_c = b and P' A P b_c = 0: the null vector is
// carried exactly to every level. Recursion stops at `coarse_size` nodes,
// where A_c + c b_c b_c' is factorised densely (Cholesky); on the orthogonal
// complement of b_c that is the pseudo-inverse of A_c.
//
// apply(): one symmetric V-cycle (damped Jacobi pre- and post-smoothing),
// an SPD approximation of the pseudo-inverse of A on the complement of b,
// used as the preconditioner of the deflated LOBPCG solver (eigen_lobpcg.h).
// Implemented in src/core/blocks/amg.cpp.
#ifndef MANIFOLDOOS_AMG_H
#define MANIFOLDOOS_AMG_H

#include <armadillo>
#include <Eigen/Sparse>

#include <vector>

namespace manifoldOOS {

struct amg_options {
  double theta = 0.0;       // strength threshold (0: every edge is strong)
  long coarse_size = 1500;  // stop coarsening at this many nodes
  int max_levels = 12;
  int pre_sweeps = 1;       // damped Jacobi sweeps before / after the coarse correction
  int post_sweeps = 1;
  double jacobi_weight = 0.0;  // smoother weight; 0: 4 / (3 rho(D^{-1} A)) per level
  int n_threads = 0;        // 0: all available
};

class amg_hierarchy {
 public:
  using sp_mat_e = Eigen::SparseMatrix<double>;

  // A: symmetric PSD with A b ~ 0 (not copied for level 0: it must outlive
  // the hierarchy). Throws input_error on a non-square matrix or a
  // non-positive diagonal entry.
  amg_hierarchy(const sp_mat_e& A, const arma::vec& b, const amg_options& o = amg_options());

  // Y = one V-cycle applied to every column of R (n x p), Y orthogonal to b.
  arma::mat apply(const arma::mat& R) const;

  int n_levels() const { return static_cast<int>(levels_.size()); }
  long size(int level) const;
  long nnz(int level) const;
  // sum of nnz over levels / nnz of the finest matrix
  double operator_complexity() const;

 private:
  using sp_mat_r = Eigen::SparseMatrix<double, Eigen::RowMajor>;
  struct level {
    sp_mat_e A_own;              // owned matrix (levels >= 1)
    const sp_mat_e* A = nullptr; // this level's matrix
    arma::vec inv_diag;          // omega / a_ii
    sp_mat_r P;                  // prolongator from the next level (n x n_c), row-major
    sp_mat_r R;                  // P' (n_c x n), row-major, for the restriction
  };
  void vcycle(std::size_t l, const arma::mat& r, arma::mat& x) const;

  std::vector<level> levels_;
  arma::mat coarse_chol_;  // upper Cholesky factor of A_c + c b_c b_c'
  arma::mat coarse_pinv_;  // pseudo-inverse when the Cholesky factorisation fails
  arma::vec coarse_b_;     // unit null vector of the coarsest level
  arma::vec fine_b_;       // unit null vector of the finest level
  amg_options o_;
};

namespace amg_detail {
// Y = A X for a symmetric sparse A (columns read as rows), threaded over rows.
arma::mat sym_times(const Eigen::SparseMatrix<double>& A, const arma::mat& X, int n_threads);
// Aggregate index of every node (0-based, contiguous) from the strong graph
// of A; returns the number of aggregates.
long aggregate(const Eigen::SparseMatrix<double>& A, double theta, std::vector<long>& agg);
}  // namespace amg_detail

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_AMG_H
