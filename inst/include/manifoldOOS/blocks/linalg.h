// Small dense linear-algebra helpers shared by every method.
#ifndef MANIFOLDOOS_LINALG_H
#define MANIFOLDOOS_LINALG_H

#include <armadillo>
#include <cmath>

namespace manifoldOOS {

// Deterministic sign convention for eigen/singular vectors: flip each column
// so that its entry of largest absolute value is positive (ties: the
// smallest index). Returns the vector of applied signs (+1/-1).
inline arma::vec fix_signs(arma::mat& V) {
  arma::vec sgn(V.n_cols, arma::fill::ones);
  for (arma::uword j = 0; j < V.n_cols; ++j) {
    double best = -1.0, val = 0.0;
    for (arma::uword i = 0; i < V.n_rows; ++i) {
      const double a = std::abs(V(i, j));
      if (a > best) { best = a; val = V(i, j); }
    }
    if (val < 0) { V.col(j) *= -1.0; sgn(j) = -1.0; }
  }
  return sgn;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LINALG_H
