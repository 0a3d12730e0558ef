// Exact nearest-neighbour search (R-free core): kd-tree for low dimension,
// blocked brute force with a cache-blocked cross-product kernel otherwise,
// and the matching radius (epsilon-ball) searches.
//
// Both paths return the canonical lists of knn_impl.h: ordering by
// (distance, index), with every returned distance computed by
// canonical_sqdist on the coordinates as given. The brute-force path selects
// candidates from the expansion |a|^2 + |b|^2 - 2 a'b on centred data, then
// recomputes their distances exactly; a rounding-error bound decides which
// further points might still belong to the list, so the result does not
// depend on the rounding of the expansion (nor on the kernel that computed
// it, nor on the number of threads).
#include <manifoldOOS/blocks/knn_impl.h>
#include <manifoldOOS/blocks/dense_crossprod.h>
#include <manifoldOOS/blocks/eigen_dense.h>
#include <manifoldOOS/blocks/parallel.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define MO_KNN_X86_DISPATCH 1
#else
#define MO_KNN_X86_DISPATCH 0
#endif

namespace manifoldOOS {

namespace {

using std::size_t;

// ---------------------------------------------------------------------------
// Neighbour records and the bounded max-heap
// ---------------------------------------------------------------------------

struct nb {
  double d;   // canonical distance sqrt(d2)
  double d2;  // canonical squared distance
  int i;      // training index
};

// Canonical order: (distance, index) lexicographically.
inline bool nb_less(const nb& a, const nb& b) {
  return a.d < b.d || (a.d == b.d && a.i < b.i);
}
// the same order as a function object, which the heap algorithms inline
struct nb_order {
  bool operator()(const nb& a, const nb& b) const { return nb_less(a, b); }
};

// Max-heap (by nb_less) holding the best k candidates seen so far.
struct nb_heap {
  nb* a = nullptr;
  int k = 0;
  int size = 0;

  const nb& top() const { return a[0]; }

  // Offer training point j at canonical squared distance d2.
  void offer(double d2, int j) {
    if (size < k) {
      a[size++] = nb{std::sqrt(d2), d2, j};
      std::push_heap(a, a + size, nb_order());
      return;
    }
    const nb& t = a[0];
    // d2 >= t.d2 implies sqrt(d2) >= t.d (sqrt is monotone); with a larger
    // index the candidate cannot come before the current worst.
    if (d2 >= t.d2 && j > t.i) return;
    const double d = std::sqrt(d2);
    if (d < t.d || (d == t.d && j < t.i)) replace_top(nb{d, d2, j});
  }

  // The worst candidate gives way to v (which comes before it): one sift-
  // down instead of a pop and a push. The order is total (distinct
  // indices), so the k kept are the same whatever the heap's layout.
  void replace_top(const nb& v) {
    int i = 0;
    for (;;) {
      const int l = 2 * i + 1;
      if (l >= size) break;
      const int m = (l + 1 < size && nb_less(a[l], a[l + 1])) ? l + 1 : l;
      if (!nb_less(v, a[m])) break;
      a[i] = a[m];
      i = m;
    }
    a[i] = v;
  }

  // Can a region whose points all have canonical squared distance >= box2
  // still contribute? Never prune on equality of distances: a point at the
  // same distance with a smaller index would still enter.
  bool prunes(double box2) const {
    if (size < k) return false;
    const nb& t = a[0];
    return box2 > t.d2 && std::sqrt(box2) > t.d;
  }
};

// Largest double x with sqrt(x) <= eps, so that sqrt(d2) <= eps <=> d2 <= x.
double radius_threshold(double eps) {
  double x = eps * eps;
  const double inf = std::numeric_limits<double>::infinity();
  while (x > 0 && std::sqrt(x) > eps) x = std::nextafter(x, 0.0);
  while (x < inf) {
    const double nx = std::nextafter(x, inf);
    if (std::sqrt(nx) > eps) break;
    x = nx;
  }
  return x;
}

// Column-major n x p -> point-contiguous p x n (point j at out + j * p),
// optionally shifted by -shift.
std::vector<double> transpose_points(const double* X, size_t n, size_t p,
                                     const double* shift = nullptr) {
  std::vector<double> out(n * p);
  const size_t B = 64;
  for (size_t j0 = 0; j0 < n; j0 += B) {
    const size_t j1 = std::min(n, j0 + B);
    for (size_t l = 0; l < p; ++l) {
      const double* col = X + l * n;
      double* dst = out.data() + l;
      if (shift == nullptr) {
        for (size_t j = j0; j < j1; ++j) dst[j * p] = col[j];
      } else {
        const double s = shift[l];
        for (size_t j = j0; j < j1; ++j) dst[j * p] = col[j] - s;
      }
    }
  }
  return out;
}

int thread_count(int n_threads, size_t work_items) {
  int nt = resolve_threads(n_threads);
  if (nt < 1) nt = 1;
  if (work_items < static_cast<size_t>(nt)) nt = static_cast<int>(std::max<size_t>(work_items, 1));
  return nt;
}

// Runs body(item, scratch) for item in [0, count) over threads, with one
// Scratch object per thread (parallel.h's driver: interrupt polling and
// exception capture).
template <class Scratch, class MakeScratch, class Body>
void parallel_items(size_t count, int nt, MakeScratch make, Body body) {
  parallel_row_blocks(
      count, std::max<size_t>(count, 1), nt, [](size_t, size_t) {},
      [&]() {
        Scratch s;
        make(s);
        return s;
      },
      [&](Scratch& s, size_t item) { body(item, s); }, [](Scratch&) {}, 1);
}

// ---------------------------------------------------------------------------
// kd-tree
// ---------------------------------------------------------------------------

constexpr int kLeafSize = 24;

// Many columns: the tree is built on a projection z(x) = (U'(x - mu),
// |(I - U U')(x - mu)|), U the leading principal axes of the training points
// (at most kProjAxes) and the last coordinate the norm of the residual. For
// any x, q: |q - x|^2 >= |U'(q - x)|^2 + (rho(q) - rho(x))^2 = |z(q) - z(x)|^2
// (the residual part by the reverse triangle inequality), so distances to
// boxes in z bound the true distances from below; a slack covers the
// rounding of the projection. Distances to points are always the canonical
// ones on the coordinates as given, so the lists do not depend on U.
constexpr size_t kProjAxes = 12;
constexpr size_t kProjMaxP = 256;  // above, the projection costs more than it saves
constexpr size_t kProjSample = 4096;

struct kd_projection {
  size_t p = 0, r = 0;     // input columns; axes (the projection has r + 1 coordinates)
  std::vector<double> mu;  // p
  std::vector<double> U;   // r x p: axis a at &U[a * p]

