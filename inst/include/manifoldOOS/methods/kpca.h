// Kernel PCA (Schölkopf, Smola & Müller 1998) with its exact out-of-sample projection, and the
// Gower out-of-sample map of classical MDS on Euclidean data (Torgerson 1952; Gower 1966).
#ifndef MANIFOLDOOS_KPCA_H
#define MANIFOLDOOS_KPCA_H

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/kernels.h>
#include <manifoldOOS/methods/lmds.h>
#include <manifoldOOS/blocks/parallel.h>

namespace manifoldOOS {

struct kpca_model {
  arma::vec values;     // top q eigenvalues of K_c = H K H (not divided by n)
  arma::mat embedding;  // n x q, V Lambda^{1/2}
  arma::mat alpha;      // n x q, V Lambda^{-1/2}
  kernel_centering centering;
  std::string method;
  long n_ops = 0;
  std::string note;
};

// K: the uncentred n x n training kernel (symmetric). Eigenvalues with
// l_k <= 1e-12 l_1 (or not positive) among the q leading ones are an input
// error (`ndim` too large for this kernel).
inline kpca_model kpca_fit(const arma::mat& K, arma::uword q, const eig_options& o) {
  const arma::uword n = K.n_rows;
  if (K.n_cols != n || n < 2) throw input_error("the kernel matrix must be square with n >= 2");
  if (q < 1 || q >= n) throw input_error("`ndim` must lie in [1, n - 1]");
  kpca_model M;
  M.centering = kernel_center_stats(K);
  const eigen_result r = eigs_sym(sym_problem::dense(K, true), eig_which::top, q, o);
  require_positive_leading(r.values, q, "the centred kernel matrix", "",
                           "Reduce `ndim` or change the kernel.");
  M.values = r.values;
  scale_by_sqrt(r.vectors, M.values, M.embedding, M.alpha);
  M.method = r.method_used;
  M.n_ops = r.n_ops;
  M.note = r.note;
  return M;
}

// y(x) = alpha' k_c(x) for the rows of Xnew, with k_c centred by the stored
// training statistics. Processed in blocks of rows (memory O(block * n)).
// f(a0, a1) for the row blocks [a0, a1] of n rows, blocks in parallel
// (parallel_row_blocks: interrupt polling, exception capture). Each block
// is computed the same way whatever the thread count.
template <class F>
void for_row_blocks(arma::uword n, arma::uword block, int n_threads, F f) {
  const std::size_t nb = (n + block - 1) / block;
  parallel_row_blocks(
      nb, std::max<std::size_t>(nb, 1), n_threads, [](std::size_t, std::size_t) {},
      []() { return 0; },
      [&](int&, std::size_t b) {
        const arma::uword a0 = static_cast<arma::uword>(b) * block;
        f(a0, std::min<arma::uword>(n, a0 + block) - 1);
      },
      [](int&) {}, 1);
}

inline arma::mat kpca_project(const arma::mat& X, const arma::mat& Xnew, const kernel_spec& ks,
                              const kernel_centering& c, const arma::mat& alpha,
                              int n_threads = 1, arma::uword block = 256) {
  if (Xnew.n_cols != X.n_cols) throw input_error("new points must have the training columns");
  if (alpha.n_rows != X.n_rows || c.col_means.n_elem != X.n_rows) {
    throw input_error("inconsistent kernel PCA model");
  }
  arma::mat Y(Xnew.n_rows, alpha.n_cols);
  for_row_blocks(Xnew.n_rows, block, n_threads, [&](arma::uword a0, arma::uword a1) {
    arma::mat Kn = kernel_cross(Xnew.rows(a0, a1), X, ks);
    kernel_center_new(Kn, c);
    Y.rows(a0, a1) = Kn * alpha;
  });
  return Y;
}

// Gower's map for classical MDS on Euclidean data: squared Euclidean
// distances of each new row to the training rows, then lmds_place().
inline arma::mat mds_project(const arma::mat& X, const arma::mat& Xnew, const lmds_map& M,
                             lmds_rule rule, int n_threads = 1, arma::uword block = 256) {
  if (Xnew.n_cols != X.n_cols) throw input_error("new points must have the training columns");
  if (M.m() != X.n_rows) throw input_error("inconsistent MDS model");
  arma::mat Y(Xnew.n_rows, M.q());
  for_row_blocks(Xnew.n_rows, block, n_threads, [&](arma::uword a0, arma::uword a1) {
    const arma::mat S = sq_dist_cross(Xnew.rows(a0, a1), X);
    Y.rows(a0, a1) = lmds_place_rows(M, rule, S);
  });
  return Y;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_KPCA_H
