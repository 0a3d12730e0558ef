// Shared glue helpers: include order, interrupt wiring, exception mapping.
// Every glue file includes this header first. A glue file that also needs
// Eigen/Spectra types defines MO_GLUE_EIGEN before including it.
#ifndef MANIFOLDOOS_GLUE_H
#define MANIFOLDOOS_GLUE_H

#ifdef MO_GLUE_EIGEN
// Both forward headers must precede Rcpp.h.
#include <RcppArmadillo/interface/RcppArmadilloForward.h>
#include <RcppEigenForward.h>
#include <Rcpp.h>
#include <RcppArmadillo/interface/RcppArmadilloWrap.h>
#include <RcppArmadillo/interface/RcppArmadilloAs.h>
#include <RcppArmadillo/interface/RcppArmadilloSugar.h>
#include <RcppEigenWrap.h>
#else
#include <RcppArmadillo.h>
#endif

#include <manifoldOOS/common.h>

// Wrap the body of every exported glue function in MO_TRY { ... } MO_CATCH.
// manifoldOOS::interrupted becomes an R interrupt; other core exceptions are
// forwarded by Rcpp with their C++ class name as the condition class, which
// the R side (R/core.R) maps to the package's condition classes.
#define MO_TRY try
#define MO_CATCH                                                    \
  catch (const manifoldOOS::interrupted&) {                         \
    throw Rcpp::internal::InterruptedException();                   \
  }

#endif
