// C++ unit tests of the core's building blocks (testthat + Catch), run from
// tests/testthat/test-cpp.R: kNN against brute force, Dijkstra against
// Floyd-Warshall, Procrustes recovery, local PCA (rank tests, orthonormality,
// agreement with a direct SVD), the sparse eigen-solver against LAPACK, the
// direct clique assembly against Eigen's
// setFromTriplets, an operator on square_operator through the eigen-solver,
// the string-option parser (parse_choice) with every table-driven parser, and
// kNN lists and component connections read off a distance matrix, and the
// breadth-first search against a queue-based reference.
// The solver blocks (vector kernels, updatable Cholesky, constrained
// assignment, minimum spanning trees) are tested in test-blocks-solvers.cpp.
#include <testthat.h>

#include <manifoldOOS/blocks/clique_assembly.h>
#include <manifoldOOS/blocks/eigen_dense.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/graph.h>
#include <manifoldOOS/blocks/kernels.h>
#include <manifoldOOS/blocks/spectra_op.h>
#include <manifoldOOS/blocks/knn_impl.h>
#include <manifoldOOS/blocks/local_pca.h>
#include <manifoldOOS/blocks/parallel.h>
#include <manifoldOOS/blocks/paths.h>
#include <manifoldOOS/blocks/procrustes.h>
#include <manifoldOOS/methods/isomap_project.h>
#include <manifoldOOS/methods/le.h>
#include <manifoldOOS/methods/lmds.h>
#include <manifoldOOS/methods/mds.h>
#include <manifoldOOS/methods/nppe.h>
#include <manifoldOOS/oos/goose.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "test-helpers.h"

namespace {

// Points on a small integer grid: many exactly tied distances.
arma::mat grid_points(int side, int p) {
  const int n = static_cast<int>(std::pow(side, p));
  arma::mat X(n, p);
  for (int i = 0; i < n; ++i) {
    int r = i;
    for (int j = 0; j < p; ++j) {
      X(i, j) = r % side;
      r /= side;
    }
  }
  return X;
}

// Brute-force reference: sort all (distance, index) pairs.
void knn_reference(const arma::mat& X, const arma::mat* Q, int k, arma::Mat<int>& idx,
                   arma::mat& dist) {
  const arma::uword n = X.n_rows, m = Q ? Q->n_rows : n, p = X.n_cols;
  idx.set_size(m, k);
  dist.set_size(m, k);
  for (arma::uword i = 0; i < m; ++i) {
    std::vector<std::pair<double, int>> all;
    for (arma::uword j = 0; j < n; ++j) {
      if (!Q && j == i) continue;
      double s = 0.0;
      for (arma::uword l = 0; l < p; ++l) {
        const double t = (Q ? (*Q)(i, l) : X(i, l)) - X(j, l);
        s += t * t;
      }
      all.emplace_back(std::sqrt(s), static_cast<int>(j));
    }
    std::sort(all.begin(), all.end());
    for (int c = 0; c < k; ++c) {
      dist(i, c) = all[c].first;
      idx(i, c) = all[c].second;
    }
  }
}

bool knn_matches(const arma::mat& X, const arma::mat* Q, int k, manifoldOOS::knn_algorithm algo,
                 int threads) {
  arma::Mat<int> ridx;
  arma::mat rdist;
  knn_reference(X, Q, k, ridx, rdist);
  const arma::uword m = Q ? Q->n_rows : X.n_rows;
  arma::Mat<int> idx(m, k);
  arma::mat dist(m, k);
  manifoldOOS::knn_search_raw(X.memptr(), X.n_rows, X.n_cols, Q ? Q->memptr() : nullptr, m, k,
                              algo, threads, idx.memptr(), dist.memptr());
  return arma::all(arma::vectorise(idx == ridx)) && arma::approx_equal(dist, rdist, "absdiff", 0.0);
}

// Symmetric CSC adjacency of an undirected weighted graph.
struct csc_graph {
  std::vector<int> ptr, idx;
  std::vector<double> len;
  manifoldOOS::adjacency_view view(int n) const {
    manifoldOOS::adjacency_view v;
    v.n = n;
    v.adj_ptr = ptr.data();
    v.adj_idx = idx.data();
    v.adj_len = len.data();
    return v;
  }
};

csc_graph csc_from_dense(const arma::mat& W) {
  csc_graph g;
  const int n = W.n_rows;
  g.ptr.push_back(0);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      if (std::isfinite(W(i, j)) && i != j) {
        g.idx.push_back(i);
        g.len.push_back(W(i, j));
      }
    }
    g.ptr.push_back(static_cast<int>(g.idx.size()));
  }
  return g;
}

// An exactly rank-r k x p block: integer factors, so the product is exact.
arma::mat low_rank_block(arma::uword k, arma::uword p, arma::uword r, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> u(-3, 3);
  arma::mat A(k, r), B(r, p);
  A.imbue([&] { return double(u(gen)); });
  B.imbue([&] { return double(u(gen)); });
  return A * B;
}

bool orthonormal_columns(const arma::mat& V, double tol) {
  return arma::approx_equal(V.t() * V, arma::eye(V.n_cols, V.n_cols), "absdiff", tol);
}

manifoldOOS::local_pca_options pca_options(manifoldOOS::local_pca_route route) {
  manifoldOOS::local_pca_options o;
  o.route = route;
  o.centre = true;
  return o;
}

// A parser built on a choice table: every name of the table parses to its
// value (the names are distinct, so no entry is shadowed by an earlier one),
// and `bad` is an input_error carrying exactly `message`.
template <class E, std::size_t N, class Parse>
void expect_parser(const manifoldOOS::choice<E> (&names)[N], Parse parse, const std::string& bad,
                   const std::string& message) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < i; ++j) expect_true(std::string(names[i].name) != names[j].name);
    expect_true((parse(names[i].name) == names[i].value));
  }
  std::string got = "(parsed)";
  try {
    parse(bad);
  } catch (const manifoldOOS::input_error& e) {
    got = e.what();
  }
  expect_true(got == message);
}

}  // namespace

