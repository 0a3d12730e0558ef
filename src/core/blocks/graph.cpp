// Neighbourhood graphs (R-free core): construction, symmetrisation, weights,
// bandwidth from kNN distances, connected components, Laplacians.
#include <manifoldOOS/blocks/graph.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

namespace manifoldOOS {

namespace {

// One direction of a neighbour relation, stored by its unordered pair.
struct half_edge {
  int a;     // min(i, j)
  int b;     // max(i, j)
  int dir;   // 0: a -> b, 1: b -> a
  double d;  // length
};

bool half_edge_less(const half_edge& x, const half_edge& y) {
  if (x.a != y.a) return x.a < y.a;
  if (x.b != y.b) return x.b < y.b;
  return x.dir < y.dir;
}

void check_edge(int i, int j, double d, int n) {
  if (j < 0 || j >= n) {
    throw input_error("neighbour index out of range (point " + std::to_string(i + 1) +
                      " has neighbour " + std::to_string(j + 1) + ", n = " +
                      std::to_string(n) + ").");
  }
  if (j == i) {
    throw input_error("point " + std::to_string(i + 1) +
                      " appears in its own neighbour list.");
  }
  if (!(d >= 0.0) || !std::isfinite(d)) {
    throw input_error("neighbour distances must be finite and non-negative (point " +
                      std::to_string(i + 1) + ").");
  }
}

void check_sigma(weight_rule weights, double sigma) {
  if (weights == weight_rule::heat && (!(sigma > 0.0) || !std::isfinite(sigma))) {
    throw input_error("the heat-kernel bandwidth sigma must be a positive finite number.");
  }
}

// Half-edges grouped by their smaller end a: bucket a holds he[start[a] ..
// start[a + 1]), filled by a counting pass, so the n k half-edges of a kNN
// graph are never sorted as a whole.
struct half_edge_buckets {
  std::vector<std::size_t> start;
  std::vector<half_edge> he;
};

// Calls visit(emit) where emit(i, j, d) is called once for every directed
// neighbour relation i -> j of length d (the same order on both passes).
template <class Visit>
half_edge_buckets bucket_half_edges(int n, Visit visit) {
  half_edge_buckets B;
  B.start.assign(static_cast<std::size_t>(n) + 1, 0);
  visit([&](int i, int j, double d) {
    check_edge(i, j, d, n);
    ++B.start[static_cast<std::size_t>(std::min(i, j)) + 1];
  });
  for (int a = 0; a < n; ++a) B.start[a + 1] += B.start[a];
  B.he.resize(B.start[n]);
  std::vector<std::size_t> pos(B.start.begin(), B.start.end() - 1);
  visit([&](int i, int j, double d) {
    B.he[pos[std::min(i, j)]++] = i < j ? half_edge{i, j, 0, d} : half_edge{j, i, 1, d};
  });
  return B;
}

// Builds W from the bucketed half-edges. Within a bucket the half-edges are
// sorted by (b, dir) (a few dozen each), and W is written in compressed
// column form directly: for a pair a < b, column b receives row a while bucket
// a is visited and column a receives row b, so every column's rows arrive in
// increasing order (rows below the diagonal from earlier buckets first).
Eigen::SparseMatrix<double> build_from_half_edges(half_edge_buckets& B, int n,
                                                  symmetrize_rule sym, weight_rule weights,
                                                  double sigma) {
  std::vector<half_edge>& he = B.he;
  for (int a = 0; a < n; ++a) {
    std::sort(he.begin() + B.start[a], he.begin() + B.start[a + 1], half_edge_less);
  }
  // one pass per purpose: emit(a, b, has_ab, has_ba, w_ab, w_ba) per pair
  auto pairs = [&](bool with_weights, auto&& emit) {
    std::size_t s = 0;
    while (s < he.size()) {
      const int a = he[s].a, b = he[s].b;
      bool has_ab = false, has_ba = false;
      double w_ab = 0.0, w_ba = 0.0;
      std::size_t t = s;
      for (; t < he.size() && he[t].a == a && he[t].b == b; ++t) {
        const double w = with_weights ? edge_weight(he[t].d, weights, sigma) : 0.0;
        if (he[t].dir == 0) {
          if (has_ab) throw input_error("duplicated neighbour in the list of point " + std::to_string(a + 1) + ".");
          has_ab = true;
          w_ab = w;
        } else {
          if (has_ba) throw input_error("duplicated neighbour in the list of point " + std::to_string(b + 1) + ".");
          has_ba = true;
          w_ba = w;
        }
      }
      s = t;
      emit(a, b, has_ab, has_ba, w_ab, w_ba);
    }
  };
  // the entries a pair contributes: (row a, col b) and/or (row b, col a)
  auto entries = [&](bool has_ab, bool has_ba, double w_ab, double w_ba, auto&& put) {
    switch (sym) {
      case symmetrize_rule::none:
        if (has_ab) put(true, w_ab);
        if (has_ba) put(false, w_ba);
        break;
      case symmetrize_rule::max_or: {
        const double w = (has_ab && has_ba) ? std::max(w_ab, w_ba) : (has_ab ? w_ab : w_ba);
        put(true, w);
        put(false, w);
        break;
      }
      case symmetrize_rule::min_and:
        if (has_ab && has_ba) {
          const double w = std::min(w_ab, w_ba);
          put(true, w);
          put(false, w);
        }
        break;
      case symmetrize_rule::mean: {
        const double w = 0.5 * (w_ab + w_ba);  // a missing direction counts as 0
        put(true, w);
        put(false, w);
        break;
      }
    }
  };
  std::vector<long> col_start(static_cast<std::size_t>(n) + 1, 0);
  pairs(false, [&](int a, int b, bool has_ab, bool has_ba, double, double) {
    entries(has_ab, has_ba, 0.0, 0.0, [&](bool upper, double) { ++col_start[(upper ? b : a) + 1]; });
  });
  for (int c = 0; c < n; ++c) col_start[c + 1] += col_start[c];
  const long nnz = col_start[n];
  if (nnz > static_cast<long>(std::numeric_limits<int>::max())) {
    throw input_error("the neighbourhood graph has more than 2^31 - 1 edges.");
  }
  Eigen::SparseMatrix<double> W(n, n);
  W.resizeNonZeros(static_cast<Eigen::Index>(nnz));
  int* outer = W.outerIndexPtr();
  int* inner = W.innerIndexPtr();
  double* val = W.valuePtr();
  for (int c = 0; c <= n; ++c) outer[c] = static_cast<int>(col_start[c]);
  std::vector<long> fill(col_start.begin(), col_start.end() - 1);
  pairs(true, [&](int a, int b, bool has_ab, bool has_ba, double w_ab, double w_ba) {
    entries(has_ab, has_ba, w_ab, w_ba, [&](bool upper, double w) {
      const int col = upper ? b : a;
      const long at = fill[col]++;
      inner[at] = upper ? a : b;
      val[at] = w;
    });
  });
  return W;
}

double median_of(std::vector<double>& v) {
  const std::size_t m = v.size();
  if (m == 0) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t h = m / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  const double hi = v[h];
  if (m % 2 == 1) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + h);
  return 0.5 * (lo + hi);
}

}  // namespace

