# The C++ unit tests of the core's building blocks (src/test-blocks.cpp),
# compiled into the package and run through testthat's Catch support.
# testthat reads the Catch results with xml2
if (requireNamespace("xml2", quietly = TRUE)) run_cpp_tests("manifoldOOS")
