// Classical (Torgerson-Gower) MDS: the top q eigenpairs of
// B = -1/2 H Delta^2 H (Torgerson 1952; Gower 1966), for a dense symmetric distance matrix
// (Isomap's geodesics, landmark blocks) or for Euclidean data, where
// B = X_c X_c' exactly.
//
// Paths (the package solver rules): dense LAPACK on an explicit B when n <= dense_top_limit() (or
// when asked), otherwise matrix-free Lanczos whose operator squares and
// double-centres on the fly, so neither Delta^2 nor B is ever formed (for
// data, the operator is v -> X_c (X_c' v)).
#ifndef MANIFOLDOOS_MDS_H
#define MANIFOLDOOS_MDS_H

#include <armadillo>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/blocks/spectra_op.h>
#include <manifoldOOS/methods/lmds.h>

namespace manifoldOOS {

struct cmds_model {
  arma::vec values;       // top q eigenvalues of B, descending, all positive
  arma::mat vectors;      // n x q unit eigenvectors (sign convention)
  arma::mat embedding;    // n x q, V Lambda^{1/2}
  arma::mat lsharp_t;     // n x q, V Lambda^{-1/2}
  arma::vec mu;           // column means of Delta^2
  double grand_mean = 0.0;
  double negative_mass = std::numeric_limits<double>::quiet_NaN();  // dense path only
  std::string method;
  long n_ops = 0;
  std::string note;

  lmds_map as_map() const { return make_lmds_map(lsharp_t, embedding, values, mu, grand_mean); }
};

namespace detail {

// t += (S x restricted to the columns [j0, j1) of the lower triangle of S,
// each entry counted for y_i and y_j), S = D o D (Sq) or D; D is n x n,
// column-major. Every t[i] and every column's dot product is summed in the
// order of the plain column-by-column loop (the columns' entries by increasing
// row; t[i] over the columns in increasing order, then column i's own dot
// product), so the result is bitwise that loop's. Four columns are run side
// by side: their dot products are independent chains of additions, which the
// plain loop, bound by the latency of one chain, cannot overlap.
template <bool Sq>
inline void lower_sym_product(const double* D, long n, long j0, long j1, const double* x,
                              double* t) {
  auto f = [](double a) { return Sq ? a * a : a; };
  long j = j0;
  for (; j + 4 <= j1; j += 4) {
    const double* c0 = D + j * n;
    const double* c1 = c0 + n;
    const double* c2 = c1 + n;
    const double* c3 = c2 + n;
    const double x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3];
    double d[4];
    for (long a = 0; a < 4; ++a) d[a] = f(D[(j + a) * n + j + a]) * x[j + a];
    // the rows inside the block of four: column by column, as the plain loop
    for (long a = 0; a < 3; ++a) {
      const double* c = D + (j + a) * n;
      for (long i = j + a + 1; i < j + 4; ++i) {
        const double v = f(c[i]);
        d[a] += v * x[i];
        t[i] += v * x[j + a];
      }
    }
    double d0 = d[0], d1 = d[1], d2 = d[2], d3 = d[3];
    for (long i = j + 4; i < n; ++i) {
      const double v0 = f(c0[i]), v1 = f(c1[i]), v2 = f(c2[i]), v3 = f(c3[i]);
      const double xi = x[i];
      d0 += v0 * xi;
      d1 += v1 * xi;
      d2 += v2 * xi;
      d3 += v3 * xi;
      double ti = t[i];
      ti += v0 * x0;
      ti += v1 * x1;
      ti += v2 * x2;
      ti += v3 * x3;
      t[i] = ti;
    }
    t[j] += d0;
    t[j + 1] += d1;
    t[j + 2] += d2;
    t[j + 3] += d3;
  }
  for (; j < j1; ++j) {
    const double* col = D + j * n;
    const double xj = x[j];
    double dot = f(col[j]) * xj;
    for (long i = j + 1; i < n; ++i) {
      const double v = f(col[i]);
      dot += v * x[i];
      t[i] += v * xj;
    }
    t[j] += dot;
  }
}

// y = B x, B = -1/2 H S H, S = D o D (square = true) or S = D, D symmetric.
// Only the lower triangle of D is read, each entry once per product (it
// contributes to y_i and to y_j), which halves the memory traffic of the
// product -- the cost of the whole solve, since an n x n D does not fit in
// cache. The columns are cut into `kParts` fixed slices of equal triangle
// area, each accumulated into its own buffer and summed in a fixed order,
// so the result does not depend on the number of threads.
class centred_sq_op : public square_operator {
 public:
  static constexpr int kParts = 8;
  centred_sq_op(const arma::mat& D, bool square, const arma::vec& mu, double g, int n_threads)
      : square_operator(D.n_rows), D_(D), square_(square), mu_(mu), g_(g), nt_(resolve_threads(n_threads)),
        bounds_(kParts + 1, 0), acc_(static_cast<std::size_t>(kParts) * D.n_rows) {
    // bounds_[p]: first column of slice p; column j holds n - j lower entries
    const double n = static_cast<double>(D_.n_rows);
    const double total = n * (n + 1) / 2;
    long j = 0;
    double area = 0.0;
    for (int p = 1; p < kParts; ++p) {
      while (j < static_cast<long>(D_.n_rows) && area < total * p / kParts) area += n - j++;
      bounds_[p] = j;
    }
    bounds_[kParts] = static_cast<long>(D_.n_rows);
  }
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    const long n = static_cast<long>(D_.n_rows);
    double s = 0.0, mx = 0.0;
    for (long j = 0; j < n; ++j) {
      s += x[j];
      mx += mu_[j] * x[j];
    }
    const double c = g_ * s - mx;
    const bool sq = square_;
    const arma::mat& D = D_;
    double* acc = acc_.data();
    const long* bounds = bounds_.data();
    (void)nt_;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt_) if (nt_ > 1)
#endif
    for (int p = 0; p < kParts; ++p) {
      double* t = acc + static_cast<std::size_t>(p) * n;
      std::fill(t, t + n, 0.0);
      if (sq) {
        lower_sym_product<true>(D.memptr(), n, bounds[p], bounds[p + 1], x, t);
      } else {
        lower_sym_product<false>(D.memptr(), n, bounds[p], bounds[p + 1], x, t);
      }
    }
    for (long i = 0; i < n; ++i) {
      double v = 0.0;
      for (int p = 0; p < kParts; ++p) v += acc[static_cast<std::size_t>(p) * n + i];
      y[i] = -0.5 * (v - mu_[i] * s + c);
    }
  }

 private:
  const arma::mat& D_;
  bool square_;
  const arma::vec& mu_;
  double g_;
  int nt_;
  std::vector<long> bounds_;
  mutable std::vector<double> acc_;
  op_poller poll_;
};

