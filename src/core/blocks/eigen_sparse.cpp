// Iterative symmetric eigen-solvers (Eigen + Spectra): the only translation
// unit of the package that instantiates Spectra. See
// <manifoldOOS/blocks/eigen_sparse.h> for the interface and the settings.
#include <manifoldOOS/blocks/eigen_sparse.h>

#include <manifoldOOS/core/eigen.h>
#include <manifoldOOS/core/eigen_sparse.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <manifoldOOS/blocks/eigen_deflate.h>
#include <manifoldOOS/blocks/eigen_lobpcg.h>
#include <manifoldOOS/blocks/graph.h>
#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/blocks/spd_factor.h>

// API switch: Spectra 1.x ships <Spectra/MatOp/SymShiftInvert.h>, 0.8.x does
// not. The guess is cross-checked against the include guard of the solver
// header actually included (1.x: SPECTRA_SYM_EIGS_SOLVER_H, 0.8.x:
// SYM_EIGS_SOLVER_H), so a system-wide Spectra 1.x next to RSpectra's 0.8.1
// (found first through LinkingTo) cannot select the wrong API.
#if defined(__has_include)
#if __has_include(<Spectra/MatOp/SymShiftInvert.h>)
#define MANIFOLDOOS_SPECTRA_1X_HEADER 1
#endif
#endif

MO_SILENCE_THIRD_PARTY_BEGIN
#include <Spectra/SymEigsShiftSolver.h>
#include <Spectra/SymEigsSolver.h>
MO_SILENCE_THIRD_PARTY_END

#if defined(MANIFOLDOOS_SPECTRA_1X_HEADER) && defined(SPECTRA_SYM_EIGS_SOLVER_H)
#define MANIFOLDOOS_SPECTRA_1X 1
#elif defined(SYM_EIGS_SOLVER_H) || !defined(MANIFOLDOOS_SPECTRA_1X_HEADER)
#define MANIFOLDOOS_SPECTRA_1X 0
#else
#define MANIFOLDOOS_SPECTRA_1X 1
#endif

namespace manifoldOOS {

namespace detail {

// ---- small sparse utilities -------------------------------------------------

// max |A_ij - A_ji| over the stored entries (a missing entry counts as 0).
// Compressed with sorted row indices (the usual case): each mirrored entry
// is found by a cursor in its column, without forming A'; otherwise
// through A - A'. Both give the same number.
inline double max_asymmetry(const sp_mat_e& A) {
  const Eigen::Index n = A.outerSize();
  bool sorted = A.isCompressed();
  const int* p = A.outerIndexPtr();
  const int* ix = A.innerIndexPtr();
  for (Eigen::Index j = 0; sorted && j < n; ++j) {
    for (int e = p[j] + 1; e < p[j + 1]; ++e) {
      if (ix[e] <= ix[e - 1]) {
        sorted = false;
        break;
      }
    }
  }
  if (!sorted) {
    sp_mat_e At = A.transpose();
    sp_mat_e D = A - At;
    double dmax = 0.0;
    for (Eigen::Index i = 0; i < D.nonZeros(); ++i) dmax = std::max(dmax, std::abs(D.valuePtr()[i]));
    return dmax;
  }
  // Columns j in ascending order ask column i for its row j in ascending
  // order too, so one cursor per column, moved forward only, finds every
  // mirror: O(nnz) steps, one scattered access per entry. The columns are
  // split into one contiguous range per thread, each with its own cursors
  // (started by a binary search at the range's first column).
  const double* v = A.valuePtr();
  const int nt = A.nonZeros() > 1000000 ? resolve_threads(0) : 1;
  const long n_chunks = std::max(1, std::min<int>(nt, static_cast<int>(n)));
  double dmax = 0.0;
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1) reduction(max : dmax) num_threads(nt) if (nt > 1)
#endif
  for (long c = 0; c < n_chunks; ++c) {
    const int j0 = static_cast<int>(n * c / n_chunks);
    const int j1 = static_cast<int>(n * (c + 1) / n_chunks);
    std::vector<int> cur(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
      cur[i] = static_cast<int>(std::lower_bound(ix + p[i], ix + p[i + 1], j0) - ix);
    }
    double dm = 0.0;
    for (int j = j0; j < j1; ++j) {
      for (int e = p[j]; e < p[j + 1]; ++e) {
        const int i = ix[e];
        if (i == j) continue;
        int& q = cur[i];
        const int end = p[i + 1];
        while (q < end && ix[q] < j) ++q;
        const double mirror = (q < end && ix[q] == j) ? v[q] : 0.0;
        dm = std::max(dm, std::abs(v[e] - mirror));
      }
    }
    dmax = std::max(dmax, dm);
  }
  return dmax;
}

inline void check_sparse(const sp_mat_e& A, const char* name) {
  if (A.rows() != A.cols()) throw input_error(std::string(name) + " must be a square matrix");
  if (A.rows() == 0) throw input_error(std::string(name) + " must not be empty");
  const double* v = A.valuePtr();
  const Eigen::Index nnz = A.nonZeros();
  for (Eigen::Index i = 0; i < nnz; ++i) {
    if (!std::isfinite(v[i])) {
      throw input_error(std::string(name) + " must contain only finite values");
    }
  }
  double amax = 0.0;
  for (Eigen::Index i = 0; i < nnz; ++i) amax = std::max(amax, std::abs(v[i]));
  if (amax == 0.0) return;
  const double dmax = max_asymmetry(A);
  if (dmax > 1e-8 * amax) {
    std::ostringstream os;
    os << name << " must be symmetric (relative asymmetry " << dmax / amax << ")";
    throw input_error(os.str());
  }
}

double sparse_trace(const sp_mat_e& A) {
  double t = 0.0;
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    for (sp_mat_e::InnerIterator it(A, j); it; ++it) {
      if (it.row() == j) t += it.value();
    }
  }
  return t;
}

