// Linear projections with an explicit map and the regression steps of
// spectral regression: implementation (interface and equations in
// <manifoldOOS/methods/linear_projections.h>).
#include <manifoldOOS/methods/linear_projections.h>

#include <manifoldOOS/core/eigen.h>
#include <manifoldOOS/core/eigen_sparse.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/blocks/spectra_op.h>

namespace manifoldOOS {

namespace lp_detail {

using MatE = Eigen::MatrixXd;
using CMapE = Eigen::Map<const Eigen::MatrixXd>;
using MapE = Eigen::Map<Eigen::MatrixXd>;

inline CMapE cmap(const arma::mat& A) {
  return CMapE(A.memptr(), static_cast<Eigen::Index>(A.n_rows), static_cast<Eigen::Index>(A.n_cols));
}
inline MapE wmap(arma::mat& A) {
  return MapE(A.memptr(), static_cast<Eigen::Index>(A.n_rows), static_cast<Eigen::Index>(A.n_cols));
}

// Symmetric product Y'Y (p x p) of an n x p matrix (rank-k update, lower
// triangle, then mirrored).
inline arma::mat crossprod_sym(const arma::mat& Y) {
  arma::mat S(Y.n_cols, Y.n_cols);
  MapE Se = wmap(S);
  Se.setZero();
  Se.selfadjointView<Eigen::Lower>().rankUpdate(cmap(Y).transpose());
  Se.triangularView<Eigen::StrictlyUpper>() = Se.transpose();
  return S;
}

// Y Y' (n x n) of an n x p matrix.
inline arma::mat tcrossprod_sym(const arma::mat& Y) {
  arma::mat G(Y.n_rows, Y.n_rows);
  MapE Ge = wmap(G);
  Ge.setZero();
  Ge.selfadjointView<Eigen::Lower>().rankUpdate(cmap(Y));
  Ge.triangularView<Eigen::StrictlyUpper>() = Ge.transpose();
  return G;
}

// Xc' N Xc (p x p) for sparse symmetric N: T = N Xc, then Xc' T, symmetrised.
inline arma::mat sandwich(const arma::mat& Xc, const sp_mat_e& N) {
  const MatE T = N * cmap(Xc);
  arma::mat S(Xc.n_cols, Xc.n_cols);
  MapE Se = wmap(S);
  Se.noalias() = cmap(Xc).transpose() * T;
  const MatE St = Se.transpose();
  Se = 0.5 * (Se + St);
  return S;
}

// Dense product A B with Eigen's kernels.
arma::mat mult(const arma::mat& A, const arma::mat& B) {
  arma::mat C(A.n_rows, B.n_cols);
  wmap(C).noalias() = cmap(A) * cmap(B);
  return C;
}
inline arma::mat tmult(const arma::mat& A, const arma::mat& B) {  // A' B
  arma::mat C(A.n_cols, B.n_cols);
  wmap(C).noalias() = cmap(A).transpose() * cmap(B);
  return C;
}

// Cholesky S = L L' accepted when it succeeds and every squared pivot exceeds
// 1e-12 times the largest diagonal entry (the rule of geig_dense()).
inline bool chol_sound(const arma::mat& S, Eigen::LLT<MatE>& llt) {
  llt.compute(cmap(S));
  if (llt.info() != Eigen::Success) return false;
  const double smax = cmap(S).diagonal().cwiseAbs().maxCoeff();
  const Eigen::VectorXd piv = llt.matrixLLT().diagonal().array().square();
  return smax > 0 && piv.minCoeff() > 1e-12 * smax;
}

// y = (C - sigma I)^{-1} x for a dense symmetric C, by a dense Cholesky factor
// (Spectra shift-invert operator; C - sigma I must be positive definite).
class dense_shift_op : public square_operator {
 public:
  explicit dense_shift_op(const arma::mat& C) : square_operator(C.n_rows), C_(C) {}
  void set_shift(double sigma) {
    if (factored_ && sigma == sigma_) return;
    MatE M = cmap(C_);
    M.diagonal().array() -= sigma;
    llt_.compute(M);
    if (llt_.info() != Eigen::Success) {
      throw error("the reduced matrix is not positive semidefinite (Cholesky of the shifted matrix failed)");
    }
    sigma_ = sigma;
    factored_ = true;
  }
  void perform_op(const double* x, double* y) const {
    if ((++count_ & 15L) == 0) check_interrupt();
    Eigen::Map<const Eigen::VectorXd> xv(x, C_.n_rows);
    Eigen::Map<Eigen::VectorXd> yv(y, C_.n_rows);
    yv = llt_.solve(xv);
  }