  size_t dim() const { return r + 1; }

  // z(x) into z (r + 1 values), using tmp (p values); returns |x - mu|.
  double project(const double* x, double* z, double* tmp) const {
    double nrm2 = 0.0;
    for (size_t l = 0; l < p; ++l) {
      tmp[l] = x[l] - mu[l];
      nrm2 += tmp[l] * tmp[l];
    }
    for (size_t a = 0; a < r; ++a) {
      const double* u = &U[a * p];
      double s = 0.0;
      for (size_t l = 0; l < p; ++l) s += u[l] * tmp[l];
      z[a] = s;
    }
    // the residual, computed (not |x - mu|^2 - |z|^2, which cancels)
    for (size_t a = 0; a < r; ++a) {
      const double* u = &U[a * p];
      const double za = z[a];
      for (size_t l = 0; l < p; ++l) tmp[l] -= za * u[l];
    }
    double res = 0.0;
    for (size_t l = 0; l < p; ++l) res += tmp[l] * tmp[l];
    z[r] = std::sqrt(res);
    return std::sqrt(nrm2);
  }
};

// The leading principal axes of the p x n point-contiguous points (covariance
// and a dense symmetric eigendecomposition). Returns false (no projection)
// when the decomposition fails.
bool make_projection(const double* src, size_t n, size_t p, kd_projection& pr) {
  pr.p = p;
  pr.r = std::min(kProjAxes, p - 1);
  pr.mu.assign(p, 0.0);
  for (size_t j = 0; j < n; ++j) {
    const double* x = src + j * p;
    for (size_t l = 0; l < p; ++l) pr.mu[l] += x[l];
  }
  for (size_t l = 0; l < p; ++l) pr.mu[l] /= static_cast<double>(n);
  // the axes need not be exact (any orthonormal U gives valid bounds): the
  // covariance of at most kProjSample points spread evenly over the rows
  const size_t ns = std::min(n, kProjSample);
  arma::mat S(ns, p);
  for (size_t e = 0; e < ns; ++e) {
    const double* x = src + ((e * n) / ns) * p;
    for (size_t l = 0; l < p; ++l) S(e, l) = x[l] - pr.mu[l];
  }
  arma::mat C(p, p, arma::fill::zeros);
  crossprod_lower_acc(S.memptr(), static_cast<long>(ns), static_cast<long>(ns), static_cast<long>(p),
                      C.memptr(), static_cast<long>(p), 1);
  C = arma::symmatl(C);
  arma::vec val;
  arma::mat vec;
  try {
    std::string how;
    detail::eig_sym_full(C, val, vec, how);
  } catch (...) {
    return false;
  }
  pr.U.resize(pr.r * p);
  for (size_t a = 0; a < pr.r; ++a) {
    const double* v = vec.colptr(p - 1 - a);  // ascending: the largest last
    for (size_t l = 0; l < p; ++l) pr.U[a * p + l] = v[l];
  }
  return true;
}

class kd_tree {
 public:
  // src: p x n point-contiguous coordinates; proj: null (the tree on the
  // coordinates themselves) or the projection to build it on.
  kd_tree(const double* src, size_t n, size_t p, int leaf_size, const kd_projection* proj = nullptr)
      : p_(p), dz_(proj ? proj->dim() : p), leaf_(leaf_size), proj_(proj) {
    perm_.resize(n);
    for (size_t j = 0; j < n; ++j) perm_[j] = static_cast<int>(j);
    const double* zsrc = src;
    std::vector<double> zown, norms_own;
    if (proj_ != nullptr) {
      zown.resize(n * dz_);
      norms_own.resize(n);
      std::vector<double> tmp(p);
      for (size_t j = 0; j < n; ++j) {
        norms_own[j] = proj_->project(src + j * p, &zown[j * dz_], tmp.data());
        rmax_ = std::max(rmax_, norms_own[j]);
      }
      zsrc = zown.data();
    }
    nodes_.reserve(4 * (n / static_cast<size_t>(leaf_size) + 1));
    build(0, static_cast<int>(n), zsrc);
    pts_.resize(n * p);
    for (size_t t = 0; t < n; ++t) {
      std::memcpy(&pts_[t * p], src + static_cast<size_t>(perm_[t]) * p, p * sizeof(double));
    }
    if (proj_ != nullptr) {
      zpts_.resize(n * dz_);
      for (size_t t = 0; t < n; ++t) {
        std::memcpy(&zpts_[t * dz_], &zown[static_cast<size_t>(perm_[t]) * dz_], dz_ * sizeof(double));
      }
      norms_.resize(n);
      for (size_t t = 0; t < n; ++t) norms_[t] = norms_own[static_cast<size_t>(perm_[t])];
    }
  }

  const double* point(size_t t) const { return &pts_[t * p_]; }
  int original_index(size_t t) const { return perm_[t]; }
  bool projected() const { return proj_ != nullptr; }
  size_t zdim() const { return dz_; }
  // the projection of training point t (tree order); the point itself without one
  const double* zpoint(size_t t) const { return proj_ ? &zpts_[t * dz_] : &pts_[t * p_]; }

  // The projection of query q into z (zdim values; tmp: p values); returns the
  // slack of its box distances. Without a projection, zq = q and no slack.
  const double* project_query(const double* q, double* z, double* tmp, double& slack) const {
    if (proj_ == nullptr) {
      slack = 0.0;
      return q;
    }
    const double qn = proj_->project(q, z, tmp);
    slack = query_slack(qn);
    return z;
  }
  double query_slack(double qnorm) const {
    if (proj_ == nullptr) return 0.0;
    // each projected coordinate errs by far less than 1e-9 (|x - mu| + |q - mu|)
    // for p <= kProjMaxP; the box distance by sqrt(r + 1) times twice that
    return 2e-9 * (rmax_ + qnorm) * std::sqrt(static_cast<double>(dz_));
  }
  // the slack of training point t (tree order) as a query
  double self_slack(size_t t) const { return proj_ ? query_slack(norms_[t]) : 0.0; }

  // visits: if not null, incremented by the number of points the leaves compared.
  void knn(const double* q, const double* zq, double slack, int self, nb_heap& h,
           size_t* visits = nullptr) const {
    knn_rec(0, q, zq, slack, self, h, visits);
  }

  // Appends the points with canonical squared distance <= thr2 (a tree
  // without projection only).
  void radius(const double* q, int self, double thr2, std::vector<nb>& out) const {
    radius_rec(0, q, self, thr2, out);
  }

