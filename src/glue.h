// Shared glue helpers: include order, interrupt wiring, exception mapping.
// Every glue file includes this header first. A glue file that also needs
// Eigen/Spectra types defines MO_GLUE_EIGEN before including it.
#ifndef MANIFOLDOOS_GLUE_H
#define MANIFOLDOOS_GLUE_H

#include <manifoldOOS/core/diagnostics.h>

// The third-party headers are included with their own warnings silenced
// (see manifoldOOS/core/eigen.h); the package's code keeps all its warnings.
MO_SILENCE_THIRD_PARTY_BEGIN
#ifdef MO_GLUE_EIGEN
// Both forward headers must precede Rcpp.h, which RcppArmadillo.h includes
// after its own forward header. Going through RcppArmadillo.h (rather than
// its parts) lets a later #include <RcppArmadillo.h> in the same translation
// unit, as in RcppExports.cpp inside src/unity_blocks.cpp, be a no-op.
#include <RcppEigenForward.h>
#include <RcppArmadillo.h>
#include <RcppEigenWrap.h>
#else
#include <RcppArmadillo.h>
#endif
MO_SILENCE_THIRD_PARTY_END

#include <manifoldOOS/core/common.h>

// Wrap the body of every exported glue function in MO_TRY { ... } MO_CATCH.
// manifoldOOS::interrupted becomes an R interrupt; other core exceptions are
// forwarded by Rcpp with their C++ class name as the condition class, which
// the R side (R/core.R) maps to the package's condition classes.
// An R error signalled while polling (e.g. a setTimeLimit() limit) stops the
// core like an interrupt and comes back as an R error.
bool mo_take_poll_error();
#define MO_TRY try
#define MO_CATCH                                                                  \
  catch (const manifoldOOS::interrupted&) {                                       \
    if (mo_take_poll_error())                                                     \
      throw std::runtime_error(                                                   \
          "stopped: R signalled an error (e.g. a time limit set with setTimeLimit()) " \
          "while the computation polled for interrupts");                        \
    throw Rcpp::internal::InterruptedException();                                 \
  }

#endif
