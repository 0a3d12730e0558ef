// LGRM's Nystrom path (see inst/include/manifoldOOS/methods/lgrm_nystrom.h).
#include <manifoldOOS/methods/lgrm_nystrom.h>

#include <manifoldOOS/blocks/dense_crossprod.h>
#include <manifoldOOS/blocks/eigen_lobpcg.h>
#include <manifoldOOS/blocks/eigen_sparse.h>

#include <atomic>
#include <exception>
#include <mutex>
#include <type_traits>

#ifdef MO_HAVE_AVX2_KERNELS
#include <immintrin.h>
#endif

namespace manifoldOOS {

namespace {

using ldlt_t = Eigen::SimplicialLDLT<sp_mat_e, Eigen::Lower, Eigen::AMDOrdering<int>>;

// Runs body(j) for j in [0, count) on the threads; the first exception (or a
// user interrupt) stops the remaining iterations and is rethrown here.
template <class Body>
void parallel_items(long count, int n_threads, Body body) {
  interrupt_flag flag(1);
  std::exception_ptr err;
  std::mutex mu;
  std::atomic<bool> failed{false};
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
#endif
  for (long j = 0; j < count; ++j) {
    if (failed.load(std::memory_order_relaxed) || flag.poll(j)) continue;
    try {
      body(j);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!err) err = std::current_exception();
      failed.store(true);
    }
  }
  if (err) std::rethrow_exception(err);
  flag.rethrow_if_stopped();
}

// Forward solve with the unit lower factor (compressed columns Lp, Li, Lx,
// n x n) of b interleaved right-hand sides, column by column as Eigen's sparse
// triangular solve: W holds row i of the b columns at W[i * b .. i * b + b - 1].
// Width: int, or std::integral_constant<int, b> for a width fixed at compile
// time (the 16-column panels of the reduced formulation).
template <class Width>
void forward_unit_interleaved(const int* Lp, const int* Li, const double* Lx, double* W, long n, Width b) {
  for (long i = 0; i < n; ++i) {
    const double* xi = W + i * b;
    for (int p = Lp[i]; p < Lp[i + 1]; ++p) {
      const long r = Li[p];
      if (r <= i) continue;
      const double v = Lx[p];
      double* xr = W + r * b;
      for (int c = 0; c < b; ++c) xr[c] -= xi[c] * v;
    }
  }
}

// The panel solve of one block of right-hand sides, interleaved: W holds row
// i of the b columns at W[i * b .. i * b + b - 1].
void ldlt_solve_interleaved(const ldlt_t& ldlt, double* W, long n, int b) {
  const sp_mat_e& L = ldlt.matrixL().nestedExpression();
  const double* Lx = L.valuePtr();
  const int* Li = L.innerIndexPtr();
  const int* Lp = L.outerIndexPtr();
  forward_unit_interleaved(Lp, Li, Lx, W, n, b);
  const Eigen::VectorXd& D = ldlt.vectorD();
  for (long i = 0; i < n; ++i) {
    const double f = 1.0 / D(i);
    double* xi = W + i * b;
    for (int c = 0; c < b; ++c) xi[c] = f * xi[c];
  }
  // unit upper solve with L', row by row from the bottom
  for (long i = n - 1; i >= 0; --i) {
    double* xi = W + i * b;
    for (int p = Lp[i]; p < Lp[i + 1]; ++p) {
      const long r = Li[p];
      if (r <= i) continue;
      const double v = Lx[p];
      const double* xr = W + r * b;
      for (int c = 0; c < b; ++c) xi[c] -= v * xr[c];
    }
  }
}

}  // namespace

