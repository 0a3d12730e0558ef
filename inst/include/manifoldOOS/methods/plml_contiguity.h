// Contiguity repair of the PLML clusters.
//
// With c = floor(n / k) clusters of at least h = k points the constrained
// k-means assignment must move points across clusters to fill them, and on a
// dense Swiss roll it sometimes fills a cluster with a few points from the
// next layer of the roll. Such a cluster is not a local patch: its plane cuts
// across the layers and, through the point MST, it links models on different
// layers, and the merged embedding folds (trustworthiness T(10) 0.86-0.97 at
// some k in 5..14 on n = 2000 rolls). The repair: the points of a cluster
// that the symmetric `n_nb`-nearest-neighbour graph restricted to the
// cluster does not connect to the cluster's largest piece are handed, piece
// by piece, to the cluster the piece touches by its shortest graph edge to
// another cluster. A cluster is only cut when its largest piece keeps at
// least `min_keep` points (a local model needs ndim + 1). Pieces are handed
// over until no cluster has a detachable piece (at most `max_rounds`
// sweeps). (The point MST is not used: MST paths between two points of one
// patch often run through a neighbouring cluster, which would cut compact
// clusters.)
#ifndef MANIFOLDOOS_PLML_CONTIGUITY_H
#define MANIFOLDOOS_PLML_CONTIGUITY_H

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include <manifoldOOS/blocks/knn.h>

namespace manifoldOOS {

namespace detail_contig {
inline int find_root(std::vector<int>& parent, int a) {
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}
}  // namespace detail_contig

struct contig_edge {
  int i;
  int j;
  double w;
};

// Returns the number of points that changed cluster; `label` (0-based, c
// clusters) is updated in place.
inline int make_clusters_contiguous(const arma::mat& X, std::vector<int>& label, int c, int min_keep,
                                    int n_threads, int n_nb = 8, int max_rounds = 10) {
  const int n = static_cast<int>(label.size());
  if (n < 3) return 0;
  n_nb = std::min(n_nb, n - 1);
  const knn_result kr = knn_self(X, n_nb, knn_algorithm::automatic, n_threads);
  std::vector<contig_edge> tree;  // the kNN graph (each pair once per direction found)
  tree.reserve(size_t(n) * n_nb);
  for (int i = 0; i < n; ++i)
    for (int r = 0; r < n_nb; ++r) tree.push_back(contig_edge{i, kr.idx(i, r), kr.dist(i, r)});
  using Edge = contig_edge;
  int moved = 0;
  for (int round = 0; round < max_rounds; ++round) {
    // pieces: components of the MST edges inside one cluster
    std::vector<int> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    for (const Edge& e : tree) {
      if (label[e.i] != label[e.j]) continue;
      const int a = detail_contig::find_root(parent, e.i), b = detail_contig::find_root(parent, e.j);
      if (a != b) parent[a] = b;
    }
    std::vector<int> piece(n), piece_size(n, 0);
    for (int i = 0; i < n; ++i) {
      piece[i] = detail_contig::find_root(parent, i);
      ++piece_size[piece[i]];
    }
    // the largest piece of every cluster (ties: the smallest root index)
    std::vector<int> main_piece(c, -1);
    for (int i = 0; i < n; ++i) {
      const int l = label[i], r = piece[i];
      const int m = main_piece[l];
      if (m < 0 || piece_size[r] > piece_size[m] || (piece_size[r] == piece_size[m] && r < m)) main_piece[l] = r;
    }
    // for every detached piece, its shortest MST edge to another cluster
    std::vector<double> best_w(n, std::numeric_limits<double>::infinity());
    std::vector<int> best_to(n, -1);
    for (const Edge& e : tree) {
      if (label[e.i] == label[e.j]) continue;
      const int ends[2][2] = {{e.i, e.j}, {e.j, e.i}};
      for (const auto& ab : ends) {
        const int r = piece[ab[0]];
        if (r == main_piece[label[ab[0]]]) continue;
        if (e.w < best_w[r] || (e.w == best_w[r] && label[ab[1]] < best_to[r])) {
          best_w[r] = e.w;
          best_to[r] = label[ab[1]];
        }
      }
    }
    int moved_now = 0;
    for (int i = 0; i < n; ++i) {
      const int r = piece[i];
      const int l = label[i];
      if (r == main_piece[l] || best_to[r] < 0) continue;
      if (piece_size[main_piece[l]] < min_keep) continue;
      label[i] = best_to[r];
      ++moved_now;
    }
    moved += moved_now;
    if (moved_now == 0) break;
  }
  return moved;
}

}  // namespace manifoldOOS

#endif