context("breadth-first search block") {
  // a random symmetric graph as compressed columns (ascending rows), with
  // several components; the reference search keeps a std::deque and reads the
  // neighbours in the same order
  auto random_graph = [](int n, int edges, unsigned seed, std::vector<int>& ptr, std::vector<int>& idx) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> node(0, n - 1);
    std::vector<std::vector<int>> adj(n);
    for (int e = 0; e < edges; ++e) {
      const int a = node(gen), b = node(gen);
      if (a == b) continue;
      adj[a].push_back(b);
      adj[b].push_back(a);
    }
    ptr.assign(1, 0);
    idx.clear();
    for (int j = 0; j < n; ++j) {
      std::sort(adj[j].begin(), adj[j].end());
      adj[j].erase(std::unique(adj[j].begin(), adj[j].end()), adj[j].end());
      idx.insert(idx.end(), adj[j].begin(), adj[j].end());
      ptr.push_back(static_cast<int>(idx.size()));
    }
  };
  auto reference = [](const std::vector<int>& ptr, const std::vector<int>& idx, int start,
                      std::vector<bool>& seen) {
    std::vector<int> out;
    std::deque<int> q{start};
    seen[start] = true;
    while (!q.empty()) {
      const int i = q.front();
      q.pop_front();
      out.push_back(i);
      for (int e = ptr[i]; e < ptr[i + 1]; ++e) {
        if (!seen[idx[e]]) {
          seen[idx[e]] = true;
          q.push_back(idx[e]);
        }
      }
    }
    return out;
  };
  test_that("the search equals a queue-based reference; a limited search is its prefix") {
    for (unsigned seed = 1; seed <= 20; ++seed) {
      const int n = 40 + 10 * static_cast<int>(seed);
      std::vector<int> ptr, idx;
      random_graph(n, n, seed, ptr, idx);  // sparse: several components
      const int start = static_cast<int>(seed * 7) % n;
      std::vector<bool> seen(n, false);
      const std::vector<int> ref = reference(ptr, idx, start, seen);
      std::vector<char> mark(n, 0);
      std::vector<int> order;
      manifoldOOS::breadth_first(ptr.data(), idx.data(), start, mark, order);
      expect_true(order == ref);
      bool same_marks = true;
      for (int i = 0; i < n; ++i) same_marks = same_marks && (bool(mark[i]) == bool(seen[i]));
      expect_true(same_marks);
      for (long limit : {0L, 1L, 2L, 5L, static_cast<long>(ref.size()), static_cast<long>(ref.size()) + 3}) {
        std::vector<char> m2(n, 0);
        std::vector<int> part;
        manifoldOOS::breadth_first(ptr.data(), idx.data(), start, m2, part, limit);
        const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(limit), ref.size());
        expect_true(part.size() == want);
        expect_true(std::equal(part.begin(), part.end(), ref.begin()));
      }
    }
  }
  test_that("flagged nodes are skipped and the search appends to what the order holds") {
    std::vector<int> ptr, idx;
    random_graph(300, 450, 99, ptr, idx);
    const int n = 300;
    // every component, one search each, appended to one order: a permutation
    std::vector<char> mark(n, 0);
    std::vector<int> order;
    for (int s = 0; s < n; ++s) {
      if (!mark[s]) manifoldOOS::breadth_first(ptr.data(), idx.data(), s, mark, order);
    }
    std::vector<int> sorted(order);
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(n);
    std::iota(all.begin(), all.end(), 0);
    expect_true(sorted == all);
    // a flagged node blocks the search from passing through it
    std::vector<int> pp{0, 1, 3, 5, 6}, ii{1, 0, 2, 1, 3, 2};  // the path 0 - 1 - 2 - 3
    std::vector<char> m3(4, 0);
    m3[2] = 1;
    std::vector<int> o3{7};  // held before: kept
    manifoldOOS::breadth_first(pp.data(), ii.data(), 0, m3, o3);
    expect_true(o3 == std::vector<int>({7, 0, 1}));
    expect_true(m3[3] == 0);
  }
}

context("kNN block") {
  test_that("kd-tree and brute force equal the brute-force reference, ties included") {
    const arma::mat G = grid_points(6, 2);  // 36 points, many ties
    for (int threads : {1, 2}) {
      expect_true(knn_matches(G, nullptr, 8, manifoldOOS::knn_algorithm::kdtree, threads));
      expect_true(knn_matches(G, nullptr, 8, manifoldOOS::knn_algorithm::brute, threads));
    }
    const arma::mat X = random_points(300, 20, 7), Q = random_points(40, 20, 8);
    expect_true(knn_matches(X, nullptr, 10, manifoldOOS::knn_algorithm::brute, 2));
    expect_true(knn_matches(X, &Q, 5, manifoldOOS::knn_algorithm::brute, 2));
    expect_true(knn_matches(X, &Q, 5, manifoldOOS::knn_algorithm::kdtree, 2));
    const arma::mat L = random_points(500, 3, 9);
    expect_true(knn_matches(L, nullptr, 12, manifoldOOS::knn_algorithm::kdtree, 2));
  }
  test_that("k out of range is an input error") {
    const arma::mat X = random_points(5, 2, 1);
    arma::Mat<int> idx(5, 5);
    arma::mat dist(5, 5);
    expect_error_as(manifoldOOS::knn_search_raw(X.memptr(), 5, 2, nullptr, 5, 5,
                                                manifoldOOS::knn_algorithm::brute, 1,
                                                idx.memptr(), dist.memptr()),
                    manifoldOOS::input_error);
  }
}