arma::mat sparse_ldlt_solve_panels(const ldlt_t& ldlt, const arma::mat& B, int panel, int n_threads) {
  const long n = B.n_rows, k = B.n_cols;
  if (n != ldlt.rows()) throw error("internal: right-hand side of the wrong size");
  const int b = std::max(1, panel);
  const long n_panels = (k + b - 1) / b;
  const auto& P = ldlt.permutationP().indices();
  const auto& Pinv = ldlt.permutationPinv().indices();
  const bool perm = P.size() > 0;
  arma::mat X(n, k);
  parallel_items(n_panels, n_threads, [&](long j) {
    const long c0 = j * b;
    const int w = int(std::min<long>(b, k - c0));
    std::vector<double> W(std::size_t(n) * w);
    for (int c = 0; c < w; ++c) {
      const double* src = B.colptr(c0 + c);
      for (long i = 0; i < n; ++i) W[std::size_t(perm ? P(i) : i) * w + c] = src[i];
    }
    ldlt_solve_interleaved(ldlt, W.data(), n, w);
    for (int c = 0; c < w; ++c) {
      double* dst = X.colptr(c0 + c);
      for (long i = 0; i < n; ++i) dst[perm ? Pinv(i) : i] = W[std::size_t(i) * w + c];
    }
  });
  return X;
}

namespace {

// The inputs of a Nystrom fit, shared by both formulations (the arguments of
// lgrm_fit_nystrom(), checked by check_nystrom_args()).
struct nystrom_problem {
  const sp_mat_e& Lloc;
  const lgrm_kernel_rows& rows;
  const arma::mat& WZ;
  int m;
  double gamma, mu;
  const eig_options& o;
  int n_threads;
  const deflated_choice& route;  // LOBPCG or shift-invert, and the note
};

// Checks shared by both formulations.
void check_nystrom_args(long n, int m, double gamma, double mu) {
  if (!(gamma > 0)) throw input_error("`gamma` must be positive");
  if (!(mu >= 0) || !std::isfinite(mu)) throw input_error("`mu` must be a finite number >= 0");
  if (m < 1 || m + 2 > n) throw input_error("`ndim` must lie in [1, n - 2]");
}

// Sparse LDL' of Lloc + shift I; every pivot must be positive.
void factor_shifted(const sp_mat_e& Lloc, double shift, ldlt_t& ldlt) {
  const long n = Lloc.rows();
  sp_mat_e I(n, n);
  I.setIdentity();
  sp_mat_e A0 = Lloc + shift * I;
  A0.makeCompressed();
  ldlt.compute(A0);
  if (ldlt.info() != Eigen::Success) throw error("the sparse LDL' factorisation in the LGRM Nystrom path failed");
  const Eigen::VectorXd D = ldlt.vectorD();
  for (Eigen::Index i = 0; i < D.size(); ++i)
    if (!(D(i) > 0)) throw input_error("the local matrix is not positive semidefinite");
}

// The small Woodbury system T s = t: one LU factorisation for every
// application (a near-singular T falls back to its pseudo-inverse, the
// least-squares solution).
class small_system {
 public:
  void compute(const arma::mat& T) {
    lu_.compute(detail::emat(T));
    if (!(lu_.rcond() > 1e-14)) {
      use_pinv_ = true;
      Tpinv_ = arma::pinv(T);
    }
  }
  arma::vec solve(const arma::vec& t) const {
    if (use_pinv_) return Tpinv_ * t;
    arma::vec s(t.n_elem);
    Eigen::Map<Eigen::VectorXd>(s.memptr(), t.n_elem) =
        lu_.solve(Eigen::Map<const Eigen::VectorXd>(t.memptr(), t.n_elem));
    return s;
  }

 private:
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  arma::mat Tpinv_;
  bool use_pinv_ = false;
};

// Features kappa(X, Z) Map (n x Map.n_cols) by row blocks of the kernel.
arma::mat kernel_features(const lgrm_kernel_rows& rows, long n, arma::uword r, const arma::mat& Map, int n_threads) {
  arma::mat F(n, Map.n_cols);
  const long blk = 2048;
  const long n_blocks = (n + blk - 1) / blk;
  parallel_items(n_blocks, n_threads, [&](long j) {
    const arma::uword i0 = arma::uword(j * blk), i1 = arma::uword(std::min(n, (j + 1) * blk));
    arma::mat Kb;
    rows(i0, i1, Kb);
    if (Kb.n_rows != i1 - i0 || Kb.n_cols != r) throw input_error("the landmark kernel has the wrong size");
    detail::emat(F).middleRows(i0, i1 - i0).noalias() = detail::emat(Kb) * detail::emat(Map);
  });
  return F;
}

// The centred features H kappa(X, Z) Map; phibar receives the column means
// that were removed.
arma::mat centred_features(const lgrm_kernel_rows& rows, long n, const arma::mat& Map, int n_threads,
                           arma::rowvec& phibar) {
  arma::mat F = kernel_features(rows, n, Map.n_rows, Map, n_threads);
  phibar = arma::mean(F, 0);
  F.each_row() -= phibar;
  return F;
}

// What the Woodbury operators of both formulations share: the size n, the
// shift -eps (built into the factorisation of A0, so set_shift only checks
// it), the small system T = I + C G and the interrupt poller.
class woodbury_op_base : public square_operator {
 public:
  void set_shift(double sigma) {
    if (std::abs(sigma + eps_) > 1e-12 * std::max(1.0, eps_))
      throw error("internal: the LGRM Woodbury operator has a fixed shift");
  }

