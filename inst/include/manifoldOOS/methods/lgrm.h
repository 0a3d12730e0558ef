// Local and global regressive mapping (LGRM; Yang, Nie, Xiang, Zhuang & Wang,
// AAAI 2010).
//
//   * local term L_l = sum_i S_i A_i S_i' with, per clique N_i (x_i and its
//     k - 1 nearest neighbours), the ridge-regression residual matrix of eq. 10
//     in its SVD form A_i = H_k - sum_{j <= p} s_j^2 / (s_j^2 + gamma) u_j u_j'
//     (u_j, s_j: left singular pairs of the centred clique);
//   * global term L_g = gamma H (HKH + gamma I)^{-1} H (eq. 18), evaluated from
//     one Cholesky factorisation of HKH + gamma I (in place; the
//     eigendecomposition HKH = Q diag(lambda) Q' when that is refused), which
//     also gives the out-of-sample coefficients beta = H (HKH + gamma I)^{-1} Y;
//   * embedding: bottom ndim eigenvectors of M = L_loc + mu L_g with the
//     constant null vector deflated (M + tau 11'/n, tau = 2 tr(M)/n);
//   * out-of-sample map y(x) = beta' k(x) + c, one kernel row per new point.
//   * Nystrom path (Nyström approximation, Williams & Seeger 2001): K ~ Phi Phi', Phi = kappa(X, Z) W_Z^{-1/2};
//     L_g = H - F (F'F + gamma I)^{-1} F' with F = H Phi; the bottom
//     eigenvectors by shift-invert Lanczos with a sparse LDL' of
//     L_loc + (mu + eps) I and the Woodbury identity for the rank r + 1 rest
//     (compiled: methods/lgrm_nystrom.h).
#ifndef MANIFOLDOOS_LGRM_H
#define MANIFOLDOOS_LGRM_H

#include <armadillo>
#include <manifoldOOS/core/eigen.h>
#include <manifoldOOS/core/eigen_sparse.h>
#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_dense.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/kernels.h>
#include <manifoldOOS/blocks/clique_assembly.h>
#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/blocks/local_align.h>
#include <manifoldOOS/blocks/local_pca.h>
#include <manifoldOOS/blocks/parallel.h>
#include <manifoldOOS/methods/lgrm_predict_rbf.h>

