// R glue: Isomap projection of new rows with their neighbour lists given
// (from knn(), exact or HNSW), so that predict() uses the fit's search.
#define MO_GLUE_EIGEN
#include "glue.h"

#include <manifoldOOS/methods/isomap.h>

#include <string>

#include "glue_helpers.h"

// idx: 1-based m x k neighbour indices of the rows of Xnew among the rows of
// X; dist: their distances. Otherwise as .mo_isomap_project.
// [[Rcpp::export(.mo_isomap_project_nb)]]
arma::mat mo_isomap_project_nb(const arma::mat& X, const arma::mat& Xnew, const arma::imat& idx,
                               const arma::mat& dist, const arma::mat& D,
                               const arma::mat& lsharp_t, const arma::mat& coords,
                               const arma::vec& values, const arma::vec& mu, double grand_mean,
                               std::string rule, const arma::mat& Y_train, bool snap,
                               const arma::rowvec& center, const arma::mat& rotation,
                               int n_threads) {
  MO_TRY {
    manifoldOOS::knn_result nb;
    nb.idx = arma::conv_to<arma::Mat<int>>::from(idx) - 1;
    nb.dist = dist;
    if (nb.idx.n_elem && (nb.idx.min() < 0 || nb.idx.max() >= static_cast<int>(X.n_rows))) {
      throw manifoldOOS::input_error("`idx` must hold row indices of the training data.");
    }
    const manifoldOOS::lmds_map M = mo_lmds_map(lsharp_t, coords, values, mu, grand_mean);
    return manifoldOOS::isomap_project_nb(X, Xnew, nb, D, M, manifoldOOS::parse_lmds_rule(rule),
                                          Y_train, snap, center, rotation, n_threads);
  }
  MO_CATCH
}