 protected:
  woodbury_op_base(long n, double eps) : square_operator(n), n_(n), eps_(eps) {}
  long n_;
  double eps_;
  small_system T_;
  detail::op_poller poll_;
};

// S = (F'F + gamma I)^{-1}, tau = 2 tr(M)/n and the shift, from F'F.
struct nystrom_terms {
  arma::mat S;
  double tau = 0.0, eps = 0.0;
};
nystrom_terms nystrom_trace_terms(const arma::mat& FtF, double gamma, const sp_mat_e& Lloc, double mu,
                                  const eig_options& o) {
  const long n = Lloc.rows();
  nystrom_terms t;
  arma::mat Sinv = FtF;
  Sinv.diag() += gamma;
  t.S = arma::inv_sympd(Sinv);
  t.S = 0.5 * (t.S + t.S.t());
  const double trL = detail::sparse_trace(Lloc);
  // tr(M) = tr(L) + mu (n - 1 - tr(F S F'))
  const double trFSF = arma::accu(t.S % FtF);
  const double trM = trL + mu * (double(n) - 1.0 - trFSF);
  t.tau = 2.0 * trM / double(n);
  t.eps = o.shift_eps * detail::shift_scale(trM, n);
  return t;
}

// The dense fallback holds n x n doubles twice.
void check_dense_fallback(long n) {
  if (double(n) * double(n) * 16.0 > 8e9)
    throw convergence_error("the shift-invert eigen-solve of the LGRM Nystrom path did not converge, "
                            "and its dense fallback would need " +
                            std::to_string(int(std::ceil(double(n) * double(n) * 16.0 / 1e9))) +
                            " GB; use fewer points or change `landmarks`");
}

// Embedding, coefficients beta = Map S F'Y, intercept and the quadratic
// forms from the eigenpairs (F: the centred features, phibar their means).
lgrm_fit_result nystrom_result(const eigen_result& res, int m, double tau, const arma::mat& F, const arma::mat& S,
                               const arma::mat& Map, const arma::rowvec& phibar, const sp_mat_e& Lloc) {
  lgrm_fit_result out;
  out.emb = lgrm_finish_embedding(res.values, res.vectors, m, tau, res.method_used);
  out.emb.note = join_notes(out.emb.note, res.note);
  const arma::mat& Y = out.emb.Y;
  const arma::mat FY = lgrm_mult(F, Y, true, false);  // columns of F x m
  const arma::mat Gm = S * FY;
  out.beta = Map * Gm;
  out.c = arma::mean(Y, 0) - phibar * Gm;
  out.global_method = "nystrom";
  arma::mat Yc = Y;
  Yc.each_row() -= arma::mean(Y, 0);
  out.lg_quad = arma::accu(Yc % Yc) - arma::accu(FY % (S * FY));
  out.ll_quad = arma::accu(Y % detail::sparse_times(Lloc, Y));
  return out;
}

// The bottom nev non-trivial pairs of M = L_loc + mu (H - F S F') (F
// centred, so M 1 = 0) by LOBPCG with the constant deflated: no
// factorisation; the AMG preconditioner is built from L_loc, and the global
// term enters the products (O(n q) per column). The values and vectors are
// those the shift-invert path finds for M + tau 11'/n, whose bottom nev pairs
// are these (tau lies above them).
eigen_result nystrom_lobpcg(const nystrom_problem& p, const arma::mat& F, const arma::mat& S, long nev) {
  const long n = p.Lloc.rows();
  const double mu = p.mu;
  const lobpcg_term add_global = [&](const arma::mat& Z, arma::mat& Y) {
    if (mu == 0.0) return;
    const arma::mat FtZ = lgrm_mult(F, Z, true, false);
    Y += mu * Z;
    Y.each_row() -= mu * arma::mean(Z, 0);
    Y -= mu * lgrm_mult(F, S * FtZ);
  };
  lobpcg_options lo;
  lo.maxit = p.o.maxit;
  lo.tol = p.o.lobpcg_tol;
  lo.n_threads = p.n_threads;
  const arma::vec ones(n, arma::fill::ones);
  // |H - F S F'| <= 1 (F S F' = F (F'F + gamma I)^{-1} F' lies between 0 and H)
  eigen_result res = lobpcg_bottom_deflated(p.Lloc, add_global, mu, ones, nev, lo);
  // exact orthogonality to the constant, and the residual with the whole M
  res.vectors.each_row() -= arma::mean(res.vectors, 0);
  res.vectors = arma::normalise(res.vectors);
  arma::mat R = detail::sparse_times(p.Lloc, res.vectors);
  add_global(res.vectors, R);
  R -= res.vectors.each_row() % res.values.t();
  const double scale = detail::sparse_norm_inf(p.Lloc) + mu;
  res.residual = arma::max(arma::sqrt(arma::sum(arma::square(R), 0))) / (scale > 0 ? scale : 1.0);
  if (!(res.residual <= 1e-6)) {
    throw convergence_error("the LOBPCG eigen-solve of the LGRM Nystrom path returned eigenpairs with relative "
                            "residual " + std::to_string(res.residual) + " (above 1e-6); use eigen_solver = \"iterative\"");
  }
  return res;
}

// (A0 + U C U')^{-1} x with A0 = Lloc + (mu + eps) I (sparse LDL'),
// U = [1/sqrt(n), F], C = diag(tau - mu, -mu S), S = (F'F + gamma I)^{-1}:
// y = A0^{-1} (x - U s), s = (I + C G)^{-1} C U' A0^{-1} x, G = U' A0^{-1} U.
// The operator already includes the shift (set_shift is a check).
class lgrm_woodbury_op : public woodbury_op_base {
 public:
  lgrm_woodbury_op(const sp_mat_e& Lloc, const arma::mat& F, const arma::mat& S, double mu, double tau,
                   double eps, int n_threads)
      : woodbury_op_base(Lloc.rows(), eps), r_(F.n_cols), F_(F) {
    factor_shifted(Lloc, mu + eps, ldlt_);
    C_.zeros(r_ + 1, r_ + 1);
    C_(0, 0) = tau - mu;
    C_.submat(1, 1, r_, r_) = -mu * S;
    const arma::mat G = woodbury_gram(n_threads);
    arma::mat T = lgrm_mult(C_, G);
    T.diag() += 1.0;
    T_.compute(T);
  }
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    Eigen::Map<const Eigen::VectorXd> xv(x, n_);
    const Eigen::VectorXd z = ldlt_.solve(xv);
    const auto Fm = detail::emat(F_);
    arma::vec u(r_ + 1);
    u(0) = z.sum() / std::sqrt(double(n_));
    Eigen::Map<Eigen::VectorXd>(u.memptr() + 1, r_).noalias() = Fm.transpose() * z;
    const arma::vec s = T_.solve(C_ * u);
    Eigen::VectorXd w = xv;
    w.array() -= s(0) / std::sqrt(double(n_));
    w.noalias() -= Fm * Eigen::Map<const Eigen::VectorXd>(s.memptr() + 1, r_);
    Eigen::Map<Eigen::VectorXd>(y, n_) = ldlt_.solve(w);
  }

