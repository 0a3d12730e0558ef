// Truncated PCA of a sparse matrix (interface in
// <manifoldOOS/methods/pca_sparse.h>).
#include <manifoldOOS/methods/pca_sparse.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/linalg.h>
#include <manifoldOOS/blocks/parallel.h>
#include <manifoldOOS/blocks/spectra_op.h>

namespace manifoldOOS {

namespace {

// out[i] = sum of val[e] * v[idx[e]] over the entries e of compressed slice i
// (a row of a row-compressed or a column of a column-compressed matrix),
// the slices in parallel blocks.
template <class Ptr, class Idx>
void compressed_times(std::size_t n_slices, const Ptr* ptr, const Idx* idx, const double* val,
                      const double* v, double* out, int n_threads) {
  const std::size_t block = 512;
  const std::size_t nb = (n_slices + block - 1) / block;
  parallel_rows_guarded(nb, n_threads, 1, [] { return 0; }, [&](int&, std::size_t b) {
    const std::size_t i1 = std::min(n_slices, (b + 1) * block);
    for (std::size_t i = b * block; i < i1; ++i) {
      double s = 0.0;
      for (auto e = ptr[i]; e < ptr[i + 1]; ++e) s += val[e] * v[idx[e]];
      out[i] = s;
    }
  });
}

// y = X v (rows, from the row-compressed copy).
void times_rows(const sparse_rows& R, const double* v, double* y, int n_threads) {
  compressed_times(R.n_rows, R.ptr.data(), R.col.data(), R.val.data(), v, y, n_threads);
}

// y = X' u (columns of the column-compressed matrix).
void times_cols(const csc_view& X, const double* u, double* y, int n_threads) {
  compressed_times(X.n_cols, X.ptr, X.idx, X.val, u, y, n_threads);
}

// A = (X - 1 mu') D^{-1}, applied implicitly.
struct centred_sparse {
  const csc_view& X;
  const sparse_rows& R;
  arma::vec mu, inv_scale;
  int n_threads;
  // y (n) = A w (w: p)
  void apply(const double* w, double* y) const {
    const std::size_t p = X.n_cols, n = X.n_rows;
    std::vector<double> ws(p);
    double c = 0.0;
    for (std::size_t j = 0; j < p; ++j) {
      ws[j] = w[j] * inv_scale[j];
      c += mu[j] * ws[j];
    }
    times_rows(R, ws.data(), y, n_threads);
    for (std::size_t i = 0; i < n; ++i) y[i] -= c;
  }
  // z (p) = A' y (y: n)
  void apply_t(const double* y, double* z) const {
    const std::size_t p = X.n_cols, n = X.n_rows;
    double sy = 0.0;
    for (std::size_t i = 0; i < n; ++i) sy += y[i];
    times_cols(X, y, z, n_threads);
    for (std::size_t j = 0; j < p; ++j) z[j] = (z[j] - mu[j] * sy) * inv_scale[j];
  }
};

// A'A (p x p) or AA' (n x n), whichever is smaller.
class cov_operator : public square_operator {
 public:
  cov_operator(const centred_sparse& A, bool gram)
      : square_operator(static_cast<Eigen::Index>(gram ? A.X.n_rows : A.X.n_cols)),
        A_(A), gram_(gram), tmp_(gram ? A.X.n_cols : A.X.n_rows) {}
  void perform_op(const double* x, double* y) const {
    if (gram_) {
      A_.apply_t(x, tmp_.data());
      A_.apply(tmp_.data(), y);
    } else {
      A_.apply(x, tmp_.data());
      A_.apply_t(tmp_.data(), y);
    }
  }

