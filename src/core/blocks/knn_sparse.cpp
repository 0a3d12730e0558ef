// Exact kNN on sparse rows (interface and method in
// <manifoldOOS/blocks/knn_sparse.h>).
#include <manifoldOOS/blocks/knn_sparse.h>
#include <manifoldOOS/blocks/parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace manifoldOOS {

namespace {

struct row_ref {
  const int* col;
  const double* val;
  std::size_t nnz;
};

inline row_ref row_of(const sparse_rows& R, std::size_t i) {
  return {R.col.data() + R.ptr[i], R.val.data() + R.ptr[i], R.nnz(i)};
}

// Exact distance by a merge of two rows in column order. Euclidean: the
// squared distance, summed in column order over the union of the supports
// (the terms of the other columns are zero, or delta^2 when centred).
double merge_distance(const row_ref& a, const row_ref& b, sparse_metric metric, double delta,
                      std::size_t p) {
  std::size_t i = 0, j = 0, n_union = 0;
  double s = 0.0;
  auto term = [&](double d) {
    if (metric == sparse_metric::manhattan) {
      s += std::abs(d);
    } else {
      const double t = d - delta;
      s += t * t;
    }
    ++n_union;
  };
  while (i < a.nnz || j < b.nnz) {
    if (j >= b.nnz || (i < a.nnz && a.col[i] < b.col[j])) {
      term(a.val[i++]);
    } else if (i >= a.nnz || b.col[j] < a.col[i]) {
      term(-b.val[j++]);
    } else {
      term(a.val[i++] - b.val[j++]);
    }
  }
  if (delta != 0.0) s += static_cast<double>(p - n_union) * delta * delta;
  return s;
}

struct row_stats {
  std::vector<double> norm;  // |x|^2 (Euclidean) or |x|_1 (Manhattan)
  std::vector<double> mean;  // sum(x) / p (centred rows only)
  double max_norm = 0.0, max_mean2 = 0.0;
};

row_stats stats_of(const sparse_rows& R, sparse_metric metric, bool centre) {
  row_stats s;
  s.norm.assign(R.n_rows, 0.0);
  if (centre) s.mean.assign(R.n_rows, 0.0);
  for (std::size_t i = 0; i < R.n_rows; ++i) {
    double a = 0.0, m = 0.0;
    for (std::size_t e = R.ptr[i]; e < R.ptr[i + 1]; ++e) {
      const double v = R.val[e];
      a += metric == sparse_metric::manhattan ? std::abs(v) : v * v;
      m += v;
    }
    s.norm[i] = a;
    s.max_norm = std::max(s.max_norm, a);
    if (centre) {
      s.mean[i] = m / static_cast<double>(R.n_cols);
      s.max_mean2 = std::max(s.max_mean2, s.mean[i] * s.mean[i]);
    }
  }
  return s;
}

struct query_state {
  std::vector<double> acc, proxy, work;
  std::vector<int> stamp;
  std::vector<std::size_t> touched;
  std::vector<std::pair<double, int>> cand;
  int tick = 0;
};

}  // namespace

