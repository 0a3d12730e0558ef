// R glue for the out-of-sample maps of any embedding: GOoSE, the regression
// maps (linear, RBF network, kernel ridge) and sparse coding. Grouped in one
// translation unit to keep the build short (see glue_blocks.cpp).
#include "glue.h"

#include <manifoldOOS/oos/goose.h>
#include <manifoldOOS/oos/oos_regression.h>
#include <manifoldOOS/oos/sparse_coding.h>

#include <string>

#include "glue_helpers.h"

// ----------------------------------------------------------------------------
// R glue for the generic out-of-sample maps: GOoSE, linearization, RBF
// network and kernel ridge regression.


// GOoSE for the rows of Q; idx/dist: kNN of Q among the rows of X (1-based).
// [[Rcpp::export(.mo_goose)]]
arma::mat mo_goose(const arma::mat& X, const arma::mat& Y, const arma::mat& Q,
                   const arma::imat& idx1, const arma::mat& dist, std::string scale,
                   std::string variant, bool snap, int n_threads) {
  MO_TRY {
    return manifoldOOS::goose(X, Y, Q, mo_index0(idx1, X.n_rows), dist,
                              manifoldOOS::parse_goose_scale(scale),
                              manifoldOOS::parse_goose_variant(variant), snap, n_threads);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_linear_fit)]]
Rcpp::List mo_linear_fit(const arma::mat& X, const arma::mat& Y, bool intercept, double ridge) {
  MO_TRY {
    manifoldOOS::linear_map m = manifoldOOS::linear_fit(X, Y, intercept, ridge);
    return Rcpp::List::create(Rcpp::Named("mu") = Rcpp::NumericVector(m.mu.begin(), m.mu.end()),
                              Rcpp::Named("ybar") = Rcpp::NumericVector(m.ybar.begin(), m.ybar.end()),
                              Rcpp::Named("A") = m.A, Rcpp::Named("rank") = int(m.rank));
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_linear_predict)]]
arma::mat mo_linear_predict(const arma::rowvec& mu, const arma::rowvec& ybar, const arma::mat& A,
                            const arma::mat& Q) {
  MO_TRY {
    manifoldOOS::linear_map m;
    m.mu = mu;
    m.ybar = ybar;
    m.A = A;
    if (Q.n_cols != A.n_rows) throw manifoldOOS::input_error("newdata has the wrong number of columns");
    return manifoldOOS::linear_predict(m, Q);
  }
  MO_CATCH
}

// RBF network coefficients (aperture s: phi = exp(-r^2 / s)).
// [[Rcpp::export(.mo_rbf_network_fit)]]
Rcpp::List mo_rbf_network_fit(const arma::mat& X, const arma::mat& Y, double s, double ridge) {
  MO_TRY {
    manifoldOOS::kernel_map m = manifoldOOS::rbf_network_fit(X, Y, s, ridge);
    return Rcpp::List::create(Rcpp::Named("C") = m.C, Rcpp::Named("shift") = m.shift);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_krr_fit)]]
Rcpp::List mo_krr_fit(const arma::mat& X, const arma::mat& Y, std::string type, double sigma,
                      double gamma, double coef0, double degree, double lambda,
                      bool feature_intercept) {
  MO_TRY {
    manifoldOOS::kernel_map m = manifoldOOS::krr_fit(
        X, Y, mo_kernel_spec(type, sigma, gamma, coef0, degree), lambda, feature_intercept);
    return Rcpp::List::create(Rcpp::Named("C") = m.C,
                              Rcpp::Named("ybar") = Rcpp::NumericVector(m.ybar.begin(), m.ybar.end()),
                              Rcpp::Named("shift") = m.shift);
  }
  MO_CATCH
}

