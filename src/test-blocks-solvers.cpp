// C++ unit tests of the solver blocks (testthat + Catch), run with the other
// block tests from tests/testthat/test-cpp.R: the SIMD vector kernels against
// plain loops (and a query's dot products independent of its batch), the
// updatable Cholesky factor, the constrained assignment against exhaustive
// search, the minimum spanning trees against a plain Prim, and the panel
// products of tall blocks against loops in their stated summation order.
#include <testthat.h>

#include <manifoldOOS/blocks/constrained_assignment.h>
#include <manifoldOOS/blocks/dense_crossprod.h>
#include <manifoldOOS/blocks/mst.h>
#include <manifoldOOS/blocks/updatable_cholesky.h>
#include <manifoldOOS/blocks/vector_kernels.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "test-helpers.h"

namespace {

// The panels of tall_crossprod() / tall_times(): one below 16384 rows, else
// 8192 rows each (the last one shorter).
std::vector<std::pair<arma::uword, arma::uword>> tall_panel_ranges(arma::uword n) {
  std::vector<std::pair<arma::uword, arma::uword>> out;
  if (n == 0) return out;
  if (n < 16384) return {{0, n - 1}};
  for (arma::uword r0 = 0; r0 < n; r0 += 8192) out.emplace_back(r0, std::min(n, r0 + 8192) - 1);
  return out;
}

// A' B by plain loops: per panel, each entry summed from zero over the rows
// in order; the panels added in order.
arma::mat crossprod_reference(const arma::mat& A, const arma::mat& B) {
  arma::mat G(A.n_cols, B.n_cols, arma::fill::zeros);
  bool first = true;
  for (const auto& pr : tall_panel_ranges(A.n_rows)) {
    arma::mat part(A.n_cols, B.n_cols);
    for (arma::uword a = 0; a < A.n_cols; ++a)
      for (arma::uword b = 0; b < B.n_cols; ++b) {
        double s = 0.0;
        for (arma::uword i = pr.first; i <= pr.second; ++i) s += A(i, a) * B(i, b);
        part(a, b) = s;
      }
    if (first) G = part; else G += part;
    first = false;
  }
  return G;
}

// A C by plain loops: each entry summed from zero over the columns of A in order.
arma::mat times_reference(const arma::mat& A, const arma::mat& C) {
  arma::mat Y(A.n_rows, C.n_cols);
  for (arma::uword i = 0; i < A.n_rows; ++i)
    for (arma::uword j = 0; j < C.n_cols; ++j) {
      double s = 0.0;
      for (arma::uword l = 0; l < A.n_cols; ++l) s += C(l, j) * A(i, l);
      Y(i, j) = s;
    }
  return Y;
}

// Plain O(n^2) Prim on the complete Euclidean graph: the MST's total weight.
double prim_weight(const arma::mat& X) {
  const arma::uword n = X.n_rows;
  std::vector<double> best(n, std::numeric_limits<double>::infinity());
  std::vector<char> in(n, 0);
  best[0] = 0.0;
  double total = 0.0;
  for (arma::uword it = 0; it < n; ++it) {
    arma::uword u = n;
    for (arma::uword v = 0; v < n; ++v)
      if (!in[v] && (u == n || best[v] < best[u])) u = v;
    in[u] = 1;
    total += best[u];
    for (arma::uword v = 0; v < n; ++v)
      if (!in[v]) best[v] = std::min(best[v], arma::norm(X.row(u) - X.row(v)));
  }
  return total;
}

// True when the edges connect all n vertices (n - 1 edges, no cycle).
bool spans(int n, const std::vector<manifoldOOS::mst_edge>& edges) {
  if (int(edges.size()) != n - 1) return false;
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (const auto& e : edges) {
    const int a = find(e.i), b = find(e.j);
    if (a == b) return false;
    parent[a] = b;
  }
  return true;
}

double total_weight(const std::vector<manifoldOOS::mst_edge>& edges) {
  double s = 0.0;
  for (const auto& e : edges) s += e.w;
  return s;
}

bool close(double a, double b, double tol) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

}  // namespace

