// Smoothed-aggregation AMG; see <manifoldOOS/blocks/amg.h>.
#include <manifoldOOS/blocks/amg.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

using sp_mat_e = Eigen::SparseMatrix<double>;
using sp_mat_r = Eigen::SparseMatrix<double, Eigen::RowMajor>;

namespace amg_detail {

// Y(i, :) = sum over the stored entries (i, j) of the outer vector i of M of
// M(i, j) X(j, :): for a row-major matrix that is M X, for a symmetric
// column-major one too.
template <class Sp>
static arma::mat outer_times(const Sp& M, const arma::mat& X, int n_threads) {
  const long n_out = M.outerSize();
  const arma::uword p = X.n_cols;
  const long nx = static_cast<long>(X.n_rows);
  arma::mat Y(n_out, p);
  const auto* op = M.outerIndexPtr();
  const auto* ip = M.innerIndexPtr();
  const double* vp = M.valuePtr();
  const double* xp = X.memptr();
  double* yp = Y.memptr();
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) if (nt > 1 && n_out > 4096) schedule(static)
#endif
  for (long i = 0; i < n_out; ++i) {
    const long k0 = op[i], k1 = op[i + 1];
    for (arma::uword c = 0; c < p; ++c) {
      const double* xc = xp + c * nx;
      double s = 0.0;
      for (long k = k0; k < k1; ++k) s += vp[k] * xc[ip[k]];
      yp[c * n_out + i] = s;
    }
  }
  return Y;
}

arma::mat sym_times(const sp_mat_e& A, const arma::mat& X, int n_threads) {
  return outer_times(A, X, n_threads);
}

long aggregate(const sp_mat_e& A, double theta, std::vector<long>& agg) {
  const long n = A.rows();
  arma::vec d(n);
  for (long i = 0; i < n; ++i) d(i) = std::abs(A.coeff(i, i));
  const auto* op = A.outerIndexPtr();
  const auto* ip = A.innerIndexPtr();
  const double* vp = A.valuePtr();
  auto strong = [&](long i, long k) {
    const long j = ip[k];
    return j != i && vp[k] != 0.0 && std::abs(vp[k]) >= theta * std::sqrt(d(i) * d(j));
  };
  agg.assign(n, -1);
  long na = 0;
  // pass 1: seeds whose strong neighbourhood is entirely free
  for (long i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    bool free = true, any = false;
    for (long k = op[i]; k < op[i + 1] && free; ++k) {
      if (!strong(i, k)) continue;
      any = true;
      if (agg[ip[k]] >= 0) free = false;
    }
    if (!free || !any) continue;
    agg[i] = na;
    for (long k = op[i]; k < op[i + 1]; ++k) {
      if (strong(i, k)) agg[ip[k]] = na;
    }
    ++na;
  }
  // pass 2: free nodes join the aggregate of their strongest aggregated neighbour
  const std::vector<long> first(agg);
  for (long i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    double best = -1.0;
    long target = -1;
    for (long k = op[i]; k < op[i + 1]; ++k) {
      if (!strong(i, k) || first[ip[k]] < 0) continue;
      const double s = std::abs(vp[k]);
      if (s > best) {
        best = s;
        target = first[ip[k]];
      }
    }
    if (target >= 0) agg[i] = target;
  }
  // pass 3: leftovers group with their free strong neighbours (or alone)
  for (long i = 0; i < n; ++i) {
    if (agg[i] >= 0) continue;
    agg[i] = na;
    for (long k = op[i]; k < op[i + 1]; ++k) {
      if (strong(i, k) && agg[ip[k]] < 0) agg[ip[k]] = na;
    }
    ++na;
  }
  return na;
}

// Spectral radius of D^{-1} A (similar to the symmetric D^{-1/2} A D^{-1/2})
// by power iteration on the symmetric form; a slight overestimate is safe.
static double rho_dinv_a(const sp_mat_e& A, const arma::vec& dinv, int n_threads) {
  const long n = A.rows();
  std::mt19937 gen(20011);
  std::normal_distribution<double> nd;
  arma::vec s = arma::sqrt(dinv), x(n);
  for (long i = 0; i < n; ++i) x(i) = nd(gen);
  x /= arma::norm(x);
  double lam = 0.0;
  for (int it = 0; it < 20; ++it) {
    arma::vec y = s % sym_times(A, arma::mat(s % x), n_threads).col(0);
    lam = arma::dot(x, y);
    const double ny = arma::norm(y);
    if (!(ny > 0)) break;
    x = y / ny;
  }
  return 1.1 * lam;
}

}  // namespace amg_detail