context("kNN and components from a distance matrix") {
  test_that("lists read off the distances equal the search of the points, ties included") {
    const arma::mat G = grid_points(6, 2);
    const arma::mat X = random_points(120, 4, 3), Q = random_points(15, 4, 4);
    for (const arma::mat* P : {&G, &X}) {
      const arma::uword n = P->n_rows;
      arma::mat D(n, n);
      for (arma::uword i = 0; i < n; ++i) {
        for (arma::uword j = 0; j < n; ++j) {
          D(i, j) = std::sqrt(arma::accu(arma::square(P->row(i) - P->row(j))));
        }
      }
      const int k = 6;
      arma::Mat<int> i1(n, k), i2(n, k);
      arma::mat d1(n, k), d2(n, k);
      manifoldOOS::knn_search_raw(P->memptr(), n, P->n_cols, nullptr, n, k,
                                  manifoldOOS::knn_algorithm::brute, 1, i1.memptr(), d1.memptr());
      for (int threads : {1, 2}) {
        manifoldOOS::knn_from_distances_raw(D.memptr(), n, n, k, true, threads, i2.memptr(), d2.memptr());
        expect_true(arma::all(arma::vectorise(i1 == i2)));
        expect_true(arma::abs(d1 - d2).max() < 1e-12);
      }
    }
    // query mode: columns of Dq are the queries
    arma::mat Dq(X.n_rows, Q.n_rows);
    for (arma::uword a = 0; a < Q.n_rows; ++a) {
      for (arma::uword j = 0; j < X.n_rows; ++j) Dq(j, a) = arma::norm(Q.row(a) - X.row(j));
    }
    arma::Mat<int> i1(Q.n_rows, 5), i2(Q.n_rows, 5);
    arma::mat d1(Q.n_rows, 5), d2(Q.n_rows, 5);
    manifoldOOS::knn_search_raw(X.memptr(), X.n_rows, X.n_cols, Q.memptr(), Q.n_rows, 5,
                                manifoldOOS::knn_algorithm::brute, 1, i1.memptr(), d1.memptr());
    manifoldOOS::knn_from_distances_raw(Dq.memptr(), X.n_rows, Q.n_rows, 5, false, 2, i2.memptr(),
                                        d2.memptr());
    expect_true(arma::all(arma::vectorise(i1 == i2)));
    expect_true(arma::abs(d1 - d2).max() < 1e-12);
    // radius lists: every entry within eps, none missed, sorted
    const manifoldOOS::radius_lists r =
        manifoldOOS::radius_from_distances_raw(Dq.memptr(), X.n_rows, Q.n_rows, 0.8, false);
    std::size_t count = 0;
    for (arma::uword a = 0; a < Q.n_rows; ++a) {
      for (arma::uword j = 0; j < X.n_rows; ++j) count += Dq(j, a) <= 0.8 ? 1u : 0u;
      for (std::int64_t t = r.ptr[a]; t + 1 < r.ptr[a + 1]; ++t) expect_true(r.dist[t] <= r.dist[t + 1]);
    }
    expect_true(static_cast<std::size_t>(r.ptr.back()) == count);
  }
  test_that("components are joined by the same edges as from the coordinates") {
    arma::mat X = random_points(60, 3, 5);
    X.rows(30, 59) += 10.0;  // two groups
    X.rows(45, 59) += 10.0;  // three groups
    std::vector<int> label(60);
    for (int v = 0; v < 60; ++v) label[v] = v < 30 ? 0 : (v < 45 ? 1 : 2);
    arma::mat D(60, 60);
    for (int i = 0; i < 60; ++i) {
      for (int j = 0; j < 60; ++j) D(i, j) = arma::norm(X.row(i) - X.row(j));
    }
    for (auto rule : {manifoldOOS::connect_rule::mst, manifoldOOS::connect_rule::all_pairs}) {
      const auto a = manifoldOOS::connect_components(X.memptr(), 60, 3, label, 3, rule, 2);
      const auto b = manifoldOOS::connect_components_distances(D.memptr(), 60, label, 3, rule, 2);
      expect_true(a.size() == b.size());
      for (std::size_t t = 0; t < a.size(); ++t) {
        const bool same = a[t].i == b[t].i && a[t].j == b[t].j;
        expect_true(same);
        expect_true(std::abs(a[t].length - b[t].length) < 1e-12);
      }
    }
  }
}

