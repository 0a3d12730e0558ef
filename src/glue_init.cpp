#include "glue.h"
#include <Rinternals.h>

namespace {
void check_interrupt_cb(void*) { R_CheckUserInterrupt(); }
bool r_interrupt_pending() { return R_ToplevelExec(check_interrupt_cb, nullptr) == FALSE; }
}  // namespace

// [[Rcpp::init]]
void manifoldOOS_init(DllInfo* dll) {
  (void)dll;
  manifoldOOS::set_interrupt_hook(&r_interrupt_pending);
}

// Number of OpenMP threads available to the package (1 without OpenMP).
// [[Rcpp::export(.mo_max_threads)]]
int mo_max_threads() { return manifoldOOS::resolve_threads(0); }
