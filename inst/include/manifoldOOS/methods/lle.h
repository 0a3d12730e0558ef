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
#include <chrono>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/clique_assembly.h>
#include <manifoldOOS/blocks/local_align.h>
#include <manifoldOOS/blocks/reconstruction.h>

namespace manifoldOOS {

// M = (I - W)'(I - W) for the n x k weights W over the neighbour lists idx
// (0-based, self excluded): the sum over points i of r_i r_i' on the clique
// [i, idx(i, .)], r_i = (1, -W(i, .)), assembled directly in compressed form
// (clique_assembly.h; the same sums, in the same order, as a triplet list).
inline sp_mat_e lle_alignment_matrix(const arma::Mat<int>& idx, const arma::mat& W, int n_threads = 1) {
  const long n = idx.n_rows, k = idx.n_cols;
  arma::Mat<int> clique(n, k + 1);
  for (long i = 0; i < n; ++i) clique(i, 0) = int(i);
  clique.tail_cols(k) = idx;
  return assemble_cliques_compressed(
      n, clique, n_threads, [k] { return std::vector<double>(k + 1); },
      [&](std::vector<double>& r, long i, double* dst) {
        r[0] = 1.0;
        for (long j = 0; j < k; ++j) r[j + 1] = -W(i, j);
        for (long b = 0; b <= k; ++b)
          for (long a = 0; a <= k; ++a) *dst++ = r[a] * r[b];
      },
      [](std::vector<double>&) {});
}

struct lle_result {
  arma::mat W;      // n x k reconstruction weights
  align_result emb;
  double seconds[3] = {0.0, 0.0, 0.0};  // weights, assembly, eigen-solve (wall clock)
};

inline lle_result lle_fit(const arma::mat& X, const arma::Mat<int>& idx, double reg, int q,
                          const eig_options& o, int n_threads = 0) {
  if (idx.n_rows != X.n_rows) throw input_error("one neighbour list per point is needed");
  if (idx.min() < 0 || idx.max() >= int(X.n_rows)) throw input_error("neighbour index out of range");
  for (arma::uword i = 0; i < idx.n_rows; ++i)
    for (arma::uword j = 0; j < idx.n_cols; ++j)
      if (idx(i, j) == int(i)) throw input_error("a point may not be its own neighbour");
  lle_result r;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  r.W = reconstruction_weights(X, X, idx, reg, arma::mat(), n_threads);
  const auto t1 = clock::now();
  sp_mat_e M = lle_alignment_matrix(idx, r.W, n_threads);
  const auto t2 = clock::now();
  r.emb = align_bottom(M, q, o);
  r.seconds[0] = std::chrono::duration<double>(t1 - t0).count();
  r.seconds[1] = std::chrono::duration<double>(t2 - t1).count();
  r.seconds[2] = std::chrono::duration<double>(clock::now() - t2).count();
  return r;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LLE_H
