// Locally linear reconstruction weights (Roweis & Saul), shared by LLE, NPE,
// ONPP, NPPE and the reconstruction-weight out-of-sample rule.
#ifndef MANIFOLDOOS_RECONSTRUCTION_H
#define MANIFOLDOOS_RECONSTRUCTION_H

#include <armadillo>
#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/neighbour_average.h>
#include <manifoldOOS/blocks/parallel.h>

namespace manifoldOOS {

// Weights w minimising ||q - sum_j w_j x_j||^2 subject to sum_j w_j = 1 for
// one query q (1 x p) and its neighbours Xn (k x p). The local Gram matrix is
// regularised as C + reg * trace(C) * I (C + reg * I when trace(C) = 0), the
// rule that keeps the weights invariant to rotation, translation and uniform
// scaling of the data.
inline arma::rowvec reconstruction_weights_one(const arma::rowvec& q, const arma::mat& Xn,
                                               double reg) {
  const arma::uword k = Xn.n_rows;
  arma::mat Z = Xn.each_row() - q;
  arma::mat C = Z * Z.t();
  const double tr = arma::trace(C);
  C.diag() += (tr > 0) ? reg * tr : reg;
  arma::vec w;
  const arma::vec ones(k, arma::fill::ones);
  bool ok = arma::solve(w, C, ones, arma::solve_opts::likely_sympd + arma::solve_opts::no_approx);
  if (!ok || !w.is_finite()) {
    ok = arma::solve(w, C, ones, arma::solve_opts::force_approx);
    if (!ok || !w.is_finite()) throw convergence_error("singular local Gram matrix in reconstruction weights; increase reg");
  }
  const double s = arma::accu(w);
  if (!(std::abs(s) > 0)) throw convergence_error("reconstruction weights do not sum to a non-zero value; increase reg");
  return (w / s).t();
}

// Weights for the rows of Q (m x p) from their neighbours among the rows of X
// (idx: m x k, 0-based). When `snap_dist` is non-empty and a query's first
// neighbour is at distance 0, the weights are one-hot on that neighbour (the
// snap rule: a new point identical to a training point gets its coordinates).
inline arma::mat reconstruction_weights(const arma::mat& X, const arma::mat& Q,
                                        const arma::Mat<int>& idx, double reg,
                                        const arma::mat& snap_dist = arma::mat(),
                                        int n_threads = 0) {
  if (Q.n_cols != X.n_cols) throw input_error("query and training data have different columns");
  if (idx.n_rows != Q.n_rows) throw input_error("one neighbour list per query row is needed");
  if (!(reg >= 0)) throw input_error("reg must be non-negative");
  const arma::uword m = Q.n_rows, k = idx.n_cols;
  const bool snap = !snap_dist.is_empty();
  arma::mat W(m, k, arma::fill::zeros);
  const bool ok = parallel_rows_guarded(
      m, n_threads, 64, [&] { return arma::mat(k, X.n_cols); },
      [&](arma::mat& Xn, std::size_t i) {
        if (snap && snap_dist(i, 0) == 0.0) {
          W(i, 0) = 1.0;
          return;
        }
        gather_neighbour_rows(X, idx, i, Xn);
        W.row(i) = reconstruction_weights_one(Q.row(i), Xn, reg);
      });
  if (!ok) throw convergence_error("singular local Gram matrix in reconstruction weights; increase reg");
  return W;
}

// y(x) = sum_j w_j y_j for each query row: m x q.
inline arma::mat reconstruct_embedding(const arma::mat& Y, const arma::Mat<int>& idx,
                                       const arma::mat& W) {
  return neighbour_average(Y, idx, W);
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_RECONSTRUCTION_H
