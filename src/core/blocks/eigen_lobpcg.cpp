// Deflated LOBPCG with an AMG preconditioner; see <manifoldOOS/blocks/eigen_lobpcg.h>.
#include <manifoldOOS/blocks/eigen_lobpcg.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/dense_crossprod.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/graph.h>

namespace manifoldOOS {

namespace lobpcg_detail {

// The products of tall n x p blocks with small p go through tall_crossprod()
// and tall_times() of <manifoldOOS/blocks/dense_crossprod.h> (threaded over
// fixed row panels; the results do not depend on the number of threads or the
// BLAS).

// Orthonormal basis of the span of S's columns, numerically dependent
// directions dropped: columns scaled to unit norm, then S V Lambda^{-1/2}
// from the eigendecomposition of the Gram matrix; two passes.
static arma::mat orthonormal(arma::mat S, int nt) {
  for (int pass = 0; pass < 2 && S.n_cols > 0; ++pass) {
    arma::rowvec d = arma::sqrt(arma::sum(arma::square(S), 0));
    const arma::uvec nz = arma::find(d > 0);
    if (nz.n_elem < S.n_cols) {
      S = arma::mat(S.cols(nz));
      d = arma::rowvec(d.cols(nz));
    }
    if (S.n_cols == 0) break;
    S.each_row() /= d;
    arma::mat G = tall_crossprod(S, S, nt);
    G = 0.5 * (G + G.t());
    arma::vec ev;
    arma::mat V;
    if (!arma::eig_sym(ev, V, G)) throw convergence_error("LOBPCG: the Gram eigendecomposition failed");
    const arma::uvec keep = arma::find(ev > ev.max() * 1e-12);
    S = tall_times(S, V.cols(keep) * arma::diagmat(1.0 / arma::sqrt(ev(keep))), nt);
  }
  return S;
}

static void orth_against(arma::mat& S, const arma::mat& X, int nt) {
  for (int pass = 0; pass < 2; ++pass) S -= tall_times(X, tall_crossprod(X, S, nt), nt);
}

// Breadth-first order of the graph of A (Cuthill-McKee without the degree
// sort): each component from a pseudo-peripheral node (the last node reached
// from its first node), neighbours in index order. A kNN graph's rows come
// in the data's order, so a row's neighbours are scattered over memory; in
// breadth-first order they lie in the same or adjacent levels, so the
// products of the solver read nearby memory. perm[new] = old.
static std::vector<int> bfs_order(const Eigen::SparseMatrix<double>& A) {
  const long n = A.rows();
  const auto* op = A.outerIndexPtr();
  const auto* ip = A.innerIndexPtr();
  std::vector<int> order;
  order.reserve(n);
  std::vector<char> seen(n, 0), probe(n, 0);
  std::vector<int> queue;
  for (long s = 0; s < n; ++s) {
    if (seen[s]) continue;
    queue.clear();
    breadth_first(op, ip, static_cast<int>(s), probe, queue);  // the component; its last node is far from s
    breadth_first(op, ip, queue.back(), seen, order);
  }
  return order;
}

// B = A with rows and columns renumbered: B(r, c) = A(perm[r], perm[c]).
static Eigen::SparseMatrix<double> permute_sym(const Eigen::SparseMatrix<double>& A, const std::vector<int>& perm,
                                               int n_threads) {
  const long n = A.rows();
  std::vector<int> inv(n);
  for (long r = 0; r < n; ++r) inv[perm[r]] = static_cast<int>(r);
  const auto* op = A.outerIndexPtr();
  const auto* ip = A.innerIndexPtr();
  const double* vp = A.valuePtr();
  Eigen::SparseMatrix<double> B(n, n);
  B.resizeNonZeros(A.nonZeros());
  int* bop = B.outerIndexPtr();
  bop[0] = 0;
  for (long r = 0; r < n; ++r) bop[r + 1] = bop[r] + (op[perm[r] + 1] - op[perm[r]]);
  int* bip = B.innerIndexPtr();
  double* bvp = B.valuePtr();
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1 && n > 4096)
#endif
  {
    std::vector<std::pair<int, double>> row;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1024)
#endif
    for (long r = 0; r < n; ++r) {
      const int o = perm[r];
      row.clear();
      for (long k = op[o]; k < op[o + 1]; ++k) row.emplace_back(inv[ip[k]], vp[k]);
      std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      long at = bop[r];
      for (const auto& e : row) {
        bip[at] = e.first;
        bvp[at++] = e.second;
      }
    }
  }
  return B;
}

}  // namespace lobpcg_detail