amg_hierarchy::amg_hierarchy(const sp_mat_e& A, const arma::vec& b, const amg_options& o) : o_(o) {
  if (A.rows() != A.cols() || A.rows() < 1) throw input_error("the AMG matrix must be square and non-empty");
  if (long(b.n_elem) != A.rows()) throw input_error("the AMG null vector has the wrong length");
  if (!A.isCompressed()) throw input_error("the AMG matrix must be compressed");
  const int nt = o.n_threads;
  arma::vec bl = b / arma::norm(b);
  fine_b_ = bl;
  levels_.emplace_back();
  levels_.back().A = &A;
  for (;;) {
    level& L = levels_.back();
    const sp_mat_e& Al = *L.A;
    const long n = Al.rows();
    arma::vec dinv(n);
    for (long i = 0; i < n; ++i) {
      const double a = Al.coeff(i, i);
      if (!(a > 0)) throw input_error("the AMG matrix has a non-positive diagonal entry");
      dinv(i) = 1.0 / a;
    }
    const double rho = amg_detail::rho_dinv_a(Al, dinv, nt);
    const double omega = o.jacobi_weight > 0 ? o.jacobi_weight : 4.0 / (3.0 * rho);
    L.inv_diag = omega * dinv;
    if (n <= o.coarse_size || int(levels_.size()) >= o.max_levels) break;
    std::vector<long> agg;
    const long nc = amg_detail::aggregate(Al, o.theta, agg);
    if (nc >= n || nc < 2 || double(nc) > 0.85 * double(n)) break;  // coarsening stalled
    check_interrupt();
    // tentative prolongator: piecewise bl, unit columns; coarse null vector
    arma::vec bc(nc, arma::fill::zeros), tval(n);
    for (long i = 0; i < n; ++i) bc(agg[i]) += bl(i) * bl(i);
    bc = arma::sqrt(bc);
    for (long i = 0; i < n; ++i) tval(i) = bc(agg[i]) > 0 ? bl(i) / bc(agg[i]) : 0.0;
    // smoothed P = T - omega D^{-1} A T, row by row (row-major)
    std::vector<std::vector<std::pair<long, double>>> rows(n);
    const auto* op = Al.outerIndexPtr();
    const auto* ip = Al.innerIndexPtr();
    const double* vp = Al.valuePtr();
    const int nth = resolve_threads(nt);
    (void)nth;
#ifdef _OPENMP
#pragma omp parallel num_threads(nth) if (nth > 1)
#endif
    {
      std::vector<long> pos(nc, -1);
      std::vector<std::pair<long, double>> acc;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1024)
#endif
      for (long i = 0; i < n; ++i) {
        acc.clear();
        auto add = [&](long a, double v) {
          if (pos[a] < 0) {
            pos[a] = static_cast<long>(acc.size());
            acc.emplace_back(a, v);
          } else {
            acc[pos[a]].second += v;
          }
        };
        add(agg[i], tval(i));
        const double w = omega * dinv(i);
        for (long k = op[i]; k < op[i + 1]; ++k) add(agg[ip[k]], -w * vp[k] * tval(ip[k]));
        for (auto& e : acc) pos[e.first] = -1;
        std::sort(acc.begin(), acc.end());
        rows[i] = acc;
      }
    }
    sp_mat_r P(n, nc);
    {
      long nnz = 0;
      for (long i = 0; i < n; ++i) nnz += static_cast<long>(rows[i].size());
      P.reserve(nnz);
      for (long i = 0; i < n; ++i) {
        P.startVec(i);
        for (const auto& e : rows[i]) P.insertBack(i, e.first) = e.second;
        std::vector<std::pair<long, double>>().swap(rows[i]);
      }
      P.finalize();
    }
    std::vector<std::vector<std::pair<long, double>>>().swap(rows);
    // Galerkin product P' A P in row blocks of A (A symmetric: its column
    // block is the transposed row block), bounding the intermediate A P.
    const sp_mat_e Pc(P);
    sp_mat_e Ac(nc, nc);
    const long blk = std::max<long>(4096, n / 16);
    for (long r0 = 0; r0 < n; r0 += blk) {
      const long len = std::min(blk, n - r0);
      const sp_mat_e Acol = Al.middleCols(r0, len);        // A(:, blk)
      const sp_mat_e Pb = P.middleRows(r0, len);           // P(blk, :) (row-major panel)
      const sp_mat_e APb = Acol * Pb;                      // n x nc
      const sp_mat_e term = Pc.transpose() * APb;          // nc x nc
      Ac += term;
      check_interrupt();
    }
    sp_mat_e At = Ac.transpose();
    Ac = 0.5 * (Ac + At);
    Ac.makeCompressed();
    L.R = P.transpose();
    L.P = std::move(P);
    level next;
    next.A_own = std::move(Ac);
    levels_.push_back(std::move(next));
    levels_.back().A = &levels_.back().A_own;
    bl = bc / arma::norm(bc);
  }
  // pointers into A_own moved with the vector: reset them
  for (std::size_t l = 1; l < levels_.size(); ++l) levels_[l].A = &levels_[l].A_own;
  // coarsest level: dense A_c + c b_c b_c' (SPD on a connected graph)
  const sp_mat_e& Ac = *levels_.back().A;
  arma::mat D(Ac.rows(), Ac.cols(), arma::fill::zeros);
  for (long j = 0; j < Ac.outerSize(); ++j) {
    for (sp_mat_e::InnerIterator it(Ac, j); it; ++it) D(it.row(), it.col()) = it.value();
  }
  coarse_b_ = bl;
  const double c = std::max(arma::mean(D.diag()), 1e-300);
  D += c * (bl * bl.t());
  if (!arma::chol(coarse_chol_, D)) {
    // several null vectors (a disconnected graph): pseudo-inverse instead
    arma::vec ev;
    arma::mat V;
    if (!arma::eig_sym(ev, V, D)) throw convergence_error("the coarsest AMG matrix has no eigendecomposition");
    const double tol = ev.max() * 1e-12 * double(ev.n_elem);
    arma::vec inv(ev.n_elem, arma::fill::zeros);
    for (arma::uword i = 0; i < ev.n_elem; ++i) if (ev(i) > tol) inv(i) = 1.0 / ev(i);
    coarse_pinv_ = V * arma::diagmat(inv) * V.t();
    coarse_chol_.reset();
  }
}

