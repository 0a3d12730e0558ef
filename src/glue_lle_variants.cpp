// Glue for the LLE variants (R/lle-variants.R): modified and Hessian LLE build
// their alignment matrices in R; this entry point computes the bottom
// eigenvectors of such a matrix with the constant vector removed, by the same
// routine as standard LLE and LTSA (local_align.h, align_bottom()).
#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/blocks/local_align.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include "glue_helpers.h"

// M: sparse symmetric positive semidefinite n x n matrix (dgCMatrix) that
// annihilates the constant vector; q: number of vectors kept.
// [[Rcpp::export(.mo_align_bottom)]]
Rcpp::List mo_align_bottom(const Eigen::Map<Eigen::SparseMatrix<double>> M, int q, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e Ms(M);
    manifoldOOS::align_result r = manifoldOOS::align_bottom(Ms, q, mo_eig_options(opts));
    return Rcpp::List::create(
        Rcpp::Named("Y") = r.Y,
        Rcpp::Named("values") = Rcpp::NumericVector(r.values.begin(), r.values.end()),
        Rcpp::Named("dropped") = r.dropped, Rcpp::Named("n_null") = r.n_null,
        Rcpp::Named("tol_null") = r.tol_null, Rcpp::Named("method") = r.method,
        Rcpp::Named("residual") = r.residual, Rcpp::Named("note") = r.note);
  }
  MO_CATCH
}
