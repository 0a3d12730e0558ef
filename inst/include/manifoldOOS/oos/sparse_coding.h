// Exact l1 coding over a dictionary with an error part (Raducanu & Dornaika,
// eq. 13; Wright et al.): for a query x (D-vector) solve basis pursuit
//
//     min ||a'||_1  subject to  B a' = x,    B = [X^T  E],
//
// where X (N x D) holds the training samples as rows and E (D x De) is the
// error basis (the identity by default). B has full row rank whenever E
// does, so the problem is feasible.
//
// Two solvers:
//  * homotopy (default): the Lasso path min 1/2 ||x - Ba||^2 + lam ||a||_1
//    followed from lam = ||B^T x||_inf down to 0 (Osborne, Presnell & Turlach
//    2000; Efron et al. 2004), with a Cholesky factor of B_A^T B_A kept by
//    rank-one updates (add) and Givens downdates (drop), and correlations
//    screened against a checkpoint pass (only the columns a bound cannot
//    exclude from entering are correlated; see homotopy_state). The end
//    point is a basis-pursuit solution; the last direction gives the dual
//    certificate.
//  * ADMM (Boyd et al. 2011, basis pursuit) on batches of queries, with a
//    support "polish" and dual certificate tried every 50 iterations.
// Every returned code carries its dual vector y and the certificate
// ||B^T y||_inf <= 1 + 1e-8, ||a'||_1 = x^T y (optimality of an LP).
#ifndef MANIFOLDOOS_SPARSE_CODING_H
#define MANIFOLDOOS_SPARSE_CODING_H

#include <armadillo>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/oos/l1_admm.h>
#include <manifoldOOS/oos/l1_dictionary.h>
#include <manifoldOOS/oos/l1_homotopy.h>

namespace manifoldOOS {
namespace l1 {

// ---- driver ------------------------------------------------------------------
enum class solver_type { homotopy, admm };

struct solve_options {
  solver_type solver = solver_type::homotopy;
  int max_steps = 0;        // homotopy; 0 = 50 * D + 100
  long refresh = -1;        // homotopy checkpoints (see homotopy_options)
  bool check_screening = false;
  admm_options admm;
  uword width = 8;          // homotopy queries advanced in lockstep
  int n_threads = 0;
  uword admm_chunk = 64;    // queries per ADMM batch
};

// Codes for the rows of Q (m x D). sink(i, result) is called once per row,
// possibly from several threads (for distinct i).
inline void solve(const arma::mat& X, const arma::mat& E, const arma::mat& Q,
                  const solve_options& opt,
                  const std::function<void(uword, code_result&)>& sink) {
  dictionary B(X, E);
  const uword D = B.D(), m = Q.n_rows;
  if (Q.n_cols != D) throw input_error("queries and dictionary have different numbers of features");
  if (!Q.is_finite()) throw input_error("queries contain non-finite values");
  if (m == 0) return;
  const int nt = resolve_threads(opt.n_threads);
  const arma::mat Qt = Q.t();
  std::vector<uword> need_admm;
  std::vector<char> fb(m, 0);

  // The homotopy works on [X^T I]. A square invertible error basis E is
  // brought to that form by x -> E^{-1} x (the same codes; the dual is
  // y = E^{-T} y', certified again against the original dictionary); any
  // other error basis goes to ADMM (flagged as a fallback).
  const dictionary* Bh = &B;
  const arma::mat* Qh = &Qt;
  std::unique_ptr<dictionary> Bh_own;
  arma::mat Xh, Qht, Einv;
  bool homotopy_ok = opt.solver == solver_type::homotopy;
  if (homotopy_ok && !B.identity()) {
    homotopy_ok = E.n_cols == D && arma::rcond(E) > 1e-10 && arma::inv(Einv, E);
    if (homotopy_ok) {
      Xh = X * Einv.t();
      Qht = Einv * Qt;
      Bh_own.reset(new dictionary(Xh));
      Bh = Bh_own.get();
      Qh = &Qht;
    }
  }
  auto hsink = [&](uword i, code_result& r) {
    if (Bh != &B) {
      r.dual = Einv.t() * r.dual;
      arma::vec gw;
      certify(B, Qt.colptr(i), r, gw);
    }
    sink(i, r);
  };

  if (homotopy_ok) {
    homotopy_options hopt;
    hopt.max_steps = opt.max_steps > 0 ? opt.max_steps : int(50 * D + 100);
    hopt.refresh = opt.refresh;
    hopt.check_screening = opt.check_screening;
    // (homotopy_lockstep polls at most every 20 ms)
    interrupt_flag flag(1);
    std::vector<std::vector<uword>> fails(nt);
    bool crashed = false;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
      int tid = 0;
#ifdef _OPENMP
      tid = omp_get_thread_num();
#endif
      std::vector<uword> mine;
      for (uword i = uword(tid); i < m; i += uword(nt)) mine.push_back(i);
      try {
        homotopy_lockstep(*Bh, *Qh, mine, opt.width, hopt, hsink, fails[tid], flag);
      } catch (...) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
        crashed = true;
      }
    }
    if (crashed) throw error("the homotopy solver failed (out of memory?)");
    flag.rethrow_if_stopped();
    for (auto& f : fails)
      for (uword i : f) { need_admm.push_back(i); fb[i] = 1; }
    std::sort(need_admm.begin(), need_admm.end());
  } else {
    need_admm.resize(m);
    for (uword i = 0; i < m; ++i) need_admm[i] = i;
    if (opt.solver == solver_type::homotopy) std::fill(fb.begin(), fb.end(), 1);
  }
  if (need_admm.empty()) return;

  const arma::mat Bfull = B.explicit_matrix();
  arma::mat G = Bfull * Bfull.t();
  arma::mat Gchol;
  if (!arma::chol(Gchol, G)) throw error("the dictionary does not have full row rank (Cholesky of B B^T failed)");
  const uword chunk = std::max<uword>(1, opt.admm_chunk);
  const uword nchunks = (need_admm.size() + chunk - 1) / chunk;
  interrupt_flag flag(1);
  auto wrapped = [&](uword i, code_result& r) {
    r.fallback = fb[i] != 0;
    sink(i, r);
  };
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
#endif
  for (long c = 0; c < long(nchunks); ++c) {
    if (flag.poll(c)) continue;
    const uword i0 = uword(c) * chunk, i1 = std::min<uword>(need_admm.size(), i0 + chunk);
    std::vector<uword> ids(need_admm.begin() + i0, need_admm.begin() + i1);
    admm_batch(B, Bfull, Gchol, Qt, ids, opt.admm, wrapped, &flag);
  }
  flag.rethrow_if_stopped();
}

}  // namespace l1
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_SPARSE_CODING_H
