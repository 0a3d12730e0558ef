// CHOLMOD's supernodal Cholesky (through the Matrix package's C interface)
// registered as the core's external sparse SPD factorisation (see
// <manifoldOOS/blocks/spd_factor.h>). The shift-invert eigen-solvers of LE,
// LTSA, LLE and every other sparse bottom-eigenpair problem factorise with
// it. options(manifoldOOS.sparse_cholesky =):
//   "cholmod" (default): CHOLMOD's ordering (AMD) and supernodal analysis,
//     the numbers and the solves by the package's threaded supernodal code
//     with Eigen's dense kernels (glue_cholmod_super.h);
//   "cholmod_blas": CHOLMOD's own numeric factorisation and solves (the BLAS
//     R was built with);
//   "eigen": Eigen's simplicial LDL' (the first path).
#include <cholmod.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include <manifoldOOS/blocks/spd_factor.h>
#include <manifoldOOS/core/common.h>

#include "glue_cholmod_super.h"

#define R_NO_REMAP
#include <Rinternals.h>

namespace {

// symbolic analyses run so far (read by the tests through .mo_cholmod_analyses())
std::atomic<long> g_analyses{0};
// of which handed back to the caller with a copy of the pattern, for a
// factorisation (read through .mo_cholmod_kept())
std::atomic<long> g_kept{0};

// CHOLMOD reports through Common->status; Matrix's default handler would
// raise an R error (a longjmp through C++ frames), so it is replaced.
extern "C" void quiet_cholmod_handler(int, const char*, int, const char*) {}

// options(manifoldOOS.sparse_cholesky = "cholmod" (default) | "cholmod_blas" | "eigen")
enum class chol_backend { cholmod, cholmod_blas, eigen };

chol_backend selected_backend() {
  SEXP opt = Rf_GetOption1(Rf_install("manifoldOOS.sparse_cholesky"));
  if (opt == R_NilValue) return chol_backend::cholmod;
  if (TYPEOF(opt) == STRSXP && XLENGTH(opt) == 1 && STRING_ELT(opt, 0) != NA_STRING) {
    const char* v = CHAR(STRING_ELT(opt, 0));
    if (std::strcmp(v, "cholmod") == 0) return chol_backend::cholmod;
    if (std::strcmp(v, "cholmod_blas") == 0) return chol_backend::cholmod_blas;
    if (std::strcmp(v, "eigen") == 0) return chol_backend::eigen;
  }
  throw manifoldOOS::input_error(
      "the option `manifoldOOS.sparse_cholesky` must be \"cholmod\", \"cholmod_blas\" or \"eigen\"");
}

// options(manifoldOOS.threads) as the fits use it (0 or unset: all cores)
int selected_threads() {
  SEXP opt = Rf_GetOption1(Rf_install("manifoldOOS.threads"));
  int t = 0;
  if ((TYPEOF(opt) == INTSXP || TYPEOF(opt) == REALSXP) && XLENGTH(opt) == 1) {
    const double v = Rf_asReal(opt);
    if (std::isfinite(v) && v >= 1) t = static_cast<int>(v);
  }
  return manifoldOOS::resolve_threads(t);
}

// M (compressed, symmetric) as CHOLMOD's view of its lower triangle, without
// a copy.
cholmod_sparse cholmod_view(const Eigen::SparseMatrix<double>& M) {
  cholmod_sparse A;
  std::memset(&A, 0, sizeof(A));
  A.nrow = A.ncol = static_cast<std::size_t>(M.rows());
  A.nzmax = static_cast<std::size_t>(M.nonZeros());
  A.p = const_cast<int*>(M.outerIndexPtr());
  A.i = const_cast<int*>(M.innerIndexPtr());
  A.x = const_cast<double*>(M.valuePtr());
  A.stype = -1;  // symmetric, lower triangle used
  A.itype = CHOLMOD_INT;
  A.xtype = CHOLMOD_REAL;
  A.dtype = CHOLMOD_DOUBLE;
  A.sorted = 1;
  A.packed = 1;
  return A;
}

class cholmod_spd_factor : public manifoldOOS::spd_factor {
 public:
  cholmod_spd_factor() {
    M_R_cholmod_start(&c_);
    started_ = true;
    c_.error_handler = quiet_cholmod_handler;
    c_.supernodal = CHOLMOD_SUPERNODAL;
    c_.final_ll = 1;
    c_.quick_return_if_not_posdef = 1;
  }
  ~cholmod_spd_factor() override {
    if (L_ != nullptr) M_cholmod_free_factor(&L_, &c_);
    if (started_) M_cholmod_finish(&c_);
  }
  cholmod_spd_factor(const cholmod_spd_factor&) = delete;
  cholmod_spd_factor& operator=(const cholmod_spd_factor&) = delete;

  // false when the matrix is not positive definite or CHOLMOD failed.
  // analysed: null, or CHOLMOD's analysis of M's pattern, of which the
  // factor takes ownership (the analysis is then not repeated).
  bool factorise(const Eigen::SparseMatrix<double>& M, bool own_numeric, int threads, cholmod_factor* analysed) {
    n_ = static_cast<std::size_t>(M.rows());
    cholmod_sparse A = cholmod_view(M);
    if (analysed == nullptr) ++g_analyses;
    L_ = analysed != nullptr ? analysed : M_cholmod_analyze(&A, &c_);
    if (L_ == nullptr || c_.status < CHOLMOD_OK) return false;
    if (own_numeric && L_->is_super &&
        M_cholmod_change_factor(CHOLMOD_REAL, TRUE, TRUE, TRUE, TRUE, L_, &c_) &&
        c_.status == CHOLMOD_OK) {
      const int r = own_.factorize(M, L_, threads);
      if (r == 1) {
        L_->minor = n_;
        own_ok_ = true;
        return true;
      }
      if (r == 0) return false;
    }
    const int ok = M_cholmod_factorize(&A, L_, &c_);
    return ok && c_.status == CHOLMOD_OK && L_->minor == n_;
  }

