// Quality measures of embeddings (quality measures): ranks,
// co-ranking, trustworthiness/continuity, Q_NX, residual variance,
// Procrustes alignment.
//
// Rows are points. Ranks follow the rank conventions of coranking(): the rank of j from i counts the
// other points strictly closer, ties broken by the smaller index, self
// excluded. Everything neighbourhood-based is computed row by row (distance
// row of point i in X and in Y, partial selection of the K_max nearest, exact
// ranks of the few points outside the selection by one counting pass), so
// nothing of size n x n is stored except the explicit full co-ranking matrix.
// Accumulators are integers, so results do not depend on the thread count.
#ifndef MANIFOLDOOS_QUALITY_H
#define MANIFOLDOOS_QUALITY_H

#include <armadillo>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/paths.h>
#include <manifoldOOS/blocks/parallel.h>
#include <manifoldOOS/blocks/procrustes.h>

namespace manifoldOOS {
namespace quality {

using arma::uword;
typedef long long count_t;

// (distance, index) key; its lexicographic order defines the ranks.
struct rkey {
  double d;
  uword j;
};
inline bool operator<(const rkey& a, const rkey& b) {
  return a.d < b.d || (a.d == b.d && a.j < b.j);
}

// ---------------------------------------------------------------------------
// Distance rows. Direct summation over coordinates for few columns (exactly
// symmetric, so ties are exact); for many columns a BLAS Gram block of the
// centred data, with every pair whose squared distance is within 1e-10 of the
// squared norms recomputed exactly (duplicates come out as exact zeros).
class distance_rows {
 public:
  explicit distance_rows(const arma::mat& Z, uword gemm_min_cols = 24)
      : Z_(Z), n_(Z.n_rows), gemm_(Z.n_cols > gemm_min_cols) {
    if (gemm_) {
      Zc_ = Z.each_row() - arma::mean(Z, 0);
      sq_ = arma::sum(arma::square(Zc_), 1);
    }
  }
  uword n() const { return n_; }

  // Serial: prepare rows [i0, i1) (BLAS call on the gemm path).
  void prepare_block(uword i0, uword i1) {
    i0_ = i0;
    if (gemm_) G_ = Zc_ * Zc_.rows(i0, i1 - 1).t();  // n x B
  }

  // Thread-safe: distances from row i (inside the prepared block) to all rows;
  // squared distances when `squared` (same order, cheaper: used for ranks).
  void row(uword i, double* out, bool squared = false) const {
    if (!gemm_) {
      const uword p = Z_.n_cols;
      if (p <= 8) {
        double zi[8];
        const double* col[8];
        for (uword c = 0; c < p; ++c) {
          col[c] = Z_.colptr(c);
          zi[c] = col[c][i];
        }
        for (uword j = 0; j < n_; ++j) {
          double s = 0.0;
          for (uword c = 0; c < p; ++c) {
            const double t = col[c][j] - zi[c];
            s += t * t;
          }
          out[j] = s;
        }
      } else {
        std::fill(out, out + n_, 0.0);
        for (uword c = 0; c < p; ++c) {
          const double* z = Z_.colptr(c);
          const double zi = z[i];
          for (uword j = 0; j < n_; ++j) {
            const double t = z[j] - zi;
            out[j] += t * t;
          }
        }
      }
    } else {
      const double* g = G_.colptr(i - i0_);
      const double si = sq_[i];
      for (uword j = 0; j < n_; ++j) {
        double d2 = si + sq_[j] - 2.0 * g[j];
        if (d2 <= 1e-10 * (si + sq_[j])) d2 = exact_sq(i, j);
        out[j] = d2 > 0.0 ? d2 : 0.0;
      }
      out[i] = 0.0;
    }
    if (!squared)
      for (uword j = 0; j < n_; ++j) out[j] = std::sqrt(out[j]);
  }

  // Exact squared distance (same summation order for (i, j) and (j, i)).
  double exact_sq(uword i, uword j) const {
    const arma::mat& Z = gemm_ ? Zc_ : Z_;
    double s = 0.0;
    for (uword c = 0; c < Z.n_cols; ++c) {
      const double t = Z(j, c) - Z(i, c);
      s += t * t;
    }
    return s;
  }

