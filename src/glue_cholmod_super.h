// The package's numeric supernodal Cholesky on CHOLMOD's symbolic analysis
// (glue_cholmod_super.cpp), used by glue_cholmod.cpp.
//
// CHOLMOD (from the Matrix package) calls the BLAS R was built with for its
// dense supernode updates; with R's reference BLAS these run at a few GFlop/s
// on one core. This factorisation keeps CHOLMOD's ordering, supernodes and
// factor layout (so cholmod_solve() uses the result unchanged) and computes
// the numbers with Eigen's blocked dense kernels, the independent subtrees of
// the supernodal elimination tree on `threads` threads. The factor is the
// same for every number of threads (fixed order of the updates); it differs
// from CHOLMOD's own at rounding level.
#ifndef MANIFOLDOOS_GLUE_CHOLMOD_SUPER_H
#define MANIFOLDOOS_GLUE_CHOLMOD_SUPER_H

#include <cholmod.h>

#include <manifoldOOS/core/eigen_sparse.h>

#include <memory>

class mo_supernodal_factor {
 public:
  mo_supernodal_factor();
  ~mo_supernodal_factor();
  mo_supernodal_factor(const mo_supernodal_factor&) = delete;
  mo_supernodal_factor& operator=(const mo_supernodal_factor&) = delete;

  // M: the matrix CHOLMOD analysed (compressed, symmetric, both triangles);
  // L: its supernodal factor after cholmod_analyze() and
  // cholmod_change_factor() to a numeric supernodal LL' (values allocated).
  // Fills L->x (the factor stays usable by cholmod_solve()). Returns 1 on
  // success, 0 when M is not positive definite, -1 when L does not have the
  // expected form (the caller then uses cholmod_factorize()). `threads`
  // threads factorise independent subtrees; the result does not depend on it.
  int factorize(const Eigen::SparseMatrix<double>& M, cholmod_factor* L, int threads);

  // x = M^{-1} b (b and x of length n, not aliased) with the factor of the
  // last successful factorize(), whose L must still be alive: forward and
  // back substitution over the same subtrees on the same threads (the
  // result does not depend on their number either).
  void solve(const double* b, double* x) const;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

#endif  // MANIFOLDOOS_GLUE_CHOLMOD_SUPER_H