// Infinity norm (max absolute row sum; equals the 1-norm for symmetric A).
double sparse_norm_inf(const sp_mat_e& A) {
  Eigen::VectorXd s = Eigen::VectorXd::Zero(A.rows());
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    for (sp_mat_e::InnerIterator it(A, j); it; ++it) s(it.row()) += std::abs(it.value());
  }
  return A.rows() > 0 ? s.maxCoeff() : 0.0;
}

inline arma::mat sparse_to_dense(const sp_mat_e& A) {
  arma::mat M(A.rows(), A.cols(), arma::fill::zeros);
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    for (sp_mat_e::InnerIterator it(A, j); it; ++it) M(it.row(), j) += it.value();
  }
  return M;
}

// A V for sparse A and dense V (no copy of V: columns mapped).
arma::mat sparse_times(const sp_mat_e& A, const arma::mat& V) {
  arma::mat out(A.rows(), V.n_cols);
  Eigen::Map<const Eigen::MatrixXd> Vm(V.memptr(), V.n_rows, V.n_cols);
  Eigen::Map<Eigen::MatrixXd>(out.memptr(), out.n_rows, out.n_cols) = A * Vm;
  return out;
}

// True when every stored non-zero of B is on the diagonal; fills d = diag(B).
inline bool sparse_is_diagonal(const sp_mat_e& B, arma::vec& d) {
  d.zeros(B.rows());
  for (Eigen::Index j = 0; j < B.outerSize(); ++j) {
    for (sp_mat_e::InnerIterator it(B, j); it; ++it) {
      if (it.row() != j) {
        if (it.value() != 0.0) return false;
      } else {
        d(j) += it.value();
      }
    }
  }
  return true;
}

inline Eigen::Map<const Eigen::VectorXd> emap(const double* x, Eigen::Index n) {
  return Eigen::Map<const Eigen::VectorXd>(x, n);
}
inline Eigen::Map<Eigen::VectorXd> emap(double* y, Eigen::Index n) {
  return Eigen::Map<Eigen::VectorXd>(y, n);
}

// ---- operators (valid for both Spectra APIs: Scalar typedef and
// rows()/cols() from square_operator, const perform_op, set_shift() for
// shift-invert) ----------------------------------------------------------------

// y = A x, A sparse symmetric.
class sparse_prod_op : public square_operator {
 public:
  explicit sparse_prod_op(const sp_mat_e& A) : square_operator(A.rows()), A_(A) {}
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    emap(y, A_.rows()).noalias() = A_ * emap(x, A_.cols());
  }

 private:
  const sp_mat_e& A_;
  op_poller poll_;
};

// y = K x or y = H K H x (H = I - 11'/n), K dense symmetric, no copy of K.
// H K H x = K x - c (1'x) - 1 (c'x) + g (1'x) 1 with c = K 1 / n and
// g = 1'K1 / n^2: three rank-one corrections of the plain product.
class dense_prod_op : public square_operator {
 public:
  dense_prod_op(const arma::mat& K, bool center) : square_operator(K.n_rows), K_(K), center_(center) {
    if (center_) {
      c_ = arma::sum(K_, 1) / double(K_.n_rows);
      g_ = arma::mean(c_);
    }
  }
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    const arma::uword n = K_.n_rows;
    const arma::vec xv(const_cast<double*>(x), n, false, true);
    arma::vec yv(y, n, false, true);
    yv = K_ * xv;
    if (center_) {
      const double s = arma::accu(xv);
      const double cx = arma::dot(c_, xv);
      yv -= s * c_;
      yv -= (cx - g_ * s);
    }
  }

 private:
  const arma::mat& K_;
  bool center_;
  arma::vec c_;
  double g_ = 0.0;
  op_poller poll_;
};

// Shift-solve y = (A - sigma B)^{-1} x with B = I (B == nullptr) or a sparse
// SPD B, by a simplicial LDL' factorisation with AMD ordering. The
// factorisation is cached per shift. A - sigma B must be positive definite
// (A PSD, sigma < 0): a non-positive pivot means A has eigenvalues below the
// shift, which is reported as an input error (A is not PSD).
class ldlt_shift_op : public square_operator {
 public:
  explicit ldlt_shift_op(const sp_mat_e& A, const sp_mat_e* B = nullptr)
      : square_operator(A.rows()), A_(A), B_(B) {}
  void set_shift(double sigma) {
    if (factored_ && sigma == sigma_) return;
    sp_mat_e M;
    if (B_ == nullptr) {
      // A - sigma I: with every diagonal entry stored, a copy of A whose
      // diagonal is shifted in place (the same numbers as the sparse sum,
      // a_ii - sigma, without merging two patterns)
      M = A_;
      M.makeCompressed();
      bool all_diag = true;
      for (Eigen::Index j = 0; j < M.outerSize() && all_diag; ++j) {
        const int* b = M.innerIndexPtr() + M.outerIndexPtr()[j];
        const int* e = M.innerIndexPtr() + M.outerIndexPtr()[j + 1];
        const int* q = std::find(b, e, static_cast<int>(j));
        if (q == e) {
          all_diag = false;
        } else {
          M.valuePtr()[q - M.innerIndexPtr()] -= sigma;
        }
      }
      if (!all_diag) {
        sp_mat_e I(A_.rows(), A_.cols());
        I.setIdentity();
        M = A_ - sigma * I;
      }
    } else {
      M = A_ - sigma * (*B_);
    }
    M.makeCompressed();
    // A registered external factorisation (CHOLMOD from the R glue) first;
    // nullptr when it declines or M is not positive definite, then Eigen's
    // LDL' below (which also counts the non-positive pivots for the error).
    ext_.reset();
    if (const spd_factor_maker maker = spd_factor_backend()) {
      ext_ = maker(M, current_spd_symbolic());
      if (ext_) {
        sigma_ = sigma;
        factored_ = true;
        return;
      }
    }
    ldlt_.compute(M);
    if (ldlt_.info() != Eigen::Success) {
      throw error("the sparse LDL' factorisation of the shifted matrix failed");
    }
    const Eigen::VectorXd D = ldlt_.vectorD();
    long nonpos = 0;
    for (Eigen::Index i = 0; i < D.size(); ++i) {
      if (!(D(i) > 0)) ++nonpos;
    }
    if (nonpos > 0) {
      std::ostringstream os;
      os << "`A` is not positive semidefinite: " << nonpos
         << " eigenvalue(s) lie below the shift " << sigma;
      throw input_error(os.str());
    }
    sigma_ = sigma;
    factored_ = true;
  }
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    if (ext_) {
      ext_->solve(x, y);
      return;
    }
    emap(y, A_.rows()) = ldlt_.solve(emap(x, A_.rows()));
  }

 private:
  const sp_mat_e& A_;
  const sp_mat_e* B_;
  Eigen::SimplicialLDLT<sp_mat_e, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt_;
  std::unique_ptr<spd_factor> ext_;
  double sigma_ = 0.0;
  bool factored_ = false;
  op_poller poll_;
};

