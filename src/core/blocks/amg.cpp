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

// Columns [0, P) of Y = M X for P columns known at compile time, X and Y
// column-major (X with leading dimension ldx, Y with n_out rows): row i of Y
// is the sum over the stored entries (i, j) of the outer vector i of M of
// M(i, j) X(j, :), in the order of the entries. The P sums of a row stay in registers.
template <int P>
static void outer_times_cols(const int* op, const int* ip, const double* vp, const double* xp, long ldx, double* yp,
                             long n_out, bool add, int nt) {
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) if (nt > 1 && n_out > 4096) schedule(static)
#endif
  for (long i = 0; i < n_out; ++i) {
    double acc[P];
    for (int c = 0; c < P; ++c) acc[c] = 0.0;
    for (long k = op[i], k1 = op[i + 1]; k < k1; ++k) {
      const double v = vp[k];
      const double* xj = xp + ip[k];
      for (int c = 0; c < P; ++c) acc[c] += v * xj[static_cast<std::size_t>(c) * ldx];
    }
    if (add) {
      for (int c = 0; c < P; ++c) yp[static_cast<std::size_t>(c) * n_out + i] += acc[c];
    } else {
      for (int c = 0; c < P; ++c) yp[static_cast<std::size_t>(c) * n_out + i] = acc[c];
    }
  }
}

// Y(i, :) = sum over the stored entries (i, j) of the outer vector i of M of
// M(i, j) X(j, :) (or Y(i, :) + that sum, when add): for a row-major matrix
// that is M X, for a symmetric column-major one too. Y must have
// M.outerSize() rows and X's columns. The columns are taken 8 at a time;
// each column's sum runs over the row's entries in order from zero, as in a
// column-by-column product, and is then stored (or added to Y's entry).
template <class Sp>
static void outer_times_into(const Sp& M, const arma::mat& X, arma::mat& Y, bool add, int n_threads) {
  const long n_out = M.outerSize();
  const arma::uword p = X.n_cols;
  if (long(Y.n_rows) != n_out || Y.n_cols != p) throw error("internal: outer_times_into with a wrongly sized result");
  if (p == 0 || n_out == 0) return;
  const auto* op = M.outerIndexPtr();
  const auto* ip = M.innerIndexPtr();
  const double* vp = M.valuePtr();
  const long ldx = static_cast<long>(X.n_rows);
  const int nt = resolve_threads(n_threads);
  for (arma::uword c0 = 0; c0 < p; c0 += 8) {
    const double* xp = X.colptr(c0);
    double* yp = Y.colptr(c0);
    switch (std::min<arma::uword>(8, p - c0)) {
      case 1: outer_times_cols<1>(op, ip, vp, xp, ldx, yp, n_out, add, nt); break;
      case 2: outer_times_cols<2>(op, ip, vp, xp, ldx, yp, n_out, add, nt); break;
      case 3: outer_times_cols<3>(op, ip, vp, xp, ldx, yp, n_out, add, nt); break;
      case 4: outer_times_cols<4>(op, ip, vp, xp, ldx, yp, n_out, add, nt); break;
      case 5: outer_times_cols<5>(op, ip, vp, xp, ldx, yp, n_out, add, nt); break;
      case 6: outer_times_cols<6>(op, ip, vp, xp, ldx, yp, n_out, add, nt); break;
      case 7: outer_times_cols<7>(op, ip, vp, xp, ldx, yp, n_out, add, nt); break;
      default: outer_times_cols<8>(op, ip, vp, xp, ldx, yp, n_out, add, nt); break;
    }
  }
}

template <class Sp>
static arma::mat outer_times(const Sp& M, const arma::mat& X, int n_threads) {
  arma::mat Y(M.outerSize(), X.n_cols);
  outer_times_into(M, X, Y, false, n_threads);
  return Y;
}

// In place, entry by entry: x += (r - t) % d (a damped Jacobi step, d the
// scaled inverse diagonal) when jacobi, else t = r - t (the residual).
static void jacobi_or_residual(bool jacobi, const arma::mat& r, arma::mat& t, arma::mat& x, const arma::vec& d,
                               int n_threads) {
  const long n = static_cast<long>(r.n_rows);
  const int nt = resolve_threads(n_threads);
  (void)nt;
  for (arma::uword c = 0; c < r.n_cols; ++c) {
    const double* rc = r.colptr(c);
    double* tc = t.colptr(c);
    double* xc = jacobi ? x.colptr(c) : nullptr;
    const double* dp = d.memptr();
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) if (nt > 1 && n > 65536) schedule(static)
#endif
    for (long i = 0; i < n; ++i) {
      if (jacobi) {
        xc[i] += (rc[i] - tc[i]) * dp[i];
      } else {
        tc[i] = rc[i] - tc[i];
      }
    }
  }
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

