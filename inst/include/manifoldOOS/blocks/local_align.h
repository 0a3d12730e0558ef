// Bottom eigenvectors of an alignment matrix (LLE's M = (I - W)'(I - W),
// LTSA's B) with the constant vector removed (Roweis & Saul 2000; Zhang & Zha 2004).
//
// Both matrices are sparse, symmetric positive semidefinite and annihilate
// the constant vector exactly (rows of W sum to one; every local
// I - G_i G_i' annihilates 1). The bottom pairs are computed by the package's
// eigen adapter (dense LAPACK up to dense_max_n, sparse shift-invert at a
// negative shift above it, never at 0).
//
// Dropping the trivial vector. With tol_null = 1e-13 trace(M)/n:
//   * the usual case (one eigenvalue below tol_null, first vector within
//     |cos| > 1 - 1e-6 of the constant): the first pair is dropped, as the package eigen conventions;
//   * otherwise, when the constant lies in the span of the q + 1 bottom
//     vectors (it always does: it is an exact null vector), the constant
//     direction is removed from that span and the remaining q-dimensional
//     space is rotated to diagonalise the Rayleigh quotient. This is what
//     exactly flat data need (the affine coordinates are null vectors of
//     LTSA's B, and of LLE's M as reg -> 0) and what clustered tiny
//     eigenvalues need (the solver may mix the constant with a neighbour);
//   * q + 2 eigenvalues below tol_null: the embedding is not determined by the
//     problem -> input_error.
// The tolerance is smaller than the package eigen conventions's 1e-9 trace/n on purpose: the
// genuine bottom eigenvalues of LLE's M shrink quickly with n (measured on a
// Swiss roll with k = 10: about 9e-12 at n = 20,000), while rounding-level
// null eigenvalues stay near 1e-16 trace/n. Connectivity itself is checked
// before (R level, the connectivity rule of ?neighbour_graph).
#ifndef MANIFOLDOOS_LOCAL_ALIGN_H
#define MANIFOLDOOS_LOCAL_ALIGN_H

#include <armadillo>
#include <manifoldOOS/core/eigen_sparse.h>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_deflate.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/blocks/parallel.h>