namespace manifoldOOS {

// ---- large dense products -------------------------------------------------------
// The n x n and n x r products of LGRM go through Eigen's own blocked,
// vectorised GEMM on mapped Armadillo memory (several times faster than a
// reference BLAS; identical results up to rounding).
namespace detail {
inline Eigen::Map<const Eigen::MatrixXd> emat(const arma::mat& A) {
  return Eigen::Map<const Eigen::MatrixXd>(A.memptr(), A.n_rows, A.n_cols);
}
inline Eigen::Map<Eigen::MatrixXd> emat(arma::mat& A) {
  return Eigen::Map<Eigen::MatrixXd>(A.memptr(), A.n_rows, A.n_cols);
}
}  // namespace detail

// A * B (ta: use A', tb: use B').
inline arma::mat lgrm_mult(const arma::mat& A, const arma::mat& B, bool ta = false, bool tb = false) {
  const arma::uword r = ta ? A.n_cols : A.n_rows, c = tb ? B.n_rows : B.n_cols;
  const arma::uword ia = ta ? A.n_rows : A.n_cols, ib = tb ? B.n_cols : B.n_rows;
  if (ia != ib) throw input_error("internal: non-conformable product");
  arma::mat C(r, c);
  auto Cm = detail::emat(C);
  if (!ta && !tb) Cm.noalias() = detail::emat(A) * detail::emat(B);
  else if (ta && !tb) Cm.noalias() = detail::emat(A).transpose() * detail::emat(B);
  else if (!ta && tb) Cm.noalias() = detail::emat(A) * detail::emat(B).transpose();
  else Cm.noalias() = detail::emat(A).transpose() * detail::emat(B).transpose();
  return C;
}

// A' A (symmetric rank-k update, lower triangle computed and mirrored).
inline arma::mat lgrm_crossprod(const arma::mat& A) {
  arma::mat C(A.n_cols, A.n_cols, arma::fill::zeros);
  auto Cm = detail::emat(C);
  Cm.selfadjointView<Eigen::Lower>().rankUpdate(detail::emat(A).transpose());
  Cm.triangularView<Eigen::StrictlyUpper>() = Cm.transpose();
  return C;
}

// ---- local term ---------------------------------------------------------------

struct lgrm_local {
  sp_mat_e L;            // n x n, symmetric PSD, L 1 = 0
  arma::mat sv;          // n x p local singular values (diagnostics)
  long n_rank_deficient = 0;  // cliques whose p-th singular value <= 1e-6 x the first
};

// A_i of one centred clique Ci (k x d), SVD form (Yang et al. 2010, eq. 10), through
// the k x k Gram matrix (local_pca.h: Gram route, symmetrised). Returns the
// singular values in `s` (descending).
inline arma::mat lgrm_clique_matrix(const arma::mat& Ci, int p, double gamma, arma::vec& s) {
  const arma::uword k = Ci.n_rows;
  local_pca_options o;
  o.route = local_pca_route::gram;
  o.symmetrize_gram = true;
  o.what = "an LGRM clique";
  const local_pca_result pca = local_pca(Ci, p, o);
  arma::mat A(k, k);
  A.fill(-1.0 / double(k));
  A.diag() += 1.0;
  s = pca.singular_values;
  for (int j = 0; j < p; ++j) {
    const double s2 = std::max(pca.eigenvalues(j), 0.0);
    const double w = (s2 + gamma > 0) ? s2 / (s2 + gamma) : 0.0;
    if (w <= 0) continue;
    const arma::vec u = pca.basis.col(j);
    A -= w * (u * u.t());
  }
  return 0.5 * (A + A.t());
}

// nbhd: n x k cliques (0-based rows of X, first column normally the point itself).
inline lgrm_local lgrm_local_matrix(const arma::mat& X, const arma::Mat<int>& nbhd, int p,
                                    double gamma, int n_threads = 0) {
  const long n = nbhd.n_rows, k = nbhd.n_cols;
  if (p < 1 || p >= k) throw input_error("`p` must lie in [1, k - 1]");
  if (!(gamma >= 0) || !std::isfinite(gamma)) throw input_error("`gamma` must be a finite number >= 0");
  if (nbhd.n_elem > 0 && (nbhd.min() < 0 || nbhd.max() >= int(X.n_rows)))
    throw input_error("neighbourhood index out of range");
  lgrm_local out;
  out.sv.zeros(n, p);
  long deficient = 0;
  sp_mat_e L = assemble_clique_matrix(X, nbhd, n_threads, deficient, [&](long i, const arma::mat& Ci, bool& def) {
    arma::vec s;
    arma::mat A = lgrm_clique_matrix(Ci, p, gamma, s);
    def = !(s(p - 1) > 1e-6 * s(0));  // resolvable through the Gram matrix (local_pca.h)
    out.sv.row(i) = s.t();
    return A;
  });
  sp_mat_e Lt = L.transpose();
  out.L = 0.5 * (L + Lt);
  out.L.makeCompressed();
  out.n_rank_deficient = deficient;
  return out;
}

// ---- global term (exact) ----------------------------------------------------------

// Symmetric in place: K = (K + K')/2 without a temporary.
inline void lgrm_symmetrize(arma::mat& K) {
  const arma::uword n = K.n_rows;
  for (arma::uword j = 0; j < n; ++j)
    for (arma::uword i = j + 1; i < n; ++i) {
      const double v = 0.5 * (K(i, j) + K(j, i));
      K(i, j) = v;
      K(j, i) = v;
    }
}

// Eigendecomposition of the centred kernel: HKH = Q diag(lambda) Q' (lambda
// clamped at 0). Used when the Cholesky path below is refused (indefinite
// user kernels, or gamma so small that (HKH + gamma I) is numerically singular).
struct lgrm_kernel_eig {
  arma::mat Q;
  arma::vec lambda;
};

// Kc: the centred, symmetric kernel (not modified).
inline lgrm_kernel_eig lgrm_centred_kernel_eig(const arma::mat& Kc) {
  lgrm_kernel_eig e;
  std::string how;
  detail::eig_sym_full(Kc, e.lambda, e.Q, how);
  e.lambda.transform([](double v) { return v < 0.0 ? 0.0 : v; });
  return e;
}

// H Q diag(f) Q' H (dense, n x n).
inline arma::mat lgrm_spectral_matrix(const lgrm_kernel_eig& e, const arma::vec& f) {
  arma::mat Bt = e.Q.t();
  Bt.each_col() %= arma::sqrt(f);
  arma::mat G = lgrm_crossprod(Bt);
  Bt.reset();
  const kernel_centering c = kernel_center_stats(G);
  kernel_center_train(G, c);
  return 0.5 * (G + G.t());
}

// The global term L_g = gamma H (HKH + gamma I)^{-1} H and the regression
// solve z = (HKH + gamma I)^{-1} y, from one factorisation of
// A = HKH + gamma I. Default: a Cholesky factor A = LL' computed in place in
// the kernel's own storage (n^3/3 flops; Eigen's blocked LLT); the upper
// triangle of the centred kernel and its diagonal are kept so that the
// eigendecomposition path (9 n^3 flops, negative eigenvalues clamped at 0)
// can take over when the Cholesky factorisation fails or its reciprocal
// condition number is below 1e-13.
class lgrm_global_solver {
 public:
  // K: the uncentred training kernel, consumed (it holds the factor afterwards).
  // force_eig: skip the Cholesky attempt (tests compare the two paths).
  lgrm_global_solver(arma::mat& K, double gamma, bool force_eig = false) : K_(K), gamma_(gamma) {
    if (!(gamma > 0) || !std::isfinite(gamma)) throw input_error("`gamma` must be positive for the global term");
    const kernel_centering c = kernel_center_stats(K);
    kbar_ = c.col_means.t();
    kernel_center_train(K, c);
    lgrm_symmetrize(K);
    diag_ = K.diag();
    const Eigen::Index n = K.n_rows;
    K.diag() += gamma;
    Eigen::Map<Eigen::MatrixXd> Km(K.memptr(), n, n);
    if (!force_eig) llt_ = std::make_unique<Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower>>(Km);
    if (llt_ && llt_->info() == Eigen::Success && llt_->rcond() > 1e-13) {
      method_ = "cholesky";
      return;
    }
    // restore the centred kernel from its untouched upper triangle, then decompose it
    llt_.reset();
    for (Eigen::Index j = 0; j < n; ++j) {
      K(j, j) = diag_(j);
      for (Eigen::Index i = j + 1; i < n; ++i) K(i, j) = K(j, i);
    }
    eig_ = lgrm_centred_kernel_eig(K);
    K.reset();
    method_ = "eigendecomposition";
  }
  const arma::vec& kbar() const { return kbar_; }
  const std::string& method() const { return method_; }