 private:
  struct node {
    int begin, end;
    int left, right;  // -1 for a leaf
  };

  size_t p_, dz_;
  int leaf_;
  const kd_projection* proj_;
  double rmax_ = 0.0;         // largest |x - mu| of the training points (projection)
  std::vector<int> perm_;     // tree position -> original index
  std::vector<double> pts_;   // p x n in tree order
  std::vector<double> zpts_;  // dz x n projections in tree order (projection only)
  std::vector<double> norms_; // |x - mu| in tree order (projection only)
  std::vector<node> nodes_;
  std::vector<double> lo_, hi_;  // tight bounding box per node (dz each)

  int build(int b, int e, const double* src) {
    const size_t d = dz_;
    const int id = static_cast<int>(nodes_.size());
    nodes_.push_back(node{b, e, -1, -1});
    lo_.resize(static_cast<size_t>(id + 1) * d);
    hi_.resize(static_cast<size_t>(id + 1) * d);
    double* lo = &lo_[static_cast<size_t>(id) * d];
    double* hi = &hi_[static_cast<size_t>(id) * d];
    const double* first = src + static_cast<size_t>(perm_[b]) * d;
    for (size_t l = 0; l < d; ++l) lo[l] = hi[l] = first[l];
    for (int t = b + 1; t < e; ++t) {
      const double* x = src + static_cast<size_t>(perm_[t]) * d;
      for (size_t l = 0; l < d; ++l) {
        if (x[l] < lo[l]) lo[l] = x[l];
        if (x[l] > hi[l]) hi[l] = x[l];
      }
    }
    size_t w = 0;
    double spread = -1.0;
    for (size_t l = 0; l < d; ++l) {
      const double s = hi[l] - lo[l];
      if (s > spread) {
        spread = s;
        w = l;
      }
    }
    if (e - b <= leaf_ || !(spread > 0)) return id;
    const int mid = b + (e - b) / 2;
    std::nth_element(perm_.begin() + b, perm_.begin() + mid, perm_.begin() + e,
                     [src, d, w](int x, int y) {
                       const double vx = src[static_cast<size_t>(x) * d + w];
                       const double vy = src[static_cast<size_t>(y) * d + w];
                       return vx < vy || (vx == vy && x < y);
                     });
    const int left = build(b, mid, src);
    const int right = build(mid, e, src);
    nodes_[id].left = left;
    nodes_[id].right = right;
    return id;
  }

  // Squared distance from z to the node's box, summed in coordinate order
  // like canonical_sqdist. Without a projection, every point of the box has
  // canonical squared distance >= this value (rounding is monotone).
  double box_sqdist(int id, const double* z) const {
    const double* lo = &lo_[static_cast<size_t>(id) * dz_];
    const double* hi = &hi_[static_cast<size_t>(id) * dz_];
    double s = 0.0;
    for (size_t l = 0; l < dz_; ++l) {
      double g = 0.0;
      if (z[l] < lo[l]) {
        g = lo[l] - z[l];
      } else if (z[l] > hi[l]) {
        g = z[l] - hi[l];
      }
      s += g * g;
    }
    return s;
  }

  // A lower bound of the canonical squared distances of the node's points.
  double box_bound(int id, const double* zq, double slack) const {
    const double b = box_sqdist(id, zq);
    return proj_ == nullptr ? b : shrink_bound(b, slack);
  }
  // ... and of one point's, from the squared distance of the projections
  // summed in any order (fast_sqdist)
  double point_bound(double z2, double slack) const {
    return shrink_bound(z2 * (1.0 - 4.0 * (static_cast<double>(dz_) + 2.0) * DBL_EPSILON), slack);
  }
  double shrink_bound(double b, double slack) const {
    const double r = std::sqrt(b) - slack;
    if (!(r > 0)) return 0.0;
    // the canonical summation errs by less than (p + 2) u relative
    return r * r * (1.0 - 4.0 * (static_cast<double>(p_) + 2.0) * DBL_EPSILON);
  }

  void knn_rec(int id, const double* q, const double* zq, double slack, int self, nb_heap& h,
               size_t* visits) const {
    const node& nd = nodes_[id];
    if (nd.left < 0) {
      if (visits != nullptr) *visits += static_cast<size_t>(nd.end - nd.begin);
      // in 8 or more columns, fast_sqdist screens the points once the list
      // is full: it and the canonical sum add the same nonnegative terms, so
      // they differ by less than 2 (p + 2) u relative
      const bool screen = p_ >= 8;
      const double shrink = 1.0 - 4.0 * (static_cast<double>(p_) + 2.0) * DBL_EPSILON;
      for (int t = nd.begin; t < nd.end; ++t) {
        const int j = perm_[t];
        if (j == self) continue;
        const double* x = &pts_[static_cast<size_t>(t) * p_];
        if (screen && h.size == h.k) {
          // with a projection, first the point's own lower bound in z
          if (proj_ != nullptr &&
              h.prunes(point_bound(fast_sqdist(zq, &zpts_[static_cast<size_t>(t) * dz_], dz_), slack))) {
            continue;
          }
          if (h.prunes(fast_sqdist(q, x, p_) * shrink)) continue;
        }
        h.offer(canonical_sqdist(q, x, p_), j);
      }
      return;
    }
    int a = nd.left, b = nd.right;
    double da = box_bound(a, zq, slack), db = box_bound(b, zq, slack);
    if (db < da) {
      std::swap(a, b);
      std::swap(da, db);
    }
    if (!h.prunes(da)) knn_rec(a, q, zq, slack, self, h, visits);
    if (!h.prunes(db)) knn_rec(b, q, zq, slack, self, h, visits);
  }

