// Build unit: the glue of the building blocks, the quality measures and the
// linear projections, and Rcpp's generated RcppExports.cpp, compiled as one
// translation unit. Every glue translation unit pays about 5 s of compiler
// time for the Rcpp, RcppArmadillo and RcppEigen headers; compiling the glue
// files in three units (unity_*.cpp) instead of nine saves that cost six
// times. The glue files keep their names (Rcpp::compileAttributes() reads
// them) and are listed in UNITY_PARTS in Makevars, so make does not compile
// them on their own. RcppExports.cpp comes last: it opens namespace Rcpp.
#include "glue_blocks.cpp"
#include "glue_quality.cpp"
#include "glue_linear.cpp"
#include "RcppExports.cpp"