  // gamma H A^{-1} H (dense n x n).
  arma::mat global_matrix() const {
    if (!llt_) return lgrm_spectral_matrix(eig_, gamma_ / (eig_.lambda + gamma_));
    const arma::uword n = K_.n_rows;
    arma::mat G(n, n, arma::fill::eye);
    Eigen::Map<Eigen::MatrixXd> Gm(G.memptr(), n, n);
    llt_->solveInPlace(Gm);
    G *= gamma_;
    const kernel_centering c = kernel_center_stats(G);
    kernel_center_train(G, c);
    lgrm_symmetrize(G);
    return G;
  }

  // A^{-1} Y (n x m).
  arma::mat solve(const arma::mat& Y) const {
    if (!llt_) {
      arma::mat T = eig_.Q.t() * Y;
      T.each_col() /= (eig_.lambda + gamma_);
      return eig_.Q * T;
    }
    arma::mat Z = Y;
    Eigen::Map<Eigen::MatrixXd> Zm(Z.memptr(), Z.n_rows, Z.n_cols);
    llt_->solveInPlace(Zm);
    return Z;
  }

 private:
  arma::mat& K_;
  double gamma_;
  arma::vec kbar_, diag_;
  std::unique_ptr<Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower>> llt_;
  lgrm_kernel_eig eig_;
  std::string method_;
};

// L_g = gamma H (HKH + gamma I)^{-1} H of an uncentred kernel K (copied).
inline arma::mat lgrm_global_matrix(const arma::mat& K, double gamma, bool force_eig = false) {
  arma::mat Kc = K;
  lgrm_global_solver g(Kc, gamma, force_eig);
  return g.global_matrix();
}

// ---- the bottom eigenproblem -------------------------------------------------------

// (A - sigma I)^{-1} x by a dense Cholesky factorisation computed in place in
// A's storage (A dense SPD after the shift). Only the lower triangle and the
// diagonal are overwritten: restore() rebuilds A from the upper triangle.
class lgrm_dense_chol_op {
 public:
  using Scalar = double;
  explicit lgrm_dense_chol_op(arma::mat& A) : A_(A), diag_(A.diag()) {}
  Eigen::Index rows() const { return A_.n_rows; }
  Eigen::Index cols() const { return A_.n_cols; }
  void set_shift(double sigma) {
    if (llt_ && sigma == sigma_) return;
    restore();
    A_.diag() -= sigma;
    Eigen::Map<Eigen::MatrixXd> Am(A_.memptr(), A_.n_rows, A_.n_cols);
    llt_ = std::make_unique<Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower>>(Am);
    if (llt_->info() != Eigen::Success) {
      restore();
      throw input_error("the LGRM matrix is not positive semidefinite (Cholesky failed)");
    }
    sigma_ = sigma;
  }
  void restore() {
    if (!llt_) return;
    llt_.reset();
    const arma::uword n = A_.n_rows;
    for (arma::uword j = 0; j < n; ++j) {
      A_(j, j) = diag_(j);
      for (arma::uword i = j + 1; i < n; ++i) A_(i, j) = A_(j, i);
    }
  }
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    const Eigen::Index n = A_.n_rows;
    Eigen::Map<Eigen::VectorXd> yv(y, n);
    yv = Eigen::Map<const Eigen::VectorXd>(x, n);
    llt_->solveInPlace(yv);
  }

