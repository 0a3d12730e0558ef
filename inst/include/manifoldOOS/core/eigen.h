// Eigen for the package: every header of the package (and of the glue)
// includes Eigen through this file or eigen_sparse.h next to it, never
// directly.
//
// Eigen's own headers, compiled with -Wall, make GCC and clang warn about
// their SIMD packet types ("ignoring attributes on template argument",
// -Wignored-attributes) wherever a template is instantiated. The warnings
// are about Eigen, not about the package, and would bury the package's own
// warnings. Diagnostic pragmas work by source location, so the warnings of
// Eigen's lines stay silenced when the templates are instantiated later in
// the package's code (the package's own lines keep every warning). The
// include guards of Eigen make later direct includes no-ops, so the first
// include of each Eigen module in a translation unit must come through here.
#ifndef MANIFOLDOOS_CORE_EIGEN_H
#define MANIFOLDOOS_CORE_EIGEN_H

#include <manifoldOOS/core/diagnostics.h>

MO_SILENCE_THIRD_PARTY_BEGIN
#include <Eigen/Core>
#include <Eigen/Dense>
MO_SILENCE_THIRD_PARTY_END

#endif  // MANIFOLDOOS_CORE_EIGEN_H
