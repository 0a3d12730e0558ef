// Principal component analysis with an exact linear out-of-sample map.
#ifndef MANIFOLDOOS_PCA_H
#define MANIFOLDOOS_PCA_H

#include <armadillo>
#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/linalg.h>

namespace manifoldOOS {

struct pca_model {
  arma::rowvec center;  // column means (length p)
  arma::rowvec scale;   // column scales (ones when not scaling)
  arma::mat rotation;   // p x q loadings (orthonormal columns)
  arma::vec sdev;       // standard deviations of all min(n, p) components
  arma::mat scores;     // n x q training embedding
};

// X: n x p, rows are points. q components. When `scale` is true, columns are
// divided by their standard deviation (constant columns are an input error).
inline pca_model pca_fit(const arma::mat& X, arma::uword q, bool scale) {
  const arma::uword n = X.n_rows, p = X.n_cols;
  if (q < 1 || q > std::min(n, p)) throw input_error("ndim must be between 1 and min(n, p)");
  pca_model m;
  m.center = arma::mean(X, 0);
  arma::mat Xc = X.each_row() - m.center;
  m.scale = arma::ones<arma::rowvec>(p);
  if (scale) {
    m.scale = arma::sqrt(arma::sum(arma::square(Xc), 0) / double(n - 1));
    for (arma::uword j = 0; j < p; ++j) {
      if (!(m.scale(j) > 0)) throw input_error("cannot scale a constant column to unit variance");
    }
    Xc.each_row() /= m.scale;
  }
  arma::mat U, V;
  arma::vec s;
  bool ok = arma::svd_econ(U, s, V, Xc, "both", "dc");
  if (!ok) ok = arma::svd_econ(U, s, V, Xc, "both", "std");
  if (!ok) throw convergence_error("the singular value decomposition failed");
  m.rotation = V.cols(0, q - 1);
  fix_signs(m.rotation);
  m.sdev = s / std::sqrt(double(n > 1 ? n - 1 : 1));
  m.scores = Xc * m.rotation;
  return m;
}

// Project new rows: (x - center) / scale * rotation.
inline arma::mat pca_project(const pca_model& m, const arma::mat& Xnew) {
  arma::mat Z = Xnew.each_row() - m.center;
  Z.each_row() /= m.scale;
  return Z * m.rotation;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_PCA_H