 private:
  arma::mat& A_;
  arma::vec diag_;
  std::unique_ptr<Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower>> llt_;
  double sigma_ = 0.0;
  detail::op_poller poll_;
};

struct lgrm_embedding {
  arma::mat Y;           // n x m
  arma::vec values;      // m + 1 eigenvalues of M (the next one for diagnostics)
  double tau = 0.0;
  std::string method;
  std::string note;
};

// Turn m + 1 bottom pairs of the deflated matrix into the embedding; checks
// that the constant direction was removed (else falls back to dropping the
// vector most aligned with it).
inline lgrm_embedding lgrm_finish_embedding(const arma::vec& val, const arma::mat& vec, int m,
                                            double tau, const std::string& method) {
  const arma::uword n = vec.n_rows;
  lgrm_embedding out;
  out.tau = tau;
  out.method = method;
  const arma::rowvec proj = arma::abs(arma::sum(vec, 0)) / std::sqrt(double(n));
  arma::uvec keep;
  if (proj.head(m).max() < 1e-6) {
    keep = arma::regspace<arma::uvec>(0, m - 1);
  } else {
    const arma::uword worst = proj.index_max();
    std::vector<arma::uword> kk;
    for (arma::uword j = 0; j < vec.n_cols && kk.size() < arma::uword(m); ++j)
      if (j != worst) kk.push_back(j);
    keep = arma::conv_to<arma::uvec>::from(kk);
    out.note = "the constant vector was not fully deflated; dropped the bottom vector most aligned with it";
  }
  out.Y = vec.cols(keep);
  out.Y.each_row() -= arma::mean(out.Y, 0);
  // re-orthonormalise (the centring changed the columns by rounding only)
  arma::mat Qm, Rm;
  arma::qr_econ(Qm, Rm, out.Y);
  for (arma::uword j = 0; j < Qm.n_cols; ++j)
    if (Rm(j, j) < 0) Qm.col(j) *= -1.0;
  out.Y = Qm;
  fix_signs(out.Y);
  out.values = val;
  return out;
}

