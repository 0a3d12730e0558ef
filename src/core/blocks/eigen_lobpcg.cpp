// Deflated LOBPCG with an AMG preconditioner; see <manifoldOOS/blocks/eigen_lobpcg.h>.
#include <manifoldOOS/blocks/eigen_lobpcg.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

namespace lobpcg_detail {

// Orthonormal basis of the span of S's columns, numerically dependent
// directions dropped: columns scaled to unit norm, then S V Lambda^{-1/2}
// from the eigendecomposition of the Gram matrix; two passes.
static arma::mat orthonormal(arma::mat S) {
  for (int pass = 0; pass < 2 && S.n_cols > 0; ++pass) {
    arma::rowvec d = arma::sqrt(arma::sum(arma::square(S), 0));
    const arma::uvec nz = arma::find(d > 0);
    if (nz.n_elem < S.n_cols) {
      S = arma::mat(S.cols(nz));
      d = arma::rowvec(d.cols(nz));
    }
    if (S.n_cols == 0) break;
    S.each_row() /= d;
    arma::mat G = S.t() * S;
    G = 0.5 * (G + G.t());
    arma::vec ev;
    arma::mat V;
    if (!arma::eig_sym(ev, V, G)) throw convergence_error("LOBPCG: the Gram eigendecomposition failed");
    const arma::uvec keep = arma::find(ev > ev.max() * 1e-12);
    S = S * (V.cols(keep) * arma::diagmat(1.0 / arma::sqrt(ev(keep))));
  }
  return S;
}

static void orth_against(arma::mat& S, const arma::mat& X) {
  for (int pass = 0; pass < 2; ++pass) S -= X * (X.t() * S);
}

static double norm_inf_sym(const Eigen::SparseMatrix<double>& A) {
  double best = 0.0;
  for (long j = 0; j < A.outerSize(); ++j) {
    double s = 0.0;
    for (Eigen::SparseMatrix<double>::InnerIterator it(A, j); it; ++it) s += std::abs(it.value());
    best = std::max(best, s);
  }
  return best;
}

}  // namespace lobpcg_detail

eigen_result lobpcg_bottom_deflated(const Eigen::SparseMatrix<double>& A, const arma::vec& null_vec,
                                    long m, const lobpcg_options& o) {
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
  const double na = lobpcg_detail::norm_inf_sym(A);
  const double tol_abs = o.tol * (na > 0 ? na : 1.0);
  amg_options ao = o.amg;
  ao.n_threads = nt;
  const amg_hierarchy M(A, u, ao);
  auto times_a = [&](const arma::mat& Z) { return amg_detail::sym_times(A, Z, nt); };

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
  X = lobpcg_detail::orthonormal(X);
  for (int sweep = 0; sweep < 2; ++sweep) {
    arma::mat Y = lobpcg_detail::orthonormal(M.apply(X));
    if (long(Y.n_cols) < bs) break;
    X = std::move(Y);
  }
  if (long(X.n_cols) < bs) throw convergence_error("LOBPCG: the start block is rank deficient");
  arma::mat AX = times_a(X);
  arma::vec theta;
  {
    arma::mat G = X.t() * AX, C;
    G = 0.5 * (G + G.t());
    if (!arma::eig_sym(theta, C, G)) throw convergence_error("LOBPCG: Rayleigh-Ritz failed");
    X = X * C;
    AX = AX * C;
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
    lobpcg_detail::orth_against(S, X);
    S = lobpcg_detail::orthonormal(S);
    lobpcg_detail::orth_against(S, X);
    S = lobpcg_detail::orthonormal(S);
    if (S.n_cols == 0) throw convergence_error("LOBPCG: the search directions vanished");
    const arma::mat AS = times_a(S);
    // Rayleigh-Ritz on the orthonormal basis [X, S]
    arma::mat G(bs + S.n_cols, bs + S.n_cols);
    G.submat(0, 0, bs - 1, bs - 1) = X.t() * AX;
    const arma::mat XAS = X.t() * AS;
    G.submat(0, bs, bs - 1, G.n_cols - 1) = XAS;
    G.submat(bs, 0, G.n_rows - 1, bs - 1) = XAS.t();
    G.submat(bs, bs, G.n_rows - 1, G.n_cols - 1) = S.t() * AS;
    G = 0.5 * (G + G.t());
    arma::vec ev;
    arma::mat V;
    if (!arma::eig_sym(ev, V, G)) throw convergence_error("LOBPCG: Rayleigh-Ritz failed");
    const arma::mat CX = V.submat(0, 0, bs - 1, bs - 1);
    const arma::mat CS = V.submat(bs, 0, V.n_rows - 1, bs - 1);
    theta = ev.head(bs);
    P = S * CS;
    X = X * CX + P;
    AX = AX * CX + AS * CS;
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

}  // namespace manifoldOOS
