// Neighbourhood graphs: construction from neighbour lists, symmetrisation,
// edge weights, bandwidth rules, connected components, connecting
// components, graph Laplacians.
//
// Conventions (the graph conventions of ?neighbour_graph): points are 0-based indices 0..n-1. Sparse
// matrices are Eigen::SparseMatrix<double> in compressed column (CSC) form.
// W(i, j) is the weight of the edge i -> j; W has a zero diagonal. Edges are
// given by the sparsity *structure*: an edge may carry the value 0 (a
// zero-length edge between duplicate points with weights = distance, or a
// heat weight that underflowed); such entries are stored explicitly.
//
// Implementations: src/graph_core.cpp (Eigen) and src/graph_connect.cpp
// (dense coordinate work). No R or Rcpp types here.
#ifndef MANIFOLDOOS_GRAPH_H
#define MANIFOLDOOS_GRAPH_H

#include <manifoldOOS/core/eigen_sparse.h>
#include <cstddef>
#include <vector>

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

// Symmetrisation of a directed neighbour relation (?neighbour_graph). A missing
// direction counts as weight 0 for "mean"; "min_and" keeps an edge only when
// both directions exist; "max_or" keeps it when either exists.
enum class symmetrize_rule { max_or, min_and, mean, none };

// Edge weights (the bandwidth rules of ?neighbour_graph): 1; exp(-d^2 / (2 sigma^2)); the length d.
enum class weight_rule { binary, heat, distance };

// Read-only view of a CSC sparse matrix (no ownership). For a symmetric
// matrix the same arrays are also its CSR form.
struct csc_view {
  int n_rows = 0;
  int n_cols = 0;
  const int* col_ptr = nullptr;  // length n_cols + 1
  const int* row_idx = nullptr;  // length col_ptr[n_cols]
  const double* values = nullptr;
};

// View of a compressed Eigen sparse matrix (Eigen::SparseMatrix or a Map).
template <typename Sparse>
inline csc_view view_of(const Sparse& A) {
  csc_view v;
  v.n_rows = static_cast<int>(A.rows());
  v.n_cols = static_cast<int>(A.cols());
  v.col_ptr = A.outerIndexPtr();
  v.row_idx = A.innerIndexPtr();
  v.values = A.valuePtr();
  return v;
}

// Weight of an edge of length d.
double edge_weight(double d, weight_rule weights, double sigma);

// Sparse weighted adjacency (n x n) from k-nearest-neighbour lists.
// idx, dist: n x k column-major arrays (entry (i, r) at [i + r * n]); idx is
// 0-based and must not contain i in row i. sigma is used only for heat
// weights. Throws input_error on invalid indices or distances.
Eigen::SparseMatrix<double> knn_graph(const int* idx, const double* dist, int n, int k,
                                      symmetrize_rule sym, weight_rule weights,
                                      double sigma);

// Same from radius-search lists in CSR form: the neighbours of point i are
// idx[ptr[i] .. ptr[i+1]-1] with distances dist[...] (0-based).
Eigen::SparseMatrix<double> eps_graph(const int* ptr, const int* idx, const double* dist,
                                      int n, symmetrize_rule sym, weight_rule weights,
                                      double sigma);

// ---- bandwidth rules -----------------------------------------------------
struct bandwidth_result {
  double sigma = 0.0;
  bool floored = false;  // the floor 1e-12 * max distance was applied
};

// sigma = median over points of the distance to the k-th neighbour (column
// k-1 of the n x k distance array), floored at 1e-12 * ref_max where ref_max
// is the largest known distance (the largest kNN distance when ref_max <= 0).
bandwidth_result bandwidth_median_knn(const double* dist, int n, int k, double ref_max);

// Mean, median and maximum of the pairwise Euclidean distances between the m
// rows of S (m x p, column-major), over the m(m-1)/2 pairs i < j.
struct pairwise_summary {
  double mean = 0.0;
  double median = 0.0;
  double max = 0.0;
};
pairwise_summary pairwise_distance_summary(const double* S, int m, int p, int n_threads);

// Apply the bandwidth floor sigma >= 1e-12 * ref_max.
bandwidth_result bandwidth_floor(double sigma, double ref_max);

// ---- connected components -----------------------------------------------
struct components_result {
  int n_components = 0;
  std::vector<int> label;  // 0-based; components numbered by their smallest vertex
  std::vector<int> size;   // size[c]
};

