// R glue for the linear projections (LPP, OLPP, NPE, ONPP, spectral regression
// and its kernel form) and NPPE, which solves its generalised problem through
// them.
#define MO_GLUE_EIGEN
#include "glue.h"

#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/methods/linear_projections.h>
#include <manifoldOOS/methods/nppe.h>



#include "glue_helpers.h"

// ----------------------------------------------------------------------------
// Glue for the linear projections (LPP, OLPP, NPE, ONPP) and the regression
// steps of spectral regression / kernel LPP.

// Xc: centred data (n x p); N: sparse symmetric n x n; b: constraint weights.
// [[Rcpp::export(.mo_linear_projection)]]
Rcpp::List mo_linear_projection(const arma::mat& Xc, const Eigen::Map<Eigen::SparseMatrix<double>> N,
                                const arma::vec& b, std::string constraint, std::string which,
                                int m, bool pca, bool force_pca, double ridge, double rank_tol,
                                int dense_max, bool deflate, Rcpp::List eig) {
  MO_TRY {
    const manifoldOOS::lp_constraint con = manifoldOOS::parse_choice<manifoldOOS::lp_constraint>(
        constraint,
        {{"weighted", manifoldOOS::lp_constraint::weighted},
         {"orthogonal", manifoldOOS::lp_constraint::orthogonal}},
        "unknown constraint");
    const manifoldOOS::eig_which wh = manifoldOOS::parse_eig_which(which);
    if (m < 1) throw manifoldOOS::input_error("`ndim` must be positive");
    // every field of lp_options, in its order
    const manifoldOOS::lp_options o{con,   wh,       m,         pca,     force_pca,
                                    ridge, rank_tol, dense_max, deflate, mo_eig_options(eig)};
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
    const arma::Mat<int> idx = mo_index0(idx1, idx1.n_rows);
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

// ----------------------------------------------------------------------------
// Glue for NPPE / SNPPE (inst/include/manifoldOOS/nppe.h).

namespace {

manifoldOOS::nppe_model mo_nppe_model(const arma::uvec& keep1, const arma::vec& mu, const arma::vec& s,
                                      const arma::vec& phibar, const arma::mat& V, int degree,
                                      const std::string& basis) {
  manifoldOOS::nppe_model md;
  if (keep1.n_elem == 0 || keep1.min() < 1) throw manifoldOOS::input_error("invalid kept columns");
  md.keep = keep1 - 1;
  md.mu = mu;
  md.s = s;
  md.phibar = phibar;
  md.V = V;
  md.basis = manifoldOOS::make_poly_basis(static_cast<long>(keep1.n_elem), degree,
                                          manifoldOOS::parse_poly_kind(basis));
  if (mu.n_elem != keep1.n_elem || s.n_elem != keep1.n_elem)
    throw manifoldOOS::input_error("inconsistent NPPE model (standardisation)");
  return md;
}

}  // namespace

// M: the LLE cost matrix (N x N).
// [[Rcpp::export(.mo_nppe_fit)]]
Rcpp::List mo_nppe_fit(const arma::mat& X, const Eigen::Map<Eigen::SparseMatrix<double>> M, int ndim,
                       int degree, std::string basis, bool center, std::string scale, double ridge,
                       bool force_range, double rank_tol, int dense_max, Rcpp::List eig, int n_threads) {
  MO_TRY {
    manifoldOOS::nppe_options o;
    o.m = ndim;
    o.p = degree;
    o.kind = manifoldOOS::parse_poly_kind(basis);
    o.center = center;
    o.scale = manifoldOOS::parse_nppe_scale(scale);
    o.ridge = ridge;
    o.force_range = force_range;
    o.rank_tol = rank_tol;
    o.dense_max = dense_max;
    o.eig = mo_eig_options(eig);
    o.n_threads = n_threads;
    const manifoldOOS::sp_mat_e Ms = M;
    manifoldOOS::nppe_result r = manifoldOOS::nppe_fit(X, Ms, o);
    return Rcpp::List::create(
        Rcpp::Named("Y") = r.Y, Rcpp::Named("V") = r.model.V,
        Rcpp::Named("values") = mo_vec(r.values),
        Rcpp::Named("keep") = mo_index1(r.model.keep),
        Rcpp::Named("dropped") = mo_index1(r.dropped),
        Rcpp::Named("mu") = mo_vec(r.model.mu), Rcpp::Named("s") = mo_vec(r.model.s),
        Rcpp::Named("phibar") = mo_vec(r.model.phibar),
        Rcpp::Named("rank") = static_cast<double>(r.rank), Rcpp::Named("path") = r.path,
        Rcpp::Named("eig_method") = r.eig_method, Rcpp::Named("ridge") = r.ridge,
        Rcpp::Named("n_collapsed") = static_cast<double>(r.n_collapsed));
  }
  MO_CATCH
}

// y(x) = V'(phi((x[keep] - mu) / s) - phibar) for every row of X.
// [[Rcpp::export(.mo_nppe_predict)]]
arma::mat mo_nppe_predict(const arma::mat& X, const arma::uvec& keep1, const arma::vec& mu,
                          const arma::vec& s, const arma::vec& phibar, const arma::mat& V, int degree,
                          std::string basis, int n_threads) {
  MO_TRY {
    return manifoldOOS::nppe_predict(mo_nppe_model(keep1, mu, s, phibar, V, degree, basis), X, n_threads);
  }
  MO_CATCH
}

// Uncentred features phi((x[keep] - mu) / s) (N x q; tests and inspection).
// [[Rcpp::export(.mo_nppe_features)]]
arma::mat mo_nppe_features(const arma::mat& X, const arma::uvec& keep1, const arma::vec& mu,
                           const arma::vec& s, int degree, std::string basis) {
  MO_TRY {
    manifoldOOS::nppe_model md = mo_nppe_model(keep1, mu, s, arma::vec(), arma::mat(), degree, basis);
    return manifoldOOS::nppe_features(md, X, 1);
  }
  MO_CATCH
}

// Exponent table (q x D) of a polynomial basis.
// [[Rcpp::export(.mo_poly_exponents)]]
arma::imat mo_poly_exponents(int D, int degree, std::string basis) {
  MO_TRY {
    return manifoldOOS::poly_exponents(
        manifoldOOS::make_poly_basis(D, degree, manifoldOOS::parse_poly_kind(basis)));
  }
  MO_CATCH
}
