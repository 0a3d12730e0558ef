// Local tangent space alignment (Zhang & Zha 2004; Zhang & Zha 2004).
//
// For every point i with neighbourhood N_i (k rows of X, normally including
// x_i itself): centre the k x p block, Q_i = top-q eigenvectors of its k x k
// Gram matrix (the local tangent coordinates), G_i = [1/sqrt(k), Q_i], and
// B[N_i, N_i] += I_k - G_i G_i'. The bottom eigenvectors of B without the
// constant one are the embedding (local_align.h).
#ifndef MANIFOLDOOS_LTSA_H
#define MANIFOLDOOS_LTSA_H

#include <armadillo>
#include <cmath>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/clique_assembly.h>
#include <manifoldOOS/blocks/local_align.h>

namespace manifoldOOS {

struct ltsa_alignment {
  sp_mat_e B;
  long n_rank_deficient = 0;  // neighbourhoods whose q-th singular value < 1e-10 x the first
};

// nbhd: one neighbourhood per row (normally n of them), 0-based row indices
// of X, no repeated index within a row. B is nrow(X) x nrow(X).
inline ltsa_alignment ltsa_alignment_matrix(const arma::mat& X, const arma::Mat<int>& nbhd, int q,
                                            int n_threads = 0) {
  const long k = nbhd.n_cols;
  if (q < 1 || q >= k) throw input_error("`k` must exceed `ndim`");
  if (nbhd.n_elem > 0 && (nbhd.min() < 0 || nbhd.max() >= int(X.n_rows)))
    throw input_error("neighbourhood index out of range");
  long deficient = 0;
  ltsa_alignment out;
  out.B = assemble_clique_matrix(X, nbhd, n_threads, deficient, [&](long, const arma::mat& Xi, bool& def) {
    arma::mat G = Xi * Xi.t();
    arma::vec ev;
    arma::mat U;
    if (!arma::eig_sym(ev, U, G)) throw convergence_error("a local eigendecomposition failed in LTSA");
    // ascending: the top q are the last q columns
    const double top = ev(k - 1);
    const double qth = ev(k - q);
    def = !(qth > 1e-20 * top);
    // G_i = [1/sqrt(k), Q_i], orthonormalised by modified Gram-Schmidt so that
    // I - G_i G_i' stays an orthogonal projector (PSD) even when the
    // neighbourhood has rank < q (then the surplus directions are dropped).
    arma::mat Gi(k, q + 1);
    Gi.col(0).fill(1.0 / std::sqrt(double(k)));
    long cols = 1;
    for (int j = 0; j < q; ++j) {
      arma::vec g = U.col(k - 1 - j);
      for (long c = 0; c < cols; ++c) g -= arma::dot(Gi.col(c), g) * Gi.col(c);
      const double gn = arma::norm(g);
      if (gn > 1e-8) Gi.col(cols++) = g / gn;
    }
    const arma::mat Gu = Gi.head_cols(cols);
    arma::mat Li = -Gu * Gu.t();
    Li.diag() += 1.0;
    return Li;
  });
  out.n_rank_deficient = deficient;
  return out;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LTSA_H
