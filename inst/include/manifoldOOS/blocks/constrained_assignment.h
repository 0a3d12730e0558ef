// Constrained assignment: every point to one of c centres at the least total
// cost 1/2 ||x - centre||^2, with every centre receiving at least h points.
// An exact min-cost flow solved by successive shortest paths with potentials
// (the assignment step of PLML's constrained k-means; Strange 2011). The
// candidate centres of each point are its nearest ones, widened until the
// problem is feasible (checked by a matching before the solve).
#ifndef MANIFOLDOOS_BLOCKS_CONSTRAINED_ASSIGNMENT_H
#define MANIFOLDOOS_BLOCKS_CONSTRAINED_ASSIGNMENT_H

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/knn.h>

namespace manifoldOOS {

// Work counters of the constrained assignment (successive shortest paths).
struct ssp_stats {
  long phases = 0;     // Dijkstra runs
  long augment = 0;    // augmenting paths
  long settled = 0;    // nodes settled over all Dijkstras
  long relaxed = 0;    // arcs relaxed over all Dijkstras
  long rebuilt = 0;    // cluster arc lists rebuilt
  long path_arcs = 0;  // arcs on all augmenting paths
  std::vector<long> served;  // augmenting paths of every phase
  std::vector<long> reached; // clusters settled in every phase
  long candidates = 0; // constrained_assignment(): candidate centres per point in the end
  long solves = 0;     // and the solves it ran (more than one: the lists were widened after a failure)
};

// Optimal assignment for fixed centres (the constrained assignment step);
// exposed for tests. centres: c x p. Returns 0-based labels. price (optional,
// in/out): cluster potentials (dual prices, >= 0) to warm-start from (empty:
// cold start) and, on return, the optimal ones (a certificate: every point
// sits at argmin_l c_xl - price_l among its candidates; price_l > 0 only for
// clusters of exactly h points).
inline std::vector<int> constrained_assignment(const arma::mat& X, const arma::mat& centres, int h,
                                               int n_candidates, int n_threads,
                                               ssp_stats* stats = nullptr,
                                               std::vector<double>* price = nullptr,
                                               const std::vector<int>* prefer = nullptr);

namespace assignment_detail {

const double inf = std::numeric_limits<double>::infinity();

// Exact constrained assignment (min-cost flow) in two stages.
//
// Network. Clusters 0..c-1 and a super node S. A residual arc a -> b moves
// one point x from cluster a to cluster b (b among x's candidates) at cost
// c_xb - c_xa; only the cheapest such point matters, so every cluster keeps
// a cached list of its out-arcs (one per target cluster: the minimum over its
// members and their candidate slots), rebuilt only when its members change:
// a Dijkstra never scans points. Arcs S -> s exist for the clusters above h
// (they may give a point away; cost 0) and l -> S for every cluster (it may
// keep extra points; cost 0). Potentials P (dual prices) keep every reduced
// cost c + P_u - P_v >= 0 throughout; then the final assignment has no
// negative residual cycle: it is optimal for the candidate-restricted problem
// (for the full problem when the candidates are all clusters).
//
// (1) Start: every point at argmin_l c_xl - P_l over its candidates (P = 0
//     cold, or the previous step's prices; ties to the previous labels).
// (2) Successive shortest paths in phases: one Dijkstra from S gives a
//     shortest-path forest to the deficit clusters (stopped after enough of
//     them); P_v += min(d_v, D) makes every forest arc tight; then one unit
//     is moved along the forest path of each reached deficit, nearest first,
//     as long as every arc's point is still where the Dijkstra saw it (so the
//     path is still tight; moving a tight point keeps all reduced costs >= 0).
// Potentials are stored as P_v - offset so that an update touches only the
// settled nodes. Returns false when a deficit cluster cannot be served within
// the candidate lists.
struct ssp_arc {
  int b;     // target cluster
  int x;     // the point that moves
  int j;     // its candidate slot for b
  double w;  // c_xb - c_xa
};

inline bool ssp_assign(const arma::Mat<int>& cand, const arma::mat& cost, int c, int h,
                       std::vector<int>& cl, std::vector<double>& price, ssp_stats* stats,
                       const std::vector<int>* prefer = nullptr) {
  const int n = cand.n_rows, L = cand.n_cols;
  // the candidates and costs of a point, contiguous (the solve reads them a
  // point at a time; the columns of cand and cost are n apart)
  const arma::Mat<int> candT = cand.t();
  const arma::mat costT = cost.t();
  std::vector<int> slot(n, 0), count(c, 0), pos(n);
  std::vector<std::vector<int>> mem(c);
  // Potentials P (index c = S, kept at 0 until the shortest-path phases).
  std::vector<double> P(c + 1, 0.0);
  if (int(price.size()) == c)
    for (int l = 0; l < c; ++l) P[l] = std::max(0.0, price[l]);
  cl.assign(n, 0);
  ssp_stats st;
  // (1) start: every point at its best candidate for the prices,
  // argmin_j c_xj - P_j (all cluster-arc reduced costs >= 0). A warm price
  // vector may make a priced cluster overfull; such prices drop to 0 (at
  // most c rounds) so that P_l > 0 only for clusters with <= h points.
  // Ties (up to rounding) go to the preferred cluster (the previous step's):
  // the points an optimal flow moved sit exactly at ties, and breaking those
  // towards the nearest centre would undo the previous solution.
  const bool warm = prefer && int(prefer->size()) == n;
  for (int round = 0;; ++round) {
    std::fill(count.begin(), count.end(), 0);
    for (int i = 0; i < n; ++i) {
      const int* ci = candT.colptr(i);
      const double* wi = costT.colptr(i);
      int best = 0;
      double bv = wi[0] - P[ci[0]];
      for (int j = 1; j < L; ++j) {
        const double v = wi[j] - P[ci[j]];
        if (v < bv) {
          bv = v;
          best = j;
        }
      }
      if (warm && ci[best] != (*prefer)[i]) {
        for (int j = 0; j < L; ++j) {
          const int l = ci[j];
          if (l != (*prefer)[i]) continue;
          const double v = wi[j] - P[l];
          const double tol = 1e-12 * (std::abs(wi[j]) + std::abs(P[l]) + std::abs(wi[best]) +
                                      std::abs(P[ci[best]]));
          if (v <= bv + tol) best = j;
          break;
        }
      }
      slot[i] = best;
      cl[i] = ci[best];
      ++count[cl[i]];
    }
    bool changed = false;
    for (int l = 0; l < c; ++l)
      if (count[l] > h && P[l] > 0) {
        P[l] = 0;
        changed = true;
      }
    if (!changed) break;
  }
  for (int i = 0; i < n; ++i) {
    pos[i] = mem[cl[i]].size();
    mem[cl[i]].push_back(i);
  }
  std::vector<std::vector<ssp_arc>> out(c);
  std::vector<std::vector<int>> outb(c);     // compact copies of out (targets, costs)
  std::vector<std::vector<double>> outw(c);  // for the Dijkstra's inner loop
  std::vector<int> where(c, -1);  // scratch: position of target b in the list being built
  auto rebuild = [&](int a) {
    std::vector<ssp_arc>& o = out[a];
    o.clear();
    for (int x : mem[a]) {
      const int* cx_cand = candT.colptr(x);
      const double* cx_cost = costT.colptr(x);
      const double cx = cx_cost[slot[x]];
      for (int j = 0; j < L; ++j) {
        const int b = cx_cand[j];
        if (b == a) continue;
        const double w = cx_cost[j] - cx;
        const int at = where[b];
        if (at < 0) {
          where[b] = o.size();
          o.push_back(ssp_arc{b, x, j, w});
        } else if (w < o[at].w) {
          o[at] = ssp_arc{b, x, j, w};
        }
      }
    }
    std::vector<int>& ob = outb[a];
    std::vector<double>& ow = outw[a];
    ob.resize(o.size());
    ow.resize(o.size());
    for (size_t r = 0; r < o.size(); ++r) {
      where[o[r].b] = -1;
      ob[r] = o[r].b;
      ow[r] = o[r].w;
    }
    ++st.rebuilt;
  };
  long deficit = 0;
  for (int l = 0; l < c; ++l)
    if (count[l] < h) deficit += h - count[l];
  if (deficit > 0)
    for (int a = 0; a < c; ++a) rebuild(a);
  // (2) successive shortest paths
  const int S = c;
  std::vector<double> d(c + 1, inf);
  std::vector<int> pred(c, -1), pred_arc(c, -1), touched;
  std::vector<char> settled(c + 1, 0), used(c + 1, 0);
  using qe = std::pair<double, int>;
  std::vector<qe> heap;
  std::vector<int> path, order, dirty, zstack;
  // deficit clusters a phase looks for: all at first; then twice as many as
  // the previous phase could serve (the Dijkstra stops there; capping the
  // potential update at the last settled distance keeps it exact)
  long want = c;
  while (deficit > 0) {
    check_interrupt();
    ++st.phases;
    // full Dijkstra from S on the reduced costs: a shortest-path forest rooted
    // at the clusters with spare points
    for (int v : touched) {
      d[v] = inf;
      settled[v] = 0;
      used[v] = 0;
    }
    touched.clear();
    order.clear();
    heap.clear();
    auto push = [&](double dv, int v) {
      heap.emplace_back(dv, v);
      std::push_heap(heap.begin(), heap.end(), std::greater<qe>());
    };
    for (int s = 0; s < c; ++s) {
      if (count[s] <= h) continue;
      double w = P[S] - P[s];
      if (w < 0) w = 0;  // rounding
      d[s] = w;
      pred[s] = -1;
      touched.push_back(s);
      push(w, s);
    }
    long nz = 0;  // deficit clusters settled
    // zero-cost arcs (most arcs of the previous forests) put their heads on a
    // stack instead of the heap: a head has the distance being settled, the
    // minimum, so it may be settled next in any order
    zstack.clear();
    while (!heap.empty() || !zstack.empty()) {
      int a;
      if (!zstack.empty()) {
        a = zstack.back();
        zstack.pop_back();
        if (settled[a]) continue;
      } else {
        std::pop_heap(heap.begin(), heap.end(), std::greater<qe>());
        const qe top = heap.back();
        heap.pop_back();
        a = top.second;
        if (settled[a] || top.first > d[a]) continue;
      }
      settled[a] = 1;
      order.push_back(a);
      if (count[a] < h && ++nz >= want) break;  // enough targets for this phase
      const double da = d[a], pa = P[a];
      const int* ob = outb[a].data();
      const double* ow = outw[a].data();
      const int m = outb[a].size();
      for (int r = 0; r < m; ++r) {
        const int b = ob[r];
        double w = ow[r] + pa - P[b];
        if (w < 0) w = 0;  // rounding
        const double nd = da + w;
        if (nd < d[b]) {  // never true for a settled b (d[b] <= da <= nd)
          if (d[b] == inf) touched.push_back(b);
          d[b] = nd;
          pred[b] = a;
          pred_arc[b] = r;
          if (w == 0)
            zstack.push_back(b);
          else
            push(nd, b);
        }
      }
      st.relaxed += m;
    }
    st.settled += order.size();
    if (order.empty()) return false;
    // potentials: P_v += min(d_v, Dmax) (S: d = 0); every reduced cost stays
    // >= 0 and every arc of the forest becomes tight
    const double Dmax = d[order.back()];
    for (int v : order) P[v] += d[v] - Dmax;
    P[S] -= Dmax;
    // augment along the forest paths of the reached deficit clusters, nearest
    // first, one unit each. Potentials are fixed within the phase, so a path
    // stays tight as long as the point of each of its arcs is still where the
    // Dijkstra saw it (the source keeps a spare point, the target still
    // lacks one): then every move costs what the Dijkstra counted.
    long served = 0;
    for (int z : order) {
      if (count[z] >= h) continue;
      path.clear();  // z, pred[z], ..., the surplus cluster the path starts from
      bool ok = true;
      for (int v = z;; v = pred[v]) {
        path.push_back(v);
        if (pred[v] < 0) break;
        const ssp_arc& e = out[pred[v]][pred_arc[v]];
        if (cl[e.x] != pred[v]) {
          ok = false;
          break;
        }
      }
      if (!ok || count[path.back()] <= h) continue;
      const int src = path.back();
      for (size_t t = 0; t + 1 < path.size(); ++t) {
        const int b = path[t], a = path[t + 1];
        const ssp_arc e = out[a][pred_arc[b]];
        // move e.x from a to b (the arc lists are rebuilt after the phase)
        const int px = pos[e.x], last = mem[a].back();
        mem[a][px] = last;
        pos[last] = px;
        mem[a].pop_back();
        pos[e.x] = mem[b].size();
        mem[b].push_back(e.x);
        cl[e.x] = b;
        slot[e.x] = e.j;
      }
      for (int v : path) {
        if (!used[v]) dirty.push_back(v);
        used[v] = 1;
      }
      st.path_arcs += long(path.size()) - 1;
      --count[src];
      ++count[z];
      --deficit;
      ++served;
      ++st.augment;
    }
    want = std::max(1L, 2 * served);
    st.served.push_back(served);
    st.reached.push_back(order.size());
    if (served == 0) return false;  // no deficit cluster reachable within the candidate lists: infeasible
    for (int v : dirty) rebuild(v);
    dirty.clear();
  }
  price.resize(c);
  for (int l = 0; l < c; ++l) price[l] = P[l] - P[S];
  if (stats) *stats = st;
  return true;
}

// Whether every cluster can receive h points when each point may go only to
// one of its candidates (cand: n x L, 0-based cluster indices, distinct per
// row): a maximum b-matching of clusters (h slots each) to points (one
// cluster each), found by Hopcroft-Karp phases (breadth-first layers from the
// short clusters, then depth-first augmenting paths along them) after a
// greedy start. The remaining points can always join one of their
// candidates, so the problem is feasible iff the matching fills every slot;
// ssp_assign() then succeeds. O(nL sqrt(n)) at worst, and a few passes over
// the lists in practice: far cheaper than a solve that would fail.
inline bool lists_feasible(const arma::Mat<int>& cand, int c, int h) {
  const long n = cand.n_rows, L = cand.n_cols;
  if (h <= 0) return true;
  if (long(c) * h > n) return false;
  // cluster -> points (CSR)
  std::vector<long> start(c + 1, 0);
  for (long e = 0; e < n * L; ++e) ++start[cand[e] + 1];
  for (int l = 0; l < c; ++l) start[l + 1] += start[l];
  std::vector<int> pts(n * L);
  {
    std::vector<long> fill(start.begin(), start.end() - 1);
    for (long j = 0; j < L; ++j)
      for (long i = 0; i < n; ++i) pts[fill[cand(i, j)]++] = static_cast<int>(i);
  }
  std::vector<int> match(n, -1), load(c, 0);
  long missing = long(c) * h;
  for (long j = 0; j < L && missing > 0; ++j) {  // greedy: nearest candidate with room first
    for (long i = 0; i < n; ++i) {
      const int l = cand(i, j);
      if (match[i] < 0 && load[l] < h) {
        match[i] = l;
        ++load[l];
        --missing;
      }
    }
  }
  std::vector<int> dist(c), queue(c), it_pos(c);
  std::vector<long> it(c);
  std::vector<int> stack_l, stack_i;
  while (missing > 0) {
    // layers: dist[l] = shortest number of moves from a short cluster to l
    std::fill(dist.begin(), dist.end(), -1);
    int qh = 0, qt = 0;
    for (int l = 0; l < c; ++l) {
      if (load[l] < h) {
        dist[l] = 0;
        queue[qt++] = l;
      }
    }
    int free_layer = -1;
    while (qh < qt) {
      const int l = queue[qh++];
      if (free_layer >= 0 && dist[l] > free_layer) break;
      for (long e = start[l]; e < start[l + 1]; ++e) {
        const int i = pts[e], m = match[i];
        if (m == l) continue;
        if (m < 0) {
          if (free_layer < 0) free_layer = dist[l];
        } else if (dist[m] < 0) {
          dist[m] = dist[l] + 1;
          queue[qt++] = m;
        }
      }
    }
    if (free_layer < 0) return false;  // no augmenting path: some slot stays empty
    // depth-first augmentations along the layers (iterative; it[] = current arc)
    for (int l = 0; l < c; ++l) it[l] = start[l];
    bool progress = false;
    for (int s = 0; s < c; ++s) {
      while (dist[s] == 0 && load[s] < h) {
        stack_l.assign(1, s);
        stack_i.clear();
        bool found = false;
        while (!stack_l.empty() && !found) {
          const int l = stack_l.back();
          bool advanced = false;
          while (it[l] < start[l + 1]) {
            const int i = pts[it[l]++], m = match[i];
            if (m == l) continue;
            if (m < 0) {
              if (dist[l] <= free_layer) {
                stack_i.push_back(i);
                found = true;
                advanced = true;
                break;
              }
            } else if (dist[m] == dist[l] + 1 && dist[m] <= free_layer) {
              stack_i.push_back(i);
              stack_l.push_back(m);
              advanced = true;
              break;
            }
          }
          if (!advanced) {  // dead end: l leaves this phase's layers
            dist[l] = -2;
            stack_l.pop_back();
            if (!stack_i.empty()) stack_i.pop_back();
          }
        }
        if (!found) break;
        // stack_l[t] takes stack_i[t]; the free point ends the path
        for (std::size_t t = 0; t < stack_i.size(); ++t) match[stack_i[t]] = stack_l[t];
        ++load[s];
        --missing;
        progress = true;
      }
    }
    if (!progress) return false;
  }
  return true;
}

}  // namespace assignment_detail

inline std::vector<int> constrained_assignment(const arma::mat& X, const arma::mat& centres, int h,
                                               int n_candidates, int n_threads, ssp_stats* stats,
                                               std::vector<double>* price, const std::vector<int>* prefer) {
  const int n = X.n_rows, c = centres.n_rows;
  if (c < 1 || h < 0) throw input_error("constrained assignment: invalid number of clusters or minimum size");
  if (long(c) * h > n) throw input_error("constrained assignment: c * h exceeds the number of points");
  int L = std::max(1, std::min(n_candidates, c));
  std::vector<int> lab;
  std::vector<double> own;
  std::vector<double>& pr = price ? *price : own;
  std::vector<long> indeg(c);
  long solves = 0;
  while (true) {
    knn_result kr = knn_query(centres, X, L, knn_algorithm::automatic, n_threads);
    // a cluster that fewer than h points list among their candidates can
    // never be filled: widen at once instead of after a failed solve (the
    // same lists as the solve would end with, so the same result)
    std::fill(indeg.begin(), indeg.end(), 0L);
    for (arma::uword e = 0; e < kr.idx.n_elem; ++e) ++indeg[kr.idx[e]];
    if (L < c && *std::min_element(indeg.begin(), indeg.end()) < h) {
      L = std::min(c, 4 * L);
      continue;
    }
    // a set of clusters that cannot be filled together: widen before solving
    // (the solve would fail on the same lists)
    if (L < c && !assignment_detail::lists_feasible(kr.idx, c, h)) {
      L = std::min(c, 4 * L);
      continue;
    }
    arma::mat cost = 0.5 * arma::square(kr.dist);
    ++solves;
    if (assignment_detail::ssp_assign(kr.idx, cost, c, h, lab, pr, stats, prefer)) break;
    if (L == c) throw convergence_error("constrained assignment: no feasible assignment found");
    L = std::min(c, 4 * L);  // widen the candidate lists and start again
  }
  if (stats) {
    stats->candidates = L;
    stats->solves = solves;
  }
  return lab;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_BLOCKS_CONSTRAINED_ASSIGNMENT_H
