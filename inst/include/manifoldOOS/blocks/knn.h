// Exact k-nearest neighbours and radius search (Armadillo interface).
//
// The search itself lives in knn_impl.h / src/knn.cpp behind a raw-pointer
// interface; the functions here only convert. See knn_impl.h for the
// canonical result (ordering by (distance, index), self excluded by index).
#ifndef MANIFOLDOOS_KNN_H
#define MANIFOLDOOS_KNN_H

#include <armadillo>
#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/knn_impl.h>

namespace manifoldOOS {

// m x k neighbour lists: idx holds 0-based training indices sorted by
// (distance, index); dist holds the exact Euclidean distances.
struct knn_result {
  arma::Mat<int> idx;
  arma::mat dist;
};

// Self-kNN of the training rows of X (n x p, rows are points), excluding each
// point itself by index. Requires 1 <= k <= n - 1.
inline knn_result knn_self(const arma::mat& X, int k,
                           knn_algorithm algo = knn_algorithm::automatic,
                           int n_threads = 0) {
  knn_result r;
  if (k < 1) throw input_error("knn: k must be at least 1.");
  r.idx.set_size(X.n_rows, static_cast<arma::uword>(k));
  r.dist.set_size(X.n_rows, static_cast<arma::uword>(k));
  knn_search_raw(X.memptr(), X.n_rows, X.n_cols, nullptr, X.n_rows, k, algo, n_threads,
                 r.idx.memptr(), r.dist.memptr());
  return r;
}

// kNN of the rows of Q (m x p) among the rows of X (n x p). 1 <= k <= n.
inline knn_result knn_query(const arma::mat& X, const arma::mat& Q, int k,
                            knn_algorithm algo = knn_algorithm::automatic,
                            int n_threads = 0) {
  knn_result r;
  if (k < 1) throw input_error("knn: k must be at least 1.");
  if (Q.n_cols != X.n_cols) {
    throw input_error("knn: the query points must have as many columns as the training points.");
  }
  r.idx.set_size(Q.n_rows, static_cast<arma::uword>(k));
  r.dist.set_size(Q.n_rows, static_cast<arma::uword>(k));
  if (Q.n_rows == 0) return r;
  knn_search_raw(X.memptr(), X.n_rows, X.n_cols, Q.memptr(), Q.n_rows, k, algo, n_threads,
                 r.idx.memptr(), r.dist.memptr());
  return r;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_KNN_H
