// Dense coordinate work for graphs (R-free core): closest pairs between
// connected components (the connectivity rule of ?neighbour_graph "connect") and pairwise-distance summaries
// for the bandwidth rules (the bandwidth rules of ?neighbour_graph).
#include <manifoldOOS/blocks/graph.h>
#include <manifoldOOS/blocks/knn_impl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace manifoldOOS {

namespace {

// Points stored contiguously (p values per point) for cache locality.
std::vector<double> row_major(const double* X, int n, int p) {
  std::vector<double> out(static_cast<std::size_t>(n) * p);
  for (int l = 0; l < p; ++l) {
    const double* col = X + static_cast<std::size_t>(l) * n;
    for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i) * p + l] = col[i];
  }
  return out;
}

// Euclidean distance for searching (fast summation order); edges that are
// kept get their canonical length (the one knn() returns).
inline double point_dist(const double* a, const double* b, int p) {
  return std::sqrt(fast_sqdist(a, b, static_cast<std::size_t>(p)));
}

inline double canonical_dist(const double* a, const double* b, int p) {
  return std::sqrt(canonical_sqdist(a, b, static_cast<std::size_t>(p)));
}

// Candidate edge ordered by (length, i, j) with i < j.
struct candidate {
  double d = std::numeric_limits<double>::infinity();
  int i = -1;
  int j = -1;
};

inline bool better(double d, int i, int j, const candidate& c) {
  if (d != c.d) return d < c.d;
  if (i != c.i) return i < c.i;
  return j < c.j;
}

// A distance source: points stored contiguously (Euclidean distances), or a
// symmetric n x n distance matrix given by the user.
struct point_source {
  const double* P;
  int p;
  double search(int u, int v) const {
    return point_dist(P + static_cast<std::size_t>(u) * p, P + static_cast<std::size_t>(v) * p, p);
  }
  double canonical(int u, int v) const {
    return canonical_dist(P + static_cast<std::size_t>(u) * p, P + static_cast<std::size_t>(v) * p, p);
  }
};

struct matrix_source {
  const double* D;
  std::size_t n;
  double search(int u, int v) const { return D[static_cast<std::size_t>(u) + n * static_cast<std::size_t>(v)]; }
  double canonical(int u, int v) const { return search(u, v); }
};

template <class Source>
std::vector<added_edge> connect_mst(const Source& src, int n, const std::vector<int>& label,
                                    int n_components, int n_threads) {
  std::vector<std::vector<int>> members(n_components);
  for (int v = 0; v < n; ++v) members[label[v]].push_back(v);
  std::vector<char> in_tree(n, 0);
  // best[v]: distance from v to the tree; arg[v]: the smallest tree point at
  // that distance (which also gives the smallest (i, j) pair for this v).
  std::vector<double> best(n, std::numeric_limits<double>::infinity());
  std::vector<int> arg(n, -1);
  std::vector<added_edge> edges;
  edges.reserve(n_components > 0 ? n_components - 1 : 0);
  const int nt = resolve_threads(n_threads);
  // Interrupt polling is paced by work (about 2^20 distance evaluations
  // between polls), not by iterations: with many small components (e.g. the
  // Euclidean MST of all points, n components) a poll every 64 points of
  // every step cost far more than the distances themselves.
  const long poll_work = 1L << 20;
  long since_poll = 0;
  // points not yet in the tree (compacted every step: the loops below visit
  // only these, which halves the work of the all-singletons case)
  std::vector<int> rest(n);
  for (int v = 0; v < n; ++v) rest[v] = v;
  int next = 0;  // component joining the tree
  for (int step = 0; step < n_components; ++step) {
    const std::vector<int>& C = members[next];
    for (int u : C) in_tree[u] = 1;
    if (step == n_components - 1) break;
    rest.erase(std::remove_if(rest.begin(), rest.end(), [&](int v) { return in_tree[v] != 0; }),
               rest.end());
    const int nr = static_cast<int>(rest.size());
    const long csz = std::max<long>(1, static_cast<long>(C.size()));
    const long work = csz * nr;
    since_poll += work;
    if (work < poll_work && since_poll >= poll_work) {  // small steps: poll between steps
      since_poll = 0;
      check_interrupt();
    }
    // large steps: the master thread polls inside the loop
    interrupt_flag flag(work >= poll_work ? std::max<long>(64, poll_work / csz) : nr + 1L);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt) if (nt > 1)
#endif
    for (int r = 0; r < nr; ++r) {
      if (flag.poll(r + 1)) continue;
      const int v = rest[r];
      double bv = best[v];
      int av = arg[v];
      for (int u : C) {
        const double d = src.search(u, v);
        if (d < bv || (d == bv && u < av)) {
          bv = d;
          av = u;
        }
      }
      best[v] = bv;
      arg[v] = av;
    }
    flag.rethrow_if_stopped();
    (void)nt;
    candidate c;
    for (int v : rest) {
      const int i = std::min(v, arg[v]), j = std::max(v, arg[v]);
      if (better(best[v], i, j, c)) {
        c.d = best[v];
        c.i = i;
        c.j = j;
      }
    }
    edges.push_back(added_edge{c.i, c.j, src.canonical(c.i, c.j)});
    next = in_tree[c.i] ? label[c.j] : label[c.i];
  }
  return edges;
}