 private:
  // G = U' A0^{-1} U, column panel by column panel of A0^{-1} U; each panel
  // gives the upper part of its columns (G is symmetric), mirrored at the end.
  arma::mat woodbury_gram(int n_threads) const {
    const long k = long(r_) + 1;
    const int b = 16;
    const long n_panels = (k + b - 1) / b;
    arma::mat G(k, k, arma::fill::zeros);
    const double u0 = 1.0 / std::sqrt(double(n_));
    const auto Fm = detail::emat(F_);
    parallel_items(n_panels, n_threads, [&](long j) {
      const long c0 = j * b, c1 = std::min(k, c0 + b);
      arma::mat Bp(n_, c1 - c0);
      for (long c = c0; c < c1; ++c) {
        if (c == 0) Bp.col(0).fill(u0);
        else Bp.col(c - c0) = F_.col(c - 1);
      }
      const arma::mat Zp = sparse_ldlt_solve_panels(ldlt_, Bp, b, 1);
      const auto Zm = detail::emat(Zp);
      // rows 0 .. c1 - 1 of U' Zp: the constant row, then F(:, 0 .. c1 - 2)' Zp
      for (long c = c0; c < c1; ++c) G(0, c) = u0 * arma::accu(Zp.col(c - c0));
      if (c1 > 1) {
        Eigen::MatrixXd part = Fm.leftCols(c1 - 1).transpose() * Zm;
        for (long c = c0; c < c1; ++c)
          for (long i = 1; i < c1; ++i) G(i, c) = part(i - 1, c - c0);
      }
    });
    for (long c = 0; c < k; ++c)
      for (long i = c + 1; i < k; ++i) G(i, c) = G(c, i);
    return G;
  }

