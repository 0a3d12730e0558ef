// Piecewise-linear manifold learning (PLML; Strange 2011, thesis ch. 3;
// ICMLA10 "parallel projections"; BMVC10 "iterative hyperplane merging").
//
// 1. Constrained k-means (every cluster >= h points; the assignment step is a
//    min-cost flow solved exactly by successive shortest paths;
//    blocks/constrained_assignment.h) or k-means
//    followed by merging small clusters.
// 2. Local PCA per cluster: centre m_l, basis U_l (p x q), normal n_l.
// 3. Topology: the Euclidean MST of the points (exact Prim, or Kruskal on a
//    kNN graph plus component-joining edges for large n) contracted to a
//    model graph weighted by centroid distances, then its MST; or the MST of
//    the centroids ("centroid_mst", IHM).
// 4. Euler walk of the model MST from the root; forward moves rotate the
//    global model parallel to the new model and project onto it, backward
//    moves align rigidly (Procrustes) to the original local model.
// 5. Final PCA of the merged global model.
//
// Two exact implementations of step 4: the low-cost q-dimensional path of
// Strange (2011, ch. 4) in q dimensions (default) and the literal p-space path of the thesis (tests, fidelity
// options pivot = origin / own-axis targets).
//
// Header-only (Armadillo types cross no translation-unit boundary); the
// point MST is blocks/mst.h. No R or Rcpp types.
#ifndef MANIFOLDOOS_PLML_H
#define MANIFOLDOOS_PLML_H

#include <armadillo>
#include <string>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/constrained_assignment.h>
#include <manifoldOOS/blocks/graph.h>
#include <manifoldOOS/blocks/knn.h>
#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/blocks/local_pca.h>
#include <manifoldOOS/blocks/mst.h>
#include <manifoldOOS/blocks/procrustes.h>
#include <manifoldOOS/methods/plml_contiguity.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <random>
#include <utility>

