// Local PCA block (see <manifoldOOS/blocks/local_pca.h>).
#include <manifoldOOS/blocks/local_pca.h>

#include <algorithm>
#include <cmath>

#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

namespace {

void lapack_failed(const local_pca_options& opt) {
  throw convergence_error("the local PCA of " + opt.what + " failed (LAPACK did not converge)");
}

// Top `dims` eigenpairs of the k x k Gram matrix (eig_sym returns them ascending).
void gram_route(const arma::mat& C, int dims, const local_pca_options& opt, local_pca_result& out) {
  const arma::uword k = C.n_rows;
  if (arma::uword(dims) > k) throw input_error("local PCA: `dims` exceeds the number of rows of the block");
  arma::mat G = C * C.t();
  if (opt.symmetrize_gram) G = 0.5 * (G + G.t());
  arma::vec ev;
  arma::mat U;
  if (!arma::eig_sym(ev, U, G)) lapack_failed(opt);
  out.basis.set_size(k, dims);
  out.eigenvalues.set_size(dims);
  out.singular_values.set_size(dims);
  for (int j = 0; j < dims; ++j) {
    out.basis.col(j) = U.col(k - 1 - j);
    out.eigenvalues(j) = ev(k - 1 - j);
    out.singular_values(j) = std::sqrt(std::max(ev(k - 1 - j), 0.0));
  }
}

// The right singular vectors of a thin SVD, zero columns past the last one.
void thin_svd_right(const arma::mat& C, int dims, const local_pca_options& opt, local_pca_result& out) {
  arma::mat U, W;
  arma::vec s;
  if (!arma::svd_econ(U, s, W, C, "right")) lapack_failed(opt);
  out.basis.zeros(C.n_cols, dims);
  const arma::uword r = std::min<arma::uword>(dims, W.n_cols);
  if (r > 0) out.basis.cols(0, r - 1) = W.cols(0, r - 1);
  out.singular_values = s;
}

// p <= k: top eigenvectors of the p x p scatter matrix; else (or when that
// eigendecomposition fails) the thin SVD.
void scatter_route(const arma::mat& C, int dims, const local_pca_options& opt, local_pca_result& out) {
  const arma::uword p = C.n_cols;
  if (p <= C.n_rows) {
    arma::vec ev;
    arma::mat E;
    if (arma::eig_sym(ev, E, C.t() * C)) {
      out.basis.zeros(p, dims);
      const arma::uword r = std::min<arma::uword>(dims, p);
      out.eigenvalues.set_size(r);
      out.singular_values.set_size(r);
      for (arma::uword j = 0; j < r; ++j) {
        out.basis.col(j) = E.col(p - 1 - j);
        out.eigenvalues(j) = ev(p - 1 - j);
        out.singular_values(j) = std::sqrt(std::max(ev(p - 1 - j), 0.0));
      }
      return;
    }
  }
  thin_svd_right(C, dims, opt, out);
}

// Thin SVD; with short_block = complete a full SVD when the block has fewer
// than dims rows, so that the basis is completed by directions orthogonal to it.
void svd_route(const arma::mat& C, int dims, const local_pca_options& opt, local_pca_result& out) {
  const bool complete = opt.short_block == local_short_block::complete;
  if (!complete || C.n_rows >= arma::uword(dims)) {
    thin_svd_right(C, dims, opt, out);
    if (!complete || out.singular_values.n_elem >= arma::uword(dims)) return;
  }
  if (C.n_cols < arma::uword(dims))
    throw input_error("local PCA: cannot complete a basis of `dims` columns in fewer dimensions");
  arma::mat U, W;
  arma::vec s;
  if (!arma::svd(U, s, W, C)) lapack_failed(opt);
  out.basis = W.cols(0, dims - 1);
  out.singular_values = s;
}

}  // namespace

local_pca_result local_pca(const arma::mat& C, int dims, const local_pca_options& opt) {
  if (dims < 1) throw input_error("local PCA: `dims` must be at least 1");
  if (C.n_rows < 1 || C.n_cols < 1) throw input_error("local PCA: the block is empty");
  const int r = opt.rank == 0 ? dims : opt.rank;
  if (opt.rank_test != local_rank_test::none && (r < 1 || r > dims))
    throw input_error("local PCA: the rank tested must lie in [1, dims]");
  if (opt.short_block == local_short_block::complete && opt.route != local_pca_route::svd)
    throw input_error("local PCA: only the svd route completes a short basis");
  if (opt.rank_test == local_rank_test::gram_eigenvalues && opt.route != local_pca_route::gram)
    throw input_error("local PCA: the Gram eigenvalue test needs the gram route");
  local_pca_result out;
  const arma::mat* block = &C;
  if (opt.centre) {
    out.mean = arma::mean(C, 0);
    out.centred = C.each_row() - out.mean;
    block = &out.centred;
  }
  switch (opt.route) {
    case local_pca_route::gram: gram_route(*block, dims, opt, out); break;
    case local_pca_route::scatter: scatter_route(*block, dims, opt, out); break;
    case local_pca_route::svd: svd_route(*block, dims, opt, out); break;
  }
  switch (opt.rank_test) {
    case local_rank_test::none: break;
    case local_rank_test::singular_values: {
      const arma::vec& s = out.singular_values;
      out.rank_deficient = s.n_elem < arma::uword(r) || !(s(r - 1) > opt.rank_tol * s(0));
      break;
    }
    case local_rank_test::gram_eigenvalues: {
      out.rank_deficient = !(out.eigenvalues(r - 1) > opt.rank_tol * out.eigenvalues(0));
      break;
    }
  }
  if (opt.fix_signs) fix_signs(out.basis);
  return out;
}

}  // namespace manifoldOOS
