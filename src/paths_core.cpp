// Dijkstra from a set of sources (R-free core).
#include <manifoldOOS/paths.h>

#include <functional>
#include <limits>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace manifoldOOS {

namespace {

using heap_item = std::pair<double, int>;  // (tentative distance, vertex)

// Single-source Dijkstra into dist (length n), reusing the caller's buffers.
// The binary heap lives in `heap` (a min-heap via std::greater), with lazy
// deletion of stale entries.
void dijkstra_one(const adjacency_view& G, int source, std::vector<double>& dist,
                  std::vector<char>& done, std::vector<heap_item>& heap) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::greater<heap_item> cmp;
  std::fill(dist.begin(), dist.end(), inf);
  std::fill(done.begin(), done.end(), 0);
  heap.clear();
  dist[source] = 0.0;
  heap.emplace_back(0.0, source);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), cmp);
    const heap_item top = heap.back();
    heap.pop_back();
    const int u = top.second;
    if (done[u]) continue;  // stale entry
    done[u] = 1;
    const double du = top.first;
    for (int t = G.adj_ptr[u]; t < G.adj_ptr[u + 1]; ++t) {
      const int v = G.adj_idx[t];
      if (done[v]) continue;
      const double alt = du + G.adj_len[t];
      if (alt < dist[v]) {
        dist[v] = alt;
        heap.emplace_back(alt, v);
        std::push_heap(heap.begin(), heap.end(), cmp);
      }
    }
  }
}

}  // namespace

void dijkstra_multi(const adjacency_view& G, const int* sources, int m, double* out,
                    int n_threads) {
  const int n = G.n;
  if (n < 1) throw input_error("the graph has no vertices.");
  const int nnz = G.adj_ptr[n];
  for (int t = 0; t < nnz; ++t) {
    const double w = G.adj_len[t];
    if (!(w >= 0.0) || w == std::numeric_limits<double>::infinity()) {
      throw input_error("edge lengths must be finite and non-negative for shortest paths.");
    }
    if (G.adj_idx[t] < 0 || G.adj_idx[t] >= n) throw input_error("adjacency index out of range.");
  }
  for (int s = 0; s < m; ++s) {
    if (sources[s] < 0 || sources[s] >= n) {
      throw input_error("source " + std::to_string(sources[s] + 1) + " is not a vertex (n = " +
                        std::to_string(n) + ").");
    }
  }
  const int nt = resolve_threads(n_threads);
  interrupt_flag flag(1);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
  {
    std::vector<double> dist(n);
    std::vector<char> done(n);
    std::vector<heap_item> storage;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int s = 0; s < m; ++s) {
      if (flag.poll(s)) continue;
      dijkstra_one(G, sources[s], dist, done, storage);
      for (int j = 0; j < n; ++j) out[s + static_cast<std::size_t>(j) * m] = dist[j];
    }
  }
  (void)nt;
  flag.rethrow_if_stopped();
}

}  // namespace manifoldOOS