// Cholesky factor of a sparse SPD B: P B P' = L L', so B = G G' with
// G = P' L. The standard problem equivalent to A v = lambda B v is
// C u = lambda u with C = G^{-1} A G^{-T}, v = G^{-T} u, and V'BV = U'U.
class sparse_b_factor {
 public:
  explicit sparse_b_factor(const sp_mat_e& B) {
    Eigen::SimplicialLLT<sp_mat_e, Eigen::Lower, Eigen::AMDOrdering<int>> llt(B);
    if (llt.info() != Eigen::Success) {
      throw input_error("`B` is not positive definite (sparse Cholesky factorisation failed)");
    }
    L_ = llt.matrixL();
    L_.makeCompressed();
    U_ = L_.transpose();
    U_.makeCompressed();
    P_ = llt.permutationP();
    Pinv_ = llt.permutationPinv();
  }
  Eigen::Index n() const { return L_.rows(); }
  // G x = P' (L x)
  Eigen::VectorXd G(const Eigen::VectorXd& x) const { return Pinv_ * (L_ * x); }
  // G' y = L' (P y)
  Eigen::VectorXd Gt(const Eigen::VectorXd& y) const { return U_ * (P_ * y); }
  // G^{-1} z = L^{-1} (P z)
  Eigen::VectorXd Ginv(const Eigen::VectorXd& z) const {
    Eigen::VectorXd w = P_ * z;
    L_.triangularView<Eigen::Lower>().solveInPlace(w);
    return w;
  }
  // G^{-T} u = P' (L^{-T} u)
  Eigen::VectorXd Ginvt(const Eigen::VectorXd& u) const {
    Eigen::VectorXd w = u;
    U_.triangularView<Eigen::Upper>().solveInPlace(w);
    return Pinv_ * w;
  }

 private:
  sp_mat_e L_, U_;
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P_, Pinv_;
};

// y = (C - sigma I)^{-1} x = G' (A - sigma B)^{-1} G x.
class reduced_shift_op : public square_operator {
 public:
  reduced_shift_op(const sp_mat_e& A, const sp_mat_e& B, const sparse_b_factor& F)
      : square_operator(F.n()), inner_(A, &B), F_(F) {}
  void set_shift(double sigma) { inner_.set_shift(sigma); }
  void perform_op(const double* x, double* y) const {
    const Eigen::Index n = F_.n();
    Eigen::VectorXd gx = F_.G(emap(x, n));
    Eigen::VectorXd z(n);
    inner_.perform_op(gx.data(), z.data());
    emap(y, n) = F_.Gt(z);
  }

 private:
  ldlt_shift_op inner_;
  const sparse_b_factor& F_;
};

// y = C x = G^{-1} A G^{-T} x.
class reduced_prod_op : public square_operator {
 public:
  reduced_prod_op(const sp_mat_e& A, const sparse_b_factor& F) : square_operator(F.n()), A_(A), F_(F) {}
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    const Eigen::Index n = F_.n();
    Eigen::VectorXd w = F_.Ginvt(emap(x, n));
    Eigen::VectorXd z = A_ * w;
    emap(y, n) = F_.Ginv(z);
  }

 private:
  const sp_mat_e& A_;
  const sparse_b_factor& F_;
  op_poller poll_;
};

// Spectra's operator concept on top of a linear_operator (one instantiation
// of each solver serves every operator defined outside this file).
class spectra_op : public square_operator {
 public:
  explicit spectra_op(const linear_operator& op)
      : square_operator(op.size()), op_(const_cast<linear_operator&>(op)) {}
  void set_shift(double sigma) { op_.set_shift(sigma); }
  void perform_op(const double* x, double* y) const { op_.apply(x, y); }

 private:
  linear_operator& op_;
};

// ---- the Spectra compatibility layer ----------------------------------------

struct spectra_run {
  bool ok = false;
  long nconv = 0;
  long niter = 0;
  long nops = 0;
  int status = -1;
  Eigen::VectorXd values;
  Eigen::MatrixXd vectors;
};

inline std::string spectra_status_name(int status) {
  switch (status) {
    case 0: return "SUCCESSFUL";
    case 1: return "NOT_COMPUTED";
    case 2: return "NOT_CONVERGING";
    case 3: return "NUMERICAL_ISSUE";
    default: return "UNKNOWN";
  }
}

// Status, counts and (on success) the eigenpairs of a finished Spectra
// solver; `run` constructs, initialises and computes it. Spectra's argument
// errors become manifoldOOS::error.
template <class Solver>
void collect_run(Solver& eigs, spectra_run& r) {
#if MANIFOLDOOS_SPECTRA_1X
  r.status = static_cast<int>(eigs.info());
  r.ok = eigs.info() == Spectra::CompInfo::Successful;
#else
  r.status = eigs.info();
  r.ok = eigs.info() == Spectra::SUCCESSFUL;
#endif
  r.niter = eigs.num_iterations();
  r.nops = eigs.num_operations();
  if (r.ok) {
    r.values = eigs.eigenvalues();
    r.vectors = eigs.eigenvectors();
  }
}

