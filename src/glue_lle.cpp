// Glue for locally linear embedding (inst/include/manifoldOOS/lle.h).
#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/methods/lle.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include "glue_helpers.h"

// idx1: n x k neighbour lists (1-based, self excluded).
// [[Rcpp::export(.mo_lle_fit)]]
Rcpp::List mo_lle_fit(const arma::mat& X, const arma::imat& idx1, double reg, int q,
                      Rcpp::List opts, int n_threads) {
  MO_TRY {
    const arma::Mat<int> idx = mo_index0(idx1, X.n_rows);
    manifoldOOS::lle_result r =
        manifoldOOS::lle_fit(X, idx, reg, q, mo_eig_options(opts), n_threads);
    return Rcpp::List::create(
        Rcpp::Named("Y") = r.emb.Y,
        Rcpp::Named("values") = Rcpp::NumericVector(r.emb.values.begin(), r.emb.values.end()),
        Rcpp::Named("dropped") = r.emb.dropped, Rcpp::Named("n_null") = r.emb.n_null,
        Rcpp::Named("tol_null") = r.emb.tol_null, Rcpp::Named("method") = r.emb.method,
        Rcpp::Named("residual") = r.emb.residual, Rcpp::Named("note") = r.emb.note);
  }
  MO_CATCH
}