  void radius_rec(int id, const double* q, int self, double thr2, std::vector<nb>& out) const {
    const node& nd = nodes_[id];
    if (nd.left < 0) {
      for (int t = nd.begin; t < nd.end; ++t) {
        const int j = perm_[t];
        if (j == self) continue;
        const double d2 = canonical_sqdist(q, &pts_[static_cast<size_t>(t) * p_], p_);
        if (d2 <= thr2) out.push_back(nb{std::sqrt(d2), d2, j});
      }
      return;
    }
    if (box_sqdist(nd.left, q) <= thr2) radius_rec(nd.left, q, self, thr2, out);
    if (box_sqdist(nd.right, q) <= thr2) radius_rec(nd.right, q, self, thr2, out);
  }
};

constexpr size_t kQueryChunk = 64;

// The chunked, threaded walk over the m queries of a tree (qt: point-
// contiguous queries, or null for the training points themselves, then in
// tree order for locality). visit(q, tree position or SIZE_MAX, self index or
// -1, output row, scratch) per query.
template <class Scratch, class MakeScratch, class Visit>
void kdtree_walk(const kd_tree& tree, size_t p, const double* qt, size_t m, int n_threads,
                 MakeScratch make, Visit visit) {
  const bool self = qt == nullptr;
  const size_t nchunks = (m + kQueryChunk - 1) / kQueryChunk;
  const int nt = thread_count(n_threads, nchunks);
  parallel_items<Scratch>(nchunks, nt, make, [&](size_t c, Scratch& scratch) {
    const size_t t1 = std::min(m, (c + 1) * kQueryChunk);
    for (size_t t = c * kQueryChunk; t < t1; ++t) {
      if (self) {
        const int i = tree.original_index(t);
        visit(tree.point(t), t, i, static_cast<size_t>(i), scratch);
      } else {
        visit(&qt[t * p], SIZE_MAX, -1, t, scratch);
      }
    }
  });
}

// The kd-tree over X (no projection) and the walk over the queries Q (or the
// training points when Q is null).
template <class Scratch, class MakeScratch, class Visit>
void kdtree_queries(const double* X, size_t n, size_t p, const double* Q, size_t m,
                    int n_threads, MakeScratch make, Visit visit) {
  kd_tree tree = [&] {
    std::vector<double> xt = transpose_points(X, n, p);
    return kd_tree(xt.data(), n, p, kLeafSize);
  }();
  std::vector<double> qt;
  if (Q != nullptr) qt = transpose_points(Q, m, p);
  kdtree_walk<Scratch>(tree, p, Q != nullptr ? qt.data() : nullptr, m, n_threads, make,
                       [&](const double* q, size_t, int self_i, size_t row, Scratch& s) {
                         visit(tree, q, self_i, row, s);
                       });
}

struct kd_scratch {
  std::vector<nb> buf;
  std::vector<double> z, tmp;
};

// One query's k nearest: into buf (sorted); returns the points compared.
size_t kd_query(const kd_tree& tree, const double* q, size_t pos, int self_i, int k, kd_scratch& s) {
  double slack = 0.0;
  const double* zq = q;
  if (tree.projected()) {
    if (pos != SIZE_MAX) {
      zq = tree.zpoint(pos);
      slack = tree.self_slack(pos);
    } else {
      zq = tree.project_query(q, s.z.data(), s.tmp.data(), slack);
    }
  }
  nb_heap h;
  h.a = s.buf.data();
  h.k = k;
  size_t visits = 0;
  tree.knn(q, zq, slack, self_i, h, &visits);
  std::sort_heap(s.buf.data(), s.buf.data() + h.size, nb_order());
  return visits;
}

void kdtree_knn_tree(const kd_tree& tree, size_t p, const double* qt, size_t m, int k,
                     int n_threads, int* idx_out, double* dist_out) {
  kdtree_walk<kd_scratch>(
      tree, p, qt, m, n_threads,
      [&](kd_scratch& s) {
        s.buf.resize(static_cast<size_t>(k));
        s.z.resize(tree.zdim());
        s.tmp.resize(p);
      },
      [&](const double* q, size_t pos, int self_i, size_t row, kd_scratch& s) {
        kd_query(tree, q, pos, self_i, k, s);
        for (int r = 0; r < k; ++r) {
          idx_out[row + static_cast<size_t>(r) * m] = s.buf[r].i;
          dist_out[row + static_cast<size_t>(r) * m] = s.buf[r].d;
        }
      });
}

// project: build the tree on the principal axes (kd_projection) when they
// can be computed. Returns whether it did.
bool kdtree_knn(const double* X, size_t n, size_t p, const double* Q, size_t m, int k,
                int n_threads, int* idx_out, double* dist_out, bool project) {
  std::vector<double> xt = transpose_points(X, n, p);
  kd_projection proj;
  project = project && make_projection(xt.data(), n, p, proj);
  const kd_tree tree(xt.data(), n, p, kLeafSize, project ? &proj : nullptr);
  std::vector<double>().swap(xt);
  std::vector<double> qt;
  if (Q != nullptr) qt = transpose_points(Q, m, p);
  kdtree_knn_tree(tree, p, Q != nullptr ? qt.data() : nullptr, m, k, n_threads, idx_out,
                  dist_out);
  return project;
}

// Many columns, algorithm "auto": the kd-tree on the projection answers the
// queries when a pilot says it compares few points; brute force otherwise.
// Both give the same lists, so the choice changes only the time. The pilot
// searches kPilot queries spread over all of them in a tree of at most
// kPilotTrain training points (spread evenly; with k scaled to the same
// radius), so that data it rejects cost little more than brute force; it
// accepts when they compared at most kPilotShare of those points each (the
// brute-force kernel compares all of them, several times faster per point).
// A tree grows more selective with more points, so the pilot errs on the
// side of brute force.
constexpr size_t kPilot = 64;
constexpr size_t kPilotTrain = 4096;
constexpr double kPilotShare = 0.1;

bool knn_projected_auto(const double* X, size_t n, size_t p, const double* Q, size_t m, int k,
                        int n_threads, int* idx_out, double* dist_out) {
  // below about 1,000 queries, building the projection and the tree costs more
  // than it can save
  if (p <= 15 || p > kProjMaxP || n < 2000 || m < 1000) return false;
  std::vector<double> xt = transpose_points(X, n, p);
  kd_projection proj;
  if (!make_projection(xt.data(), n, p, proj)) return false;
  std::vector<double> qt;
  if (Q != nullptr) qt = transpose_points(Q, m, p);
  const double* qp = Q != nullptr ? qt.data() : xt.data();
  {
    const size_t ns = std::min(n, kPilotTrain);
    std::vector<double> xs(ns * p);
    for (size_t e = 0; e < ns; ++e) {
      std::memcpy(&xs[e * p], &xt[((e * n) / ns) * p], p * sizeof(double));
    }
    const kd_tree pilot(xs.data(), ns, p, kLeafSize, &proj);
    const double kk = std::ceil(static_cast<double>(k) * static_cast<double>(ns) / static_cast<double>(n));
    const int ks = static_cast<int>(std::min(static_cast<double>(ns), std::max(1.0, kk)));
    kd_scratch s;
    s.buf.resize(static_cast<size_t>(ks));
    s.z.resize(pilot.zdim());
    s.tmp.resize(p);
    size_t visits = 0;
    const double budget = kPilotShare * static_cast<double>(ns) * static_cast<double>(kPilot);
    for (size_t e = 0; e < kPilot; ++e) {
      const size_t t = (e * m) / kPilot + (m / kPilot) / 2;
      visits += kd_query(pilot, &qp[t * p], SIZE_MAX, -1, ks, s);
      if (static_cast<double>(visits) > budget) return false;
    }
  }
  const kd_tree tree(xt.data(), n, p, kLeafSize, &proj);
  std::vector<double>().swap(xt);
  kdtree_knn_tree(tree, p, Q != nullptr ? qt.data() : nullptr, m, k, n_threads, idx_out, dist_out);
  return true;
}

void kdtree_radius(const double* X, size_t n, size_t p, const double* Q, size_t m, double thr2,
                   int n_threads, std::vector<std::vector<nb>>& rows) {
  kdtree_queries<int>(X, n, p, Q, m, n_threads, [](int&) {},
                      [&](const kd_tree& tree, const double* q, int self_i, size_t row, int&) {
                        std::vector<nb>& out = rows[row];
                        tree.radius(q, self_i, thr2, out);
                        std::sort(out.begin(), out.end(), nb_order());
                      });
}

// ---------------------------------------------------------------------------
// Cross-product kernels.
//
// Centred points are stored in panels of kPanel points: panel b holds, for
// each coordinate l, the kPanel values x_{kPanel b + e, l} contiguously
// (points past the end are zero). A kernel call computes the dot products of
// the query panels starting at qpack (r_pad rows, a multiple of kPanel) with
// all training panels, into G (r_pad x n_pad, row-major). Only the selection
// of candidates uses these values, so the kernel may use any summation order
// or fused multiply-adds.
// ---------------------------------------------------------------------------

constexpr size_t kPanel = 8;
constexpr size_t kDepthBlock = 128;  // coordinates per pass (L1-resident panels)

using gram_fn = void (*)(const double* qpack, size_t r_pad, const double* xpack, size_t n_pad,
                         size_t p, double* G);

#if defined(__GNUC__)
#define MO_ALWAYS_INLINE inline __attribute__((always_inline))

typedef double mo_v2d __attribute__((vector_size(16)));
typedef double mo_v4d __attribute__((vector_size(32)));

// MR query rows (lanes lane0 .. lane0 + MR - 1 of the query panel qp) times
// the kPanel training points of panel xp, over coordinates [l0, l0 + len).
template <typename V, int MR>
MO_ALWAYS_INLINE void gram_tile(const double* qp, size_t lane0, const double* xp, size_t l0,
                                size_t len, bool first, double* g, size_t ldg) {
  constexpr int W = static_cast<int>(sizeof(V) / sizeof(double));
  constexpr int NV = static_cast<int>(kPanel) / W;
  V acc[MR][NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = V{};
  }
  const double* x = xp + l0 * kPanel;
  const double* q = qp + l0 * kPanel + lane0;
  for (size_t l = 0; l < len; ++l) {
    V xv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) std::memcpy(&xv[v], x + v * W, sizeof(V));
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      V qb;
#pragma GCC unroll 4
      for (int e = 0; e < W; ++e) qb[e] = q[i];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] += qb * xv[v];
    }
    x += kPanel;
    q += kPanel;
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    double* gi = g + static_cast<size_t>(i) * ldg;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      V cur = acc[i][v];
      if (!first) {
        V old;
        std::memcpy(&old, gi + v * W, sizeof(V));
        cur += old;
      }
      std::memcpy(gi + v * W, &cur, sizeof(V));
    }
  }
}
#else
#define MO_ALWAYS_INLINE inline
typedef double mo_v2d;
typedef double mo_v4d;

