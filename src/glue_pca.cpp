#include "glue.h"
#include <manifoldOOS/methods/pca.h>

// [[Rcpp::export(.mo_pca_fit)]]
Rcpp::List mo_pca_fit(const arma::mat& X, int ndim, bool scale) {
  MO_TRY {
    manifoldOOS::pca_model m = manifoldOOS::pca_fit(X, ndim, scale);
    return Rcpp::List::create(
        Rcpp::Named("center") = Rcpp::NumericVector(m.center.begin(), m.center.end()),
        Rcpp::Named("scale") = Rcpp::NumericVector(m.scale.begin(), m.scale.end()),
        Rcpp::Named("rotation") = m.rotation,
        Rcpp::Named("sdev") = Rcpp::NumericVector(m.sdev.begin(), m.sdev.end()),
        Rcpp::Named("scores") = m.scores);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_pca_project)]]
arma::mat mo_pca_project(const arma::mat& Xnew, const arma::rowvec& center,
                         const arma::rowvec& scale, const arma::mat& rotation) {
  MO_TRY {
    manifoldOOS::pca_model m;
    m.center = center;
    m.scale = scale;
    m.rotation = rotation;
    return manifoldOOS::pca_project(m, Xnew);
  }
  MO_CATCH
}