double edge_weight(double d, weight_rule weights, double sigma) {
  switch (weights) {
    case weight_rule::binary:
      return 1.0;
    case weight_rule::heat:
      return std::exp(-(d * d) / (2.0 * sigma * sigma));
    case weight_rule::distance:
      return d;
  }
  return d;
}

Eigen::SparseMatrix<double> knn_graph(const int* idx, const double* dist, int n, int k,
                                      symmetrize_rule sym, weight_rule weights,
                                      double sigma) {
  if (n < 1 || k < 1) throw input_error("knn_graph needs n >= 1 and k >= 1.");
  check_sigma(weights, sigma);
  half_edge_buckets B = bucket_half_edges(n, [&](auto&& emit) {
    for (int r = 0; r < k; ++r) {
      for (int i = 0; i < n; ++i) {
        const std::size_t at = static_cast<std::size_t>(i) + static_cast<std::size_t>(r) * n;
        emit(i, idx[at], dist[at]);
      }
    }
  });
  return build_from_half_edges(B, n, sym, weights, sigma);
}

Eigen::SparseMatrix<double> eps_graph(const int* ptr, const int* idx, const double* dist,
                                      int n, symmetrize_rule sym, weight_rule weights,
                                      double sigma) {
  if (n < 1) throw input_error("eps_graph needs n >= 1.");
  check_sigma(weights, sigma);
  if (ptr[0] != 0) throw input_error("radius lists: the row pointer must start at 0.");
  for (int i = 0; i < n; ++i) {
    if (ptr[i + 1] < ptr[i]) throw input_error("radius lists: the row pointer must be non-decreasing.");
  }
  half_edge_buckets B = bucket_half_edges(n, [&](auto&& emit) {
    for (int i = 0; i < n; ++i) {
      for (int t = ptr[i]; t < ptr[i + 1]; ++t) emit(i, idx[t], dist[t]);
    }
  });
  return build_from_half_edges(B, n, sym, weights, sigma);
}