namespace manifoldOOS {

struct align_result {
  arma::mat Y;            // n x q, orthonormal columns, orthogonal to 1, signs fixed
  arma::vec values;       // q kept eigenvalues (ascending)
  double dropped = 0.0;   // eigenvalue of the trivial pair
  int n_null = 0;         // eigenvalues below tol_null among the computed ones
  double tol_null = 0.0;
  std::string method;     // eigen-solver path
  double residual = -1.0;
  std::string note;
};

// The rows nbhd(i, .) of X, centred (k x d): one clique / neighbourhood.
inline arma::mat centred_clique(const arma::mat& X, const arma::Mat<int>& nbhd, long i) {
  const long k = nbhd.n_cols;
  arma::mat Ci(k, X.n_cols);
  for (long a = 0; a < k; ++a) Ci.row(a) = X.row(nbhd(i, a));
  Ci.each_row() -= arma::mean(Ci, 0);
  return Ci;
}

// Sparse symmetric matrix from triplets (duplicates summed). The methods
// assemble their clique sums with clique_assembly.h, which gives the same
// matrix bit for bit without the triplets; this is its reference in the tests.
inline sp_mat_e sparse_from_triplets(long n, const std::vector<Eigen::Triplet<double>>& trips) {
  sp_mat_e M(n, n);
  M.setFromTriplets(trips.begin(), trips.end());
  M.makeCompressed();
  return M;
}

namespace detail {

// eigenvalues below the null tolerance 1e-13 trace(M)/n (see above)
inline double align_tol_null(const sp_mat_e& M) { return 1e-13 * shift_scale(sparse_trace(M), M.rows()); }
inline int align_n_null(const arma::vec& values, double tol_null) {
  return static_cast<int>(arma::accu(values < tol_null));
}

// own: null, or M itself, which the LOBPCG route may renumber during the
// solve (restored before it returns; see eigs_sparse_bottom_deflated_in_place())
inline align_result align_bottom_impl(const sp_mat_e& M, sp_mat_e* own, int q, const eig_options& o,
                                      bool allow_lobpcg) {
  const long n = M.rows();
  if (q < 1 || q + 1 > n - 1) throw input_error("`ndim` must lie in [1, n - 2]");
  deflated_choice choice;
  if (allow_lobpcg && o.method != eig_method::dense) choice = choose_deflated_solver(M, o);
  if (choice.lobpcg) {
    eig_options od = o;
    od.deflated = deflated_solver::lobpcg;
    const arma::vec ones(n, arma::fill::ones);
    const eigen_result res = own ? eigs_sparse_bottom_deflated_in_place(*own, ones, q, od)
                                 : eigs_sparse_bottom_deflated(M, ones, q, od);
    align_result out;
    out.tol_null = align_tol_null(M);
    out.Y = res.vectors;
    out.values = res.values;
    out.dropped = 0.0;  // the constant pair, deflated exactly
    out.n_null = align_n_null(res.values, out.tol_null);
    out.method = res.method_used;
    out.note = join_notes(join_notes(choice.note, res.note), "the constant vector deflated");
    out.residual = res.residual;
    return out;
  }
  const long nev = std::min<long>(q + 2, n - 1);
  const spd_symbolic_scope scope(choice.symbolic.get());
  eigen_result res = eigs_sym(sym_problem::sparse(M), eig_which::bottom, nev, o);
  const double tol_null = align_tol_null(M);
  align_result out;
  out.tol_null = tol_null;
  out.method = res.method_used;
  out.note = join_notes(choice.note, res.note);
  out.residual = res.residual;
  const int n_null = align_n_null(res.values, tol_null);
  out.n_null = n_null;
  if (nev == q + 2 && n_null >= q + 2) {
    std::ostringstream os;
    os << "the alignment matrix has at least " << q + 2
       << " eigenvalues below the null tolerance " << tol_null
       << ": the embedding is not determined (disconnected neighbourhoods or many duplicated points); "
       << "increase `k` or remove duplicated rows";
    throw input_error(os.str());
  }
  const arma::mat V = res.vectors.cols(0, q);
  const arma::vec lam = res.values.head(q + 1);
  arma::vec u(n);
  u.fill(1.0 / std::sqrt(double(n)));
  const arma::vec c = V.t() * u;
  const double cn = arma::norm(c);
  if (!(cn > 1.0 - 1e-6)) {
    std::ostringstream os;
    os << "the constant vector is not among the bottom eigenvectors (norm of its projection "
       << cn << "); the eigen-solver result is unreliable";
    throw error(os.str());
  }
  if (n_null <= 1 && lam(0) < tol_null && std::abs(c(0)) > 1.0 - 1e-6) {
    out.Y = V.cols(1, q);
    out.values = lam.tail(q);
    out.dropped = lam(0);
  } else {
    // Householder reflection H (symmetric, orthogonal) with H e_1 = c / |c|.
    arma::vec v = c / cn;
    v(0) -= 1.0;
    const double vn2 = arma::dot(v, v);
    arma::mat H = arma::eye(q + 1, q + 1);
    if (vn2 > 1e-300) H -= (2.0 / vn2) * (v * v.t());
    arma::mat VH = V * H;
    arma::mat Vq = VH.cols(1, q);
    Vq -= u * (u.t() * Vq);  // remove what is left of the constant direction
    arma::mat R = H * arma::diagmat(lam) * H;
    arma::mat Rq = R.submat(1, 1, q, q);
    Rq = 0.5 * (Rq + Rq.t());
    arma::vec mu;
    arma::mat E;
    if (!arma::eig_sym(mu, E, Rq)) throw convergence_error("eigendecomposition of the reduced problem failed");
    Vq = Vq * E;
    // re-orthonormalise (the projection changed the columns by rounding only)
    arma::mat Qm, Rm;
    arma::qr_econ(Qm, Rm, Vq);
    for (arma::uword j = 0; j < Qm.n_cols; ++j) {
      if (Rm(j, j) < 0) Qm.col(j) *= -1.0;
    }
    out.Y = Qm;
    out.values = mu;
    out.dropped = arma::dot(arma::square(c / cn), lam);
    out.note = join_notes(out.note, "constant direction projected out of the bottom eigenspace");
  }
  fix_signs(out.Y);
  return out;
}

}  // namespace detail

// align_bottom(): the bottom q pairs of M with the constant removed, as above.
// allow_lobpcg (LTSA): with o.deflated = lobpcg, or automatic and
// n >= o.lobpcg_min_n, the constant is deflated exactly and the q bottom
// pairs orthogonal to it come from LOBPCG + AMG (eigen_lobpcg.h; no sparse
// factorisation of a matrix with k^2 entries per row). Not for LLE's M,
// whose bottom eigenvalues sit near the rounding level of a residual test.
inline align_result align_bottom(const sp_mat_e& M, int q, const eig_options& o, bool allow_lobpcg = false) {
  return detail::align_bottom_impl(M, nullptr, q, o, allow_lobpcg);
}

// The same; on the LOBPCG route M itself is renumbered during the solve and
// restored before return (one copy of a large matrix in memory, not two).
inline align_result align_bottom_in_place(sp_mat_e& M, int q, const eig_options& o, bool allow_lobpcg = false) {
  return detail::align_bottom_impl(M, &M, q, o, allow_lobpcg);
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LOCAL_ALIGN_H
