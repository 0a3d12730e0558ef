// Conversion of an eigen-solver result to an R list (shared by the dense and
// the sparse eigen glue).
#ifndef MANIFOLDOOS_GLUE_EIGEN_RESULT_H
#define MANIFOLDOOS_GLUE_EIGEN_RESULT_H

#include <manifoldOOS/blocks/eigen_dense.h>

inline Rcpp::List eigen_result_to_list(const manifoldOOS::eigen_result& r) {
  return Rcpp::List::create(
      Rcpp::Named("values") = Rcpp::NumericVector(r.values.begin(), r.values.end()),
      Rcpp::Named("vectors") = r.vectors,
      Rcpp::Named("method") = r.method_used,
      Rcpp::Named("n_iter") = static_cast<double>(r.n_iter),
      Rcpp::Named("n_ops") = static_cast<double>(r.n_ops),
      Rcpp::Named("status") = r.status,
      Rcpp::Named("attempts") = r.attempts,
      Rcpp::Named("shift") = r.shift,
      Rcpp::Named("ridge") = r.ridge,
      Rcpp::Named("residual") = r.residual,
      Rcpp::Named("note") = r.note);
}

#endif
