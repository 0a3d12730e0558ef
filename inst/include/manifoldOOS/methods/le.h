// Laplacian eigenmaps (Belkin & Niyogi 2003; Belkin & Niyogi 2003) and their
// out-of-sample maps: Bengio et al.'s Nystrom formula (Bengio et al. 2004) and the
// LELVM kernel average (Carreira-Perpiñán & Lu 2007).
//
// Variants (W symmetric weights, d = W 1, D = diag(d)):
//   generalized   L z = lambda D z, z' D z = 1 (D_norm), trivial z ~ 1;
//   symmetric     L_sym v = lambda v, |v| = 1, trivial v ~ D^{1/2} 1;
//   unnormalized  L y = lambda y, |y| = 1, trivial y ~ 1.
// Sparse graphs (kNN, eps-ball) go through eigs_sym() (dense LAPACK up to
// dense_max_n, shift-invert at a negative shift above); the full mesh is
// dense by nature.
//
// Out-of-sample map for a new point a with kernel weights K(a, x_i) on its
// neighbour list (the graph's weight type and sigma) and d(a) = sum_i K(a, x_i):
//   nystrom, generalized:  z_k(a) = (1/l_k) sum_i [K(a, x_i) / d(a)] z_ik,  l_k = 1 - lambda_k
//   nystrom, symmetric:    v_k(a) = (1/l_k) sum_i K(a, x_i) v_ik / sqrt(d(a) d_i)
//   nystrom, unnormalized: y_k(a) = sum_i K(a, x_i) y_ik / (d(a) - lambda_k)
//   lvm (any variant):     y(a)   = sum_i K(a, x_i) y_i / d(a)
// Each Nystrom form is the eigen-equation of its problem solved for one row,
// so the training kernel row of x_j returns y_j exactly. Heat weights are
// evaluated as exp(-(d^2 - d_min^2) / (2 sigma^2)) inside every normalised
// ratio (the bandwidth rules of ?neighbour_graph), so a far point gets the finite limit of the map and
// is flagged instead of producing 0/0.
#ifndef MANIFOLDOOS_LE_H
#define MANIFOLDOOS_LE_H

#include <armadillo>
#include <manifoldOOS/core/eigen_sparse.h>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_deflate.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/graph.h>
#include <manifoldOOS/blocks/kernels.h>
#include <manifoldOOS/blocks/linalg.h>