 private:
  const arma::mat& C_;
  Eigen::LLT<MatE> llt_;
  double sigma_ = 0.0;
  bool factored_ = false;
  mutable long count_ = 0;
};

// True when B - N is positive semidefinite by diagonal dominance: N >= 0
// entrywise and b_i >= sum_j N_ij (then every eigenvalue of the W-form
// C = L^{-1} Xc'N Xc L^{-T}, Xc'B Xc = LL', is <= 1).
inline bool w_form_bounded(const sp_mat_e& N, const arma::vec& b) {
  if (b.n_elem != static_cast<arma::uword>(N.rows())) return false;
  arma::vec rs(b.n_elem, arma::fill::zeros);
  for (Eigen::Index j = 0; j < N.outerSize(); ++j) {
    for (sp_mat_e::InnerIterator it(N, j); it; ++it) {
      if (it.value() < 0) return false;
      rs(it.row()) += it.value();
    }
  }
  for (arma::uword i = 0; i < b.n_elem; ++i) {
    if (b(i) < rs(i) * (1 - 1e-12)) return false;
  }
  return true;
}

// y = (P F P)^+ x on range(P), P = I - QQ' (Q: r x j orthonormal, j >= 0),
// F symmetric positive definite (given by its Cholesky factor): from the
// bordered system [F Q; Q' 0][y; z] = [x; 0], y = F^{-1}x - Z S^{-1} Q'F^{-1}x
// with Z = F^{-1}Q and S = Q'Z. The operator is symmetric positive
// semidefinite with Q in its null space; its non-zero eigenpairs are
// (1/mu, v) for the eigenpairs (mu, v) of P F P on range(P).
class deflated_shift_op : public square_operator {
 public:
  deflated_shift_op(const Eigen::LLT<MatE>& F, const MatE& Q) : square_operator(F.rows()), F_(F), Q_(Q) {
    if (Q_.cols() > 0) {
      Z_ = F_.solve(Q_);
      MatE S = Q_.transpose() * Z_;
      S = 0.5 * (S + MatE(S.transpose()));
      S_.compute(S);
      if (S_.info() != Eigen::Success) throw error("the deflation system is singular");
    }
  }
  void perform_op(const double* x, double* y) const {
    if ((++count_ & 15L) == 0) check_interrupt();
    Eigen::Map<const Eigen::VectorXd> xv(x, F_.rows());
    Eigen::Map<Eigen::VectorXd> yv(y, F_.rows());
    Eigen::VectorXd t = F_.solve(xv);
    if (Q_.cols() > 0) {
      const Eigen::VectorXd z = S_.solve(Q_.transpose() * t);
      t.noalias() -= Z_ * z;
      t.noalias() -= Q_ * (Q_.transpose() * t);  // exact zero in exact arithmetic
    }
    yv = t;
  }

