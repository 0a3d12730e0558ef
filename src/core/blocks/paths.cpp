// Dijkstra from a set of sources (R-free core).
#include <manifoldOOS/blocks/paths.h>

#include <limits>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace manifoldOOS {

namespace {

// Indexed binary min-heap of vertices keyed by their tentative distance,
// with decrease-key (at most n entries, no stale duplicates). Ties are
// ordered by vertex index.
class vertex_heap {
 public:
  explicit vertex_heap(int n) : pos_(n, -1) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  void clear() {
    for (int v : heap_) pos_[v] = -1;
    heap_.clear();
  }
  // Insert v or move it up after its key decreased.
  void push_or_decrease(int v, const std::vector<double>& key) {
    int i = pos_[v];
    if (i < 0) {
      i = static_cast<int>(heap_.size());
      heap_.push_back(v);
    }
    sift_up(i, key);
  }
  int pop(const std::vector<double>& key) {
    const int top = heap_[0];
    pos_[top] = -1;
    const int last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) {
      heap_[0] = last;
      pos_[last] = 0;
      sift_down(0, key);
    }
    return top;
  }

 private:
  static bool less(int a, int b, const std::vector<double>& key) {
    return key[a] < key[b] || (key[a] == key[b] && a < b);
  }
  void place(int i, int v) {
    heap_[i] = v;
    pos_[v] = i;
  }
  void sift_up(int i, const std::vector<double>& key) {
    const int v = heap_[i];
    while (i > 0) {
      const int parent = (i - 1) / 2;
      if (!less(v, heap_[parent], key)) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, v);
  }
  void sift_down(int i, const std::vector<double>& key) {
    const int v = heap_[i];
    const int size = static_cast<int>(heap_.size());
    for (;;) {
      int child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && less(heap_[child + 1], heap_[child], key)) ++child;
      if (!less(heap_[child], v, key)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, v);
  }
  std::vector<int> pos_;
  std::vector<int> heap_;
};

// Bucket queue for a label-correcting search (Dial's buckets of width
// `width`): vertex v with tentative distance x waits in bucket
// floor(x / width), buckets are emptied in increasing order, and a vertex whose
// distance drops again (possible only within the current bucket, by an edge
// shorter than the width) is scanned again. Every distance it returns is
// bitwise Dijkstra's (see dijkstra_multi() in paths.h: the result of any exact
// search is the minimum over paths of the floating-point path sums; both
// searches stop at that unique fixed point). The buckets form a ring of
// `n_buckets` (a power of two) > (longest edge) / width + 3, enough for every
// pending entry: an entry pushed while bucket c is emptied has a bucket number
// in [c, c + n_buckets), so the entries found in ring slot b & mask when bucket
// b is emptied all carry bucket number b.
// A bucket holds vertex numbers only; queued[v] is the bucket number of v's
// live entry (-1: none, v was scanned at its current distance). A vertex
// lowered within the bucket it already waits in is not pushed again, and an
// entry whose vertex has moved to a lower bucket since (or was scanned) is
// skipped when it is popped.
struct bucket_ring {
  double inv_width = 1.0;
  std::vector<std::vector<int>> ring;
  std::vector<long> queued;
  // lowered out-neighbours of the vertex being scanned (length: the largest out-degree)
  std::vector<int> cand_v;
  std::vector<double> cand_d;
  void setup(double width, long n_buckets, int n, int max_degree) {
    inv_width = 1.0 / width;
    ring.assign(static_cast<std::size_t>(n_buckets), {});
    queued.assign(static_cast<std::size_t>(n), -1);
    cand_v.assign(static_cast<std::size_t>(max_degree) + 1, 0);
    cand_d.assign(static_cast<std::size_t>(max_degree) + 1, 0.0);
  }
};