context("shortest paths block") {
  test_that("Dijkstra from every source equals Floyd-Warshall on random graphs with ties") {
    for (unsigned seed = 1; seed <= 5; ++seed) {
      std::mt19937 gen(seed);
      std::uniform_real_distribution<double> unif(0.0, 1.0);
      const int n = 25;
      arma::mat W(n, n);
      W.fill(std::numeric_limits<double>::infinity());
      for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
          if (unif(gen) < 0.15) {
            // integer lengths (including 0): many equal-length paths
            const double w = std::floor(unif(gen) * 4.0);
            W(i, j) = W(j, i) = w;
          }
        }
      }
      arma::mat F = W;
      F.diag().zeros();
      for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            if (F(i, k) + F(k, j) < F(i, j)) F(i, j) = F(i, k) + F(k, j);
      const csc_graph g = csc_from_dense(W);
      std::vector<int> src(n);
      std::iota(src.begin(), src.end(), 0);
      arma::mat D(n, n);
      manifoldOOS::dijkstra_multi(g.view(n), src.data(), n, D.memptr(), 2);
      expect_true(arma::approx_equal(D, F, "absdiff", 0.0));
    }
  }
  test_that("a negative edge length is rejected") {
    arma::mat W(2, 2);
    W.fill(std::numeric_limits<double>::infinity());
    W(0, 1) = W(1, 0) = -1.0;
    const csc_graph g = csc_from_dense(W);
    const int s = 0;
    arma::mat D(1, 2);
    expect_error_as(manifoldOOS::dijkstra_multi(g.view(2), &s, 1, D.memptr(), 1),
                    manifoldOOS::input_error);
  }
  test_that("the bucket-queue search equals the binary-heap search bit for bit, ties included") {
    // 2-d grids (a torus of side `side`, so n = side^2 reaches the relabelled
    // path at side = 70) with lengths from a few decimals (0.1 + 0.2 != 0.3:
    // the tied paths differ in their rounding) and zero-length edges.
    std::mt19937 gen(3);
    std::uniform_int_distribution<int> pick(0, 4);
    const double lens[5] = {0.1, 0.2, 0.3, 0.0, 0.7};
    for (int side : {7, 70}) {
      const int n = side * side;
      csc_graph g;
      g.ptr.push_back(0);
      // lengths are symmetric: edge {u, v} gets the length drawn for min(u, v) and the direction
      std::vector<double> right(n), up(n);
      for (int u = 0; u < n; ++u) {
        right[u] = lens[pick(gen)];
        up[u] = lens[pick(gen)];
      }
      for (int u = 0; u < n; ++u) {
        const int x = u % side, y = u / side;
        const int l = (x + side - 1) % side + y * side, r = (x + 1) % side + y * side;
        const int d = x + ((y + side - 1) % side) * side, t = x + ((y + 1) % side) * side;
        const int nb[4] = {l, r, d, t};
        const double w[4] = {right[l], right[u], up[d], up[u]};
        for (int a = 0; a < 4; ++a) {
          g.idx.push_back(nb[a]);
          g.len.push_back(w[a]);
        }
        g.ptr.push_back(static_cast<int>(g.idx.size()));
      }
      const int m = std::min(n, 40);
      std::vector<int> src(m);
      for (int s = 0; s < m; ++s) src[s] = (s * 37) % n;
      arma::mat A(m, n), B(m, n);
      for (int threads : {1, 2}) {
        manifoldOOS::dijkstra_multi(g.view(n), src.data(), m, A.memptr(), threads);
        manifoldOOS::dijkstra_multi_binary_heap(g.view(n), src.data(), m, B.memptr(), threads);
        expect_true(std::equal(A.begin(), A.end(), B.begin()));
        expect_true(A.is_finite());
        expect_true(arma::max(arma::vectorise(A)) > 0.0);
        // written by column: the same numbers transposed
        arma::mat C(n, m);
        manifoldOOS::dijkstra_multi_by_column(g.view(n), src.data(), m, C.memptr(), threads);
        const arma::mat Ct = C.t();
        expect_true(std::equal(Ct.begin(), Ct.end(), B.begin()));
      }
    }
  }
  test_that("the bucket search equals the binary heap on mixed lengths, a hub and repeated edges") {
    // a band graph (u joined to u + 1, u + 2, u + 3), lengths mostly U(1, 2),
    // 10 % in 10^U(-4, -1) (far shorter than a bucket: rescans) and 5 % zeros;
    // the distances span many turns of the bucket ring; vertex 0 is a hub
    // joined to the first 50 vertices; every seventh adjacency list names
    // the same head twice with two lengths (both relaxed in one scan);
    // n = 4200 also runs the relabelled path.
    for (int n : {300, 4200}) {
      std::mt19937 gen(11 + n);
      std::uniform_real_distribution<double> unif(0.0, 1.0);
      std::vector<std::vector<std::pair<int, double>>> out(n);
      auto add = [&](int u, int v, double w) {
        out[u].push_back({v, w});
        out[v].push_back({u, w});
      };
      auto draw = [&]() {
        const double r = unif(gen);
        return r < 0.05 ? 0.0 : r < 0.15 ? std::pow(10.0, 3.0 * unif(gen) - 4.0) : 1.0 + unif(gen);
      };
      for (int u = 1; u <= 50; ++u) add(0, u, draw());
      double max_len = 0.0, sum_len = 0.0;
      for (int u = 1; u < n; ++u) {
        for (int h = 1; h <= 3 && u + h < n; ++h) add(u, u + h, draw());
        if (u % 7 == 0 && u + 1 < n) add(u, u + 1, draw());  // a repeated edge
      }
      csc_graph g;
      g.ptr.push_back(0);
      for (int u = 0; u < n; ++u) {
        for (const auto& e : out[u]) {
          g.idx.push_back(e.first);
          g.len.push_back(e.second);
          max_len = std::max(max_len, e.second);
          sum_len += e.second;
        }
        g.ptr.push_back(static_cast<int>(g.idx.size()));
      }
      const int m = 30;
      std::vector<int> src(m);
      for (int s = 0; s < m; ++s) src[s] = (s * 131) % n;
      arma::mat A(m, n), B(m, n), C(n, m);
      manifoldOOS::dijkstra_multi(g.view(n), src.data(), m, A.memptr(), 2);
      manifoldOOS::dijkstra_multi_binary_heap(g.view(n), src.data(), m, B.memptr(), 1);
      manifoldOOS::dijkstra_multi_by_column(g.view(n), src.data(), m, C.memptr(), 2);
      expect_true(std::equal(A.begin(), A.end(), B.begin()));
      const arma::mat Ct = C.t();
      expect_true(std::equal(Ct.begin(), Ct.end(), B.begin()));
      expect_true(A.is_finite());
      // a ring of buckets at most as wide as the mean length spans at most
      // 2 (longest edge) + 8 (mean length): the paths go round it many times
      const double mean_len = sum_len / static_cast<double>(g.len.size());
      expect_true(A.max() > 3.0 * (2.0 * max_len + 8.0 * mean_len));
    }
  }
  test_that("a graph that makes the bucket search rescan often falls back to the same distances") {
    // source 0 reaches 1..k directly (lengths 9 + 0.01 i) and through the chain
    // 1 - 2 - ... - k (0.001 per edge, shorter): within a bucket the last pushed
    // vertex is scanned first, then improved by its predecessor, and so on.
    const int k = 100, n = k + 1;
    arma::mat W(n, n);
    W.fill(std::numeric_limits<double>::infinity());
    for (int i = 1; i <= k; ++i) W(0, i) = W(i, 0) = 9.0 + 0.01 * i;
    for (int i = 1; i < k; ++i) W(i, i + 1) = W(i + 1, i) = 0.001;
    const csc_graph g = csc_from_dense(W);
    const int src[2] = {0, k};
    arma::mat A(2, n), B(2, n);
    manifoldOOS::dijkstra_multi(g.view(n), src, 2, A.memptr(), 1);
    manifoldOOS::dijkstra_multi_binary_heap(g.view(n), src, 2, B.memptr(), 1);
    expect_true(std::equal(A.begin(), A.end(), B.begin()));
    expect_true(A(0, k) < W(0, k));  // the chain is shorter than the direct edge
  }
}

