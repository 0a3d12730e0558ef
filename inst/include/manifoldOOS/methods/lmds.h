// Out-of-sample maps of classical / landmark MDS (Torgerson 1952; Gower 1966, B.5, C.1, C.2).
// Armadillo only; shared by mds(), isomap() and landmark Isomap.
//
// A fitted (landmark) MDS keeps, for its m reference points (all training
// points, or the landmarks):
//   * mu     (m): column means of the squared distance matrix Delta^2 of the
//                 reference points, and g = mean(mu) (its grand mean);
//   * lsharp (m x q, stored transposed): column k is v_k / sqrt(l_k), the
//                 transposed pseudo-inverse of the reference coordinates;
//   * coords (m x q): the reference coordinates V Lambda^{1/2};
//   * values (q): the eigenvalues l_k of B = -1/2 H Delta^2 H.
// A new point a with squared distances s (length m) to the reference
// points is placed by
//   triangulation (de Silva & Tenenbaum): y = -1/2 L# (s - mu);
//   Nystrom (Bengio et al.): y_k = (1/l_k) sum_i Kt(a, i) coords(i, k),
//       Kt(a, i) = -1/2 (s_i - mu_i - mean(s) + g).
// Both are algebraically equal (sum_i v_ik = 0); each point is computed on
// its own (no batch statistics), in a fixed order, so a batch gives exactly
// the row-by-row result.
#ifndef MANIFOLDOOS_LMDS_H
#define MANIFOLDOOS_LMDS_H

#include <armadillo>
#include <string>

#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

enum class lmds_rule { triangulation, nystrom };

inline constexpr choice<lmds_rule> lmds_rule_names[] = {
    {"triangulation", lmds_rule::triangulation}, {"gower", lmds_rule::triangulation},
    {"nystrom", lmds_rule::nystrom}};
inline lmds_rule parse_lmds_rule(const std::string& s) {
  return parse_choice(s, lmds_rule_names, "unknown out-of-sample rule '" + s + "'");
}

struct lmds_map {
  arma::mat lsharp_t;  // m x q
  arma::mat coords;    // m x q
  arma::vec values;    // q
  arma::vec mu;        // m
  double grand_mean = 0.0;

  arma::uword m() const { return mu.n_elem; }
  arma::uword q() const { return values.n_elem; }

  void check() const {
    if (lsharp_t.n_rows != mu.n_elem || coords.n_rows != mu.n_elem ||
        lsharp_t.n_cols != values.n_elem || coords.n_cols != values.n_elem) {
      throw input_error("inconsistent MDS model dimensions");
    }
  }
};

// A map from its fields (copied; not checked).
inline lmds_map make_lmds_map(const arma::mat& lsharp_t, const arma::mat& coords,
                              const arma::vec& values, const arma::vec& mu, double grand_mean) {
  return lmds_map{lsharp_t, coords, values, mu, grand_mean};
}

// Place one point from its squared distances s[0..m-1] to the reference
// points; writes y[0..q-1] at stride `ldy`.
inline void lmds_place(const lmds_map& M, lmds_rule rule, const double* s, double* y,
                       arma::uword ldy) {
  const arma::uword m = M.m(), q = M.q();
  if (rule == lmds_rule::triangulation) {
    for (arma::uword k = 0; k < q; ++k) {
      const double* L = M.lsharp_t.colptr(k);
      double acc = 0.0;
      for (arma::uword i = 0; i < m; ++i) acc += L[i] * (s[i] - M.mu[i]);
      y[k * ldy] = -0.5 * acc;
    }
  } else {
    double r = 0.0;
    for (arma::uword i = 0; i < m; ++i) r += s[i];
    r /= double(m);
    const double shift = M.grand_mean - r;
    for (arma::uword k = 0; k < q; ++k) {
      const double* C = M.coords.colptr(k);
      double acc = 0.0;
      for (arma::uword i = 0; i < m; ++i) acc += -0.5 * (s[i] - M.mu[i] + shift) * C[i];
      y[k * ldy] = acc / M.values[k];
    }
  }
}

// Rows of S (c x m squared distances) placed into a c x q matrix. S is
// read column by column (contiguously); each row accumulates its terms in
// the same order as lmds_place(), so the result of a row does not depend on
// the other rows of the batch.
inline arma::mat lmds_place_rows(const lmds_map& M, lmds_rule rule, const arma::mat& S) {
  M.check();
  if (S.n_cols != M.m()) throw input_error("squared distances must have one column per reference point");
  const arma::uword c = S.n_rows, m = M.m(), q = M.q();
  arma::mat Y(c, q);
  if (c == 0) return Y;
  arma::vec acc(c), shift(c, arma::fill::zeros);
  if (rule == lmds_rule::nystrom) {
    arma::vec r(c, arma::fill::zeros);
    for (arma::uword i = 0; i < m; ++i) {
      const double* Si = S.colptr(i);
      for (arma::uword a = 0; a < c; ++a) r[a] += Si[a];
    }
    for (arma::uword a = 0; a < c; ++a) shift[a] = M.grand_mean - r[a] / double(m);
  }
  for (arma::uword k = 0; k < q; ++k) {
    acc.zeros();
    if (rule == lmds_rule::triangulation) {
      const double* L = M.lsharp_t.colptr(k);
      for (arma::uword i = 0; i < m; ++i) {
        const double* Si = S.colptr(i);
        const double li = L[i], mi = M.mu[i];
        for (arma::uword a = 0; a < c; ++a) acc[a] += li * (Si[a] - mi);
      }
      for (arma::uword a = 0; a < c; ++a) Y(a, k) = -0.5 * acc[a];
    } else {
      const double* C = M.coords.colptr(k);
      for (arma::uword i = 0; i < m; ++i) {
        const double* Si = S.colptr(i);
        const double ci = C[i], mi = M.mu[i];
        for (arma::uword a = 0; a < c; ++a) acc[a] += -0.5 * (Si[a] - mi + shift[a]) * ci;
      }
      for (arma::uword a = 0; a < c; ++a) Y(a, k) = acc[a] / M.values[k];
    }
  }
  return Y;
}

// Columns of D (m x c *distances*, column a = distances of point a to the
// reference points) squared and placed: c x q.
inline arma::mat lmds_place_columns(const lmds_map& M, lmds_rule rule, const arma::mat& D,
                                    int n_threads) {
  M.check();
  if (D.n_rows != M.m()) throw input_error("distances must have one row per reference point");
  const arma::uword c = D.n_cols, m = M.m();
  arma::mat Y(c, M.q());
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
  {
    arma::vec s(m);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (long a = 0; a < static_cast<long>(c); ++a) {
      const double* col = D.colptr(a);
      for (arma::uword i = 0; i < m; ++i) s[i] = col[i] * col[i];
      lmds_place(M, rule, s.memptr(), Y.memptr() + a, c);
    }
  }
  return Y;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LMDS_H