// Components of the undirected graph whose edges are the stored entries of
// the square sparse matrix A (direction ignored: for a directed graph these
// are the components of its "or" symmetrisation).
components_result connected_components(const csc_view& A);

// Smallest k' in [1, kmax] such that the kNN graph built from the first k'
// columns of the n x kmax neighbour array is connected ("or" rule, or the
// mutual rule when mutual = true). Returns -1 when even kmax does not connect.
int smallest_connecting_k(const int* idx, int n, int kmax, bool mutual);

// ---- breadth-first search -------------------------------------------------
// Breadth-first search of the graph whose edges are the stored entries of a
// compressed square matrix (the neighbours of node i are idx[ptr[i]] ..
// idx[ptr[i + 1] - 1], in that order): appends to `order` the nodes reached
// from `start` that `mark` does not flag, in the order they are reached,
// flagging them, and stops as soon as `order` holds `limit` nodes (limit < 0:
// no limit). `start` must not be flagged. The nodes of a search that stops
// early are the first ones of the full search.
void breadth_first(const int* ptr, const int* idx, int start, std::vector<char>& mark,
                   std::vector<int>& order, long limit = -1);

// ---- union-find -----------------------------------------------------------
// Disjoint sets with path halving and union by size (components, Kruskal;
// shared by graph_core.cpp and plml.h; member functions are inline).
class union_find {
 public:
  explicit union_find(int n) : parent_(n), size_(n, 1), count_(n) {
    for (int v = 0; v < n; ++v) parent_[v] = v;
  }
  int find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  // Merges the sets of x and y; false when they were one set already.
  bool unite(int x, int y) {
    x = find(x);
    y = find(y);
    if (x == y) return false;
    if (size_[x] < size_[y]) {
      const int t = x;
      x = y;
      y = t;
    }
    parent_[y] = x;
    size_[x] += size_[y];
    --count_;
    return true;
  }
  int count() const { return count_; }  // number of sets

 private:
  std::vector<int> parent_;
  std::vector<int> size_;
  int count_;
};

// ---- connecting components (the connectivity rule of ?neighbour_graph) -------------------------------------
struct added_edge {
  int i;  // 0-based, i < j
  int j;
  double length;  // distance between points i and j (Euclidean for coordinates)
};

enum class connect_rule { mst, all_pairs };

// Edges between components. X: n x p coordinates (column-major). label:
// component label of every point (0..n_components-1). "mst": the
// n_components - 1 edges of a minimum spanning tree over components, where
// the distance of two components is that of their closest pair of points;
// "all_pairs": the closest pair for every pair of components. Ties are
// broken by (length, i, j). Blocked brute force, O(n^2 p).
std::vector<added_edge> connect_components(const double* X, int n, int p,
                                           const std::vector<int>& label, int n_components,
                                           connect_rule rule, int n_threads);

// The same for points given by a symmetric n x n distance matrix D
// (column-major): the edges' lengths are entries of D.
std::vector<added_edge> connect_components_distances(const double* D, int n,
                                                     const std::vector<int>& label,
                                                     int n_components, connect_rule rule,
                                                     int n_threads);

// Adds the edges (both directions) with the given weights to W; entries
// already present are overwritten.
Eigen::SparseMatrix<double> add_edges(const Eigen::SparseMatrix<double>& W,
                                      const std::vector<added_edge>& edges,
                                      const std::vector<double>& weights);

// ---- Laplacians -----------------------------------------------------------
enum class laplacian_type { unnormalized, symmetric, random_walk };

struct laplacian_result {
  Eigen::SparseMatrix<double> L;
  std::vector<double> degree;   // d_i = sum_j W_ij (row sums)
  std::vector<int> isolated;    // 0-based vertices with d_i < 1e-300
};

// unnormalized: L = D - W; symmetric: I - D^{-1/2} W D^{-1/2};
// random_walk: I - D^{-1} W. The diagonal of W is ignored. For the
// normalised forms an isolated vertex makes D^{-1/2} undefined: its row and
// column of the normalised part are left empty (L_ii = 1) and the vertex is
// reported in `isolated`; the caller decides whether that is an error.
laplacian_result graph_laplacian(const csc_view& W, laplacian_type type);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_GRAPH_H
