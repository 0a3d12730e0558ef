// Exact nearest-neighbour search: raw-pointer interface of the core.
//
// This header is free of Armadillo, Eigen and R so that the implementation
// (src/knn.cpp) can be compiled on its own; knn.h adds the Armadillo
// convenience layer on top.
//
// Canonical result (the canonical neighbour order documented in ?knn): for each query the training indices sorted by
// (distance, index) lexicographically, where the distance is
//   d(a, b) = sqrt(sum_{l = 0}^{p - 1} (a_l - b_l)^2)
// summed in coordinate order on the coordinates as given (canonical_sqdist).
// Every search path returns distances from that one function, so the kd-tree
// and the brute-force paths agree bitwise, ties included. A self-search
// excludes the query point by index only: exact duplicates stay neighbours of
// each other at distance 0.
#ifndef MANIFOLDOOS_KNN_IMPL_H
#define MANIFOLDOOS_KNN_IMPL_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

enum class knn_algorithm { automatic, kdtree, brute };

// Canonical squared distance between two points of dimension p (coordinates
// contiguous). Sequential summation in coordinate order.
inline double canonical_sqdist(const double* a, const double* b, std::size_t p) {
  double s = 0.0;
  for (std::size_t l = 0; l < p; ++l) {
    const double t = a[l] - b[l];
    s += t * t;
  }
  return s;
}

// Squared distance with four interleaved partial sums: several times faster
// than canonical_sqdist in high dimension, but rounded differently. For
// searches and summaries only; returned distances use canonical_sqdist.
inline double fast_sqdist(const double* a, const double* b, std::size_t p) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  std::size_t l = 0;
  for (; l + 4 <= p; l += 4) {
    const double t0 = a[l] - b[l], t1 = a[l + 1] - b[l + 1];
    const double t2 = a[l + 2] - b[l + 2], t3 = a[l + 3] - b[l + 3];
    s0 += t0 * t0;
    s1 += t1 * t1;
    s2 += t2 * t2;
    s3 += t3 * t3;
  }
  for (; l < p; ++l) {
    const double t = a[l] - b[l];
    s0 += t * t;
  }
  return (s0 + s1) + (s2 + s3);
}

// The rule used by knn_algorithm::automatic: kd-tree for low dimension and
// enough training points, brute force otherwise.
bool knn_prefer_kdtree(std::size_t n, std::size_t p);
// The path the last exact kNN search took ("kdtree", "kdtree_projected" or
// "brute"; testing hook). In more than 15 columns, algorithm "auto" takes the
// kd-tree on the leading principal axes when a pilot of 64 queries shows that
// it compares few enough points, brute force otherwise; the lists are the
// same either way.
const char* knn_last_exact_path();

// kNN core. X: n x p column-major (rows are points). Q: m x p column-major, or
// nullptr for the self-search (then m must equal n and each point is
// excluded from its own list by index). Requires 1 <= k <= n (n - 1 for the
// self-search). Writes the m x k column-major arrays idx_out (0-based) and
// dist_out. Throws input_error on inconsistent arguments.
void knn_search_raw(const double* X, std::size_t n, std::size_t p, const double* Q,
                    std::size_t m, int k, knn_algorithm algo, int n_threads,
                    int* idx_out, double* dist_out);

// Radius-search result in compressed-row form: the neighbours of query i are
// idx[ptr[i] .. ptr[i + 1] - 1] (0-based training indices) with distances
// dist[...], sorted by (distance, index).
struct radius_lists {
  std::vector<std::int64_t> ptr;
  std::vector<int> idx;
  std::vector<double> dist;
};

// All training points within distance eps (d <= eps) of each query. Same
// conventions as knn_search_raw (Q == nullptr: self-search, self excluded).
radius_lists radius_search_raw(const double* X, std::size_t n, std::size_t p,
                               const double* Q, std::size_t m, double eps,
                               knn_algorithm algo, int n_threads);

// kNN and radius lists from distances given by the user (the caller checks
// that they are finite and non-negative). Dq: n x m column-major, column a
// holding the distances of query a to the n training points; with `self`
// (m == n, Dq a distance matrix of the training points) point a is excluded
// from its own list by index. Same output conventions as knn_search_raw and
// radius_search_raw: sorted by (distance, index), 0-based indices.
void knn_from_distances_raw(const double* Dq, std::size_t n, std::size_t m, int k, bool self,
                            int n_threads, int* idx_out, double* dist_out);
radius_lists radius_from_distances_raw(const double* Dq, std::size_t n, std::size_t m, double eps,
                                       bool self);

// Cross-product kernel used by the brute-force path (testing and
// benchmarking hook; the results do not depend on it because every returned
// distance is recomputed with canonical_sqdist).
enum class gram_kernel { automatic, portable, avx2 };
void set_gram_kernel(gram_kernel kernel);
// Name of the kernel the brute-force path uses now ("portable" or "avx2").
const char* gram_kernel_name();

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_KNN_IMPL_H
