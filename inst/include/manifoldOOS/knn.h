// Exact k-nearest neighbours (interface; implementation in progress).
#ifndef MANIFOLDOOS_KNN_H
#define MANIFOLDOOS_KNN_H

#include <armadillo>
#include "common.h"

namespace manifoldOOS {

enum class knn_algorithm { automatic, kdtree, brute };

// m x k neighbour lists: idx holds 0-based training indices sorted by
// (distance, index); dist holds the exact Euclidean distances.
struct knn_result {
  arma::Mat<int> idx;
  arma::mat dist;
};

// Self-kNN of the training rows of X (n x p, rows are points), excluding each
// point itself by index. Requires 1 <= k <= n - 1.
knn_result knn_self(const arma::mat& X, int k,
                    knn_algorithm algo = knn_algorithm::automatic,
                    int n_threads = 0);

// kNN of the rows of Q (m x p) among the rows of X (n x p). 1 <= k <= n.
knn_result knn_query(const arma::mat& X, const arma::mat& Q, int k,
                     knn_algorithm algo = knn_algorithm::automatic,
                     int n_threads = 0);

}  // namespace manifoldOOS

#endif
