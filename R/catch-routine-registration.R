# This dummy function definition is included with the package so that
# Rcpp::compileAttributes() (through tools::package_native_routine_registration_skeleton())
# registers the 'run_testthat_tests' routine of the C++ unit tests
# (src/test-runner.cpp, tests/testthat/test-cpp.R).
(function() {
  .Call("run_testthat_tests", FALSE, PACKAGE = "manifoldOOS")
})
