// Glue for the linear projections (LPP, OLPP, NPE, ONPP) and the regression
// steps of spectral regression / kernel LPP.
#define MO_GLUE_EIGEN
#include "glue.h"
#include "glue_helpers.h"
#include <manifoldOOS/methods/linear_projections.h>

namespace {

manifoldOOS::eig_options lp_eig_options(const Rcpp::List& L) {
  manifoldOOS::eig_options o;
  if (L.containsElementNamed("method"))
    o.method = manifoldOOS::parse_eig_method(Rcpp::as<std::string>(L["method"]));
  if (L.containsElementNamed("tol")) o.tol = Rcpp::as<double>(L["tol"]);
  if (L.containsElementNamed("maxit")) o.maxit = Rcpp::as<double>(L["maxit"]);
  if (L.containsElementNamed("shift_eps")) o.shift_eps = Rcpp::as<double>(L["shift_eps"]);
  if (L.containsElementNamed("ncv")) o.ncv = Rcpp::as<double>(L["ncv"]);
  return o;
}

}  // namespace

// Xc: centred data (n x p); N: sparse symmetric n x n; b: constraint weights.
// [[Rcpp::export(.mo_linear_projection)]]
Rcpp::List mo_linear_projection(const arma::mat& Xc, const Eigen::Map<Eigen::SparseMatrix<double>> N,
                                const arma::vec& b, std::string constraint, std::string which,
                                int m, bool pca, bool force_pca, double ridge, double rank_tol,
                                int dense_max, bool deflate, Rcpp::List eig) {
  MO_TRY {
    manifoldOOS::lp_options o;
    if (constraint == "weighted") {
      o.constraint = manifoldOOS::lp_constraint::weighted;
    } else if (constraint == "orthogonal") {
      o.constraint = manifoldOOS::lp_constraint::orthogonal;
    } else {
      throw manifoldOOS::input_error("unknown constraint");
    }
    o.which = manifoldOOS::parse_eig_which(which);
    if (m < 1) throw manifoldOOS::input_error("`ndim` must be positive");
    o.m = m;
    o.pca = pca;
    o.force_pca = force_pca;
    o.ridge = ridge;
    o.rank_tol = rank_tol;
    o.dense_max = dense_max;
    o.deflate_orthogonal = deflate;
    o.eig = lp_eig_options(eig);
    const manifoldOOS::sp_mat_e Ns = N;
    manifoldOOS::lp_result r = manifoldOOS::linear_projection(Xc, Ns, b, o);
    return Rcpp::List::create(
        Rcpp::Named("A") = r.A,
        Rcpp::Named("values") = Rcpp::NumericVector(r.values.begin(), r.values.end()),
        Rcpp::Named("rank") = static_cast<double>(r.rank),
        Rcpp::Named("path") = r.path,
        Rcpp::Named("eig_method") = r.eig_method,
        Rcpp::Named("ridge") = r.ridge,
        Rcpp::Named("note") = r.note);
  }
  MO_CATCH
}

// M = (I - W)'(I - W) from 1-based neighbour indices and weights (n x k).
// [[Rcpp::export(.mo_lle_cost_matrix)]]
Eigen::SparseMatrix<double> mo_lle_cost_matrix(const arma::imat& idx1, const arma::mat& w) {
  MO_TRY {
    arma::Mat<int> idx = arma::conv_to<arma::Mat<int>>::from(idx1) - 1;
    return manifoldOOS::lle_cost_matrix(idx, w, static_cast<long>(idx.n_rows));
  }
  MO_CATCH
}

// Ridge regression coefficients of Y on centred Xc (primal or dual).
// [[Rcpp::export(.mo_ridge_coefficients)]]
Rcpp::List mo_ridge_coefficients(const arma::mat& Xc, const arma::mat& Y, double alpha) {
  MO_TRY {
    std::string path;
    arma::mat A = manifoldOOS::ridge_coefficients(Xc, Y, alpha, &path);
    return Rcpp::List::create(Rcpp::Named("A") = A, Rcpp::Named("path") = path);
  }
  MO_CATCH
}

// Kernel ridge regression with (or without) an unpenalised bias.
// [[Rcpp::export(.mo_kernel_ridge)]]
Rcpp::List mo_kernel_ridge(const arma::mat& K, const arma::mat& Y, double delta, bool intercept) {
  MO_TRY {
    manifoldOOS::kernel_ridge_fit f = manifoldOOS::kernel_ridge(K, Y, delta, intercept);
    return Rcpp::List::create(Rcpp::Named("beta") = f.beta,
                              Rcpp::Named("c") = Rcpp::NumericVector(f.c.begin(), f.c.end()));
  }
  MO_CATCH
}