template <typename V, int MR>
inline void gram_tile(const double* qp, size_t lane0, const double* xp, size_t l0, size_t len,
                      bool first, double* g, size_t ldg) {
  for (int i = 0; i < MR; ++i) {
    for (size_t e = 0; e < kPanel; ++e) {
      double s = 0.0;
      for (size_t l = l0; l < l0 + len; ++l) s += qp[l * kPanel + lane0 + i] * xp[l * kPanel + e];
      double* gi = g + static_cast<size_t>(i) * ldg + e;
      *gi = first ? s : *gi + s;
    }
  }
}
#endif

template <typename V, int MR>
MO_ALWAYS_INLINE void gram_block(const double* qpack, size_t r_pad, const double* xpack,
                                 size_t n_pad, size_t p, double* G) {
  static_assert(kPanel % MR == 0, "MR must divide the panel width");
  const size_t panel_len = p * kPanel;
  for (size_t l0 = 0; l0 < p; l0 += kDepthBlock) {
    const size_t len = std::min(kDepthBlock, p - l0);
    const bool first = l0 == 0;
    for (size_t j0 = 0; j0 < n_pad; j0 += kPanel) {
      const double* xp = xpack + (j0 / kPanel) * panel_len;
      for (size_t i0 = 0; i0 < r_pad; i0 += kPanel) {
        const double* qp = qpack + (i0 / kPanel) * panel_len;
        for (size_t lane = 0; lane < kPanel; lane += MR) {
          gram_tile<V, MR>(qp, lane, xp, l0, len, first, G + (i0 + lane) * n_pad + j0, n_pad);
        }
      }
    }
  }
}

void gram_portable(const double* qpack, size_t r_pad, const double* xpack, size_t n_pad,
                   size_t p, double* G) {
  gram_block<mo_v2d, 2>(qpack, r_pad, xpack, n_pad, p, G);
}

#if MO_KNN_X86_DISPATCH
__attribute__((target("avx2,fma"))) void gram_avx2(const double* qpack, size_t r_pad,
                                                    const double* xpack, size_t n_pad, size_t p,
                                                    double* G) {
  gram_block<mo_v4d, 4>(qpack, r_pad, xpack, n_pad, p, G);
}

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
bool cpu_has_avx2() { return false; }
#endif

std::atomic<int> g_kernel_pref{0};  // 0 automatic, 1 portable, 2 avx2

gram_fn pick_gram(const char** name = nullptr) {
  const int pref = g_kernel_pref.load();
#if MO_KNN_X86_DISPATCH
  if (pref != 1 && cpu_has_avx2()) {
    if (name) *name = "avx2";
    return &gram_avx2;
  }
#endif
  (void)pref;
  if (name) *name = "portable";
  return &gram_portable;
}

// ---------------------------------------------------------------------------
// Brute force
// ---------------------------------------------------------------------------