template <class Run>
spectra_run guarded_spectra(Run&& run) {
  spectra_run r;
  try {
    run(r);
  } catch (const std::invalid_argument& e) {
    throw error(std::string("Spectra rejected its arguments: ") + e.what());
  }
  return r;
}

// Eigenvalues of A nearest to sigma (shift-invert, largest |1/(lambda - sigma)|).
template <class Op>
spectra_run spectra_shift_invert(Op& op, long nev, long ncv, double sigma, long maxit,
                                 double tol) {
  return guarded_spectra([&](spectra_run& r) {
#if MANIFOLDOOS_SPECTRA_1X
    Spectra::SymEigsShiftSolver<Op> eigs(op, nev, ncv, sigma);
    eigs.init();
    r.nconv = eigs.compute(Spectra::SortRule::LargestMagn, maxit, tol,
                           Spectra::SortRule::SmallestAlge);
#else
    Spectra::SymEigsShiftSolver<double, Spectra::LARGEST_MAGN, Op> eigs(&op, nev, ncv, sigma);
    eigs.init();
    r.nconv = eigs.compute(maxit, tol, Spectra::SMALLEST_ALGE);
#endif
    collect_run(eigs, r);
  });
}

// Largest algebraic eigenvalues of the operator (plain Lanczos).
template <class Op>
spectra_run spectra_largest(Op& op, long nev, long ncv, long maxit, double tol) {
  return guarded_spectra([&](spectra_run& r) {
#if MANIFOLDOOS_SPECTRA_1X
    Spectra::SymEigsSolver<Op> eigs(op, nev, ncv);
    eigs.init();
    r.nconv = eigs.compute(Spectra::SortRule::LargestAlge, maxit, tol,
                           Spectra::SortRule::LargestAlge);
#else
    Spectra::SymEigsSolver<double, Spectra::LARGEST_ALGE, Op> eigs(&op, nev, ncv);
    eigs.init();
    r.nconv = eigs.compute(maxit, tol, Spectra::LARGEST_ALGE);
#endif
    collect_run(eigs, r);
  });
}

inline long default_ncv(long n, long nev, const eig_options& o) {
  long ncv = o.ncv > 0 ? std::max(o.ncv, nev + 1) : std::max(2 * nev + 1, 20L);
  return std::min(n, ncv);
}

// Runs `run(ncv)` (returning a spectra_run), retries once with ncv doubled,
// then falls back to `dense()` when n <= fallback_max_n, else throws.
// `ascending` gives the final order.
inline eigen_result iterate_with_retry(long n, long nev, const eig_options& o,
                                       const std::function<spectra_run(long)>& run,
                                       const std::function<eigen_result()>& dense,
                                       const std::string& method, bool ascending) {
  eigen_result res;
  long ncv = default_ncv(n, nev, o);
  spectra_run r;
  long total_iter = 0, total_ops = 0;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    if (attempt == 2) {
      const long ncv2 = std::min(n, 2 * ncv);
      if (ncv2 <= ncv) break;
      ncv = ncv2;
    }
    r = run(ncv);
    res.attempts = attempt;
    total_iter += r.niter;
    total_ops += r.nops;
    if (r.ok && r.values.size() == nev) {
      res.values = arma::vec(r.values.data(), r.values.size());
      res.vectors = arma::mat(r.vectors.data(), r.vectors.rows(), r.vectors.cols());
      sort_and_fix(res, !ascending);
      res.method_used = method;
      res.n_iter = total_iter;
      res.n_ops = total_ops;
      res.status = 0;
      if (attempt == 2) res.note = "converged on the retry with doubled ncv";
      return res;
    }
  }
  std::ostringstream os;
  os << method << " did not converge (status " << spectra_status_name(r.status) << ", "
     << r.nconv << " of " << nev << " eigenpairs converged, ncv = " << ncv
     << ", maxit = " << o.maxit << ", tol = " << o.tol << ")";
  if (n <= o.fallback_max_n) {
    eigen_result d = dense();
    d.attempts = res.attempts;
    d.status = r.status;
    d.n_iter = total_iter;
    d.n_ops = total_ops;
    d.method_used = "dense_fallback";
    d.note = os.str() + "; used the dense solver instead";
    return d;
  }
  throw convergence_error(os.str());
}

double shift_scale(double trace, long n) {
  if (trace < 0) throw input_error("`A` is not positive semidefinite (negative trace)");
  const double s = trace / double(n);
  return s > 0 ? s : 1.0;
}

// max_j ||A v_j - lambda_j v_j|| / (||A||_inf + |lambda_j|) for sparse A.
inline double residual_sparse(const sp_mat_e& A, const eigen_result& r,
                              const sp_mat_e* B = nullptr) {
  const double na = sparse_norm_inf(A);
  const double nb = B ? sparse_norm_inf(*B) : 1.0;
  double worst = 0.0;
  for (arma::uword j = 0; j < r.values.n_elem; ++j) {
    Eigen::Map<const Eigen::VectorXd> v(r.vectors.colptr(j), r.vectors.n_rows);
    Eigen::VectorXd res = A * v;
    if (B) {
      res -= r.values(j) * ((*B) * v);
    } else {
      res -= r.values(j) * v;
    }
    const double denom = na + std::abs(r.values(j)) * nb;
    worst = std::max(worst, res.norm() / (denom > 0 ? denom : 1.0));
  }
  return worst;
}

