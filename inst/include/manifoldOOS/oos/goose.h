// GOoSE, the generalised out-of-sample extension (Strange & Zwiggelaar,
// AAAI 2011; Strange, PhD thesis 2011, ch. 5, section 5.2).
//
// For a new point x with training neighbours X_N (k x p) and their embedding
// Y_N (k x q): local PCA of X_N gives V (p x q); the projected, centred
// neighbourhood Y'~ = (X_N - mu) V is moved onto the centred embedding
// Y~ = Y_N - mean(Y_N) by the orthogonal Procrustes rotation R (reflections
// allowed) and a scale B; then y = mean(Y_N) + ((x - mu) V) R B.
// Scales: "axis" (beta_j = range of column j of Y~ over the range of column j
// of Y'~ R; 1 when that range is ~0), "isotropic" (b = tr(Sigma) /
// ||Y'~||_F^2, the Procrustes scale) or "none".
// The "literal" variant follows the printed thesis pseudocode (uncentred SVD,
// translation before rotation, ranges before rotation); it exists for
// fidelity experiments only.
#ifndef MANIFOLDOOS_GOOSE_H
#define MANIFOLDOOS_GOOSE_H

#include <armadillo>
#include <algorithm>
#include <cmath>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/local_pca.h>
#include <manifoldOOS/blocks/parallel.h>
#include <manifoldOOS/blocks/procrustes.h>

namespace manifoldOOS {

enum class goose_scale { axis, isotropic, none };
enum class goose_variant { centred, literal };

inline constexpr choice<goose_scale> goose_scale_names[] = {
    {"axis", goose_scale::axis}, {"isotropic", goose_scale::isotropic}, {"none", goose_scale::none}};
inline constexpr choice<goose_variant> goose_variant_names[] = {
    {"centred", goose_variant::centred}, {"literal_thesis", goose_variant::literal}};

inline goose_scale parse_goose_scale(const std::string& s) {
  return parse_choice(s, goose_scale_names, "unknown GOoSE scale '" + s + "'");
}
inline goose_variant parse_goose_variant(const std::string& s) {
  return parse_choice(s, goose_variant_names, "unknown GOoSE variant '" + s + "'");
}

namespace goose_detail {

// GOoSE's local PCA: centred, top-q right singular vectors from the p x p
// scatter matrix when p <= k (a thin SVD otherwise), zero columns where the
// neighbourhood has fewer than q directions, no rank test.
inline local_pca_options pca_options() {
  local_pca_options o;
  o.route = local_pca_route::scatter;
  o.centre = true;
  o.short_block = local_short_block::zero_columns;
  o.what = "a GOoSE neighbourhood";
  return o;
}

inline double col_range(const arma::mat& M, arma::uword j) {
  return M.col(j).max() - M.col(j).min();
}

}  // namespace goose_detail

// One query x (1 x p) with neighbours Xn (k x p) and embedding Yn (k x q).
inline arma::rowvec goose_one(const arma::rowvec& x, const arma::mat& Xn, const arma::mat& Yn,
                              goose_scale scale, goose_variant variant) {
  const arma::uword q = Yn.n_cols;
  const local_pca_result pca = local_pca(Xn, int(q), goose_detail::pca_options());
  const arma::rowvec& mu = pca.mean;
  const arma::mat& Xc = pca.centred;
  const arma::mat& V = pca.basis;
  const arma::rowvec ybar = arma::mean(Yn, 0);
  if (variant == goose_variant::centred) {
    const arma::mat P = Xc * V;  // Y'~ (centred, k x q)
    const arma::mat Yc = Yn.each_row() - ybar;
    // Procrustes: move P onto Yc (rotation R = U W^T of svd(P^T Yc)).
    const procrustes_result pr = procrustes(Yc, P, scale == goose_scale::isotropic, true);
    arma::rowvec z = ((x - mu) * V) * pr.rotation;
    if (scale == goose_scale::isotropic) {
      z *= pr.scale;
    } else if (scale == goose_scale::axis) {
      const arma::mat PR = P * pr.rotation;
      double rmax = 0.0;
      arma::rowvec rr(q), ry(q);
      for (arma::uword j = 0; j < q; ++j) {
        rr[j] = goose_detail::col_range(PR, j);
        ry[j] = goose_detail::col_range(Yc, j);
        rmax = std::max(rmax, rr[j]);
      }
      for (arma::uword j = 0; j < q; ++j) {
        const double beta = (rr[j] > 1e-12 * rmax && rr[j] > 0) ? ry[j] / rr[j] : 1.0;
        z[j] *= beta;
      }
    }
    return ybar + z;
  }
  // literal thesis pseudocode: Z = X_N V; (U S W) = svd(Z^T Y_N); T = U W^T;
  // y = x V + (mean(Y_N) - mean(Z)); y = y T; y = y B with B from range(Z).
  const arma::mat Z = Xn * V;
  arma::mat U, W;
  arma::vec s;
  if (!arma::svd(U, s, W, Z.t() * Yn)) throw error("SVD failed in GOoSE (literal variant)");
  const arma::mat T = U * W.t();
  arma::rowvec y = x * V + (ybar - arma::mean(Z, 0));
  y = y * T;
  if (scale == goose_scale::axis) {
    for (arma::uword j = 0; j < q; ++j) {
      const double rz = goose_detail::col_range(Z, j);
      y[j] *= rz > 0 ? goose_detail::col_range(Yn, j) / rz : 1.0;
    }
  } else if (scale == goose_scale::isotropic) {
    const double nz = arma::accu(arma::square(Z));
    if (nz > 0) y *= arma::accu(s) / nz;
  }
  return y;
}

// All queries: Q (m x p), idx (m x k, 0-based training indices), dist (m x k,
// ascending). With `snap`, a query at distance 0 from its first neighbour
// gets that neighbour's embedding exactly.
inline arma::mat goose(const arma::mat& X, const arma::mat& Y, const arma::mat& Q,
                       const arma::Mat<int>& idx, const arma::mat& dist, goose_scale scale,
                       goose_variant variant, bool snap, int n_threads = 0) {
  if (X.n_rows != Y.n_rows) throw input_error("X and Y must have the same number of rows");
  if (Q.n_cols != X.n_cols) throw input_error("query and training data have different columns");
  if (idx.n_rows != Q.n_rows || dist.n_rows != Q.n_rows || dist.n_cols != idx.n_cols)
    throw input_error("one neighbour list per query row is needed");
  const arma::uword m = Q.n_rows, k = idx.n_cols, p = X.n_cols, q = Y.n_cols;
  arma::mat out(m, q);
  struct scratch {
    arma::mat Xn, Yn;
  };
  const bool ok = parallel_rows_guarded(
      m, n_threads, 256, [&] { return scratch{arma::mat(k, p), arma::mat(k, q)}; },
      [&](scratch& st, std::size_t i) {
        if (snap && dist(i, 0) == 0.0) {
          out.row(i) = Y.row(idx(i, 0));
          return;
        }
        gather_neighbour_rows(X, idx, i, st.Xn);
        gather_neighbour_rows(Y, idx, i, st.Yn);
        out.row(i) = goose_one(Q.row(i), st.Xn, st.Yn, scale, variant);
      });
  if (!ok) throw error("GOoSE failed (an SVD did not converge)");
  return out;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_GOOSE_H
