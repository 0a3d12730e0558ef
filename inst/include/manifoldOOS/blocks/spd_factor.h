// A sparse symmetric positive definite factorisation supplied from outside
// the R-free core. The shift-invert solvers of eigen_sparse.cpp factorise
// A - sigma B once and then solve with the factor at every Lanczos step; by
// default they use Eigen's simplicial LDL' (AMD ordering). A host may register
// a faster factorisation here: the R glue registers CHOLMOD's supernodal
// Cholesky through the Matrix package's C interface (BLAS-3 on dense
// supernodes; about half the factorisation time of the simplicial LDL' on
// kNN-graph Laplacians and LTSA/LLE alignment matrices at 10^6 points).
//
// The backend may decline (return nullptr), then the core uses Eigen's LDL'.
// It also returns nullptr when M is not positive definite: the core then
// factorises with Eigen to count the non-positive pivots for its message, so
// both paths report the same error.
#ifndef MANIFOLDOOS_SPD_FACTOR_H
#define MANIFOLDOOS_SPD_FACTOR_H

#include <manifoldOOS/core/eigen_sparse.h>

#include <memory>

namespace manifoldOOS {

class spd_factor {
 public:
  virtual ~spd_factor() = default;
  // x = M^{-1} b for one right-hand side of length n (b and x do not alias).
  virtual void solve(const double* b, double* x) const = 0;
};

// The result of a symbolic analysis (the fill-reducing ordering and the
// factor's structure), kept so that the factorisation which follows the
// analysis need not repeat it. Opaque to the core; the backend that made it
// reads it.
class spd_symbolic {
 public:
  virtual ~spd_symbolic() = default;
};

// M: compressed, column-major, symmetric with both triangles stored (the
// backend may read only the lower one). hint: null, or an analysis made by
// the registered estimator; the backend uses it only when it was made for
// M's pattern (and analyses M itself otherwise), so the factor is the same
// with or without it.
using spd_factor_maker = std::unique_ptr<spd_factor> (*)(const Eigen::SparseMatrix<double>& M, spd_symbolic* hint);

// Registers (nullptr: removes) the backend used by every later factorisation.
void set_spd_factor_backend(spd_factor_maker maker);
spd_factor_maker spd_factor_backend();

// Predicted cost of factorising a matrix with M's pattern, from a symbolic
// analysis (fill-reducing ordering and column counts; no numeric work): the
// nonzeros of the Cholesky factor and the floating-point operations of the
// numeric factorisation. Returns false when it cannot say. keep: null, or
// where to store the analysis for a later factorisation (see
// spd_symbolic_scope). The R glue registers CHOLMOD's analysis (AMD ordering).
using spd_fill_estimator = bool (*)(const Eigen::SparseMatrix<double>& M, double* lnz, double* flops,
                                    std::shared_ptr<spd_symbolic>* keep);
void set_spd_fill_estimator(spd_fill_estimator f);
spd_fill_estimator spd_fill_estimator_fn();

// While a scope lives, every factorisation on this thread is offered its
// analysis as the hint (scopes nest; the innermost wins). The solver that
// predicted the cost of a factorisation opens one around the solve that
// makes it, so the analysis runs once.
class spd_symbolic_scope {
 public:
  explicit spd_symbolic_scope(spd_symbolic* s);
  ~spd_symbolic_scope();
  spd_symbolic_scope(const spd_symbolic_scope&) = delete;
  spd_symbolic_scope& operator=(const spd_symbolic_scope&) = delete;

 private:
  spd_symbolic* prev_;
};
spd_symbolic* current_spd_symbolic();

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_SPD_FACTOR_H