// Same for dense A (optionally centred implicitly through the operator).
inline double residual_dense(const arma::mat& A, bool center, const eigen_result& r) {
  dense_prod_op op(A, center);
  const double na = arma::norm(A, "inf") * (center ? 4.0 : 1.0);
  double worst = 0.0;
  arma::vec y(A.n_rows);
  for (arma::uword j = 0; j < r.values.n_elem; ++j) {
    op.perform_op(r.vectors.colptr(j), y.memptr());
    const double denom = na + std::abs(r.values(j));
    worst = std::max(worst, arma::norm(y - r.values(j) * r.vectors.col(j)) /
                                (denom > 0 ? denom : 1.0));
  }
  return worst;
}

inline arma::mat double_centre(const arma::mat& K) {
  arma::mat C = K;
  const arma::rowvec cm = arma::mean(C, 0);
  C.each_row() -= cm;
  const arma::vec rm = arma::mean(C, 1);
  C.each_col() -= rm;
  return 0.5 * (C + C.t());
}

}  // namespace detail

// ---- public building blocks ---------------------------------------------------

// Bottom m eigenpairs of a sparse symmetric PSD matrix by shift-invert around
// sigma = -shift_eps * trace(A)/n (LDL' with AMD ordering). Ascending.
eigen_result eigs_sparse_bottom(const sp_mat_e& A, long m, const eig_options& o) {
  detail::check_sparse(A, "the matrix");
  const long n = A.rows();
  if (m < 1 || m > n) throw input_error("the number of eigenpairs must lie in [1, n]");
  if (!(o.shift_eps > 0)) throw input_error("`shift_eps` must be positive");
  if (m > n - 2) {
    eigen_result d = eig_dense(detail::sparse_to_dense(A), eig_which::bottom, m);
    d.note = "too many eigenpairs requested for Lanczos; used the dense solver";
    return d;
  }
  const double sigma = -o.shift_eps * detail::shift_scale(detail::sparse_trace(A), n);
  detail::ldlt_shift_op op(A);
  op.set_shift(sigma);  // factorise once; reused by the retry
  eigen_result res = detail::iterate_with_retry(
      n, m, o,
      [&](long ncv) { return detail::spectra_shift_invert(op, m, ncv, sigma, o.maxit, o.tol); },
      [&]() { return eig_dense(detail::sparse_to_dense(A), eig_which::bottom, m); },
      "spectra_shift_invert", true);
  res.shift = sigma;
  res.residual = detail::residual_sparse(A, res);
  return res;
}

// Top m (largest algebraic) eigenpairs of a sparse symmetric matrix. Descending.
eigen_result eigs_sparse_top(const sp_mat_e& A, long m, const eig_options& o) {
  detail::check_sparse(A, "the matrix");
  const long n = A.rows();
  if (m < 1 || m > n) throw input_error("the number of eigenpairs must lie in [1, n]");
  if (m > n - 2) {
    eigen_result d = eig_dense(detail::sparse_to_dense(A), eig_which::top, m);
    d.note = "too many eigenpairs requested for Lanczos; used the dense solver";
    return d;
  }
  detail::sparse_prod_op op(A);
  eigen_result res = detail::iterate_with_retry(
      n, m, o, [&](long ncv) { return detail::spectra_largest(op, m, ncv, o.maxit, o.tol); },
      [&]() { return eig_dense(detail::sparse_to_dense(A), eig_which::top, m); },
      "spectra_lanczos", false);
  res.residual = detail::residual_sparse(A, res);
  return res;
}

// Top m eigenpairs of a dense symmetric K (or of H K H when `center`) through
// a matrix-free operator; K is never copied. Descending.
eigen_result eigs_dense_top_matfree(const arma::mat& K, long m, bool center,
                                    const eig_options& o) {
  detail::check_square_finite(K, "the matrix");
  detail::check_symmetric(K, "the matrix");
  const long n = K.n_rows;
  if (m < 1 || m > n) throw input_error("the number of eigenpairs must lie in [1, n]");
  auto dense = [&]() {
    return center ? eig_dense(detail::double_centre(K), eig_which::top, m)
                  : eig_dense(K, eig_which::top, m);
  };
  if (m > n - 2) {
    eigen_result d = dense();
    d.note = "too many eigenpairs requested for Lanczos; used the dense solver";
    return d;
  }
  detail::dense_prod_op op(K, center);
  eigen_result res = detail::iterate_with_retry(
      n, m, o, [&](long ncv) { return detail::spectra_largest(op, m, ncv, o.maxit, o.tol); },
      dense, center ? "spectra_matfree_centred" : "spectra_matfree", false);
  res.residual = detail::residual_dense(K, center, res);
  return res;
}

eigen_result eigs_operator_top(const linear_operator& op, long m, const eig_options& o,
                               const std::function<eigen_result()>& dense,
                               const std::string& name) {
  const long n = op.size();
  if (m < 1 || m > n) throw input_error("the number of eigenpairs must lie in [1, n]");
  if (m > n - 2) {
    eigen_result d = dense();
    d.note = "too many eigenpairs requested for Lanczos; used the dense solver";
    return d;
  }
  const detail::spectra_op sop(op);
  return detail::iterate_with_retry(
      n, m, o, [&](long ncv) { return detail::spectra_largest(sop, m, ncv, o.maxit, o.tol); },
      dense, name, false);
}

eigen_result eigs_operator_shift_invert(linear_operator& op, long m, double sigma,
                                        const eig_options& o,
                                        const std::function<eigen_result()>& dense,
                                        const std::string& name) {
  detail::spectra_op sop(op);
  return detail::iterate_with_retry(
      op.size(), m, o,
      [&](long ncv) { return detail::spectra_shift_invert(sop, m, ncv, sigma, o.maxit, o.tol); },
      dense, name, true);
}

