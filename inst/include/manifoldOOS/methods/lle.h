// Locally linear embedding (Roweis & Saul 2000; Roweis & Saul 2000).
//
// Reconstruction weights come from reconstruction.h (trace-relative
// regulariser, always on). The alignment matrix M = (I - W)'(I - W) is
// assembled as a sparse matrix from the per-point outer products r_i r_i'
// with r_i = e_i - w_i ((k + 1)^2 triplets per point), and its bottom
// eigenvectors are computed by local_align.h.
#ifndef MANIFOLDOOS_LLE_H
#define MANIFOLDOOS_LLE_H

#include <armadillo>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/local_align.h>
#include <manifoldOOS/blocks/reconstruction.h>

namespace manifoldOOS {

// M = (I - W)'(I - W) for the n x k weights W over the neighbour lists idx
// (0-based, self excluded).
inline sp_mat_e lle_alignment_matrix(const arma::Mat<int>& idx, const arma::mat& W) {
  const long n = idx.n_rows, k = idx.n_cols;
  const long kk = (k + 1) * (k + 1);
  std::vector<Eigen::Triplet<double>> trips(static_cast<size_t>(n) * kk);
  std::vector<int> J(k + 1);
  std::vector<double> r(k + 1);
  for (long i = 0; i < n; ++i) {
    if ((i & 4095) == 0) check_interrupt();
    J[0] = int(i);
    r[0] = 1.0;
    for (long j = 0; j < k; ++j) {
      J[j + 1] = idx(i, j);
      r[j + 1] = -W(i, j);
    }
    size_t off = static_cast<size_t>(i) * kk;
    for (long a = 0; a <= k; ++a)
      for (long b = 0; b <= k; ++b) trips[off++] = Eigen::Triplet<double>(J[a], J[b], r[a] * r[b]);
  }
  return sparse_from_triplets(n, trips);
}

struct lle_result {
  arma::mat W;      // n x k reconstruction weights
  align_result emb;
};

inline lle_result lle_fit(const arma::mat& X, const arma::Mat<int>& idx, double reg, int q,
                          const eig_options& o, int n_threads = 0) {
  if (idx.n_rows != X.n_rows) throw input_error("one neighbour list per point is needed");
  if (idx.min() < 0 || idx.max() >= int(X.n_rows)) throw input_error("neighbour index out of range");
  for (arma::uword i = 0; i < idx.n_rows; ++i)
    for (arma::uword j = 0; j < idx.n_cols; ++j)
      if (idx(i, j) == int(i)) throw input_error("a point may not be its own neighbour");
  lle_result r;
  r.W = reconstruction_weights(X, X, idx, reg, arma::mat(), n_threads);
  sp_mat_e M = lle_alignment_matrix(idx, r.W);
  r.emb = align_bottom(M, q, o);
  return r;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LLE_H
