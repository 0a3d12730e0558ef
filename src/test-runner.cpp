// Runner of the C++ unit tests (testthat's Catch support; see
// tests/testthat/test-cpp.R). Exports the run_testthat_tests routine.
#define TESTTHAT_TEST_RUNNER
#include <testthat.h>
