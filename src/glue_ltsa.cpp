// Glue for local tangent space alignment (inst/include/manifoldOOS/ltsa.h).
#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/methods/ltsa.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include "glue_helpers.h"

// nbhd1: n x k neighbourhoods (1-based; normally x_i itself first).
// [[Rcpp::export(.mo_ltsa_fit)]]
Rcpp::List mo_ltsa_fit(const arma::mat& X, const arma::imat& nbhd1, int q, Rcpp::List opts,
                       int n_threads) {
  MO_TRY {
    const arma::Mat<int> nb = mo_index0(nbhd1, X.n_rows);
    manifoldOOS::ltsa_alignment B = manifoldOOS::ltsa_alignment_matrix(X, nb, q, n_threads);
    manifoldOOS::align_result r = manifoldOOS::align_bottom(B.B, q, mo_eig_options(opts));
    return Rcpp::List::create(
        Rcpp::Named("Y") = r.Y,
        Rcpp::Named("values") = Rcpp::NumericVector(r.values.begin(), r.values.end()),
        Rcpp::Named("dropped") = r.dropped, Rcpp::Named("n_null") = r.n_null,
        Rcpp::Named("tol_null") = r.tol_null, Rcpp::Named("method") = r.method,
        Rcpp::Named("residual") = r.residual, Rcpp::Named("note") = r.note,
        Rcpp::Named("n_rank_deficient") = static_cast<double>(B.n_rank_deficient));
  }
  MO_CATCH
}

// The alignment matrix itself (tests).
// [[Rcpp::export(.mo_ltsa_alignment)]]
Eigen::SparseMatrix<double> mo_ltsa_alignment(const arma::mat& X, const arma::imat& nbhd1, int q) {
  MO_TRY {
    const arma::Mat<int> nb = mo_index0(nbhd1, X.n_rows);
    return manifoldOOS::ltsa_alignment_matrix(X, nb, q, 1).B;
  }
  MO_CATCH
}