  arma::uword r_;
  const arma::mat& F_;
  ldlt_t ldlt_;
  arma::mat C_;
};

// The explicit formulation (the only one in earlier builds): forms F = H K W^{-1/2}
// (n x r) and G = U' A0^{-1} U from full solves with A0. Kept for
// options(manifoldOOS.lgrm_nystrom = "explicit") and the tests that compare
// it with the reduced formulation below.
lgrm_fit_result lgrm_fit_nystrom_explicit(const nystrom_problem& p, arma::uword& rank) {
  const long n = p.Lloc.rows();
  const arma::mat Wm12 = lgrm_inv_sqrt(p.WZ, rank);
  const arma::uword r = p.WZ.n_rows;
  // F = H Phi, Phi = kappa(X, Z) W_Z^{-1/2}
  arma::rowvec phibar;
  const arma::mat F = centred_features(p.rows, n, Wm12, p.n_threads, phibar);
  // F'F: fixed row chunks (the sum does not depend on the number of threads)
  const long n_chunks = std::min<long>(8, std::max<long>(1, n / 4096));
  std::vector<arma::mat> parts(n_chunks);
  parallel_items(n_chunks, p.n_threads, [&](long j) {
    const long i0 = n * j / n_chunks, i1 = n * (j + 1) / n_chunks;
    parts[j].zeros(r, r);
    detail::emat(parts[j]).selfadjointView<Eigen::Lower>().rankUpdate(
        detail::emat(F).middleRows(i0, i1 - i0).transpose());
  });
  arma::mat FtF = std::move(parts[0]);
  for (long j = 1; j < n_chunks; ++j) FtF += parts[j];
  parts.clear();
  detail::emat(FtF).triangularView<Eigen::StrictlyUpper>() = detail::emat(FtF).transpose();
  const nystrom_terms nt = nystrom_trace_terms(FtF, p.gamma, p.Lloc, p.mu, p.o);
  const arma::mat& S = nt.S;
  const double tau = nt.tau, eps = nt.eps;
  const long nev = p.m + 1;
  if (p.route.lobpcg) return nystrom_result(nystrom_lobpcg(p, F, S, nev), p.m, tau, F, S, Wm12, phibar, p.Lloc);
  lgrm_woodbury_op op(p.Lloc, F, S, p.mu, tau, eps, p.n_threads);
  const double sigma = -eps;
  auto apply_M = [&](const arma::mat& V) {
    // (M + tau 11'/n) V
    arma::mat out = detail::sparse_times(p.Lloc, V);
    arma::mat Vc = V;
    Vc.each_row() -= arma::mean(V, 0);
    out += p.mu * (Vc - F * (S * (F.t() * V)));
    out += (tau / double(n)) * arma::repmat(arma::sum(V, 0), n, 1);
    return out;
  };
  eigen_result res = eigs_operator_shift_invert(
      op, nev, sigma, p.o,
      [&]() -> eigen_result {
        check_dense_fallback(n);
        arma::mat Md = apply_M(arma::eye(n, n));
        Md = 0.5 * (Md + Md.t());
        return eig_dense(Md, eig_which::bottom, nev);
      },
      "spectra_shift_invert_woodbury");
  return nystrom_result(res, p.m, tau, F, S, Wm12, phibar, p.Lloc);
}

}  // namespace