// Bottom m nontrivial eigenvectors of the dense PSD M (M 1 = 0). M is deflated
// in place (and factorised in place on the iterative path). dense = true: full
// LAPACK; else shift-invert Lanczos with a dense Cholesky at
// sigma = -shift_eps * tr(M)/n.
inline lgrm_embedding lgrm_bottom_dense(arma::mat& M, int m, bool dense, const eig_options& o) {
  const long n = M.n_rows;
  if (m < 1 || m + 2 > n) throw input_error("`ndim` must lie in [1, n - 2]");
  const double tr = arma::trace(M);
  const double tau = 2.0 * tr / double(n);
  M += tau / double(n);
  const long nev = m + 1;
  if (dense) {
    arma::vec val;
    arma::mat vec;
    std::string how;
    detail::eig_sym_full(M, val, vec, how);
    return lgrm_finish_embedding(val.head(nev), vec.cols(0, nev - 1), m, tau, how);
  }
  const double sigma = -o.shift_eps * detail::shift_scale(tr, n);
  lgrm_dense_chol_op op(M);
  op.set_shift(sigma);
  eigen_result res = eigs_operator_shift_invert(
      op, nev, sigma, o,
      [&]() {
        op.restore();
        return eig_dense(M, eig_which::bottom, nev);
      },
      "spectra_shift_invert_dense_chol");
  lgrm_embedding out = lgrm_finish_embedding(res.values, res.vectors, m, tau, res.method_used);
  out.note = join_notes(out.note, res.note);
  return out;
}

// ---- exact fit ---------------------------------------------------------------------------

struct lgrm_fit_result {
  lgrm_embedding emb;
  arma::mat beta;            // n x m (or r x m on the Nystrom path)
  arma::rowvec c;            // 1 x m
  arma::mat train_residual;  // n x m, Y - fitted values on the training rows (exact path)
  std::string global_method; // "cholesky" / "eigendecomposition" (exact) or "nystrom"
  double lg_quad = 0.0;      // tr(Y' L_g Y)
  double ll_quad = 0.0;      // tr(Y' L_loc Y)
};

// K: training kernel (consumed). Lloc: local Laplacian. dense: full LAPACK for M.
// Memory: two dense n x n matrices at the peak (the factor of HKH + gamma I and M).
inline lgrm_fit_result lgrm_fit_exact(const sp_mat_e& Lloc, arma::mat& K, int m, double gamma, double mu,
                                      bool dense, const eig_options& o) {
  const arma::uword n = K.n_rows;
  if (Lloc.rows() != long(n)) throw input_error("the local matrix and the kernel differ in size");
  if (!(mu >= 0) || !std::isfinite(mu)) throw input_error("`mu` must be a finite number >= 0");
  lgrm_global_solver g(K, gamma);
  arma::mat M;
  if (mu > 0) {
    M = g.global_matrix();  // L_g
    M *= mu;
  } else {
    M.zeros(n, n);
  }
  for (int j = 0; j < Lloc.outerSize(); ++j)
    for (sp_mat_e::InnerIterator it(Lloc, j); it; ++it) M(it.row(), j) += it.value();
  lgrm_symmetrize(M);
  lgrm_fit_result r;
  r.global_method = g.method();
  r.emb = lgrm_bottom_dense(M, m, dense, o);
  M.reset();
  const arma::mat& Y = r.emb.Y;
  arma::mat Z = g.solve(Y);          // (HKH + gamma I)^{-1} Y
  r.train_residual = gamma * Z;
  r.beta = Z;
  r.beta.each_row() -= arma::mean(Z, 0);  // H (HKH + gamma I)^{-1} Y
  r.c = arma::mean(Y, 0) - g.kbar().t() * r.beta;
  // tr(Y' L_g Y) = gamma tr(Y' H A^{-1} H Y) = tr(Y' residual) for centred Y
  arma::mat Yc = Y;
  Yc.each_row() -= arma::mean(Y, 0);
  r.lg_quad = arma::accu(Yc % (gamma * (r.beta)));
  r.ll_quad = arma::accu(Y % detail::sparse_times(Lloc, Y));
  return r;
}

// ---- Nystrom (landmark) path -------------------------------------------------------------