context("SIMD vector kernels") {
  namespace simd = manifoldOOS::simd;
  const arma::uword n = 37;  // not a multiple of 4 or 8: every tail is used
  const arma::mat Z = random_points(n, 9, 31);
  const double* x[4] = {Z.colptr(0), Z.colptr(1), Z.colptr(2), Z.colptr(3)};
  const double* y = Z.colptr(4);

  test_that("dot products and axpy updates equal plain loops") {
    double ref[4];
    for (int q = 0; q < 4; ++q) ref[q] = arma::dot(Z.col(q), Z.col(4));
    expect_true(close(simd::vdot(x[0], y, n), ref[0], 1e-13));
    double out[4];
    simd::vdot4(x[0], x[1], x[2], x[3], y, n, out);
    for (int q = 0; q < 4; ++q) expect_true(close(out[q], ref[q], 1e-13));
    arma::vec z = Z.col(5), z_ref = Z.col(5) + 0.7 * Z.col(0);
    simd::vaxpy(0.7, x[0], z.memptr(), n);
    expect_true(arma::approx_equal(z, z_ref, "absdiff", 1e-13));
    const double a[4] = {0.5, -1.0, 2.0, 0.25};
    z = Z.col(5);
    z_ref = Z.col(5) + a[0] * Z.col(0) + a[1] * Z.col(1) + a[2] * Z.col(2) + a[3] * Z.col(3);
    simd::vaxpy4(a, x[0], x[1], x[2], x[3], z.memptr(), n);
    expect_true(arma::approx_equal(z, z_ref, "absdiff", 1e-12));
  }

  test_that("a block of dot products equals plain dot products and does not depend on the block") {
    const arma::uword D = 11;  // rows of X and V are D-vectors stored one after the other
    const arma::mat X = random_points(D, 3, 32), V = random_points(D, 4, 33);
    double big[4 * 3], one[1];
    simd::dot_block<3, 4>(X.memptr(), V.memptr(), D, big, 3);
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 3; ++r) {
        simd::dot_block<1, 1>(X.colptr(r), V.colptr(c), D, one, 1);
        expect_true(big[c * 3 + r] == one[0]);  // bitwise: the same operations in any block
        expect_true(close(one[0], arma::dot(X.col(r), V.col(c)), 1e-13));
      }
  }

  test_that("entry ratios and the screening test follow their definitions") {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> c(n), g(n), mask(n), r(n), h(n);
    std::mt19937 gen(34);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (arma::uword j = 0; j < n; ++j) {
      c[j] = u(gen);
      g[j] = u(gen);  // |g| > 1 for some columns: a non-positive denominator
      h[j] = u(gen);
      mask[j] = j % 5 == 0 ? inf : 0.0;
    }
    const double lam = 1.5;
    const double best = simd::entry_ratios(c.data(), g.data(), mask.data(), lam, n, r.data());
    double best_ref = inf;
    for (arma::uword j = 0; j < n; ++j) {
      const double d1 = 1.0 - g[j], d2 = 1.0 + g[j];
      const double r1 = d1 > 0 ? std::max(lam - c[j], 0.0) / d1 : inf;
      const double r2 = d2 > 0 ? std::max(lam + c[j], 0.0) / d2 : inf;
      const double rj = std::min(r1, r2) + mask[j];
      expect_true(r[j] == rj);
      best_ref = std::min(best_ref, rj);
    }
    expect_true(best == best_ref);
    c[3] = std::numeric_limits<double>::quiet_NaN();  // NaN always fails the test
    std::vector<arma::uword> idx(n);
    const arma::uword m = simd::screen(c.data(), h.data(), n, 0.3, 1.0, 0.6, 0.9, idx.data());
    std::vector<arma::uword> ref;
    for (arma::uword k = 0; k < n; ++k)
      if (!(std::abs(c[k] - 0.3 * h[k]) < 1.0) || !(std::abs(c[k] - 0.6 * h[k]) < 0.9)) ref.push_back(k);
    expect_true(m == ref.size());
    expect_true(std::equal(ref.begin(), ref.end(), idx.begin()));
  }
}

