# The C++ unit tests of the core's building blocks (src/test-blocks.cpp),
# compiled into the package and run through testthat's Catch support.
run_cpp_tests("manifoldOOS")
