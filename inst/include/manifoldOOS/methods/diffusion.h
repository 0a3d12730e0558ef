// Diffusion maps (Coifman & Lafon 2006) on a sparse kernel: the eigen-solve of
// the kNN-kernel route, in compressed form from the kernel to the
// eigenvectors (no dense intermediate, no copy of the kernel beyond the one
// matrix the solver works on, which LOBPCG renumbers in place).
//
// K: symmetric kernel with a unit diagonal. With q = K 1, the alpha-normalised
// kernel K_a = Q^-alpha K Q^-alpha has row sums d, and the Markov matrix
// P = D^-1 K_a is similar to the symmetric A = D^-1/2 K_a D^-1/2, whose top
// eigenvalues are those of P. A's top pairs are the bottom pairs of the
// normalised Laplacian L = I - A of the graph K_a, whose null vector is
// sqrt(d): the same problem as Laplacian eigenmaps' symmetric variant, solved
// by the same deflated route (the trivial pair is never computed, so the next
// eigenvalues may lie arbitrarily close to it, as on graphs of 10^6 points).
// Below dense_max_n (method "auto") or with method "dense" the q + 1 bottom
// pairs of L are computed and the trivial one is returned first, as before.
#ifndef MANIFOLDOOS_DIFFUSION_H
#define MANIFOLDOOS_DIFFUSION_H

#include <armadillo>
#include <manifoldOOS/core/eigen_sparse.h>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_deflate.h>
#include <manifoldOOS/blocks/eigen_sparse.h>

namespace manifoldOOS {

struct diffusion_result {
  arma::vec values;   // q + 1 eigenvalues of P, descending; the trivial one (1) first
  arma::mat vectors;  // n x (q + 1) unit eigenvectors of A; the first is sqrt(d) / |sqrt(d)|
  arma::vec q;        // kernel row sums
  arma::vec d;        // row sums of the alpha-normalised kernel
  std::string method;
  double residual = -1.0;
  std::string note;
};

// Row sums of a symmetric compressed matrix (column sums of its storage).
inline arma::vec symmetric_row_sums(const sp_mat_e& K) {
  arma::vec s(K.cols(), arma::fill::zeros);
  for (long j = 0; j < K.outerSize(); ++j) {
    double acc = 0.0;
    for (sp_mat_e::InnerIterator it(K, j); it; ++it) acc += it.value();
    s(j) = acc;
  }
  return s;
}

// K = W + I for a compressed square W with ascending row indices in each
// column (the layout of a dgCMatrix), in one pass: 1 is added to a stored
// diagonal entry or a diagonal entry is inserted. The kNN kernel's route
// builds W without a diagonal and needs no intermediate copy of it.
inline sp_mat_e add_unit_diagonal(long n, const int* ptr, const int* idx, const double* val) {
  if (n < 1) throw input_error("the diffusion kernel must not be empty");
  std::vector<int> extra(static_cast<std::size_t>(n), 1);
  std::size_t total = 0;
  for (long j = 0; j < n; ++j) {
    for (int e = ptr[j]; e < ptr[j + 1]; ++e) {
      if (idx[e] < 0 || idx[e] >= n || (e > ptr[j] && idx[e] <= idx[e - 1])) {
        throw input_error("the diffusion kernel must have ascending row indices within each column");
      }
      if (idx[e] == j) extra[static_cast<std::size_t>(j)] = 0;
    }
    total += static_cast<std::size_t>(ptr[j + 1] - ptr[j] + extra[static_cast<std::size_t>(j)]);
  }
  if (total > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw input_error("the diffusion kernel has more than 2^31 - 1 entries");
  }
  sp_mat_e K(n, n);
  K.resizeNonZeros(static_cast<Eigen::Index>(total));
  int* op = K.outerIndexPtr();
  int* ip = K.innerIndexPtr();
  double* vp = K.valuePtr();
  int at = 0;
  for (long j = 0; j < n; ++j) {
    op[j] = at;
    bool placed = false;
    for (int e = ptr[j]; e < ptr[j + 1]; ++e) {
      const int i = idx[e];
      if (!placed && i >= j) {
        placed = true;
        if (i == j) {
          ip[at] = i;
          vp[at++] = val[e] + 1.0;
          continue;
        }
        ip[at] = static_cast<int>(j);
        vp[at++] = 1.0;
      }
      ip[at] = i;
      vp[at++] = val[e];
    }
    if (!placed) {
      ip[at] = static_cast<int>(j);
      vp[at++] = 1.0;
    }
  }
  op[n] = at;
  return K;
}

// K is taken by value and overwritten with L (pass a temporary or std::move:
// the kernel is then never copied).
inline diffusion_result diffusion_fit_sparse(sp_mat_e K, double alpha, int q,
                                             const eig_options& o) {
  const long n = K.rows();
  if (K.cols() != n) throw input_error("the diffusion kernel must be square");
  if (q < 1 || q + 2 > n) throw input_error("`ndim` must lie in [1, n - 2]");
  if (!(alpha >= 0 && alpha <= 1)) throw input_error("`alpha` must lie in [0, 1]");
  diffusion_result out;
  out.q = symmetric_row_sums(K);
  if (!(out.q.min() > 0)) throw input_error("the diffusion kernel has a row without weight");
  const arma::vec s = arma::pow(out.q, -alpha);
  // d = S K S 1
  out.d.zeros(n);
  for (long j = 0; j < n; ++j) {
    double acc = 0.0;
    for (sp_mat_e::InnerIterator it(K, j); it; ++it) acc += it.value() * s(it.row());
    out.d(j) = acc * s(j);
  }
  const arma::vec a = s / arma::sqrt(out.d);  // A_ij = K_ij a_i a_j
  // L = I - A on K's pattern, exactly symmetric when K is (a_i a_j commutes)
  K.makeCompressed();
  sp_mat_e& L = K;
  for (long j = 0; j < n; ++j) {
    bool diag = false;
    for (sp_mat_e::InnerIterator it(L, j); it; ++it) {
      const long i = it.row();
      const double v = -(it.value() * (a(i) * a(j)));
      if (i == j) {
        it.valueRef() = 1.0 + v;
        diag = true;
      } else {
        it.valueRef() = v;
      }
    }
    if (!diag) throw input_error("the diffusion kernel must have a stored diagonal");
  }
  const arma::vec u = arma::sqrt(out.d);
  const bool iterative = o.method == eig_method::iterative ||
                         (o.method == eig_method::automatic && n > o.dense_max_n);
  if (iterative) {
    // L is this function's own: the LOBPCG route renumbers it in place (held
    // once, not twice) and restores it before returning
    eigen_result res = eigs_sparse_bottom_deflated_in_place(L, u, q, o);
    const arma::vec uu = u / arma::norm(u);
    Eigen::Map<const Eigen::VectorXd> ue(uu.memptr(), n);
    out.values.set_size(q + 1);
    out.values(0) = 1.0 - ue.dot(L * ue);
    out.values.tail(q) = 1.0 - res.values;
    out.vectors.set_size(n, q + 1);
    out.vectors.col(0) = uu;
    out.vectors.cols(1, q) = res.vectors;
    out.method = res.method_used;
    out.residual = res.residual;
    out.note = res.note;
    return out;
  }
  eigen_result res = eigs_sym(sym_problem::sparse(L), eig_which::bottom, q + 1, o);
  out.values = 1.0 - res.values;
  out.vectors = res.vectors;
  out.method = res.method_used;
  out.residual = res.residual;
  out.note = res.note;
  return out;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_DIFFUSION_H
