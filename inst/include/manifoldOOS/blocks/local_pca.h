// Local PCA: the leading principal directions of a small block of rows (a
// neighbourhood, a clique, a cluster), shared by LTSA, LGRM, PLML and GOoSE.
//
// The four callers need different things from the same decomposition
// C = U S W' of the (centred) k x p block C, so what differs is an explicit
// option rather than a private copy of the code:
//
//   route     gram     eigendecomposition of the k x k Gram matrix C C':
//                      left singular vectors U (k x dims), cheap when k << p
//                      (LTSA's tangent coordinates, LGRM's clique residuals);
//             scatter  eigendecomposition of the p x p scatter matrix C'C when
//                      p <= k (a thin SVD otherwise, or when it fails): right
//                      singular vectors W (p x dims) (GOoSE);
//             svd      a thin SVD (a full one when k < dims): right singular
//                      vectors W (PLML's local models and their normals).
//   centre    subtract the column means first (GOoSE, PLML); LTSA and LGRM
//             pass cliques that assemble_clique_matrix() already centred.
//   symmetrize_gram  average C C' with its transpose before the
//             eigendecomposition (LGRM).
//   short_block  what a block with fewer than dims directions returns:
//             zero columns (GOoSE) or, route svd, a basis completed by the
//             full SVD (PLML needs dims = q + 1 orthonormal columns).
//   rank test none (GOoSE); singular_values: rank deficient unless
//             s_r > tol s_1 (LGRM on sqrt(max(lambda, 0)) of the Gram
//             eigenvalues, PLML on the SVD; also when fewer than r values
//             exist); gram_eigenvalues: unless lambda_r > tol lambda_1 on the
//             raw Gram eigenvalues (LTSA, tol = 1e-12 = (1e-6)^2). The two
//             tests agree except within rounding of the threshold. Through
//             the Gram or scatter matrix a zero singular value comes out as
//             about sqrt(machine epsilon) x s_1 (~1e-8 s_1), so a tolerance
//             on s below that would flag only blocks whose eigenvalues vanish
//             exactly: LTSA and LGRM therefore test s_r > 1e-6 s_1, which a
//             rank-deficient clique (points on a line with ndim = 2) fails
//             and well-sampled curved data pass; the SVD route (PLML, 1e-10)
//             resolves ~1e-16 s_1.
//   fix_signs flip each basis column so that its largest entry is positive
//             (linalg.h; PLML).
//
// Columns come in descending order of singular value; ties between equal
// singular values are resolved by LAPACK (no further convention).
#ifndef MANIFOLDOOS_LOCAL_PCA_H
#define MANIFOLDOOS_LOCAL_PCA_H

#include <armadillo>
#include <string>

namespace manifoldOOS {

enum class local_pca_route { gram, scatter, svd };
enum class local_rank_test { none, singular_values, gram_eigenvalues };
enum class local_short_block { zero_columns, complete };

struct local_pca_options {
  local_pca_route route = local_pca_route::gram;
  bool centre = false;
  bool symmetrize_gram = false;
  local_short_block short_block = local_short_block::zero_columns;
  local_rank_test rank_test = local_rank_test::none;
  int rank = 0;             // r of the rank test (1 <= r <= dims); 0: dims
  double rank_tol = 1e-10;  // tol of the rank test
  bool fix_signs = false;
  std::string what = "a neighbourhood";  // named in the error when LAPACK fails
};

struct local_pca_result {
  arma::rowvec mean;   // column means (centre = true), else empty
  arma::mat centred;   // the centred block (centre = true), else empty
  arma::mat basis;     // gram: k x dims (left vectors); scatter, svd: p x dims (right vectors)
  arma::vec eigenvalues;      // gram, scatter by eigendecomposition: the top dims eigenvalues
                              // as LAPACK returned them (descending, not clamped; fewer when
                              // fewer exist); svd: empty
  arma::vec singular_values;  // by eigendecomposition: sqrt(max(lambda, 0)) of those; by SVD:
                              // all of the SVD's singular values, descending
  bool rank_deficient = false;  // by the rank test (false with local_rank_test::none)
};

// The block C (k x p, k >= 1). dims >= 1. Throws input_error for bad
// arguments and convergence_error when LAPACK fails.
local_pca_result local_pca(const arma::mat& C, int dims, const local_pca_options& opt);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LOCAL_PCA_H
