// Shared fixtures of the C++ unit tests (test-blocks*.cpp).
#ifndef MANIFOLDOOS_TEST_HELPERS_H
#define MANIFOLDOOS_TEST_HELPERS_H

#include <armadillo>
#include <random>

namespace {

// Standard normal points from a seeded std::mt19937 (not the C library's
// rand(), which packages must not call).
arma::mat random_points(arma::uword n, arma::uword p, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  arma::mat X(n, p);
  for (arma::uword j = 0; j < p; ++j)
    for (arma::uword i = 0; i < n; ++i) X(i, j) = normal(gen);
  return X;
}

}  // namespace

#endif  // MANIFOLDOOS_TEST_HELPERS_H
