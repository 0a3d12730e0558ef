// Procrustes alignment: the rigid (or similarity) motion that moves one
// configuration onto another, minimising the squared distances (Gower &
// Dijksterhuis 2004). Two forms, one home:
//   * procrustes(): rows are points, B is moved onto A, optional scale and
//     reflection (LAPACK "std" SVD) -- the quality measures and GOoSE;
//   * procrustes_cols(): columns are points, returns (Rt, beta, means) with
//     target ~ beta Rt (src - mean) + mean (divide-and-conquer SVD) -- PLML.
#ifndef MANIFOLDOOS_PROCRUSTES_H
#define MANIFOLDOOS_PROCRUSTES_H

#include <armadillo>

#include <algorithm>

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

// Row form (quality measures, GOoSE): move B (n x q_B) onto the target A (n x q_A); the
// narrower one is padded with zero columns. fitted = s * B * R + 1 t^T.
struct procrustes_result {
  arma::mat rotation;       // q x q orthogonal
  double scale = 1.0;
  arma::rowvec translation; // 1 x q
  arma::mat fitted;         // n x q
  double ss = 0.0;          // ||A - fitted||_F^2 (with the chosen scale option)
  double trace = 0.0;       // sum of (sign-adjusted) singular values of B_c^T A_c
  double ss_target = 0.0;   // ||A_c||_F^2
  double ss_moving = 0.0;   // ||B_c||_F^2
};

inline arma::mat pad_cols(const arma::mat& M, arma::uword q) {
  if (M.n_cols == q) return M;
  arma::mat out(M.n_rows, q, arma::fill::zeros);
  out.cols(0, M.n_cols - 1) = M;
  return out;
}

inline procrustes_result procrustes(const arma::mat& A_in, const arma::mat& B_in, bool scale,
                                    bool reflection) {
  if (A_in.n_rows != B_in.n_rows) throw input_error("both configurations need the same number of rows");
  if (A_in.n_rows < 1) throw input_error("empty configuration");
  const arma::uword q = std::max(A_in.n_cols, B_in.n_cols);
  const arma::mat A = pad_cols(A_in, q), B = pad_cols(B_in, q);
  const arma::rowvec a = arma::mean(A, 0), b = arma::mean(B, 0);
  const arma::mat Ac = A.each_row() - a, Bc = B.each_row() - b;
  procrustes_result r;
  r.ss_target = arma::accu(arma::square(Ac));
  r.ss_moving = arma::accu(arma::square(Bc));
  arma::mat U, V;
  arma::vec s;
  const arma::mat M = Bc.t() * Ac;
  if (!arma::svd(U, s, V, M, "std")) throw error("SVD failed in Procrustes alignment");
  arma::vec sg(q, arma::fill::ones);
  if (!reflection) {
    const double d = arma::det(U) * arma::det(V);
    if (d < 0) sg[q - 1] = -1.0;
  }
  r.rotation = U * arma::diagmat(sg) * V.t();
  r.trace = arma::dot(sg, s);
  r.scale = 1.0;
  if (scale && r.ss_moving > 0) r.scale = r.trace / r.ss_moving;
  r.translation = a - r.scale * (b * r.rotation);
  r.fitted = r.scale * (B * r.rotation);
  r.fitted.each_row() += r.translation;
  r.ss = arma::accu(arma::square(A - r.fitted));
  return r;
}

// Rigid (or similarity) Procrustes in column form: returns (Rt, beta) with
// target ~ beta * Rt * (src - mean_src) + mean_tgt.
inline void procrustes_cols(const arma::mat& src, const arma::mat& tgt, bool scale, arma::mat& Rt,
                     double& beta, arma::vec& ms, arma::vec& mt) {
  ms = arma::mean(src, 1);
  mt = arma::mean(tgt, 1);
  const arma::mat Sc = src.each_col() - ms;
  const arma::mat Tc = tgt.each_col() - mt;
  const arma::mat M = Sc * Tc.t();  // = rows' (Sc_rows' Tc_rows)
  arma::mat U, V;
  arma::vec s;
  if (!arma::svd(U, s, V, M)) throw convergence_error("the SVD of a Procrustes alignment failed");
  Rt = (U * V.t()).t();
  beta = 1.0;
  if (scale) {
    const double ss = arma::accu(arma::square(Sc));
    if (ss > 0) beta = arma::accu(s) / ss;
  }
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_PROCRUSTES_H
