// Principal components of a sparse matrix without a dense copy: the top
// eigenpairs of the centred (optionally scaled) covariance A'A, or of the
// Gram matrix AA' when there are fewer rows than columns, by Lanczos
// iterations on an operator that applies A = (X - 1 mu') D^{-1} implicitly
// through two sparse products. The model is the dense pca_model
// (methods/pca.h): the same centring, scaling, sign convention and
// projection, with the standard deviations of the q components computed.
#ifndef MANIFOLDOOS_PCA_SPARSE_H
#define MANIFOLDOOS_PCA_SPARSE_H

#include <armadillo>
#include <string>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/sparse_rows.h>
#include <manifoldOOS/methods/pca.h>

namespace manifoldOOS {

struct pca_sparse_info {
  double total_variance = 0.0;  // sum of the (scaled) column variances
  std::string solver;           // eigen-solver used
  long n_ops = 0;               // operator applications
  double residual = -1.0;       // eigen-solver residual check
};

// X: n x p column-compressed. q components; `tol`: Lanczos tolerance.
pca_model pca_fit_sparse(const csc_view& X, arma::uword q, bool scale, double tol,
                         int n_threads, pca_sparse_info* info = nullptr);

// Scores of new sparse rows: (x - center) / scale * rotation.
arma::mat pca_project_sparse(const pca_model& m, const csc_view& Xnew, int n_threads);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_PCA_SPARSE_H
