// Dense symmetric eigen-solvers (Armadillo / LAPACK): implementation of
// <manifoldOOS/blocks/eigen_dense.h>.
#include <manifoldOOS/blocks/eigen_dense.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include <manifoldOOS/blocks/linalg.h>

namespace manifoldOOS {

namespace detail {

void check_square_finite(const arma::mat& A, const char* name) {
  if (A.n_rows != A.n_cols) {
    throw input_error(std::string(name) + " must be a square matrix");
  }
  if (A.n_rows == 0) throw input_error(std::string(name) + " must not be empty");
  if (!A.is_finite()) throw input_error(std::string(name) + " must contain only finite values");
}

// Relative asymmetry max|A - A'| / max|A| (0 for the zero matrix).
inline double asymmetry(const arma::mat& A) {
  const arma::uword n = A.n_rows;
  double amax = 0.0, dmax = 0.0;
  for (arma::uword j = 0; j < n; ++j) {
    for (arma::uword i = 0; i < n; ++i) {
      const double a = A(i, j);
      amax = std::max(amax, std::abs(a));
      if (i > j) dmax = std::max(dmax, std::abs(a - A(j, i)));
    }
  }
  return amax > 0 ? dmax / amax : 0.0;
}

void check_symmetric(const arma::mat& A, const char* name, double tol) {
  const double asym = asymmetry(A);
  if (asym > tol) {
    std::ostringstream os;
    os << name << " must be symmetric (relative asymmetry " << asym << ")";
    throw input_error(os.str());
  }
}

inline void check_m(arma::uword m, arma::uword n) {
  if (m < 1 || m > n) {
    std::ostringstream os;
    os << "the number of eigenpairs must lie in [1, " << n << "]; got " << m;
    throw input_error(os.str());
  }
}

// Number of eigenpairs wanted of an n x n problem (all n for which = all),
// checked.
inline arma::uword pairs_wanted(eig_which which, arma::uword m, arma::uword n) {
  if (which == eig_which::all) m = n;
  check_m(m, n);
  return m;
}

// Full symmetric eigendecomposition (ascending): divide-and-conquer first,
// then the standard QR algorithm. Only the lower/upper triangle is read.
void eig_sym_full(const arma::mat& A, arma::vec& val, arma::mat& vec,
                         std::string& how) {
  bool ok = arma::eig_sym(val, vec, A, "dc");
  how = "dense_dc";
  if (!ok) {
    ok = arma::eig_sym(val, vec, A, "std");
    how = "dense_std";
  }
  if (!ok) {
    throw convergence_error("the dense symmetric eigendecomposition (LAPACK) failed");
  }
}

// Select the wanted pairs from an ascending full decomposition.
inline void select_pairs(const arma::vec& val, const arma::mat& vec, eig_which which,
                         arma::uword m, eigen_result& res) {
  const arma::uword n = val.n_elem;
  if (which == eig_which::all) {
    res.values = val;
    res.vectors = vec;
  } else if (which == eig_which::bottom) {
    res.values = val.head(m);
    res.vectors = vec.cols(0, m - 1);
  } else {
    res.values.set_size(m);
    res.vectors.set_size(vec.n_rows, m);
    for (arma::uword j = 0; j < m; ++j) {
      res.values(j) = val(n - 1 - j);
      res.vectors.col(j) = vec.col(n - 1 - j);
    }
  }
  fix_signs(res.vectors);
}

}  // namespace detail

// Sort pairs (ascending or descending) and apply the sign convention. Used
// after iterative solvers: never trust a solver's output order.
void sort_and_fix(eigen_result& res, bool descending) {
  const arma::uvec ord = arma::stable_sort_index(res.values, descending ? "descend" : "ascend");
  res.values = res.values.elem(ord);
  res.vectors = res.vectors.cols(ord);
  fix_signs(res.vectors);
}

// All (which = all; m ignored), bottom m or top m eigenpairs of a dense
// symmetric matrix.
eigen_result eig_dense(const arma::mat& A, eig_which which, arma::uword m) {
  detail::check_square_finite(A, "the matrix");
  detail::check_symmetric(A, "the matrix");
  const arma::uword n = A.n_rows;
  m = detail::pairs_wanted(which, m, n);
  arma::vec val;
  arma::mat vec;
  eigen_result res;
  detail::eig_sym_full(A, val, vec, res.method_used);
  detail::select_pairs(val, vec, which, m, res);
  return res;
}

// ---- generalised symmetric-definite problem --------------------------------

namespace detail {

// Cholesky B = R'R (R upper) accepted only when it succeeds and no squared
// pivot is below 1e-12 times the largest diagonal entry of B.
inline bool chol_ok(arma::mat& R, const arma::mat& B) {
  if (!arma::chol(R, B, "upper")) return false;
  const double bmax = arma::max(arma::abs(B.diag()));
  const arma::vec piv = arma::square(R.diag());
  return bmax > 0 && piv.min() > 1e-12 * bmax;
}

}  // namespace detail

// A v = lambda B v with A symmetric and B symmetric positive definite.
// ridge > 0 : solve with B + ridge * I.
// ridge == 0: no ridge; a B that is not numerically SPD is an input error.
// ridge < 0 : automatic; B is used as is when its Cholesky factor is sound,
//             otherwise delta = 1e-8 * tr(B)/p is added and multiplied by 10
//             until it is (at most 1e-2 * tr(B)/p). The ridge used is reported
//             in result.ridge. "Sound" = every squared pivot of R exceeds
//             1e-12 * max diag(B); the first rung keeps cond(B + delta I)
//             below ~1e8, so B-orthonormality holds to ~1e-8.
// Eigenvectors are B-orthonormal (V' (B + ridge I) V = I).
eigen_result geig_dense(const arma::mat& A, const arma::mat& B, eig_which which,
                               arma::uword m, double ridge) {
  detail::check_square_finite(A, "A");
  detail::check_square_finite(B, "B");
  if (A.n_rows != B.n_rows) throw input_error("A and B must have the same dimensions");
  detail::check_symmetric(A, "A");
  detail::check_symmetric(B, "B");
  const arma::uword p = A.n_rows;
  m = detail::pairs_wanted(which, m, p);

  arma::mat R;
  double used = 0.0;
  const double scale = arma::trace(B) / double(p);
  if (ridge > 0) {
    used = ridge;
    arma::mat Br = B;
    Br.diag() += ridge;
    if (!detail::chol_ok(R, Br)) {
      throw input_error("`B` + `ridge` * I is not numerically positive definite; increase `ridge`");
    }
  } else if (detail::chol_ok(R, B)) {
    used = 0.0;
  } else if (ridge == 0) {
    throw input_error("`B` is not numerically positive definite (use a ridge)");
  } else {
    if (!(scale > 0)) throw input_error("`B` is not positive definite (its trace is not positive)");
    bool ok = false;
    for (double delta = 1e-8 * scale; delta <= 1e-2 * scale * (1 + 1e-12); delta *= 10) {
      arma::mat Br = B;
      Br.diag() += delta;
      if (detail::chol_ok(R, Br)) {
        used = delta;
        ok = true;
        break;
      }
    }
    if (!ok) {
      throw input_error("`B` is not positive definite, even after a ridge of 1e-2 * tr(B)/p");
    }
  }

  // C = R^{-T} A R^{-1}, formed by two triangular solves (A symmetric).
  const arma::mat Rt = R.t();
  arma::mat X = arma::solve(arma::trimatl(Rt), A);        // R^{-T} A
  arma::mat C = arma::solve(arma::trimatl(Rt), X.t());    // R^{-T} (R^{-T} A)^T = R^{-T} A R^{-1}
  C = 0.5 * (C + C.t());

  arma::vec val;
  arma::mat U;
  eigen_result res;
  std::string how;
  detail::eig_sym_full(C, val, U, how);
  eigen_result sel;
  detail::select_pairs(val, U, which, m, sel);
  res.values = sel.values;
  res.vectors = arma::solve(arma::trimatu(R), sel.vectors);  // v = R^{-1} u
  fix_signs(res.vectors);
  res.method_used = "dense_cholesky_" + how;
  res.ridge = used;
  if (used > 0) {
    std::ostringstream os;
    os << "ridge " << used << " added to B";
    res.note = os.str();
  }
  return res;
}

// ---- trivial eigenvector (the package eigen conventions) -----------------------------------------

// `res` holds the bottom q + 1 pairs in ascending order of a Laplacian-type
// problem whose known null vector is `null_vec` (1 for L, M_LLE, B_LTSA;
// D^{1/2} 1 for L_sym). `scale` is trace/n of the matrix (of the reduced
// matrix for generalised problems). With tol_null = tol_rel * scale:
//   * second smallest eigenvalue < tol_null -> input_error (disconnected graph
//     or degenerate problem);
//   * smallest eigenvalue < tol_null and |cos(v_1, null_vec)| > 1 - cos_tol
//     -> the first pair is dropped;
//   * otherwise -> error (the expected trivial pair is not where it should be).
// The returned result has q pairs; `dropped_value` receives the dropped
// eigenvalue.
eigen_result drop_trivial(const eigen_result& res, const arma::vec& null_vec,
                                 double scale, double* dropped_value,
                                 double tol_rel, double cos_tol) {
  const arma::uword k = res.values.n_elem;
  if (k < 2) throw input_error("dropping the trivial eigenvector needs at least two eigenpairs");
  if (res.vectors.n_cols != k || null_vec.n_elem != res.vectors.n_rows) {
    throw input_error("the null vector and the eigenvectors have incompatible dimensions");
  }
  if (!(scale > 0)) throw input_error("the trace scale must be positive");
  for (arma::uword j = 1; j < k; ++j) {
    if (res.values(j) < res.values(j - 1)) {
      throw input_error("eigenvalues must be sorted in ascending order");
    }
  }
  const double tol_null = tol_rel * scale;
  if (res.values(1) < tol_null) {
    std::ostringstream os;
    os << "graph disconnected or degenerate problem: at least two eigenvalues ("
       << res.values(0) << ", " << res.values(1) << ") are below the null tolerance "
       << tol_null;
    throw input_error(os.str());
  }
  const double nv = arma::norm(null_vec), vv = arma::norm(res.vectors.col(0));
  if (!(nv > 0) || !(vv > 0)) throw input_error("the null vector must be non-zero");
  const double cosang = std::abs(arma::dot(null_vec, res.vectors.col(0))) / (nv * vv);
  if (!(res.values(0) < tol_null) || !(cosang > 1.0 - cos_tol)) {
    std::ostringstream os;
    os << "the smallest eigenpair is not the expected trivial one (eigenvalue "
       << res.values(0) << ", null tolerance " << tol_null << ", |cos| with the null vector "
       << cosang << ")";
    throw error(os.str());
  }
  eigen_result out = res;
  out.values = res.values.tail(k - 1);
  out.vectors = res.vectors.cols(1, k - 1);
  if (dropped_value) *dropped_value = res.values(0);
  return out;
}


// Checks that the q leading eigenvalues (descending `values`) are positive
// and above 1e-12 |l_1| -- the rank test of every spectral embedding scaled
// by sqrt(l) -- and throws input_error otherwise: "`ndim` = q is too large:
// only r of the leading eigenvalues of <what> are positive ...<extra>.
// <advice>".
void require_positive_leading(const arma::vec& values, arma::uword q,
                                     const std::string& what, const std::string& extra,
                                     const std::string& advice) {
  const double l1 = values(0);
  arma::uword npos = 0;
  for (arma::uword k = 0; k < q; ++k) {
    if (values(k) > 0 && values(k) > 1e-12 * std::abs(l1)) ++npos;
  }
  if (npos == q) return;
  std::ostringstream os;
  os << "`ndim` = " << q << " is too large: only " << npos << " of the leading eigenvalues of "
     << what << " are positive and above 1e-12 times the largest (values";
  for (arma::uword k = 0; k < q; ++k) os << " " << values(k);
  os << ")" << extra << ". " << advice;
  throw input_error(os.str());
}

// V diag(l)^{1/2} and V diag(l)^{-1/2} for positive eigenvalues l.
void scale_by_sqrt(const arma::mat& V, const arma::vec& l, arma::mat& times,
                          arma::mat& over) {
  const arma::vec sq = arma::sqrt(l);
  times = V.each_row() % sq.t();
  over = V.each_row() / sq.t();
}

}  // namespace manifoldOOS
