// Glue for the iterative eigen-solvers (Eigen + Spectra) and the single entry
// point eigs_sym().
#define MO_GLUE_EIGEN
#include "glue.h"
#include "glue_eigen_result.h"
#include <manifoldOOS/blocks/eigen_sparse.h>
#include "glue_helpers.h"


// Sparse symmetric A (dgCMatrix): bottom/top/all m eigenpairs via eigs_sym().
// [[Rcpp::export(.mo_eigs_sparse)]]
Rcpp::List mo_eigs_sparse(const Eigen::Map<Eigen::SparseMatrix<double>> A, std::string which,
                          int m, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e As(A);
    return eigen_result_to_list(manifoldOOS::eigs_sym(manifoldOOS::sym_problem::sparse(As),
                                                manifoldOOS::parse_eig_which(which), m,
                                                mo_eig_options(opts)));
  }
  MO_CATCH
}

// Sparse generalised A v = lambda B v (both dgCMatrix, B SPD).
// [[Rcpp::export(.mo_geigs_sparse)]]
Rcpp::List mo_geigs_sparse(const Eigen::Map<Eigen::SparseMatrix<double>> A,
                           const Eigen::Map<Eigen::SparseMatrix<double>> B, std::string which,
                           int m, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e As(A), Bs(B);
    return eigen_result_to_list(manifoldOOS::eigs_sym(manifoldOOS::sym_problem::sparse_generalized(As, Bs),
                                                manifoldOOS::parse_eig_which(which), m,
                                                mo_eig_options(opts)));
  }
  MO_CATCH
}

// Dense symmetric A through eigs_sym(): auto chooses LAPACK or the
// matrix-free Lanczos path (top only); `center` solves for H A H.
// [[Rcpp::export(.mo_eigs_dense_auto)]]
Rcpp::List mo_eigs_dense_auto(const arma::mat& A, std::string which, int m, bool center,
                              Rcpp::List opts) {
  MO_TRY {
    return eigen_result_to_list(manifoldOOS::eigs_sym(manifoldOOS::sym_problem::dense(A, center),
                                                manifoldOOS::parse_eig_which(which), m,
                                                mo_eig_options(opts)));
  }
  MO_CATCH
}

// Top m eigenpairs of a dense symmetric K (or H K H) by matrix-free Lanczos.
// [[Rcpp::export(.mo_eigs_dense_top_matfree)]]
Rcpp::List mo_eigs_dense_top_matfree(const arma::mat& K, int m, bool center, Rcpp::List opts) {
  MO_TRY {
    return eigen_result_to_list(manifoldOOS::eigs_dense_top_matfree(K, m, center, mo_eig_options(opts)));
  }
  MO_CATCH
}
