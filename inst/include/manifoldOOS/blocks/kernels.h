// Positive-definite kernels, kernel matrices and their centring.
//
// One implementation used by every kernel method (kernel PCA, kernel LPP,
// kernel spectral regression, LGRM's global regression, kernel ridge
// regression). Rows are points.
#ifndef MANIFOLDOOS_KERNELS_H
#define MANIFOLDOOS_KERNELS_H

#include <armadillo>
#include <manifoldOOS/core/eigen.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <manifoldOOS/core/common.h>
#include <cstdint>
#include <cstring>

namespace manifoldOOS {

// ---- vectorised exp for kernel rows ----------------------------------------
// exp(x) in place for x in [-708, 0] (the caller clamps: Gaussian kernel
// arguments are <= 0 and exp(-708) ~ 3e-308), branch-free so that it
// vectorises: Cody-Waite reduction x = k ln 2 + r, |r| <= ln(2)/2, degree-13
// Taylor polynomial (truncation < 1e-17), 2^k from the exponent bits. Relative
// error <= 2.3e-16 against std::exp (tested). Every element is computed by
// the same operations whatever n is, so a row's result never depends on the
// batch.
namespace detail {
inline std::int64_t bits_of(double v) {
  std::int64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline double double_of(std::int64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
#define MO_EXP_CLAMPED_BODY                                                                    \
  const double log2e = 1.4426950408889634074, ln2hi = 6.93147180369123816490e-01;            \
  const double ln2lo = 1.90821492927058770002e-10, shifter = 6755399441055744.0;             \
  _Pragma("omp simd")                                                                        \
  for (std::size_t i = 0; i < n; ++i) {                                                      \
    const double v = x[i];                                                                   \
    double kd = v * log2e + shifter;                                                         \
    const std::int64_t kb = bits_of(kd);                                                     \
    kd -= shifter;                                                                           \
    const double r = (v - kd * ln2hi) - kd * ln2lo;                                          \
    double p = 1.0 / 6227020800.0;                                                           \
    p = p * r + 1.0 / 479001600.0;                                                           \
    p = p * r + 1.0 / 39916800.0;                                                            \
    p = p * r + 1.0 / 3628800.0;                                                             \
    p = p * r + 1.0 / 362880.0;                                                              \
    p = p * r + 1.0 / 40320.0;                                                               \
    p = p * r + 1.0 / 5040.0;                                                                \
    p = p * r + 1.0 / 720.0;                                                                 \
    p = p * r + 1.0 / 120.0;                                                                 \
    p = p * r + 1.0 / 24.0;                                                                  \
    p = p * r + 1.0 / 6.0;                                                                   \
    p = p * r + 0.5;                                                                         \
    p = p * r + 1.0;                                                                         \
    p = p * r + 1.0;                                                                         \
    x[i] = p * double_of((kb - 0x4338000000000000LL + 1023) << 52);                          \
  }
inline void exp_clamped_base(double* __restrict x, std::size_t n) { MO_EXP_CLAMPED_BODY }
#ifdef MO_HAVE_AVX2_KERNELS
__attribute__((target("avx2,fma"))) inline void exp_clamped_avx2(double* __restrict x, std::size_t n) {
  MO_EXP_CLAMPED_BODY
}
#endif
#undef MO_EXP_CLAMPED_BODY
}  // namespace detail

// exp(x) in place for x already in [-708, 0], vectorised (see above).
inline void exp_clamped_inplace(double* x, std::size_t n) {
#ifdef MO_HAVE_AVX2_KERNELS
  if (cpu_has_avx2_fma()) return detail::exp_clamped_avx2(x, n);
#endif
  detail::exp_clamped_base(x, n);
}

// exp(min(max(x, -708), 0)) in place, vectorised.
inline void exp_nonpositive_inplace(double* x, std::size_t n) {
  Eigen::Map<Eigen::ArrayXd> a(x, static_cast<Eigen::Index>(n));
  a = a.max(-708.0).min(0.0);
  exp_clamped_inplace(x, n);
}


enum class kernel_type { rbf, linear, polynomial };

// rbf:        exp(-||a - b||^2 / (2 sigma^2))
// linear:     <a, b>
// polynomial: (gamma <a, b> + coef0)^degree
struct kernel_spec {
  kernel_type type = kernel_type::rbf;
  double sigma = 1.0;
  double gamma = 1.0;
  double coef0 = 1.0;
  double degree = 2.0;
};

inline constexpr choice<kernel_type> kernel_type_names[] = {
    {"rbf", kernel_type::rbf}, {"linear", kernel_type::linear}, {"polynomial", kernel_type::polynomial}};
inline kernel_type parse_kernel_type(const std::string& s) {
  return parse_choice(s, kernel_type_names, "unknown kernel '" + s + "'");
}

// Squared Euclidean distances between the rows of A (m x p) and B (n x p),
// m x n, clamped at zero. Centres on B's column means first to limit
// cancellation.
inline arma::mat sq_dist_cross(const arma::mat& A, const arma::mat& B) {
  const arma::rowvec mu = arma::mean(B, 0);
  const arma::mat Ac = A.each_row() - mu;
  const arma::mat Bc = B.each_row() - mu;
  const arma::colvec na = arma::sum(arma::square(Ac), 1);
  const arma::rowvec nb = arma::sum(arma::square(Bc), 1).t();
  arma::mat D = -2.0 * (Ac * Bc.t());
  D.each_col() += na;
  D.each_row() += nb;
  D.transform([](double v) { return v < 0.0 ? 0.0 : v; });
  return D;
}

// Apply the kernel's scalar map in place to a matrix of squared distances
// (rbf) or inner products (linear, polynomial).
inline void kernel_transform(arma::mat& M, const kernel_spec& k) {
  switch (k.type) {
    case kernel_type::rbf: {
      const double c = -1.0 / (2.0 * k.sigma * k.sigma);
      M *= c;
      exp_nonpositive_inplace(M.memptr(), M.n_elem);
      break;
    }
    case kernel_type::linear:
      break;
    case kernel_type::polynomial: {
      const double g = k.gamma, c0 = k.coef0, deg = k.degree;
      M.transform([g, c0, deg](double ip) { return std::pow(g * ip + c0, deg); });
      break;
    }
  }
}

inline void check_kernel(const kernel_spec& k) {
  if (k.type == kernel_type::rbf && !(k.sigma > 0 && std::isfinite(k.sigma)))
    throw input_error("the rbf kernel needs a positive finite sigma");
  if (k.type == kernel_type::polynomial && !(k.degree >= 1))
    throw input_error("the polynomial kernel needs degree >= 1");
}

// Kernel between the rows of A (m x p) and the rows of B (n x p): m x n.
inline arma::mat kernel_cross(const arma::mat& A, const arma::mat& B, const kernel_spec& k) {
  check_kernel(k);
  if (A.n_cols != B.n_cols) throw input_error("kernel arguments have different numbers of columns");
  arma::mat M = (k.type == kernel_type::rbf) ? sq_dist_cross(A, B) : arma::mat(A * B.t());
  kernel_transform(M, k);
  return M;
}

// Training kernel matrix of the rows of X (n x n, exactly symmetric).
inline arma::mat kernel_train(const arma::mat& X, const kernel_spec& k) {
  arma::mat K = kernel_cross(X, X, k);
  K = 0.5 * (K + K.t());
  if (k.type == kernel_type::rbf) K.diag().ones();
  return K;
}

// Statistics of a training kernel needed to centre it and new kernel rows
// in feature space: K_c = H K H and, for a new row k(x),
// k_c(x)_i = k(x, x_i) - mean_j k(x, x_j) - colmean_i + grand_mean.
struct kernel_centering {
  arma::rowvec col_means;
  double grand_mean = 0.0;
};

inline kernel_centering kernel_center_stats(const arma::mat& K) {
  kernel_centering c;
  c.col_means = arma::mean(K, 0);
  c.grand_mean = arma::mean(c.col_means);
  return c;
}

// In-place double centring of a training kernel (uses the stored stats).
inline void kernel_center_train(arma::mat& K, const kernel_centering& c) {
  K.each_row() -= c.col_means;
  K.each_col() -= c.col_means.t();
  K += c.grand_mean;
}

// ---- kernel solve: Cholesky with jitter escalation ---------------------------
// The one building block for every kernel / RBF system of the package (RBF
// networks, kernel ridge regression, SOSI's interpolators): solves
//   (K + (ridge + eps) I) C = B
// with Eigen's LLT (much faster than the reference LAPACK this package may be
// linked against). eps = 0 first; when the factorisation fails, the solution
// is not finite or (residual_tol > 0) the solve is inaccurate,
// max |A C - B| > residual_tol * max |B| (an ill-conditioned K can factorise
// and still return garbage), eps starts at jitter0 and is multiplied by 10,
// for at most max_attempts attempts in all. Returns C and the eps used
// (the total diagonal shift is ridge + jitter).
struct kernel_solution {
  arma::mat C;
  double jitter = 0.0;
};

inline kernel_solution kernel_chol_solve(const arma::mat& K, const arma::mat& B, double ridge, double jitter0,
                                         double residual_tol = 0.0, int max_attempts = 31,
                                         const char* what = "the kernel matrix") {
  const arma::uword n = K.n_rows;
  if (K.n_cols != n || B.n_rows != n) throw input_error("kernel solve: dimensions do not match");
  if (!(jitter0 > 0)) jitter0 = 1e-10;
  Eigen::Map<const Eigen::MatrixXd> P(K.memptr(), n, n);
  Eigen::Map<const Eigen::MatrixXd> R(B.memptr(), n, B.n_cols);
  const double bn = (B.n_elem > 0) ? std::max(R.cwiseAbs().maxCoeff(), 1e-300) : 1.0;
  kernel_solution out;
  double eps = 0.0;
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    Eigen::MatrixXd A = P;
    A.diagonal().array() += ridge + eps;
    Eigen::LLT<Eigen::MatrixXd> llt(A);
    if (llt.info() == Eigen::Success) {
      Eigen::MatrixXd X = llt.solve(R);
      bool ok = X.allFinite();
      if (ok && residual_tol > 0 && B.n_elem > 0) ok = (A * X - R).cwiseAbs().maxCoeff() <= residual_tol * bn;
      if (ok) {
        out.C.set_size(n, B.n_cols);
        Eigen::Map<Eigen::MatrixXd>(out.C.memptr(), n, B.n_cols) = X;
        out.jitter = eps;
        return out;
      }
    }
    eps = (eps == 0.0) ? jitter0 : eps * 10.0;
  }
  throw convergence_error(std::string(what) + " could not be factorised even with a large jitter");
}

// In-place centring of new kernel rows (m x n) with the training stats.
inline void kernel_center_new(arma::mat& Knew, const kernel_centering& c) {
  const arma::colvec row_means = arma::mean(Knew, 1);
  Knew.each_row() -= c.col_means;
  Knew.each_col() -= row_means;
  Knew += c.grand_mean;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_KERNELS_H
