// Helpers shared by glue_kpca.cpp and glue_isomap.cpp (include after glue.h
// and <manifoldOOS/eigen_sparse.h>).
#ifndef MANIFOLDOOS_GLUE_SPECTRAL_H
#define MANIFOLDOOS_GLUE_SPECTRAL_H

#include <string>

// Eigen-solver options from the list built by eig_opts() (R/eigen.R);
// missing entries keep the defaults.
inline manifoldOOS::eig_options spectral_eig_options(const Rcpp::List& L) {
  manifoldOOS::eig_options o;
  if (L.containsElementNamed("method"))
    o.method = manifoldOOS::parse_eig_method(Rcpp::as<std::string>(L["method"]));
  if (L.containsElementNamed("dense_max_n")) o.dense_max_n = Rcpp::as<double>(L["dense_max_n"]);
  if (L.containsElementNamed("fallback_max_n"))
    o.fallback_max_n = Rcpp::as<double>(L["fallback_max_n"]);
  if (L.containsElementNamed("tol")) o.tol = Rcpp::as<double>(L["tol"]);
  if (L.containsElementNamed("maxit")) o.maxit = Rcpp::as<double>(L["maxit"]);
  if (L.containsElementNamed("ncv")) o.ncv = Rcpp::as<double>(L["ncv"]);
  return o;
}

inline Rcpp::NumericVector spectral_vec(const arma::vec& v) {
  return Rcpp::NumericVector(v.begin(), v.end());
}

#endif
