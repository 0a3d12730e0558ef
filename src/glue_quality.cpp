#define MO_GLUE_EIGEN
#include "glue.h"
#include <manifoldOOS/quality/quality.h>

namespace mq = manifoldOOS::quality;

// Trustworthiness / continuity at the sizes in k_tc and the Q_NX curve up to
// k_max (0: none); optionally the k_max x k_max co-ranking block.
// [[Rcpp::export(.mo_nx_measures)]]
Rcpp::List mo_nx_measures(const arma::mat& X, const arma::mat& Y, int k_max,
                          Rcpp::IntegerVector k_tc, bool want_T, bool want_C,
                          bool want_block, int n_threads) {
  MO_TRY {
    mq::nx_options opt;
    opt.k_max = static_cast<arma::uword>(std::max(k_max, 0));
    for (int k : k_tc) {
      if (k < 1) throw manifoldOOS::input_error("neighbourhood sizes must be positive");
      opt.k_tc.push_back(static_cast<arma::uword>(k));
    }
    opt.want_T = want_T;
    opt.want_C = want_C;
    opt.want_block = want_block;
    opt.n_threads = n_threads;
    mq::nx_result r = mq::neighbourhood_measures(X, Y, opt);
    Rcpp::List out = Rcpp::List::create(
        Rcpp::Named("T") = Rcpp::NumericVector(r.T.begin(), r.T.end()),
        Rcpp::Named("C") = Rcpp::NumericVector(r.C.begin(), r.C.end()),
        Rcpp::Named("qnx") = Rcpp::NumericVector(r.qnx.begin(), r.qnx.end()));
    if (want_block) out["block"] = Rcpp::wrap(r.block);
    return out;
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_coranking_full)]]
Rcpp::IntegerMatrix mo_coranking_full(const arma::mat& X, const arma::mat& Y, int n_threads) {
  MO_TRY {
    arma::Mat<int> Q = mq::coranking_full(X, Y, n_threads);
    Rcpp::IntegerMatrix out(Q.n_rows, Q.n_cols);
    std::copy(Q.begin(), Q.end(), out.begin());
    return out;
  }
  MO_CATCH
}

// Geodesic residual variance; W is the symmetric dgCMatrix of edge lengths.
// [[Rcpp::export(.mo_rv_geodesic)]]
double mo_rv_geodesic(const Eigen::Map<Eigen::SparseMatrix<double>> W, const arma::mat& Y,
                      bool all_pairs, int n_threads) {
  MO_TRY {
    manifoldOOS::adjacency_view G;
    G.n = static_cast<int>(W.cols());
    G.adj_ptr = W.outerIndexPtr();
    G.adj_idx = W.innerIndexPtr();
    G.adj_len = W.valuePtr();
    return mq::residual_variance_geodesic(G, Y, all_pairs, n_threads);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_rv_dist)]]
double mo_rv_dist(const arma::mat& D, const arma::mat& Y, bool all_pairs, int n_threads) {
  MO_TRY { return mq::residual_variance_dist(D, Y, all_pairs, n_threads); }
  MO_CATCH
}

// [[Rcpp::export(.mo_procrustes)]]
Rcpp::List mo_procrustes(const arma::mat& target, const arma::mat& Y, bool scale,
                         bool reflection) {
  MO_TRY {
    manifoldOOS::procrustes_result r = manifoldOOS::procrustes(target, Y, scale, reflection);
    return Rcpp::List::create(
        Rcpp::Named("rotation") = r.rotation, Rcpp::Named("scale") = r.scale,
        Rcpp::Named("translation") =
            Rcpp::NumericVector(r.translation.begin(), r.translation.end()),
        Rcpp::Named("fitted") = r.fitted, Rcpp::Named("ss") = r.ss,
        Rcpp::Named("trace") = r.trace, Rcpp::Named("ss_target") = r.ss_target,
        Rcpp::Named("ss_moving") = r.ss_moving);
  }
  MO_CATCH
}