bandwidth_result bandwidth_floor(double sigma, double ref_max) {
  bandwidth_result res;
  res.sigma = sigma;
  const double floor = 1e-12 * ref_max;
  if (!(sigma >= floor)) {  // also catches NaN
    res.sigma = floor;
    res.floored = true;
  }
  return res;
}

bandwidth_result bandwidth_median_knn(const double* dist, int n, int k, double ref_max) {
  if (n < 1 || k < 1) throw input_error("bandwidth: empty neighbour lists.");
  std::vector<double> last(dist + static_cast<std::size_t>(k - 1) * n,
                           dist + static_cast<std::size_t>(k) * n);
  if (!(ref_max > 0.0)) {
    ref_max = 0.0;
    const std::size_t nk = static_cast<std::size_t>(n) * k;
    for (std::size_t t = 0; t < nk; ++t) ref_max = std::max(ref_max, dist[t]);
  }
  const double med = median_of(last);
  return bandwidth_floor(med, ref_max);
}

void breadth_first(const int* ptr, const int* idx, int start, std::vector<char>& mark,
                   std::vector<int>& order, long limit) {
  const std::size_t cap = limit < 0 ? static_cast<std::size_t>(-1) : static_cast<std::size_t>(limit);
  if (order.size() >= cap) return;
  std::size_t head = order.size();
  order.push_back(start);
  mark[static_cast<std::size_t>(start)] = 1;
  while (head < order.size() && order.size() < cap) {
    const int i = order[head++];
    for (int e = ptr[i]; e < ptr[i + 1]; ++e) {
      const int j = idx[e];
      if (mark[static_cast<std::size_t>(j)]) continue;
      mark[static_cast<std::size_t>(j)] = 1;
      order.push_back(j);
      if (order.size() >= cap) return;
    }
  }
}

components_result connected_components(const csc_view& A) {
  if (A.n_rows != A.n_cols) throw input_error("connected_components needs a square matrix.");
  const int n = A.n_cols;
  union_find uf(n);
  for (int c = 0; c < n; ++c) {
    for (int t = A.col_ptr[c]; t < A.col_ptr[c + 1]; ++t) uf.unite(A.row_idx[t], c);
  }
  components_result res;
  res.label.assign(n, -1);
  std::vector<int> root_label(n, -1);
  for (int v = 0; v < n; ++v) {
    const int r = uf.find(v);
    if (root_label[r] < 0) {
      root_label[r] = res.n_components++;
      res.size.push_back(0);
    }
    res.label[v] = root_label[r];
    ++res.size[root_label[r]];
  }
  return res;
}