namespace manifoldOOS {

enum class plml_cluster { constrained, kmeans_merge, given };  // given: opt.labels (e.g. a GMM partition made in R)
enum class plml_topology { point_mst, centroid_mst };
enum class plml_variant { pp, ihm };
enum class plml_backalign { rigid, similarity, none };

struct plml_options {
  int q = 2;                 // target dimension
  int k = 10;                // model size: c = floor(n / k) clusters
  int h = -1;                // minimum cluster size (-1: h = k)
  plml_cluster cluster = plml_cluster::constrained;
  plml_topology topology = plml_topology::point_mst;
  plml_variant variant = plml_variant::pp;
  plml_backalign backalign = plml_backalign::rigid;
  int root = -1;             // 0-based model index; -1: random (seed)
  bool literal_path = false; // p-space path (the thesis, literally) instead of the q-dimensional form
  bool pivot_origin = false; // literal reading: rotate about the origin (p-space path only)
  bool own_axes = false;     // literal reading: target axes = the new model's own (p-space path only)
  int mst_knn = 0;           // 0: exact Euclidean MST (Prim); > 0: kNN-graph MST with this k
  const knn_result* mst_graph = nullptr;  // mst_knn > 0: that graph, searched by the caller
                                          // (e.g. HNSW); nullptr: exact search here
  int n_start = 1;           // k-means restarts
  int max_iter = 50;         // k-means iterations
  int lloyd_iter = 0;        // ordinary k-means steps before the constrained ones
  bool random_init = false;  // seeds: c distinct random points instead of k-means++
  int n_candidates = 16;     // nearest centres a point may be assigned to (>= c: exact transportation LP)
  unsigned int seed = 1;
  int n_threads = 0;
  bool contiguous = true;    // hand detached pieces of clusters to the cluster they touch (plml_contiguity.h)
  std::vector<int> labels;   // cluster == given: 0-based cluster of every point (clusters 0..c-1, none empty)
};

// Clustering result.
struct plml_clusters {
  std::vector<int> label;   // 0-based cluster of every point
  int n_clusters = 0;
  double objective = 0.0;   // sum_i 1/2 ||x_i - mu_label(i)||^2
  int n_iter = 0;
  bool converged = false;
  long n_augment = 0;       // shortest augmenting paths used in the last assignment step
  std::vector<double> trace; // per constrained step: augmenting paths, phases, seconds, candidates, solves
};

// Constrained k-means (Bennett, Bradley & Demiriz 2000): c clusters, each with
// at least h points. The assignment step is the transportation problem
// min sum T_il 1/2||x_i - mu_l||^2, sum_l T_il = 1, sum_i T_il >= h, solved
// exactly (integral optimum) by successive shortest paths on the cluster
// residual graph, each point restricted to its n_candidates nearest centres
// (all centres when n_candidates >= c: then the step is the exact LP optimum).
inline plml_clusters constrained_kmeans(const arma::mat& X, int c, int h, const plml_options& opt);

// Ordinary k-means (k-means++ seeding) followed by merging every cluster with
// fewer than h points into the cluster of the nearest centroid.
inline plml_clusters kmeans_merge(const arma::mat& X, int c, int h, const plml_options& opt);

// Euler walk with backtracking of a tree from root (children in increasing
// edge weight, ties by vertex index), truncated after the last new vertex.
inline std::vector<int> euler_walk(int nv, const std::vector<mst_edge>& tree, int root);

struct plml_result {
  arma::mat Y;                 // n x q embedding (centred, deterministic signs)
  std::vector<int> label;      // 0-based cluster of every point
  int n_clusters = 0;
  arma::mat centres;           // c x p model centres m_l
  arma::cube bases;            // p x q x c local bases U_l
  arma::mat normals;           // c x p normals n_l
  std::vector<mst_edge> model_tree;  // c - 1 edges of the model MST (0-based)
  std::vector<int> walk;       // the Euler walk (0-based model indices)
  int root = 0;
  arma::cube maps;             // (q + 1) x q x c: [alpha_l; G_l], y = alpha_l + ((x - m_l) U_l) G_l
  long n_rank_deficient = 0;   // clusters whose q-th local singular value is ~ 0
  double objective = 0.0;
  int kmeans_iter = 0;
  bool kmeans_converged = false;
  std::vector<double> kmeans_trace;  // see plml_clusters::trace
  int n_forward = 0;
  int n_backward = 0;
  int n_moved = 0;             // points moved by the contiguity repair
};

inline plml_result plml_fit(const arma::mat& X, const plml_options& opt);

// Per-model out-of-sample map (Strange 2011, ch. 4): new row x of Xnew -> the model
// `model[i]` (0-based), y = alpha + ((x - m) U) G.
inline arma::mat plml_model_map(const arma::mat& Xnew, const std::vector<int>& model,
                         const arma::mat& centres, const arma::cube& bases, const arma::cube& maps);

// ---- implementation ----------------------------------------------------------


namespace plml_detail {

const double inf = std::numeric_limits<double>::infinity();

// ---- k-means++ seeding -------------------------------------------------------
inline arma::mat kmeanspp(const arma::mat& X, int c, std::mt19937& rng, int n_threads) {
  const arma::uword n = X.n_rows, p = X.n_cols;
  const arma::mat Xt = X.t();  // p x n: one point per column
  arma::mat C(p, c);
  std::vector<double> d2(n, inf);
  std::uniform_int_distribution<arma::uword> first(0, n - 1);
  arma::uword pick = first(rng);
  (void)n_threads;  // serial: one pass per centre is too short for a parallel region
  for (int l = 0; l < c; ++l) {
    C.col(l) = Xt.col(pick);
    const double* cl = C.colptr(l);
    if (l % 64 == 0) check_interrupt();
    for (arma::uword i = 0; i < n; ++i) {
      const double d = canonical_sqdist(Xt.colptr(i), cl, p);
      if (d < d2[i]) d2[i] = d;
    }
    if (l + 1 == c) break;
    double total = 0.0;
    for (double v : d2) total += v;
    if (!(total > 0)) {  // all points coincide with chosen centres: take any point
      pick = first(rng);
      continue;
    }
    std::uniform_real_distribution<double> u(0.0, total);
    double r = u(rng), acc = 0.0;
    pick = n - 1;
    for (arma::uword i = 0; i < n; ++i) {
      acc += d2[i];
      if (acc >= r && d2[i] > 0) {
        pick = i;
        break;
      }
    }
  }
  return C.t();
}

// c distinct data points drawn uniformly (partial Fisher-Yates): seeds whose
// density follows the data's, as equal-size clusters need. k-means++ seeds
// follow roughly its square root (spread out), so where the sampling density
// varies, the first constrained step must carry points over many clusters.
inline arma::mat random_rows(const arma::mat& X, int c, std::mt19937& rng) {
  const arma::uword n = X.n_rows;
  std::vector<arma::uword> idx(n);
  std::iota(idx.begin(), idx.end(), arma::uword(0));
  arma::uvec pick(c);
  for (int l = 0; l < c; ++l) {
    std::uniform_int_distribution<arma::uword> u(l, n - 1);
    std::swap(idx[l], idx[u(rng)]);
    pick[l] = idx[l];
  }
  return X.rows(pick);
}

// The seeds of both clusterings (opt.random_init: random points, else k-means++).
inline arma::mat seed_centres(const arma::mat& X, int c, std::mt19937& rng, const plml_options& opt) {
  return opt.random_init ? random_rows(X, c, rng) : kmeanspp(X, c, rng, opt.n_threads);
}

inline arma::mat cluster_means(const arma::mat& X, const std::vector<int>& lab, int c) {
  arma::mat M(c, X.n_cols, arma::fill::zeros);
  arma::vec cnt(c, arma::fill::zeros);
  for (arma::uword i = 0; i < X.n_rows; ++i) {
    M.row(lab[i]) += X.row(i);
    cnt(lab[i]) += 1.0;
  }
  for (int l = 0; l < c; ++l)
    if (cnt(l) > 0) M.row(l) /= cnt(l);
  return M;
}

// Lloyd step: label every point with its nearest centre; move every
// non-empty cluster's centre to its mean (empty ones stay).
inline void nearest_centres(const arma::mat& X, const arma::mat& C, std::vector<int>& lab, int n_threads) {
  knn_result kr = knn_query(C, X, 1, knn_algorithm::automatic, n_threads);
  lab.resize(X.n_rows);
  for (arma::uword i = 0; i < X.n_rows; ++i) lab[i] = kr.idx(i, 0);
}
inline void move_centres(const arma::mat& X, const std::vector<int>& lab, arma::mat& C) {
  const int c = C.n_rows;
  const arma::mat Cn = cluster_means(X, lab, c);
  std::vector<int> cnt(c, 0);
  for (int l : lab) ++cnt[l];
  for (int l = 0; l < c; ++l)
    if (cnt[l] > 0) C.row(l) = Cn.row(l);
}

inline double kmeans_objective(const arma::mat& X, const std::vector<int>& lab, const arma::mat& M) {
  double s = 0.0;
  for (arma::uword i = 0; i < X.n_rows; ++i) s += 0.5 * arma::accu(arma::square(X.row(i) - M.row(lab[i])));
  return s;
}

// ---- local models -------------------------------------------------------------
struct local_models {
  arma::mat centres;   // c x p
  arma::cube bases;    // p x q x c
  arma::mat normals;   // c x p
  std::vector<std::vector<arma::uword>> members;
  long n_rank_deficient = 0;
};

inline local_models fit_local_models(const arma::mat& X, const std::vector<int>& lab, int c, int q) {
  const arma::uword p = X.n_cols;
  local_models lm;
  lm.members.assign(c, {});
  for (arma::uword i = 0; i < X.n_rows; ++i) lm.members[lab[i]].push_back(i);
  lm.centres.set_size(c, p);
  lm.bases.set_size(p, q, c);
  lm.normals.set_size(c, p);
  for (int l = 0; l < c; ++l) {
    const arma::uvec idx = arma::conv_to<arma::uvec>::from(lm.members[l]);
    // the q basis vectors and the normal: q + 1 right singular vectors of the
    // centred cluster (completed by the full SVD for a cluster of <= q
    // points), signs fixed; rank deficient unless s_q > 1e-10 s_1
    local_pca_options o;
    o.route = local_pca_route::svd;
    o.centre = true;
    o.short_block = local_short_block::complete;
    o.rank_test = local_rank_test::singular_values;
    o.rank = q;
    o.rank_tol = 1e-10;
    o.fix_signs = true;
    o.what = "a PLML local model";
    const local_pca_result pca = local_pca(X.rows(idx), q + 1, o);
    if (pca.rank_deficient) ++lm.n_rank_deficient;
    const arma::mat& B = pca.basis;
    lm.centres.row(l) = pca.mean;
    lm.bases.slice(l) = B.cols(0, q - 1);
    lm.normals.row(l) = B.col(q).t();
  }
  return lm;
}

inline arma::vec axis_weights(int q) {
  arma::vec w(q + 1);
  for (int j = 1; j <= q + 1; ++j) w(j - 1) = double(j) * j + (j + 0.5) * (j + 0.5);
  return w;
}

// Axis target of the new model (ICMLA10 construction or the literal own axes).
inline arma::mat axis_target(const local_models& lm, int a, int b, bool own) {
  const arma::mat& Ua = lm.bases.slice(a);
  const arma::mat& Ub = lm.bases.slice(b);
  const arma::vec na = lm.normals.row(a).t(), nb = lm.normals.row(b).t();
  const int q = Ua.n_cols;
  arma::mat B(Ua.n_rows, q + 1);
  if (own) {
    B.cols(0, q - 1) = Ub;
    B.col(q) = nb;
  } else {
    const double d = arma::dot(na, nb);
    B.cols(0, q - 1) = Ub * (Ub.t() * Ua);
    B.col(q) = (d < 0 ? -1.0 : 1.0) * nb;
  }
  return B;
}

inline arma::mat axis_source(const local_models& lm, int a) {
  const int q = lm.bases.n_cols;
  arma::mat A(lm.bases.n_rows, q + 1);
  A.cols(0, q - 1) = lm.bases.slice(a);
  A.col(q) = lm.normals.row(a).t();
  return A;
}

// Full p x p rotation R = U V' from K = A W B' (orthogonal Procrustes).
inline arma::mat full_rotation(const arma::mat& A, const arma::vec& w, const arma::mat& B) {
  const arma::mat K = A * arma::diagmat(w) * B.t();
  arma::mat U, V;
  arma::vec s;
  if (!arma::svd(U, s, V, K)) throw convergence_error("the SVD of the axis matrices failed");
  return U * V.t();
}

// q x q matrix G = U_a' R U_b of a parallel-projection move a -> b, computed
// without the p x p SVD when possible (the q-dimensional form).
inline arma::mat forward_G(const local_models& lm, int a, int b, const arma::vec& w) {
  const arma::mat A = axis_source(lm, a);
  const arma::mat B = axis_target(lm, a, b, false);
  const arma::mat& Ua = lm.bases.slice(a);
  const arma::mat& Ub = lm.bases.slice(b);
  const int q = Ua.n_cols;
  arma::mat QB, RB;
  bool ok = arma::qr_econ(QB, RB, B);
  const arma::vec dg = arma::abs(RB.diag());
  if (ok && dg.min() > 1e-10 * dg.max()) {
    const arma::mat M = arma::diagmat(w) * RB.t();
    arma::mat Uk, Vk;
    arma::vec s;
    if (arma::svd(Uk, s, Vk, M)) {
      const arma::mat AtR = Uk * Vk.t() * QB.t();  // (q+1) x p
      return AtR.rows(0, q - 1) * Ub;
    }
  }
  const arma::mat R = full_rotation(A, w, B);
  return Ua.t() * R * Ub;
}

// ---- merging: the Euler-walk driver shared by both paths ----------------------
// Walks the models in Euler-walk order: the root is appended as it is; a move
// to a new model b projects the global model onto b (parallel projection for
// PP, orthogonal for IHM) and appends b; a move back to a visited model b
// projects (backalign = none), or aligns the global model rigidly (or by a
// similarity) to b's original local model (IHM projects first). The two
// paths differ only in their append / project / align steps.
template <class Append, class Project, class Align>
inline void euler_merge(const std::vector<int>& walk, int c, const plml_options& opt, Append&& append,
                        Project&& project, Align&& align, int& nf, int& nb) {
  const bool rotate = opt.variant == plml_variant::pp;
  int cur = walk[0];
  append(cur);
  std::vector<char> seen(c, 0);
  seen[cur] = 1;
  nf = nb = 0;
  for (size_t s = 1; s < walk.size(); ++s) {
    if (s % 16 == 0) check_interrupt();
    const int b = walk[s];
    if (!seen[b]) {
      project(cur, b);
      append(b);
      seen[b] = 1;
      ++nf;
    } else {
      ++nb;
      if (opt.backalign == plml_backalign::none) {
        project(cur, b);
      } else {
        if (!rotate) project(cur, b);  // IHM: project first, then align
        align(b);
      }
    }
    cur = b;
  }
}

// ---- merging: the q-dimensional path --------------------------------
inline arma::mat merge_fast(const arma::mat& X, const local_models& lm, const std::vector<int>& walk,
                     const plml_options& opt, int& nf, int& nb) {
  const int c = lm.centres.n_rows, q = opt.q;
  const arma::uword n = X.n_rows;
  const arma::vec w = axis_weights(q);
  arma::mat T(q, n), Lq(q, n);  // join-order columns
  std::vector<arma::uword> order;
  order.reserve(n);
  std::vector<long> start(c, -1);
  long N = 0;
  auto append = [&](int b) {
    start[b] = N;
    const arma::mat& Ub = lm.bases.slice(b);
    for (arma::uword i : lm.members[b]) {
      const arma::rowvec t = (X.row(i) - lm.centres.row(b)) * Ub;
      T.col(N) = t.t();
      Lq.col(N) = t.t();
      order.push_back(i);
      ++N;
    }
  };
  auto project = [&](int a, int b, bool rotate) {
    const arma::mat& Ua = lm.bases.slice(a);
    const arma::mat& Ub = lm.bases.slice(b);
    const arma::mat G = rotate ? forward_G(lm, a, b, w) : arma::mat(Ua.t() * Ub);
    const arma::vec off = ((lm.centres.row(a) - lm.centres.row(b)) * Ub).t();
    arma::mat Tv = G.t() * T.head_cols(N);
    Tv.each_col() += off;
    T.head_cols(N) = Tv;
  };
  const bool rotate = opt.variant == plml_variant::pp;
  auto align = [&](int b) {
    const long m = lm.members[b].size();
    arma::mat Rt, Tv;
    arma::vec ms, mt;
    double beta;
    procrustes_cols(T.cols(start[b], start[b] + m - 1), Lq.cols(start[b], start[b] + m - 1),
                    opt.backalign == plml_backalign::similarity, Rt, beta, ms, mt);
    Tv = T.head_cols(N);
    Tv.each_col() -= ms;
    Tv = (beta * Rt) * Tv;
    Tv.each_col() += mt;
    T.head_cols(N) = Tv;
  };
  euler_merge(walk, c, opt, append, [&](int a, int b) { project(a, b, rotate); }, align, nf, nb);
  arma::mat Y(n, q);
  for (long j = 0; j < N; ++j) Y.row(order[j]) = T.col(j).t();
  return Y;
}

// ---- merging: the literal p-space path (the thesis) --------------------------------
inline arma::mat merge_pspace(const arma::mat& X, const local_models& lm, const std::vector<int>& walk,
                       const plml_options& opt, int& nf, int& nb) {
  const int c = lm.centres.n_rows, q = opt.q;
  const arma::uword n = X.n_rows, p = X.n_cols;
  const arma::vec w = axis_weights(q);
  arma::mat Z(n, p, arma::fill::zeros);
  std::vector<arma::uword> vis;
  auto original = [&](int b) {
    const arma::uvec idx = arma::conv_to<arma::uvec>::from(lm.members[b]);
    const arma::mat& Ub = lm.bases.slice(b);
    arma::mat P = X.rows(idx);
    P.each_row() -= lm.centres.row(b);
    P = P * Ub * Ub.t();
    P.each_row() += lm.centres.row(b);
    return P;
  };
  auto append = [&](int b) {
    const arma::uvec idx = arma::conv_to<arma::uvec>::from(lm.members[b]);
    Z.rows(idx) = original(b);
    for (arma::uword i : lm.members[b]) vis.push_back(i);
  };
  const bool rotate = opt.variant == plml_variant::pp;
  auto project = [&](int a, int b) {
    const arma::uvec idx = arma::conv_to<arma::uvec>::from(vis);
    arma::mat Zv = Z.rows(idx);
    if (rotate) {
      const arma::mat R = full_rotation(axis_source(lm, a), w, axis_target(lm, a, b, opt.own_axes));
      const arma::rowvec o = opt.pivot_origin ? arma::rowvec(p, arma::fill::zeros)
                                              : arma::rowvec(lm.centres.row(a));
      Zv.each_row() -= o;
      Zv = Zv * R;
      Zv.each_row() += o;
    }
    const arma::mat& Ub = lm.bases.slice(b);
    Zv.each_row() -= lm.centres.row(b);
    Zv = Zv * Ub * Ub.t();
    Zv.each_row() += lm.centres.row(b);
    Z.rows(idx) = Zv;
  };
  auto align = [&](int b) {
    const arma::uvec idx = arma::conv_to<arma::uvec>::from(lm.members[b]);
    arma::mat Rt, Zv;
    arma::vec ms, mt;
    double beta;
    procrustes_cols(Z.rows(idx).t(), original(b).t(), opt.backalign == plml_backalign::similarity, Rt,
                    beta, ms, mt);
    const arma::uvec vidx = arma::conv_to<arma::uvec>::from(vis);
    Zv = Z.rows(vidx);
    Zv.each_row() -= ms.t();
    Zv = beta * Zv * Rt.t();
    Zv.each_row() += mt.t();
    Z.rows(vidx) = Zv;
  };
  euler_merge(walk, c, opt, append, project, align, nf, nb);
  return Z;
}

// Centred PCA read-out with deterministic column signs.
inline arma::mat final_pca(const arma::mat& Q, int q) {
  arma::mat Qc = Q.each_row() - arma::mean(Q, 0);
  arma::mat U, V;
  arma::vec s;
  if (!arma::svd_econ(U, s, V, Qc, "right")) throw convergence_error("the final PCA failed");
  arma::mat Y = Qc * V.cols(0, q - 1);
  fix_signs(Y);
  return Y;
}

}  // namespace plml_detail

// ---- public functions -------------------------------------------------------------

inline plml_clusters constrained_kmeans(const arma::mat& X, int c, int h, const plml_options& opt) {
  std::mt19937 rng(opt.seed);
  plml_clusters best;
  best.objective = plml_detail::inf;
  for (int st = 0; st < std::max(1, opt.n_start); ++st) {
    arma::mat C = plml_detail::seed_centres(X, c, rng, opt);
    // warm start: a few ordinary k-means (Lloyd) steps balance the cluster
    // sizes, so that the constrained steps need few augmenting paths
    std::vector<int> l0;
    for (int it = 0; it < opt.lloyd_iter; ++it) {
      check_interrupt();
      plml_detail::nearest_centres(X, C, l0, opt.n_threads);
      plml_detail::move_centres(X, l0, C);
    }
    std::vector<int> lab, prev;
    std::vector<double> price;  // warm start: the previous step's optimal potentials
    plml_clusters res;
    res.n_clusters = c;
    for (int it = 1; it <= opt.max_iter; ++it) {
      check_interrupt();
      ssp_stats st;
      const auto t0 = std::chrono::steady_clock::now();
      lab = constrained_assignment(X, C, h, opt.n_candidates, opt.n_threads, &st, &price, &prev);
      res.n_augment = st.augment;
      res.trace.push_back(double(st.augment));
      res.trace.push_back(double(st.phases));
      res.trace.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      res.trace.push_back(double(st.candidates));
      res.trace.push_back(double(st.solves));
      res.n_iter = it;
      if (lab == prev) {
        res.converged = true;
        break;
      }
      C = plml_detail::cluster_means(X, lab, c);
      prev = lab;
    }
    res.label = lab;
    res.objective = plml_detail::kmeans_objective(X, lab, plml_detail::cluster_means(X, lab, c));
    if (res.objective < best.objective) best = res;
  }
  return best;
}

inline plml_clusters kmeans_merge(const arma::mat& X, int c, int h, const plml_options& opt) {
  std::mt19937 rng(opt.seed);
  const arma::uword n = X.n_rows;
  plml_clusters best;
  best.objective = plml_detail::inf;
  for (int st = 0; st < std::max(1, opt.n_start); ++st) {
    arma::mat C = plml_detail::seed_centres(X, c, rng, opt);
    std::vector<int> lab(n), prev;
    plml_clusters res;
    for (int it = 1; it <= opt.max_iter; ++it) {
      check_interrupt();
      plml_detail::nearest_centres(X, C, lab, opt.n_threads);
      res.n_iter = it;
      if (lab == prev) {
        res.converged = true;
        break;
      }
      plml_detail::move_centres(X, lab, C);
      prev = lab;
    }
    // merge clusters smaller than h into the cluster of the nearest centroid
    std::vector<long> cnt(c, 0);
    for (int l : lab) ++cnt[l];
    arma::mat M = plml_detail::cluster_means(X, lab, c);
    std::vector<int> to(c);
    std::iota(to.begin(), to.end(), 0);
    while (true) {
      int small = -1;
      long alive = 0;
      for (int l = 0; l < c; ++l) {
        if (cnt[l] == 0) continue;
        ++alive;
        if (cnt[l] < h && (small < 0 || cnt[l] < cnt[small])) small = l;
      }
      if (small < 0 || alive <= 1) break;
      int tgt = -1;
      double bd = plml_detail::inf;
      for (int l = 0; l < c; ++l) {
        if (l == small || cnt[l] == 0) continue;
        const double d = arma::accu(arma::square(M.row(l) - M.row(small)));
        if (d < bd) {
          bd = d;
          tgt = l;
        }
      }
      M.row(tgt) = (cnt[tgt] * M.row(tgt) + cnt[small] * M.row(small)) / double(cnt[tgt] + cnt[small]);
      cnt[tgt] += cnt[small];
      cnt[small] = 0;
      for (int l = 0; l < c; ++l)
        if (to[l] == small) to[l] = tgt;
    }
    std::vector<int> newid(c, -1);
    int cc = 0;
    for (int l = 0; l < c; ++l)
      if (cnt[l] > 0) newid[l] = cc++;
    for (arma::uword i = 0; i < n; ++i) lab[i] = newid[to[lab[i]]];
    res.label = lab;
    res.n_clusters = cc;
    res.objective = plml_detail::kmeans_objective(X, lab, plml_detail::cluster_means(X, lab, cc));
    if (res.objective < best.objective) best = res;
  }
  return best;
}

inline std::vector<int> euler_walk(int nv, const std::vector<mst_edge>& tree, int root) {
  std::vector<std::vector<std::pair<double, int>>> adj(nv);
  for (const mst_edge& e : tree) {
    adj[e.i].emplace_back(e.w, e.j);
    adj[e.j].emplace_back(e.w, e.i);
  }
  for (auto& a : adj) std::sort(a.begin(), a.end());
  std::vector<int> walk{root};
  std::vector<char> seen(nv, 0);
  seen[root] = 1;
  int nseen = 1;
  if (nv == 1) return walk;
  struct frame {
    int v, parent;
    size_t next;
  };
  std::vector<frame> st{{root, -1, 0}};
  while (!st.empty() && nseen < nv) {
    frame& f = st.back();
    while (f.next < adj[f.v].size() && adj[f.v][f.next].second == f.parent) ++f.next;
    if (f.next < adj[f.v].size()) {
      const int u = adj[f.v][f.next++].second;
      walk.push_back(u);
      if (!seen[u]) {
        seen[u] = 1;
        ++nseen;
      }
      st.push_back(frame{u, f.v, 0});
    } else {
      st.pop_back();
      if (!st.empty()) walk.push_back(st.back().v);
    }
  }
  if (nseen < nv) throw input_error("euler_walk: the tree does not span all models");
  return walk;
}

inline plml_result plml_fit(const arma::mat& X, const plml_options& opt) {
  const int n = X.n_rows, p = X.n_cols, q = opt.q, k = opt.k;
  const int h = opt.h > 0 ? opt.h : k;
  if (q < 1 || q >= p) throw input_error("`ndim` must be at least 1 and smaller than ncol(X)");
  if (k < q + 1) throw input_error("`k` must be at least ndim + 1");
  if (n < 2 * k) throw input_error("`k` is too large: PLML needs n >= 2k (at least two models)");
  const int c0 = n / k;
  const bool given = opt.cluster == plml_cluster::given;
  if (!given && long(c0) * h > n) throw input_error("`h` is too large: floor(n / k) * h exceeds n");
  plml_result res;
  plml_clusters cl;
  if (given) {
    if (int(opt.labels.size()) != n) throw input_error("given clusters: one label per point is needed");
    const int cg = opt.labels.empty() ? 0 : *std::max_element(opt.labels.begin(), opt.labels.end()) + 1;
    std::vector<int> size(std::max(cg, 0), 0);
    for (int l : opt.labels) {
      if (l < 0) throw input_error("given clusters: labels must be cluster indices");
      ++size[l];
    }
    if (cg < 2 || std::find(size.begin(), size.end(), 0) != size.end())
      throw input_error("given clusters: at least two clusters, numbered without gaps, are needed");
    cl.label = opt.labels;
    cl.n_clusters = cg;
    cl.objective = plml_detail::kmeans_objective(X, cl.label, plml_detail::cluster_means(X, cl.label, cg));
    cl.converged = true;
  } else {
    cl = opt.cluster == plml_cluster::constrained ? constrained_kmeans(X, c0, h, opt)
                                                  : kmeans_merge(X, c0, h, opt);
  }
  const int c = cl.n_clusters;
  if (opt.contiguous) res.n_moved = make_clusters_contiguous(X, cl.label, c, q + 1, opt.n_threads);
  res.label = cl.label;
  res.n_clusters = c;
  res.objective = cl.objective;
  res.kmeans_iter = cl.n_iter;
  res.kmeans_converged = cl.converged;
  res.kmeans_trace = cl.trace;
  plml_detail::local_models lm = plml_detail::fit_local_models(X, cl.label, c, q);
  res.n_rank_deficient = lm.n_rank_deficient;

  // topology
  std::vector<mst_edge> G;
  if (opt.topology == plml_topology::point_mst) {
    const std::vector<mst_edge> T = euclidean_mst(X, opt.mst_knn, opt.n_threads, opt.mst_graph);
    for (const mst_edge& e : T) {
      const int a = cl.label[e.i], b = cl.label[e.j];
      if (a == b) continue;
      const int i = std::min(a, b), j = std::max(a, b);
      G.push_back(mst_edge{i, j, std::sqrt(canonical_sqdist(
                                      arma::rowvec(lm.centres.row(i)).memptr(),
                                      arma::rowvec(lm.centres.row(j)).memptr(), p))});
    }
    drop_duplicate_edges(G);
    res.model_tree = kruskal_mst(c, G);
  } else {
    res.model_tree = euclidean_mst(lm.centres, 0, opt.n_threads);
  }
  if (int(res.model_tree.size()) != c - 1) throw convergence_error("the model graph is not connected");

  // root and walk
  int root = opt.root;
  if (root < 0) {
    std::mt19937 rng(opt.seed + 7919u);
    std::uniform_int_distribution<int> u(0, c - 1);
    root = u(rng);
  }
  if (root >= c) throw input_error("`root` must be a model index between 1 and the number of models (" +
                                   std::to_string(c) + ")");
  res.root = root;
  res.walk = euler_walk(c, res.model_tree, root);

  // merge and read out
  int nf = 0, nb = 0;
  const bool literal = opt.literal_path || opt.pivot_origin || opt.own_axes;
  if (literal) {
    res.Y = plml_detail::final_pca(plml_detail::merge_pspace(X, lm, res.walk, opt, nf, nb), q);
  } else {
    res.Y = plml_detail::final_pca(plml_detail::merge_fast(X, lm, res.walk, opt, nf, nb), q);
  }
  res.n_forward = nf;
  res.n_backward = nb;

  // per-model affine maps, y = alpha + ((x - m) U) G, by least squares
  res.maps.set_size(q + 1, q, c);
  for (int l = 0; l < c; ++l) {
    const arma::uvec idx = arma::conv_to<arma::uvec>::from(lm.members[l]);
    arma::mat Lx = X.rows(idx);
    Lx.each_row() -= lm.centres.row(l);
    arma::mat A(idx.n_elem, q + 1);
    A.col(0).ones();
    A.cols(1, q) = Lx * lm.bases.slice(l);
    res.maps.slice(l) = arma::pinv(A) * res.Y.rows(idx);
  }
  res.centres = lm.centres;
  res.bases = lm.bases;
  res.normals = lm.normals;
  return res;
}

inline arma::mat plml_model_map(const arma::mat& Xnew, const std::vector<int>& model,
                         const arma::mat& centres, const arma::cube& bases, const arma::cube& maps) {
  const int q = bases.n_cols;
  arma::mat Y(Xnew.n_rows, q);
  for (arma::uword i = 0; i < Xnew.n_rows; ++i) {
    const int l = model[i];
    if (l < 0 || l >= int(centres.n_rows)) throw input_error("model index out of range");
    const arma::rowvec t = (Xnew.row(i) - centres.row(l)) * bases.slice(l);
    const arma::mat& M = maps.slice(l);
    Y.row(i) = M.row(0) + t * M.rows(1, q);
  }
  return Y;
}


}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_PLML_H
