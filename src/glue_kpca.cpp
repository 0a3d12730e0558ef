// R glue for kernel PCA and classical MDS (kpca.h, mds.h, lmds.h).
#define MO_GLUE_EIGEN
#include "glue.h"

#include <manifoldOOS/methods/kpca.h>
#include <manifoldOOS/methods/mds.h>

#include "glue_helpers.h"

// Kernel PCA of the rows of X with a built-in kernel.
// [[Rcpp::export(.mo_kpca_fit)]]
Rcpp::List mo_kpca_fit(const arma::mat& X, int ndim, std::string kernel, double sigma,
                       double gamma, double coef0, double degree, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::kernel_spec ks = mo_kernel_spec(kernel, sigma, gamma, coef0, degree);
    manifoldOOS::kpca_model m;
    {
      const arma::mat K = manifoldOOS::kernel_train(X, ks);
      m = manifoldOOS::kpca_fit(K, ndim, mo_eig_options(opts));
    }
    return Rcpp::List::create(
        Rcpp::Named("embedding") = m.embedding, Rcpp::Named("alpha") = m.alpha,
        Rcpp::Named("values") = mo_vec(m.values),
        Rcpp::Named("col_means") = Rcpp::NumericVector(m.centering.col_means.begin(),
                                                       m.centering.col_means.end()),
        Rcpp::Named("grand_mean") = m.centering.grand_mean,
        Rcpp::Named("solver") = m.method, Rcpp::Named("n_ops") = static_cast<double>(m.n_ops),
        Rcpp::Named("note") = m.note);
  }
  MO_CATCH
}

// Exact kernel PCA projection of new rows.
// [[Rcpp::export(.mo_kpca_project)]]
arma::mat mo_kpca_project(const arma::mat& X, const arma::mat& Xnew, std::string kernel,
                          double sigma, double gamma, double coef0, double degree,
                          const arma::rowvec& col_means, double grand_mean,
                          const arma::mat& alpha, int n_threads) {
  MO_TRY {
    const manifoldOOS::kernel_spec ks = mo_kernel_spec(kernel, sigma, gamma, coef0, degree);
    manifoldOOS::kernel_centering c;
    c.col_means = col_means;
    c.grand_mean = grand_mean;
    return manifoldOOS::kpca_project(X, Xnew, ks, c, alpha, n_threads);
  }
  MO_CATCH
}

// Classical MDS of Euclidean data.
// [[Rcpp::export(.mo_mds_fit)]]
Rcpp::List mo_mds_fit(const arma::mat& X, int ndim, Rcpp::List opts) {
  MO_TRY {
    const manifoldOOS::cmds_model m = manifoldOOS::cmds_data(X, ndim, mo_eig_options(opts));
    return mo_cmds_list(m);
  }
  MO_CATCH
}

// Gower / Nystrom map of classical MDS for new rows.
// [[Rcpp::export(.mo_mds_project)]]
arma::mat mo_mds_project(const arma::mat& X, const arma::mat& Xnew, const arma::mat& lsharp_t,
                         const arma::mat& coords, const arma::vec& values, const arma::vec& mu,
                         double grand_mean, std::string rule, int n_threads) {
  MO_TRY {
    const manifoldOOS::lmds_map M = mo_lmds_map(lsharp_t, coords, values, mu, grand_mean);
    return manifoldOOS::mds_project(X, Xnew, M, manifoldOOS::parse_lmds_rule(rule), n_threads);
  }
  MO_CATCH
}

// Classical MDS of a symmetric matrix of distances (squared = FALSE) or of
// squared distances (squared = TRUE). Internal (tests, landmark blocks).
// [[Rcpp::export(.mo_cmds_distances)]]
Rcpp::List mo_cmds_distances(const arma::mat& D, bool squared, int ndim, Rcpp::List opts,
                             int n_threads) {
  MO_TRY {
    const manifoldOOS::cmds_model m =
        manifoldOOS::cmds_distances(D, !squared, ndim, mo_eig_options(opts), n_threads);
    return mo_cmds_list(m);
  }
  MO_CATCH
}
