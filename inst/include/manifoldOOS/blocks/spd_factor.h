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

// M: compressed, column-major, symmetric with both triangles stored (the
// backend may read only the lower one).
using spd_factor_maker = std::unique_ptr<spd_factor> (*)(const Eigen::SparseMatrix<double>& M);

// Registers (nullptr: removes) the backend used by every later factorisation.
void set_spd_factor_backend(spd_factor_maker maker);
spd_factor_maker spd_factor_backend();

// Predicted cost of factorising a matrix with M's pattern, from a symbolic
// analysis (fill-reducing ordering and column counts; no numeric work): the
// nonzeros of the Cholesky factor and the floating-point operations of the
// numeric factorisation. Returns false when it cannot say. The R glue
// registers CHOLMOD's analysis (AMD ordering).
using spd_fill_estimator = bool (*)(const Eigen::SparseMatrix<double>& M, double* lnz, double* flops);
void set_spd_fill_estimator(spd_fill_estimator f);
spd_fill_estimator spd_fill_estimator_fn();

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_SPD_FACTOR_H