// Sparse generalised problem A v = lambda B v, B sparse SPD. Returns
// B-orthonormal eigenvectors. Diagonal B: standard problem on
// D^{-1/2} A D^{-1/2}, v = D^{-1/2} u. General B: Cholesky reduction with
// shift-invert of (A - sigma B) (bottom) or Lanczos on G^{-1} A G^{-T} (top).
eigen_result geigs_sparse(const sp_mat_e& A, const sp_mat_e& B, eig_which which, long m,
                          const eig_options& o) {
  detail::check_sparse(A, "A");
  detail::check_sparse(B, "B");
  const long n = A.rows();
  if (B.rows() != n) throw input_error("A and B must have the same dimensions");
  if (which == eig_which::all) m = n;
  if (m < 1 || m > n) throw input_error("the number of eigenpairs must lie in [1, n]");
  const bool use_dense = o.method == eig_method::dense || which == eig_which::all ||
                         (o.method == eig_method::automatic && n <= o.dense_max_n) || m > n - 2;
  arma::vec d;
  if (detail::sparse_is_diagonal(B, d)) {
    if (!(d.min() > 0)) throw input_error("`B` must have a positive diagonal");
    const arma::vec s = 1.0 / arma::sqrt(d);
    sp_mat_e C = A;
    for (Eigen::Index j = 0; j < C.outerSize(); ++j) {
      for (sp_mat_e::InnerIterator it(C, j); it; ++it) it.valueRef() *= s(it.row()) * s(j);
    }
    eigen_result res;
    if (use_dense) {
      res = eig_dense(detail::sparse_to_dense(C), which, m);
    } else if (which == eig_which::bottom) {
      res = eigs_sparse_bottom(C, m, o);
    } else {
      res = eigs_sparse_top(C, m, o);
    }
    res.vectors.each_col() %= s;
    fix_signs(res.vectors);
    res.method_used += "_diagonal_B";
    res.residual = detail::residual_sparse(A, res, &B);
    return res;
  }
  if (use_dense) {
    eigen_result res = geig_dense(detail::sparse_to_dense(A), detail::sparse_to_dense(B), which, m,
                                  o.ridge);
    res.residual = detail::residual_sparse(A, res, &B);
    return res;
  }
  detail::sparse_b_factor F(B);
  auto back = [&](eigen_result& res) {
    for (arma::uword j = 0; j < res.vectors.n_cols; ++j) {
      Eigen::Map<Eigen::VectorXd> u(res.vectors.colptr(j), n);
      Eigen::VectorXd v = F.Ginvt(u);
      u = v;
    }
    fix_signs(res.vectors);
  };
  auto dense = [&]() {
    eigen_result r = geig_dense(detail::sparse_to_dense(A), detail::sparse_to_dense(B), which, m,
                                0.0);
    return r;
  };
  eigen_result res;
  if (which == eig_which::bottom) {
    const double trB = detail::sparse_trace(B);
    const double sigma = -o.shift_eps * detail::shift_scale(detail::sparse_trace(A), n) /
                         (trB / double(n));
    detail::reduced_shift_op op(A, B, F);
    op.set_shift(sigma);
    bool fell_back = false;
    res = detail::iterate_with_retry(
        n, m, o,
        [&](long ncv) { return detail::spectra_shift_invert(op, m, ncv, sigma, o.maxit, o.tol); },
        [&]() { fell_back = true; return dense(); }, "spectra_shift_invert_cholesky_B", true);
    if (!fell_back) back(res);
    res.shift = sigma;
  } else {
    detail::reduced_prod_op op(A, F);
    bool fell_back = false;
    res = detail::iterate_with_retry(
        n, m, o, [&](long ncv) { return detail::spectra_largest(op, m, ncv, o.maxit, o.tol); },
        [&]() { fell_back = true; return dense(); }, "spectra_lanczos_cholesky_B", false);
    if (!fell_back) back(res);
  }
  res.residual = detail::residual_sparse(A, res, &B);
  return res;
}

// ---- the single entry point ----------------------------------------------------

// Bottom/top m (or all) eigenpairs of a symmetric (generalised) problem.
// method = automatic: dense LAPACK when n <= dense_max_n (dense A, top:
// n <= dense_top_limit()), otherwise
//   * sparse A (and B): shift-invert (bottom) / Lanczos (top);
//   * dense A, top:     matrix-free Lanczos (implicit centring when asked);
//   * dense A, bottom or all, dense generalised pairs: dense LAPACK always.
eigen_result eigs_sym(const sym_problem& P, eig_which which, long m, const eig_options& o) {
  if ((P.A_dense == nullptr) == (P.A_sparse == nullptr)) {
    throw input_error("exactly one of a dense or a sparse matrix must be given");
  }
  if (P.A_dense != nullptr) {
    const arma::mat& A = *P.A_dense;
    if (P.B_sparse != nullptr) throw input_error("a dense A needs a dense B");
    if (P.B_dense != nullptr) {
      if (P.center) throw input_error("centring is not available for generalised problems");
      return geig_dense(A, *P.B_dense, which, m, o.ridge);
    }
    const long n = A.n_rows;
    const bool dense = o.method == eig_method::dense || which != eig_which::top ||
                       (o.method == eig_method::automatic && n <= dense_top_limit(o));
    if (dense) {
      eigen_result r = P.center ? eig_dense(detail::double_centre(A), which, m)
                                : eig_dense(A, which, m);
      if (o.method == eig_method::iterative) {
        r.note = "no iterative path for this dense problem; used the dense solver";
      }
      return r;
    }
    return eigs_dense_top_matfree(A, m, P.center, o);
  }
  const sp_mat_e& A = *P.A_sparse;
  if (P.center) throw input_error("centring is only available for dense matrices");
  if (P.B_dense != nullptr) throw input_error("a sparse A needs a sparse B");
  if (P.B_sparse != nullptr) return geigs_sparse(A, *P.B_sparse, which, m, o);
  const long n = A.rows();
  const bool dense = o.method == eig_method::dense || which == eig_which::all ||
                     (o.method == eig_method::automatic && n <= o.dense_max_n);
  if (dense) {
    detail::check_sparse(A, "the matrix");
    eigen_result r = eig_dense(detail::sparse_to_dense(A), which, m);
    r.residual = detail::residual_sparse(A, r);
    return r;
  }
  return which == eig_which::bottom ? eigs_sparse_bottom(A, m, o) : eigs_sparse_top(A, m, o);
}