long amg_hierarchy::size(int l) const { return levels_.at(l).A->rows(); }
long amg_hierarchy::nnz(int l) const { return levels_.at(l).A->nonZeros(); }
double amg_hierarchy::operator_complexity() const {
  double s = 0.0;
  for (const auto& L : levels_) s += double(L.A->nonZeros());
  return s / double(levels_.front().A->nonZeros());
}

void amg_hierarchy::vcycle(std::size_t l, const arma::mat& r, arma::mat& x) const {
  const level& L = levels_[l];
  const int nt = o_.n_threads;
  if (l + 1 == levels_.size()) {
    arma::mat rr = r - coarse_b_ * (coarse_b_.t() * r);
    if (!coarse_chol_.is_empty()) {
      const arma::mat z = arma::solve(arma::trimatl(coarse_chol_.t()), rr);
      x = arma::solve(arma::trimatu(coarse_chol_), z);
    } else {
      x = coarse_pinv_ * rr;
    }
    x -= coarse_b_ * (coarse_b_.t() * x);
    return;
  }
  const sp_mat_e& A = *L.A;
  x = r.each_col() % L.inv_diag;
  for (int s = 1; s < o_.pre_sweeps; ++s) {
    x += (r - amg_detail::sym_times(A, x, nt)).eval().each_col() % L.inv_diag;
  }
  const arma::mat res = r - amg_detail::sym_times(A, x, nt);
  const arma::mat rc = amg_detail::outer_times(L.R, res, nt);
  arma::mat xc;
  vcycle(l + 1, rc, xc);
  x += amg_detail::outer_times(L.P, xc, nt);
  for (int s = 0; s < o_.post_sweeps; ++s) {
    x += (r - amg_detail::sym_times(A, x, nt)).eval().each_col() % L.inv_diag;
  }
}

arma::mat amg_hierarchy::apply(const arma::mat& R) const {
  if (long(R.n_rows) != levels_.front().A->rows()) throw input_error("AMG: wrong number of rows");
  arma::mat rr = R - fine_b_ * (fine_b_.t() * R);
  arma::mat x;
  vcycle(0, rr, x);
  x -= fine_b_ * (fine_b_.t() * x);
  return x;
}

}  // namespace manifoldOOS
