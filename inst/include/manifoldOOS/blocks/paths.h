// Shortest paths on sparse graphs with non-negative edge lengths (a bucket
// queue search, exact: bitwise Dijkstra's distances). R-free core;
// implementation in src/core/blocks/paths.cpp.
#ifndef MANIFOLDOOS_PATHS_H
#define MANIFOLDOOS_PATHS_H

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

// Out-adjacency in compressed form: the out-neighbours of vertex u are
// adj_idx[adj_ptr[u] .. adj_ptr[u+1]-1] with edge lengths adj_len[...].
// For a symmetric CSC matrix W these are simply its column arrays; for a
// directed W (W(i, j) = edge i -> j) pass the column arrays of W^T.
// Stored entries are edges even when their length is 0.
struct adjacency_view {
  int n = 0;
  const int* adj_ptr = nullptr;  // length n + 1
  const int* adj_idx = nullptr;
  const double* adj_len = nullptr;
};

// Geodesic distances from each of the m (0-based) sources to every vertex.
// out: m x n, column-major (out[s + j * m] = distance from sources[s] to j),
// +Inf where unreachable. Sources are processed in parallel (OpenMP over
// sources); each source is computed by one thread in a fixed order, so the
// result does not depend on the number of threads. Throws input_error on a
// negative or non-finite length or an out-of-range index/source.
// Every distance is the smallest, over the paths to the vertex, of the path's
// edge lengths summed from the source in floating point; any exact
// shortest-path search returns it bit for bit, whatever the order in which
// tied vertices are settled.
void dijkstra_multi(const adjacency_view& G, const int* sources, int m, double* out,
                    int n_threads);

// The same written by column: out is n x m, out[j + s * n] = distance from
// sources[s] to j (the m x n result of dijkstra_multi() transposed, bit for
// bit). Each source's distances go straight to their own contiguous column;
// for all sources of a symmetric graph, a caller that symmetrises the result
// anyway (min of the two directions) needs no transposition.
void dijkstra_multi_by_column(const adjacency_view& G, const int* sources, int m, double* out,
                              int n_threads);

// The same with the indexed binary heap (decrease-key) of earlier versions:
// the reference the bucket-queue search is tested against.
void dijkstra_multi_binary_heap(const adjacency_view& G, const int* sources, int m, double* out,
                                int n_threads);

// mind[j] <- min(mind[j], distance from `source` to j) for every vertex j,
// by a Dijkstra that expands only the vertices it brings strictly closer
// (a vertex at least as near to an earlier source cannot carry a shorter path
// to any other vertex). Every lowered entry is bitwise the full Dijkstra's
// distance. Used by the MaxMin landmark selection: the later sources explore
// only their own Voronoi cell. Edge lengths as in dijkstra_multi (not
// re-validated here).
void dijkstra_lower_min(const adjacency_view& G, int source, double* mind);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_PATHS_H
