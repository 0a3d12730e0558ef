// Isomap and landmark Isomap (Tenenbaum, de Silva & Langford 2000, B.5): geodesic distances on the
// neighbourhood graph, landmark selection, and the geodesic rows of new
// points used by the out-of-sample maps (Bengio et al. 2004, C.2).
//
// Geodesic storage: D is an m x n matrix (m reference points = landmarks or
// all n training points) whose column i holds the geodesic distances from
// training point i to the m reference points. For full Isomap D = G, the
// symmetric n x n geodesic matrix.
#ifndef MANIFOLDOOS_ISOMAP_H
#define MANIFOLDOOS_ISOMAP_H

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/knn.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/blocks/parallel.h>
#include <manifoldOOS/methods/isomap_project.h>
#include <manifoldOOS/methods/lmds.h>
#include <manifoldOOS/methods/mds.h>
#include <manifoldOOS/blocks/paths.h>

namespace manifoldOOS {

// All-pairs geodesics into the caller's n x n column-major buffer `G`
// (Dijkstra from every vertex, threaded over sources, column s holding the
// distances from s), then made exactly symmetric by taking min(G_ij, G_ji)
// (both are lengths of paths between i and j; they differ only by rounding;
// the min does not depend on which of the two layouts the search wrote).
// Throws input_error when some pair is not connected.
inline void geodesics_all(const adjacency_view& A, double* G, int n_threads) {
  const int n = A.n;
  std::vector<int> src(n);
  for (int i = 0; i < n; ++i) src[i] = i;
  dijkstra_multi_by_column(A, src.data(), n, G, n_threads);
  check_interrupt();
  const long nn = n;
  constexpr long bs = 64;
  const long n_tiles = (nn + bs - 1) / bs;
  // tile row jb with its tiles ib >= jb: disjoint entries for distinct jb
  // (the package's row driver: threads, interrupt polling)
  parallel_rows_guarded(static_cast<std::size_t>(n_tiles), n_threads, 1, [] { return 0; },
                        [&](int&, std::size_t tb) {
    const long jb = static_cast<long>(tb) * bs;
    for (long ib = jb; ib < nn; ib += bs) {
      const long je = std::min(nn, jb + bs), ie = std::min(nn, ib + bs);
      for (long j = jb; j < je; ++j) {
        for (long i = std::max(ib, j + 1); i < ie; ++i) {
          double& a = G[i + j * nn];
          double& b = G[j + i * nn];
          const double v = std::min(a, b);
          a = v;
          b = v;
        }
      }
    }
  });
  bool finite = true;
  for (long t = 0; t < nn; ++t) {
    if (!std::isfinite(G[t])) finite = false;  // first column suffices (connectivity)
  }
  if (!finite) {
    throw input_error("the neighbourhood graph is not connected (infinite geodesic distances)");
  }
}

// Geodesics from the given (0-based) sources: m x n, column-major, in `D`.
inline void geodesics_from(const adjacency_view& A, const std::vector<int>& sources, double* D,
                           int n_threads) {
  const int m = static_cast<int>(sources.size());
  dijkstra_multi(A, sources.data(), m, D, n_threads);
  const long total = static_cast<long>(m) * A.n;
  for (long t = 0; t < total; ++t) {
    if (!std::isfinite(D[t])) {
      throw input_error("the neighbourhood graph is not connected (infinite geodesic distances)");
    }
  }
}

// MaxMin landmark selection (de Silva & Tenenbaum): start from `first`,
// then repeatedly add the vertex farthest (in geodesic distance) from the
// landmarks chosen so far (ties: smallest index). The selection keeps only the
// distance to the nearest landmark, lowered by a pruned Dijkstra per landmark
// (dijkstra_lower_min: bitwise the minimum of the full rows); the rows of D
// (m x n, column-major) are then the full Dijkstra runs from the landmarks,
// threaded over landmarks. Returns the landmarks in order of selection.
inline std::vector<int> maxmin_landmarks(const adjacency_view& A, int first, int m, double* D,
                                         int n_threads = 1) {
  const int n = A.n;
  if (m < 1 || m > n) throw input_error("the number of landmarks must lie in [1, n]");
  if (first < 0 || first >= n) throw input_error("the first landmark is not a vertex");
  std::vector<int> lm;
  lm.reserve(m);
  std::vector<double> mind(n, std::numeric_limits<double>::infinity());
  std::vector<char> chosen(n, 0);
  int next = first;
  for (int l = 0; l < m; ++l) {
    check_interrupt();
    lm.push_back(next);
    chosen[next] = 1;
    dijkstra_lower_min(A, next, mind.data());
    if (l == 0) {
      for (int j = 0; j < n; ++j) {
        if (!std::isfinite(mind[j])) {
          throw input_error("the neighbourhood graph is not connected (infinite geodesic distances)");
        }
      }
    }
    if (l + 1 == m) break;
    double best = -1.0;
    int arg = -1;
    for (int j = 0; j < n; ++j) {
      if (!chosen[j] && mind[j] > best) {
        best = mind[j];
        arg = j;
      }
    }
    next = arg;
  }
  geodesics_from(A, lm, D, n_threads);
  return lm;
}

// Squared geodesic distances of one new point to the m reference points,
// g(l) = min_{r < k} (dist[r] + D(l, idx[r])), from its k nearest training
// points (0-based idx, distances dist, both of length k). Writes s[0..m-1].
inline void geodesic_row_sq(const int* idx, const double* dist, arma::uword k, const arma::mat& D,
                            double* s) {
  const arma::uword m = D.n_rows;
  std::fill(s, s + m, std::numeric_limits<double>::infinity());
  for (arma::uword r = 0; r < k; ++r) {
    const double d = dist[r];
    const double* col = D.colptr(static_cast<arma::uword>(idx[r]));
    // vectorised (min and + are exact: the same values in any lane order)
#ifdef _OPENMP
#pragma omp simd
#endif
    for (arma::uword l = 0; l < m; ++l) s[l] = (d + col[l] < s[l]) ? d + col[l] : s[l];
  }
#ifdef _OPENMP
#pragma omp simd
#endif
  for (arma::uword l = 0; l < m; ++l) s[l] *= s[l];
}

// Y <- (Y - 1 center') R, row by row in a fixed order (a batch gives
// exactly the row-by-row result).
inline void normalise_rows(arma::mat& Y, const arma::rowvec& center, const arma::mat& R) {
  const arma::uword q = Y.n_cols;
  if (center.n_elem != q || R.n_rows != q || R.n_cols != q) {
    throw input_error("inconsistent normalisation of the landmark embedding");
  }
  std::vector<double> t(q);
  for (arma::uword a = 0; a < Y.n_rows; ++a) {
    for (arma::uword k = 0; k < q; ++k) t[k] = Y(a, k) - center[k];
    for (arma::uword j = 0; j < q; ++j) {
      double acc = 0.0;
      for (arma::uword k = 0; k < q; ++k) acc += t[k] * R(k, j);
      Y(a, j) = acc;
    }
  }
}

// Landmark Isomap post-processing (de Silva & Tenenbaum 2003 step 5): centre the n
// triangulated training coordinates and rotate them to their principal
// axes (sign convention applied to the rotated columns). Returns the
// normalised coordinates; center and R receive the transformation.
inline arma::mat landmark_normalisation(const arma::mat& Y, arma::rowvec& center, arma::mat& R) {
  center = arma::mean(Y, 0);
  const arma::mat Yc = Y.each_row() - center;
  arma::mat U, V;
  arma::vec s;
  bool ok = arma::svd_econ(U, s, V, Yc, "right", "dc");
  if (!ok) ok = arma::svd_econ(U, s, V, Yc, "right", "std");
  if (!ok) throw convergence_error("the SVD of the landmark embedding failed");
  R = V;
  arma::mat out = Y;
  normalise_rows(out, center, R);
  const arma::vec sgn = fix_signs(out);
  for (arma::uword j = 0; j < R.n_cols; ++j) R.col(j) *= sgn(j);
  return out;
}

// ---- the whole fit ----------------------------------------------------------
// How the reference points of a fit are chosen: all n points (full Isomap),
// given landmarks, or MaxMin selection from a starting vertex.
enum class isomap_landmarks { none, given, maxmin };

struct isomap_options {
  int ndim = 2;
  isomap_landmarks landmarks = isomap_landmarks::none;
  std::vector<int> given;  // 0-based landmark vertices (landmarks == given)
  int first = 0;           // 0-based first vertex (landmarks == maxmin)
  int m = 0;               // number of landmarks (landmarks == maxmin)
  bool normalise = false;  // landmark fits: centre and rotate (landmark_normalisation)
  eig_options eig;
  int n_threads = 1;
};

// Rows of the geodesic storage D of a fit on n vertices (see the top of this file).
inline int isomap_reference_count(const isomap_options& o, int n) {
  switch (o.landmarks) {
    case isomap_landmarks::none: return n;
    case isomap_landmarks::given: return static_cast<int>(o.given.size());
    case isomap_landmarks::maxmin: return o.m;
  }
  return n;
}

struct isomap_model {
  cmds_model mds;            // (landmark) classical MDS of the reference points
  arma::mat embedding;       // n x ndim training coordinates
  std::vector<int> landmarks;  // 0-based, in order of selection (empty for full Isomap)
  arma::rowvec center;       // landmark normalisation (empty unless normalise)
  arma::mat rotation;
};

// Isomap (landmarks == none: all-pairs geodesics, classical MDS) or landmark
// Isomap (geodesics from the landmarks, classical MDS of the landmark block
// made exactly symmetric, every training point -- landmarks included --
// triangulated from its column of D, optional normalisation). The geodesic
// storage D (isomap_reference_count(o, n) x n, column-major) is written to the
// caller's buffer `D`, so a front end can hand in memory it then keeps.
inline isomap_model isomap_fit(const adjacency_view& A, const isomap_options& o, double* D) {
  const int n = A.n;
  const int m = isomap_reference_count(o, n);
  if (o.ndim < 1) throw input_error("the embedding dimension must be positive.");
  isomap_model out;
  if (o.landmarks == isomap_landmarks::none) {
    geodesics_all(A, D, o.n_threads);
    const arma::mat G(D, n, n, false, true);
    out.mds = cmds_distances(G, true, o.ndim, o.eig, o.n_threads);
    out.embedding = out.mds.embedding;
    return out;
  }
  if (m < 1 || m > n) throw input_error("the number of landmarks must lie in [1, n].");
  if (o.landmarks == isomap_landmarks::maxmin) {
    out.landmarks = maxmin_landmarks(A, o.first, m, D, o.n_threads);
  } else {
    for (int b : o.given) {
      if (b < 0 || b >= n) throw input_error("landmark indices must lie in [1, n].");
    }
    out.landmarks = o.given;
    geodesics_from(A, out.landmarks, D, o.n_threads);
  }
  const std::vector<int>& lm = out.landmarks;
  const arma::mat Dm(D, m, n, false, true);
  // landmark block, made exactly symmetric (min of the two directions)
  arma::mat Dmm(m, m);
  for (int b = 0; b < m; ++b) Dmm.col(b) = Dm.col(lm[b]);
  Dmm = arma::min(Dmm, Dmm.t());
  out.mds = cmds_distances(Dmm, true, o.ndim, o.eig, o.n_threads);
  out.embedding = lmds_place_columns(out.mds.as_map(), lmds_rule::triangulation, Dm, o.n_threads);
  if (o.normalise) out.embedding = landmark_normalisation(out.embedding, out.center, out.rotation);
  return out;
}

// Out-of-sample Isomap / landmark Isomap: kNN of the new rows among the
// training rows X (same k as the fit), geodesic rows to the reference points,
// then lmds_place(). When `snap` and the nearest training point is at
// distance 0, the stored training coordinates Y_train (n x q, final
// coordinates) are returned for that row. Otherwise, for landmark fits, the
// normalisation (centre, rotation; empty = none) is applied. Each row is
// computed on its own (threads over rows), so batches equal single rows.
inline arma::mat isomap_project_nb(const arma::mat& X, const arma::mat& Xnew, const knn_result& nb,
                                   const arma::mat& D, const lmds_map& M, lmds_rule rule,
                                   const arma::mat& Y_train, bool snap, const arma::rowvec& center,
                                   const arma::mat& rotation, int n_threads);

inline arma::mat isomap_project(const arma::mat& X, const arma::mat& Xnew, int k,
                                const arma::mat& D, const lmds_map& M, lmds_rule rule,
                                const arma::mat& Y_train, bool snap, const arma::rowvec& center,
                                const arma::mat& rotation, int n_threads) {
  if (Xnew.n_cols != X.n_cols) throw input_error("new points must have the training columns");
  const knn_result nb = knn_query(X, Xnew, k, knn_algorithm::automatic, n_threads);
  return isomap_project_nb(X, Xnew, nb, D, M, rule, Y_train, snap, center, rotation, n_threads);
}

// The same with the k nearest training rows of every new row given (nb.idx
// 0-based, nb.dist; e.g. from an approximate search).
inline arma::mat isomap_project_nb(const arma::mat& X, const arma::mat& Xnew, const knn_result& nb,
                                   const arma::mat& D, const lmds_map& M, lmds_rule rule,
                                   const arma::mat& Y_train, bool snap, const arma::rowvec& center,
                                   const arma::mat& rotation, int n_threads) {
  if (Xnew.n_cols != X.n_cols) throw input_error("new points must have the training columns");
  if (D.n_cols != X.n_rows || D.n_rows != M.m()) throw input_error("inconsistent Isomap model");
  if (snap && (Y_train.n_rows != X.n_rows || Y_train.n_cols != M.q())) {
    throw input_error("inconsistent Isomap training coordinates");
  }
  if (nb.idx.n_rows != Xnew.n_rows || nb.dist.n_rows != Xnew.n_rows || nb.idx.n_cols < 1 ||
      nb.dist.n_cols != nb.idx.n_cols) {
    throw input_error("inconsistent neighbour lists for the Isomap projection");
  }
  const int k = static_cast<int>(nb.idx.n_cols);
  const bool normalise = rotation.n_elem > 0;
  const arma::uword c = Xnew.n_rows, m = M.m(), q = M.q();
  arma::mat Y(c, q);
  const int nt = resolve_threads(n_threads);
  (void)nt;
  // Rows are visited in order of their nearest training point, so that
  // consecutive rows read the same columns of D from cache (D does not fit
  // in cache for large fits); each row's result does not depend on the order.
  std::vector<arma::uword> order(c);
  for (arma::uword a = 0; a < c; ++a) order[a] = a;
  if (c > 1) {
    std::stable_sort(order.begin(), order.end(), [&nb](arma::uword x, arma::uword y) {
      return nb.idx(x, 0) < nb.idx(y, 0);
    });
  }
  if (rule == lmds_rule::triangulation) {
    // blocked, vectorised kernel (isomap_project.h): every row exactly as
    // geodesic_row_sq() + lmds_place() compute it on its own
    static_assert(sizeof(arma::uword) == sizeof(unsigned), "32-bit armadillo words expected");
    isomap_triangulate_rows(D.memptr(), static_cast<long>(m), nb.idx.memptr(), nb.dist.memptr(),
                            static_cast<long>(c), k, M.lsharp_t.memptr(), M.mu.memptr(),
                            static_cast<int>(q), reinterpret_cast<const unsigned*>(order.data()),
                            Y.memptr(), nt);
  } else {
    interrupt_flag flag(16);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
      std::vector<double> s(m);
      std::vector<int> ii(k);
      std::vector<double> dd(k);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
      for (long t = 0; t < static_cast<long>(c); ++t) {
        if (flag.poll(t)) continue;
        const arma::uword a = order[t];
        for (int r = 0; r < k; ++r) {
          ii[r] = nb.idx(a, r);
          dd[r] = nb.dist(a, r);
        }
        geodesic_row_sq(ii.data(), dd.data(), k, D, s.data());
        lmds_place(M, rule, s.data(), Y.memptr() + a, c);
      }
    }
    flag.rethrow_if_stopped();
  }
  if (normalise) normalise_rows(Y, center, rotation);
  if (snap) {
    for (arma::uword a = 0; a < Xnew.n_rows; ++a) {
      if (nb.dist(a, 0) == 0.0) Y.row(a) = Y_train.row(static_cast<arma::uword>(nb.idx(a, 0)));
    }
  }
  return Y;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_ISOMAP_H