// [[Rcpp::export(.mo_krr_gcv)]]
arma::vec mo_krr_gcv(const arma::mat& X, const arma::mat& Y, std::string type, double sigma,
                     double gamma, double coef0, double degree, const arma::vec& grid,
                     bool feature_intercept) {
  MO_TRY {
    return manifoldOOS::krr_gcv(X, Y, mo_kernel_spec(type, sigma, gamma, coef0, degree), grid,
                                feature_intercept);
  }
  MO_CATCH
}

// ybar + K(Q, X) C for a kernel map.
// [[Rcpp::export(.mo_kernel_map_predict)]]
arma::mat mo_kernel_map_predict(const arma::mat& X, const arma::mat& C, const arma::rowvec& ybar,
                                const arma::mat& Q, std::string type, double sigma, double gamma,
                                double coef0, double degree, int n_threads) {
  MO_TRY {
    if (Q.n_cols != X.n_cols) throw manifoldOOS::input_error("newdata has the wrong number of columns");
    manifoldOOS::kernel_map m;
    m.C = C;
    m.ybar = ybar;
    return manifoldOOS::kernel_map_predict(m, X, Q, mo_kernel_spec(type, sigma, gamma, coef0, degree),
                                           n_threads);
  }
  MO_CATCH
}

// ----------------------------------------------------------------------------
// R glue for exact l1 coding (basis pursuit with an error dictionary) and
// the sparse-coding out-of-sample map (eq. 9 with weights |a_i|).


namespace {
manifoldOOS::l1::solve_options make_options(const std::string& solver, int maxit, int width,
                                            int n_threads, int refresh = -1, bool check = false) {
  manifoldOOS::l1::solve_options o;
  o.solver = manifoldOOS::parse_choice<manifoldOOS::l1::solver_type>(
      solver,
      {{"homotopy", manifoldOOS::l1::solver_type::homotopy},
       {"admm", manifoldOOS::l1::solver_type::admm}},
      "unknown l1 solver '" + solver + "'");
  if (maxit > 0) o.admm.maxit = maxit;
  if (width > 0) o.width = arma::uword(width);
  o.n_threads = n_threads;
  o.refresh = refresh;
  o.check_screening = check;
  return o;
}
}  // namespace

// Codes of the rows of Q over [X^T E] (E empty: identity). Returns the dense
// codes a (m x N), e (m x De), duals (m x D) and per-row diagnostics.
// refresh and check: homotopy checkpoints (-1: default, 0: a full
// correlation pass every step) and the screening check (tests).
// [[Rcpp::export(.mo_l1_code)]]
Rcpp::List mo_l1_code(const arma::mat& X, const arma::mat& E, const arma::mat& Q,
                      std::string solver, int maxit, int width, int n_threads,
                      int refresh = -1, bool check = false) {
  MO_TRY {
    const arma::uword N = X.n_rows, D = X.n_cols, De = E.is_empty() ? D : E.n_cols;
    const arma::uword m = Q.n_rows;
    arma::mat A(m, N, arma::fill::zeros), Ee(m, De, arma::fill::zeros), Y(m, D, arma::fill::zeros);
    Rcpp::NumericVector obj(m), dmax(m), gap(m), res(m);
    Rcpp::IntegerVector steps(m), drops(m), passes(m), viol(m);
    Rcpp::NumericVector tracked(m);
    Rcpp::LogicalVector cert(m), fb(m);
    Rcpp::CharacterVector used(m);
    std::vector<int> used_i(m, 0);
    auto sink = [&](arma::uword i, manifoldOOS::l1::code_result& r) {
      for (std::size_t t = 0; t < r.support.size(); ++t) {
        const arma::uword j = r.support[t];
        if (j < N) A(i, j) = r.values[t]; else Ee(i, j - N) = r.values[t];
      }
      Y.row(i) = r.dual.t();
      obj[i] = r.objective;
      dmax[i] = r.dual_max;
      gap[i] = r.gap;
      res[i] = r.residual;
      steps[i] = r.steps;
      drops[i] = r.drops;
      passes[i] = r.passes;
      tracked[i] = r.steps > 0 ? r.tracked / r.steps : 0.0;
      viol[i] = r.screen_violations;
      cert[i] = r.certified;
      fb[i] = r.fallback;
      used_i[i] = r.solver;
    };
    manifoldOOS::l1::solve(X, E, Q, make_options(solver, maxit, width, n_threads, refresh, check),
                           sink);
    for (arma::uword i = 0; i < m; ++i) used[i] = used_i[i] == 0 ? "homotopy" : "admm";
    return Rcpp::List::create(
        Rcpp::Named("a") = A, Rcpp::Named("e") = Ee, Rcpp::Named("dual") = Y,
        Rcpp::Named("objective") = obj, Rcpp::Named("dual_max") = dmax, Rcpp::Named("gap") = gap,
        Rcpp::Named("residual") = res, Rcpp::Named("steps") = steps, Rcpp::Named("drops") = drops,
        Rcpp::Named("certified") = cert, Rcpp::Named("fallback") = fb, Rcpp::Named("solver") = used,
        Rcpp::Named("passes") = passes, Rcpp::Named("tracked") = tracked,
        Rcpp::Named("screen_violations") = viol);
  }
  MO_CATCH
}