constexpr size_t kMaxBlockRows = 96;                 // multiple of kPanel
constexpr size_t kColChunk = 512;                    // training points per pass

inline size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

// Centred copy of the column-major cnt x p matrix A in panel layout, and the
// squared norms of the centred points.
void pack_centred(const double* A, size_t cnt, size_t p, const double* mu,
                  std::vector<double>& pack, std::vector<double>& norms) {
  const size_t cnt_pad = round_up(std::max<size_t>(cnt, 1), kPanel);
  pack.assign(cnt_pad * p, 0.0);
  norms.assign(cnt, 0.0);
  for (size_t b = 0; b < cnt_pad / kPanel; ++b) {
    const size_t e_end = std::min(kPanel, cnt - std::min(cnt, b * kPanel));
    double* dst = &pack[b * p * kPanel];
    for (size_t l = 0; l < p; ++l) {
      const double* src = A + l * cnt + b * kPanel;
      for (size_t e = 0; e < e_end; ++e) {
        const double v = src[e] - mu[l];
        dst[l * kPanel + e] = v;
        norms[b * kPanel + e] += v * v;
      }
    }
  }
}

// Shared preprocessed data: original point-contiguous coordinates (for the
// canonical distances) and centred panels with their squared norms (for the
// expansion).
struct brute_data {
  size_t n = 0, m = 0, p = 0, n_pad = 0;
  bool self = true;
  std::vector<double> xt, xpack, xn;
  std::vector<double> qt_own, qpack_own, qn_own;
  const double* qt = nullptr;
  const double* qpack = nullptr;
  const double* qn = nullptr;
  double xn_max = 0.0;
  double cc = 0.0;  // relative bound on the rounding error of the expansion

  brute_data(const double* X, size_t n_, size_t p_, const double* Q, size_t m_)
      : n(n_), m(m_), p(p_), self(Q == nullptr) {
    n_pad = round_up(n, kPanel);
    std::vector<double> mu(p, 0.0);
    for (size_t l = 0; l < p; ++l) {
      const double* col = X + l * n;
      double s = 0.0;
      for (size_t j = 0; j < n; ++j) s += col[j];
      mu[l] = s / static_cast<double>(n);
    }
    xt = transpose_points(X, n, p);
    pack_centred(X, n, p, mu.data(), xpack, xn);
    for (double v : xn) xn_max = std::max(xn_max, v);
    if (self) {
      qt = xt.data();
      qpack = xpack.data();
      qn = xn.data();
    } else {
      qt_own = transpose_points(Q, m, p);
      pack_centred(Q, m, p, mu.data(), qpack_own, qn_own);
      qt = qt_own.data();
      qpack = qpack_own.data();
      qn = qn_own.data();
    }
    // The expansion, the centring and the canonical summation each err by at
    // most about (p + 4) u (|a|^2 + |b|^2 + d^2); take a wide safety factor.
    cc = 4.0 * (static_cast<double>(p) + 8.0) * DBL_EPSILON;
  }

  // Query rows per block (a multiple of kPanel); the scratch per thread is
  // kMaxBlockRows x kColChunk doubles, far below the 128 MiB budget.
  size_t block_rows() const {
    return std::min(kMaxBlockRows, round_up(std::max<size_t>(m, 1), kPanel));
  }
};

using cand_t = std::pair<double, int>;  // (approximate squared distance, index)

inline bool cand_less(const cand_t& a, const cand_t& b) {
  return a.first < b.first || (a.first == b.first && a.second < b.second);
}

struct cand_order {  // cand_less as a function object, so that heap code inlines it
  bool operator()(const cand_t& a, const cand_t& b) const { return cand_less(a, b); }
};

// Replaces the largest pair of the max-heap h[0 .. c) by v (smaller than it)
// and restores the heap: one sift-down instead of a pop and a push.
inline void heap_replace_top(cand_t* h, size_t c, const cand_t& v) {
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= c) break;
    if (child + 1 < c && cand_less(h[child], h[child + 1])) ++child;
    if (!cand_less(v, h[child])) break;
    h[i] = h[child];
    i = child;
  }
  h[i] = v;
}

struct brute_scratch {
  std::vector<double> G;      // r_pad x kColChunk dot products
  std::vector<cand_t> heaps;  // kNN: per query row, a max-heap of c candidates
  std::vector<nb> cand;
  std::vector<int> members;
};

// Approximate squared distance from the expansion, clamped at 0.
inline double approx_sqdist(double qn, double xn, double g) {
  const double a = qn + xn - 2.0 * g;
  return a > 0.0 ? a : 0.0;
}

// Dot product of centred query i and centred training point j, read from the
// panels (used only on the rare path that rescans a whole row).
inline double packed_dot(const brute_data& D, size_t i, size_t j) {
  const double* q = D.qpack + (i / kPanel) * D.p * kPanel + i % kPanel;
  const double* x = D.xpack.data() + (j / kPanel) * D.p * kPanel + j % kPanel;
  double s = 0.0;
  for (size_t l = 0; l < D.p; ++l) s += q[l * kPanel] * x[l * kPanel];
  return s;
}

// Drives the brute-force search: query rows in blocks of r (parallel over
// blocks); per block, training points in chunks of kColChunk so that the
// dot products stay in cache. chunk_fn(i, ii, j0, cnt, g, scratch) sees the
// dot products g[0 .. cnt) of query i (row ii of the block) with training
// points j0 .. j0 + cnt - 1; end_fn(i, ii, scratch) finishes query i.
template <class InitFn, class ChunkFn, class EndFn>
void brute_blocks(const brute_data& D, int n_threads, InitFn init_fn, ChunkFn chunk_fn,
                  EndFn end_fn) {
  const size_t nb_guess = (D.m + kMaxBlockRows - 1) / kMaxBlockRows;
  const int nt = thread_count(n_threads, std::max<size_t>(nb_guess, 1));
  const size_t r = D.block_rows();
  const size_t nblocks = (D.m + r - 1) / r;
  const gram_fn gram = pick_gram();
  const size_t n = D.n, n_pad = D.n_pad, p = D.p;
  const size_t nc_max = std::min(kColChunk, n_pad);
  parallel_items<brute_scratch>(
      nblocks, thread_count(nt, nblocks),
      [&](brute_scratch& s) {
        s.G.resize(r * nc_max);
        init_fn(r, s);
      },
      [&](size_t b, brute_scratch& s) {
        const size_t i0 = b * r;  // a multiple of kPanel
        const size_t rr = std::min(r, D.m - i0);
        const size_t r_pad = round_up(rr, kPanel);
        for (size_t j0 = 0; j0 < n_pad; j0 += nc_max) {
          const size_t nc = std::min(nc_max, n_pad - j0);
          gram(D.qpack + i0 * p, r_pad, D.xpack.data() + j0 * p, nc, p, s.G.data());
          const size_t cnt = std::min(nc, n - j0);
          for (size_t ii = 0; ii < rr; ++ii) chunk_fn(i0 + ii, ii, j0, cnt, s.G.data() + ii * nc, s);
        }
        for (size_t ii = 0; ii < rr; ++ii) end_fn(i0 + ii, ii, s);
      });
}