// Sparse rows accumulated with a dense scatter over `width` columns, one row
// at a time per thread; `fill(r, add)` calls add(col, value) for row r. Two
// passes (the first counts each row's columns), so the rows are written
// straight into the compressed row-major result with no intermediate copy.
// Every row is summed by one thread in a fixed order, so the result does not
// depend on the number of threads.
template <class Fill>
static sp_mat_r accumulate_rows(long n_rows, long width, int n_threads, Fill fill) {
  sp_mat_r M(n_rows, width);
  std::vector<long> start(n_rows + 1, 0);
  const int nt = resolve_threads(n_threads);
  (void)nt;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      for (long r = 0; r < n_rows; ++r) start[r + 1] += start[r];
      if (start[n_rows] > 2147483647L) throw input_error("the AMG Galerkin product has more than 2^31 entries");
      M.resizeNonZeros(start[n_rows]);
      for (long r = 0; r <= n_rows; ++r) M.outerIndexPtr()[r] = static_cast<int>(start[r]);
    }
    int* mip = M.innerIndexPtr();
    double* mvp = M.valuePtr();
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1 && n_rows > 1024)
#endif
    {
      std::vector<double> acc(width, 0.0);
      std::vector<char> used(width, 0);
      std::vector<int> cols;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 256)
#endif
      for (long r = 0; r < n_rows; ++r) {
        cols.clear();
        fill(r, [&](int c, double v) {
          if (!used[c]) {
            used[c] = 1;
            cols.push_back(c);
          }
          acc[c] += v;
        });
        if (pass == 0) {
          start[r + 1] = static_cast<long>(cols.size());
        } else {
          std::sort(cols.begin(), cols.end());
          long at = start[r];
          for (int c : cols) {
            mip[at] = c;
            mvp[at++] = acc[c];
          }
        }
        for (int c : cols) {
          acc[c] = 0.0;
          used[c] = 0;
        }
      }
    }
  }
  return M;
}

// P' A P (nc x nc): first the rows of A P (A symmetric: its columns read as
// rows), then row a of the product as the sum over the fine rows i listed in
// row a of R = P' of R(a, i) (A P)(i, :).
static sp_mat_e galerkin(const sp_mat_e& A, const sp_mat_r& P, const sp_mat_r& R, long nc, int n_threads) {
  const auto* aop = A.outerIndexPtr();
  const auto* aip = A.innerIndexPtr();
  const double* avp = A.valuePtr();
  const auto* pop = P.outerIndexPtr();
  const auto* pip = P.innerIndexPtr();
  const double* pvp = P.valuePtr();
  const sp_mat_r AP = accumulate_rows(A.outerSize(), nc, n_threads, [&](long i, auto add) {
    for (long s = aop[i]; s < aop[i + 1]; ++s) {
      const long k = aip[s];
      const double w = avp[s];
      for (long q = pop[k]; q < pop[k + 1]; ++q) add(pip[q], w * pvp[q]);
    }
  });
  const auto* bop = AP.outerIndexPtr();
  const auto* bip = AP.innerIndexPtr();
  const double* bvp = AP.valuePtr();
  const auto* rop = R.outerIndexPtr();
  const auto* rip = R.innerIndexPtr();
  const double* rvp = R.valuePtr();
  const sp_mat_r Ac = accumulate_rows(nc, nc, n_threads, [&](long a, auto add) {
    for (long t = rop[a]; t < rop[a + 1]; ++t) {
      const long i = rip[t];
      const double w = rvp[t];
      for (long q = bop[i]; q < bop[i + 1]; ++q) add(bip[q], w * bvp[q]);
    }
  });
  return sp_mat_e(Ac);
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
    // Galerkin product P' A P (rows of A P, then rows of R (A P)); threaded,
    // the same result for any number of threads
    sp_mat_r R = P.transpose();
    R.makeCompressed();
    sp_mat_e Ac = amg_detail::galerkin(Al, P, R, nc, nt);
    {
      sp_mat_e At = Ac.transpose();
      Ac = 0.5 * (Ac + At);
      Ac.makeCompressed();
    }
    check_interrupt();
    L.R = std::move(R);
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
  // t: one scratch block for A x, the residual and the sweeps; every step is
  // the entry-by-entry arithmetic of x += (r - A x) % d, r - A x, x += P xc
  x = r.each_col() % L.inv_diag;
  arma::mat t(r.n_rows, r.n_cols);
  for (int s = 1; s < o_.pre_sweeps; ++s) {
    amg_detail::outer_times_into(A, x, t, false, nt);
    amg_detail::jacobi_or_residual(true, r, t, x, L.inv_diag, nt);
  }
  amg_detail::outer_times_into(A, x, t, false, nt);
  amg_detail::jacobi_or_residual(false, r, t, x, L.inv_diag, nt);
  const arma::mat rc = amg_detail::outer_times(L.R, t, nt);
  arma::mat xc;
  vcycle(l + 1, rc, xc);
  amg_detail::outer_times_into(L.P, xc, x, true, nt);
  for (int s = 0; s < o_.post_sweeps; ++s) {
    amg_detail::outer_times_into(A, x, t, false, nt);
    amg_detail::jacobi_or_residual(true, r, t, x, L.inv_diag, nt);
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