context("Isomap projection kernel") {
  test_that("the vectorised triangulation equals the row-by-row one bit for bit") {
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> unif(0.0, 1.0);
    for (int m : {3, 21, 203}) {
      for (int q : {1, 2, 3, 4, 6}) {
        const int n = 17, k = 4, c = 13;
        arma::mat D(m, n), L(m, q), dist(c, k);
        arma::vec mu(m);
        arma::Mat<int> idx(c, k);
        for (auto& v : D) v = 10.0 * unif(gen);
        for (auto& v : L) v = unif(gen) - 0.5;
        for (auto& v : mu) v = 30.0 * unif(gen);
        for (auto& v : dist) v = unif(gen);
        for (auto& v : idx) v = static_cast<int>(unif(gen) * n) % n;
        dist(2, 1) = 0.0;                        // an exact tie of two candidates
        idx(2, 1) = idx(2, 0);
        std::vector<unsigned> order(c);
        for (int a = 0; a < c; ++a) order[a] = static_cast<unsigned>((a * 5) % c);
        arma::mat Y1(c, q), Y2(c, q), Y3(c, q);
        for (int threads : {1, 2}) {
          manifoldOOS::isomap_triangulate_rows(D.memptr(), m, idx.memptr(), dist.memptr(), c, k,
                                               L.memptr(), mu.memptr(), q, order.data(), Y1.memptr(),
                                               threads, manifoldOOS::isomap_kernel::automatic);
          manifoldOOS::isomap_triangulate_rows(D.memptr(), m, idx.memptr(), dist.memptr(), c, k,
                                               L.memptr(), mu.memptr(), q, order.data(), Y2.memptr(),
                                               threads, manifoldOOS::isomap_kernel::portable);
          expect_true(std::equal(Y1.begin(), Y1.end(), Y2.begin()));
        }
        // the definition, one row at a time
        for (int a = 0; a < c; ++a) {
          for (int j = 0; j < q; ++j) {
            double acc = 0.0;
            for (int l = 0; l < m; ++l) {
              double g = std::numeric_limits<double>::infinity();
              for (int r = 0; r < k; ++r) g = std::min(g, dist(a, r) + D(l, idx(a, r)));
              acc += L(l, j) * (g * g - mu(l));
            }
            Y3(a, j) = -0.5 * acc;
          }
        }
#if defined(__x86_64__)
        expect_true(std::equal(Y1.begin(), Y1.end(), Y3.begin()));
#else
        // (a compiler may fuse the multiply-adds differently on other targets)
        expect_true(arma::approx_equal(Y1, Y3, "reldiff", 1e-12));
#endif
      }
    }
  }
}

context("matrix-free MDS product") {
  test_that("the four-column product equals the column-by-column loop bit for bit") {
    // reference: y = -1/2 (S x - mu (1'x) + (g 1'x - mu'x) 1) with S x summed
    // column by column over the lower triangle in the operator's fixed slices
    std::mt19937 gen(9);
    std::uniform_real_distribution<double> unif(0.0, 1.0);
    for (int n : {2, 5, 9, 37, 130}) {
      for (bool square : {true, false}) {
        arma::mat D(n, n);
        for (int j = 0; j < n; ++j) {
          D(j, j) = 0.0;
          for (int i = j + 1; i < n; ++i) D(i, j) = D(j, i) = 10.0 * unif(gen);
        }
        arma::vec mu(n), x(n), y(n);
        for (auto& v : mu) v = 50.0 * unif(gen);
        for (auto& v : x) v = unif(gen) - 0.5;
        const double g = 20.0;
        for (int threads : {1, 2}) {
          manifoldOOS::detail::centred_sq_op op(D, square, mu, g, threads);
          op.perform_op(x.memptr(), y.memptr());
          // slices as the operator cuts them: equal triangle areas
          const int parts = manifoldOOS::detail::centred_sq_op::kParts;
          std::vector<long> bounds(parts + 1, 0);
          const double total = double(n) * (n + 1) / 2;
          long j = 0;
          double area = 0.0;
          for (int p = 1; p < parts; ++p) {
            while (j < n && area < total * p / parts) area += n - j++;
            bounds[p] = j;
          }
          bounds[parts] = n;
          std::vector<double> acc(static_cast<std::size_t>(parts) * n, 0.0);
          for (int p = 0; p < parts; ++p) {
            double* t = acc.data() + static_cast<std::size_t>(p) * n;
            for (long c = bounds[p]; c < bounds[p + 1]; ++c) {
              const double* col = D.colptr(c);
              double dot = (square ? col[c] * col[c] : col[c]) * x[c];
              for (long i = c + 1; i < n; ++i) {
                const double v = square ? col[i] * col[i] : col[i];
                dot += v * x[i];
                t[i] += v * x[c];
              }
              t[c] += dot;
            }
          }
          double s = 0.0, mx = 0.0;
          for (int i = 0; i < n; ++i) {
            s += x[i];
            mx += mu[i] * x[i];
          }
          const double cc = g * s - mx;
          arma::vec ref(n);
          for (int i = 0; i < n; ++i) {
            double v = 0.0;
            for (int p = 0; p < parts; ++p) v += acc[static_cast<std::size_t>(p) * n + i];
            ref[i] = -0.5 * (v - mu[i] * s + cc);
          }
          expect_true(std::equal(y.begin(), y.end(), ref.begin()));
        }
      }
    }
  }
}

context("Procrustes block") {
  test_that("a known similarity motion is recovered exactly, in both forms") {
    const arma::mat A = random_points(30, 3, 11);
    arma::mat Q, R;
    arma::qr(Q, R, random_points(3, 3, 12));
    if (arma::det(Q) < 0) Q.col(0) *= -1.0;
    const arma::rowvec t = {1.5, -2.0, 0.25};
    arma::mat B = 0.5 * (A * Q);
    B.each_row() += t;
    const manifoldOOS::procrustes_result r = manifoldOOS::procrustes(A, B, true, false);
    expect_true(arma::approx_equal(r.fitted, A, "absdiff", 1e-12));
    expect_true(std::abs(r.scale - 2.0) < 1e-12);
    expect_true(r.ss < 1e-20);
    arma::mat Rt;
    double beta = 0.0;
    arma::vec ms, mt;
    manifoldOOS::procrustes_cols(B.t(), A.t(), true, Rt, beta, ms, mt);
    arma::mat moved = beta * Rt * (B.t().eval().each_col() - ms);
    moved.each_col() += mt;
    expect_true(arma::approx_equal(moved, A.t(), "absdiff", 1e-12));
    expect_true(std::abs(beta - 2.0) < 1e-12);
  }
  test_that("without reflections a mirrored configuration is not matched exactly") {
    const arma::mat A = random_points(20, 2, 13);
    arma::mat B = A;
    B.col(0) *= -1.0;
    expect_true(manifoldOOS::procrustes(A, B, false, true).ss < 1e-20);
    expect_true(manifoldOOS::procrustes(A, B, false, false).ss > 1e-3);
  }
}

