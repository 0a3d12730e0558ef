// Glue for the dense eigen-solvers (Armadillo only; see glue_eigen_sparse.cpp
// for the Eigen/Spectra paths).
#include "glue.h"
#include "glue_eigen_result.h"
#include <manifoldOOS/blocks/eigen_dense.h>


// All / bottom m / top m eigenpairs of a dense symmetric matrix (LAPACK).
// [[Rcpp::export(.mo_eigs_dense)]]
Rcpp::List mo_eigs_dense(const arma::mat& A, std::string which, int m) {
  MO_TRY {
    if (m < 0) throw manifoldOOS::input_error("the number of eigenpairs must be positive");
    return eigen_result_to_list(
        manifoldOOS::eig_dense(A, manifoldOOS::parse_eig_which(which), static_cast<arma::uword>(m)));
  }
  MO_CATCH
}

// Dense generalised problem A v = lambda B v (B SPD; ridge: <0 auto, 0 none, >0 fixed).
// [[Rcpp::export(.mo_geigs_dense)]]
Rcpp::List mo_geigs_dense(const arma::mat& A, const arma::mat& B, std::string which, int m,
                          double ridge) {
  MO_TRY {
    if (m < 0) throw manifoldOOS::input_error("the number of eigenpairs must be positive");
    return eigen_result_to_list(manifoldOOS::geig_dense(
        A, B, manifoldOOS::parse_eig_which(which), static_cast<arma::uword>(m), ridge));
  }
  MO_CATCH
}

// Drop the trivial (null) eigenpair of an ascending bottom-(q+1) result.
// [[Rcpp::export(.mo_drop_trivial)]]
Rcpp::List mo_drop_trivial(const arma::vec& values, const arma::mat& vectors,
                           const arma::vec& null_vec, double scale) {
  MO_TRY {
    manifoldOOS::eigen_result r;
    r.values = values;
    r.vectors = vectors;
    double dropped = 0.0;
    manifoldOOS::eigen_result out = manifoldOOS::drop_trivial(r, null_vec, scale, &dropped);
    return Rcpp::List::create(
        Rcpp::Named("values") = Rcpp::NumericVector(out.values.begin(), out.values.end()),
        Rcpp::Named("vectors") = out.vectors,
        Rcpp::Named("dropped_value") = dropped);
  }
  MO_CATCH
}
