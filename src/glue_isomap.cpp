// R glue for Isomap and landmark Isomap (isomap.h, mds.h, lmds.h).
#define MO_GLUE_EIGEN
#include "glue.h"

#include <manifoldOOS/methods/isomap.h>
#include <manifoldOOS/methods/mds.h>

#include <string>
#include <vector>

#include "glue_helpers.h"

namespace {

using sparse_map = Eigen::Map<Eigen::SparseMatrix<double>>;


}  // namespace

// Isomap on the symmetric distance-weighted graph W (dgCMatrix, n x n).
// landmarks: empty = full Isomap; otherwise 1-based landmark indices, or
// (maxmin = TRUE) a single 1-based starting vertex and the count m.
// Returns the geodesic storage D (n x n for full Isomap, m x n otherwise),
// the (landmark) MDS model and the training embedding.
// [[Rcpp::export(.mo_isomap_fit)]]
Rcpp::List mo_isomap_fit(SEXP W, int ndim, Rcpp::IntegerVector landmarks, bool maxmin, int m_max,
                         bool normalise, Rcpp::List opts, int n_threads) {
  MO_TRY {
    const sparse_map A = Rcpp::as<sparse_map>(W);
    const manifoldOOS::adjacency_view v = mo_adjacency(A);
    const int n = v.n;
    const manifoldOOS::eig_options o = mo_eig_options(opts);

    if (landmarks.size() == 0) {
      Rcpp::NumericMatrix G(n, n);
      manifoldOOS::geodesics_all(v, G.begin(), n_threads);
      const arma::mat Gm(G.begin(), n, n, false, true);
      const manifoldOOS::cmds_model m = manifoldOOS::cmds_distances(Gm, true, ndim, o, n_threads);
      Rcpp::List out = mo_cmds_list(m);
      out["embedding"] = m.embedding;
      out["D"] = G;
      return out;
    }

    std::vector<int> lm;
    int m;
    if (maxmin) {
      if (landmarks.size() != 1) throw manifoldOOS::input_error("maxmin needs one starting vertex.");
      m = m_max;
      if (m < 1 || m > n) throw manifoldOOS::input_error("the number of landmarks must lie in [1, n].");
    } else {
      m = landmarks.size();
      lm.resize(m);
      for (int b = 0; b < m; ++b) {
        if (landmarks[b] == NA_INTEGER || landmarks[b] < 1 || landmarks[b] > n) {
          throw manifoldOOS::input_error("landmark indices must lie in [1, n].");
        }
        lm[b] = landmarks[b] - 1;
      }
    }
    Rcpp::NumericMatrix D(m, n);
    if (maxmin) {
      lm = manifoldOOS::maxmin_landmarks(v, landmarks[0] - 1, m, D.begin(), n_threads);
    } else {
      manifoldOOS::geodesics_from(v, lm, D.begin(), n_threads);
    }
    const arma::mat Dm(D.begin(), m, n, false, true);
    // landmark block, made exactly symmetric (min of the two directions)
    arma::mat Dmm(m, m);
    for (int b = 0; b < m; ++b) Dmm.col(b) = Dm.col(lm[b]);
    Dmm = arma::min(Dmm, Dmm.t());
    const manifoldOOS::cmds_model mm = manifoldOOS::cmds_distances(Dmm, true, ndim, o, n_threads);
    // every training point (landmarks included) triangulated from its column of D
    arma::mat Y = manifoldOOS::lmds_place_columns(mm.as_map(),
                                                  manifoldOOS::lmds_rule::triangulation, Dm,
                                                  n_threads);
    arma::rowvec center;
    arma::mat R;
    if (normalise) Y = manifoldOOS::landmark_normalisation(Y, center, R);
    Rcpp::List out = mo_cmds_list(mm);
    out["embedding"] = Y;
    out["D"] = D;
    Rcpp::IntegerVector lm1(m);
    for (int b = 0; b < m; ++b) lm1[b] = lm[b] + 1;
    out["landmarks"] = lm1;
    out["center"] = Rcpp::NumericVector(center.begin(), center.end());
    out["rotation"] = R;
    return out;
  }
  MO_CATCH
}

// Out-of-sample Isomap for new rows (see isomap_project()).
// [[Rcpp::export(.mo_isomap_project)]]
arma::mat mo_isomap_project(const arma::mat& X, const arma::mat& Xnew, int k, const arma::mat& D,
                            const arma::mat& lsharp_t, const arma::mat& coords,
                            const arma::vec& values, const arma::vec& mu, double grand_mean,
                            std::string rule, const arma::mat& Y_train, bool snap,
                            const arma::rowvec& center, const arma::mat& rotation,
                            int n_threads) {
  MO_TRY {
    const manifoldOOS::lmds_map M = mo_lmds_map(lsharp_t, coords, values, mu, grand_mean);
    return manifoldOOS::isomap_project(X, Xnew, k, D, M, manifoldOOS::parse_lmds_rule(rule),
                                       Y_train, snap, center, rotation, n_threads);
  }
  MO_CATCH
}