  void solve(const double* b, double* x) const override {
    if (own_ok_) {
      own_.solve(b, x);
      return;
    }
    cholmod_dense B;
    std::memset(&B, 0, sizeof(B));
    B.nrow = n_;
    B.ncol = 1;
    B.nzmax = n_;
    B.d = n_;
    B.x = const_cast<double*>(b);
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    cholmod_dense* X = M_cholmod_solve(CHOLMOD_A, L_, &B, &c_);
    if (X == nullptr) throw manifoldOOS::error("the CHOLMOD solve failed (out of memory?)");
    std::memcpy(x, X->x, n_ * sizeof(double));
    M_cholmod_free_dense(&X, &c_);
  }

 private:
  mutable cholmod_common c_;
  cholmod_factor* L_ = nullptr;
  std::size_t n_ = 0;
  bool started_ = false;
  mo_supernodal_factor own_;  // the package's numeric factor (when it ran)
  bool own_ok_ = false;
};

// CHOLMOD's symbolic analysis of one pattern, kept for the factorisation
// that follows the prediction (see spd_symbolic_scope), with a copy of the
// pattern it was made for.
class cholmod_symbolic : public manifoldOOS::spd_symbolic {
 public:
  cholmod_symbolic(const Eigen::SparseMatrix<double>& M, cholmod_factor* L)
      : L_(L),
        p_(M.outerIndexPtr(), M.outerIndexPtr() + M.outerSize() + 1),
        i_(M.innerIndexPtr(), M.innerIndexPtr() + M.nonZeros()) {}
  ~cholmod_symbolic() override {
    if (L_ != nullptr) {
      cholmod_common c;
      M_R_cholmod_start(&c);
      c.error_handler = quiet_cholmod_handler;
      M_cholmod_free_factor(&L_, &c);
      M_cholmod_finish(&c);
    }
  }
  cholmod_symbolic(const cholmod_symbolic&) = delete;
  cholmod_symbolic& operator=(const cholmod_symbolic&) = delete;

  // The analysis, handed over once, when it was made for M's pattern; null
  // otherwise.
  cholmod_factor* take_for(const Eigen::SparseMatrix<double>& M) {
    if (L_ == nullptr || !M.isCompressed() || static_cast<std::size_t>(M.outerSize()) + 1 != p_.size() ||
        static_cast<std::size_t>(M.nonZeros()) != i_.size() ||
        !std::equal(p_.begin(), p_.end(), M.outerIndexPtr()) || !std::equal(i_.begin(), i_.end(), M.innerIndexPtr()))
      return nullptr;
    cholmod_factor* L = L_;
    L_ = nullptr;
    return L;
  }

 private:
  cholmod_factor* L_;
  std::vector<int> p_, i_;
};

std::unique_ptr<manifoldOOS::spd_factor> make_cholmod_factor(const Eigen::SparseMatrix<double>& M,
                                                             manifoldOOS::spd_symbolic* hint) {
  const chol_backend b = selected_backend();
  if (b == chol_backend::eigen) return nullptr;
  std::unique_ptr<cholmod_spd_factor> f(new cholmod_spd_factor());
  cholmod_factor* analysed = nullptr;
  if (auto* sym = dynamic_cast<cholmod_symbolic*>(hint)) analysed = sym->take_for(M);
  if (!f->factorise(M, b == chol_backend::cholmod, selected_threads(), analysed)) return nullptr;
  return f;
}

// CHOLMOD's symbolic analysis alone (the ordering and the supernodal column
// counts, as factorise() would compute them): predicted nnz(L) and flops.
bool cholmod_fill_estimate(const Eigen::SparseMatrix<double>& M, double* lnz, double* flops,
                           std::shared_ptr<manifoldOOS::spd_symbolic>* keep) {
  cholmod_common c;
  M_R_cholmod_start(&c);
  c.error_handler = quiet_cholmod_handler;
  c.supernodal = CHOLMOD_SUPERNODAL;
  cholmod_sparse A = cholmod_view(M);
  ++g_analyses;
  cholmod_factor* L = M_cholmod_analyze(&A, &c);
  const bool ok = L != nullptr && c.status >= CHOLMOD_OK && c.lnz > 0 && c.fl > 0;
  if (ok) {
    *lnz = c.lnz;
    *flops = c.fl;
    if (keep != nullptr && M.isCompressed()) {
      *keep = std::make_shared<cholmod_symbolic>(M, L);
      L = nullptr;
      ++g_kept;
    }
  }
  if (L != nullptr) M_cholmod_free_factor(&L, &c);
  M_cholmod_finish(&c);
  return ok;
}

struct register_cholmod {
  register_cholmod() {
    manifoldOOS::set_spd_factor_backend(&make_cholmod_factor);
    manifoldOOS::set_spd_fill_estimator(&cholmod_fill_estimate);
  }
};
const register_cholmod registration;

}  // namespace

long mo_cholmod_analyses() { return g_analyses.load(); }
long mo_cholmod_kept() { return g_kept.load(); }