context("updatable Cholesky block") {
  test_that("append, remove, update and downdate keep R'R equal to the tracked matrix") {
    using manifoldOOS::updatable_cholesky;
    const arma::uword p = 6;
    const arma::mat Z = random_points(12, p, 21);
    arma::mat S = Z.t() * Z;  // SPD, 6 x 6
    updatable_cholesky ch(p);
    std::vector<arma::uword> cols;  // columns of S in the factor, in order
    auto current = [&]() {
      arma::uvec u(cols.size());
      for (std::size_t i = 0; i < cols.size(); ++i) u(i) = cols[i];
      return arma::mat(S.submat(u, u));
    };
    auto add = [&](arma::uword j) {
      arma::vec k(cols.size());
      for (std::size_t i = 0; i < cols.size(); ++i) k(i) = S(cols[i], j);
      const bool ok = ch.add(k.memptr(), S(j, j), arma::trace(S));
      if (ok) cols.push_back(j);
      return ok;
    };
    auto solves = [&]() {
      const arma::mat M = current();
      arma::vec rhs = arma::linspace(1.0, 2.0, M.n_rows), z = rhs;
      ch.solve(z.memptr());
      return arma::approx_equal(M * z, rhs, "absdiff", 1e-9);
    };
    for (arma::uword j = 0; j < p; ++j) expect_true(add(j));
    expect_true(ch.size() == p);
    expect_true(solves());
    ch.remove(2);
    cols.erase(cols.begin() + 2);
    expect_true(solves());
    arma::vec w = 0.3 * arma::ones<arma::vec>(cols.size());
    ch.update(w.memptr());
    {
      arma::uvec u(cols.size());
      for (std::size_t i = 0; i < cols.size(); ++i) u(i) = cols[i];
      S.submat(u, u) += w * w.t();
    }
    expect_true(solves());
    const bool down = ch.downdate(w.memptr(), arma::trace(S));
    expect_true(down);
    {
      arma::uvec u(cols.size());
      for (std::size_t i = 0; i < cols.size(); ++i) u(i) = cols[i];
      S.submat(u, u) -= w * w.t();
    }
    expect_true(solves());
    // a column in the span of the current ones is refused
    updatable_cholesky one(2);
    const double k11 = 4.0;
    expect_true(one.add(nullptr, k11, k11));
    const double k21 = 2.0 * 4.0;  // column 2 = 2 * column 1: inner product 8, norm 16
    expect_false(one.add(&k21, 16.0, 16.0));
  }
}

context("constrained assignment block") {
  test_that("the assignment is optimal: it equals exhaustive search on tiny instances") {
    const int n = 8, c = 3, h = 2;
    for (unsigned seed = 1; seed <= 4; ++seed) {
      const arma::mat X = random_points(n, 2, 100 + seed);
      const arma::mat C = random_points(c, 2, 200 + seed);
      const std::vector<int> lab =
          manifoldOOS::constrained_assignment(X, C, h, c, 1, nullptr, nullptr, nullptr);
      auto cost_of = [&](const std::vector<int>& l) {
        double s = 0.0;
        for (int i = 0; i < n; ++i) s += arma::accu(arma::square(X.row(i) - C.row(l[i])));
        return s;
      };
      // exhaustive: all c^n labelings with every cluster holding >= h points
      double best = std::numeric_limits<double>::infinity();
      std::vector<int> l(n, 0);
      for (long code = 0; code < static_cast<long>(std::pow(c, n)); ++code) {
        long r = code;
        std::vector<int> size(c, 0);
        for (int i = 0; i < n; ++i) {
          l[i] = r % c;
          r /= c;
          ++size[l[i]];
        }
        if (*std::min_element(size.begin(), size.end()) < h) continue;
        best = std::min(best, cost_of(l));
      }
      std::vector<int> size(c, 0);
      for (int v : lab) ++size[v];
      expect_true(*std::min_element(size.begin(), size.end()) >= h);
      expect_true(std::abs(cost_of(lab) - best) <= 1e-9 * std::max(1.0, best));
    }
  }
}

