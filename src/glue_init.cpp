#include "glue.h"
#include <Rinternals.h>

namespace {
// Polling for interrupts runs R_CheckUserInterrupt() inside R_ToplevelExec(),
// so a user interrupt unwinds only to there (and is reported as pending).
// R_CheckUserInterrupt() can also signal an ordinary R error (for example a
// time limit set with setTimeLimit()); with no handler inside the top-level
// context a non-interactive R session would stop, so such errors are caught
// here, remembered, and re-raised as an R error once the core has unwound.
bool poll_error_seen = false;
SEXP poll_body(void*) {
  R_CheckUserInterrupt();
  return R_NilValue;
}
SEXP poll_error(SEXP, void*) {
  poll_error_seen = true;
  return R_NilValue;
}
void check_interrupt_cb(void*) { R_tryCatchError(poll_body, nullptr, poll_error, nullptr); }
bool r_interrupt_pending() {
  if (R_ToplevelExec(check_interrupt_cb, nullptr) == FALSE) return true;
  return poll_error_seen;
}
}  // namespace

bool mo_take_poll_error() {
  bool seen = poll_error_seen;
  poll_error_seen = false;
  return seen;
}

// [[Rcpp::init]]
void manifoldOOS_init(DllInfo* dll) {
  (void)dll;
  manifoldOOS::set_interrupt_hook(&r_interrupt_pending);
}

// Number of OpenMP threads available to the package (1 without OpenMP).
// [[Rcpp::export(.mo_max_threads)]]
int mo_max_threads() { return manifoldOOS::resolve_threads(0); }
