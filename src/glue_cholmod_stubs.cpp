// The Matrix package's C entry points to its CHOLMOD (R_GetCCallable stubs),
// compiled once for the whole shared object; used by glue_cholmod.cpp.
#include <Matrix_stubs.c>