// ---- the reduced formulation ----------------------------------------------------
// W_Z = E diag(w) E' with the q eigenvalues kept (w > 1e-12 max w) in E_q, w_q;
// W_Z^{-1/2} = B E_q' with B = E_q diag(w_q^{-1/2}) (r x q). The explicit F
// (n x r) is F_q E_q' with F_q = H kappa(X, Z) B (n x q), and since
// E_q'E_q = I,
//   F (F'F + gamma I)^{-1} F' = F_q (F_q'F_q + gamma I)^{-1} F_q',
//   beta = W_Z^{-1/2} S F'Y = B S_q F_q'Y,  S_q = (F_q'F_q + gamma I)^{-1},
// so the whole fit runs on q columns instead of r (q = 227 of r = 1000 for
// the Swiss roll at the median bandwidth: the Gaussian kernel's spectrum
// decays fast). With A0 = P' L D L' P and U = [1/sqrt(n), F_q],
//   G = U' A0^{-1} U = V'V,  V = D^{-1/2} L^{-1} P U,
// one forward solve per column (half of a full solve) and a register-tiled
// cross-product (blocks/dense_crossprod.h); V is overwritten in place. One
// application of the Woodbury operator then needs one forward and one
// backward solve (instead of two of each):
//   q = D^{-1/2} L^{-1} P x,  s = T^{-1} C V'q,  y = P' L^{-T} D^{-1/2} (q - V s).
// Dense n x q matrices held: F_q and V.
namespace {

constexpr int half_panel = 16;

// Forward solve with the unit lower factor of 16 interleaved right-hand sides
// (row i of the panel at W[16 i .. 16 i + 15]).
void forward16_portable(const int* Lp, const int* Li, const double* Lx, double* W, long n) {
  forward_unit_interleaved(Lp, Li, Lx, W, n, std::integral_constant<int, half_panel>());
}

#ifdef MO_HAVE_AVX2_KERNELS
__attribute__((target("avx2,fma"))) void forward16_avx2(const int* Lp, const int* Li, const double* Lx, double* W,
                                                        long n) {
  for (long i = 0; i < n; ++i) {
    const double* xi = W + i * half_panel;
    const __m256d x0 = _mm256_loadu_pd(xi), x1 = _mm256_loadu_pd(xi + 4);
    const __m256d x2 = _mm256_loadu_pd(xi + 8), x3 = _mm256_loadu_pd(xi + 12);
    for (int p = Lp[i]; p < Lp[i + 1]; ++p) {
      const long r = Li[p];
      if (r <= i) continue;
      const __m256d v = _mm256_set1_pd(Lx[p]);
      double* xr = W + r * half_panel;
      _mm256_storeu_pd(xr, _mm256_fnmadd_pd(x0, v, _mm256_loadu_pd(xr)));
      _mm256_storeu_pd(xr + 4, _mm256_fnmadd_pd(x1, v, _mm256_loadu_pd(xr + 4)));
      _mm256_storeu_pd(xr + 8, _mm256_fnmadd_pd(x2, v, _mm256_loadu_pd(xr + 8)));
      _mm256_storeu_pd(xr + 12, _mm256_fnmadd_pd(x3, v, _mm256_loadu_pd(xr + 12)));
    }
  }
}
#endif

// V := D^{-1/2} L^{-1} P V in place (rows left in the factor's order), by
// panels of 16 columns, threaded over panels.
void ldlt_half_solve_inplace(const ldlt_t& ldlt, arma::mat& V, const arma::vec& dsq, int n_threads) {
  const long n = V.n_rows, k = V.n_cols;
  const sp_mat_e& L = ldlt.matrixL().nestedExpression();
  const double* Lx = L.valuePtr();
  const int* Li = L.innerIndexPtr();
  const int* Lp = L.outerIndexPtr();
  const auto& P = ldlt.permutationP().indices();
  const bool perm = P.size() > 0;
  bool avx2 = false;
#ifdef MO_HAVE_AVX2_KERNELS
  avx2 = cpu_has_avx2_fma();
#endif
  const long n_panels = (k + half_panel - 1) / half_panel;
  parallel_items(n_panels, n_threads, [&](long j) {
    const long c0 = j * half_panel;
    const int w = int(std::min<long>(half_panel, k - c0));
    std::vector<double> W(std::size_t(n) * half_panel, 0.0);
    for (int c = 0; c < w; ++c) {
      const double* src = V.colptr(c0 + c);
      for (long i = 0; i < n; ++i) W[std::size_t(perm ? P(i) : i) * half_panel + c] = src[i];
    }
#ifdef MO_HAVE_AVX2_KERNELS
    if (avx2) forward16_avx2(Lp, Li, Lx, W.data(), n);
    else forward16_portable(Lp, Li, Lx, W.data(), n);
#else
    (void)avx2;
    forward16_portable(Lp, Li, Lx, W.data(), n);
#endif
    for (int c = 0; c < w; ++c) {
      double* dst = V.colptr(c0 + c);
      for (long i = 0; i < n; ++i) dst[i] = W[std::size_t(i) * half_panel + c] * dsq(i);
    }
  });
}

class lgrm_woodbury_reduced_op : public woodbury_op_base {
 public:
  // V: the half-solved U (n x (q + 1)); T = I + C G.
  lgrm_woodbury_reduced_op(const ldlt_t& ldlt, const arma::vec& dsq, const arma::mat& V, const arma::mat& C,
                           const arma::mat& T, double eps, int n_threads)
      : woodbury_op_base(V.n_rows, eps), ldlt_(ldlt), dsq_(dsq), V_(V), C_(C), n_threads_(n_threads),
        k_(V.n_cols) {
    T_.compute(T);
  }
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    const sp_mat_e& L = ldlt_.matrixL().nestedExpression();
    const double* Lx = L.valuePtr();
    const int* Li = L.innerIndexPtr();
    const int* Lp = L.outerIndexPtr();
    const auto& P = ldlt_.permutationP().indices();
    const auto& Pinv = ldlt_.permutationPinv().indices();
    const bool perm = P.size() > 0;
    std::vector<double> q(n_);
    for (long i = 0; i < n_; ++i) q[perm ? P(i) : i] = x[i];
    for (long i = 0; i < n_; ++i) {
      const double xi = q[i];
      for (int p = Lp[i]; p < Lp[i + 1]; ++p)
        if (Li[p] > i) q[Li[p]] -= xi * Lx[p];
    }
    for (long i = 0; i < n_; ++i) q[i] *= dsq_(i);
    // u = V'q, one column per item
    arma::vec u(k_);
    const Eigen::Map<const Eigen::VectorXd> qv(q.data(), n_);
    parallel_items(long(k_), n_threads_, [&](long j) {
      u(j) = Eigen::Map<const Eigen::VectorXd>(V_.colptr(j), n_).dot(qv);
    });
    const arma::vec s = T_.solve(C_ * u);
    // q - V s, by row blocks (the columns in order within each row)
    const long blk = 4096, n_blocks = (n_ + blk - 1) / blk;
    parallel_items(n_blocks, n_threads_, [&](long b) {
      const long i0 = b * blk, i1 = std::min(n_, i0 + blk);
      for (arma::uword j = 0; j < k_; ++j) {
        const double sj = s(j);
        const double* vj = V_.colptr(j);
        for (long i = i0; i < i1; ++i) q[i] -= vj[i] * sj;
      }
    });
    for (long i = 0; i < n_; ++i) q[i] *= dsq_(i);
    for (long i = n_ - 1; i >= 0; --i) {
      double acc = q[i];
      for (int p = Lp[i]; p < Lp[i + 1]; ++p)
        if (Li[p] > i) acc -= Lx[p] * q[Li[p]];
      q[i] = acc;
    }
    for (long i = 0; i < n_; ++i) y[perm ? Pinv(i) : i] = q[i];
  }

