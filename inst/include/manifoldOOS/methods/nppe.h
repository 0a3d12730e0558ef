// Neighborhood preserving polynomial embedding (NPPE) and its simplified
// (Hadamard) form SNPPE (Qiao, Zhang, Wang & Zhang).
//
// Model: y(x) = V' (phi_p(x~) - phibar), x~ = (x - mu) ./ s, with phi_p the
// polynomial features of degree 1..p of the standardised input:
//   * hadamard (SNPPE, eq. 30): the pure powers x~_j^r, q = p D;
//   * full: every distinct monomial of degree 1..p, q = C(D + p, p) - 1 (the
//     unique-monomial basis; the literal Kronecker basis of eq. 18 spans the
//     same function space with duplicated columns and a singular B).
// V solves  F~' M F~ v = lambda F~' F~ v  (the m smallest lambda), M = (I-R)'(I-R)
// the LLE cost matrix (built by the caller from reconstruction.h weights).
// The generalised problem goes through linear_projection() (the NPE/ONPP
// path): Cholesky of B = F'F when it is SPD, else range-restricted (the
// "svd" solver), optionally with a coefficient penalty eps I added to
// A = F'MF (Qiao et al. put the ridge on B; that makes null directions of F
// optimal, see nppe_fit()).
//
// Features are generated recursively: every feature is its parent feature
// (one degree lower; none for degree 1) times one coordinate, so a point costs
// O(q) multiplications and prediction never forms more than one feature vector
// per thread.
#ifndef MANIFOLDOOS_NPPE_H
#define MANIFOLDOOS_NPPE_H

#include <armadillo>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/methods/linear_projections.h>
#include <manifoldOOS/blocks/parallel.h>

