// Exact k-nearest neighbours among the rows of a sparse matrix, without a
// dense copy: Euclidean (optionally on implicitly row-centred rows, which
// with rows scaled to unit centred norm is the correlation distance) and
// Manhattan.
//
// Candidates come from an inverted index (the training matrix's columns):
// for query q and training row x, only their common non-zeros change the
// distance from its value for disjoint supports, so
//   |q - x|^2 = |q|^2 + |x|^2 - sum_common 2 q_j x_j,
//   |q - x|_1 = |q|_1 + |x|_1 - sum_common (|q_j| + |x_j| - |q_j - x_j|).
// Every point whose expansion lies within a rounding-error bound of the k-th
// smallest is then measured exactly by merging the two rows in column order
// (for the Euclidean distance, bitwise the sum of the dense search), and the
// lists are the canonical ones of the dense search: sorted by (distance,
// index), a self-search excludes the point itself by index.
#ifndef MANIFOLDOOS_KNN_SPARSE_H
#define MANIFOLDOOS_KNN_SPARSE_H

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/knn.h>
#include <manifoldOOS/blocks/sparse_rows.h>

namespace manifoldOOS {

enum class sparse_metric { euclidean, manhattan };

// kNN of the rows of Q (nullptr: self-search of X) among the rows of X.
// `centre_rows` (Euclidean only): distances between the rows minus their
// means over all n_cols columns. Returns 0-based indices and distances.
knn_result knn_sparse(const csc_view& X, const csc_view* Q, int k, sparse_metric metric,
                      bool centre_rows, int n_threads);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_KNN_SPARSE_H