context("constrained assignment feasibility") {
  test_that("the feasibility check agrees with exhaustive search and with the solver") {
    // random candidate lists of L distinct clusters per point: feasible iff
    // some labelling within the lists gives every cluster >= h points
    const int n = 8, c = 4, L = 2, h = 2;
    int n_feasible = 0, n_infeasible = 0;
    for (unsigned seed = 1; seed <= 200; ++seed) {
      const arma::mat U = random_points(n, 2, 500 + seed);  // normal draws
      arma::Mat<int> cand(n, L);
      for (int i = 0; i < n; ++i) {
        // a point's two clusters from its coordinates, the last one rare
        const double u = std::abs(U(i, 0));
        const int a = u < 0.4 ? 0 : (u < 0.9 ? 1 : (u < 1.8 ? 2 : 3));
        cand(i, 0) = a;
        cand(i, 1) = (a + (U(i, 1) < 0.0 ? 1 : 2)) % c;
      }
      bool exhaustive = false;
      for (long code = 0; code < (1L << n) && !exhaustive; ++code) {
        std::vector<int> size(c, 0);
        for (int i = 0; i < n; ++i) ++size[cand(i, (code >> i) & 1L)];
        exhaustive = *std::min_element(size.begin(), size.end()) >= h;
      }
      const bool check = manifoldOOS::assignment_detail::lists_feasible(cand, c, h);
      expect_true(check == exhaustive);
      arma::mat cost(n, L);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < L; ++j) cost(i, j) = 1.0 + j + 0.1 * i;
      std::vector<int> lab;
      std::vector<double> price;
      const bool solved = manifoldOOS::assignment_detail::ssp_assign(cand, cost, c, h, lab, price, nullptr);
      expect_true(solved == exhaustive);
      (exhaustive ? n_feasible : n_infeasible) += 1;
    }
    // both outcomes occur, so the comparison can fail either way
    expect_true(n_feasible > 20);
    expect_true(n_infeasible > 20);
  }

  test_that("the feasibility check agrees with the solver on larger skewed instances") {
    // points on [0, 1] crowding towards 0, c evenly spaced centres, each point
    // listing its L nearest: some instances feasible, some not
    int n_feasible = 0, n_infeasible = 0;
    for (unsigned seed = 1; seed <= 40; ++seed) {
      std::mt19937 gen(seed);
      std::uniform_real_distribution<double> unif(0.0, 1.0);
      const int c = 300, h = 5 + static_cast<int>(seed % 3), n = c * h + 200;
      const int L = 3 + static_cast<int>(seed % 5);
      std::vector<double> x(n);
      for (int i = 0; i < n; ++i) x[i] = std::pow(unif(gen), 1.0 + 0.02 * (seed % 7));
      arma::Mat<int> cand(n, L);
      arma::mat cost(n, L);
      std::vector<std::pair<double, int>> d(c);
      for (int i = 0; i < n; ++i) {
        for (int l = 0; l < c; ++l) d[l] = {std::abs(x[i] - (l + 0.5) / c), l};
        std::partial_sort(d.begin(), d.begin() + L, d.end());
        for (int j = 0; j < L; ++j) {
          cand(i, j) = d[j].second;
          cost(i, j) = 0.5 * d[j].first * d[j].first;
        }
      }
      std::vector<int> lab;
      std::vector<double> price;
      const bool solved = manifoldOOS::assignment_detail::ssp_assign(cand, cost, c, h, lab, price, nullptr);
      expect_true(manifoldOOS::assignment_detail::lists_feasible(cand, c, h) == solved);
      (solved ? n_feasible : n_infeasible) += 1;
    }
    expect_true(n_feasible > 5);
    expect_true(n_infeasible > 5);
  }

  test_that("the check follows long chains of moves and sees sets of clusters short together") {
    // block l of h points lists clusters l - 1 and l (block 0: 0 and 1). The
    // greedy start fills cluster l - 1 with block l and leaves the last
    // cluster empty; filling it needs a chain of moves through every cluster.
    const int c = 40, h = 3, n = c * h;
    arma::Mat<int> cand(n, 2);
    for (int i = 0; i < n; ++i) {
      const int l = i / h;
      cand(i, 0) = l == 0 ? 0 : l - 1;
      cand(i, 1) = l == 0 ? 1 : l;
    }
    expect_true(manifoldOOS::assignment_detail::lists_feasible(cand, c, h));
    // block c - 2 lists c - 3 and 0 instead: clusters c - 2 and c - 1 are now
    // listed by block c - 1 alone, h points for 2 h places, although each of
    // the two is listed by h points
    arma::Mat<int> bad = cand;
    for (int i = (c - 2) * h; i < (c - 1) * h; ++i) bad(i, 1) = 0;
    std::vector<int> indeg(c, 0);
    for (arma::uword e = 0; e < bad.n_elem; ++e) ++indeg[bad[e]];
    expect_true(*std::min_element(indeg.begin(), indeg.end()) >= h);
    expect_false(manifoldOOS::assignment_detail::lists_feasible(bad, c, h));
    arma::mat cost(n, 2, arma::fill::ones);
    std::vector<int> lab;
    std::vector<double> price;
    expect_false(manifoldOOS::assignment_detail::ssp_assign(bad, cost, c, h, lab, price, nullptr));
    expect_true(manifoldOOS::assignment_detail::ssp_assign(cand, cost, c, h, lab, price, nullptr));
  }
}

