// C++ unit tests of the smoothed-aggregation AMG block and the deflated
// LOBPCG solver (testthat + Catch, run from tests/testthat/test-cpp.R), on
// grid-graph Laplacians whose spectrum is known in closed form, and of the
// block product against a column-by-column loop.
#include <testthat.h>

#include <manifoldOOS/blocks/amg.h>
#include <manifoldOOS/blocks/eigen_lobpcg.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "test-helpers.h"

namespace {

// Unnormalised Laplacian of the nx x ny grid graph (unit weights).
Eigen::SparseMatrix<double> grid_laplacian(long nx, long ny) {
  const long n = nx * ny;
  std::vector<Eigen::Triplet<double>> t;
  arma::vec deg(n, arma::fill::zeros);
  auto edge = [&](long a, long b) {
    t.emplace_back(a, b, -1.0);
    t.emplace_back(b, a, -1.0);
    deg(a) += 1.0;
    deg(b) += 1.0;
  };
  for (long i = 0; i < nx; ++i) {
    for (long j = 0; j < ny; ++j) {
      const long a = i * ny + j;
      if (i + 1 < nx) edge(a, a + ny);
      if (j + 1 < ny) edge(a, a + 1);
    }
  }
  for (long a = 0; a < n; ++a) t.emplace_back(a, a, deg(a));
  Eigen::SparseMatrix<double> L(n, n);
  L.setFromTriplets(t.begin(), t.end());
  L.makeCompressed();
  return L;
}

// Ascending non-zero eigenvalues of the grid Laplacian: sums of the path
// graphs' eigenvalues 2 - 2 cos(pi k / n).
arma::vec grid_eigenvalues(long nx, long ny) {
  std::vector<double> v;
  for (long i = 0; i < nx; ++i) {
    for (long j = 0; j < ny; ++j) {
      if (i == 0 && j == 0) continue;
      v.push_back(2.0 - 2.0 * std::cos(M_PI * i / nx) + 2.0 - 2.0 * std::cos(M_PI * j / ny));
    }
  }
  std::sort(v.begin(), v.end());
  return arma::vec(v);
}

}  // namespace

context("smoothed-aggregation AMG block") {
  const long nx = 40, ny = 45, n = nx * ny;
  const Eigen::SparseMatrix<double> L = grid_laplacian(nx, ny);
  const arma::vec ones(n, arma::fill::ones);

  test_that("the block product equals a column-by-column loop bit for bit, for any width and thread count") {
    // a symmetric matrix of random weights on a larger grid's pattern (above
    // the threading threshold), blocks of 1 to 19 columns (the product takes
    // 8 columns at a time)
    const long gx = 90, gy = 80, gn = gx * gy;
    Eigen::SparseMatrix<double> W = grid_laplacian(gx, gy);
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> u(0.5, 1.5);
    for (long c = 0; c < gn; ++c)
      for (Eigen::SparseMatrix<double>::InnerIterator it(W, c); it; ++it)
        if (it.row() >= c) {
          const double v = it.value() * u(gen);
          it.valueRef() = v;
          W.coeffRef(c, it.row()) = v;
        }
    for (arma::uword p = 1; p < 20; ++p) {
      const arma::mat X = random_points(gn, p, 100 + unsigned(p));
      arma::mat ref(gn, p);
      for (arma::uword c = 0; c < p; ++c)
        for (long i = 0; i < gn; ++i) {
          double acc = 0.0;
          for (Eigen::SparseMatrix<double>::InnerIterator it(W, i); it; ++it) acc += it.value() * X(it.row(), c);
          ref(i, c) = acc;
        }
      const arma::mat Y1 = manifoldOOS::amg_detail::sym_times(W, X, 1);
      const arma::mat Y2 = manifoldOOS::amg_detail::sym_times(W, X, 2);
      expect_true(arma::approx_equal(Y1, ref, "absdiff", 0.0));
      expect_true(arma::approx_equal(Y2, ref, "absdiff", 0.0));
    }
  }

  test_that("aggregation assigns every node to one of fewer, non-empty aggregates") {
    std::vector<long> agg;
    const long na = manifoldOOS::amg_detail::aggregate(L, 0.0, agg);
    const bool fewer = na > 1 && na < n / 3;
    expect_true(fewer);
    std::set<long> seen(agg.begin(), agg.end());
    expect_true(long(seen.size()) == na);
    const bool contiguous = *seen.begin() == 0 && *seen.rbegin() == na - 1;
    expect_true(contiguous);
  }

  test_that("the V-cycle is symmetric, positive definite on the complement of 1 and contracts") {
    manifoldOOS::amg_options o;
    o.coarse_size = 100;
    const manifoldOOS::amg_hierarchy M(L, ones, o);
    expect_true(M.n_levels() >= 2);
    expect_true(M.size(M.n_levels() - 1) <= 100);
    arma::mat Z = random_points(n, 3, 7);
    Z.each_row() -= arma::mean(Z, 0);
    const arma::mat MZ = M.apply(Z);
    // output orthogonal to the null vector
    expect_true(arma::abs(arma::sum(MZ, 0)).max() < 1e-10 * arma::abs(MZ).max() * n);
    // symmetric: <z_0, M z_1> = <M z_0, z_1>; positive: <z, M z> > 0
    const double a = arma::dot(Z.col(0), MZ.col(1)), b = arma::dot(MZ.col(0), Z.col(1));
    expect_true(std::abs(a - b) <= 1e-10 * (std::abs(a) + std::abs(b)));
    for (int j = 0; j < 3; ++j) expect_true(arma::dot(Z.col(j), MZ.col(j)) > 0);
    // error propagation E = I - M A reduces the energy norm of a smooth error
    // and of a rough one
    for (int j = 0; j < 3; ++j) {
      const arma::vec x = Z.col(j);
      const arma::vec Ax = manifoldOOS::amg_detail::sym_times(L, arma::mat(x), 1).col(0);
      const arma::vec e = x - M.apply(arma::mat(Ax)).col(0);
      const arma::vec Ae = manifoldOOS::amg_detail::sym_times(L, arma::mat(e), 1).col(0);
      expect_true(std::sqrt(arma::dot(e, Ae)) < 0.9 * std::sqrt(arma::dot(x, Ax)));
    }
  }
}