// ---- deflated bottom solve (declared in <manifoldOOS/blocks/eigen_deflate.h>) --------------------

namespace detail {

// y = P (A - sigma I)^{-1} P x with P = I - u u' (|u| = 1): the shift-solve of
// ldlt_shift_op on the orthogonal complement of u.
class deflated_shift_op : public square_operator {
 public:
  deflated_shift_op(const sp_mat_e& A, const arma::vec& u)
      : square_operator(A.rows()), inner_(A), u_(u), w_(u.n_elem) {}
  void set_shift(double sigma) { inner_.set_shift(sigma); }
  void perform_op(const double* x, double* y) const {
    const arma::uword n = u_.n_elem;
    const arma::vec xv(const_cast<double*>(x), n, false, true);
    w_ = xv - arma::dot(u_, xv) * u_;
    inner_.perform_op(w_.memptr(), y);
    arma::vec yv(y, n, false, true);
    yv -= arma::dot(u_, yv) * u_;
  }

 private:
  ldlt_shift_op inner_;
  const arma::vec& u_;
  mutable arma::vec w_;
};

}  // namespace detail

void check_deflated_gap(const arma::vec& values, double scale, double tol_rel) {
  if (values.is_empty()) return;
  const double tol_null = tol_rel * scale;
  if (values(0) < tol_null) {
    std::ostringstream os;
    os << "graph disconnected or degenerate problem: a non-trivial eigenvalue (" << values(0)
       << ") is below the null tolerance " << tol_null;
    throw input_error(os.str());
  }
}

namespace detail {

// The shift-invert path of eigs_sparse_bottom_deflated() (u unit, na = |A|_inf).
static eigen_result shift_invert_deflated(const sp_mat_e& A, const arma::vec& u, double na, long m,
                                          const eig_options& o) {
  const long n = A.rows();
  const double sigma = -o.shift_eps * detail::shift_scale(detail::sparse_trace(A), n);
  detail::deflated_shift_op op(A, u);
  op.set_shift(sigma);  // factorise once; reused by the retry
  // Dense fallback: A + c u u' with c above the spectrum moves the null pair
  // to the top, so the bottom m pairs are the non-trivial ones.
  auto dense = [&]() {
    arma::mat Ad = detail::sparse_to_dense(A);
    Ad += (na + 1.0) * (u * u.t());
    return eig_dense(0.5 * (Ad + Ad.t()), eig_which::bottom, m);
  };
  eigen_result res = detail::iterate_with_retry(
      n, m, o,
      [&](long ncv) { return detail::spectra_shift_invert(op, m, ncv, sigma, o.maxit, o.tol); },
      dense, "spectra_shift_invert_deflated", true);
  res.shift = sigma;
  return res;
}

}  // namespace detail

namespace detail {

// own: null, or A itself, which the LOBPCG route may then renumber during the
// solve (restored before it returns)
static eigen_result bottom_deflated(const sp_mat_e& A, sp_mat_e* own, const arma::vec& null_vec, long m,
                                    const eig_options& o) {
  detail::check_sparse(A, "the matrix");
  const long n = A.rows();
  if (m < 1 || m > n - 2) throw input_error("the number of eigenpairs must lie in [1, n - 2]");
  if (long(null_vec.n_elem) != n) {
    throw input_error("the null vector and the matrix have incompatible dimensions");
  }
  if (!(o.shift_eps > 0)) throw input_error("`shift_eps` must be positive");
  const double nv = arma::norm(null_vec);
  if (!(nv > 0) || !null_vec.is_finite()) throw input_error("the null vector must be finite and non-zero");
  const arma::vec u = null_vec / nv;
  const double na = detail::sparse_norm_inf(A);
  {
    Eigen::Map<const Eigen::VectorXd> ue(u.memptr(), n);
    const double au = (A * ue).norm();
    if (au > 1e-8 * (na > 0 ? na : 1.0)) {
      std::ostringstream os;
      os << "the deflated vector is not a null vector of the matrix (|A u| = " << au << ")";
      throw input_error(os.str());
    }
  }
  eigen_result res;
  const deflated_choice choice = choose_deflated_solver(A, o);
  const bool lobpcg = choice.lobpcg;
  if (lobpcg) {
    lobpcg_options lo;
    lo.maxit = o.maxit;
    lo.tol = o.lobpcg_tol;
    res = own ? lobpcg_bottom_deflated_in_place(*own, u, m, lo) : lobpcg_bottom_deflated(A, u, m, lo);
  } else {
    const spd_symbolic_scope scope(choice.symbolic.get());
    res = detail::shift_invert_deflated(A, u, na, m, o);
  }
  // exact orthogonality to u (the iterates are orthogonal to rounding)
  for (arma::uword j = 0; j < res.vectors.n_cols; ++j) {
    arma::vec v = res.vectors.col(j);
    v -= arma::dot(u, v) * u;
    res.vectors.col(j) = v / arma::norm(v);
  }
  fix_signs(res.vectors);
  res.note = join_notes(choice.note, res.note);
  res.residual = detail::residual_sparse(A, res);
  if (!(res.residual <= 1e-6)) {
    std::ostringstream os;
    os << "the deflated " << (lobpcg ? "LOBPCG" : "shift-invert") << " solve returned eigenpairs with relative residual "
       << res.residual << " (above 1e-6)";
    throw convergence_error(os.str());
  }
  return res;
}

}  // namespace detail

