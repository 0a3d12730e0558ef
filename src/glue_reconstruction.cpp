#include "glue.h"
#include "glue_helpers.h"
#include <manifoldOOS/blocks/reconstruction.h>

// idx is 1-based from R.
// [[Rcpp::export(.mo_reconstruction_weights)]]
arma::mat mo_reconstruction_weights(const arma::mat& X, const arma::mat& Q,
                                    const arma::imat& idx1, double reg,
                                    const arma::mat& snap_dist, int n_threads) {
  MO_TRY {
    arma::Mat<int> idx = mo_index0(idx1, X.n_rows);
    return manifoldOOS::reconstruction_weights(X, Q, idx, reg, snap_dist, n_threads);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_reconstruct_embedding)]]
arma::mat mo_reconstruct_embedding(const arma::mat& Y, const arma::imat& idx1, const arma::mat& W) {
  MO_TRY {
    arma::Mat<int> idx = mo_index0(idx1, Y.n_rows);
    return manifoldOOS::reconstruct_embedding(Y, idx, W);
  }
  MO_CATCH
}

// LELVM / normalised heat-kernel average (idx 1-based, dist m x k sorted).
// [[Rcpp::export(.mo_lvm_average)]]
Rcpp::List mo_lvm_average(const arma::mat& Y, const arma::imat& idx1, const arma::mat& dist,
                          double sigma) {
  MO_TRY {
    arma::Mat<int> idx = mo_index0(idx1, Y.n_rows);
    arma::uvec far;
    arma::mat out = manifoldOOS::lvm_average(Y, idx, dist, sigma, &far);
    return Rcpp::List::create(Rcpp::Named("y") = out,
                              Rcpp::Named("far") = Rcpp::LogicalVector(far.begin(), far.end()));
  }
  MO_CATCH
}