// Returns false (the caller then runs the binary heap) when the vertices were
// scanned more than 2 n + 16 times in all: on a graph whose edges are mostly
// far shorter than the bucket width a label-correcting search may rescan
// often, so its cost stays within a small multiple of Dijkstra's.
// dist: length G.n, overwritten with the distances from `source`.
bool dijkstra_one_buckets(const adjacency_view& G, int source, double* dist, bucket_ring& q) {
  const int n = G.n;
  const int* const ptr = G.adj_ptr;
  const int* const adj = G.adj_idx;
  const double* const len = G.adj_len;
  std::fill(dist, dist + n, std::numeric_limits<double>::infinity());
  long* const queued = q.queued.data();
  std::fill(queued, queued + n, -1L);
  int* const cand_v = q.cand_v.data();
  double* const cand_d = q.cand_d.data();
  std::vector<int>* const ring = q.ring.data();
  const double inv_width = q.inv_width;
  const long mask = static_cast<long>(q.ring.size()) - 1;  // the size is a power of two
  dist[source] = 0.0;
  queued[source] = 0;
  ring[0].push_back(source);
  long pending = 1;
  long scans_left = 2L * n + 16;
  for (long b = 0; pending > 0; ++b) {
    std::vector<int>& bucket = ring[b & mask];
    while (!bucket.empty()) {
      const int u = bucket.back();
      bucket.pop_back();
      --pending;
#if defined(__GNUC__) || defined(__clang__)
      // the edge list of the next vertex of the bucket: load it while this one
      // is scanned (the vertices of a bucket lie far apart in memory; a hint only)
      if (!bucket.empty()) {
        const int nx = ptr[bucket.back()];
        __builtin_prefetch(adj + nx);
        __builtin_prefetch(len + nx);
        __builtin_prefetch(len + nx + 8);
      }
#endif
      if (queued[u] != b) continue;  // stale: u waits in a lower bucket or was scanned since
      queued[u] = -1;
      if (--scans_left < 0) {
        for (long c = 0; c <= mask; ++c) ring[c].clear();
        return false;
      }
      const double du = dist[u];
      // relax without a data-dependent branch (whether an edge lowers its head
      // is hard to predict), collecting the lowered heads; then queue them
      int cnt = 0;
      const int t_end = ptr[u + 1];
      for (int t = ptr[u]; t < t_end; ++t) {
        const int v = adj[t];
        const double alt = du + len[t];
        const double dv = dist[v];
        const bool lower = alt < dv;
        dist[v] = lower ? alt : dv;
        cand_v[cnt] = v;
        cand_d[cnt] = alt;
        cnt += lower ? 1 : 0;
      }
      for (int c = 0; c < cnt; ++c) {
        const int v = cand_v[c];
        const long nb = static_cast<long>(cand_d[c] * inv_width);
        if (queued[v] != nb) {
          queued[v] = nb;
          ring[nb & mask].push_back(v);
          ++pending;
        }
      }
    }
  }
  return true;
}

// Single-source Dijkstra into dist (length n), reusing the caller's buffers.
void dijkstra_one(const adjacency_view& G, int source, std::vector<double>& dist,
                  vertex_heap& heap) {
  std::fill(dist.begin(), dist.end(), std::numeric_limits<double>::infinity());
  heap.clear();
  dist[source] = 0.0;
  heap.push_or_decrease(source, dist);
  while (!heap.empty()) {
    const int u = heap.pop(dist);
    const double du = dist[u];
    // No "settled" test is needed: a settled v has dist[v] <= du <= du + len
    // (lengths are non-negative and rounding of a sum of non-negative numbers
    // is monotone), so it can never be relaxed again. Skipping the test saves
    // a load and a hard-to-predict branch per edge.
    for (int t = G.adj_ptr[u]; t < G.adj_ptr[u + 1]; ++t) {
      const int v = G.adj_idx[t];
      const double alt = du + G.adj_len[t];
      if (alt < dist[v]) {
        dist[v] = alt;
        heap.push_or_decrease(v, dist);
      }
    }
  }
}

}  // namespace

