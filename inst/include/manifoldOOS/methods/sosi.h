// SOSI: supervised embeddings (Raducanu-Dornaika supervised Laplacian
// eigenmaps, a nonlinear Fisher-like ratio) and semi-supervised
// out-of-sample interpolation with progressive addition of confident test
// points (Vural & Guillemot 2015).
//
// Conventions: rows are points; labels are 0-based class codes 0..M-1.
// The Gaussian RBF profile of the paper is phi(||x - a|| / s) =
// exp(-||x - a||^2 / s^2); it is the package kernel (kernels.h) with
// sigma_kernel = s / sqrt(2).
#ifndef MANIFOLDOOS_SOSI_H
#define MANIFOLDOOS_SOSI_H

#include <armadillo>
#include <manifoldOOS/core/eigen.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_dense.h>
#include <manifoldOOS/blocks/kernels.h>

namespace manifoldOOS {
namespace sosi {

// ---- kernel blocks -----------------------------------------------------------

// exp(-D2 / s^2) for a matrix of squared distances (kernels.h's rbf map).
inline arma::mat gauss_from_d2(const arma::mat& D2, double s) {
  if (!(s > 0) || !std::isfinite(s)) throw input_error("RBF scales must be positive and finite");
  kernel_spec k;
  k.type = kernel_type::rbf;
  k.sigma = s / std::sqrt(2.0);
  arma::mat M = D2;
  kernel_transform(M, k);
  return M;
}

// ---- Cholesky solve with jitter escalation ------------------------------------
// kernels.h's kernel_chol_solve: (Phi + (ridge + eps) I) C = Y, eps = 0 first,
// then jitter0 times 10 per attempt (at most 31 attempts); only an accurate
// solve of the jittered system is accepted (relative residual <= 1e-8).
using chol_solution = kernel_solution;

inline chol_solution chol_solve_jitter(const arma::mat& Phi, const arma::mat& Y, double ridge,
                                       double jitter0) {
  return kernel_chol_solve(Phi, Y, ridge, jitter0, 1e-8, 31, "the RBF kernel matrix");
}

// ---- supervised graphs (Vural & Guillemot, sec. 2) ---------------------------------------------
struct supervised_graphs {
  arma::mat Ww, Wb;
  long n_guarded = 0;  // points that had no within-class neighbour (guard edge added)
};

// D2: N x N squared distances; labels 0-based. graph: 0 = adaptive threshold
// (Raducanu-Dornaika), 1 = kNN (kw same-class, kb other-class neighbours).
// wb_binary: between-class weights 1 instead of the Gaussian.
inline supervised_graphs build_supervised_graphs(const arma::mat& D2, const arma::ivec& labels,
                                                 double beta, int graph, int kw, int kb,
                                                 bool wb_binary) {
  const arma::uword n = D2.n_rows;
  if (D2.n_cols != n || labels.n_elem != n) throw input_error("graph: dimensions do not match");
  if (!(beta > 0)) throw input_error("`beta` must be positive");
  const arma::mat S = gauss_from_d2(D2, std::sqrt(beta));  // exp(-D2 / beta)
  arma::umat Nw(n, n, arma::fill::zeros), Nb(n, n, arma::fill::zeros);
  for (arma::uword i = 0; i < n; ++i) {
    if (graph == 0) {
      const double thr = arma::mean(S.row(i));
      for (arma::uword j = 0; j < n; ++j) {
        if (j == i || !(S(i, j) > thr)) continue;
        if (labels(i) == labels(j)) Nw(i, j) = 1; else Nb(i, j) = 1;
      }
    } else {
      arma::uvec ord = arma::sort_index(D2.row(i).t());
      int cw = 0, cb = 0;
      for (arma::uword t = 0; t < n; ++t) {
        const arma::uword j = ord(t);
        if (j == i) continue;
        if (labels(i) == labels(j)) { if (cw < kw) { Nw(i, j) = 1; ++cw; } }
        else if (cb < kb) { Nb(i, j) = 1; ++cb; }
      }
    }
  }
  supervised_graphs g;
  g.Ww.zeros(n, n);
  g.Wb.zeros(n, n);
  for (arma::uword i = 0; i < n; ++i) {
    for (arma::uword j = 0; j < n; ++j) {
      if (Nw(i, j) || Nw(j, i)) g.Ww(i, j) = S(i, j);
      if (Nb(i, j) || Nb(j, i)) g.Wb(i, j) = wb_binary ? 1.0 : S(i, j);
    }
  }
  // guard: a point without within-class neighbour is joined to its nearest
  // same-class point (else D_w is singular)
  for (arma::uword i = 0; i < n; ++i) {
    if (arma::accu(g.Ww.row(i)) > 0) continue;
    double best = std::numeric_limits<double>::infinity();
    arma::uword bj = i;
    for (arma::uword j = 0; j < n; ++j) {
      if (j != i && labels(j) == labels(i) && D2(i, j) < best) { best = D2(i, j); bj = j; }
    }
    if (bj == i) continue;  // singleton class: checked in R
    const double w = std::max(S(i, bj), std::numeric_limits<double>::min());
    g.Ww(i, bj) = g.Ww(bj, i) = w;
    ++g.n_guarded;
  }
  return g;
}

// ---- S-LE (eq. 1) ---------------------------------------------------------------
struct embedding_result {
  arma::mat Y;         // N x d
  arma::vec values;    // eigenvalues of the kept vectors
  arma::mat Yfull;     // S-LE: the d + 1 computed vectors (before the drop), D_w-orthonormal
  int dropped = -1;    // index (0-based) of the dropped trivial vector, -1 if none
  double ridge = 0.0;  // Fisher: eps added to L_w
};

// The constant vector is an exact eigenvector (eta = 1) of
// (W_w + mu L_b) z = eta D_w z. With drop_trivial it is deflated exactly: in
// the symmetric form A = D^{-1/2} (W_w + mu L_b) D^{-1/2} its direction
// u0 = D^{1/2} 1 / ||.|| is projected out and moved below the spectrum, so the
// top d vectors are the top d non-trivial ones even when eta = 1 is
// degenerate (a class whose within-class graph has several components).
// Yfull = [trivial vector, kept vectors], all D_w-orthonormal.
inline embedding_result sle_embed(const arma::mat& Ww, const arma::mat& Wb, int d, double mu,
                                  bool drop_trivial) {
  const arma::uword n = Ww.n_rows;
  const arma::vec dw = arma::sum(Ww, 1);
  if (dw.min() <= 0) throw input_error("a point has no within-class neighbour (D_w is singular)");
  const arma::mat Lb = arma::diagmat(arma::sum(Wb, 1)) - Wb;
  const arma::vec is = 1.0 / arma::sqrt(dw);
  arma::mat A = Ww + mu * Lb;
  A.each_col() %= is;
  A.each_row() %= is.t();
  A = 0.5 * (A + A.t());
  embedding_result out;
  arma::vec u0 = arma::sqrt(dw);
  u0 /= arma::norm(u0);
  if (drop_trivial) {
    const double shift = 2.0 + arma::norm(A, "inf");
    const arma::vec Au = A * u0;
    const double uau = arma::dot(u0, Au);
    // P A P - shift u0 u0' with P = I - u0 u0'
    A -= Au * u0.t() + u0 * Au.t();
    A += (uau - shift) * (u0 * u0.t());
    A = 0.5 * (A + A.t());
  }
  eigen_result r = eig_dense(A, eig_which::top, std::min<int>(int(n), d));
  arma::mat Z = r.vectors;
  Z.each_col() %= is;  // z = D^{-1/2} u
  out.Y = Z;
  out.values = r.values;
  if (drop_trivial) {
    arma::vec z0 = u0 % is;  // constant vector, D_w-normalised
    out.Yfull = arma::join_rows(z0, Z);
    out.dropped = 0;
  } else {
    out.Yfull = Z;
  }
  return out;
}

// ---- nonlinear Fisher-like ratio (Vural & Guillemot, eq. 2) ---------------------------------
inline embedding_result fisher_embed(const arma::mat& Ww, const arma::mat& Wb, int d, double eps_rel) {
  const arma::uword n = Ww.n_rows;
  const arma::vec dw = arma::sum(Ww, 1);
  const arma::mat Lw = arma::diagmat(dw) - Ww;
  const arma::mat Lb = arma::diagmat(arma::sum(Wb, 1)) - Wb;
  double eps = eps_rel * arma::trace(Lw) / double(n);
  if (!(eps > 0)) eps = eps_rel;
  arma::mat B = Lw;
  B.diag() += eps;
  eigen_result r = geig_dense(0.5 * (Lb + Lb.t()), 0.5 * (B + B.t()), eig_which::top, d, -1.0);
  embedding_result out;
  out.Y = r.vectors;
  for (arma::uword j = 0; j < out.Y.n_cols; ++j) {
    const double q = arma::dot(out.Y.col(j), dw % out.Y.col(j));
    if (q > 0) out.Y.col(j) /= std::sqrt(q);
  }
  out.values = r.values;
  out.ridge = eps + r.ridge;
  return out;
}

// ---- direction neighbour sets and separable pairs (Vural & Guillemot, sec. 3) -----------------------
// nb[i]: labelled neighbours of training point i used as directions; per_class
// = the k_dir nearest of every class (excluding i), else the k_dir nearest overall.
inline std::vector<std::vector<int>> direction_sets(const arma::mat& D2, const arma::ivec& labels,
                                                    int n_class, int k_dir, bool per_class) {
  const arma::uword n = D2.n_rows;
  std::vector<std::vector<int>> nb(n);
  for (arma::uword i = 0; i < n; ++i) {
    const arma::uvec ord = arma::sort_index(D2.row(i).t(), "ascend");
    std::vector<int> cnt(n_class, 0);
    int total = 0;
    for (arma::uword t = 0; t < n; ++t) {
      const arma::uword j = ord(t);
      if (j == i || D2(i, j) <= 0) continue;  // duplicates give no direction
      const int c = labels(j);
      if (per_class) {
        if (cnt[c] < k_dir) { nb[i].push_back(int(j)); ++cnt[c]; }
      } else if (total < k_dir) {
        nb[i].push_back(int(j));
        ++total;
      }
    }
  }
  return nb;
}

// Separable ordered class pairs per dimension: sep(k)(m, p) = 1 when the
// per-class ranges (quantiles q, 1 - q) of Y(., k) do not overlap.
inline arma::ucube separable_pairs(const arma::mat& Y, const arma::ivec& labels, int n_class, double q) {
  const arma::uword d = Y.n_cols;
  arma::ucube I(n_class, n_class, d, arma::fill::zeros);
  for (arma::uword k = 0; k < d; ++k) {
    arma::vec lo(n_class), hi(n_class);
    for (int m = 0; m < n_class; ++m) {
      arma::vec v = Y.col(k);
      v = v(arma::find(labels == m));
      if (v.n_elem == 0) { lo(m) = hi(m) = arma::datum::nan; continue; }
      v = arma::sort(v);
      if (q > 0) {
        const arma::vec pr = {q, 1 - q};
        arma::vec qq = arma::quantile(v, pr);
        lo(m) = qq(0);
        hi(m) = qq(1);
      } else {
        lo(m) = v(0);
        hi(m) = v(v.n_elem - 1);
      }
    }
    for (int m = 0; m < n_class; ++m)
      for (int p = 0; p < n_class; ++p)
        if (m != p && (hi(m) < lo(p) || hi(p) < lo(m))) I(m, p, k) = 1;
  }
  return I;
}

// ---- regulariser (eqs. 8, 9) ---------------------------------------------------------
// Evaluation points E (N x n, the labelled points, labels 0-based), centres A
// (L x n), coefficients C (L x d), scales sigma (d). All data should be
// centred by one common mean (only inner products of differences matter).
// Uses inner products only: with w_l = c_l phi_l(x_i), s = sum_l w_l,
//   g_i ~ s x_i - sum_l w_l a_l,    (x_i - x_j)' g_i ~ s (G_ii - G_ij) - (P_ii - P_ij),
//   ||g_i||^2 ~ s^2 G_ii - 2 s P_ii + w' G_AA w,  P = W G_AE.
// (the common factor -2 / sigma^2 cancels in every ratio).
struct reg_eval {
  arma::vec G, D;        // per dimension
  arma::mat G_terms;     // N x d summands of G-hat (NaN where skipped)
  long n_skipped = 0;    // (i, k) pairs skipped (zero denominator)
};

struct reg_context {
  arma::mat GEE, GAE, GAA;                 // Gram blocks
  arma::mat D2EA;                          // squared distances E x A
  arma::mat D2AA;                          // squared distances A x A (empty when same_points)
  std::vector<std::vector<int>> nb;        // direction neighbours (indices into E)
  arma::ivec labels;                       // of E
  int n_class = 0;
  bool same_points = false;                // A and E are the same rows
};

inline reg_context make_reg_context(const arma::mat& E, const arma::mat& A, const arma::ivec& labels,
                                    int n_class, int k_dir, bool per_class) {
  reg_context ctx;
  const arma::rowvec mu = arma::mean(E, 0);
  const arma::mat Ec = E.each_row() - mu;
  const arma::mat Ac = A.each_row() - mu;
  ctx.GEE = Ec * Ec.t();
  ctx.GAE = Ac * Ec.t();
  ctx.GAA = Ac * Ac.t();
  ctx.D2EA = sq_dist_cross(E, A);
  const arma::mat D2EE = sq_dist_cross(E, E);
  ctx.nb = direction_sets(D2EE, labels, n_class, k_dir, per_class);
  ctx.labels = labels;
  ctx.n_class = n_class;
  ctx.same_points = (A.n_rows == E.n_rows && A.n_cols == E.n_cols && arma::approx_equal(A, E, "absdiff", 0.0));
  if (!ctx.same_points) ctx.D2AA = sq_dist_cross(A, A);
  return ctx;
}

// The kernel matrix of the centres (the interpolation system) for scale s.
inline arma::mat centre_kernel(const reg_context& ctx, double s) {
  arma::mat Phi = gauss_from_d2(ctx.same_points ? ctx.D2EA : ctx.D2AA, s);
  if (!ctx.same_points) Phi = 0.5 * (Phi + Phi.t());
  return Phi;
}

// Phi_EA for scale s must be passed in (Phi, N x L).
inline void reg_terms_dim(const reg_context& ctx, const arma::mat& Phi, const arma::vec& c,
                          const arma::umat& Ik, double& Gk, double& Dk, arma::vec& gterms,
                          long& skipped) {
  const arma::uword N = Phi.n_rows, L = Phi.n_cols;
  arma::mat W = Phi;
  W.each_row() %= c.t();                     // N x L
  // a centre at the evaluation point contributes w (x_i - a_l) = 0 exactly:
  // dropping it removes the dominant, cancelling terms of the Gram formulas
  for (arma::uword l = 0; l < L; ++l)
    for (arma::uword i = 0; i < N; ++i)
      if (ctx.D2EA(i, l) <= 0) W(i, l) = 0.0;
  const arma::vec s = arma::sum(W, 1);
  Eigen::Map<const Eigen::MatrixXd> We(W.memptr(), N, L);
  Eigen::Map<const Eigen::MatrixXd> GAEe(ctx.GAE.memptr(), L, N);
  Eigen::Map<const Eigen::MatrixXd> GAAe(ctx.GAA.memptr(), L, L);
  const Eigen::MatrixXd P = We * GAEe;       // N x N
  // centres = evaluation points (scale selection): G_AA = G_AE and WG = P
  const bool same = ctx.same_points;
  const Eigen::MatrixXd WG = same ? Eigen::MatrixXd() : Eigen::MatrixXd(We * GAAe);  // N x L
  gterms.set_size(N);
  Gk = 0.0;
  Dk = 0.0;
  std::vector<double> psum(ctx.n_class), pcnt(ctx.n_class);
  for (arma::uword i = 0; i < N; ++i) {
    const double gii = ctx.GEE(i, i);
    double wgw = 0.0;
    if (same) {
      for (arma::uword l = 0; l < L; ++l) wgw += P(i, l) * W(i, l);
    } else {
      for (arma::uword l = 0; l < L; ++l) wgw += WG(i, l) * W(i, l);
    }
    double g2 = s(i) * s(i) * gii - 2.0 * s(i) * P(i, i) + wgw;
    const double gn = std::sqrt(std::max(0.0, g2));
    std::fill(psum.begin(), psum.end(), 0.0);
    std::fill(pcnt.begin(), pcnt.end(), 0.0);
    double tot = 0.0;
    const std::vector<int>& nbi = ctx.nb[i];
    for (int j : nbi) {
      const double dist = std::sqrt(std::max(0.0, gii + ctx.GEE(j, j) - 2.0 * ctx.GEE(i, j)));
      const double dd = std::abs(s(i) * (gii - ctx.GEE(i, j)) - (P(i, i) - P(i, j))) / dist;
      tot += dd;
      psum[ctx.labels(j)] += dd;
      pcnt[ctx.labels(j)] += 1.0;
    }
    const double mean_all = nbi.empty() ? 0.0 : tot / double(nbi.size());
    if (!(mean_all > 0) || !std::isfinite(mean_all)) {
      ++skipped;
      gterms(i) = arma::datum::nan;
      continue;
    }
    gterms(i) = gn / mean_all;
    Gk += gterms(i);
    const int m = ctx.labels(i);
    for (int p = 0; p < ctx.n_class; ++p) {
      if (p == m || !Ik(m, p) || pcnt[p] == 0) continue;
      Dk += (psum[p] / pcnt[p]) / mean_all;
    }
  }
}

// G-hat and D-hat of every dimension for every scale of a grid, with the RBF
// interpolating the targets T (L x d) at the centres of ctx (iteration 1:
// centres = the evaluation points and T = the training embedding; later
// rounds of SOSI with reoptimize_sigma: training points + test centres).
struct grid_result {
  arma::mat G, D;       // n_grid x d
  arma::vec jitter;     // per grid value
  long n_skipped = 0;
};

inline grid_result regularizer_grid(const reg_context& ctx, const arma::mat& T, const arma::vec& grid,
                                    const arma::ucube& I, double ridge, double jitter0) {
  const arma::uword d = T.n_cols, ng = grid.n_elem;
  if (T.n_rows != ctx.GAA.n_rows) throw input_error("regularizer grid: one target row per centre is needed");
  grid_result out;
  out.G.zeros(ng, d);
  out.D.zeros(ng, d);
  out.jitter.zeros(ng);
  for (arma::uword g = 0; g < ng; ++g) {
    check_interrupt();
    const arma::mat Phi = gauss_from_d2(ctx.D2EA, grid(g));
    chol_solution cs = ctx.same_points ? chol_solve_jitter(Phi, T, ridge, jitter0)
                                       : chol_solve_jitter(centre_kernel(ctx, grid(g)), T, ridge, jitter0);
    out.jitter(g) = cs.jitter;
    for (arma::uword k = 0; k < d; ++k) {
      double Gk, Dk;
      arma::vec gt;
      reg_terms_dim(ctx, Phi, cs.C.col(k), I.slice(k), Gk, Dk, gt, out.n_skipped);
      out.G(g, k) = Gk;
      out.D(g, k) = Dk;
    }
  }
  return out;
}

// ---- golden-section refinement of the line search (Vural & Guillemot, sec. 3) -----------------------
// Criterion G_k - lambda D_k of dimension k at scale s (interpolating column k
// of T at the centres of ctx); +Inf when the kernel matrix needs a jitter
// above max_jitter (the grid drops such scales too).
inline double reg_crit_at(const reg_context& ctx, const arma::mat& T, arma::uword k, double s,
                          const arma::umat& Ik, double lambda, double ridge, double jitter0,
                          double max_jitter) {
  const arma::mat PhiEA = gauss_from_d2(ctx.D2EA, s);
  chol_solution cs = chol_solve_jitter(ctx.same_points ? PhiEA : centre_kernel(ctx, s), arma::mat(T.col(k)),
                                       ridge, jitter0);
  if (cs.jitter > max_jitter) return std::numeric_limits<double>::infinity();
  double Gk, Dk;
  arma::vec gt;
  long skipped = 0;
  reg_terms_dim(ctx, PhiEA, cs.C.col(0), Ik, Gk, Dk, gt, skipped);
  return Gk - lambda * Dk;
}

struct refine_result {
  arma::vec sigma, crit;  // best scale found and its criterion, per dimension
  arma::uvec n_eval;      // criterion evaluations per dimension
};

// Golden-section search of log(sigma_k) on [lo_k, hi_k] (the grid neighbours
// of the grid minimum s0_k, whose criterion is v0_k) down to a bracket of
// width tol. The best point evaluated (s0_k included) is returned, so the
// refined criterion is never above the grid minimum. Dimensions with
// lo_k >= hi_k are left at s0_k.
inline refine_result golden_refine(const reg_context& ctx, const arma::mat& T, const arma::ucube& I,
                                   const arma::vec& lo, const arma::vec& hi, const arma::vec& s0,
                                   const arma::vec& v0, double lambda, double ridge, double jitter0,
                                   double max_jitter, double tol) {
  const arma::uword d = T.n_cols;
  if (lo.n_elem != d || hi.n_elem != d || s0.n_elem != d || v0.n_elem != d) {
    throw input_error("golden_refine: one bracket per dimension is needed");
  }
  if (!(tol > 0)) throw input_error("golden_refine: the tolerance must be positive");
  const double gr = 0.5 * (std::sqrt(5.0) - 1.0);
  refine_result out;
  out.sigma = s0;
  out.crit = v0;
  out.n_eval.zeros(d);
  for (arma::uword k = 0; k < d; ++k) {
    if (!(lo(k) > 0) || !(hi(k) > lo(k))) continue;
    check_interrupt();
    auto f = [&](double logs) {
      const double v = reg_crit_at(ctx, T, k, std::exp(logs), I.slice(k), lambda, ridge, jitter0, max_jitter);
      ++out.n_eval(k);
      if (v < out.crit(k)) { out.crit(k) = v; out.sigma(k) = std::exp(logs); }
      return v;
    };
    double a = std::log(lo(k)), b = std::log(hi(k));
    double c = b - gr * (b - a), e = a + gr * (b - a);
    double fc = f(c), fe = f(e);
    while (b - a > tol) {
      if (fc <= fe) {
        b = e; e = c; fe = fc;
        c = b - gr * (b - a);
        fc = f(c);
      } else {
        a = c; c = e; fc = fe;
        e = a + gr * (b - a);
        fe = f(e);
      }
    }
  }
  return out;
}

// ---- RBF interpolator evaluation and gradient -------------------------------------------
// f^k(x) = sum_l C(l,k) exp(-||x - a_l||^2 / sigma_k^2), for the rows of Q.
inline arma::mat rbf_eval(const arma::mat& A, const arma::mat& C, const arma::vec& sigma,
                          const arma::mat& Q) {
  const arma::mat D2 = sq_dist_cross(Q, A);
  arma::mat F(Q.n_rows, C.n_cols);
  const arma::vec us = arma::unique(sigma);
  for (double s : us) {
    const arma::uvec ks = arma::find(sigma == s);
    const arma::mat Phi = gauss_from_d2(D2, s);
    F.cols(ks) = Phi * C.cols(ks);
  }
  return F;
}

// Gradient of f^k at the rows of Q (direct formula): m x n for one k.
inline arma::mat rbf_gradient(const arma::mat& A, const arma::vec& c, double sigma, const arma::mat& Q) {
  const arma::mat Phi = gauss_from_d2(sq_dist_cross(Q, A), sigma);
  arma::mat H = Phi;
  H.each_row() %= c.t();
  const arma::vec s = arma::sum(H, 1);
  arma::mat G = Q;
  G.each_col() %= s;
  G -= H * A;
  return (-2.0 / (sigma * sigma)) * G;
}

// ---- 1-NN labels and confidence (eqs. 14, 15) ----------------------------------------------
inline void nn_label_conf(const arma::mat& Ftest, const arma::mat& Ftrain, const arma::ivec& labels,
                          arma::ivec& lab, arma::vec& conf) {
  const arma::mat D2 = sq_dist_cross(Ftest, Ftrain);
  const arma::uword m = Ftest.n_rows, N = Ftrain.n_rows;
  lab.set_size(m);
  conf.set_size(m);
  for (arma::uword i = 0; i < m; ++i) {
    arma::uword j = 0;
    for (arma::uword q = 1; q < N; ++q) if (D2(i, q) < D2(i, j)) j = q;
    double other = std::numeric_limits<double>::infinity();
    for (arma::uword q = 0; q < N; ++q)
      if (labels(q) != labels(j) && D2(i, q) < other) other = D2(i, q);
    lab(i) = labels(j);
    const double dj = std::sqrt(D2(i, j)), dk = std::sqrt(other);
    conf(i) = (dj > 0) ? dk / dj : std::numeric_limits<double>::infinity();
  }
}

// ---- simplex-constrained least squares (eq. 19) ------------------------------------------------
// Euclidean projection onto the probability simplex.
inline arma::vec project_simplex(const arma::vec& v) {
  const arma::uword n = v.n_elem;
  arma::vec u = arma::sort(v, "descend");
  double css = 0.0, theta = 0.0;
  for (arma::uword j = 0; j < n; ++j) {
    css += u(j);
    const double t = (css - 1.0) / double(j + 1);
    if (u(j) - t > 0) theta = t;
  }
  arma::vec w = v - theta;
  w.transform([](double a) { return a > 0 ? a : 0.0; });
  return w;
}

// min_w w' G w s.t. w >= 0, sum w = 1 (G symmetric PSD, K x K): accelerated
// projected gradient, then an exact solve on the support (active-set polish).
inline arma::vec simplex_qp(arma::mat G, double tol = 1e-10, int max_iter = 20000) {
  const arma::uword K = G.n_rows;
  if (K == 1) return arma::vec(1, arma::fill::ones);
  G.diag() += 1e-10 * std::max(arma::trace(G) / double(K), 1e-300);
  const double Lc = 2.0 * std::max(arma::eig_sym(G).max(), 1e-300);
  arma::vec w(K, arma::fill::value(1.0 / double(K))), z = w, wold;
  double t = 1.0;
  for (int it = 0; it < max_iter; ++it) {
    wold = w;
    w = project_simplex(z - (2.0 / Lc) * (G * z));
    const double tn = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    z = w + ((t - 1.0) / tn) * (w - wold);
    t = tn;
    if (arma::norm(w - wold, "inf") < tol * 1e-2) break;
  }
  // polish: equality-constrained solution on the support, accepted when feasible
  const arma::uvec S = arma::find(w > 1e-9);
  if (S.n_elem > 0) {
    arma::vec ones(S.n_elem, arma::fill::ones), x;
    if (arma::solve(x, G.submat(S, S), ones, arma::solve_opts::no_approx)) {
      const double den = arma::accu(x);
      if (den > 0 && x.min() > 0) {
        arma::vec wp(K, arma::fill::zeros);
        wp(S) = x / den;
        if (arma::dot(wp, G * wp) <= arma::dot(w, G * w) * (1 + 1e-12) + 1e-300) w = wp;
      }
    }
  }
  return w;
}

// ---- the progressive loop (Algorithm 1) ----------------------------------------------------------
struct sosi_round {
  arma::uword L = 0;
  arma::uvec centres_test;  // 0-based indices into the test set
  arma::ivec labels;        // test labels after this round
  arma::vec conf;           // test confidences after this round
  double jitter = 0.0;      // largest jitter used
  arma::vec sigma;          // scales of this round
};

struct sosi_result {
  std::vector<sosi_round> rounds;
  arma::mat C;              // final coefficients, L x d
  arma::uvec centres_test;  // final test centres (0-based in test set)
  arma::mat targets;        // final targets of the test centres
  arma::mat Ftrain, Ftest;  // f at the training and test points (final)
  arma::vec sigma;          // scales of the last round
};

// Re-selection of the scales in a later round (reoptimize_sigma, footnote 3
// of the paper): called with the round (0-based), the centres (L x n) and
// their targets (L x d); returns the d scales of the round.
using sigma_updater = std::function<arma::vec(arma::uword, const arma::mat&, const arma::mat&)>;

// Xtr (N x n), labels (0-based), Ytr (N x d), Xte (m x n), sigma (d),
// schedule L_1 = N < L_2 < ... (total centres per round), K (projection).
// Without `reselect` every round uses `sigma`.
inline sosi_result sosi_progressive(const arma::mat& Xtr, const arma::ivec& labels, const arma::mat& Ytr,
                                    const arma::mat& Xte, const arma::vec& sigma_in,
                                    const arma::uvec& schedule, int K, double ridge, double jitter0,
                                    const sigma_updater& reselect = nullptr) {
  const arma::uword N = Xtr.n_rows, m = Xte.n_rows, d = Ytr.n_cols;
  const arma::mat Xall = arma::join_cols(Xtr, Xte);
  const arma::mat D2 = sq_dist_cross(Xall, Xall);  // Q x Q, reused every round
  arma::vec sigma = sigma_in;
  sosi_result out;
  // cache of projection targets per test point (valid for cached_class)
  arma::ivec cached_class(m, arma::fill::value(-1));
  arma::mat cached_y(m, d, arma::fill::zeros);
  arma::ivec lab;
  arma::vec conf;
  for (arma::uword r = 0; r < schedule.n_elem; ++r) {
    check_interrupt();
    const arma::uword L = schedule(r);
    const arma::uword nt = L - N;
    sosi_round rd;
    rd.L = L;
    arma::uvec sel;
    if (nt > 0) {
      // the nt test points of highest confidence (stable: ties by index, +Inf first)
      std::vector<arma::uword> ord(m);
      std::iota(ord.begin(), ord.end(), 0);
      std::stable_sort(ord.begin(), ord.end(), [&](arma::uword a, arma::uword b) { return conf(a) > conf(b); });
      sel = arma::uvec(std::vector<arma::uword>(ord.begin(), ord.begin() + nt));
      for (arma::uword t = 0; t < nt; ++t) {
        const arma::uword i = sel(t);
        if (cached_class(i) == lab(i)) continue;
        // K nearest training samples of the estimated class
        const arma::uvec cls = arma::find(labels == lab(i));
        arma::vec dd(cls.n_elem);
        for (arma::uword a = 0; a < cls.n_elem; ++a) dd(a) = D2(N + i, cls(a));
        const arma::uvec o = arma::sort_index(dd);
        const arma::uword kk = std::min<arma::uword>(K, cls.n_elem);
        const arma::uvec nbr = cls(o.head(kk));
        arma::mat Dif = Xtr.rows(nbr);
        Dif.each_row() -= Xte.row(i);
        const arma::vec w = simplex_qp(Dif * Dif.t());
        cached_y.row(i) = w.t() * Ytr.rows(nbr);
        cached_class(i) = lab(i);
      }
    }
    arma::uvec cidx(L);
    for (arma::uword l = 0; l < N; ++l) cidx(l) = l;
    for (arma::uword t = 0; t < nt; ++t) cidx(N + t) = N + sel(t);
    arma::mat T = Ytr;
    if (nt > 0) T = arma::join_cols(Ytr, cached_y.rows(sel));
    if (nt > 0 && reselect) {
      sigma = reselect(r, Xall.rows(cidx), T);
      if (sigma.n_elem != d || !sigma.is_finite() || sigma.min() <= 0) {
        throw input_error("the re-selected RBF scales must be d positive numbers");
      }
    }
    const arma::vec us = arma::unique(sigma);
    arma::mat C(L, d);
    arma::mat F(N + m, d);
    double jit = 0.0;
    for (double s : us) {
      const arma::uvec ks = arma::find(sigma == s);
      const arma::mat PhiAll = gauss_from_d2(D2.cols(cidx), s);  // Q x L
      const arma::mat Phi = PhiAll.rows(cidx);
      chol_solution cs = chol_solve_jitter(0.5 * (Phi + Phi.t()), arma::mat(T.cols(ks)), ridge, jitter0);
      jit = std::max(jit, cs.jitter);
      C.cols(ks) = cs.C;
      F.cols(ks) = PhiAll * cs.C;
    }
    const arma::mat Ftr = F.rows(0, N - 1);
    const arma::mat Fte = F.rows(N, N + m - 1);
    nn_label_conf(Fte, Ftr, labels, lab, conf);
    rd.centres_test = sel;
    rd.labels = lab;
    rd.conf = conf;
    rd.jitter = jit;
    rd.sigma = sigma;
    out.rounds.push_back(rd);
    out.C = C;
    out.centres_test = sel;
    out.targets = (nt > 0) ? arma::mat(cached_y.rows(sel)) : arma::mat(0, d);
    out.Ftrain = Ftr;
    out.Ftest = Fte;
    out.sigma = sigma;
  }
  return out;
}

}  // namespace sosi
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_SOSI_H