void brute_knn(const double* X, size_t n, size_t p, const double* Q, size_t m, int k,
               int n_threads, int* idx_out, double* dist_out) {
  const brute_data D(X, n, p, Q, m);
  const size_t kk = static_cast<size_t>(k);
  const size_t n_avail = D.self ? n - 1 : n;
  const size_t c = kk + std::min<size_t>(8, n_avail - kk);  // candidates per query
  const double* xn = D.xn.data();
  const double cc = D.cc;

  auto init_fn = [&](size_t r, brute_scratch& s) { s.heaps.resize(r * c); };

  // Keep the c smallest (approximate d2, index) pairs of each query in a
  // max-heap; training points come in increasing index order, so a later
  // point with an equal value never displaces an earlier one.
  auto chunk_fn = [&](size_t i, size_t ii, size_t j0, size_t cnt, const double* g,
                      brute_scratch& s) {
    cand_t* h = s.heaps.data() + ii * c;
    const double qn = D.qn[i];
    const size_t self_j = D.self ? i : std::numeric_limits<size_t>::max();
    // number of entries seen so far (self excluded)
    size_t seen = j0 - ((D.self && i < j0) ? 1 : 0);
    size_t jj = 0;
    for (; jj < cnt && seen < c; ++jj) {
      const size_t j = j0 + jj;
      if (j == self_j) continue;
      h[seen++] = cand_t(approx_sqdist(qn, xn[j], g[jj]), static_cast<int>(j));
      if (seen == c) std::make_heap(h, h + c, cand_order());
    }
    if (seen < c) return;
    double top = h[0].first;
    for (; jj < cnt; ++jj) {
      const size_t j = j0 + jj;
      const double a = approx_sqdist(qn, xn[j], g[jj]);
      if (a < top && j != self_j) {
        heap_replace_top(h, c, cand_t(a, static_cast<int>(j)));
        top = h[0].first;
      }
    }
  };

  auto end_fn = [&](size_t i, size_t ii, brute_scratch& s) {
    cand_t* h = s.heaps.data() + ii * c;
    const cand_t pivot = h[0];  // the largest selected pair
    const double* q = D.qt + i * p;
    std::vector<nb>& cand = s.cand;
    cand.clear();
    for (size_t t = 0; t < c; ++t) {
      const int j = h[t].second;
      const double d2 = canonical_sqdist(q, &D.xt[static_cast<size_t>(j) * p], p);
      cand.push_back(nb{std::sqrt(d2), d2, j});
    }
    std::sort(cand.begin(), cand.end(), nb_order());
    if (c < n_avail) {
      // A point outside the candidate set can belong to the list only if its
      // approximate d2 is within the error bound of the k-th canonical d2
      // (T2). All such points have approximate d2 >= the pivot's, so nothing
      // is missing when the pivot is beyond the widest bound; otherwise
      // rescan the row (rare: exact or near ties at the k-th distance).
      double T2 = 0.0;
      for (size_t t = 0; t < kk; ++t) T2 = std::max(T2, cand[t].d2);
      const double qn = D.qn[i];
      if (pivot.first <= T2 + cc * (qn + D.xn_max + T2)) {
        std::vector<int>& mem = s.members;
        mem.clear();
        for (size_t t = 0; t < c; ++t) mem.push_back(h[t].second);
        std::sort(mem.begin(), mem.end());
        const size_t before = cand.size();
        for (size_t j = 0; j < n; ++j) {
          if (D.self && j == i) continue;
          const double a = approx_sqdist(qn, xn[j], packed_dot(D, i, j));
          if (a <= T2 + cc * (qn + xn[j] + T2) &&
              !std::binary_search(mem.begin(), mem.end(), static_cast<int>(j))) {
            const double d2 = canonical_sqdist(q, &D.xt[j * p], p);
            cand.push_back(nb{std::sqrt(d2), d2, static_cast<int>(j)});
          }
        }
        if (cand.size() > before) std::sort(cand.begin(), cand.end(), nb_order());
      }
    }
    for (size_t t = 0; t < kk; ++t) {
      idx_out[i + t * m] = cand[t].i;
      dist_out[i + t * m] = cand[t].d;
    }
  };
  brute_blocks(D, n_threads, init_fn, chunk_fn, end_fn);
}

void brute_radius(const double* X, size_t n, size_t p, const double* Q, size_t m, double thr2,
                  int n_threads, std::vector<std::vector<nb>>& rows) {
  const brute_data D(X, n, p, Q, m);
  const double* xn = D.xn.data();
  const double cc = D.cc;
  brute_blocks(
      D, n_threads, [](size_t, brute_scratch&) {},
      [&](size_t i, size_t, size_t j0, size_t cnt, const double* g, brute_scratch&) {
        const double qn = D.qn[i];
        const double bound = thr2 + cc * (qn + D.xn_max + thr2);
        const double* q = D.qt + i * p;
        std::vector<nb>& out = rows[i];
        for (size_t jj = 0; jj < cnt; ++jj) {
          const size_t j = j0 + jj;
          const double a = approx_sqdist(qn, xn[j], g[jj]);
          if (a <= bound && a <= thr2 + cc * (qn + xn[j] + thr2) && !(D.self && j == i)) {
            const double d2 = canonical_sqdist(q, &D.xt[j * p], p);
            if (d2 <= thr2) out.push_back(nb{std::sqrt(d2), d2, static_cast<int>(j)});
          }
        }
      },
      [&](size_t i, size_t, brute_scratch&) { std::sort(rows[i].begin(), rows[i].end(), nb_order()); });
}

// the path of the last exact kNN search (testing hook): 1 kd-tree, 2 kd-tree
// on the projection, 3 brute force
std::atomic<int> g_last_path{0};

bool use_kdtree(knn_algorithm algo, size_t n, size_t p) {
  switch (algo) {
    case knn_algorithm::kdtree:
      return true;
    case knn_algorithm::brute:
      return false;
    default:
      return knn_prefer_kdtree(n, p);
  }
}

