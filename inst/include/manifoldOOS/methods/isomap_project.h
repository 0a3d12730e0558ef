// Kernel of the Isomap out-of-sample map with the triangulation rule
// (landmark MDS, de Silva & Tenenbaum 2004): the geodesic row of a new point
// g(l) = min_r (dist[r] + D(l, idx[r])) over its k nearest training points,
// squared, then y_j = -0.5 * sum_l L#(l, j) * (g(l)^2 - mu(l)). Compiled in
// src/core/methods/isomap_project.cpp.
//
// The landmarks are visited in blocks small enough for the first-level cache;
// within a block each row's min-plus runs in vector registers and the
// projection advances several rows at once (one row per vector lane). Every
// row is still computed by exactly the operations, and in exactly the order,
// of the row-by-row code (min and + are exact; the products and the sums over
// l run in increasing l with separate multiply and add), so the result does
// not depend on the batch, on the instruction set or on the number of threads.
#ifndef MANIFOLDOOS_ISOMAP_PROJECT_H
#define MANIFOLDOOS_ISOMAP_PROJECT_H

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

// Which implementation of isomap_triangulate_rows() runs: the best one the
// CPU supports (automatic), or the portable one (for tests).
enum class isomap_kernel { automatic, portable };

// Triangulated coordinates of `c` new rows. D: m x n geodesic storage
// (column-major, column t = geodesics of training point t); idx/dist: c x k
// neighbour lists (column-major, ld = c, 0-based idx); lsharp_t: m x q
// (column-major); mu: m. Rows are visited in the given `order` (a permutation
// of 0..c-1; rows that share neighbours should be adjacent). Writes
// Y (c x q, column-major, ld = c). Threads over groups of rows.
void isomap_triangulate_rows(const double* D, long m, const int* idx, const double* dist, long c,
                             int k, const double* lsharp_t, const double* mu, int q,
                             const unsigned* order, double* Y, int n_threads,
                             isomap_kernel kernel = isomap_kernel::automatic);

// The implementation isomap_triangulate_rows() uses on this CPU ("avx2" or
// "portable").
const char* isomap_kernel_name();

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_ISOMAP_PROJECT_H