// Sparse-coding out-of-sample map: y = sum_i |a_i| Yemb_i / sum_i |a_i|
// (eq. 9). Rows whose weights sum to < 1e-12 are flagged (`zero_weight`) and
// left as NA for the caller's nearest-neighbour fallback.
// [[Rcpp::export(.mo_sparse_oos)]]
Rcpp::List mo_sparse_oos(const arma::mat& X, const arma::mat& E, const arma::mat& Yemb,
                         const arma::mat& Q, std::string solver, int maxit, int width,
                         int n_threads) {
  MO_TRY {
    const arma::uword N = X.n_rows, m = Q.n_rows, L = Yemb.n_cols;
    if (Yemb.n_rows != N) throw manifoldOOS::input_error("the embedding must have one row per training sample");
    arma::mat out(m, L);
    Rcpp::LogicalVector zero(m), cert(m), fb(m);
    Rcpp::IntegerVector steps(m);
    Rcpp::NumericVector wsum(m);
    // eq. 9 reads whole training embeddings: with the transpose (L x N) each
    // is one contiguous column (same arithmetic, element by element, as
    // reading rows of Yemb, so results do not depend on m)
    const bool transposed = m >= 8;
    const arma::mat Yt = transposed ? arma::mat(Yemb.t()) : arma::mat();
    auto sink = [&](arma::uword i, manifoldOOS::l1::code_result& r) {
      double s = 0.0;
      arma::vec y(L, arma::fill::zeros);
      for (std::size_t t = 0; t < r.support.size(); ++t) {
        const arma::uword j = r.support[t];
        if (j >= N) continue;
        const double w = std::abs(r.values[t]);
        s += w;
        if (transposed) {
          const double* yj = Yt.colptr(j);
          for (arma::uword l = 0; l < L; ++l) y[l] += w * yj[l];
        } else {
          for (arma::uword l = 0; l < L; ++l) y[l] += w * Yemb(j, l);
        }
      }
      wsum[i] = s;
      if (s < 1e-12) {
        out.row(i).fill(arma::datum::nan);
        zero[i] = true;
      } else {
        out.row(i) = (y / s).t();
      }
      cert[i] = r.certified;
      fb[i] = r.fallback;
      steps[i] = r.steps;
    };
    manifoldOOS::l1::solve(X, E, Q, make_options(solver, maxit, width, n_threads), sink);
    return Rcpp::List::create(Rcpp::Named("y") = out, Rcpp::Named("zero_weight") = zero,
                              Rcpp::Named("weight_sum") = wsum, Rcpp::Named("certified") = cert,
                              Rcpp::Named("fallback") = fb, Rcpp::Named("steps") = steps);
  }
  MO_CATCH
}