void check_common(size_t n, size_t p, const double* Q, size_t m) {
  if (n < 1) throw input_error("nearest-neighbour search: no training points.");
  if (p < 1) throw input_error("nearest-neighbour search: the points have no coordinates.");
  if (n > static_cast<size_t>(std::numeric_limits<int>::max() - 1)) {
    throw input_error("nearest-neighbour search: too many training points.");
  }
  if (Q == nullptr && m != n) {
    throw input_error("nearest-neighbour search: a self-search needs m == n.");
  }
}

}  // namespace

bool knn_prefer_kdtree(std::size_t n, std::size_t p) { return p <= 15 && n >= 500; }

const char* knn_last_exact_path() {
  switch (g_last_path.load()) {
    case 1:
      return "kdtree";
    case 2:
      return "kdtree_projected";
    case 3:
      return "brute";
    default:
      return "";
  }
}

void knn_search_raw(const double* X, std::size_t n, std::size_t p, const double* Q,
                    std::size_t m, int k, knn_algorithm algo, int n_threads, int* idx_out,
                    double* dist_out) {
  check_common(n, p, Q, m);
  const bool self = Q == nullptr;
  const size_t kmax = self ? n - 1 : n;
  if (k < 1 || static_cast<size_t>(k) > kmax) {
    throw input_error(self ? "knn: k must lie between 1 and the number of points minus one."
                           : "knn: k must lie between 1 and the number of training points.");
  }
  if (m == 0) return;
  if (use_kdtree(algo, n, p)) {
    // in many columns the tree is built on the projection (kd_projection)
    const bool projected = kdtree_knn(X, n, p, Q, m, k, n_threads, idx_out, dist_out,
                                      p > 15 && p <= kProjMaxP);
    g_last_path.store(projected ? 2 : 1);
  } else if (algo == knn_algorithm::automatic &&
             knn_projected_auto(X, n, p, Q, m, k, n_threads, idx_out, dist_out)) {
    g_last_path.store(2);
  } else {
    brute_knn(X, n, p, Q, m, k, n_threads, idx_out, dist_out);
    g_last_path.store(3);
  }
}

radius_lists radius_search_raw(const double* X, std::size_t n, std::size_t p,
                               const double* Q, std::size_t m, double eps,
                               knn_algorithm algo, int n_threads) {
  check_common(n, p, Q, m);
  if (!(eps >= 0) || !std::isfinite(eps)) {
    throw input_error("radius search: eps must be a finite number >= 0.");
  }
  radius_lists res;
  res.ptr.assign(m + 1, 0);
  if (m == 0) return res;
  const double thr2 = radius_threshold(eps);
  std::vector<std::vector<nb>> rows(m);
  if (use_kdtree(algo, n, p)) {
    kdtree_radius(X, n, p, Q, m, thr2, n_threads, rows);
  } else {
    brute_radius(X, n, p, Q, m, thr2, n_threads, rows);
  }
  for (size_t i = 0; i < m; ++i) {
    res.ptr[i + 1] = res.ptr[i] + static_cast<std::int64_t>(rows[i].size());
  }
  const size_t total = static_cast<size_t>(res.ptr[m]);
  res.idx.resize(total);
  res.dist.resize(total);
  size_t at = 0;
  for (size_t i = 0; i < m; ++i) {
    for (const nb& x : rows[i]) {
      res.idx[at] = x.i;
      res.dist[at] = x.d;
      ++at;
    }
    std::vector<nb>().swap(rows[i]);
  }
  return res;
}

void set_gram_kernel(gram_kernel kernel) {
  int v = 0;
  if (kernel == gram_kernel::portable) v = 1;
  if (kernel == gram_kernel::avx2) v = 2;
  g_kernel_pref.store(v);
}

const char* gram_kernel_name() {
  const char* name = "portable";
  pick_gram(&name);
  return name;
}

// ---------------------------------------------------------------------------
// Neighbours from distances given by the user
// ---------------------------------------------------------------------------

void knn_from_distances_raw(const double* Dq, std::size_t n, std::size_t m, int k, bool self,
                            int n_threads, int* idx_out, double* dist_out) {
  if (k < 1) throw input_error("knn: k must be at least 1.");
  if (self && m != n) throw input_error("knn: a self-search needs a square distance matrix.");
  const std::size_t avail = self ? n - 1 : n;
  if (static_cast<std::size_t>(k) > avail) {
    throw input_error("knn: k = " + std::to_string(k) + " exceeds the " + std::to_string(avail) +
                      " points available.");
  }
  const int nt = resolve_threads(n_threads);
  interrupt_flag flag(64);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
  {
    std::vector<int> cand;
    cand.reserve(n);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
    for (long a = 0; a < static_cast<long>(m); ++a) {
      if (flag.poll(a)) continue;
      const double* col = Dq + static_cast<std::size_t>(a) * n;
      cand.clear();
      for (std::size_t j = 0; j < n; ++j) {
        if (!(self && j == static_cast<std::size_t>(a))) cand.push_back(static_cast<int>(j));
      }
      auto less = [col](int u, int v) { return col[u] < col[v] || (col[u] == col[v] && u < v); };
      std::partial_sort(cand.begin(), cand.begin() + k, cand.end(), less);
      for (int r = 0; r < k; ++r) {
        const std::size_t at = static_cast<std::size_t>(a) + m * static_cast<std::size_t>(r);
        idx_out[at] = cand[r];
        dist_out[at] = col[cand[r]];
      }
    }
  }
  flag.rethrow_if_stopped();
  (void)nt;
}

radius_lists radius_from_distances_raw(const double* Dq, std::size_t n, std::size_t m, double eps,
                                       bool self) {
  if (self && m != n) throw input_error("radius: a self-search needs a square distance matrix.");
  radius_lists r;
  r.ptr.assign(m + 1, 0);
  std::vector<int> cand;
  for (std::size_t a = 0; a < m; ++a) {
    if ((a & 63u) == 0u) check_interrupt();
    const double* col = Dq + a * n;
    cand.clear();
    for (std::size_t j = 0; j < n; ++j) {
      if (col[j] <= eps && !(self && j == a)) cand.push_back(static_cast<int>(j));
    }
    std::sort(cand.begin(), cand.end(),
              [col](int u, int v) { return col[u] < col[v] || (col[u] == col[v] && u < v); });
    for (int j : cand) {
      r.idx.push_back(j);
      r.dist.push_back(col[j]);
    }
    r.ptr[a + 1] = static_cast<std::int64_t>(r.idx.size());
  }
  return r;
}

}  // namespace manifoldOOS