template <class Source>
std::vector<added_edge> connect_all_pairs(const Source& src, int n, const std::vector<int>& label,
                                          int n_components, int n_threads) {
  const int c = n_components;
  if (c > 10000) {
    throw input_error("connect = \"all_pairs\" is limited to 10000 components; this graph has " +
                      std::to_string(c) + ". Use connect = \"mst\" or a larger neighbourhood.");
  }
  std::vector<std::vector<int>> members(c);
  for (int v = 0; v < n; ++v) members[label[v]].push_back(v);
  // best[a * c + b] for a < b; row a is written only by the thread handling a.
  std::vector<candidate> best(static_cast<std::size_t>(c) * c);
  const int nt = resolve_threads(n_threads);
  interrupt_flag flag(1);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
#endif
  for (int a = 0; a < c; ++a) {
    if (flag.poll(a)) continue;
    candidate* row = best.data() + static_cast<std::size_t>(a) * c;
    for (int u : members[a]) {
      for (int v = 0; v < n; ++v) {
        const int b = label[v];
        if (b <= a) continue;
        const double d = src.search(u, v);
        const int i = std::min(u, v), j = std::max(u, v);
        if (better(d, i, j, row[b])) {
          row[b].d = d;
          row[b].i = i;
          row[b].j = j;
        }
      }
    }
  }
  flag.rethrow_if_stopped();
  (void)nt;
  std::vector<added_edge> edges;
  edges.reserve(static_cast<std::size_t>(c) * (c - 1) / 2);
  for (int a = 0; a < c; ++a) {
    for (int b = a + 1; b < c; ++b) {
      const candidate& e = best[static_cast<std::size_t>(a) * c + b];
      edges.push_back(added_edge{e.i, e.j, src.canonical(e.i, e.j)});
    }
  }
  return edges;
}

void check_labels(int n, const std::vector<int>& label, int n_components) {
  if (static_cast<int>(label.size()) != n) throw input_error("connect: one label per point needed.");
  if (n_components < 1) throw input_error("connect: no components.");
  for (int v = 0; v < n; ++v) {
    if (label[v] < 0 || label[v] >= n_components) throw input_error("connect: invalid component label.");
  }
}

template <class Source>
std::vector<added_edge> connect_with(const Source& src, int n, const std::vector<int>& label,
                                     int n_components, connect_rule rule, int n_threads) {
  if (rule == connect_rule::mst) return connect_mst(src, n, label, n_components, n_threads);
  return connect_all_pairs(src, n, label, n_components, n_threads);
}

}  // namespace

std::vector<added_edge> connect_components(const double* X, int n, int p,
                                           const std::vector<int>& label, int n_components,
                                           connect_rule rule, int n_threads) {
  check_labels(n, label, n_components);
  if (n_components == 1) return {};
  const std::vector<double> P = row_major(X, n, p);
  return connect_with(point_source{P.data(), p}, n, label, n_components, rule, n_threads);
}

std::vector<added_edge> connect_components_distances(const double* D, int n,
                                                     const std::vector<int>& label,
                                                     int n_components, connect_rule rule,
                                                     int n_threads) {
  check_labels(n, label, n_components);
  if (n_components == 1) return {};
  return connect_with(matrix_source{D, static_cast<std::size_t>(n)}, n, label, n_components, rule,
                      n_threads);
}

pairwise_summary pairwise_distance_summary(const double* S, int m, int p, int n_threads) {
  if (m < 2) throw input_error("pairwise distances need at least 2 points.");
  const std::vector<double> P = row_major(S, m, p);
  const std::size_t npairs = static_cast<std::size_t>(m) * (m - 1) / 2;
  std::vector<double> d(npairs);
  const int nt = resolve_threads(n_threads);
  interrupt_flag flag(16);
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt) if (nt > 1)
#endif
  for (int i = 0; i < m - 1; ++i) {
    if (flag.poll(i)) continue;
    // pairs (i, j), j > i, are stored after those of rows 0..i-1
    const std::size_t off = static_cast<std::size_t>(i) * (2 * static_cast<std::size_t>(m) - i - 1) / 2;
    const double* xi = P.data() + static_cast<std::size_t>(i) * p;
    for (int j = i + 1; j < m; ++j) {
      d[off + (j - i - 1)] = point_dist(xi, P.data() + static_cast<std::size_t>(j) * p, p);
    }
  }
  flag.rethrow_if_stopped();
  (void)nt;
  pairwise_summary res;
  double sum = 0.0, mx = 0.0;
  for (double v : d) {
    sum += v;
    mx = std::max(mx, v);
  }
  res.mean = sum / static_cast<double>(npairs);
  res.max = mx;
  const std::size_t h = npairs / 2;
  std::nth_element(d.begin(), d.begin() + h, d.end());
  const double hi = d[h];
  res.median = (npairs % 2 == 1) ? hi : 0.5 * (hi + *std::max_element(d.begin(), d.begin() + h));
  return res;
}

}  // namespace manifoldOOS