// add_e: empty, or a term E added to A (products only; A alone builds the
// preconditioner), with |E| <= norm_e for the tolerance's scale.
static eigen_result lobpcg_core(const Eigen::SparseMatrix<double>& A, const lobpcg_term& add_e, double norm_e,
                                const arma::vec& null_vec, long m, const lobpcg_options& o) {
  const long n = A.rows();
  if (A.cols() != n) throw input_error("LOBPCG: the matrix must be square");
  if (long(null_vec.n_elem) != n) throw input_error("LOBPCG: the null vector has the wrong length");
  const long bs = m + (o.extra > 0 ? o.extra : std::max<long>(3, m / 2));
  if (m < 1 || 3 * bs + 1 >= n) {
    std::ostringstream os;
    os << "LOBPCG needs more than 3 (m + extra) + 1 = " << 3 * bs + 1 << " rows (the matrix has " << n << ")";
    throw input_error(os.str());
  }
  const double nu = arma::norm(null_vec);
  if (!(nu > 0)) throw input_error("LOBPCG: the null vector must be non-zero");
  const arma::vec u = null_vec / nu;
  const int nt = o.n_threads;
  const double na = detail::sparse_norm_inf(A) + (add_e ? norm_e : 0.0);
  const double tol_abs = o.tol * (na > 0 ? na : 1.0);
  amg_options ao = o.amg;
  ao.n_threads = nt;
  const amg_hierarchy M(A, u, ao);
  auto times_a = [&](const arma::mat& Z) {
    arma::mat Y = amg_detail::sym_times(A, Z, nt);
    if (add_e) add_e(Z, Y);
    return Y;
  };

  // start: a seeded random block, smoothed by two V-cycles (apply() projects out u)
  arma::mat X(n, bs);
  {
    std::mt19937_64 gen(o.seed);
    std::normal_distribution<double> nd;
    for (arma::uword i = 0; i < X.n_elem; ++i) X(i) = nd(gen);
  }
  // (a V-cycle may collapse the block, e.g. onto a second null vector of a
  // disconnected graph: then the less smoothed block is kept)
  X -= u * (u.t() * X);
  X = lobpcg_detail::orthonormal(X, nt);
  for (int sweep = 0; sweep < 2; ++sweep) {
    arma::mat Y = lobpcg_detail::orthonormal(M.apply(X), nt);
    if (long(Y.n_cols) < bs) break;
    X = std::move(Y);
  }
  if (long(X.n_cols) < bs) throw convergence_error("LOBPCG: the start block is rank deficient");
  arma::mat AX = times_a(X);
  arma::vec theta;
  {
    arma::mat G = tall_crossprod(X, AX, nt), C;
    G = 0.5 * (G + G.t());
    if (!arma::eig_sym(theta, C, G)) throw convergence_error("LOBPCG: Rayleigh-Ritz failed");
    X = tall_times(X, C, nt);
    AX = tall_times(AX, C, nt);
  }
  arma::mat P;  // n x bs directions (empty at the start)
  long it = 0, n_ops = 2 * bs;
  bool done = false;
  double worst = 0.0;
  for (; it < o.maxit; ++it) {
    check_interrupt();
    if (it > 0 && it % 20 == 0) AX = times_a(X);  // no drift of the products
    const arma::mat R = AX - X.each_row() % theta.t();
    const arma::rowvec rn = arma::sqrt(arma::sum(arma::square(R), 0));
    worst = rn.head(m).max();
    if (worst <= tol_abs) {
      done = true;
      break;
    }
    const arma::uvec active = arma::find(rn.t() > tol_abs);
    arma::mat S = M.apply(R.cols(active));
    n_ops += static_cast<long>(active.n_elem);
    if (!P.is_empty()) S = arma::join_rows(S, P.cols(active));
    S -= u * (u.t() * S);
    lobpcg_detail::orth_against(S, X, nt);
    S = lobpcg_detail::orthonormal(S, nt);
    lobpcg_detail::orth_against(S, X, nt);
    S = lobpcg_detail::orthonormal(S, nt);
    if (S.n_cols == 0) throw convergence_error("LOBPCG: the search directions vanished");
    const arma::mat AS = times_a(S);
    // Rayleigh-Ritz on the orthonormal basis [X, S]
    arma::mat G(bs + S.n_cols, bs + S.n_cols);
    G.submat(0, 0, bs - 1, bs - 1) = tall_crossprod(X, AX, nt);
    const arma::mat XAS = tall_crossprod(X, AS, nt);
    G.submat(0, bs, bs - 1, G.n_cols - 1) = XAS;
    G.submat(bs, 0, G.n_rows - 1, bs - 1) = XAS.t();
    G.submat(bs, bs, G.n_rows - 1, G.n_cols - 1) = tall_crossprod(S, AS, nt);
    G = 0.5 * (G + G.t());
    arma::vec ev;
    arma::mat V;
    if (!arma::eig_sym(ev, V, G)) throw convergence_error("LOBPCG: Rayleigh-Ritz failed");
    const arma::mat CX = V.submat(0, 0, bs - 1, bs - 1);
    const arma::mat CS = V.submat(bs, 0, V.n_rows - 1, bs - 1);
    theta = ev.head(bs);
    P = tall_times(S, CS, nt);
    X = tall_times(X, CX, nt) + P;
    AX = tall_times(AX, CX, nt) + tall_times(AS, CS, nt);
  }
  if (!done) {
    std::ostringstream os;
    os << "LOBPCG did not converge in " << o.maxit << " iterations (largest residual " << worst
       << ", tolerance " << tol_abs << ")";
    throw convergence_error(os.str());
  }
  eigen_result res;
  res.values = theta.head(m);
  res.vectors = X.cols(0, m - 1);
  res.method_used = "lobpcg_amg_deflated";
  res.n_iter = it;
  res.n_ops = n_ops;
  res.attempts = 1;
  std::ostringstream os;
  os << "LOBPCG: " << it << " iterations, block " << bs << "; AMG: " << M.n_levels()
     << " levels, operator complexity " << M.operator_complexity();
  res.note = os.str();
  return res;
}