// y = X_c (X_c' x).
class gram_op : public square_operator {
 public:
  explicit gram_op(const arma::mat& Xc) : square_operator(Xc.n_rows), Xc_(Xc) {}
  void perform_op(const double* x, double* y) const {
    poll_.tick();
    const arma::vec xv(const_cast<double*>(x), Xc_.n_rows, false, true);
    arma::vec yv(y, Xc_.n_rows, false, true);
    const arma::vec t = Xc_.t() * xv;
    yv = Xc_ * t;
  }

 private:
  const arma::mat& Xc_;
  op_poller poll_;
};

inline bool use_dense_path(long n, const eig_options& o) {
  return o.method == eig_method::dense ||
         (o.method == eig_method::automatic && n <= dense_top_limit(o));
}

// Negative mass sum_{l<0} |l| / sum |l| of a full spectrum.
inline double negative_mass(const arma::vec& all) {
  double neg = 0.0, tot = 0.0;
  for (double v : all) {
    tot += std::abs(v);
    if (v < 0) neg -= v;
  }
  return tot > 0 ? neg / tot : 0.0;
}

// Top q of a full ascending spectrum, sign convention applied.
inline eigen_result top_of_all(const eigen_result& all, arma::uword q) {
  eigen_result r = all;
  const arma::uword n = all.values.n_elem;
  r.values.set_size(q);
  r.vectors.set_size(all.vectors.n_rows, q);
  for (arma::uword j = 0; j < q; ++j) {
    r.values(j) = all.values(n - 1 - j);
    r.vectors.col(j) = all.vectors.col(n - 1 - j);
  }
  fix_signs(r.vectors);
  return r;
}

// Checks the q eigenvalues and fills the model.
inline void finish_cmds(cmds_model& M, const eigen_result& r, arma::uword q) {
  std::string extra;
  if (std::isfinite(M.negative_mass)) {
    std::ostringstream os;
    os << "; negative mass " << M.negative_mass << " (non-Euclidean distances)";
    extra = os.str();
  }
  require_positive_leading(r.values, q, "the double-centred squared-distance matrix", extra,
                           "Reduce `ndim`.");
  M.values = r.values;
  M.vectors = r.vectors;
  scale_by_sqrt(M.vectors, M.values, M.embedding, M.lsharp_t);
  M.method = r.method_used;
  M.n_ops = r.n_ops;
  M.note = r.note;
}

// body(j) for every column j < n, split statically over OpenMP threads
// when OpenMP is available.
template <class Body>
inline void for_each_column(long n, int n_threads, const Body& body) {
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
#endif
  for (long j = 0; j < n; ++j) body(j);
}

}  // namespace detail

