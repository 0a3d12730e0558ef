// Minimum spanning trees: the Euclidean MST of a point set (exact Prim, or
// Kruskal on a kNN graph with the components joined by their closest pairs)
// and Kruskal's MST of a weighted graph. Used by PLML's topology step and by
// the tests; the point MST uses the raw-pointer graph core (graph.h).
#ifndef MANIFOLDOOS_BLOCKS_MST_H
#define MANIFOLDOOS_BLOCKS_MST_H

#include <armadillo>
#include <algorithm>
#include <numeric>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/graph.h>
#include <manifoldOOS/blocks/knn.h>

namespace manifoldOOS {

// Euclidean minimum spanning tree of the rows of X (n - 1 edges, 0-based,
// i < j). mst_knn = 0: exact (Prim, O(n^2 p)); > 0: Kruskal on the
// symmetric mst_knn-NN graph, components joined by their closest pairs (an
// MST over components): exact whenever the kNN graph contains the MST.
struct mst_edge {
  int i;
  int j;
  double w;
};
inline std::vector<mst_edge> euclidean_mst(const arma::mat& X, int mst_knn, int n_threads,
                                           const knn_result* graph = nullptr);

// Minimum spanning tree/forest (Kruskal, ties broken by (w, i, j)) of a
// weighted graph on nv vertices.
inline std::vector<mst_edge> kruskal_mst(int nv, std::vector<mst_edge> edges);

// Sort edges (i < j already) by (i, j) and keep the first of each pair.
inline void drop_duplicate_edges(std::vector<mst_edge>& edges) {
  std::sort(edges.begin(), edges.end(), [](const mst_edge& a, const mst_edge& b) {
    if (a.i != b.i) return a.i < b.i;
    return a.j < b.j;
  });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const mst_edge& a, const mst_edge& b) { return a.i == b.i && a.j == b.j; }),
              edges.end());
}

namespace mst_detail {

inline bool edge_less(const mst_edge& a, const mst_edge& b) {
  if (a.w != b.w) return a.w < b.w;
  if (a.i != b.i) return a.i < b.i;
  return a.j < b.j;
}

}  // namespace mst_detail

inline std::vector<mst_edge> kruskal_mst(int nv, std::vector<mst_edge> edges) {
  std::sort(edges.begin(), edges.end(), mst_detail::edge_less);
  union_find uf(nv);
  std::vector<mst_edge> out;
  out.reserve(nv > 0 ? nv - 1 : 0);
  for (const mst_edge& e : edges) {
    if (uf.unite(e.i, e.j)) out.push_back(e);
    if (int(out.size()) == nv - 1) break;
  }
  return out;
}

inline std::vector<mst_edge> euclidean_mst(const arma::mat& X, int mst_knn, int n_threads,
                                           const knn_result* graph) {
  const int n = X.n_rows, p = X.n_cols;
  std::vector<mst_edge> out;
  if (n < 2) return out;
  if (mst_knn <= 0 || mst_knn >= n - 1) {
    std::vector<int> label(n);
    std::iota(label.begin(), label.end(), 0);
    // Prim: one O(n p) pass per point; serial, since a parallel region per
    // pass costs more than it saves on a loaded machine.
    for (const added_edge& e :
         connect_components(X.memptr(), n, p, label, n, connect_rule::mst, 1))
      out.push_back(mst_edge{e.i, e.j, e.length});
    return out;
  }
  if (graph && (int(graph->idx.n_rows) != n || int(graph->idx.n_cols) < mst_knn ||
                graph->dist.n_rows != graph->idx.n_rows || graph->dist.n_cols != graph->idx.n_cols))
    throw input_error("the precomputed MST neighbour graph does not match the data.");
  const knn_result kr = graph ? *graph : knn_self(X, mst_knn, knn_algorithm::automatic, n_threads);
  std::vector<mst_edge> edges;
  edges.reserve(size_t(n) * mst_knn);
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < mst_knn; ++r) {
      const int j = kr.idx(i, r);
      edges.push_back(mst_edge{std::min(i, j), std::max(i, j), kr.dist(i, r)});
    }
  drop_duplicate_edges(edges);
  out = kruskal_mst(n, edges);
  if (int(out.size()) < n - 1) {
    union_find uf(n);
    for (const mst_edge& e : out) uf.unite(e.i, e.j);
    std::vector<int> root_id(n, -1), label(n);
    int nc = 0;
    for (int v = 0; v < n; ++v) {
      const int r = uf.find(v);
      if (root_id[r] < 0) root_id[r] = nc++;
      label[v] = root_id[r];
    }
    for (const added_edge& e :
         connect_components(X.memptr(), n, p, label, nc, connect_rule::mst, n_threads))
      out.push_back(mst_edge{e.i, e.j, e.length});
  }
  return out;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_BLOCKS_MST_H
