// SOSI's choice of the RBF scales and the whole SOSI fit as one call (Vural &
// Guillemot 2015, sec. 3 and Algorithm 1): the default scale grid, the line
// search of the regulariser G_k - lambda D_k (or of the ratio D_k / G_k) over
// the grid, the optional golden-section refinement, the fallback and clipping
// of the scales, then the progressive interpolation, with the scales chosen
// again in later rounds on request (footnote 3 of the paper).
//
// The summaries (sums, means, standard deviations, medians) follow R's
// arithmetic (long-double accumulation, a correction pass for the mean), so
// the scales are the ones the package's earlier R implementation of this step
// chose, to the last bit.
#ifndef MANIFOLDOOS_SOSI_SCALES_H
#define MANIFOLDOOS_SOSI_SCALES_H

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/methods/sosi.h>

namespace manifoldOOS {
namespace sosi {

// ---- summaries in R's arithmetic ------------------------------------------------
namespace rstats {

// sum(x): long-double accumulation in order.
inline double sum(const double* x, std::size_t n) {
  long double s = 0.0L;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return static_cast<double>(s);
}

// The long-double mean with one correction pass (R's mean() and the mean of var()).
inline long double mean_ld(const double* x, std::size_t n) {
  long double s = 0.0L;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  s /= static_cast<long double>(n);
  if (std::isfinite(static_cast<double>(s))) {
    long double t = 0.0L;
    for (std::size_t i = 0; i < n; ++i) t += (x[i] - s);
    s += t / static_cast<long double>(n);
  }
  return s;
}

inline double mean(const double* x, std::size_t n) { return static_cast<double>(mean_ld(x, n)); }

// Sample standard deviation (n - 1 denominator), as sd().
inline double sd(const double* x, std::size_t n) {
  const double m = static_cast<double>(mean_ld(x, n));
  long double s = 0.0L;
  for (std::size_t i = 0; i < n; ++i) {
    const double dev = x[i] - m;
    s += static_cast<long double>(dev) * dev;
  }
  return std::sqrt(static_cast<double>(s / static_cast<long double>(n - 1)));
}

// median() of the values (reordered in place; n >= 1): the middle order
// statistic, or the mean of the two middle ones.
inline double median(std::vector<double>& v) {
  const std::size_t n = v.size();
  if (n == 0) throw input_error("the median of no values is undefined");
  const std::size_t hi = n / 2;
  std::nth_element(v.begin(), v.begin() + hi, v.end());
  if (n % 2 == 1) return v[hi];
  const double b = v[hi];
  const double a = *std::max_element(v.begin(), v.begin() + hi);
  const double two[2] = {a, b};
  return mean(two, 2);
}

// seq(from, to, length.out = n) (double arguments).
inline arma::vec seq_length(double from, double to, arma::uword n) {
  arma::vec out(n);
  if (n == 0) return out;
  if (n == 1) {
    out(0) = from;
    return out;
  }
  if (n == 2) {
    out(0) = from;
    out(1) = to;
    return out;
  }
  if (from == to) {
    out.fill(from);
    return out;
  }
  const double n1 = static_cast<double>(n - 1);
  double f = from, t = to, scale = 1.0;
  if (!std::isfinite(t - f)) {
    f /= 4.0;
    t /= 4.0;
    scale = 4.0;
  }
  const double by = (t - f) / n1;
  out(0) = f;
  for (arma::uword i = 1; i + 1 < n; ++i) out(i) = f + static_cast<double>(i) * by;
  out(n - 1) = t;
  if (scale != 1.0) out *= scale;
  return out;
}

}  // namespace rstats

// ---- the default grid --------------------------------------------------------------
// Log-spaced from 0.25 x the median nearest-neighbour distance to 4 x the
// median pairwise distance of the rows of X (Euclidean distances summed
// coordinate by coordinate, as dist()). Holds the n (n - 1) / 2 pairwise
// distances once (the median needs them all). When every nearest-neighbour
// distance is 0 (duplicated rows), the smallest positive distance replaces
// their median.
inline arma::vec default_grid(const arma::mat& X, arma::uword n_grid) {
  const arma::uword n = X.n_rows, p = X.n_cols;
  if (n < 2) throw input_error("the default scale grid needs at least two points");
  if (n_grid < 2) throw input_error("the scale grid needs at least two values");
  const arma::mat Xt = X.t();  // points as contiguous columns
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> pairs;
  pairs.reserve(static_cast<std::size_t>(n) * (n - 1) / 2);
  std::vector<double> nearest(n, inf);
  double min_pos = inf;
  for (arma::uword j = 0; j < n; ++j) {
    if (j % 64 == 0) check_interrupt();
    const double* xj = Xt.colptr(j);
    for (arma::uword i = j + 1; i < n; ++i) {
      const double* xi = Xt.colptr(i);
      double acc = 0.0;
      for (arma::uword k = 0; k < p; ++k) {
        const double dev = xi[k] - xj[k];
        acc += dev * dev;
      }
      const double d = std::sqrt(acc);
      pairs.push_back(d);
      if (d < nearest[i]) nearest[i] = d;
      if (d < nearest[j]) nearest[j] = d;
      if (d > 0 && d < min_pos) min_pos = d;
    }
  }
  double dnn = rstats::median(nearest);
  const double dmed = rstats::median(pairs);
  if (!(dnn > 0)) dnn = min_pos;
  arma::vec g = rstats::seq_length(std::log(0.25 * dnn), std::log(4.0 * dmed), n_grid);
  g.transform([](double v) { return std::exp(v); });
  return g;
}

// Scales whose kernel matrix needs a jitter above 1e-8 do not interpolate:
// the number of grid values kept from the bottom (the leading run of scales
// that interpolate, at least 3, at most all).
inline arma::uword grid_keep(const arma::vec& jitter) {
  arma::uword lead = 0;
  while (lead < jitter.n_elem && jitter(lead) <= 1e-8) ++lead;
  return std::min<arma::uword>(jitter.n_elem, std::max<arma::uword>(3, lead));
}

// ---- scale selection ------------------------------------------------------------------
enum class scale_rule { regularizer, ratio };

// The glue fills every field by position (aggregate initialisation, in
// glue_sosi.cpp): a new or moved field is added there too.
struct scale_options {
  scale_rule rule = scale_rule::regularizer;
  double lambda = std::numeric_limits<double>::quiet_NaN();  // NaN: endpoint balancing
  int k_dir = 5;
  bool per_class = true;
  double clip_sd = 2.0;
  double ratio_rel = 0.5;
  double sep_q = 0.0;
  double ridge = 0.0;
  double jitter0 = 1e-10;
  bool refine = false;
  double refine_tol = 0.01;
};

struct scale_selection {
  arma::vec sigma;                 // the chosen scale of every dimension
  scale_rule rule_used = scale_rule::regularizer;
  bool balancing_failed = false;   // endpoint balancing impossible: ratio rule used
  arma::vec grid_all;              // the sorted grid searched
  arma::vec grid;                  // the scales kept (grid_keep)
  arma::mat G, D;                  // kept scales x dimensions
  arma::vec grid_jitter;           // jitter of the kept scales
  double lambda = std::numeric_limits<double>::quiet_NaN();  // NaN unless regularizer
  arma::vec I_sizes;               // separable ordered class pairs per dimension
  long n_skipped = 0;
  arma::uvec index;                // 0-based grid index of each dimension's choice
  bool refined = false;            // regularizer with refinement: the fields below are set
  arma::vec sigma_grid_min, sigma_refined, crit_refined;
  arma::uvec refine_evals;
};

namespace detail {

// First minimum of column k, NaN skipped (which.min()).
inline arma::uword first_min(const arma::mat& M, arma::uword k) {
  arma::uword best = M.n_rows;
  for (arma::uword i = 0; i < M.n_rows; ++i) {
    const double v = M(i, k);
    if (std::isnan(v)) continue;
    if (best == M.n_rows || v < M(best, k)) best = i;
  }
  if (best == M.n_rows) throw convergence_error("the SOSI regulariser is undefined at every scale");
  return best;
}

}  // namespace detail

// Scales of the RBF interpolator of targets T (L x d) at centres A (L x n),
// the regulariser summed over the labelled points X (N x n; labels 0-based,
// Y the training embedding defining the separable pairs), searched over the
// sorted grid `grid` (at least two positive scales).
inline scale_selection select_scales(const arma::mat& X, const arma::ivec& labels, int n_class,
                                     const arma::mat& Y, const arma::mat& A, const arma::mat& T,
                                     const arma::vec& grid, const scale_options& o) {
  if (grid.n_elem < 2 || !grid.is_finite() || grid.min() <= 0) {
    throw input_error("the scale grid must hold at least two positive scales");
  }
  const arma::uword d = T.n_cols;
  scale_selection out;
  out.grid_all = grid;
  const reg_context ctx = make_reg_context(X, A, labels, n_class, o.k_dir, o.per_class);
  const arma::ucube I = separable_pairs(Y, labels, n_class, o.sep_q);
  const grid_result g = regularizer_grid(ctx, T, grid, I, o.ridge, o.jitter0);
  out.I_sizes.set_size(d);
  for (arma::uword k = 0; k < d; ++k) out.I_sizes(k) = arma::accu(I.slice(k));
  out.n_skipped = g.n_skipped;
  const arma::uword ng = grid_keep(g.jitter);
  out.grid = grid.head(ng);
  out.G = g.G.rows(0, ng - 1);
  out.D = g.D.rows(0, ng - 1);
  out.grid_jitter = g.jitter.head(ng);
  const arma::mat& G = out.G;
  const arma::mat& D = out.D;
  const arma::uvec has_pairs = out.I_sizes > 0;

  scale_rule rule = o.rule;
  double lambda = o.lambda;
  if (rule == scale_rule::regularizer && std::isnan(lambda)) {
    const arma::rowvec Dl = D.row(ng - 1), D0 = D.row(0), Gl = G.row(ng - 1), G0 = G.row(0);
    const double den = rstats::sum(Dl.memptr(), d) - rstats::sum(D0.memptr(), d);
    if (den > 0) {
      lambda = (rstats::sum(Gl.memptr(), d) - rstats::sum(G0.memptr(), d)) / den;
    } else {
      out.balancing_failed = true;
      rule = scale_rule::ratio;
    }
  }
  out.rule_used = rule;
  out.index.set_size(d);
  arma::vec sig(d);
  if (rule == scale_rule::regularizer) {
    out.lambda = lambda;
    const arma::mat crit = G - lambda * D;
    for (arma::uword k = 0; k < d; ++k) out.index(k) = detail::first_min(crit, k);
    sig = out.grid.elem(out.index);
    if (o.refine) {
      arma::vec lo(d), hi(d), v0(d);
      for (arma::uword k = 0; k < d; ++k) {
        const arma::uword i = out.index(k);
        lo(k) = out.grid(i == 0 ? 0 : i - 1);
        hi(k) = has_pairs(k) ? out.grid(std::min<arma::uword>(i + 1, ng - 1)) : lo(k);
        v0(k) = crit(i, k);
      }
      const refine_result rf =
          golden_refine(ctx, T, I, lo, hi, sig, v0, lambda, o.ridge, o.jitter0, 1e-8, o.refine_tol);
      out.refined = true;
      out.sigma_grid_min = sig;
      out.sigma_refined = rf.sigma;
      out.crit_refined = rf.crit;
      out.refine_evals = rf.n_eval;
      sig = rf.sigma;
    }
  } else {
    arma::mat ratio = D / G;
    ratio.transform([](double v) { return std::isfinite(v) ? v : 0.0; });
    for (arma::uword k = 0; k < d; ++k) {
      const double mx = ratio.col(k).max();
      arma::uword idx = 0;
      if (mx > 0) {
        for (arma::uword i = 0; i < ng; ++i)
          if (ratio(i, k) >= o.ratio_rel * mx) idx = i;
      }
      out.index(k) = idx;
    }
    sig = out.grid.elem(out.index);
  }
  // dimensions without separable pairs: the mean scale of the others;
  // then clipping to mean +- clip_sd sd and flooring at the grid minimum
  const arma::uvec with = arma::find(has_pairs), without = arma::find(has_pairs == 0);
  if (with.n_elem > 0 && without.n_elem > 0) {
    const arma::vec s_with = sig.elem(with);
    sig.elem(without).fill(rstats::mean(s_with.memptr(), s_with.n_elem));
  }
  const arma::vec ref = with.n_elem > 0 ? arma::vec(sig.elem(with)) : sig;
  if (ref.n_elem > 1) {
    const double mu = rstats::mean(ref.memptr(), ref.n_elem);
    const double s = rstats::sd(ref.memptr(), ref.n_elem);
    const double lo = mu - o.clip_sd * s, hi = mu + o.clip_sd * s;
    for (arma::uword k = 0; k < d; ++k) sig(k) = std::min(std::max(sig(k), lo), hi);
  }
  for (arma::uword k = 0; k < d; ++k) sig(k) = std::max(sig(k), out.grid(0));
  out.sigma = sig;
  return out;
}

// ---- the whole fit --------------------------------------------------------------------
struct sosi_options {
  bool fixed = false;       // use `sigma` (one per dimension) instead of a selection
  arma::vec sigma;
  arma::vec grid;           // empty: default_grid(X, n_grid)
  arma::uword n_grid = 40;
  scale_options scales;
  bool reoptimize = false;  // select the scales again in every later round
  arma::uvec schedule;      // total centres per round, first N
  int K = 5;                // neighbours of the class projection
};

struct sosi_fit_result {
  bool selected = false;    // scales chosen by select_scales (not fixed)
  scale_selection scales;   // the round-1 selection
  sosi_result fit;
};

// SOSI of the labelled points X (labels 0-based, n_class classes, training
// embedding Y) with the unlabelled points Xu. Round-1 scales are selected
// with centres = X and targets = Y; with `reoptimize`, later rounds select
// again with their centres and targets by the round-1 rule (after any
// fallback), lambda and grid.
inline sosi_fit_result sosi_fit(const arma::mat& X, const arma::ivec& labels, int n_class,
                                const arma::mat& Y, const arma::mat& Xu, const sosi_options& o) {
  sosi_fit_result out;
  arma::vec sigma;
  if (o.fixed) {
    if (o.reoptimize) throw input_error("the scales cannot be re-selected when they are fixed");
    if (o.sigma.n_elem != Y.n_cols || !o.sigma.is_finite() || o.sigma.min() <= 0) {
      throw input_error("fixed RBF scales must be one positive number per dimension");
    }
    sigma = o.sigma;
  } else {
    const arma::vec grid = o.grid.n_elem ? arma::vec(arma::sort(o.grid)) : default_grid(X, o.n_grid);
    out.scales = select_scales(X, labels, n_class, Y, X, Y, grid, o.scales);
    out.selected = true;
    sigma = out.scales.sigma;
  }
  sigma_updater reselect = nullptr;
  if (o.reoptimize) {
    scale_options later = o.scales;
    later.rule = out.scales.rule_used;
    later.lambda = out.scales.lambda;  // NaN for the ratio rule
    const arma::vec grid_all = out.scales.grid_all;
    reselect = [&X, &labels, n_class, &Y, later, grid_all](arma::uword, const arma::mat& A,
                                                          const arma::mat& T) {
      return select_scales(X, labels, n_class, Y, A, T, grid_all, later).sigma;
    };
  }
  out.fit = sosi_progressive(X, labels, Y, Xu, sigma, o.schedule, o.K, o.scales.ridge,
                             o.scales.jitter0, reselect);
  return out;
}

}  // namespace sosi
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_SOSI_SCALES_H
