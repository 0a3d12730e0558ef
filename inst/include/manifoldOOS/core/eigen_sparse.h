// Eigen's sparse modules for the package (see eigen.h for why the package
// includes Eigen only through these two files).
#ifndef MANIFOLDOOS_CORE_EIGEN_SPARSE_H
#define MANIFOLDOOS_CORE_EIGEN_SPARSE_H

#include <manifoldOOS/core/eigen.h>

MO_SILENCE_THIRD_PARTY_BEGIN
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>
MO_SILENCE_THIRD_PARTY_END

#endif  // MANIFOLDOOS_CORE_EIGEN_SPARSE_H
