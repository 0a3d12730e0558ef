// The part of Spectra's operator concept that every operator of the package
// shares: the scalar type and the size of a square n x n operator. An
// operator derives from square_operator and adds a const
// perform_op(x, y) (y = Op x) and, for shift-invert, set_shift(sigma); it
// then serves both Spectra APIs directly and eigs_operator_*() through
// operator_ref (blocks/eigen_sparse.h).
#ifndef MANIFOLDOOS_SPECTRA_OP_H
#define MANIFOLDOOS_SPECTRA_OP_H

#include <manifoldOOS/core/eigen.h>

namespace manifoldOOS {

class square_operator {
 public:
  using Scalar = double;
  explicit square_operator(Eigen::Index n) : n_(n) {}
  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return n_; }

 private:
  Eigen::Index n_;
};

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_SPECTRA_OP_H