context("local PCA block") {
  using manifoldOOS::local_pca;
  using manifoldOOS::local_pca_route;
  using manifoldOOS::local_rank_test;
  const local_pca_route routes[] = {local_pca_route::gram, local_pca_route::scatter,
                                    local_pca_route::svd};
  test_that("every route spans the subspace of a direct SVD, orthonormally") {
    // k > p (scatter by eigendecomposition) and k < p (scatter by SVD)
    const arma::uword shapes[2][2] = {{12, 5}, {6, 9}};
    for (const auto& sh : shapes) {
      const arma::mat X = random_points(sh[0], sh[1], 21);
      arma::mat Xc = X.each_row() - arma::mean(X, 0);
      arma::mat U, W;
      arma::vec s;
      arma::svd(U, s, W, Xc);
      const int d = 3;
      for (const local_pca_route route : routes) {
        const manifoldOOS::local_pca_result r = local_pca(X, d, pca_options(route));
        expect_true(arma::approx_equal(r.centred, Xc, "absdiff", 0.0));
        expect_true(arma::approx_equal(r.mean, arma::mean(X, 0), "absdiff", 0.0));
        expect_true(r.basis.n_cols == arma::uword(d));
        expect_true(orthonormal_columns(r.basis, 1e-12));
        const arma::mat& ref = route == local_pca_route::gram ? U : W;
        const arma::mat Pref = ref.head_cols(d) * ref.head_cols(d).t();
        expect_true(arma::approx_equal(r.basis * r.basis.t(), Pref, "absdiff", 1e-10));
        expect_true(arma::approx_equal(r.singular_values.head(d), s.head(d), "reldiff", 1e-10));
        expect_false(r.rank_deficient);
      }
    }
  }
  test_that("the rank tests flag exactly low-rank blocks, and only those") {
    // the routes through C C' or C'C resolve singular values only down to
    // about sqrt(machine epsilon) x s_1 (~1e-8), the SVD down to ~1e-16
    const arma::mat X = low_rank_block(10, 6, 2, 22);
    for (const local_pca_route route : routes) {
      manifoldOOS::local_pca_options o = pca_options(route);
      o.rank_test = local_rank_test::singular_values;
      o.rank_tol = route == local_pca_route::svd ? 1e-10 : 1e-6;
      o.rank = 2;
      expect_false(local_pca(X, 3, o).rank_deficient);
      o.rank = 3;
      expect_true(local_pca(X, 3, o).rank_deficient);
      if (route == local_pca_route::gram) {
        o.rank_test = local_rank_test::gram_eigenvalues;
        o.rank_tol = 1e-12;
        o.rank = 2;
        expect_false(local_pca(X, 3, o).rank_deficient);
        o.rank = 3;
        expect_true(local_pca(X, 3, o).rank_deficient);
      }
    }
    // a block of identical rows has rank 0: deficient at rank 1
    manifoldOOS::local_pca_options o = pca_options(local_pca_route::svd);
    o.rank_test = local_rank_test::singular_values;
    o.rank = 1;
    expect_true(local_pca(arma::mat(5, 4, arma::fill::ones), 1, o).rank_deficient);
  }
  test_that("short blocks get zero columns, or a completed basis with fixed signs") {
    const arma::mat X = random_points(3, 6, 23);  // rank 2 after centring
    manifoldOOS::local_pca_options o = pca_options(local_pca_route::scatter);
    const manifoldOOS::local_pca_result z = local_pca(X, 4, o);
    expect_true(orthonormal_columns(z.basis.head_cols(3), 1e-12));
    expect_true(arma::all(arma::vectorise(z.basis.col(3)) == 0.0));
    o.route = local_pca_route::svd;
    o.short_block = manifoldOOS::local_short_block::complete;
    o.fix_signs = true;
    const manifoldOOS::local_pca_result c = local_pca(X, 5, o);
    expect_true(orthonormal_columns(c.basis, 1e-12));
    // the completing directions are orthogonal to the centred rows
    expect_true(arma::abs(c.centred * c.basis.tail_cols(3)).max() < 1e-12);
    for (arma::uword j = 0; j < c.basis.n_cols; ++j)
      expect_true(c.basis(arma::index_max(arma::abs(c.basis.col(j))), j) > 0);
  }
  test_that("bad arguments throw input_error") {
    const arma::mat X = random_points(4, 3, 24);
    manifoldOOS::local_pca_options o = pca_options(local_pca_route::gram);
    expect_error_as(local_pca(X, 0, o), manifoldOOS::input_error);
    expect_error_as(local_pca(X, 5, o), manifoldOOS::input_error);
    o.short_block = manifoldOOS::local_short_block::complete;
    expect_error_as(local_pca(X, 2, o), manifoldOOS::input_error);
    o = pca_options(local_pca_route::svd);
    o.rank_test = local_rank_test::gram_eigenvalues;
    expect_error_as(local_pca(X, 2, o), manifoldOOS::input_error);
    o.rank_test = local_rank_test::singular_values;
    o.rank = 3;
    expect_error_as(local_pca(X, 2, o), manifoldOOS::input_error);
  }
}

