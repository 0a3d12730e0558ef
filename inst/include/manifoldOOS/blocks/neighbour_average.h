// Neighbourhood-average out-of-sample rules shared by Laplacian eigenmaps
// (its "lvm" rule), the generic oos_map(method = "lvm") and SOSI baselines.
#ifndef MANIFOLDOOS_OOS_LOCAL_H
#define MANIFOLDOOS_OOS_LOCAL_H

#include <armadillo>
#include <cmath>
#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

// Normalised heat-kernel weights over each query's neighbours:
// w_ij = exp(-d_ij^2 / (2 sigma^2)) / sum_l exp(-d_il^2 / (2 sigma^2)).
// dist: m x k distances to the neighbours, sorted ascending per row. The
// smallest squared distance is subtracted before exp, so far points get the
// limit (all weight on the nearest neighbours) instead of 0/0; `far` (when
// given) flags rows whose unshifted weights would all underflow.
inline arma::mat normalised_heat_weights(const arma::mat& dist, double sigma,
                                         arma::uvec* far = nullptr) {
  if (!(sigma > 0) || !std::isfinite(sigma)) throw input_error("sigma must be positive and finite");
  const double c = 1.0 / (2.0 * sigma * sigma);
  arma::mat W(dist.n_rows, dist.n_cols);
  if (far) far->zeros(dist.n_rows);
  for (arma::uword i = 0; i < dist.n_rows; ++i) {
    const double d0 = dist(i, 0) * dist(i, 0);
    double s = 0.0;
    for (arma::uword j = 0; j < dist.n_cols; ++j) {
      const double e = std::exp(-(dist(i, j) * dist(i, j) - d0) * c);
      W(i, j) = e;
      s += e;
    }
    W.row(i) /= s;
    if (far && std::exp(-d0 * c) == 0.0) (*far)(i) = 1;
  }
  return W;
}

// Weighted average of neighbours' embeddings: out_i = sum_j W_ij Y[idx_ij].
inline arma::mat neighbour_average(const arma::mat& Y, const arma::Mat<int>& idx,
                                   const arma::mat& W) {
  arma::mat out(idx.n_rows, Y.n_cols, arma::fill::zeros);
  for (arma::uword i = 0; i < idx.n_rows; ++i)
    for (arma::uword j = 0; j < idx.n_cols; ++j) out.row(i) += W(i, j) * Y.row(idx(i, j));
  return out;
}

// LELVM map (Carreira-Perpinan & Lu): Nadaraya-Watson average of the
// training embedding with heat weights over the k nearest training points.
inline arma::mat lvm_average(const arma::mat& Y, const arma::Mat<int>& idx, const arma::mat& dist,
                             double sigma, arma::uvec* far = nullptr) {
  return neighbour_average(Y, idx, normalised_heat_weights(dist, sigma, far));
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_OOS_LOCAL_H