namespace manifoldOOS {

// The two string options of NPPE: the polynomial basis and the scaling of
// the coordinates.
enum class poly_kind { hadamard, full };
inline constexpr choice<poly_kind> poly_kind_names[] = {
    {"hadamard", poly_kind::hadamard}, {"full", poly_kind::full}};
inline poly_kind parse_poly_kind(const std::string& s) {
  return parse_choice(s, poly_kind_names, "`basis` must be \"hadamard\" or \"full\"");
}

enum class nppe_scale { coord, global, none };
inline constexpr choice<nppe_scale> nppe_scale_names[] = {
    {"coord", nppe_scale::coord}, {"global", nppe_scale::global}, {"none", nppe_scale::none}};
inline nppe_scale parse_nppe_scale(const std::string& s) {
  return parse_choice(s, nppe_scale_names, "`scale` must be \"coord\", \"global\" or \"none\"");
}

// Number of features (as a double: the full basis overflows integers quickly).
inline double poly_feature_count(long D, long p, poly_kind kind) {
  if (kind == poly_kind::hadamard) return double(D) * double(p);
  // C(D + p, p) - 1
  double c = 1.0;
  for (long j = 1; j <= p; ++j) c = c * double(D + j) / double(j);
  return std::round(c) - 1.0;
}

// Feature table: feature f = (parent[f] < 0 ? 1 : phi[parent[f]]) * x[coord[f]];
// parents precede children. Degree-1 features come first (coordinate order),
// then degree 2, ... (graded order; within a degree, lexicographic in the
// sorted index tuple for the full basis).
struct poly_basis {
  poly_kind kind = poly_kind::hadamard;
  long D = 0, p = 0;
  std::vector<long> parent, coord, degree;
  long size() const { return static_cast<long>(coord.size()); }
};

inline poly_basis make_poly_basis(long D, long p, poly_kind kind) {
  if (D < 1) throw input_error("the data have no (non-constant) columns");
  if (p < 1) throw input_error("`degree` must be at least 1");
  poly_basis b;
  b.kind = kind;
  b.D = D;
  b.p = p;
  const double q = poly_feature_count(D, p, kind);
  if (q > 5e7) throw input_error("too many polynomial features");
  b.parent.reserve(static_cast<std::size_t>(q));
  b.coord.reserve(static_cast<std::size_t>(q));
  b.degree.reserve(static_cast<std::size_t>(q));
  for (long j = 0; j < D; ++j) {
    b.parent.push_back(-1);
    b.coord.push_back(j);
    b.degree.push_back(1);
  }
  if (kind == poly_kind::hadamard) {
    for (long r = 2; r <= p; ++r) {
      for (long j = 0; j < D; ++j) {
        b.parent.push_back((r - 2) * D + j);
        b.coord.push_back(j);
        b.degree.push_back(r);
      }
    }
    return b;
  }
  // full: degree-r monomials = degree-(r-1) monomials times a coordinate with
  // index >= the last (largest) index of the parent.
  long lo = 0, hi = D;  // features of degree r - 1 are [lo, hi)
  for (long r = 2; r <= p; ++r) {
    const long start = b.size();
    for (long f = lo; f < hi; ++f) {
      for (long j = b.coord[f]; j < D; ++j) {
        b.parent.push_back(f);
        b.coord.push_back(j);
        b.degree.push_back(r);
      }
    }
    lo = start;
    hi = b.size();
  }
  return b;
}

// Exponent table (q x D) of a basis.
inline arma::imat poly_exponents(const poly_basis& b) {
  arma::imat E(b.size(), b.D, arma::fill::zeros);
  for (long f = 0; f < b.size(); ++f) {
    if (b.parent[f] >= 0) E.row(f) = E.row(b.parent[f]);
    E(f, b.coord[f]) += 1;
  }
  return E;
}

// phi (length q) of one standardised point xs (length D).
inline void poly_features_row(const poly_basis& b, const double* xs, double* phi) {
  const long q = b.size();
  for (long f = 0; f < q; ++f) {
    const long pa = b.parent[f];
    phi[f] = (pa < 0 ? 1.0 : phi[pa]) * xs[b.coord[f]];
  }
}

// Everything predict() needs.
struct nppe_model {
  poly_basis basis;
  arma::uvec keep;     // kept input columns (0-based)
  arma::vec mu, s;     // standardisation of the kept columns
  arma::vec phibar;    // feature means (zeros when not centred)
  arma::mat V;         // q x m coefficients
};

// Standardised kept coordinates of row i of X into xs.
inline void nppe_standardise_row(const nppe_model& md, const arma::mat& X, arma::uword i, double* xs) {
  const arma::uword D = md.keep.n_elem;
  for (arma::uword j = 0; j < D; ++j) xs[j] = (X(i, md.keep[j]) - md.mu[j]) / md.s[j];
}

// y(x) for every row of X, threaded over row blocks; one feature vector per
// thread. The same row gives the same result in any batch.
inline arma::mat nppe_predict(const nppe_model& md, const arma::mat& X, int n_threads) {
  const long q = md.basis.size();
  const arma::uword m = md.V.n_cols;
  if (md.V.n_rows != arma::uword(q) || md.phibar.n_elem != arma::uword(q)) {
    throw input_error("inconsistent NPPE model (coefficients and basis differ in size)");
  }
  if (md.keep.n_elem == 0 || md.keep.max() >= X.n_cols) throw input_error("`newdata` has too few columns");
  if (!X.is_finite()) throw input_error("`newdata` must contain only finite values");
  arma::mat Y(X.n_rows, m);
  struct state {
    std::vector<double> xs, phi;
  };
  // No feature matrix is formed, so one block covers all rows; threads only
  // for enough work (a parallel region on a loaded machine costs more than ~1e6 flops).
  const double work = double(X.n_rows) * double(q) * double(m + 1);
  const int nt = std::max(1, std::min(resolve_threads(n_threads), int(work / 4e6) + 1));
  parallel_row_blocks(
      X.n_rows, std::max<std::size_t>(X.n_rows, 1), nt, [](std::size_t, std::size_t) {},
      [&]() { return state{std::vector<double>(md.keep.n_elem), std::vector<double>(q)}; },
      [&](state& st, std::size_t i) {
        nppe_standardise_row(md, X, i, st.xs.data());
        poly_features_row(md.basis, st.xs.data(), st.phi.data());
        for (long f = 0; f < q; ++f) st.phi[f] -= md.phibar[f];
        for (arma::uword c = 0; c < m; ++c) {
          const double* v = md.V.colptr(c);
          double acc = 0.0;
          for (long f = 0; f < q; ++f) acc += v[f] * st.phi[f];
          Y(i, c) = acc;
        }
      },
      [](state&) {}, 256);
  return Y;
}

// Feature matrix (N x q) of the training rows (fit only).
inline arma::mat nppe_features(const nppe_model& md, const arma::mat& X, int n_threads) {
  const long q = md.basis.size();
  if (md.keep.n_elem == 0 || md.keep.max() >= X.n_cols) throw input_error("`X` has too few columns");
  arma::mat F(X.n_rows, q);
  struct state {
    std::vector<double> xs, phi;
  };
  parallel_row_blocks(
      X.n_rows, 8192, n_threads, [](std::size_t, std::size_t) {},
      [&]() { return state{std::vector<double>(md.keep.n_elem), std::vector<double>(q)}; },
      [&](state& st, std::size_t i) {
        nppe_standardise_row(md, X, i, st.xs.data());
        poly_features_row(md.basis, st.xs.data(), st.phi.data());
        for (long f = 0; f < q; ++f) F(i, f) = st.phi[f];
      },
      [](state&) {}, 256);
  return F;
}

struct nppe_options {
  long m = 2;
  long p = 2;
  poly_kind kind = poly_kind::hadamard;
  bool center = true;
  nppe_scale scale = nppe_scale::coord;
  double ridge = 0.0;       // > 0: A + ridge * tr(B)/q * I (coefficient penalty); 0: exact solve
  bool force_range = false; // ridge = 0: always restrict to the range of F (else only when B is singular)
  double rank_tol = 1e-10;  // kept directions of B: eigenvalue > rank_tol * largest
  double drop_tol = 1e-12;  // dropped input columns: sd < drop_tol * max sd
  long dense_max = 400;
  eig_options eig;
  int n_threads = 0;
};

struct nppe_result {
  nppe_model model;
  arma::mat Y;          // N x m training embedding, Y'Y = I
  arma::vec values;     // eigenvalues (ascending)
  arma::uvec dropped;   // dropped (constant) input columns, 0-based
  long rank = 0;
  std::string path;     // linear_projection path
  std::string eig_method;
  double ridge = 0.0;   // absolute ridge added to A = F'MF
  long n_collapsed = 0; // literal mode: constant coordinates skipped
};

// Fit on X (N x D) with the LLE cost matrix M (N x N, sparse symmetric).
inline nppe_result nppe_fit(const arma::mat& X, const sp_mat_e& M, const nppe_options& o) {
  const arma::uword N = X.n_rows;
  if (M.rows() != long(N) || M.cols() != long(N)) throw input_error("the LLE matrix must be N x N");
  if (!X.is_finite()) throw input_error("`X` must contain only finite values");
  if (o.m < 1) throw input_error("`ndim` must be positive");
  nppe_result out;
  nppe_model& md = out.model;
  // 1. standardisation of the inputs (features only; the weights used raw X).
  const arma::rowvec mu_all = arma::mean(X, 0);
  const arma::rowvec sd_all = arma::stddev(X, 0, 0);
  const double smax = sd_all.max();
  if (!(smax > 0)) throw input_error("`X` has no variation (every column is constant)");
  md.keep = arma::find(sd_all >= o.drop_tol * smax);
  out.dropped = arma::find(sd_all < o.drop_tol * smax);
  const arma::uword Dk = md.keep.n_elem;
  md.mu.zeros(Dk);
  md.s.ones(Dk);
  if (o.scale != nppe_scale::none) {
    for (arma::uword j = 0; j < Dk; ++j) md.mu[j] = mu_all[md.keep[j]];
    if (o.scale == nppe_scale::coord) {
      for (arma::uword j = 0; j < Dk; ++j) md.s[j] = sd_all[md.keep[j]];
    } else {
      // one RMS scale over the kept, centred coordinates
      double ss = 0.0;
      for (arma::uword j = 0; j < Dk; ++j) ss += sd_all[md.keep[j]] * sd_all[md.keep[j]];
      md.s.fill(std::sqrt(ss / double(Dk)));
    }
  }
  // 2. features, centred.
  md.basis = make_poly_basis(static_cast<long>(Dk), o.p, o.kind);
  const long q = md.basis.size();
  arma::mat F = nppe_features(md, X, o.n_threads);
  check_interrupt();
  md.phibar = o.center ? arma::mean(F, 0).t() : arma::vec(q, arma::fill::zeros);
  if (o.center) F.each_row() -= md.phibar.t();
  // 3. the generalised eigenproblem through the NPE/ONPP path.
  lp_options lo;
  lo.constraint = lp_constraint::weighted;
  lo.which = eig_which::bottom;
  const long extra = o.center ? 0 : std::min<long>(2, std::max<long>(0, q - o.m));
  lo.m = o.m + extra;
  lo.pca = true;
  lo.rank_tol = o.rank_tol;
  lo.dense_max = o.dense_max;
  lo.eig = o.eig;
  // B numerically SPD: Cholesky (the exact generalised solve); singular B
  // (collinear features, q >= N): restricted to the range of F (PCA step).
  lo.force_pca = o.force_range;
  if (lo.m > q) {
    throw input_error("`ndim` must be smaller than the number of polynomial features");
  }
  lp_result r;
  if (o.ridge > 0) {
    // Tikhonov penalty on the coefficients, on the objective side:
    //   min v'(F'MF + eps I)v  s.t.  v'F'Fv = 1,  eps = ridge * tr(F'F)/q.
    // (A ridge on the constraint side, F'F + eps I, would make every null
    // direction of F an optimal solution with Y = 0.) Solved by the same
    // linear_projection() call on the augmented data [F; I] with the LLE
    // matrix blockdiag(M, eps I) and constraint weights (1..1, 0..0).
    const double trB = arma::accu(arma::square(F));
    const double eps = o.ridge * (trB > 0 ? trB / double(q) : 1.0);
    arma::mat Fa(N + q, q, arma::fill::zeros);
    Fa.rows(0, N - 1) = F;
    Fa.rows(N, N + q - 1).diag().ones();
    std::vector<Eigen::Triplet<double>> trip;
    trip.reserve(static_cast<std::size_t>(M.nonZeros()) + q);
    for (int c = 0; c < M.outerSize(); ++c) {
      for (sp_mat_e::InnerIterator it(M, c); it; ++it) trip.emplace_back(it.row(), it.col(), it.value());
    }
    for (long j = 0; j < q; ++j) trip.emplace_back(long(N) + j, long(N) + j, eps);
    sp_mat_e Ma(long(N) + q, long(N) + q);
    Ma.setFromTriplets(trip.begin(), trip.end());
    arma::vec b(N + q, arma::fill::zeros);
    b.head(N).ones();
    lo.pca = true;
    lo.force_pca = false;  // the dual PCA path needs positive weights
    r = linear_projection(Fa, Ma, b, lo);
    out.ridge = eps;
    r.path = "ridge_" + r.path;
  } else {
    r = linear_projection(F, M, arma::vec(N, arma::fill::ones), lo);
  }
  out.rank = r.rank;
  out.path = r.path;
  out.eig_method = r.eig_method;
  arma::mat A = r.A;
  arma::vec vals = r.values;
  if (!o.center) {
    // literal mode: a (nearly) constant coordinate is the trivial solution
    // 1 in span(F); skip it and take the next one.
    const arma::mat Yt = lp_detail::mult(F, A);
    std::vector<arma::uword> ok;
    for (arma::uword c = 0; c < Yt.n_cols && long(ok.size()) < o.m; ++c) {
      const double mn = arma::mean(Yt.col(c));
      const double sd = arma::stddev(Yt.col(c));
      if (sd > 1e-6 * std::abs(mn)) ok.push_back(c);
    }
    out.n_collapsed = static_cast<long>(Yt.n_cols) - static_cast<long>(ok.size());
    if (long(ok.size()) < o.m) throw convergence_error("too many constant coordinates in the uncentred NPPE solution");
    const arma::uvec ku(ok);
    A = A.cols(ku);
    vals = vals.elem(ku);
    out.n_collapsed = 0;
    for (arma::uword c = 0; c < ku.n_elem; ++c) out.n_collapsed = std::max<long>(out.n_collapsed, long(ku[c]) - long(c));
  }
  md.V = A;
  out.values = vals;
  // 4. training embedding through the prediction routine (so that
  // predict(fit, X) reproduces it), then signs: the largest-magnitude entry
  // of every column positive.
  out.Y = nppe_predict(md, X, o.n_threads);
  for (arma::uword c = 0; c < out.Y.n_cols; ++c) {
    const arma::uword imax = arma::index_max(arma::abs(out.Y.col(c)));
    if (out.Y(imax, c) < 0) {
      out.Y.col(c) *= -1.0;
      md.V.col(c) *= -1.0;
    }
  }
  return out;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_NPPE_H
