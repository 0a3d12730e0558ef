// R glue for the generic out-of-sample maps: GOoSE, linearization, RBF
// network and kernel ridge regression.
#include "glue.h"
#include "glue_helpers.h"
#include <manifoldOOS/oos/goose.h>
#include <manifoldOOS/oos/oos_regression.h>


// GOoSE for the rows of Q; idx/dist: kNN of Q among the rows of X (1-based).
// [[Rcpp::export(.mo_goose)]]
arma::mat mo_goose(const arma::mat& X, const arma::mat& Y, const arma::mat& Q,
                   const arma::imat& idx1, const arma::mat& dist, std::string scale,
                   std::string variant, bool snap, int n_threads) {
  MO_TRY {
    return manifoldOOS::goose(X, Y, Q, mo_index0(idx1, X.n_rows), dist,
                              manifoldOOS::parse_goose_scale(scale),
                              manifoldOOS::parse_goose_variant(variant), snap, n_threads);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_linear_fit)]]
Rcpp::List mo_linear_fit(const arma::mat& X, const arma::mat& Y, bool intercept, double ridge) {
  MO_TRY {
    manifoldOOS::linear_map m = manifoldOOS::linear_fit(X, Y, intercept, ridge);
    return Rcpp::List::create(Rcpp::Named("mu") = Rcpp::NumericVector(m.mu.begin(), m.mu.end()),
                              Rcpp::Named("ybar") = Rcpp::NumericVector(m.ybar.begin(), m.ybar.end()),
                              Rcpp::Named("A") = m.A, Rcpp::Named("rank") = int(m.rank));
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_linear_predict)]]
arma::mat mo_linear_predict(const arma::rowvec& mu, const arma::rowvec& ybar, const arma::mat& A,
                            const arma::mat& Q) {
  MO_TRY {
    manifoldOOS::linear_map m;
    m.mu = mu;
    m.ybar = ybar;
    m.A = A;
    if (Q.n_cols != A.n_rows) throw manifoldOOS::input_error("newdata has the wrong number of columns");
    return manifoldOOS::linear_predict(m, Q);
  }
  MO_CATCH
}

// RBF network coefficients (aperture s: phi = exp(-r^2 / s)).
// [[Rcpp::export(.mo_rbf_network_fit)]]
Rcpp::List mo_rbf_network_fit(const arma::mat& X, const arma::mat& Y, double s, double ridge) {
  MO_TRY {
    manifoldOOS::kernel_map m = manifoldOOS::rbf_network_fit(X, Y, s, ridge);
    return Rcpp::List::create(Rcpp::Named("C") = m.C, Rcpp::Named("shift") = m.shift);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_krr_fit)]]
Rcpp::List mo_krr_fit(const arma::mat& X, const arma::mat& Y, std::string type, double sigma,
                      double gamma, double coef0, double degree, double lambda,
                      bool feature_intercept) {
  MO_TRY {
    manifoldOOS::kernel_map m = manifoldOOS::krr_fit(
        X, Y, mo_kernel_spec(type, sigma, gamma, coef0, degree), lambda, feature_intercept);
    return Rcpp::List::create(Rcpp::Named("C") = m.C,
                              Rcpp::Named("ybar") = Rcpp::NumericVector(m.ybar.begin(), m.ybar.end()),
                              Rcpp::Named("shift") = m.shift);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_krr_gcv)]]
arma::vec mo_krr_gcv(const arma::mat& X, const arma::mat& Y, std::string type, double sigma,
                     double gamma, double coef0, double degree, const arma::vec& grid,
                     bool feature_intercept) {
  MO_TRY {
    return manifoldOOS::krr_gcv(X, Y, mo_kernel_spec(type, sigma, gamma, coef0, degree), grid,
                                feature_intercept);
  }
  MO_CATCH
}

// ybar + K(Q, X) C for a kernel map.
// [[Rcpp::export(.mo_kernel_map_predict)]]
arma::mat mo_kernel_map_predict(const arma::mat& X, const arma::mat& C, const arma::rowvec& ybar,
                                const arma::mat& Q, std::string type, double sigma, double gamma,
                                double coef0, double degree, int n_threads) {
  MO_TRY {
    if (Q.n_cols != X.n_cols) throw manifoldOOS::input_error("newdata has the wrong number of columns");
    manifoldOOS::kernel_map m;
    m.C = C;
    m.ybar = ybar;
    return manifoldOOS::kernel_map_predict(m, X, Q, mo_kernel_spec(type, sigma, gamma, coef0, degree),
                                           n_threads);
  }
  MO_CATCH
}