// Column means of D o D (square = true) or of D, for a symmetric D.
inline arma::vec sq_column_means(const arma::mat& D, bool square, int n_threads) {
  const long n = static_cast<long>(D.n_cols);
  arma::vec mu(n);
  detail::for_each_column(n, n_threads, [&](long j) {
    const double* col = D.colptr(j);
    double t = 0.0;
    if (square) {
      for (arma::uword i = 0; i < D.n_rows; ++i) t += col[i] * col[i];
    } else {
      for (arma::uword i = 0; i < D.n_rows; ++i) t += col[i];
    }
    mu[j] = t / double(D.n_rows);
  });
  return mu;
}

// Classical MDS of a symmetric n x n matrix D of distances (square = true)
// or of squared distances (square = false). D is not modified and not
// copied on the iterative path.
inline cmds_model cmds_distances(const arma::mat& D, bool square, arma::uword q,
                                 const eig_options& o, int n_threads) {
  const arma::uword n = D.n_rows;
  if (D.n_cols != n || n < 2) throw input_error("the distance matrix must be square with n >= 2");
  if (q < 1 || q >= n) throw input_error("`ndim` must lie in [1, n - 1]");
  cmds_model M;
  M.mu = sq_column_means(D, square, n_threads);
  M.grand_mean = arma::mean(M.mu);
  const double g = M.grand_mean;
  auto build_B = [&]() {
    arma::mat B(n, n);
    const long nn = static_cast<long>(n);
    detail::for_each_column(nn, n_threads, [&](long j) {
      for (long i = j; i < nn; ++i) {
        const double a = D(i, j), b = D(j, i);
        // symmetric by construction: average of the two triangles
        const double s = square ? 0.5 * (a * a + b * b) : 0.5 * (a + b);
        B(i, j) = -0.5 * (s - M.mu[i] - M.mu[j] + g);
      }
    });
    for (long j = 0; j < nn; ++j)
      for (long i = 0; i < j; ++i) B(i, j) = B(j, i);
    return B;
  };
  eigen_result r;
  if (detail::use_dense_path(static_cast<long>(n), o)) {
    eigen_result all;
    {
      const arma::mat B = build_B();
      all = eig_dense(B, eig_which::all, n);
    }
    M.negative_mass = detail::negative_mass(all.values);
    r = detail::top_of_all(all, q);
  } else {
    detail::centred_sq_op op(D, square, M.mu, g, n_threads);
    // Every product streams all of D, so the Krylov space is kept small:
    // ncv = max(2q + 1, 10) (the general default is 20). The leading
    // eigenvalues of a double-centred squared-distance matrix are well
    // separated; Isomap on a Swiss roll (n = 5000, q = 2) converges in the
    // first 10 products against 20. A failed run retries with ncv doubled.
    eig_options oo = o;
    if (oo.ncv <= 0) oo.ncv = std::max<long>(2 * static_cast<long>(q) + 1, 10);
    r = eigs_operator_top(op, static_cast<long>(q), oo,
                          [&]() { return eig_dense(build_B(), eig_which::top, q); },
                          "spectra_matfree_mds");
  }
  detail::finish_cmds(M, r, q);
  return M;
}

// Classical MDS of Euclidean data X (n x p, rows are points):
// B = -1/2 H Delta^2 H = X_c X_c'. mu_i = ||x_i - xbar||^2 + mean_j ||x_j - xbar||^2.
inline cmds_model cmds_data(const arma::mat& X, arma::uword q, const eig_options& o) {
  const arma::uword n = X.n_rows;
  if (n < 2) throw input_error("`X` must have at least two rows");
  if (q < 1 || q >= n) throw input_error("`ndim` must lie in [1, n - 1]");
  cmds_model M;
  const arma::rowvec xbar = arma::mean(X, 0);
  const arma::mat Xc = X.each_row() - xbar;
  const arma::vec a = arma::sum(arma::square(Xc), 1);
  const double abar = arma::mean(a);
  M.mu = a + abar;
  M.grand_mean = 2.0 * abar;
  eigen_result r;
  if (detail::use_dense_path(static_cast<long>(n), o)) {
    arma::mat B = Xc * Xc.t();
    B = 0.5 * (B + B.t());
    const eigen_result all = eig_dense(B, eig_which::all, n);
    M.negative_mass = detail::negative_mass(all.values);
    r = detail::top_of_all(all, q);
  } else {
    detail::gram_op op(Xc);
    r = eigs_operator_top(op, static_cast<long>(q), o,
                          [&]() {
                            arma::mat B = Xc * Xc.t();
                            B = 0.5 * (B + B.t());
                            return eig_dense(B, eig_which::top, q);
                          },
                          "spectra_matfree_gram");
  }
  detail::finish_cmds(M, r, q);
  return M;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_MDS_H