context("minimum spanning tree block") {
  test_that("the exact and the kNN-graph Euclidean MSTs span the points at the least total weight") {
    // two separated clouds: the kNN graph is disconnected and the components are joined
    arma::mat X = random_points(80, 3, 41);
    X.rows(40, 79) += 25.0;
    const double ref = prim_weight(X);
    const auto exact = manifoldOOS::euclidean_mst(X, 0, 1);
    expect_true(spans(80, exact));
    expect_true(close(total_weight(exact), ref, 1e-12));
    const auto viaknn = manifoldOOS::euclidean_mst(X, 15, 2);
    expect_true(spans(80, viaknn));
    expect_true(close(total_weight(viaknn), ref, 1e-12));
    for (const auto& e : viaknn) expect_true(e.i < e.j);
  }

  test_that("Kruskal breaks ties by (w, i, j) and duplicate edges are dropped") {
    using manifoldOOS::mst_edge;
    std::vector<mst_edge> edges = {{0, 1, 1.0}, {1, 2, 1.0}, {0, 2, 1.0}, {2, 3, 0.5}, {0, 1, 1.0}};
    manifoldOOS::drop_duplicate_edges(edges);
    expect_true(edges.size() == 4u);  // the second (0, 1) is gone
    const auto tree = manifoldOOS::kruskal_mst(4, edges);
    expect_true(tree.size() == 3u);
    expect_true((tree[0].i == 2 && tree[0].j == 3));
    expect_true((tree[1].i == 0 && tree[1].j == 1));
    expect_true((tree[2].i == 0 && tree[2].j == 2));  // (0, 2) before (1, 2) at equal weight
  }
}

context("panel products of tall blocks") {
  test_that("A' B and A C equal loops in the stated order bit for bit, for any thread count") {
    // row counts: tiny, not a multiple of 8, one panel, just at the split,
    // several panels with a short last one; column counts exercising every
    // tile remainder (1 to 4 columns of B, an odd number of columns of A)
    const arma::uword rows[] = {3, 13, 5000, 16384, 40001};
    const arma::uword cols[][2] = {{1, 1}, {2, 3}, {5, 5}, {5, 10}, {7, 6}, {10, 4}};
    unsigned seed = 1;
    for (arma::uword n : rows)
      for (const auto& pq : cols) {
        const arma::mat A = random_points(n, pq[0], seed++);
        const arma::mat B = random_points(n, pq[1], seed++);
        const arma::mat C = random_points(pq[0], pq[1], seed++);
        const arma::mat G = manifoldOOS::tall_crossprod(A, B, 1);
        const arma::mat Y = manifoldOOS::tall_times(A, C, 1);
        expect_true(arma::approx_equal(G, crossprod_reference(A, B), "absdiff", 0.0));
        expect_true(arma::approx_equal(Y, times_reference(A, C), "absdiff", 0.0));
        expect_true(arma::approx_equal(manifoldOOS::tall_crossprod(A, B, 2), G, "absdiff", 0.0));
        expect_true(arma::approx_equal(manifoldOOS::tall_times(A, C, 2), Y, "absdiff", 0.0));
        // and they are the products (to rounding)
        const bool near = arma::approx_equal(G, A.t() * B, "absdiff", 1e-9);
        expect_true(near);
        expect_true(arma::approx_equal(Y, A * C, "absdiff", 1e-10));
      }
    expect_true(manifoldOOS::tall_panels(0) == 0u);
    expect_true(manifoldOOS::tall_panels(16383) == 1u);
    expect_true(manifoldOOS::tall_panels(16384) == 2u);
    expect_true(manifoldOOS::tall_panels(40001) == 5u);
  }

  test_that("empty blocks give zero products of the right shape") {
    const arma::mat A(100, 0), B = random_points(100, 3, 9);
    const arma::mat G = manifoldOOS::tall_crossprod(A, B, 2);
    const bool g_shape = G.n_rows == 0 && G.n_cols == 3;
    expect_true(g_shape);
    const arma::mat Y = manifoldOOS::tall_times(A, arma::mat(0, 4), 2);
    const bool y_zero = Y.n_rows == 100 && Y.n_cols == 4 && arma::accu(arma::abs(Y)) == 0.0;
    expect_true(y_zero);
  }
}
