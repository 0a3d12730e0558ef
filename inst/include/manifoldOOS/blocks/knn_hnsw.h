// Approximate k-nearest neighbours with HNSW (hierarchical navigable small
// world graphs, Malkov and Yashunin) on the data structures and search
// routines of hnswlib (the version shipped for RcppHNSW, 0.6.x API).
//
// R-free core. What differs from hnswlib's own addPoint() loop:
//
// * Deterministic build for a given seed, whatever the number of threads.
//   Levels are drawn up front from std::mt19937_64(seed). Points are inserted
//   in waves of `wave` consecutive indices: (A) in parallel, every point of
//   the wave searches the graph as it was before the wave (read only) and
//   adds the exact (float) distances to the earlier points of its wave, then
//   selects its links with hnswlib's heuristic; (B) in parallel over target
//   points, the reverse links are added in index order of the new points
//   (pruned with the same heuristic when a list is full); (C) the entry point
//   is updated in index order. No step depends on thread timing.
// * Points are inserted in a locality order of the rows (locality_order.h:
//   a Morton code of their coordinates on the leading principal axes), not
//   in the order given: consecutive insertions then search the same region
//   of the graph, which stays in cache. The internal ids are positions in
//   that order; perm_ maps them back to rows. Levels are drawn per row (row
//   i takes the i-th draw), so a row's level does not depend on the order.
//   A search descends the upper layers as hnswlib does, then starts the
//   bottom layer from the closer of the descent's end and the points next to
//   the query in the locality order (search_one()): a graph built in that
//   order has few long links in its bottom layer, and a descent that ends on
//   another sheet of the data would stay there. bench/hnsw-order.R measures
//   both orders (time, recall, answers across the sheets of a roll).
// * Results are re-ranked with the package's canonical double distance
//   (canonical_sqdist, the one the exact search returns): each query asks the
//   index for its candidates, and the k best by (distance, index) are kept.
//   A self-search excludes the point itself by index; a query for which the
//   graph returns fewer than k candidates is answered by brute force.
//
// The index stores float coordinates (hnswlib's L2 space, SIMD); the exact
// coordinates are kept row-major for the re-ranking.
#ifndef MANIFOLDOOS_KNN_HNSW_H
#define MANIFOLDOOS_KNN_HNSW_H

#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <queue>
#include <random>
#include <utility>
#include <vector>

#include <manifoldOOS/blocks/knn_impl.h>
#include <manifoldOOS/blocks/locality_order.h>
#include <manifoldOOS/blocks/parallel.h>
#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

struct hnsw_options {
  int M = 16;                 // links per node (2 M on the bottom layer)
  int ef_construction = 200;  // candidate list of the build
  std::uint64_t seed = 42;    // levels
  int wave = 512;             // points inserted per deterministic wave
  bool locality = true;       // insert in a locality order (else in row order)
};

class hnsw_index {
 public:
  using graph_t = hnswlib::HierarchicalNSW<float>;
  using tableint = hnswlib::tableint;
  using heap_t = std::priority_queue<std::pair<float, tableint>,
                                     std::vector<std::pair<float, tableint>>,
                                     graph_t::CompareByFirst>;