 private:
  const centred_sparse& A_;
  bool gram_;
  mutable std::vector<double> tmp_;
};

}  // namespace

pca_model pca_fit_sparse(const csc_view& X, arma::uword q, bool scale, double tol, int n_threads,
                         pca_sparse_info* info) {
  const std::size_t n = X.n_rows, p = X.n_cols;
  if (q < 1 || q > std::min(n, p)) throw input_error("ndim must be between 1 and min(n, p)");
  const sparse_rows R = csc_to_rows(X);
  pca_model m;
  arma::vec mu(p), sd(p, arma::fill::ones);
  double total = 0.0;
  for (std::size_t j = 0; j < p; ++j) {
    double s = 0.0;
    for (int e = X.ptr[j]; e < X.ptr[j + 1]; ++e) s += X.val[e];
    mu[j] = s / static_cast<double>(n);
    double ss = 0.0;
    for (int e = X.ptr[j]; e < X.ptr[j + 1]; ++e) {
      const double d = X.val[e] - mu[j];
      ss += d * d;
    }
    ss += static_cast<double>(n - static_cast<std::size_t>(X.ptr[j + 1] - X.ptr[j])) * mu[j] * mu[j];
    const double var = ss / static_cast<double>(n > 1 ? n - 1 : 1);
    if (scale) {
      if (!(var > 0)) throw input_error("cannot scale a constant column to unit variance");
      sd[j] = std::sqrt(var);
      total += 1.0;
    } else {
      total += var;
    }
  }
  m.center = mu.t();
  m.scale = sd.t();
  // a product costs O(nnz): threads pay only on large matrices (on small ones
  // their start-up and barriers cost more than the product)
  const std::size_t nnz = p ? static_cast<std::size_t>(X.ptr[p]) : 0;
  const int threads = nnz < 2000000 ? 1 : n_threads;
  const centred_sparse A{X, R, mu, 1.0 / sd, threads};
  const bool gram = n < p;
  cov_operator op(A, gram);
  const long N = static_cast<long>(gram ? n : p);
  eig_options o;
  o.tol = tol;
  auto dense = [&]() {
    // the operator applied to the identity, then LAPACK (small problems only)
    arma::mat C(N, N);
    arma::vec e(N, arma::fill::zeros);
    for (long j = 0; j < N; ++j) {
      e.zeros();
      e[j] = 1.0;
      op.perform_op(e.memptr(), C.colptr(j));
    }
    C = 0.5 * (C + C.t());
    return eig_dense(C, eig_which::top, static_cast<arma::uword>(q));
  };
  eigen_result er = eigs_operator_top(op, static_cast<long>(q), o, dense, "sparse_pca_lanczos");
  arma::vec lambda = arma::clamp(er.values.head(q), 0.0, arma::datum::inf);
  arma::mat V(p, q);
  if (gram) {
    const double smax = std::sqrt(lambda.max());
    for (arma::uword c = 0; c < q; ++c) {
      const double s = std::sqrt(lambda[c]);
      if (!(s > 1e-12 * smax) || !(s > 0)) {
        throw input_error("ndim exceeds the numerical rank of the centred data");
      }
      A.apply_t(er.vectors.colptr(c), V.colptr(c));
      V.col(c) /= s;
    }
  } else {
    V = er.vectors.cols(0, q - 1);
  }
  fix_signs(V);
  m.rotation = V;
  m.sdev = arma::sqrt(lambda / static_cast<double>(n > 1 ? n - 1 : 1));
  m.scores.set_size(n, q);
  for (arma::uword c = 0; c < q; ++c) A.apply(V.colptr(c), m.scores.colptr(c));
  if (info) {
    info->total_variance = total;
    info->solver = er.method_used;
    info->n_ops = er.n_ops;
    info->residual = er.residual;
  }
  return m;
}

arma::mat pca_project_sparse(const pca_model& m, const csc_view& Xnew, int n_threads) {
  const std::size_t p = Xnew.n_cols;
  if (p != m.center.n_elem) throw input_error("newdata must have the training columns");
  const sparse_rows R = csc_to_rows(Xnew);
  const centred_sparse A{Xnew, R, m.center.t(), 1.0 / m.scale.t(), n_threads};
  arma::mat out(Xnew.n_rows, m.rotation.n_cols);
  for (arma::uword c = 0; c < m.rotation.n_cols; ++c) A.apply(m.rotation.colptr(c), out.colptr(c));
  return out;
}

}  // namespace manifoldOOS