 private:
  const ldlt_t& ldlt_;
  const arma::vec& dsq_;
  const arma::mat& V_;
  const arma::mat& C_;
  int n_threads_;
  arma::uword k_;
};

lgrm_fit_result lgrm_fit_nystrom_reduced(const nystrom_problem& p, arma::uword& rank) {
  const long n = p.Lloc.rows();
  arma::mat Eq;
  const arma::mat Bq = lgrm_inv_sqrt_factor(p.WZ, Eq);  // r x q, W_Z^{-1/2} = Bq Eq'
  rank = Bq.n_cols;
  const arma::uword q = Bq.n_cols;
  // F_q = H kappa(X, Z) Bq
  arma::rowvec phibar;
  const arma::mat Fq = centred_features(p.rows, n, Bq, p.n_threads, phibar);
  const nystrom_terms nt =
      nystrom_trace_terms(crossprod_cols(Fq, 0, q, p.n_threads), p.gamma, p.Lloc, p.mu, p.o);
  const arma::mat& S = nt.S;
  const double tau = nt.tau, eps = nt.eps;
  if (p.route.lobpcg) return nystrom_result(nystrom_lobpcg(p, Fq, S, p.m + 1), p.m, tau, Fq, S, Bq, phibar, p.Lloc);
  // A0 = L_loc + (mu + eps) I = P' L D L' P
  ldlt_t ldlt;
  factor_shifted(p.Lloc, p.mu + eps, ldlt);
  arma::vec dsq(n);
  {
    const Eigen::VectorXd D = ldlt.vectorD();
    for (long i = 0; i < n; ++i) dsq(i) = 1.0 / std::sqrt(D(i));
  }
  // V = D^{-1/2} L^{-1} P [1/sqrt(n), F_q];  G = V'V
  arma::mat V(n, q + 1);
  V.col(0).fill(1.0 / std::sqrt(double(n)));
  V.cols(1, q) = Fq;
  ldlt_half_solve_inplace(ldlt, V, dsq, p.n_threads);
  const arma::mat G = crossprod_cols(V, 0, q + 1, p.n_threads);
  arma::mat C(q + 1, q + 1, arma::fill::zeros);
  C(0, 0) = tau - p.mu;
  C.submat(1, 1, q, q) = -p.mu * S;
  arma::mat T = lgrm_mult(C, G);
  T.diag() += 1.0;
  lgrm_woodbury_reduced_op op(ldlt, dsq, V, C, T, eps, p.n_threads);
  const long nev = p.m + 1;
  eigen_result res = eigs_operator_shift_invert(
      op, nev, -eps, p.o,
      [&]() -> eigen_result {
        check_dense_fallback(n);
        // M + tau 11'/n = L_loc + mu (H - F_q S F_q') + tau 11'/n
        arma::mat Md = detail::sparse_times(p.Lloc, arma::eye(n, n));
        Md += p.mu * (arma::eye(n, n) - 1.0 / double(n));
        Md -= p.mu * (Fq * (S * Fq.t()));
        Md += tau / double(n);
        Md = 0.5 * (Md + Md.t());
        return eig_dense(Md, eig_which::bottom, nev);
      },
      "spectra_shift_invert_woodbury");
  V.reset();
  return nystrom_result(res, p.m, tau, Fq, S, Bq, phibar, p.Lloc);
}

}  // namespace