namespace {

// The principal submatrices of A on the first m / 2 and m rows reached by a
// breadth-first search from row 0 (A symmetric; fewer rows when that
// component is smaller): patches of the graph whose factorisation grows as
// that of the whole matrix does with its size.
std::pair<sp_mat_e, sp_mat_e> bfs_patches(const sp_mat_e& A, long m) {
  const long n = A.rows();
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(m));
  {
    std::vector<char> mark(static_cast<std::size_t>(n), 0);
    sp_mat_e compressed;
    const sp_mat_e* G = &A;
    if (!A.isCompressed()) {
      compressed = A;
      compressed.makeCompressed();
      G = &compressed;
    }
    breadth_first(G->outerIndexPtr(), G->innerIndexPtr(), 0, mark, order, m);
  }
  std::vector<int> at(static_cast<std::size_t>(n), -1);
  for (std::size_t r = 0; r < order.size(); ++r) at[static_cast<std::size_t>(order[r])] = static_cast<int>(r);
  auto patch = [&](long size) {
    std::vector<Eigen::Triplet<double>> t;
    for (long col = 0; col < size; ++col) {
      for (sp_mat_e::InnerIterator it(A, order[col]); it; ++it) {
        const int r = at[it.row()];
        if (r >= 0 && r < size) t.emplace_back(r, static_cast<int>(col), it.value());
      }
    }
    sp_mat_e P(size, size);
    P.setFromTriplets(t.begin(), t.end());
    P.makeCompressed();
    return P;
  };
  const long mm = static_cast<long>(order.size());
  return {patch(mm / 2), patch(mm)};
}

}  // namespace

deflated_choice choose_deflated_solver(const sp_mat_e& A, const eig_options& o, bool keep_analysis) {
  deflated_choice c;
  if (o.deflated != deflated_solver::automatic) {
    c.lobpcg = o.deflated == deflated_solver::lobpcg;
    return c;
  }
  const long n = A.rows();
  const spd_fill_estimator est = spd_fill_estimator_fn();
  std::string screen_note;
  if (n >= o.lobpcg_min_n) {
    // the analysis of the whole matrix would cost a fair share of LOBPCG's
    // time when LOBPCG wins: first the analyses of two patches, whose
    // flops per nonzero grow with their size as the whole matrix's do
    c.lobpcg = true;
    if (est == nullptr || o.screen_n <= 0) return c;
    if (o.screen_n < n) {
      const auto patches = bfs_patches(A, o.screen_n);
      const sp_mat_e& P1 = patches.first;
      const sp_mat_e& P2 = patches.second;
      double lnz1 = 0.0, fl1 = 0.0, lnz2 = 0.0, fl2 = 0.0;
      if (P1.rows() < 500 || 2 * P2.rows() < o.screen_n || !est(P1, &lnz1, &fl1, nullptr) ||
          !est(P2, &lnz2, &fl2, nullptr)) {
        c.note = "automatic choice: LOBPCG (no patch of the graph could be analysed)";
        return c;
      }
      const double r1 = fl1 / static_cast<double>(P1.nonZeros());
      const double r2 = fl2 / static_cast<double>(P2.nonZeros());
      double a = std::log(r2 / r1) / std::log(static_cast<double>(P2.rows()) / static_cast<double>(P1.rows()));
      if (!std::isfinite(a)) a = 3.0;
      a = std::min(3.0, std::max(0.0, a));
      const double pred = r2 * std::pow(static_cast<double>(n) / static_cast<double>(P2.rows()), a);
      std::ostringstream os;
      os.precision(3);
      os << "automatic choice: the analyses of breadth-first patches of " << P1.rows() << " and " << P2.rows()
         << " rows predict " << r1 << " and " << r2 << " flops per nonzero, about " << pred << " at " << n
         << " rows";
      if (!(pred <= o.screen_margin * o.lobpcg_flops_per_nnz)) {
        os << " (above " << o.screen_margin * o.lobpcg_flops_per_nnz << "): LOBPCG";
        c.note = os.str();
        return c;
      }
      screen_note = os.str() + ", so the whole matrix was analysed";
    }
    c.lobpcg = false;
  } else if (n < o.fill_min_n) {
    return c;
  }
  double lnz = 0.0, fl = 0.0;
  std::shared_ptr<spd_symbolic> analysis;
  if (est == nullptr || !est(A, &lnz, &fl, keep_analysis ? &analysis : nullptr)) {
    c.lobpcg = n >= o.lobpcg_min_n;  // by size, as without an estimate
    return c;
  }
  const double nnz = static_cast<double>(A.nonZeros());
  const double ratio = fl / nnz;
  const double bytes = o.factor_bytes_per_nnz * lnz;
  const bool too_big = o.factor_memory > 0 && bytes > o.factor_memory;
  c.lobpcg = ratio > o.lobpcg_flops_per_nnz || too_big;
  if (!c.lobpcg) c.symbolic = std::move(analysis);
  std::ostringstream os;
  os.precision(3);
  os << (screen_note.empty() ? "automatic choice: " : "") << "the sparse factorisation would hold " << lnz << " nonzeros (about " << bytes / 1e9
     << " GB) and cost " << fl << " flops, " << ratio << " per nonzero of the matrix (LOBPCG above "
     << o.lobpcg_flops_per_nnz;
  if (o.factor_memory > 0) os << " or above " << o.factor_memory / 1e9 << " GB";
  os << "): " << (c.lobpcg ? "LOBPCG" : "shift-invert");
  c.note = join_notes(screen_note, os.str());
  return c;
}

eigen_result eigs_sparse_bottom_deflated(const sp_mat_e& A, const arma::vec& null_vec, long m,
                                         const eig_options& o) {
  return detail::bottom_deflated(A, nullptr, null_vec, m, o);
}

eigen_result eigs_sparse_bottom_deflated_in_place(sp_mat_e& A, const arma::vec& null_vec, long m,
                                                  const eig_options& o) {
  return detail::bottom_deflated(A, &A, null_vec, m, o);
}

}  // namespace manifoldOOS
