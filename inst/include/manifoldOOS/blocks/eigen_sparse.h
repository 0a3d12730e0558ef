// Iterative symmetric eigen-solvers (Eigen + Spectra) and the package's single
// eigen entry point eigs_sym().
//
// Every Spectra call of the package lives in src/core/blocks/eigen_sparse.cpp,
// compiled once; this header only declares. Operators defined elsewhere
// (LGRM, the linear projections, MDS) reach Spectra through the
// linear_operator interface below. Two Spectra APIs are
// supported and selected at compile time:
//   * Spectra 0.8.x (shipped by RSpectra): selection rule as a template
//     parameter, operator passed by pointer, sort rule as a compute() argument;
//   * Spectra 1.x: operator passed by reference, selection and sort rules as
//     compute() arguments, CompInfo enum class.
// 1.x is detected by the presence of <Spectra/MatOp/SymShiftInvert.h>.
//
// Problems handled (see eigs_sym() at the end):
//   * bottom m of a sparse PSD matrix: shift-invert around
//     sigma = -shift_eps * trace(A)/n with our own LDL' (AMD ordering) solve;
//   * top m of a sparse symmetric matrix: Lanczos, largest algebraic;
//   * sparse generalised A v = lambda B v: B diagonal by the symmetric
//     reduction D^{-1/2} A D^{-1/2}; general SPD B by the Cholesky reduction
//     B = G G' (never formed: every operator works with the factors);
//   * top m of a large dense symmetric matrix through a matrix-free operator,
//     optionally with implicit double centring H K H;
//   * dense problems below `dense_max_n` (and fallbacks) by eigen_dense.h.
// Settings: ncv = min(n, max(2 nev + 1, 20)), tol = 1e-10, maxit = 1000; on
// non-convergence one retry with ncv doubled, then the dense path when
// n <= fallback_max_n (8000), else convergence_error.
#ifndef MANIFOLDOOS_EIGEN_SPARSE_H
#define MANIFOLDOOS_EIGEN_SPARSE_H

#include <armadillo>
#include <manifoldOOS/core/eigen_sparse.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_dense.h>
#include <manifoldOOS/blocks/spd_factor.h>
#include <manifoldOOS/blocks/spectra_op.h>