  // X: n x p, column-major (R layout).
  hnsw_index(const double* X, std::size_t n, std::size_t p, const hnsw_options& opt, int n_threads)
      : n_(n), p_(p), opt_(opt), xt_(n * p), space_(p) {
    if (n < 1 || p < 1) throw input_error("HNSW: the training data must have rows and columns.");
    if (opt.M < 2) throw input_error("`M` must be at least 2.");
    if (opt.ef_construction < 1) throw input_error("`ef_construction` must be at least 1.");
    if (opt.wave < 1) throw input_error("HNSW: the wave size must be at least 1.");
    if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw input_error("HNSW: too many training points.");
    }
    // levels from the seed, one draw per row (hnswlib's rule, mult = 1 / log M)
    std::vector<int> row_level(n);
    {
      const double mult = 1.0 / std::log(static_cast<double>(opt.M));
      std::mt19937_64 rng(opt.seed);
      std::uniform_real_distribution<double> unif(0.0, 1.0);
      for (std::size_t i = 0; i < n; ++i) {
        const double u = 1.0 - unif(rng);  // (0, 1]
        row_level[i] = static_cast<int>(-std::log(u) * mult);
      }
    }
    if (opt.locality) {
      perm_ = coder_.fit(X, n, p);
    } else {
      perm_.resize(n);
      for (std::size_t c = 0; c < n; ++c) perm_[c] = static_cast<std::uint32_t>(c);
    }
    levels_.resize(n);
    for (std::size_t c = 0; c < n; ++c) levels_[c] = row_level[perm_[c]];
    std::vector<int>().swap(row_level);
    // row-major coordinates in internal (insertion) order
    for (std::size_t j = 0; j < p; ++j) {
      const double* col = X + j * n;
      for (std::size_t c = 0; c < n; ++c) xt_[c * p + j] = col[perm_[c]];
    }
    graph_.reset(new graph_t(&space_, n, static_cast<std::size_t>(opt.M),
                             static_cast<std::size_t>(opt.ef_construction), opt.seed));
    build(n_threads);
  }

  std::size_t n() const { return n_; }
  std::size_t p() const { return p_; }

  // k nearest training rows of the m query rows Q (column-major m x p), or of
  // the training rows themselves (Q == nullptr, self excluded by index).
  // idx (0-based) and dist are m x k, column-major, sorted by (distance,
  // index) with canonical distances.
  void search(const double* Q, std::size_t m, int k, int ef, int n_threads, int* idx,
              double* dist) const {
    const bool self = Q == nullptr;
    if (k < 1) throw input_error("`k` must be at least 1.");
    if (static_cast<std::size_t>(k) + (self ? 1u : 0u) > n_) {
      throw input_error("`k` is larger than the number of training points allows.");
    }
    const std::size_t kk = static_cast<std::size_t>(k) + (self ? 1u : 0u);
    graph_->setEf(std::max<std::size_t>(static_cast<std::size_t>(std::max(ef, 1)), kk));
    struct state {
      std::vector<double> q;
      std::vector<float> qf;
      std::vector<nb> cand;
    };
    const std::size_t p = p_;
    const bool ok = parallel_rows_guarded(
        m, n_threads, 16,
        [&]() {
          state s;
          s.q.resize(p);
          s.qf.resize(p);
          return s;
        },
        [&](state& s, std::size_t t) {
          // a self-search visits the points in the breadth-first order of
          // the bottom layer: consecutive queries search the same region of
          // the graph, which then stays in cache (the answers do not depend
          // on the order)
          // c: the query's internal id (self-search); i: its output row
          const std::size_t c = self ? static_cast<std::size_t>(self_order_[t]) : 0u;
          const std::size_t i = self ? static_cast<std::size_t>(perm_[c]) : t;
          if (self) {
            std::memcpy(s.q.data(), &xt_[c * p], p * sizeof(double));
          } else {
            for (std::size_t j = 0; j < p; ++j) s.q[j] = Q[i + j * m];
          }
          for (std::size_t j = 0; j < p; ++j) s.qf[j] = static_cast<float>(s.q[j]);
          auto res = search_one(s.q.data(), s.qf.data(), kk);
          s.cand.clear();
          while (!res.empty()) {
            const std::size_t j = static_cast<std::size_t>(res.top().second);
            res.pop();
            if (self && j == c) continue;
            s.cand.push_back(make_nb(s.q.data(), j));
          }
          if (s.cand.size() < static_cast<std::size_t>(k)) brute(s.q.data(), self ? static_cast<long>(c) : -1L, s.cand);
          std::sort(s.cand.begin(), s.cand.end(), nb_less);
          for (int r = 0; r < k; ++r) {
            idx[i + static_cast<std::size_t>(r) * m] = s.cand[r].j;
            dist[i + static_cast<std::size_t>(r) * m] = s.cand[r].d;
          }
        });
    if (!ok) throw input_error("HNSW search failed.");
  }

  // The bottom layer's lists in rows (0-based): the list of row perm_[c]
  // at out[perm_[c]] (testing hook).
  std::vector<std::vector<int>> bottom_links() const {
    std::vector<std::vector<int>> out(n_);
    for (std::size_t c = 0; c < n_; ++c) {
      const unsigned int* ll = graph_->get_linklist0(static_cast<tableint>(c));
      const int size = graph_->getListCount(const_cast<unsigned int*>(ll));
      const tableint* nbrs = reinterpret_cast<const tableint*>(ll + 1);
      std::vector<int>& o = out[perm_[c]];
      for (int r = 0; r < size; ++r) o.push_back(static_cast<int>(perm_[nbrs[r]]));
    }
    return out;
  }

 private:
  struct nb {
    double d2, d;
    int j;  // row
  };
  static bool nb_less(const nb& a, const nb& b) {
    return a.d2 < b.d2 || (a.d2 == b.d2 && a.j < b.j);
  }
  // the neighbour with internal id c, as its row
  nb make_nb(const double* q, std::size_t c) const {
    const double d2 = canonical_sqdist(q, &xt_[c * p_], p_);
    return nb{d2, std::sqrt(d2), static_cast<int>(perm_[c])};
  }
  // every point but the one with internal id self
  void brute(const double* q, long self, std::vector<nb>& out) const {
    out.clear();
    for (std::size_t c = 0; c < n_; ++c) {
      if (static_cast<long>(c) == self) continue;
      out.push_back(make_nb(q, c));
    }
  }

  // The kk best candidates (a max-heap of (float distance, internal id)) for
  // the point q (double) / qf (float): hnswlib's greedy descent through the
  // upper layers, then the bottom-layer search from the closer of its end
  // and the points next to q in the locality order. In a graph built in that
  // order a descent can end in a region of the data that lies close in
  // space but far along the manifold (another sheet of a roll), which the
  // bottom layer's short links do not leave; the order's neighbours are in
  // q's own region. A training point asked as a query gets the same entry
  // as in a self-search, so the two answers are the same.
  heap_t search_one(const double* q, const float* qf, std::size_t kk) const {
    graph_t& g = *graph_;
    tableint cur = g.enterpoint_node_;
    float curdist = g.fstdistfunc_(qf, g.getDataByInternalId(cur), g.dist_func_param_);
    descend(qf, g.maxlevel_, 0, cur, curdist);
    if (opt_.locality && n_ > 1) {
      const std::size_t t = coder_.locate(coder_.code(q));
      for (std::size_t u : {t, t > 0 ? t - 1 : t}) {
        const tableint e = static_cast<tableint>(u);
        const float d = g.fstdistfunc_(qf, g.getDataByInternalId(e), g.dist_func_param_);
        if (d < curdist || (d == curdist && e < cur)) {
          curdist = d;
          cur = e;
        }
      }
    }
    heap_t top = g.searchBaseLayerST<false>(cur, qf, std::max(g.ef_, kk));
    while (top.size() > kk) top.pop();
    return top;
  }

  // hnswlib's greedy descent for the point q (float coordinates) through
  // the layers from `from` down to above `to`: on each, move to a closer
  // linked point while there is one. cur / curdist: the start and the end.
  void descend(const void* q, int from, int to, tableint& cur, float& curdist) const {
    graph_t& g = *graph_;
    for (int lev = from; lev > to; --lev) {
      bool changed = true;
      while (changed) {
        changed = false;
        const unsigned int* data = g.get_linklist(cur, lev);
        const int size = g.getListCount(const_cast<unsigned int*>(data));
        const tableint* nbrs = reinterpret_cast<const tableint*>(data + 1);
        for (int t = 0; t < size; ++t) {
          const float d = g.fstdistfunc_(q, g.getDataByInternalId(nbrs[t]), g.dist_func_param_);
          if (d < curdist) {
            curdist = d;
            cur = nbrs[t];
            changed = true;
          }
        }
      }
    }
  }

  float fdist(tableint a, tableint b) const {
    return graph_->fstdistfunc_(graph_->getDataByInternalId(a), graph_->getDataByInternalId(b),
                                graph_->dist_func_param_);
  }

  void build(int n_threads) {
    graph_t& g = *graph_;
    const std::size_t n = n_, p = p_;
    // every element allocated (unconnected) at its internal id
    std::vector<float> row(p);
    for (std::size_t i = 0; i < n; ++i) {
      const tableint c = static_cast<tableint>(i);
      g.element_levels_[c] = levels_[i];
      std::memset(g.data_level0_memory_ + c * g.size_data_per_element_ + g.offsetLevel0_, 0,
                  g.size_data_per_element_);
      const hnswlib::labeltype label = i;
      std::memcpy(g.getExternalLabeLp(c), &label, sizeof(hnswlib::labeltype));
      for (std::size_t j = 0; j < p; ++j) row[j] = static_cast<float>(xt_[i * p + j]);
      std::memcpy(g.getDataByInternalId(c), row.data(), g.data_size_);
      if (levels_[i] > 0) {
        g.linkLists_[c] = static_cast<char*>(std::malloc(g.size_links_per_element_ * levels_[i] + 1));
        if (g.linkLists_[c] == nullptr) throw std::bad_alloc();
        std::memset(g.linkLists_[c], 0, g.size_links_per_element_ * levels_[i] + 1);
      }
      g.label_lookup_[label] = c;
    }
    g.cur_element_count = n;
    g.enterpoint_node_ = 0;
    g.maxlevel_ = levels_[0];
    const std::size_t W = static_cast<std::size_t>(opt_.wave);
    std::vector<std::vector<std::vector<tableint>>> chosen;  // [wave point][level] -> links
    for (std::size_t a = 1; a < n; a += W) {
      const std::size_t b = std::min(n, a + W);
      insert_wave(a, b, n_threads, chosen);
    }
    self_order_ = bottom_layer_bfs();
  }

  // Breadth-first order of the bottom layer's links from the entry point
  // (then from every point not reached yet, in index order). Its links join
  // near neighbours, so points close in this order lie close in space.
  std::vector<tableint> bottom_layer_bfs() const {
    graph_t& g = *graph_;
    std::vector<tableint> order;
    order.reserve(n_);
    std::vector<char> seen(n_, 0);
    auto from = [&](tableint s) {
      std::size_t head = order.size();
      order.push_back(s);
      seen[s] = 1;
      while (head < order.size()) {
        const tableint c = order[head++];
        const unsigned int* ll = g.get_linklist0(c);
        const int size = g.getListCount(const_cast<unsigned int*>(ll));
        const tableint* nbrs = reinterpret_cast<const tableint*>(ll + 1);
        for (int r = 0; r < size; ++r) {
          if (!seen[nbrs[r]]) {
            seen[nbrs[r]] = 1;
            order.push_back(nbrs[r]);
          }
        }
      }
    };
    if (n_ > 0) from(g.enterpoint_node_);
    for (std::size_t i = 0; i < n_; ++i) {
      if (!seen[i]) from(static_cast<tableint>(i));
    }
    return order;
  }

  // Phase A for point c: links on each of its levels, from the frozen graph
  // and the earlier points [a, c) of its wave.
  void select_links(tableint c, std::size_t a, int ml, tableint ep,
                    std::vector<std::vector<tableint>>& out) const {
    graph_t& g = *graph_;
    const int L = levels_[c];
    const void* q = g.getDataByInternalId(c);
    out.assign(static_cast<std::size_t>(L) + 1, std::vector<tableint>());
    std::vector<heap_t> cand(static_cast<std::size_t>(L) + 1);
    tableint cur = ep;
    float curdist = fdist(c, ep);
    descend(q, ml, L, cur, curdist);
    for (int lev = std::min(L, ml); lev >= 0; --lev) {
      heap_t top = g.searchBaseLayer(cur, q, lev);
      // the closest candidate starts the next level (as hnswlib's insertion)
      std::vector<std::pair<float, tableint>> tmp;
      tmp.reserve(top.size());
      while (!top.empty()) {
        tmp.push_back(top.top());
        top.pop();
      }
      if (!tmp.empty()) cur = tmp.back().second;
      for (auto& e : tmp) cand[static_cast<std::size_t>(lev)].push(e);
    }
    const std::size_t efc = g.ef_construction_;
    for (std::size_t w = a; w < c; ++w) {
      const int lw = levels_[w];
      if (lw < 0) continue;
      const float d = fdist(c, static_cast<tableint>(w));
      for (int lev = 0; lev <= std::min(L, lw); ++lev) {
        heap_t& h = cand[static_cast<std::size_t>(lev)];
        if (h.size() < efc) {
          h.emplace(d, static_cast<tableint>(w));
        } else if (d < h.top().first) {
          h.pop();
          h.emplace(d, static_cast<tableint>(w));
        }
      }
    }
    for (int lev = 0; lev <= L; ++lev) {
      heap_t& h = cand[static_cast<std::size_t>(lev)];
      g.getNeighborsByHeuristic2(h, g.M_);
      std::vector<tableint>& links = out[static_cast<std::size_t>(lev)];
      while (!h.empty()) {
        links.push_back(h.top().second);
        h.pop();
      }
      std::reverse(links.begin(), links.end());  // nearest first
    }
  }

  void insert_wave(std::size_t a, std::size_t b, int n_threads,
                   std::vector<std::vector<std::vector<tableint>>>& chosen) {
    graph_t& g = *graph_;
    const int ml = g.maxlevel_;
    const tableint ep = g.enterpoint_node_;
    chosen.assign(b - a, std::vector<std::vector<tableint>>());
    bool ok = parallel_rows_guarded(b - a, n_threads, 4, []() { return 0; },
                                    [&](int&, std::size_t t) {
                                      select_links(static_cast<tableint>(a + t), a, ml, ep, chosen[t]);
                                    });
    if (!ok) throw input_error("HNSW: the index could not be built.");
    // own links of the new points, and the reverse-link proposals
    struct prop {
      tableint target;
      int level;
      tableint from;
    };
    std::vector<prop> props;
    for (std::size_t t = 0; t < b - a; ++t) {
      const tableint c = static_cast<tableint>(a + t);
      for (std::size_t lev = 0; lev < chosen[t].size(); ++lev) {
        const std::vector<tableint>& links = chosen[t][lev];
        unsigned int* ll = g.get_linklist_at_level(c, static_cast<int>(lev));
        g.setListCount(ll, static_cast<unsigned short>(links.size()));
        tableint* data = reinterpret_cast<tableint*>(ll + 1);
        for (std::size_t r = 0; r < links.size(); ++r) {
          data[r] = links[r];
          props.push_back(prop{links[r], static_cast<int>(lev), c});
        }
      }
    }
    std::sort(props.begin(), props.end(), [](const prop& x, const prop& y) {
      if (x.target != y.target) return x.target < y.target;
      if (x.level != y.level) return x.level < y.level;
      return x.from < y.from;
    });
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < props.size(); ++i) {
      if (i == 0 || props[i].target != props[i - 1].target || props[i].level != props[i - 1].level) {
        starts.push_back(i);
      }
    }
    starts.push_back(props.size());
    ok = parallel_rows_guarded(starts.size() - 1, n_threads, 8, []() { return 0; },
                               [&](int&, std::size_t s) {
                                 for (std::size_t i = starts[s]; i < starts[s + 1]; ++i) {
                                   add_reverse(props[i].target, props[i].level, props[i].from);
                                 }
                               });
    if (!ok) throw input_error("HNSW: the index could not be built.");
    for (std::size_t i = a; i < b; ++i) {
      if (levels_[i] > g.maxlevel_) {
        g.maxlevel_ = levels_[i];
        g.enterpoint_node_ = static_cast<tableint>(i);
      }
    }
  }

  // Link `from` into the list of `target` at `level` (hnswlib's rule).
  void add_reverse(tableint target, int level, tableint from) const {
    graph_t& g = *graph_;
    const std::size_t mmax = level ? g.maxM_ : g.maxM0_;
    unsigned int* ll = g.get_linklist_at_level(target, level);
    const std::size_t sz = g.getListCount(ll);
    tableint* data = reinterpret_cast<tableint*>(ll + 1);
    for (std::size_t r = 0; r < sz; ++r) {
      if (data[r] == from) return;
    }
    if (sz < mmax) {
      data[sz] = from;
      g.setListCount(ll, static_cast<unsigned short>(sz + 1));
      return;
    }
    heap_t cand;
    cand.emplace(fdist(target, from), from);
    for (std::size_t r = 0; r < sz; ++r) cand.emplace(fdist(target, data[r]), data[r]);
    g.getNeighborsByHeuristic2(cand, mmax);
    std::size_t r = 0;
    while (!cand.empty()) {
      data[r++] = cand.top().second;
      cand.pop();
    }
    g.setListCount(ll, static_cast<unsigned short>(r));
  }

  std::size_t n_, p_;
  hnsw_options opt_;
  std::vector<double> xt_;
  hnswlib::L2Space space_;
  std::unique_ptr<graph_t> graph_;
  locality_coder coder_;              // the insertion order and its codes
  std::vector<std::uint32_t> perm_;   // internal id -> row
  std::vector<int> levels_;           // by internal id
  std::vector<tableint> self_order_;  // order of the queries of a self-search
};

// 64-bit fingerprint of a double array (content and length), used to find a
// cached index for the same training data.
inline std::uint64_t fingerprint(const double* x, std::size_t len) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(len);
  for (std::size_t i = 0; i < len; ++i) {
    std::uint64_t v;
    std::memcpy(&v, &x[i], sizeof(v));
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
  }
  return h;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_KNN_HNSW_H