context("sparse eigen-solver block") {
  test_that("shift-invert Lanczos equals LAPACK on a path-graph Laplacian") {
    const int n = 400;
    std::vector<Eigen::Triplet<double>> t;
    for (int i = 0; i < n; ++i) {
      const double d = (i == 0 || i == n - 1) ? 1.0 : 2.0;
      t.emplace_back(i, i, d);
      if (i + 1 < n) {
        t.emplace_back(i, i + 1, -1.0);
        t.emplace_back(i + 1, i, -1.0);
      }
    }
    manifoldOOS::sp_mat_e L(n, n);
    L.setFromTriplets(t.begin(), t.end());
    manifoldOOS::eig_options o;
    o.method = manifoldOOS::eig_method::iterative;
    const manifoldOOS::eigen_result it = manifoldOOS::eigs_sparse_bottom(L, 4, o);
    // closed form: 2 - 2 cos(pi j / n), j = 0..3
    for (int j = 0; j < 4; ++j) {
      const double exact = 2.0 - 2.0 * std::cos(M_PI * j / n);
      expect_true(std::abs(it.values(j) - exact) < 1e-9);
    }
    expect_true(it.residual < 1e-8);
  }
  test_that("an operator deriving square_operator is square and solved by eigs_operator_top") {
    // y = diag(d) x with d = 1, ..., 60: the top eigenpairs are d's largest
    // entries and the matching unit vectors.
    class diag_op : public manifoldOOS::square_operator {
     public:
      explicit diag_op(const arma::vec& d) : square_operator(d.n_elem), d_(d) {}
      void perform_op(const double* x, double* y) const {
        for (arma::uword i = 0; i < d_.n_elem; ++i) y[i] = d_(i) * x[i];
      }

     private:
      const arma::vec& d_;
    };
    const arma::vec d = arma::regspace(1.0, 60.0);
    diag_op op(d);
    expect_true(op.rows() == 60);
    expect_true(op.cols() == 60);
    manifoldOOS::eig_options o;
    o.method = manifoldOOS::eig_method::iterative;
    const manifoldOOS::eigen_result r = manifoldOOS::eigs_operator_top(
        op, 3, o, []() -> manifoldOOS::eigen_result { throw std::runtime_error("no dense fallback"); },
        "diag");
    for (int j = 0; j < 3; ++j) {
      expect_true(std::abs(r.values(j) - (60.0 - j)) < 1e-9);
      expect_true(std::abs(std::abs(r.vectors(59 - j, j)) - 1.0) < 1e-9);
    }
  }
}

context("clique assembly block") {
  test_that("direct compressed assembly equals setFromTriplets bit for bit") {
    // random cliques over n indices: repeated indices within a clique, some
    // indices in no clique (empty columns), non-symmetric blocks with values of
    // mixed magnitude and signed zeros, chunk sizes that split the cliques
    std::mt19937 gen(7);
    for (int rep = 0; rep < 6; ++rep) {
      const long n = 40 + 30 * rep, nc = 25 + 50 * rep, k = 2 + rep % 4;
      std::uniform_int_distribution<int> pick(0, static_cast<int>(n) - 3);  // n - 2, n - 1 unused
      std::normal_distribution<double> normal(0.0, 1.0);
      arma::Mat<int> nb(nc, k);
      for (long i = 0; i < nc; ++i)
        for (long b = 0; b < k; ++b) nb(i, b) = (b > 0 && (i + b) % 7 == 0) ? nb(i, 0) : pick(gen);
      arma::cube blocks(k, k, nc);
      for (arma::uword e = 0; e < blocks.n_elem; ++e) {
        const double u = normal(gen);
        blocks(e) = (e % 11 == 0) ? -0.0 : u * std::pow(10.0, static_cast<int>(e % 9) - 4);
      }
      std::vector<Eigen::Triplet<double>> trips;
      for (long i = 0; i < nc; ++i)
        for (long b = 0; b < k; ++b)
          for (long a = 0; a < k; ++a) trips.emplace_back(nb(i, a), nb(i, b), blocks(a, b, i));
      const manifoldOOS::sp_mat_e ref = manifoldOOS::sparse_from_triplets(n, trips);
      for (long chunk : {0L, 1L, 7L}) {
        for (int threads : {1, 2}) {
          const manifoldOOS::sp_mat_e M = manifoldOOS::assemble_cliques_compressed(
              n, nb, threads, [] { return 0; },
              [&](int&, long i, double* dst) {
                std::copy(blocks.slice(i).memptr(), blocks.slice(i).memptr() + k * k, dst);
              },
              [](int&) {}, chunk);
          expect_true(M.isCompressed());
          const bool same_shape = M.rows() == n && M.cols() == n && M.nonZeros() == ref.nonZeros();
          expect_true(same_shape);
          expect_true(std::equal(M.outerIndexPtr(), M.outerIndexPtr() + n + 1, ref.outerIndexPtr()));
          expect_true(std::equal(M.innerIndexPtr(), M.innerIndexPtr() + M.nonZeros(), ref.innerIndexPtr()));
          // bitwise, signed zeros included
          expect_true(std::memcmp(M.valuePtr(), ref.valuePtr(), sizeof(double) * M.nonZeros()) == 0);
        }
      }
    }
  }
  test_that("an exception thrown by a block is rethrown") {
    arma::Mat<int> nb = {{0, 1}, {1, 2}, {2, 0}};
    bool thrown = false;
    try {
      manifoldOOS::assemble_cliques_compressed(
          3, nb, 1, [] { return 0; },
          [](int&, long i, double* dst) {
            if (i == 2) throw manifoldOOS::input_error("bad block");
            std::fill(dst, dst + 4, 1.0);
          },
          [](int&) {});
    } catch (const manifoldOOS::input_error&) {
      thrown = true;
    }
    expect_true(thrown);
  }
}