void dijkstra_lower_min(const adjacency_view& G, int source, double* mind) {
  const int n = G.n;
  if (source < 0 || source >= n) throw input_error("source is not a vertex.");
  // tentative distances of the vertices touched, kept sparse through `seen`
  thread_local std::vector<double> dist;
  thread_local std::vector<int> seen;
  if (static_cast<int>(dist.size()) != n) dist.assign(n, std::numeric_limits<double>::infinity());
  seen.clear();
  vertex_heap heap(n);
  dist[source] = 0.0;
  seen.push_back(source);
  heap.push_or_decrease(source, dist);
  while (!heap.empty()) {
    const int u = heap.pop(dist);
    const double du = dist[u];
    if (!(du < mind[u])) continue;
    mind[u] = du;
    for (int t = G.adj_ptr[u]; t < G.adj_ptr[u + 1]; ++t) {
      const int v = G.adj_idx[t];
      const double alt = du + G.adj_len[t];
      if (alt < dist[v] && alt < mind[v]) {
        if (dist[v] == std::numeric_limits<double>::infinity()) seen.push_back(v);
        dist[v] = alt;
        heap.push_or_decrease(v, dist);
      }
    }
  }
  for (int v : seen) dist[v] = std::numeric_limits<double>::infinity();
}

namespace {

// out: m x n (out[s + j * m]), or n x m when `by_column` (out[j + s * n]: the
// distances from each source contiguous, written straight from the search).
void dijkstra_multi_impl(const adjacency_view& G, const int* sources, int m, double* out,
                         int n_threads, bool buckets, bool by_column) {
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
  // Large graphs: run on a copy relabelled in breadth-first order, so that
  // the neighbours of a vertex sit close to it in memory (a kNN graph of
  // points in random order otherwise makes every relaxation a cache miss).
  // Distances do not depend on the labels: each is the minimum over the
  // in-edges of (final distance of the tail + length), whatever the order in
  // which equal keys leave the heap.
  std::vector<int> new_id, rp_ptr, rp_idx;
  std::vector<double> rp_len;
  adjacency_view W = G;
  if (n >= 4096 && m > 1) {
    new_id.assign(n, -1);
    std::vector<int> old_id;
    old_id.reserve(n);
    for (int start = 0; start < n; ++start) {
      if (new_id[start] >= 0) continue;
      new_id[start] = static_cast<int>(old_id.size());
      old_id.push_back(start);
      for (std::size_t head = old_id.size() - 1; head < old_id.size(); ++head) {
        const int u = old_id[head];
        for (int t = G.adj_ptr[u]; t < G.adj_ptr[u + 1]; ++t) {
          const int v = G.adj_idx[t];
          if (new_id[v] < 0) {
            new_id[v] = static_cast<int>(old_id.size());
            old_id.push_back(v);
          }
        }
      }
    }
    rp_ptr.assign(n + 1, 0);
    rp_idx.resize(nnz);
    rp_len.resize(nnz);
    for (int a = 0; a < n; ++a) {
      const int u = old_id[a];
      int q = rp_ptr[a];
      for (int t = G.adj_ptr[u]; t < G.adj_ptr[u + 1]; ++t, ++q) {
        rp_idx[q] = new_id[G.adj_idx[t]];
        rp_len[q] = G.adj_len[t];
      }
      rp_ptr[a + 1] = q;
    }
    W.adj_ptr = rp_ptr.data();
    W.adj_idx = rp_idx.data();
    W.adj_len = rp_len.data();
  }
  const bool relabel = !new_id.empty();
  // bucket width: a fraction of the mean positive edge length (rescans are
  // rare when most edges are longer than a bucket; on kNN graphs a fifth of
  // the mean scans each vertex about once and pushes it about 1.3 times, and
  // was the fastest of 0.05 to 0.7 measured); at most 2^20 buckets
  double width = 1.0, max_len = 0.0, sum_pos = 0.0;
  long n_pos = 0;
  for (int t = 0; t < nnz; ++t) {
    const double w = G.adj_len[t];
    max_len = std::max(max_len, w);
    if (w > 0.0) {
      sum_pos += w;
      ++n_pos;
    }
  }
  int max_degree = 0;
  for (int u = 0; u < n; ++u) max_degree = std::max(max_degree, G.adj_ptr[u + 1] - G.adj_ptr[u]);
  if (n_pos > 0) width = 0.2 * (sum_pos / static_cast<double>(n_pos));
  constexpr double max_buckets = 1048576.0;
  if (max_len / width > max_buckets) width = max_len / max_buckets;
  long n_buckets = 4;  // a power of two above max_len / width + 3
  // lengths so large or so small that width or 1 / width overflows: the binary heap
  if (!(width < std::numeric_limits<double>::infinity()) ||
      !(1.0 / width < std::numeric_limits<double>::infinity())) {
    buckets = false;
  } else {
    while (static_cast<double>(n_buckets) < max_len / width + 4.0) n_buckets *= 2;
  }
  const int nt = resolve_threads(n_threads);
  // Each task handles a block of consecutive sources. Row layout (m x n): the
  // distances are written to the output in runs of `block` contiguous values.
  constexpr int block = 16;
  const int n_blocks = (m + block - 1) / block;
  interrupt_flag flag(1);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
  {
    std::vector<double> dist(n);
    vertex_heap heap(n);
    bucket_ring ring;
    if (buckets) ring.setup(width, n_buckets, n, max_degree);
    auto run = [&](const adjacency_view& g, int source) {
      if (!buckets || !dijkstra_one_buckets(g, source, dist.data(), ring)) {
        dijkstra_one(g, source, dist, heap);
      }
    };
    std::vector<double> buf(by_column ? 0 : static_cast<std::size_t>(block) * n);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int b = 0; b < n_blocks; ++b) {
      if (flag.poll(b)) continue;
      const int s0 = b * block;
      const int bs = std::min(block, m - s0);
      for (int r = 0; r < bs; ++r) {
        run(relabel ? W : G, relabel ? new_id[sources[s0 + r]] : sources[s0 + r]);
        if (by_column) {
          double* col = out + static_cast<std::size_t>(s0 + r) * n;
          if (relabel) {
            for (int j = 0; j < n; ++j) col[j] = dist[new_id[j]];
          } else {
            std::copy(dist.begin(), dist.end(), col);
          }
        } else if (relabel) {
          for (int j = 0; j < n; ++j) buf[static_cast<std::size_t>(j) * bs + r] = dist[new_id[j]];
        } else {
          for (int j = 0; j < n; ++j) buf[static_cast<std::size_t>(j) * bs + r] = dist[j];
        }
      }
      if (by_column) continue;
      for (int j = 0; j < n; ++j) {
        const double* from = buf.data() + static_cast<std::size_t>(j) * bs;
        double* to = out + s0 + static_cast<std::size_t>(j) * m;
        std::copy(from, from + bs, to);
      }
    }
  }
  (void)nt;
  flag.rethrow_if_stopped();
}

}  // namespace

void dijkstra_multi(const adjacency_view& G, const int* sources, int m, double* out,
                    int n_threads) {
  dijkstra_multi_impl(G, sources, m, out, n_threads, true, false);
}

void dijkstra_multi_by_column(const adjacency_view& G, const int* sources, int m, double* out,
                              int n_threads) {
  dijkstra_multi_impl(G, sources, m, out, n_threads, true, true);
}

void dijkstra_multi_binary_heap(const adjacency_view& G, const int* sources, int m, double* out,
                                int n_threads) {
  dijkstra_multi_impl(G, sources, m, out, n_threads, false, false);
}

}  // namespace manifoldOOS