  // Rows per block so that one n x B Gram block stays below ~64 MiB.
  uword block_rows() const {
    if (!gemm_) return n_;
    const uword b = static_cast<uword>((std::size_t(64) << 20) / (8 * std::max<uword>(n_, 1)));
    return std::max<uword>(1, std::min<uword>(n_, std::max<uword>(b, 16)));
  }

 private:
  const arma::mat& Z_;
  uword n_;
  bool gemm_;
  arma::mat Zc_;
  arma::vec sq_;
  arma::mat G_;
  uword i0_ = 0;
};

// The K nearest of point i (j != i) by (d[j], j), sorted, in `top`. A bounded
// max-heap scan for small K (j increases during the scan, so a candidate with
// a distance equal to the current K-th never displaces it), partial selection
// of all keys otherwise.
inline void select_top(const double* d, uword n, uword i, uword K, std::vector<rkey>& top) {
  top.clear();
  if (K == 0) return;
  if (16 * K <= n) {
    top.reserve(K);
    for (uword j = 0; j < n; ++j) {
      if (j == i) continue;
      if (top.size() < K) {
        top.push_back(rkey{d[j], j});
        std::push_heap(top.begin(), top.end());
      } else if (d[j] < top.front().d) {
        std::pop_heap(top.begin(), top.end());
        top.back() = rkey{d[j], j};
        std::push_heap(top.begin(), top.end());
      }
    }
    std::sort(top.begin(), top.end());
    return;
  }
  top.resize(n - 1);
  uword m = 0;
  for (uword j = 0; j < n; ++j)
    if (j != i) top[m++] = rkey{d[j], j};
  if (K < n - 1) std::nth_element(top.begin(), top.begin() + K, top.end());
  std::sort(top.begin(), top.begin() + K);
  top.resize(K);
}

// Exact ranks from point i of the sorted, distinct `targets` by one counting
// pass over the distance row: rank = 1 + #{l != i : (d[l], l) < target}.
inline void ranks_scan(const double* d, uword n, uword i, const std::vector<rkey>& targets,
                       std::vector<count_t>& cnt, std::vector<uword>& ranks) {
  const std::size_t m = targets.size();
  cnt.assign(m, 0);
  const rkey last = targets.back();
  for (uword l = 0; l < n; ++l) {
    if (l == i) continue;
    const rkey e{d[l], l};
    if (!(e < last)) continue;
    const std::size_t pos = std::lower_bound(targets.begin(), targets.end(), e) - targets.begin();
    if (targets[pos].j == l) continue;  // a target itself
    ++cnt[pos];
  }
  ranks.resize(m);
  count_t below = 0;
  for (std::size_t t = 0; t < m; ++t) {
    below += cnt[t];
    ranks[t] = 1 + static_cast<uword>(below) + t;
  }
}

// Normaliser of trustworthiness/continuity (Venna & Kaski 2006), valid for 1 <= K <= n-2.
inline double tc_normaliser(double n, double K) {
  if (2.0 * K < n) return 2.0 / (n * K * (2.0 * n - 3.0 * K - 1.0));
  return 2.0 / (n * (n - K) * (n - K - 1.0));
}

// ---------------------------------------------------------------------------
// Trustworthiness, continuity, Q_NX curve and the K_max x K_max co-ranking block.
struct nx_options {
  uword k_max = 0;            // Q_NX(K) for K = 1..k_max (0: not wanted)
  std::vector<uword> k_tc;    // neighbourhood sizes for T and C
  bool want_T = false;
  bool want_C = false;
  bool want_block = false;    // co-ranking block of size k_max x k_max
  int n_threads = 0;
};

struct nx_result {
  arma::vec T, C;             // one value per k_tc
  arma::vec qnx;              // Q_NX(1..k_max)
  arma::Mat<int> block;       // Q_kl, k, l <= k_max (rows: ranks in X)
};

namespace detail {

struct row_work {
  std::vector<double> dx, dy;
  std::vector<rkey> kx, ky, targets;
  std::vector<uword> rank_x, rank_y;  // rank if <= K, else 0
  std::vector<uword> rho_of_y;        // rho_of_y[l-1] = rank in X of the l-th Y-neighbour
  std::vector<uword> r_of_x;          // r_of_x[k-1] = rank in Y of the k-th X-neighbour
  std::vector<std::pair<rkey, uword>> tagged;
  std::vector<uword> ranks;
  std::vector<count_t> cnt;
  explicit row_work(uword n, uword K)
      : dx(n), dy(n), rank_x(n, 0), rank_y(n, 0), rho_of_y(K), r_of_x(K) {}
};

// Ranks in space "a" of the K nearest in space "b" (kb), exact when `exact`
// (also beyond K), else K + 1 for everything beyond K.
inline void cross_ranks(const std::vector<rkey>& kb, const std::vector<uword>& rank_a,
                        const double* da, uword n, uword i, uword K, bool exact,
                        std::vector<uword>& out, row_work& w) {
  w.tagged.clear();
  for (uword l = 0; l < K; ++l) {
    const uword j = kb[l].j;
    const uword r = rank_a[j];
    if (r != 0) {
      out[l] = r;
    } else {
      out[l] = K + 1;
      if (exact) w.tagged.push_back({rkey{da[j], j}, l});
    }
  }
  if (w.tagged.empty()) return;
  std::sort(w.tagged.begin(), w.tagged.end(),
            [](const std::pair<rkey, uword>& a, const std::pair<rkey, uword>& b) {
              return a.first < b.first;
            });
  w.targets.resize(w.tagged.size());
  for (std::size_t t = 0; t < w.tagged.size(); ++t) w.targets[t] = w.tagged[t].first;
  ranks_scan(da, n, i, w.targets, w.cnt, w.ranks);
  for (std::size_t t = 0; t < w.tagged.size(); ++t) out[w.tagged[t].second] = w.ranks[t];
}

}  // namespace detail

inline nx_result neighbourhood_measures(const arma::mat& X, const arma::mat& Y,
                                        const nx_options& opt) {
  const uword n = X.n_rows;
  if (Y.n_rows != n) throw input_error("X and Y must have the same number of rows");
  if (n < 3) throw input_error("at least 3 points are needed");
  uword K = opt.k_max;
  for (uword k : opt.k_tc) {
    if (k < 1 || k > n - 2) throw input_error("neighbourhood sizes must lie in [1, n - 2]");
    K = std::max(K, k);
  }
  if (K < 1 || K > n - 1) throw input_error("K_max must lie in [1, n - 1]");
  const std::size_t nk = opt.k_tc.size();
  const bool want_rho = opt.want_T || opt.k_max > 0 || opt.want_block;

  distance_rows DX(X), DY(Y);
  const uword B = std::min(DX.block_rows(), DY.block_rows());
  std::vector<count_t> hist(K + 2, 0), penT(nk, 0), penC(nk, 0);
  arma::Mat<int> block;
  if (opt.want_block) block.zeros(opt.k_max, opt.k_max);
  struct state {
    detail::row_work w;
    std::vector<count_t> h, pt, pc;
  };
  parallel_row_blocks(
      n, B, opt.n_threads,
      [&](std::size_t i0, std::size_t i1) {
        DX.prepare_block(i0, i1);
        DY.prepare_block(i0, i1);
      },
      [&] { return state{detail::row_work(n, K), std::vector<count_t>(K + 2, 0),
                         std::vector<count_t>(nk, 0), std::vector<count_t>(nk, 0)}; },
      [&](state& st, std::size_t ii) {
          const uword i = static_cast<uword>(ii);
          DX.row(i, st.w.dx.data(), true);
          DY.row(i, st.w.dy.data(), true);
          select_top(st.w.dx.data(), n, i, K, st.w.kx);
          select_top(st.w.dy.data(), n, i, K, st.w.ky);
          for (uword p = 0; p < K; ++p) {
            st.w.rank_x[st.w.kx[p].j] = p + 1;
            st.w.rank_y[st.w.ky[p].j] = p + 1;
          }
          if (want_rho)
            detail::cross_ranks(st.w.ky, st.w.rank_x, st.w.dx.data(), n, i, K, opt.want_T, st.w.rho_of_y, st.w);
          if (opt.want_C)
            detail::cross_ranks(st.w.kx, st.w.rank_y, st.w.dy.data(), n, i, K, true, st.w.r_of_x, st.w);
          if (opt.k_max > 0 || opt.want_block) {
            for (uword l = 1; l <= K; ++l) {
              const uword rho = st.w.rho_of_y[l - 1];
              if (rho > K) continue;
              if (opt.k_max > 0) ++st.h[std::max(rho, l)];
              if (opt.want_block && rho <= opt.k_max && l <= opt.k_max) {
                int* cell = block.memptr() + (rho - 1) + (l - 1) * opt.k_max;
#ifdef _OPENMP
#pragma omp atomic
#endif
                ++(*cell);
              }
            }
          }
          for (std::size_t t = 0; t < nk; ++t) {
            const uword Kt = opt.k_tc[t];
            if (opt.want_T) {
              count_t s = 0;
              for (uword l = 0; l < Kt; ++l)
                if (st.w.rho_of_y[l] > Kt) s += static_cast<count_t>(st.w.rho_of_y[l] - Kt);
              st.pt[t] += s;
            }
            if (opt.want_C) {
              count_t s = 0;
              for (uword k = 0; k < Kt; ++k)
                if (st.w.r_of_x[k] > Kt) s += static_cast<count_t>(st.w.r_of_x[k] - Kt);
              st.pc[t] += s;
            }
          }
          for (uword p = 0; p < K; ++p) {
            st.w.rank_x[st.w.kx[p].j] = 0;
            st.w.rank_y[st.w.ky[p].j] = 0;
          }
      },
      [&](state& st) {
        for (uword l = 0; l < K + 2; ++l) hist[l] += st.h[l];
        for (std::size_t t = 0; t < nk; ++t) {
          penT[t] += st.pt[t];
          penC[t] += st.pc[t];
        }
      });

  nx_result res;
  const double dn = static_cast<double>(n);
  res.T.set_size(opt.want_T ? nk : 0);
  res.C.set_size(opt.want_C ? nk : 0);
  for (std::size_t t = 0; t < nk; ++t) {
    const double g = tc_normaliser(dn, static_cast<double>(opt.k_tc[t]));
    if (opt.want_T) res.T[t] = 1.0 - g * static_cast<double>(penT[t]);
    if (opt.want_C) res.C[t] = 1.0 - g * static_cast<double>(penC[t]);
  }
  res.qnx.set_size(opt.k_max);
  count_t cum = 0;
  for (uword k = 1; k <= opt.k_max; ++k) {
    cum += hist[k];
    res.qnx[k - 1] = static_cast<double>(cum) / (static_cast<double>(k) * dn);
  }
  res.block = std::move(block);
  return res;
}

// Full (n-1) x (n-1) co-ranking matrix (rows: ranks in X, columns: ranks in Y).
inline arma::Mat<int> coranking_full(const arma::mat& X, const arma::mat& Y, int n_threads) {
  const uword n = X.n_rows;
  if (Y.n_rows != n) throw input_error("X and Y must have the same number of rows");
  if (n < 3) throw input_error("at least 3 points are needed");
  const uword m = n - 1;
  arma::Mat<int> Q(m, m, arma::fill::zeros);
  distance_rows DX(X), DY(Y);
  const uword B = std::min(DX.block_rows(), DY.block_rows());
  struct state {
    std::vector<double> dx, dy;
    std::vector<rkey> kx, ky;
    std::vector<uword> rx;
  };
  parallel_row_blocks(
      n, B, n_threads,
      [&](std::size_t i0, std::size_t i1) {
        DX.prepare_block(i0, i1);
        DY.prepare_block(i0, i1);
      },
      [&] { return state{std::vector<double>(n), std::vector<double>(n), {}, {}, std::vector<uword>(n)}; },
      [&](state& st, std::size_t ii) {
        const uword i = static_cast<uword>(ii);
        DX.row(i, st.dx.data(), true);
        DY.row(i, st.dy.data(), true);
        select_top(st.dx.data(), n, i, m, st.kx);
        select_top(st.dy.data(), n, i, m, st.ky);
        for (uword p = 0; p < m; ++p) st.rx[st.kx[p].j] = p;
        for (uword l = 0; l < m; ++l) {
          int* cell = Q.memptr() + st.rx[st.ky[l].j] + l * m;
#ifdef _OPENMP
#pragma omp atomic
#endif
          ++(*cell);
        }
      },
      [](state&) {});
  return Q;
}

// ---------------------------------------------------------------------------
// Residual variance 1 - R^2 between high-dimensional distances (geodesic or
// supplied) and Euclidean distances in Y, streamed row by row. Pearson
// correlation over unordered pairs i < j ("upper") or over all n^2 ordered
// pairs including the zero diagonal ("all", Tenenbaum's original code).

namespace detail {

// Centred moments of one row's pairs; merged with Chan et al.'s formula.
struct moments {
  double cnt = 0, ma = 0, mb = 0, saa = 0, sbb = 0, sab = 0;
};

inline moments row_moments(const double* a, const double* b, uword from, uword to) {
  moments m;
  if (to <= from) return m;
  m.cnt = static_cast<double>(to - from);
  double sa = 0, sb = 0;
  for (uword j = from; j < to; ++j) {
    sa += a[j];
    sb += b[j];
  }
  m.ma = sa / m.cnt;
  m.mb = sb / m.cnt;
  for (uword j = from; j < to; ++j) {
    const double u = a[j] - m.ma, v = b[j] - m.mb;
    m.saa += u * u;
    m.sbb += v * v;
    m.sab += u * v;
  }
  return m;
}

inline void merge_moments(moments& acc, const moments& m) {
  if (m.cnt == 0) return;
  if (acc.cnt == 0) {
    acc = m;
    return;
  }
  const double n = acc.cnt + m.cnt;
  const double da = m.ma - acc.ma, db = m.mb - acc.mb;
  const double f = acc.cnt * m.cnt / n;
  acc.saa += m.saa + da * da * f;
  acc.sbb += m.sbb + db * db * f;
  acc.sab += m.sab + da * db * f;
  acc.ma += da * m.cnt / n;
  acc.mb += db * m.cnt / n;
  acc.cnt = n;
}

inline double one_minus_r2(const std::vector<moments>& rows) {
  moments acc;
  for (const moments& m : rows) merge_moments(acc, m);
  if (acc.saa <= 0 || acc.sbb <= 0)
    throw input_error("residual variance is undefined: one set of distances is constant");
  const double r = acc.sab / std::sqrt(acc.saa * acc.sbb);
  return 1.0 - r * r;
}

// Shared driver: `fill_high(i, out)` writes the high-dimensional distance row.
template <class HighRow>
double residual_variance_rows(uword n, const arma::mat& Y, bool all_pairs, int n_threads,
                              HighRow fill_high) {
  distance_rows DY(Y);
  const uword B = DY.block_rows();
  std::vector<moments> rows(n);
  struct state {
    std::vector<double> a, b;
  };
  parallel_row_blocks(
      n, B, n_threads, [&](std::size_t i0, std::size_t i1) { DY.prepare_block(i0, i1); },
      [&] { return state{std::vector<double>(n), std::vector<double>(n)}; },
      [&](state& st, std::size_t ii) {
        const uword i = static_cast<uword>(ii);
        fill_high(i, st.a);
        DY.row(i, st.b.data());
        rows[i] = row_moments(st.a.data(), st.b.data(), all_pairs ? 0 : i + 1, n);
      },
      [](state&) {}, 4);
  return one_minus_r2(rows);
}

}  // namespace detail

// Tenenbaum's residual variance with geodesics over a neighbourhood graph
// (symmetric adjacency with edge lengths, built by graph.h); the geodesic row
// of each point is computed by Dijkstra (paths.h) and streamed, so no n x n
// matrix is stored.
inline double residual_variance_geodesic(const adjacency_view& G, const arma::mat& Y,
                                         bool all_pairs, int n_threads) {
  const uword n = Y.n_rows;
  if (uword(G.n) != n) throw input_error("the graph and Y must have the same number of points");
  return detail::residual_variance_rows(n, Y, all_pairs, n_threads,
                                        [&G](uword i, std::vector<double>& out) {
                                          const int src = static_cast<int>(i);
                                          dijkstra_multi(G, &src, 1, out.data(), 1);
                                          for (double v : out)
                                            if (!std::isfinite(v))
                                              throw input_error("the neighbourhood graph is disconnected");
                                        });
}

// Residual variance against a supplied symmetric n x n distance matrix.
inline double residual_variance_dist(const arma::mat& D, const arma::mat& Y, bool all_pairs,
                                     int n_threads) {
  const uword n = D.n_rows;
  if (D.n_cols != n) throw input_error("the distance matrix must be square");
  if (Y.n_rows != n) throw input_error("the distance matrix and Y must have the same number of rows");
  return detail::residual_variance_rows(n, Y, all_pairs, n_threads,
                                        [&D](uword i, std::vector<double>& out) {
                                          const double* c = D.colptr(i);  // symmetric
                                          std::copy(c, c + D.n_rows, out.begin());
                                        });
}

}  // namespace quality
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_QUALITY_H