context("parallel loop block") {
  // An exception from make_state(), a body or finish() must come back to the
  // caller as that exception (never leave an OpenMP region and end the process),
  // with one or two threads, and the rows before it must have run.
  test_that("exceptions from every part of parallel_row_blocks are rethrown") {
    for (int nt : {1, 2}) {
      for (int where = 0; where < 3; ++where) {
        std::atomic<long> rows{0};
        bool thrown = false;
        try {
          manifoldOOS::parallel_row_blocks(
              200, 64, nt, [](std::size_t, std::size_t) {},
              [&]() -> int {
                if (where == 0) throw manifoldOOS::input_error("state");
                return 0;
              },
              [&](int&, std::size_t i) {
                if (where == 1 && i == 137) throw manifoldOOS::input_error("body");
                ++rows;
              },
              [&](int&) {
                if (where == 2) throw manifoldOOS::input_error("finish");
              });
        } catch (const manifoldOOS::input_error& e) {
          thrown = std::string(e.what()) == (where == 0 ? "state" : where == 1 ? "body" : "finish");
        }
        expect_true(thrown);
        if (where == 1) expect_true(rows.load() >= 128);  // the first two blocks ran whole
      }
    }
  }
  test_that("a loop without exceptions visits every row once") {
    std::vector<int> seen(1000, 0);
    long total = 0;
    manifoldOOS::parallel_row_blocks(
        1000, 300, 2, [](std::size_t, std::size_t) {}, []() { return 0L; },
        [&](long& s, std::size_t i) { ++seen[i]; s += static_cast<long>(i); },
        [&](long& s) { total += s; });
    expect_true(std::all_of(seen.begin(), seen.end(), [](int v) { return v == 1; }));
    expect_true(total == 999L * 1000L / 2L);
  }
  test_that("parallel_rows_guarded reports a failing body or state as false") {
    for (int nt : {1, 2}) {
      bool ok_body = manifoldOOS::parallel_rows_guarded(
          100, nt, 4, []() { return 0; },
          [](int&, std::size_t i) { if (i == 50) throw std::runtime_error("x"); });
      bool ok_state = manifoldOOS::parallel_rows_guarded(
          100, nt, 4, []() -> int { throw std::runtime_error("s"); }, [](int&, std::size_t) {});
      bool ok = manifoldOOS::parallel_rows_guarded(100, nt, 4, []() { return 0; }, [](int&, std::size_t) {});
      expect_true(!ok_body);
      expect_true(!ok_state);
      expect_true(ok);
    }
  }
}

context("string options (parse_choice)") {
  enum class colour { red, green, blue };
  test_that("each name maps to its value, aliases included, the first match wins") {
    auto parse = [](const std::string& s) {
      return manifoldOOS::parse_choice<colour>(
          s, {{"red", colour::red}, {"green", colour::green}, {"verde", colour::green},
              {"blue", colour::blue}, {"red", colour::blue}},
          "unknown colour '" + s + "'");
    };
    expect_true(parse("red") == colour::red);
    expect_true(parse("green") == colour::green);
    expect_true(parse("verde") == colour::green);
    expect_true(parse("blue") == colour::blue);
  }
  test_that("an unknown name is an input error carrying the message") {
    std::string msg;
    try {
      manifoldOOS::parse_choice<colour>("Red", {{"red", colour::red}}, "unknown colour 'Red'");
    } catch (const manifoldOOS::input_error& e) {
      msg = e.what();
    }
    expect_true(msg == "unknown colour 'Red'");
    expect_error_as(manifoldOOS::parse_choice<colour>("", {{"red", colour::red}}, "none"),
                    manifoldOOS::input_error);
  }
  test_that("a table stated once as an array parses as the same table written at the call") {
    static constexpr manifoldOOS::choice<colour> names[] = {
        {"red", colour::red}, {"green", colour::green}, {"verde", colour::green}, {"red", colour::blue}};
    for (const char* s : {"red", "green", "verde"}) {
      expect_true(manifoldOOS::parse_choice(s, names, "x") ==
                  manifoldOOS::parse_choice<colour>(
                      s, {{"red", colour::red}, {"green", colour::green}, {"verde", colour::green}}, "x"));
    }
    expect_true(manifoldOOS::parse_choice("red", names, "x") == colour::red);  // the first match wins
    std::string msg;
    try {
      manifoldOOS::parse_choice("blue", names, "unknown colour 'blue'");
    } catch (const manifoldOOS::input_error& e) {
      msg = e.what();
    }
    expect_true(msg == "unknown colour 'blue'");
  }
  test_that("the package's parsers keep their names and messages") {
    expect_true(manifoldOOS::parse_eig_which("all") == manifoldOOS::eig_which::all);
    expect_true(manifoldOOS::parse_lmds_rule("gower") == manifoldOOS::lmds_rule::triangulation);
    std::string msg;
    try {
      manifoldOOS::parse_lmds_rule("nystroem");
    } catch (const manifoldOOS::input_error& e) {
      msg = e.what();
    }
    expect_true(msg == "unknown out-of-sample rule 'nystroem'");
  }
  test_that("every table-driven parser maps each of its names and keeps its message") {
    using namespace manifoldOOS;
    expect_parser(kernel_type_names, parse_kernel_type, "poly", "unknown kernel 'poly'");
    expect_parser(lmds_rule_names, parse_lmds_rule, "nystroem", "unknown out-of-sample rule 'nystroem'");
    expect_parser(goose_scale_names, parse_goose_scale, "iso", "unknown GOoSE scale 'iso'");
    expect_parser(goose_variant_names, parse_goose_variant, "literal", "unknown GOoSE variant 'literal'");
    expect_parser(eig_which_names, parse_eig_which, "Top", "`which` must be \"bottom\", \"top\" or \"all\"");
    expect_parser(eig_method_names, parse_eig_method, "lanczos",
                  "`method` must be \"auto\", \"dense\" or \"iterative\"");
    expect_parser(nppe_scale_names, parse_nppe_scale, "", "`scale` must be \"coord\", \"global\" or \"none\"");
    expect_parser(poly_kind_names, parse_poly_kind, "Full", "`basis` must be \"hadamard\" or \"full\"");
    expect_parser(le_variant_names, parse_le_variant, "normalized",
                  "`laplacian` must be \"generalized\", \"symmetric\" or \"unnormalized\"");
    // the aliases
    expect_true(parse_lmds_rule("gower") == lmds_rule::triangulation);
    expect_true(parse_eig_method("sparse") == eig_method::iterative);
    expect_true(parse_goose_variant("literal_thesis") == goose_variant::literal);
  }
}