knn_result knn_sparse(const csc_view& X, const csc_view* Q, int k, sparse_metric metric,
                      bool centre_rows, int n_threads) {
  const std::size_t n = X.n_rows, p = X.n_cols;
  const bool self = Q == nullptr;
  if (!self && Q->n_cols != p) throw input_error("knn: the query points must have as many columns as the training points.");
  if (centre_rows && metric != sparse_metric::euclidean) throw input_error("knn: row centring needs the Euclidean distance");
  const std::size_t avail = self ? n - 1 : n;
  if (k < 1 || static_cast<std::size_t>(k) > avail) throw input_error("knn: `k` out of range");
  const sparse_rows XR = csc_to_rows(X);
  const sparse_rows QR = self ? sparse_rows() : csc_to_rows(*Q);
  const sparse_rows& QQ = self ? XR : QR;
  const std::size_t m = QQ.n_rows;
  const row_stats xs = stats_of(XR, metric, centre_rows);
  const row_stats qs_own = self ? row_stats() : stats_of(QR, metric, centre_rows);
  const row_stats& qs = self ? xs : qs_own;
  const double pd = static_cast<double>(p);
  const double eps = std::numeric_limits<double>::epsilon();
  // training rows by (norm, index): the order in which rows that share no
  // column with a query approach it
  std::vector<std::size_t> by_norm(n);
  for (std::size_t r = 0; r < n; ++r) by_norm[r] = r;
  if (!centre_rows) {
    std::stable_sort(by_norm.begin(), by_norm.end(),
                     [&](std::size_t a, std::size_t b) { return xs.norm[a] < xs.norm[b]; });
  }

  knn_result res;
  res.idx.set_size(m, static_cast<arma::uword>(k));
  res.dist.set_size(m, static_cast<arma::uword>(k));
  const auto kk = static_cast<std::size_t>(k);

  auto make_state = [&]() {
    query_state s;
    s.acc.assign(n, 0.0);
    s.proxy.assign(n, 0.0);
    s.work.reserve(n);
    s.stamp.assign(n, -1);
    return s;
  };
  auto body = [&](query_state& s, std::size_t qi) {
    const row_ref q = row_of(QQ, qi);
    ++s.tick;
    s.touched.clear();
    // common non-zeros through the columns of X (the inverted index)
    for (std::size_t e = 0; e < q.nnz; ++e) {
      const int j = q.col[e];
      const double qv = q.val[e];
      for (int t = X.ptr[j]; t < X.ptr[j + 1]; ++t) {
        const auto r = static_cast<std::size_t>(X.idx[t]);
        if (s.stamp[r] != s.tick) {
          s.stamp[r] = s.tick;
          s.acc[r] = 0.0;
          s.touched.push_back(r);
        }
        const double xv = X.val[t];
        s.acc[r] += metric == sparse_metric::manhattan ? std::abs(qv) + std::abs(xv) - std::abs(qv - xv)
                                                       : 2.0 * qv * xv;
      }
    }
    const double qn = qs.norm[qi];
    const double qm = centre_rows ? qs.mean[qi] : 0.0;
    // a generous bound on the rounding of the expansions (relative 1e-9 of
    // the magnitudes involved; the exact measure below decides)
    double scale = qn + xs.max_norm;
    if (centre_rows) scale += pd * (qm * qm + xs.max_mean2) + 2.0 * std::sqrt(qn * xs.max_norm);
    const double tol = (1e-9 + 64.0 * eps) * scale;
    s.cand.clear();
    auto measure = [&](std::size_t r) {
      const double d = merge_distance(q, row_of(XR, r), metric, centre_rows ? qm - xs.mean[r] : 0.0, p);
      s.cand.emplace_back(d, static_cast<int>(r));
    };
    if (!centre_rows) {
      // A row sharing no column with the query has the expansion qn + |x|:
      // among those, only the smallest norms (rows in `by_norm` order) can
      // be near. The k smallest expansions are among the rows met through
      // the index and the first k other rows of that order.
      s.work.clear();
      for (const std::size_t r : s.touched) {
        if (self && r == qi) continue;
        s.proxy[r] = qn + xs.norm[r] - s.acc[r];
        s.work.push_back(s.proxy[r]);
      }
      std::size_t extra = 0;
      for (std::size_t pos = 0; pos < n && extra < kk; ++pos) {
        const std::size_t r = by_norm[pos];
        if (s.stamp[r] == s.tick || (self && r == qi)) continue;
        s.work.push_back(qn + xs.norm[r]);
        ++extra;
      }
      std::nth_element(s.work.begin(), s.work.begin() + static_cast<long>(kk - 1), s.work.end());
      const double thr = s.work[kk - 1] + tol;
      for (const std::size_t r : s.touched) {
        if (!(self && r == qi) && s.proxy[r] <= thr) measure(r);
      }
      for (std::size_t pos = 0; pos < n; ++pos) {
        const std::size_t r = by_norm[pos];
        if (qn + xs.norm[r] > thr) break;
        if (s.stamp[r] == s.tick || (self && r == qi)) continue;
        measure(r);
      }
    } else {
      for (std::size_t r = 0; r < n; ++r) {
        double v = qn + xs.norm[r];
        if (s.stamp[r] == s.tick) v -= s.acc[r];
        const double d = qm - xs.mean[r];
        s.proxy[r] = v - pd * d * d;
      }
      if (self) s.proxy[qi] = std::numeric_limits<double>::infinity();
      s.work.assign(s.proxy.begin(), s.proxy.end());
      std::nth_element(s.work.begin(), s.work.begin() + static_cast<long>(kk - 1), s.work.end());
      const double thr = s.work[kk - 1] + tol;
      for (std::size_t r = 0; r < n; ++r) {
        if (s.proxy[r] <= thr && !(self && r == qi)) measure(r);
      }
    }
    std::partial_sort(s.cand.begin(), s.cand.begin() + static_cast<long>(kk), s.cand.end());
    for (std::size_t c = 0; c < kk; ++c) {
      res.idx(qi, c) = s.cand[c].second;
      const double d = s.cand[c].first;
      res.dist(qi, c) = metric == sparse_metric::manhattan ? d : std::sqrt(d);
    }
  };
  if (!parallel_rows_guarded(m, n_threads, 16, make_state, body)) {
    throw error("knn: the sparse search failed");
  }
  return res;
}

}  // namespace manifoldOOS