namespace lobpcg_detail {

static bool renumber(const Eigen::SparseMatrix<double>& A, const arma::vec& null_vec, const lobpcg_options& o) {
  const long n = A.rows();
  return o.reorder && n >= 2 && A.cols() == n && long(null_vec.n_elem) == n && A.isCompressed();
}

// The solve on B = A renumbered by perm (perm[new] = old), vectors mapped
// back to A's numbering.
// add_e works in A's numbering: its blocks are mapped back and forth.
static eigen_result solve_renumbered(const Eigen::SparseMatrix<double>& B, const std::vector<int>& perm,
                                     const lobpcg_term& add_e, double norm_e, const arma::vec& null_vec, long m,
                                     const lobpcg_options& o) {
  const long n = B.rows();
  arma::vec up(n);
  for (long r = 0; r < n; ++r) up(r) = null_vec(perm[r]);
  lobpcg_term add_b;
  if (add_e) {
    add_b = [&](const arma::mat& Z, arma::mat& Y) {
      arma::mat Zo(n, Z.n_cols), Yo(n, Z.n_cols, arma::fill::zeros);
      for (long r = 0; r < n; ++r) Zo.row(perm[r]) = Z.row(r);
      add_e(Zo, Yo);
      for (long r = 0; r < n; ++r) Y.row(r) += Yo.row(perm[r]);
    };
  }
  eigen_result res = lobpcg_core(B, add_b, norm_e, up, m, o);
  arma::mat V(n, res.vectors.n_cols);
  for (long r = 0; r < n; ++r) V.row(perm[r]) = res.vectors.row(r);
  res.vectors = std::move(V);
  res.note += "; rows in breadth-first order";
  return res;
}

}  // namespace lobpcg_detail

eigen_result lobpcg_bottom_deflated(const Eigen::SparseMatrix<double>& A, const arma::vec& null_vec,
                                    long m, const lobpcg_options& o) {
  return lobpcg_bottom_deflated(A, lobpcg_term(), 0.0, null_vec, m, o);
}

eigen_result lobpcg_bottom_deflated(const Eigen::SparseMatrix<double>& S, const lobpcg_term& add_e, double norm_e,
                                    const arma::vec& null_vec, long m, const lobpcg_options& o) {
  if (!lobpcg_detail::renumber(S, null_vec, o)) return lobpcg_core(S, add_e, norm_e, null_vec, m, o);
  const std::vector<int> perm = lobpcg_detail::bfs_order(S);
  const Eigen::SparseMatrix<double> B = lobpcg_detail::permute_sym(S, perm, o.n_threads);
  return lobpcg_detail::solve_renumbered(B, perm, add_e, norm_e, null_vec, m, o);
}

eigen_result lobpcg_bottom_deflated_in_place(Eigen::SparseMatrix<double>& A, const arma::vec& null_vec, long m,
                                             const lobpcg_options& o) {
  if (!lobpcg_detail::renumber(A, null_vec, o)) return lobpcg_core(A, lobpcg_term(), 0.0, null_vec, m, o);
  const std::vector<int> perm = lobpcg_detail::bfs_order(A);
  std::vector<int> inv(perm.size());
  for (std::size_t r = 0; r < perm.size(); ++r) inv[perm[r]] = static_cast<int>(r);
  // the caller's copy is released while the solve runs, and restored after
  // (rows and columns moved back: bitwise the caller's matrix)
  auto renumber_a = [&](const std::vector<int>& p) {
    Eigen::SparseMatrix<double> B = lobpcg_detail::permute_sym(A, p, o.n_threads);
    A.swap(B);  // B (the old numbering) is freed here
  };
  renumber_a(perm);
  eigen_result res;
  try {
    res = lobpcg_detail::solve_renumbered(A, perm, lobpcg_term(), 0.0, null_vec, m, o);
  } catch (...) {
    renumber_a(inv);
    throw;
  }
  renumber_a(inv);
  return res;
}

}  // namespace manifoldOOS