namespace manifoldOOS {

enum class le_variant { generalized, symmetric, unnormalized };

inline constexpr choice<le_variant> le_variant_names[] = {
    {"generalized", le_variant::generalized}, {"symmetric", le_variant::symmetric},
    {"unnormalized", le_variant::unnormalized}};
inline le_variant parse_le_variant(const std::string& s) {
  return parse_choice(s, le_variant_names,
                      "`laplacian` must be \"generalized\", \"symmetric\" or \"unnormalized\"");
}

struct le_result {
  arma::mat Y;          // n x q embedding (scaling of the variant)
  arma::vec values;     // q eigenvalues lambda_2..lambda_{q+1}
  double dropped = 0.0; // trivial eigenvalue
  arma::vec degree;     // d_i
  std::string method;
  double residual = -1.0;
  std::string note;
};

namespace detail {

inline void check_isolated(const arma::vec& d) {
  std::vector<long> iso;
  for (arma::uword i = 0; i < d.n_elem; ++i)
    if (!(d(i) >= 1e-300)) iso.push_back(long(i) + 1);
  if (!iso.empty()) {
    std::ostringstream os;
    os << "the graph has " << iso.size() << " isolated vertices (degree < 1e-300), e.g. row "
       << iso[0] << "; increase `bandwidth` or `k`";
    throw input_error(os.str());
  }
}

// Drop the trivial pair and finish the result (generalised vectors are mapped
// back with D^{-1/2} when `back` is non-empty).
inline void le_finish(le_result& out, const eigen_result& res, const arma::vec& null_vec,
                      double scale, const arma::vec& back) {
  double dropped = 0.0;
  eigen_result kept = drop_trivial(res, null_vec, scale, &dropped);
  out.Y = kept.vectors;
  if (!back.is_empty()) out.Y.each_col() %= back;
  fix_signs(out.Y);
  out.values = kept.values;
  out.dropped = dropped;
  out.method = res.method_used;
  out.residual = res.residual;
  out.note = res.note;
}

// Iterative path: the q non-trivial pairs of the PSD matrix A (null vector
// `null_vec`) by the deflated solver; `back` as in le_finish(). The dropped
// value is the Rayleigh quotient of the null vector (0 to rounding).
inline void le_fit_deflated(le_result& out, const sp_mat_e& A, const arma::vec& null_vec,
                            double scale, const arma::vec& back, int q, const eig_options& o) {
  eigen_result res = eigs_sparse_bottom_deflated(A, null_vec, q, o);
  check_deflated_gap(res.values, scale);
  out.Y = res.vectors;
  if (!back.is_empty()) out.Y.each_col() %= back;
  fix_signs(out.Y);
  out.values = res.values;
  Eigen::Map<const Eigen::VectorXd> ue(null_vec.memptr(), A.rows());
  out.dropped = ue.dot(A * ue) / ue.squaredNorm();
  out.method = res.method_used;
  out.residual = res.residual;
  out.note = res.note;
}

}  // namespace detail

// Sparse symmetric weights W (zero diagonal). The dense solver (n <=
// o.dense_max_n under method "auto", or method "dense") computes q + 1 pairs
// and drops the trivial one; the iterative solver deflates the known null
// vector instead (see eigen_deflate.h): the generalised problem is solved
// as L_sym u = lambda u with z = D^{-1/2} u.
inline le_result le_fit_sparse(const sp_mat_e& W, le_variant variant, int q,
                               const eig_options& o) {
  const long n = W.rows();
  if (q < 1 || q + 1 > n - 1) throw input_error("`ndim` must lie in [1, n - 2]");
  le_result out;
  const csc_view wv = view_of(W);
  const bool iterative = o.method == eig_method::iterative ||
                         (o.method == eig_method::automatic && n > o.dense_max_n);
  if (iterative) {
    const bool normalised = variant != le_variant::unnormalized;
    laplacian_result lr = graph_laplacian(wv, normalised ? laplacian_type::symmetric
                                                         : laplacian_type::unnormalized);
    out.degree = arma::vec(lr.degree);
    if (normalised) {
      detail::check_isolated(out.degree);
      const arma::vec sq = arma::sqrt(out.degree);
      detail::le_fit_deflated(out, lr.L, sq, 1.0,
                              variant == le_variant::generalized ? arma::vec(1.0 / sq) : arma::vec(),
                              q, o);
    } else {
      detail::le_fit_deflated(out, lr.L, arma::vec(n, arma::fill::ones),
                              detail::shift_scale(arma::accu(out.degree), n), arma::vec(), q, o);
    }
    return out;
  }
  if (variant == le_variant::symmetric) {
    laplacian_result lr = graph_laplacian(wv, laplacian_type::symmetric);
    out.degree = arma::vec(lr.degree);
    detail::check_isolated(out.degree);
    eigen_result res = eigs_sym(sym_problem::sparse(lr.L), eig_which::bottom, q + 1, o);
    detail::le_finish(out, res, arma::sqrt(out.degree), 1.0, arma::vec());
    return out;
  }
  laplacian_result lr = graph_laplacian(wv, laplacian_type::unnormalized);
  out.degree = arma::vec(lr.degree);
  const arma::vec ones(n, arma::fill::ones);
  if (variant == le_variant::generalized) {
    detail::check_isolated(out.degree);
    sp_mat_e B(n, n);
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(n);
    for (long i = 0; i < n; ++i) t.emplace_back(i, i, out.degree(i));
    B.setFromTriplets(t.begin(), t.end());
    eigen_result res = eigs_sym(sym_problem::sparse_generalized(lr.L, B), eig_which::bottom, q + 1, o);
    // B-orthonormal vectors: the reduced problem has trace n, scale 1.
    detail::le_finish(out, res, ones, 1.0, arma::vec());
    return out;
  }
  eigen_result res = eigs_sym(sym_problem::sparse(lr.L), eig_which::bottom, q + 1, o);
  detail::le_finish(out, res, ones, detail::shift_scale(arma::accu(out.degree), n), arma::vec());
  return out;
}

// Full mesh: W_ij = exp(-|x_i - x_j|^2 / (2 sigma^2)) (or 1), W_ii = 0. Dense.
inline arma::mat le_full_weights(const arma::mat& X, double sigma, bool binary) {
  arma::mat W;
  if (binary) {
    W.ones(X.n_rows, X.n_rows);
  } else {
    if (!(sigma > 0)) throw input_error("`bandwidth` must be positive");
    W = sq_dist_cross(X, X);
    const double c = -1.0 / (2.0 * sigma * sigma);
    W.transform([c](double v) { return std::exp(c * v); });
    W = 0.5 * (W + W.t());
  }
  W.diag().zeros();
  return W;
}

inline le_result le_fit_dense(const arma::mat& W, le_variant variant, int q) {
  const long n = W.n_rows;
  if (q < 1 || q + 1 > n - 1) throw input_error("`ndim` must lie in [1, n - 2]");
  le_result out;
  out.degree = arma::sum(W, 1);
  if (variant == le_variant::unnormalized) {
    arma::mat L = -W;
    L.diag() = out.degree;
    eigen_result res = eig_dense(L, eig_which::bottom, q + 1);
    const arma::vec ones(n, arma::fill::ones);
    detail::le_finish(out, res, ones, detail::shift_scale(arma::accu(out.degree), n), arma::vec());
    return out;
  }
  detail::check_isolated(out.degree);
  const arma::vec s = 1.0 / arma::sqrt(out.degree);
  arma::mat L = -(W.each_col() % s);
  L.each_row() %= s.t();
  L.diag() += 1.0;
  L = 0.5 * (L + L.t());
  eigen_result res = eig_dense(L, eig_which::bottom, q + 1);
  detail::le_finish(out, res, arma::sqrt(out.degree), 1.0,
                    variant == le_variant::generalized ? s : arma::vec());
  return out;
}

// ---- out-of-sample -----------------------------------------------------------

struct le_map {
  const arma::mat* Y = nullptr;   // n x q training embedding
  arma::vec lambda;               // q eigenvalues
  arma::vec degree;               // n training degrees (symmetric variant)
  le_variant variant = le_variant::generalized;
  bool nystrom = true;            // false: LVM average
  bool binary = false;
  double sigma = 1.0;
};

// One query: neighbour indices idx[0..len) (0-based) with squared distances
// d2. Writes q values into out (stride ld) and returns the far flag.
inline bool le_extend_row(const le_map& m, const int* idx, const double* d2, long len,
                          double* out, long ld) {
  const arma::mat& Y = *m.Y;
  const long q = Y.n_cols;
  double d0 = std::numeric_limits<double>::infinity();
  for (long j = 0; j < len; ++j) d0 = std::min(d0, d2[j]);
  const double c = m.binary ? 0.0 : 1.0 / (2.0 * m.sigma * m.sigma);
  std::vector<double> e(len);
  double s = 0.0;
  for (long j = 0; j < len; ++j) {
    e[j] = m.binary ? 1.0 : std::exp(-(d2[j] - d0) * c);
    s += e[j];
  }
  // K_j = f * e_j with f = exp(-d0 c); f underflows for far points.
  const double logf = -d0 * c;
  const bool far = !m.binary && std::exp(logf) == 0.0;
  for (long k = 0; k < q; ++k) {
    double acc = 0.0;
    if (m.nystrom && m.variant == le_variant::symmetric) {
      for (long j = 0; j < len; ++j) acc += e[j] * Y(idx[j], k) / std::sqrt(m.degree(idx[j]));
      // K_j / sqrt(d(a)) = e_j sqrt(f) / sqrt(s)
      acc *= std::exp(0.5 * logf) / std::sqrt(s) / (1.0 - m.lambda(k));
    } else if (m.nystrom && m.variant == le_variant::unnormalized) {
      for (long j = 0; j < len; ++j) acc += e[j] * Y(idx[j], k);
      const double f = std::exp(logf);
      const double den = f * s - m.lambda(k);
      acc = (f == 0.0) ? 0.0 : f * acc / den;
    } else {
      for (long j = 0; j < len; ++j) acc += e[j] * Y(idx[j], k);
      acc /= s;
      if (m.nystrom) acc /= (1.0 - m.lambda(k));
    }
    out[k * ld] = acc;
  }
  return far;
}

// Queries given by CSR neighbour lists (ptr: m + 1 offsets, idx 0-based,
// dist Euclidean). Returns m x q; far flags in `far`.
inline arma::mat le_extend_lists(const le_map& m, const std::vector<long>& ptr,
                                 const int* idx, const double* dist, arma::uvec& far) {
  const long nq = long(ptr.size()) - 1;
  const long q = m.Y->n_cols;
  arma::mat out(nq, q);
  far.zeros(nq);
  std::vector<double> d2;
  for (long i = 0; i < nq; ++i) {
    if ((i & 1023) == 0) check_interrupt();
    const long a = ptr[i], len = ptr[i + 1] - ptr[i];
    if (len < 1) throw input_error("every query needs at least one neighbour");
    d2.resize(len);
    for (long j = 0; j < len; ++j) d2[j] = dist[a + j] * dist[a + j];
    far(i) = le_extend_row(m, idx + a, d2.data(), len, out.memptr() + i, nq) ? 1 : 0;
  }
  return out;
}

// Full mesh: every training point is a neighbour. Blocked over queries.
inline arma::mat le_extend_full(const le_map& m, const arma::mat& X, const arma::mat& Q,
                                arma::uvec& far) {
  const long nq = Q.n_rows, n = X.n_rows, q = m.Y->n_cols;
  arma::mat out(nq, q);
  far.zeros(nq);
  std::vector<int> idx(n);
  for (long i = 0; i < n; ++i) idx[i] = int(i);
  const long block = std::max<long>(1, std::min<long>(nq, (1L << 22) / std::max<long>(n, 1)));
  for (long b0 = 0; b0 < nq; b0 += block) {
    check_interrupt();
    const long b1 = std::min(nq, b0 + block);
    // column r: squared distances of query b0 + r to all training points
    // (centred on the training means, so a query's values do not depend on
    // the other queries of its block)
    const arma::mat D2 = sq_dist_cross(Q.rows(b0, b1 - 1), X).t();  // n x (b1 - b0)
    for (long r = 0; r < b1 - b0; ++r) {
      far(b0 + r) = le_extend_row(m, idx.data(), D2.colptr(r), n, out.memptr() + b0 + r, nq) ? 1 : 0;
    }
  }
  return out;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LE_H
