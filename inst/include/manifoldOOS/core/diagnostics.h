// Silencing the warnings of third-party headers (Eigen, RcppEigen, Spectra)
// around their #include lines, portably: GCC and clang both read
// `#pragma GCC diagnostic`; other compilers skip the pragmas.
// -Wignored-attributes: Eigen's SIMD packet types as template arguments.
// -Wunknown-warning-option (clang) / -Wpragmas (GCC): a compiler that does not
// know one of the names above does not warn about it.
#ifndef MANIFOLDOOS_CORE_DIAGNOSTICS_H
#define MANIFOLDOOS_CORE_DIAGNOSTICS_H

// RcppEigen's copy of Eigen no longer pushes the diagnostic state in
// DisableStupidWarnings.h but still pops it in ReenableStupidWarnings.h;
// every such pop would undo the push below ("pragma diagnostic pop could not
// pop", and the warnings of the rest of Eigen come back). This macro, which
// Eigen defines for the purpose, turns those pops off. It must be defined
// before the first Eigen header, so every Eigen include goes through here.
#ifndef EIGEN_PERMANENTLY_DISABLE_STUPID_WARNINGS
#define EIGEN_PERMANENTLY_DISABLE_STUPID_WARNINGS
#endif

#if defined(__clang__)
#define MO_SILENCE_THIRD_PARTY_BEGIN                                         \
  _Pragma("clang diagnostic push")                                           \
  _Pragma("clang diagnostic ignored \"-Wunknown-warning-option\"")           \
  _Pragma("clang diagnostic ignored \"-Wignored-attributes\"")               \
  _Pragma("clang diagnostic ignored \"-Wunknown-pragmas\"")
#define MO_SILENCE_THIRD_PARTY_END _Pragma("clang diagnostic pop")
#elif defined(__GNUC__)
#define MO_SILENCE_THIRD_PARTY_BEGIN                                         \
  _Pragma("GCC diagnostic push")                                             \
  _Pragma("GCC diagnostic ignored \"-Wpragmas\"")                            \
  _Pragma("GCC diagnostic ignored \"-Wignored-attributes\"")
#define MO_SILENCE_THIRD_PARTY_END _Pragma("GCC diagnostic pop")
#else
#define MO_SILENCE_THIRD_PARTY_BEGIN
#define MO_SILENCE_THIRD_PARTY_END
#endif

#endif  // MANIFOLDOOS_CORE_DIAGNOSTICS_H