namespace manifoldOOS {

using sp_mat_e = Eigen::SparseMatrix<double>;  // column-major, compressed

enum class eig_method { automatic, dense, iterative };

inline constexpr choice<eig_method> eig_method_names[] = {
    {"auto", eig_method::automatic}, {"dense", eig_method::dense},
    {"iterative", eig_method::iterative}, {"sparse", eig_method::iterative}};
inline eig_method parse_eig_method(const std::string& s) {
  return parse_choice(s, eig_method_names, "`method` must be \"auto\", \"dense\" or \"iterative\"");
}

// Solver of the deflated bottom problem (eigen_deflate.h): shift-invert
// Lanczos on a sparse factorisation, or LOBPCG preconditioned by smoothed-
// aggregation AMG (eigen_lobpcg.h), which needs no factorisation. automatic:
// see choose_deflated_solver().
enum class deflated_solver { automatic, shift_invert, lobpcg };

inline constexpr choice<deflated_solver> deflated_solver_names[] = {
    {"auto", deflated_solver::automatic}, {"shift_invert", deflated_solver::shift_invert},
    {"lobpcg", deflated_solver::lobpcg}};
inline deflated_solver parse_deflated_solver(const std::string& s) {
  return parse_choice(s, deflated_solver_names,
                      "`deflated` must be \"auto\", \"shift_invert\" or \"lobpcg\"");
}

struct eig_options {
  eig_method method = eig_method::automatic;
  long dense_max_n = 2000;     // auto: dense LAPACK when n <= dense_max_n
  // auto, top eigenpairs of a dense n x n matrix (MDS, Isomap, KPCA): dense
  // LAPACK only when n <= min(dense_max_n, dense_top_max_n). A full
  // decomposition costs O(n^3) while Lanczos needs a few dozen O(n^2)
  // products (n = 2000: 11.5 s against 1.4 s on this project's machine).
  long dense_top_max_n = 500;
  long fallback_max_n = 8000;  // dense fallback after failed iterations when n <= this
  double shift_eps = 1e-6;     // sigma = -shift_eps * trace/n (never exactly 0)
  double tol = 1e-10;          // Spectra tolerance
  long maxit = 1000;           // Spectra restarts
  long ncv = 0;                // 0: min(n, max(2 nev + 1, 20))
  double ridge = -1.0;         // dense generalised problems, see geig_dense()
  deflated_solver deflated = deflated_solver::automatic;  // eigs_sparse_bottom_deflated()
  long lobpcg_min_n = 100000;  // automatic: LOBPCG + AMG from this many rows on
  double lobpcg_tol = 1e-9;    // LOBPCG: residual norm relative to |A|_inf
  // automatic, from fill_min_n to lobpcg_min_n rows, with a registered fill
  // estimate (spd_factor.h): LOBPCG when the predicted factorisation flops
  // exceed lobpcg_flops_per_nnz times nnz(A), or the predicted factor
  // (factor_bytes_per_nnz bytes per nonzero) would not fit in factor_memory
  // bytes (0: not known)
  long fill_min_n = 20000;
  double lobpcg_flops_per_nnz = 1e4;
  // automatic, from lobpcg_min_n rows on, with a registered fill estimate:
  // the whole matrix is analysed (as between fill_min_n and lobpcg_min_n)
  // only when the analyses of two breadth-first patches of screen_n / 2 and
  // screen_n rows, extrapolated to n rows, predict at most screen_margin
  // times lobpcg_flops_per_nnz; otherwise LOBPCG (screen_n = 0: LOBPCG
  // without a screen)
  long screen_n = 20000;
  double screen_margin = 2.0;
  double factor_memory = 0.0;
  double factor_bytes_per_nnz = 12.0;
};

// The automatic choice of the deflated bottom solver for A (n x n): shift-
// invert below o.fill_min_n rows; from there on, when a fill estimate is
// registered, by the predicted cost and size of the sparse factorisation
// (fill grows fast with the dimension of the data behind a kNN graph: a
// factorisation that is cheap for a low-dimensional manifold costs far more
// than LOBPCG for noisy high-dimensional data), else shift-invert below
// o.lobpcg_min_n rows and LOBPCG from there on. From o.lobpcg_min_n rows
// on the analysis of the whole matrix, which then costs a fair share of a
// LOBPCG solve, is made only after a screen on two patches passes (see
// eig_options::screen_n). `note` says what was predicted
// and chosen. keep_analysis: hand the analysis behind a shift-invert choice
// back (`symbolic`) for the registered factorisation; false when the caller
// factorises by other means (it then holds no copy of the pattern).
struct deflated_choice {
  bool lobpcg = false;
  std::string note;
  // the analysis behind a shift-invert choice, for the factorisation (open
  // an spd_symbolic_scope on it around the solve)
  std::shared_ptr<spd_symbolic> symbolic;
};
deflated_choice choose_deflated_solver(const sp_mat_e& A, const eig_options& o, bool keep_analysis = true);

// One eigenproblem. Matrices are not owned and must outlive the call.
struct sym_problem {
  const arma::mat* A_dense = nullptr;
  const sp_mat_e* A_sparse = nullptr;
  const arma::mat* B_dense = nullptr;
  const sp_mat_e* B_sparse = nullptr;
  bool center = false;  // dense A only: solve for H A H, H = I - 11'/n (implicit)

  static sym_problem dense(const arma::mat& A, bool center = false) {
    sym_problem p;
    p.A_dense = &A;
    p.center = center;
    return p;
  }
  static sym_problem sparse(const sp_mat_e& A) {
    sym_problem p;
    p.A_sparse = &A;
    return p;
  }
  static sym_problem sparse_generalized(const sp_mat_e& A, const sp_mat_e& B) {
    sym_problem p;
    p.A_sparse = &A;
    p.B_sparse = &B;
    return p;
  }
};

// A symmetric linear operator known only through its product y = A x (or,
// for shift-invert, y = (A - sigma I)^{-1} x after set_shift(sigma)). The
// iterative solvers below are compiled once for this interface; operator
// classes of any method are adapted with operator_ref<Op>.
class linear_operator {
 public:
  virtual ~linear_operator() = default;
  virtual long size() const = 0;
  virtual void apply(const double* x, double* y) const = 0;
  virtual void set_shift(double sigma) { (void)sigma; }
};

// Adapts a class with rows(), cols(), a const perform_op(x, y) and (for
// shift-invert) set_shift(sigma) -- the Spectra operator concept -- without
// copying it.
template <class Op>
class operator_ref : public linear_operator {
 public:
  explicit operator_ref(Op& op) : op_(op) {}
  long size() const override { return static_cast<long>(op_.rows()); }
  void apply(const double* x, double* y) const override { op_.perform_op(x, y); }
  void set_shift(double sigma) override { shift(op_, sigma, 0); }

 private:
  template <class O>
  static auto shift(O& o, double s, int) -> decltype(o.set_shift(s), void()) { o.set_shift(s); }
  template <class O>
  static void shift(O&, double, long) {}
  Op& op_;
};

namespace detail {

// Polls for a user interrupt every 16 operator applications.
class op_poller {
 public:
  void tick() const {
    if ((++count_ & 15L) == 0) check_interrupt();
  }