lgrm_fit_result lgrm_fit_nystrom(const sp_mat_e& Lloc, const lgrm_kernel_rows& rows, const arma::mat& WZ,
                                 int m, double gamma, double mu, const eig_options& o, int n_threads,
                                 arma::uword& rank, bool explicit_features) {
  check_nystrom_args(Lloc.rows(), m, gamma, mu);
  // the route: a sparse factorisation of L_loc + (mu + eps) I (shift-invert
  // with the Woodbury identity) or none (LOBPCG), chosen as for the other
  // deflated problems (choose_deflated_solver(): by size, and between
  // fill_min_n and lobpcg_min_n rows by the predicted factorisation of L_loc,
  // whose pattern the shifted matrix shares); a dense request keeps
  // shift-invert with its dense fallback
  deflated_choice route;
  // (the factorisation here is Eigen's, not the registered one: no analysis kept)
  if (o.method != eig_method::dense) route = choose_deflated_solver(Lloc, o, false);
  const nystrom_problem p{Lloc, rows, WZ, m, gamma, mu, o, n_threads, route};
  lgrm_fit_result out =
      explicit_features ? lgrm_fit_nystrom_explicit(p, rank) : lgrm_fit_nystrom_reduced(p, rank);
  out.emb.note = join_notes(route.note, out.emb.note);
  return out;
}

}  // namespace manifoldOOS
