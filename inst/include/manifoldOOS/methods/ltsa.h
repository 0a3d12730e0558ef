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
#include <manifoldOOS/blocks/local_pca.h>

namespace manifoldOOS {

struct ltsa_alignment {
  sp_mat_e B;
  long n_rank_deficient = 0;  // neighbourhoods whose q-th singular value <= 1e-6 x the first
};

// LTSA's local PCA: Gram route on the centred clique, rank test on the Gram
// eigenvalues (lambda_q > 1e-12 lambda_1, i.e. s_q > 1e-6 s_1).
inline local_pca_options ltsa_pca_options() {
  local_pca_options o;
  o.route = local_pca_route::gram;
  o.rank_test = local_rank_test::gram_eigenvalues;
  o.rank_tol = 1e-12;  // lambda_q > 1e-12 lambda_1, i.e. s_q > 1e-6 s_1 (see local_pca.h)
  o.what = "an LTSA neighbourhood";
  return o;
}

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
    // tangent coordinates: the top q left singular vectors of the clique
    const local_pca_result pca = local_pca(Xi, q, ltsa_pca_options());
    def = pca.rank_deficient;
    // G_i = [1/sqrt(k), Q_i], orthonormalised by modified Gram-Schmidt so that
    // I - G_i G_i' stays an orthogonal projector (PSD) even when the
    // neighbourhood has rank < q (then the surplus directions are dropped).
    arma::mat Gi(k, q + 1);
    Gi.col(0).fill(1.0 / std::sqrt(double(k)));
    long cols = 1;
    for (int j = 0; j < q; ++j) {
      arma::vec g = pca.basis.col(j);
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