context("deflated LOBPCG block") {
  const long nx = 30, ny = 47, n = nx * ny;
  const Eigen::SparseMatrix<double> L = grid_laplacian(nx, ny);
  const arma::vec ones(n, arma::fill::ones);

  test_that("the bottom non-trivial pairs match the closed form, orthogonal to the null vector") {
    manifoldOOS::lobpcg_options o;
    o.amg.coarse_size = 200;
    o.tol = 1e-10;
    const manifoldOOS::eigen_result r = manifoldOOS::lobpcg_bottom_deflated(L, ones, 4, o);
    const arma::vec ref = grid_eigenvalues(nx, ny).head(4);
    expect_true(r.method_used == "lobpcg_amg_deflated");
    expect_true(arma::abs(r.values - ref).max() <= 1e-8 * ref.max());
    expect_true(arma::abs(r.vectors.t() * r.vectors - arma::eye(4, 4)).max() < 1e-10);
    expect_true(arma::abs(arma::sum(r.vectors, 0)).max() < 1e-10 * std::sqrt(double(n)));
    const arma::mat R = manifoldOOS::amg_detail::sym_times(L, r.vectors, 1) -
                        r.vectors.each_row() % r.values.t();
    expect_true(arma::sqrt(arma::sum(arma::square(R), 0)).max() <= 1e-9 * 8.0);
  }

  test_that("rows renumbered: the same pairs, mapped back to the caller's rows") {
    // the grid's nodes in a random order (as a kNN graph's rows come), solved
    // with and without the breadth-first renumbering
    std::mt19937 gen(7);
    std::vector<int> perm(n);
    for (long i = 0; i < n; ++i) perm[i] = static_cast<int>(i);
    std::shuffle(perm.begin(), perm.end(), gen);
    std::vector<Eigen::Triplet<double>> t;
    for (long j = 0; j < L.outerSize(); ++j) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(L, j); it; ++it) {
        t.emplace_back(perm[it.row()], perm[it.col()], it.value());
      }
    }
    Eigen::SparseMatrix<double> Ls(n, n);
    Ls.setFromTriplets(t.begin(), t.end());
    Ls.makeCompressed();
    manifoldOOS::lobpcg_options o;
    o.amg.coarse_size = 200;
    o.tol = 1e-11;
    const manifoldOOS::eigen_result a = manifoldOOS::lobpcg_bottom_deflated(Ls, ones, 3, o);
    o.reorder = false;
    const manifoldOOS::eigen_result b = manifoldOOS::lobpcg_bottom_deflated(Ls, ones, 3, o);
    const arma::vec ref = grid_eigenvalues(nx, ny).head(3);
    expect_true(arma::abs(a.values - ref).max() <= 1e-9 * ref.max());
    expect_true(arma::abs(b.values - ref).max() <= 1e-9 * ref.max());
    // distinct eigenvalues: the vectors agree up to sign, row by row
    const arma::vec cosines = arma::abs(arma::sum(a.vectors % b.vectors, 0)).t();
    expect_true(cosines.min() > 1.0 - 1e-8);
    // and they are eigenvectors of the shuffled matrix in the caller's numbering
    const arma::mat R = manifoldOOS::amg_detail::sym_times(Ls, a.vectors, 1) -
                        a.vectors.each_row() % a.values.t();
    expect_true(arma::sqrt(arma::sum(arma::square(R), 0)).max() <= 1e-10 * 8.0);
    // renumbering the caller's matrix in place: the same pairs bit for bit,
    // and the matrix given back bit for bit (also after a failed solve)
    o.reorder = true;
    Eigen::SparseMatrix<double> Lw = Ls;
    const manifoldOOS::eigen_result c = manifoldOOS::lobpcg_bottom_deflated_in_place(Lw, ones, 3, o);
    expect_true(arma::abs(c.values - a.values).max() == 0.0);
    expect_true(arma::abs(c.vectors - a.vectors).max() == 0.0);
    auto same_matrix = [&](const Eigen::SparseMatrix<double>& X) {
      return X.nonZeros() == Ls.nonZeros() && X.isCompressed() &&
             std::equal(Ls.outerIndexPtr(), Ls.outerIndexPtr() + n + 1, X.outerIndexPtr()) &&
             std::equal(Ls.innerIndexPtr(), Ls.innerIndexPtr() + Ls.nonZeros(), X.innerIndexPtr()) &&
             std::equal(Ls.valuePtr(), Ls.valuePtr() + Ls.nonZeros(), X.valuePtr());
    };
    expect_true(same_matrix(Lw));
    o.maxit = 1;
    expect_error_as(manifoldOOS::lobpcg_bottom_deflated_in_place(Lw, ones, 3, o), manifoldOOS::convergence_error);
    expect_true(same_matrix(Lw));
  }

  test_that("a grid above the panel size of the block products (threaded) matches the closed form") {
    const long mx = 120, my = 151, m = mx * my;
    const Eigen::SparseMatrix<double> G = grid_laplacian(mx, my);
    manifoldOOS::lobpcg_options o;
    o.tol = 1e-10;
    o.n_threads = 2;
    const manifoldOOS::eigen_result r = manifoldOOS::lobpcg_bottom_deflated(G, arma::vec(m, arma::fill::ones), 2, o);
    const arma::vec ref = grid_eigenvalues(mx, my).head(2);
    expect_true(arma::abs(r.values - ref).max() <= 1e-8 * ref.max());
    o.n_threads = 1;
    const manifoldOOS::eigen_result r1 = manifoldOOS::lobpcg_bottom_deflated(G, arma::vec(m, arma::fill::ones), 2, o);
    // the same result for any number of threads
    expect_true(arma::abs(r.values - r1.values).max() == 0.0);
    expect_true(arma::abs(r.vectors - r1.vectors).max() == 0.0);
  }

  test_that("too few iterations raise convergence_error, too small a matrix input_error") {
    manifoldOOS::lobpcg_options o;
    o.maxit = 1;
    expect_error_as(manifoldOOS::lobpcg_bottom_deflated(L, ones, 4, o),
                    manifoldOOS::convergence_error);
    const Eigen::SparseMatrix<double> S = grid_laplacian(3, 4);
    expect_error_as(manifoldOOS::lobpcg_bottom_deflated(S, arma::vec(12, arma::fill::ones), 2),
                    manifoldOOS::input_error);
  }
}
