// Helpers shared by the LLE, LTSA and Laplacian-eigenmap glue files (include
// after glue.h with MO_GLUE_EIGEN defined).
#ifndef MANIFOLDOOS_GLUE_SPECTRAL_LOCAL_H
#define MANIFOLDOOS_GLUE_SPECTRAL_LOCAL_H

#include <manifoldOOS/eigen_sparse.h>
#include <string>

// Eigen-solver options from the list built by R/eigen.R (eig_opts()).
inline manifoldOOS::eig_options mo_eig_options(const Rcpp::List& L) {
  manifoldOOS::eig_options o;
  if (L.containsElementNamed("method"))
    o.method = manifoldOOS::parse_eig_method(Rcpp::as<std::string>(L["method"]));
  if (L.containsElementNamed("dense_max_n")) o.dense_max_n = Rcpp::as<double>(L["dense_max_n"]);
  if (L.containsElementNamed("fallback_max_n"))
    o.fallback_max_n = Rcpp::as<double>(L["fallback_max_n"]);
  if (L.containsElementNamed("shift_eps")) o.shift_eps = Rcpp::as<double>(L["shift_eps"]);
  if (L.containsElementNamed("tol")) o.tol = Rcpp::as<double>(L["tol"]);
  if (L.containsElementNamed("maxit")) o.maxit = Rcpp::as<double>(L["maxit"]);
  if (L.containsElementNamed("ncv")) o.ncv = Rcpp::as<double>(L["ncv"]);
  return o;
}

// 1-based R neighbour matrix -> 0-based, range-checked.
inline arma::Mat<int> mo_index0(const arma::imat& idx1, arma::uword n) {
  arma::Mat<int> idx = arma::conv_to<arma::Mat<int>>::from(idx1) - 1;
  if (idx.n_elem > 0 && (idx.min() < 0 || idx.max() >= int(n)))
    throw manifoldOOS::input_error("neighbour index out of range");
  return idx;
}

#endif