int smallest_connecting_k(const int* idx, int n, int kmax, bool mutual) {
  if (n <= 1) return 1;
  // For every unordered pair, the rank at which each direction appears.
  struct ranked {
    int a, b, dir, rank;
  };
  std::vector<ranked> he;
  he.reserve(static_cast<std::size_t>(n) * kmax);
  for (int r = 0; r < kmax; ++r) {
    for (int i = 0; i < n; ++i) {
      const int j = idx[static_cast<std::size_t>(i) + static_cast<std::size_t>(r) * n];
      check_edge(i, j, 0.0, n);
      he.push_back(i < j ? ranked{i, j, 0, r + 1} : ranked{j, i, 1, r + 1});
    }
  }
  std::sort(he.begin(), he.end(), [](const ranked& x, const ranked& y) {
    if (x.a != y.a) return x.a < y.a;
    if (x.b != y.b) return x.b < y.b;
    return x.dir < y.dir;
  });
  // Level at which the undirected edge appears, bucketed by level.
  std::vector<std::vector<std::pair<int, int>>> by_level(kmax + 1);
  std::size_t s = 0;
  while (s < he.size()) {
    std::size_t t = s;
    int r_ab = 0, r_ba = 0;
    for (; t < he.size() && he[t].a == he[s].a && he[t].b == he[s].b; ++t) {
      if (he[t].dir == 0) r_ab = he[t].rank; else r_ba = he[t].rank;
    }
    int level;
    if (mutual) {
      level = (r_ab > 0 && r_ba > 0) ? std::max(r_ab, r_ba) : 0;
    } else {
      level = (r_ab > 0 && r_ba > 0) ? std::min(r_ab, r_ba) : std::max(r_ab, r_ba);
    }
    if (level > 0) by_level[level].emplace_back(he[s].a, he[s].b);
    s = t;
  }
  union_find uf(n);
  for (int level = 1; level <= kmax; ++level) {
    for (const auto& e : by_level[level]) uf.unite(e.first, e.second);
    if (uf.count() == 1) return level;
  }
  return -1;
}

Eigen::SparseMatrix<double> add_edges(const Eigen::SparseMatrix<double>& W,
                                      const std::vector<added_edge>& edges,
                                      const std::vector<double>& weights) {
  if (weights.size() != edges.size()) throw input_error("add_edges: one weight per edge needed.");
  const int n = static_cast<int>(W.rows());
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(2 * edges.size());
  for (const auto& e : edges) {
    if (e.i < 0 || e.j < 0 || e.i >= n || e.j >= n || e.i == e.j) {
      throw input_error("add_edges: invalid edge.");
    }
    pairs.emplace_back(e.i, e.j);
    pairs.emplace_back(e.j, e.i);
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<Eigen::Triplet<double>> trip;
  trip.reserve(static_cast<std::size_t>(W.nonZeros()) + pairs.size());
  for (int c = 0; c < W.outerSize(); ++c) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(W, c); it; ++it) {
      const std::pair<int, int> key(static_cast<int>(it.row()), c);
      if (!std::binary_search(pairs.begin(), pairs.end(), key)) {
        trip.emplace_back(key.first, key.second, it.value());
      }
    }
  }
  for (std::size_t t = 0; t < edges.size(); ++t) {
    trip.emplace_back(edges[t].i, edges[t].j, weights[t]);
    trip.emplace_back(edges[t].j, edges[t].i, weights[t]);
  }
  Eigen::SparseMatrix<double> out(n, n);
  // Duplicated added edges (same pair twice) would be summed: keep the last.
  out.setFromTriplets(trip.begin(), trip.end(), [](const double&, const double& b) { return b; });
  out.makeCompressed();
  return out;
}