 private:
  mutable long count_ = 0;
};

// Small sparse utilities shared with the methods' own operators.
double sparse_trace(const sp_mat_e& A);
// A V for sparse A and dense V (no copy of V: columns mapped).
arma::mat sparse_times(const sp_mat_e& A, const arma::mat& V);
// Infinity norm: the largest absolute row sum (the 1-norm of a symmetric A).
double sparse_norm_inf(const sp_mat_e& A);
// Positive scale trace/n of a PSD matrix (1 when the trace is 0); throws on a
// negative trace.
double shift_scale(double trace, long n);

}  // namespace detail

// ---- public building blocks ---------------------------------------------------

// Bottom m eigenpairs of a sparse symmetric PSD matrix by shift-invert around
// sigma = -shift_eps * trace(A)/n (LDL' with AMD ordering). Ascending.
eigen_result eigs_sparse_bottom(const sp_mat_e& A, long m, const eig_options& o = eig_options());

// Top m (largest algebraic) eigenpairs of a sparse symmetric matrix. Descending.
eigen_result eigs_sparse_top(const sp_mat_e& A, long m, const eig_options& o = eig_options());

// Top m eigenpairs of a dense symmetric K (or of H K H when `center`) through
// a matrix-free operator; K is never copied. Descending.
eigen_result eigs_dense_top_matfree(const arma::mat& K, long m, bool center,
                                    const eig_options& o = eig_options());

// Top m (largest algebraic) eigenpairs of a symmetric operator known only
// through its product (matrix-free Lanczos with the package's settings,
// retry and dense fallback). `dense` returns the dense solution (top m,
// descending) used as fallback when the iterations fail and
// n <= fallback_max_n, or when m > n - 2. `name` labels the method in the
// result. Descending.
eigen_result eigs_operator_top(const linear_operator& op, long m, const eig_options& o,
                               const std::function<eigen_result()>& dense,
                               const std::string& name);

template <class Op>
eigen_result eigs_operator_top(Op& op, long m, const eig_options& o,
                               const std::function<eigen_result()>& dense,
                               const std::string& name) {
  if (op.cols() != op.rows()) throw input_error("the operator must be square");
  const operator_ref<Op> ref(op);
  return eigs_operator_top(static_cast<const linear_operator&>(ref), m, o, dense, name);
}

// Eigenvalues nearest to `sigma` of the operator whose shift-solve `op`
// provides (op.set_shift(sigma) has been called), by shift-invert Lanczos
// with the package's retry and dense fallback (`dense`, ascending). Ascending.
eigen_result eigs_operator_shift_invert(linear_operator& op, long m, double sigma,
                                        const eig_options& o,
                                        const std::function<eigen_result()>& dense,
                                        const std::string& name);

template <class Op>
eigen_result eigs_operator_shift_invert(Op& op, long m, double sigma, const eig_options& o,
                                        const std::function<eigen_result()>& dense,
                                        const std::string& name) {
  operator_ref<Op> ref(op);
  return eigs_operator_shift_invert(static_cast<linear_operator&>(ref), m, sigma, o, dense, name);
}

// Sparse generalised problem A v = lambda B v, B sparse SPD. Returns
// B-orthonormal eigenvectors. Diagonal B: standard problem on
// D^{-1/2} A D^{-1/2}, v = D^{-1/2} u. General B: Cholesky reduction with
// shift-invert of (A - sigma B) (bottom) or Lanczos on G^{-1} A G^{-T} (top).
eigen_result geigs_sparse(const sp_mat_e& A, const sp_mat_e& B, eig_which which, long m,
                          const eig_options& o = eig_options());

// Largest n for which method = automatic solves a top-eigenpair problem of a
// dense matrix with LAPACK (see eig_options::dense_top_max_n).
inline long dense_top_limit(const eig_options& o) {
  return std::min(o.dense_max_n, o.dense_top_max_n);
}

// ---- the single entry point ----------------------------------------------------

// Bottom/top m (or all) eigenpairs of a symmetric (generalised) problem.
// method = automatic: dense LAPACK when n <= dense_max_n (dense A, top:
// n <= dense_top_limit()), otherwise
//   * sparse A (and B): shift-invert (bottom) / Lanczos (top);
//   * dense A, top:     matrix-free Lanczos (implicit centring when asked);
//   * dense A, bottom or all, dense generalised pairs: dense LAPACK always.
eigen_result eigs_sym(const sym_problem& P, eig_which which, long m,
                      const eig_options& o = eig_options());

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_EIGEN_SPARSE_H