 private:
  const Eigen::LLT<MatE>& F_;
  const MatE& Q_;
  MatE Z_;
  Eigen::LLT<MatE> S_;
  mutable long count_ = 0;
};

}  // namespace lp_detail

// Bottom or top m eigenpairs of a dense symmetric reduced matrix C: dense
// LAPACK when r <= dense_max (or m close to r), otherwise matrix-free Lanczos
// (top) or shift-invert at sigma = -shift_eps * |trace|/r with a dense
// Cholesky factor (bottom; C must be positive semidefinite).
inline eigen_result reduced_eigs(const arma::mat& C, eig_which which, long m, long dense_max,
                                 const eig_options& eo) {
  const long r = C.n_rows;
  if (m < 1 || m > r) throw input_error("`ndim` exceeds the rank of the reduced problem");
  if (r <= dense_max || m > r - 2 || eo.method == eig_method::dense) {
    return eig_dense(C, which, m);
  }
  if (which == eig_which::top) return eigs_dense_top_matfree(C, m, false, eo);
  const double tr = std::abs(arma::trace(C));
  const double sigma = -eo.shift_eps * (tr > 0 ? tr / double(r) : 1.0);
  lp_detail::dense_shift_op op(C);
  op.set_shift(sigma);
  eigen_result res = eigs_operator_shift_invert(
      op, m, sigma, eo, [&]() { return eig_dense(C, eig_which::bottom, m); },
      "spectra_dense_shift_invert");
  res.shift = sigma;
  return res;
}

namespace lp_detail {

// The reduced problem: C (r x r) and the maps a = T u, T' a.
struct reduction {
  arma::mat C;
  std::function<arma::mat(const arma::mat&)> T;   // r x m -> p x m
  std::function<arma::mat(const arma::mat&)> Tt;  // p x m -> r x m
  std::string path;
  double ridge = 0.0;
};

inline arma::vec keep_positive(const arma::vec& s, double tol, arma::uvec& keep) {
  const double smax = s.max();
  if (!(smax > 0)) throw input_error("`X` has no variation after centring (all rows equal)");
  keep = arma::find(s > tol * smax);
  return s.elem(keep);
}

// Weighted constraint: basis with a' Xc'B Xc a = u'u.
inline reduction reduce_weighted(const arma::mat& Xc, const sp_mat_e& N, const arma::vec& b,
                                 const lp_options& o) {
  const arma::uword n = Xc.n_rows, p = Xc.n_cols;
  reduction R;
  const arma::vec sb = arma::sqrt(b);
  const bool dual = o.ridge <= 0 && o.pca && (p >= n || (o.force_pca && p > n / 2));
  if (dual) {
    // n x n Gram of Y = B^{1/2} Xc.
    arma::mat Y = Xc;
    Y.each_col() %= sb;
    arma::mat G = tcrossprod_sym(Y);
    eigen_result e = eig_dense(G, eig_which::all, 0);
    arma::uvec keep;
    const arma::vec s = keep_positive(e.values, o.rank_tol, keep);
    const arma::mat Q = e.vectors.cols(keep);
    if (arma::any(b <= 0)) throw input_error("the constraint weights must be positive");
    const arma::vec isb = 1.0 / sb;
    // C = Q' B^{-1/2} N B^{-1/2} Q
    arma::mat Qs = Q;
    Qs.each_col() %= isb;
    const MatE NQ = N * cmap(Qs);
    R.C.set_size(Q.n_cols, Q.n_cols);
    wmap(R.C).noalias() = cmap(Qs).transpose() * NQ;
    R.C = 0.5 * (R.C + R.C.t());
    // T = Y' Q s^{-1}
    arma::mat YtQ = tmult(Y, Q);
    YtQ.each_row() /= s.t();
    R.T = [YtQ](const arma::mat& U) { return mult(YtQ, U); };
    R.Tt = [YtQ](const arma::mat& A) { return tmult(YtQ, A); };
    R.path = "pca_dual";
    return R;
  }
  arma::mat Y = Xc;
  Y.each_col() %= sb;
  arma::mat SB = crossprod_sym(Y);
  const arma::mat SN = sandwich(Xc, N);
  Eigen::LLT<MatE> llt;
  bool ok = false;
  if (o.ridge > 0) {
    SB.diag() += o.ridge;
    ok = chol_sound(SB, llt);
    if (!ok) throw input_error("`regularize` is too small: Xc' B Xc + ridge I is not positive definite");
    R.path = "ridge";
    R.ridge = o.ridge;
  } else if (!o.force_pca) {
    ok = chol_sound(SB, llt);
    R.path = "cholesky";
    if (!ok && !o.pca) {
      const double scale = arma::trace(SB) / double(p);
      if (!(scale > 0)) throw input_error("`X` has no variation after centring (all rows equal)");
      for (double delta = 1e-8 * scale; delta <= 1e-2 * scale * (1 + 1e-12); delta *= 10) {
        arma::mat Sr = SB;
        Sr.diag() += delta;
        if (chol_sound(Sr, llt)) {
          ok = true;
          R.ridge = delta;
          R.path = "auto_ridge";
          break;
        }
      }
      if (!ok) throw input_error("`X`: Xc' B Xc is not positive definite even after a ridge of 1e-2 tr/p");
    }
  }
  if (ok) {
    auto Lm = std::make_shared<Eigen::LLT<MatE>>(llt);
    MatE Tm = Lm->matrixL().solve(cmap(SN));
    MatE Ce = Lm->matrixL().solve(Tm.transpose());
    R.C.set_size(p, p);
    wmap(R.C) = 0.5 * (Ce + Ce.transpose());
    R.T = [Lm](const arma::mat& U) {
      arma::mat A(U.n_rows, U.n_cols);
      wmap(A) = Lm->matrixU().solve(cmap(U));
      return A;
    };
    R.Tt = [Lm](const arma::mat& A) {
      arma::mat U(A.n_rows, A.n_cols);
      wmap(U) = Lm->matrixL().solve(cmap(A));
      return U;
    };
    return R;
  }
  // PCA step on the p side.
  eigen_result e = eig_dense(SB, eig_which::all, 0);
  arma::uvec keep;
  const arma::vec s = keep_positive(e.values, o.rank_tol, keep);
  arma::mat Tm = e.vectors.cols(keep);
  Tm.each_row() /= arma::sqrt(s).t();  // V s^{-1/2}
  arma::mat SNT = mult(SN, Tm);
  R.C = tmult(Tm, SNT);
  R.C = 0.5 * (R.C + R.C.t());
  R.T = [Tm](const arma::mat& U) { return mult(Tm, U); };
  R.Tt = [Tm](const arma::mat& A) { return tmult(Tm, A); };
  R.path = "pca";
  return R;
}

// Orthogonal constraint: orthonormal basis of the row space of Xc.
inline reduction reduce_orthogonal(const arma::mat& Xc, const sp_mat_e& N, const lp_options& o) {
  const arma::uword n = Xc.n_rows, p = Xc.n_cols;
  reduction R;
  if (o.pca && (p >= n || (o.force_pca && p > n / 2))) {
    arma::mat G = tcrossprod_sym(Xc);
    eigen_result e = eig_dense(G, eig_which::all, 0);
    arma::uvec keep;
    const arma::vec s = keep_positive(e.values, o.rank_tol, keep);
    arma::mat Qh = e.vectors.cols(keep);
    Qh.each_row() %= arma::sqrt(s).t();  // Q s^{1/2}  (= Xc a for a = T u)
    const MatE NQ = N * cmap(Qh);
    R.C.set_size(Qh.n_cols, Qh.n_cols);
    wmap(R.C).noalias() = cmap(Qh).transpose() * NQ;
    R.C = 0.5 * (R.C + R.C.t());
    arma::mat XtQ = tmult(Xc, e.vectors.cols(keep));
    XtQ.each_row() /= arma::sqrt(s).t();  // Xc' Q s^{-1/2}: orthonormal columns
    R.T = [XtQ](const arma::mat& U) { return mult(XtQ, U); };
    R.Tt = [XtQ](const arma::mat& A) { return tmult(XtQ, A); };
    R.path = "pca_dual";
    return R;
  }
  const arma::mat SN = sandwich(Xc, N);
  bool full = false;
  arma::mat SC;
  if (!o.force_pca) {
    SC = crossprod_sym(Xc);
    Eigen::LLT<MatE> llt;
    full = !o.pca || chol_sound(SC, llt);
  }
  if (full) {
    R.C = SN;
    R.T = [](const arma::mat& U) { return U; };
    R.Tt = [](const arma::mat& A) { return A; };
    R.path = "identity";
    return R;
  }
  if (SC.is_empty()) SC = crossprod_sym(Xc);
  eigen_result e = eig_dense(SC, eig_which::all, 0);
  arma::uvec keep;
  keep_positive(e.values, o.rank_tol, keep);
  const arma::mat V = e.vectors.cols(keep);
  R.C = tmult(V, mult(SN, V));
  R.C = 0.5 * (R.C + R.C.t());
  R.T = [V](const arma::mat& U) { return mult(V, U); };
  R.Tt = [V](const arma::mat& A) { return tmult(V, A); };
  R.path = "pca";
  return R;
}

// Symmetric (Loewdin) re-orthonormalisation A <- A G^{-1/2}, G = A' M A.
inline void polish(arma::mat& A, const arma::mat& G) {
  arma::vec ev;
  arma::mat EV;
  if (!arma::eig_sym(ev, EV, 0.5 * (G + G.t()))) return;
  if (!(ev.min() > 0)) return;
  A = A * (EV * arma::diagmat(1.0 / arma::sqrt(ev)) * EV.t());
}

}  // namespace lp_detail

// Solve the linear-projection problem (see the header comment). Xc must be
// centred by the caller (the centre is part of the model); b has length n
// (ignored for the orthogonal constraint).
lp_result linear_projection(const arma::mat& Xc, const sp_mat_e& N, const arma::vec& b,
                            const lp_options& o) {
  const arma::uword n = Xc.n_rows;
  if (N.rows() != long(n) || N.cols() != long(n)) throw input_error("the graph matrix must be n x n");
  if (!Xc.is_finite()) throw input_error("`X` must contain only finite values");
  if (o.constraint == lp_constraint::weighted) {
    if (b.n_elem != n) throw input_error("the constraint weights must have length n");
    if (arma::any(b < 0) || !b.is_finite()) throw input_error("the constraint weights must be non-negative");
  }
  lp_detail::reduction R = (o.constraint == lp_constraint::weighted)
                               ? lp_detail::reduce_weighted(Xc, N, b, o)
                               : lp_detail::reduce_orthogonal(Xc, N, o);
  check_interrupt();
  const long r = R.C.n_rows;
  if (o.m > r) {
    std::ostringstream os;
    os << "`ndim` = " << o.m << " exceeds the rank of the problem (" << r
       << " independent directions in the centred data)";
    throw input_error(os.str());
  }
  lp_result out;
  out.rank = r;
  out.path = R.path;
  out.ridge = R.ridge;
  arma::mat U;
  // Top eigenpairs of a large reduced W-form (LPP, OLPP): when B - N is
  // positive semidefinite (N >= 0 entrywise, b_i >= row sums of N: B - N is
  // a diagonally dominant Laplacian-like matrix) every eigenvalue of C is
  // <= 1, so F = s I - C, s = 1 + shift_eps, is positive definite and the top
  // eigenpairs are computed in shift-invert form (see the OLPP comment
  // below); the clustered top eigenvalues of image data otherwise cost
  // plain Lanczos hundreds of restarts.
  std::unique_ptr<Eigen::LLT<lp_detail::MatE>> F;
  const double s_shift = 1.0 + o.eig.shift_eps;
  if (o.which == eig_which::top && o.constraint == lp_constraint::weighted && r > o.dense_max &&
      o.eig.method != eig_method::dense && o.m <= r - 2 && lp_detail::w_form_bounded(N, b)) {
    lp_detail::MatE Fm = -lp_detail::cmap(R.C);
    Fm.diagonal().array() += s_shift;
    F = std::make_unique<Eigen::LLT<lp_detail::MatE>>(Fm);
    if (F->info() != Eigen::Success) F.reset();
  }
  if (!o.deflate_orthogonal) {
    eigen_result e;
    if (F) {
      const lp_detail::MatE Q0(r, 0);
      lp_detail::deflated_shift_op op(*F, Q0);
      e = eigs_operator_top(
          op, o.m, o.eig,
          [&]() { return reduced_eigs(R.C, o.which, o.m, r, o.eig); },
          "spectra_shift_invert_wform");
      if (e.method_used == "spectra_shift_invert_wform") {
        for (arma::uword j = 0; j < e.values.n_elem; ++j) e.values(j) = s_shift - 1.0 / e.values(j);
      }
    } else {
      e = reduced_eigs(R.C, o.which, o.m, o.dense_max, o.eig);
    }
    U = e.vectors;
    out.values = e.values;
    out.eig_method = e.method_used;
    out.note = e.note;
    out.A = R.T(U);
  } else {
    // OLPP (Cai et al. 2006): a_k maximises the Rayleigh quotient subject to
    // a_k' a_j = 0 (j < k). In reduced coordinates the constraint reads
    // u ⟂ T' a_1..a_{k-1} = span(Q), so u_k is the top eigenvector of P C P
    // on range(P), P = I - QQ'.
    //
    // The top eigenvalues of C (the W-form, all <= 1) are tightly clustered
    // below 1 on image data (COIL-20: ten within 2e-4 of each other), which
    // makes plain Lanczos on P C P restart hundreds of times. Large reduced
    // problems are therefore solved in shift-invert form: F = s I - C with
    // s = 1 + shift_eps is positive definite (one Cholesky factor for all k),
    // (built above when B - N is PSD, as for OLPP's W and degrees),
    // and the operator (P F P)^+ on range(P) is applied through the bordered
    // system [F Q; Q' 0] (deflated_shift_op); its top eigenvalue theta gives
    // beta = s - 1/theta, and the clustered betas become well separated
    // thetas. Small problems (r <= dense_max), or when F is not positive
    // definite, use a dense (or Lanczos) solve of the explicit P C P.
    if (o.which != eig_which::top) throw input_error("the orthogonal deflation needs which = top");
    out.A.set_size(Xc.n_cols, o.m);
    out.values.set_size(o.m);
    for (long k = 0; k < o.m; ++k) {
      arma::mat Qg;
      if (k > 0) {
        const arma::mat G = R.Tt(out.A.cols(0, k - 1));
        arma::mat Rg;
        arma::qr_econ(Qg, Rg, G);
      }
      // P C P = C - Q(Q'C) - (CQ)Q' + Q(Q'CQ)Q' (explicit; dense paths)
      auto projected = [&]() {
        if (k == 0) return arma::mat(R.C);
        const arma::mat CQ = lp_detail::mult(R.C, Qg);
        const arma::mat QtCQ = Qg.t() * CQ;
        arma::mat Cp = R.C - Qg * CQ.t() - CQ * Qg.t() + Qg * QtCQ * Qg.t();
        return arma::mat(0.5 * (Cp + Cp.t()));
      };
      arma::vec u;
      if (F) {
        const lp_detail::MatE Qe = lp_detail::cmap(Qg);
        lp_detail::deflated_shift_op op(*F, Qe);
        eigen_result e = eigs_operator_top(
            op, 1, o.eig,
            [&]() {
              eigen_result d = eig_dense(projected(), eig_which::top, 1);
              d.values(0) = 1.0 / (s_shift - d.values(0));  // theta scale, as the iterations
              return d;
            },
            "spectra_deflated_shift_invert");
        out.values(k) = s_shift - 1.0 / e.values(0);
        out.eig_method = e.method_used;
        u = e.vectors.col(0);
      } else {
        eigen_result e = reduced_eigs(projected(), eig_which::top, 1, o.dense_max, o.eig);
        out.values(k) = e.values(0);
        out.eig_method = e.method_used;
        u = e.vectors.col(0);
      }
      if (k > 0) u -= Qg * (Qg.t() * u);
      arma::mat a = R.T(u);
      a /= arma::norm(a);
      out.A.col(k) = a;
      check_interrupt();
    }
  }
  // Make the constraint hold to rounding error.
  if (!o.deflate_orthogonal) {
    if (o.constraint == lp_constraint::weighted) {
      arma::mat Z = lp_detail::mult(Xc, out.A);
      Z.each_col() %= arma::sqrt(b);
      arma::mat G = Z.t() * Z;
      if (out.ridge > 0) G += out.ridge * (out.A.t() * out.A);
      lp_detail::polish(out.A, G);
    } else {
      lp_detail::polish(out.A, out.A.t() * out.A);
    }
  }
  fix_signs(out.A);
  return out;
}

// LLE cost matrix M = (I - W)'(I - W) from reconstruction weights: row i of W
// holds w(i, j) at column idx(i, j) (0-based).
sp_mat_e lle_cost_matrix(const arma::Mat<int>& idx, const arma::mat& w, long n) {
  if (idx.n_rows != arma::uword(n) || w.n_rows != idx.n_rows || w.n_cols != idx.n_cols) {
    throw input_error("neighbour indices and weights must be n x k");
  }
  std::vector<Eigen::Triplet<double>> trip;
  trip.reserve(n * (idx.n_cols + 1));
  for (long i = 0; i < n; ++i) {
    trip.emplace_back(i, i, 1.0);
    for (arma::uword j = 0; j < idx.n_cols; ++j) {
      const int c = idx(i, j);
      if (c < 0 || c >= n) throw input_error("neighbour index out of range");
      trip.emplace_back(i, c, -w(i, j));
    }
  }
  sp_mat_e IW(n, n);
  IW.setFromTriplets(trip.begin(), trip.end());
  sp_mat_e M = sp_mat_e(IW.transpose()) * IW;
  sp_mat_e Mt = M.transpose();
  M = 0.5 * (M + Mt);
  M.makeCompressed();
  return M;
}

// ---- regression steps (spectral regression, kernel LPP) -------------------------

// Ridge regression of Y (n x q) on centred Xc (n x p): A = (Xc'Xc + alpha I)^{-1} Xc'Y
// (primal, p <= n) or Xc'(Xc Xc' + alpha I)^{-1} Y (dual, p > n). alpha > 0, or
// alpha = 0 with a full-rank system (minimum-norm through the dual when p > n).
arma::mat ridge_coefficients(const arma::mat& Xc, const arma::mat& Y, double alpha,
                             std::string* path) {
  const arma::uword n = Xc.n_rows, p = Xc.n_cols;
  if (Y.n_rows != n) throw input_error("the embedding and the data have different numbers of rows");
  if (!(alpha >= 0)) throw input_error("`alpha` must be non-negative");
  using lp_detail::MatE;
  const bool primal = p <= n;
  arma::mat S = primal ? lp_detail::crossprod_sym(Xc) : lp_detail::tcrossprod_sym(Xc);
  S.diag() += alpha;
  Eigen::LLT<MatE> llt;
  if (!lp_detail::chol_sound(S, llt)) {
    throw input_error("`alpha` is too small: the regression system is singular (use a positive ridge)");
  }
  arma::mat A;
  // Xc'1 = 0, so centring Y changes nothing in exact arithmetic; it keeps the
  // dual solve from amplifying the mean of Y (along the null vector 1 of
  // Xc Xc') by 1/alpha.
  arma::mat Yc = Y;
  Yc.each_row() -= arma::mean(Y, 0);
  if (primal) {
    const arma::mat XtY = lp_detail::tmult(Xc, Yc);
    A.set_size(p, Y.n_cols);
    lp_detail::wmap(A) = llt.solve(lp_detail::cmap(XtY));
  } else {
    arma::mat Z(n, Y.n_cols);
    lp_detail::wmap(Z) = llt.solve(lp_detail::cmap(Yc));
    A = lp_detail::tmult(Xc, Z);
  }
  if (path) *path = primal ? "primal" : "dual";
  return A;
}

// Kernel ridge regression of Y (n x q) on a training kernel K (n x n).
// intercept = true: unpenalised bias, minimising ||K beta + 1 c' - Y||^2 +
// delta tr(beta' K beta): beta = (H K H + delta I)^{-1} H Y (beta' 1 = 0),
// c = mean(Y) - beta' K 1 / n. intercept = false: beta = (K + delta I)^{-1} Y, c = 0.

kernel_ridge_fit kernel_ridge(const arma::mat& K, const arma::mat& Y, double delta,
                                     bool intercept) {
  const arma::uword n = K.n_rows;
  if (K.n_cols != n || Y.n_rows != n) throw input_error("kernel and embedding sizes differ");
  if (!(delta >= 0)) throw input_error("the ridge must be non-negative");
  using lp_detail::MatE;
  kernel_ridge_fit f;
  arma::mat S = K;
  arma::mat Yc = Y;
  arma::rowvec kbar;
  if (intercept) {
    kbar = arma::mean(K, 0);
    const double g = arma::mean(kbar);
    S.each_row() -= kbar;
    S.each_col() -= kbar.t();
    S += g;
    Yc.each_row() -= arma::mean(Y, 0);
    // H K H has the null vector 1 and H Y is orthogonal to it: adding
    // s 11'/n changes nothing in the solution but makes the system definite
    // for any delta >= 0.
    const double s = std::max(arma::mean(S.diag()), 1e-300);
    S += s / double(n);
  }
  S = 0.5 * (S + S.t());
  S.diag() += delta;
  Eigen::LLT<MatE> llt;
  if (!lp_detail::chol_sound(S, llt)) {
    throw input_error("the ridge is too small: the kernel system is singular (increase it)");
  }
  f.beta.set_size(n, Y.n_cols);
  lp_detail::wmap(f.beta) = llt.solve(lp_detail::cmap(Yc));
  if (intercept) {
    f.c = arma::mean(Y, 0) - kbar * f.beta;
  } else {
    f.c.zeros(Y.n_cols);
  }
  return f;
}

}  // namespace manifoldOOS
