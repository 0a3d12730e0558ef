// Glue for local and global regressive mapping (inst/include/manifoldOOS/lgrm.h).
#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/methods/lgrm.h>
#include <manifoldOOS/methods/lgrm_nystrom.h>
#include "glue_helpers.h"

namespace {

Rcpp::List lgrm_result_list(const manifoldOOS::lgrm_fit_result& r) {
  return Rcpp::List::create(
      Rcpp::Named("Y") = r.emb.Y, Rcpp::Named("values") = mo_vec(r.emb.values),
      Rcpp::Named("tau") = r.emb.tau, Rcpp::Named("method") = r.emb.method,
      Rcpp::Named("note") = r.emb.note, Rcpp::Named("beta") = r.beta,
      Rcpp::Named("c") = mo_vec(arma::vec(r.c.t())), Rcpp::Named("train_residual") = r.train_residual,
      Rcpp::Named("global_method") = r.global_method, Rcpp::Named("lg_quad") = r.lg_quad,
      Rcpp::Named("ll_quad") = r.ll_quad);
}

}  // namespace

// Local matrix L_l of LGRM (cliques 1-based, first column the point itself).
// [[Rcpp::export(.mo_lgrm_local)]]
Rcpp::List mo_lgrm_local(const arma::mat& X, const arma::imat& nbhd1, int p, double gamma,
                         int n_threads) {
  MO_TRY {
    const arma::Mat<int> nb = mo_index0(nbhd1, X.n_rows);
    manifoldOOS::lgrm_local r = manifoldOOS::lgrm_local_matrix(X, nb, p, gamma, n_threads);
    return Rcpp::List::create(Rcpp::Named("L") = r.L, Rcpp::Named("sv") = r.sv,
                              Rcpp::Named("n_rank_deficient") = static_cast<double>(r.n_rank_deficient));
  }
  MO_CATCH
}

// Exact fit. Kuser: the training kernel (user kernels) or 0 x 0 to compute
// the built-in kernel of X here.
// [[Rcpp::export(.mo_lgrm_fit)]]
Rcpp::List mo_lgrm_fit(const Eigen::Map<Eigen::SparseMatrix<double>> Lloc, const arma::mat& X,
                       const arma::mat& Kuser, std::string type, double sigma, double kgamma,
                       double coef0, double degree, int ndim, double gamma, double mu, bool dense,
                       Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::sp_mat_e L(Lloc);
    arma::mat K;
    if (Kuser.n_elem > 0) {
      K = Kuser;
    } else {
      K = manifoldOOS::kernel_train(X, mo_kernel_spec(type, sigma, kgamma, coef0, degree));
    }
    manifoldOOS::lgrm_fit_result r =
        manifoldOOS::lgrm_fit_exact(L, K, ndim, gamma, mu, dense, mo_eig_options(opts));
    return lgrm_result_list(r);
  }
  MO_CATCH
}

// Nystrom fit: WZ = kappa(Z, Z); the landmark kernel kappa(X, Z) is Ckz when
// given (user kernels; `type` is then ignored), else computed here by row blocks from X and Z
// (built-in kernels; Ckz is 0 x 0).
// [[Rcpp::export(.mo_lgrm_fit_nystrom)]]
Rcpp::List mo_lgrm_fit_nystrom(const Eigen::Map<Eigen::SparseMatrix<double>> Lloc, const arma::mat& X,
                               const arma::mat& Z, const arma::mat& Ckz, const arma::mat& WZ,
                               std::string type, double sigma, double kgamma, double coef0, double degree,
                               int ndim, double gamma, double mu, Rcpp::List opts, int n_threads) {
  MO_TRY {
    const manifoldOOS::sp_mat_e L(Lloc);
    const long n = L.rows();
    manifoldOOS::lgrm_kernel_rows rows;
    if (Ckz.n_elem > 0) {
      if (long(Ckz.n_rows) != n) throw manifoldOOS::input_error("the local matrix and the landmark kernel differ in size");
      rows = [&Ckz](arma::uword i0, arma::uword i1, arma::mat& out) { out = Ckz.rows(i0, i1 - 1); };
    } else {
      if (long(X.n_rows) != n) throw manifoldOOS::input_error("the local matrix and `X` differ in size");
      const manifoldOOS::kernel_spec ks = mo_kernel_spec(type, sigma, kgamma, coef0, degree);
      rows = [&X, &Z, ks](arma::uword i0, arma::uword i1, arma::mat& out) {
        out = manifoldOOS::kernel_cross(X.rows(i0, i1 - 1), Z, ks);
      };
    }
    arma::uword rank = 0;
    // opts$nystrom_explicit: the explicit formulation (tests; see lgrm_nystrom.h)
    const bool explicit_features =
        opts.containsElementNamed("nystrom_explicit") && Rcpp::as<bool>(opts["nystrom_explicit"]);
    manifoldOOS::lgrm_fit_result r = manifoldOOS::lgrm_fit_nystrom(L, rows, WZ, ndim, gamma, mu,
                                                                   mo_eig_options(opts), n_threads, rank,
                                                                   explicit_features);
    Rcpp::List out = lgrm_result_list(r);
    out["landmark_rank"] = static_cast<double>(rank);
    return out;
  }
  MO_CATCH
}

// Global matrix L_g = gamma H (HKH + gamma I)^{-1} H of a training kernel (tests).
// [[Rcpp::export(.mo_lgrm_global)]]
arma::mat mo_lgrm_global(const arma::mat& K, double gamma, bool force_eig = false) {
  MO_TRY {
    return manifoldOOS::lgrm_global_matrix(K, gamma, force_eig);
  }
  MO_CATCH
}

// Out-of-sample map y = beta' kappa(x, B) + c (built-in kernels).
// [[Rcpp::export(.mo_lgrm_predict)]]
arma::mat mo_lgrm_predict(const arma::mat& B, const arma::mat& beta, const arma::vec& c,
                          const arma::mat& Xnew, std::string type, double sigma, double kgamma,
                          double coef0, double degree, int n_threads) {
  MO_TRY {
    return manifoldOOS::lgrm_predict(B, beta, c.t(), Xnew,
                                     mo_kernel_spec(type, sigma, kgamma, coef0, degree), n_threads);
  }
  MO_CATCH
}