// W_Z^{-1/2} = B E' (eigenvalues below 1e-12 x the largest dropped): returns
// B = E diag(w^{-1/2}) (r x q) and E (r x q, orthonormal columns), q the rank kept.
inline arma::mat lgrm_inv_sqrt_factor(const arma::mat& WZ, arma::mat& E) {
  arma::vec w;
  arma::mat Eall;
  std::string how;
  detail::eig_sym_full(0.5 * (WZ + WZ.t()), w, Eall, how);
  const double top = w.max();
  if (!(top > 0)) throw input_error("the landmark kernel matrix is not positive definite");
  const arma::uvec keep = arma::find(w > 1e-12 * top);
  E = Eall.cols(keep);
  arma::vec f = 1.0 / arma::sqrt(w.elem(keep));
  arma::mat B = E;
  B.each_row() %= f.t();
  return B;
}

// Nystrom features: W_Z^{-1/2} (r x r, eigenvalues below 1e-12 x the largest dropped).
inline arma::mat lgrm_inv_sqrt(const arma::mat& WZ, arma::uword& rank) {
  arma::mat Ek;
  const arma::mat B = lgrm_inv_sqrt_factor(WZ, Ek);
  rank = B.n_cols;
  return B * Ek.t();
}

// ---- out-of-sample map -------------------------------------------------------------------

// y(x) = beta' kappa(x, B) + c for every row of Xnew (B: training rows or
// landmarks). Each row is computed on its own with the same operations (the
// result of a row does not depend on the batch); threaded over rows. Gaussian
// kernel on a CPU with AVX2/FMA: the fused register kernel of
// methods/lgrm_predict_rbf.h (the kernel row is never stored). Otherwise the
// kernel row is built column by column of B (contiguous, vectorised) and
// exponentiated with the package's vectorised exp (kernels.h).
// portable = true: always the second path (tests compare the two).
inline arma::mat lgrm_predict(const arma::mat& B, const arma::mat& beta, const arma::rowvec& c,
                              const arma::mat& Xnew, const kernel_spec& ks, int n_threads = 0,
                              bool portable = false) {
  check_kernel(ks);
  if (Xnew.n_cols != B.n_cols) throw input_error("`newdata` has the wrong number of columns");
  if (beta.n_rows != B.n_rows) throw input_error("`beta` does not match the stored rows");
  if (c.n_elem != beta.n_cols) throw input_error("`c` does not match `beta`");
  if (ks.type == kernel_type::rbf && !portable && B.n_cols >= 1 && lgrm_predict_rbf_available())
    return lgrm_predict_rbf_fused(B, beta, c, Xnew, -1.0 / (2.0 * ks.sigma * ks.sigma), n_threads);
  const Eigen::Index nb = B.n_rows, d = B.n_cols, m = beta.n_cols;
  const arma::uword nn = Xnew.n_rows;
  arma::mat Y(nn, m);
  const auto Bm = detail::emat(B);        // nb x d, columns contiguous
  const auto betam = detail::emat(beta);  // nb x m
  const double cr = -1.0 / (2.0 * ks.sigma * ks.sigma);
  parallel_row_blocks(
      nn, 4096, n_threads, [](std::size_t, std::size_t) {},
      [&]() { return Eigen::ArrayXd(nb); },
      [&](Eigen::ArrayXd& acc, std::size_t i) {
        if (ks.type == kernel_type::rbf) {
          // squared distances, scaled and clamped to [-708, 0] (d >= 1 columns)
          acc = (Bm.col(0).array() - Xnew(i, 0)).square();
          for (Eigen::Index a = 1; a < d; ++a) acc += (Bm.col(a).array() - Xnew(i, a)).square();
          acc = (cr * acc).max(-708.0);
          exp_clamped_inplace(acc.data(), static_cast<std::size_t>(nb));
        } else {
          acc.setZero();
          for (Eigen::Index a = 0; a < d; ++a) acc += Bm.col(a).array() * Xnew(i, a);
          if (ks.type == kernel_type::polynomial) {
            const double g = ks.gamma, c0 = ks.coef0, deg = ks.degree;
            acc = (g * acc + c0).pow(deg);
          }
        }
        for (Eigen::Index q = 0; q < m; ++q) Y(i, q) = betam.col(q).dot(acc.matrix()) + c(q);
      },
      [](Eigen::ArrayXd&) {}, 64);
  return Y;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LGRM_H