laplacian_result graph_laplacian(const csc_view& W, laplacian_type type) {
  if (W.n_rows != W.n_cols) throw input_error("the adjacency matrix must be square.");
  const int n = W.n_cols;
  laplacian_result res;
  res.degree.assign(n, 0.0);
  for (int c = 0; c < n; ++c) {
    for (int t = W.col_ptr[c]; t < W.col_ptr[c + 1]; ++t) {
      const int r = W.row_idx[t];
      const double w = W.values[t];
      if (!std::isfinite(w) || w < 0.0) {
        throw input_error("edge weights must be finite and non-negative.");
      }
      if (r != c) res.degree[r] += w;
    }
  }
  std::vector<double> scale(n, 0.0);  // D^{-1/2} or D^{-1}, 0 for isolated vertices
  for (int i = 0; i < n; ++i) {
    const double d = res.degree[i];
    if (d < 1e-300) {
      res.isolated.push_back(i);
    } else if (type == laplacian_type::symmetric) {
      scale[i] = 1.0 / std::sqrt(d);
    } else if (type == laplacian_type::random_walk) {
      scale[i] = 1.0 / d;
    }
  }
  auto entry = [&](int r, int c, double w) {
    switch (type) {
      case laplacian_type::unnormalized:
        return -w;
      case laplacian_type::symmetric:
        return -w * (scale[r] * scale[c]);
      default:
        return -w * scale[r];
    }
  };
  auto diagonal = [&](int i) { return (type == laplacian_type::unnormalized) ? res.degree[i] : 1.0; };
  bool sorted = true;  // strictly increasing rows in every column (a valid dgCMatrix)
  for (int c = 0; c < n && sorted; ++c) {
    for (int t = W.col_ptr[c] + 1; t < W.col_ptr[c + 1]; ++t) {
      if (W.row_idx[t] <= W.row_idx[t - 1]) {
        sorted = false;
        break;
      }
    }
  }
  if (sorted) {
    // compressed columns written directly: column c is W's column c without
    // its diagonal entry, with L_cc inserted at its place
    long nnz = 0;
    for (int c = 0; c < n; ++c) {
      for (int t = W.col_ptr[c]; t < W.col_ptr[c + 1]; ++t) nnz += (W.row_idx[t] != c);
    }
    nnz += n;
    if (nnz > static_cast<long>(std::numeric_limits<int>::max())) {
      throw input_error("the Laplacian has more than 2^31 - 1 entries.");
    }
    res.L.resize(n, n);
    res.L.resizeNonZeros(static_cast<Eigen::Index>(nnz));
    int* outer = res.L.outerIndexPtr();
    int* inner = res.L.innerIndexPtr();
    double* val = res.L.valuePtr();
    int at = 0;
    for (int c = 0; c < n; ++c) {
      outer[c] = at;
      bool diag_done = false;
      for (int t = W.col_ptr[c]; t < W.col_ptr[c + 1]; ++t) {
        const int r = W.row_idx[t];
        if (r == c) continue;
        if (!diag_done && r > c) {
          inner[at] = c;
          val[at++] = diagonal(c);
          diag_done = true;
        }
        inner[at] = r;
        val[at++] = entry(r, c, W.values[t]);
      }
      if (!diag_done) {
        inner[at] = c;
        val[at++] = diagonal(c);
      }
    }
    outer[n] = at;
    return res;
  }
  // otherwise through triplets (which sort the rows and sum duplicates)
  std::vector<Eigen::Triplet<double>> trip;
  trip.reserve(static_cast<std::size_t>(W.col_ptr[n]) + n);
  for (int c = 0; c < n; ++c) {
    for (int t = W.col_ptr[c]; t < W.col_ptr[c + 1]; ++t) {
      const int r = W.row_idx[t];
      if (r == c) continue;
      trip.emplace_back(r, c, entry(r, c, W.values[t]));
    }
  }
  for (int i = 0; i < n; ++i) trip.emplace_back(i, i, diagonal(i));
  res.L.resize(n, n);
  res.L.setFromTriplets(trip.begin(), trip.end());
  res.L.makeCompressed();
  return res;
}

}  // namespace manifoldOOS
