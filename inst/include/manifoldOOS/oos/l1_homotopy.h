// The homotopy solver of exact l1 coding (oos/sparse_coding.h): the Lasso
// path followed down to lam = 0 (Osborne, Presnell & Turlach 2000; Efron et
// al. 2004) for several queries in lockstep, with safe screening of the
// correlations (see homotopy_state).
#ifndef MANIFOLDOOS_OOS_L1_HOMOTOPY_H
#define MANIFOLDOOS_OOS_L1_HOMOTOPY_H

#include <armadillo>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/updatable_cholesky.h>
#include <manifoldOOS/blocks/vector_kernels.h>
#include <manifoldOOS/oos/l1_dictionary.h>

namespace manifoldOOS {
namespace l1 {

// ---- homotopy ----------------------------------------------------------------
// One query's Lasso path over B = [X^T I], written as a state machine so
// that several queries can be advanced in lockstep.
//
// The active set is split into training columns A (x_j, j in A) and
// coordinates I (identity columns e_l). With F the coordinates not in I, the
// system (B_act^T B_act) [d_A; d_I] = [s_A; s_I] reduces to
//     S d_A = s_A - X_A sigma,   S = X_A[, F] X_A[, F]^T,   d_I = s_I - (X_A^T d_A)_I,
// (sigma = s_I on I, 0 elsewhere), and the direction v = B_act d is
// u = X_A^T d_A on F and s_I on I. Only the Cholesky factor of S
// (|A| x |A|, about a third of the active set at the end of the path on face
// data) is kept: a coordinate entering or leaving I is a rank-one downdate
// or update of S, a training column entering or leaving is an append or a
// Givens removal.
//
// Correlations with safe screening. A step needs, for every inactive
// training column j, its correlation c_j = x_j^T r with the residual
// r = x - B a and g_j = x_j^T v, to find the step length gamma at which the
// next column enters. Computing them for all N columns costs N D per step.
// Instead, at a "checkpoint" (a full pass over the dictionary, shared by the
// queries advanced in lockstep) c_j(T) = x_j^T r_T and h_j = x_j^T v_T are
// stored. Later, with G = the sum of the steps since T, w = v - v_T and
// p = r - r_T + G v_T (so that r = r_T - G v_T + p),
//     c_j - t g_j = c_j(T) - (G + t) h_j + x_j^T (p - t w),
// and with n = max_j ||x_j|| column j cannot reach |c_j - t g_j| = lam - t
// for any t in [0, gamma] when
//     |c_j(T) - G h_j| < lam - n ||p||   and
//     |c_j(T) - (G + gamma) h_j| < lam - gamma - n ||p - gamma w||
// (lam - t - |c_j - t g_j| is bounded below by a concave function of t,
// whose minimum over the interval is at an end point). p and w stay small
// while the active set changes little (the direction moves by an
// orthogonal increment as a column enters), so few columns fail the test:
// only those are "tracked" (c_j and g_j computed exactly and kept up to
// date, D flops per column and step). gamma is first taken over the tracked
// columns, the coordinates and the drops; newly tracked columns can only
// make it smaller, which keeps every test valid. When many columns are
// tracked, the next step starts with a new checkpoint. Every decision is
// the one a full pass would make (the tests check this along whole paths
// with `check_screening`, and against `refresh = 0`, a full pass every
// step).
struct homotopy_options {
  int max_steps = 0;       // 0 = 50 * D + 100
  long refresh = -1;       // new checkpoint when more tracked columns than
                           // this (-1 = max(16, sqrt(N)); 0 = a full pass
                           // every step)
  bool check_screening = false;  // recompute every screened column (tests)
};

class homotopy_state {
 public:
  explicit homotopy_state(const dictionary& B)
      : B_(B), c_(B.M()), a_(B.M()), gbuf_(B.M()), dA_(B.D() + 1), rhs_(B.D() + 1), v_(B.D()),
        u_(B.D()), sigma_(B.D()), xF_(B.D()), kbuf_(B.D() + 1), r_(B.D()), p_(B.D()),
        vT_(B.D()), w_(B.D()), uc_(B.N()), uh_(B.N()), mask_(B.M()), cc_(B.M()), cg_(B.M()), cm_(B.M()), cr_(B.M()),
        active_(B.M()), blocked_(B.M()), uidx_(B.N()), cidx_(B.M()), chol_(B.D()) {
    trk_.reserve(B.N());
    fpos_.resize(B.N());
    A_.reserve(B.D() + 1);
    sA_.reserve(B.D() + 1);
    I_.reserve(B.D() + 1);
    double m = 0.0;
    for (uword j = 0; j < B.N(); ++j) m = std::max(m, B.sqnorm(j));
    nmax_ = std::sqrt(m) * (1.0 + 1e-12);
  }

  // Start query `id` with vector x (D).
  void start(uword id, const double* x, const homotopy_options& opt) {
    id_ = id;
    x_ = x;
    max_steps_ = opt.max_steps > 0 ? opt.max_steps : int(50 * B_.D() + 100);
    // a pass costs 2 N D, a tracked column D per step, and the tracked set
    // grows roughly linearly between checkpoints: the best limit grows like
    // sqrt(N) (36 at N = 1241; 30-50 measured equally good there)
    refresh_ = opt.refresh < 0 ? std::max(16L, long(std::ceil(std::sqrt(double(B_.N())))))
                               : opt.refresh;
    check_ = opt.check_screening;
    out = code_result();
    out.dual.zeros(B_.D());
    A_.clear();
    sA_.clear();
    I_.clear();
    sigma_.zeros();
    chol_.clear();
    std::fill(active_.begin(), active_.end(), 0);
    std::fill(blocked_.begin(), blocked_.end(), 0);
    blocked_list_.clear();
    mask_.zeros();
    a_.zeros();
    last_dropped_ = -1;
    last_sign_ = 0.0;
    phase_ = 0;
    status = 0;
    need_pass_ = true;
    std::copy(x, x + B_.D(), r_.begin());
    v_.zeros();
  }

  uword id() const { return id_; }
  // The two D-vectors whose training correlations are needed before the
  // query can go on: the residual r and the direction v.
  const double* request_r() const { return r_.memptr(); }
  const double* request_v() const { return v_.memptr(); }

  // cN = X r, hN = X v for the vectors requested. Runs steps until the next
  // checkpoint is due or the path ends. Sets status to 1 (finished; `out`
  // holds the certified or uncertified code) or 2 (failed: the caller falls
  // back to ADMM).
  void receive(const double* cN, const double* hN) {
    const uword N = B_.N(), D = B_.D();
    ++out.passes;
    if (phase_ == 0) {
      std::copy(cN, cN + N, c_.begin());
      std::copy(x_, x_ + D, c_.memptr() + N);
      lam_ = 0.0;
      uword jmax = 0;
      for (uword j = 0; j < B_.M(); ++j) {
        if (std::abs(c_[j]) > lam_) { lam_ = std::abs(c_[j]); jmax = j; }
      }
      if (!(lam_ > 0)) {  // x = 0: a' = 0, y = 0 is optimal
        out.certified = true;
        status = 1;
        return;
      }
      lam0_ = lam_;
      if (!try_add(jmax, c_[jmax] > 0 ? 1.0 : -1.0)) { status = 2; return; }
      phase_ = 1;
      direction();
      need_pass_ = true;  // the first checkpoint needs X v as well
      return;
    }
    checkpoint(cN, hN);
    while (true) {
      const int ev = step();
      if (ev < 0) { status = 2; return; }
      if (ev == 0) {
        status = finish() ? 1 : 2;
        return;
      }
      if (out.steps >= max_steps_) { status = 2; return; }
      direction();
      if (need_pass_) return;
    }
  }

  code_result out;
  int status = 0;

 private:
  uword n_active() const { return A_.size() + I_.size(); }

  // New checkpoint at the current residual and direction (cN = X r,
  // hN = X v): every inactive training column goes to the untracked set U
  // with c_j(T), h_j; active ones are tracked.
  void checkpoint(const double* cN, const double* hN) {
    const uword N = B_.N();
    nU_ = 0;
    trk_.clear();
    for (uword j = 0; j < N; ++j) {
      if (active_[j]) {
        trk_.push_back(j);
      } else {
        c_[j] = cN[j];
        uidx_[nU_] = j;
        uc_[nU_] = cN[j];
        uh_[nU_] = hN[j];
        ++nU_;
      }
    }
    vT_ = v_;
    p_.zeros();
    Gsum_ = 0.0;
    fresh_ = true;
    need_pass_ = false;
  }

  // w_t = x_{A_t, l} (the coordinate l of the active training columns)
  void gather_coordinate(uword l) {
    const double* Xt = B_.Xt().memptr();
    const uword D = B_.D();
    for (uword t = 0; t < A_.size(); ++t) kbuf_[t] = Xt[A_[t] * D + l];
  }

  bool try_add(uword j, double s) {
    const uword N = B_.N(), D = B_.D();
    const double* Xt = B_.Xt().memptr();
    if (j < N) {
      // k_t = x_{A_t}[F] . x_j[F], kk = ||x_j[F]||^2
      const double* xj = Xt + j * D;
      for (uword l = 0; l < D; ++l) xF_[l] = sigma_[l] != 0.0 ? 0.0 : xj[l];
      const uword na = A_.size();
      uword t = 0;
      for (; t + 4 <= na; t += 4)
        simd::vdot4(Xt + A_[t] * D, Xt + A_[t + 1] * D, Xt + A_[t + 2] * D, Xt + A_[t + 3] * D,
              xF_.memptr(), D, kbuf_.memptr() + t);
      for (; t < na; ++t) kbuf_[t] = simd::vdot(Xt + A_[t] * D, xF_.memptr(), D);
      double kk;
      simd::dot_block<1, 1>(xF_.memptr(), xF_.memptr(), D, &kk, 1);
      if (!chol_.add(kbuf_.memptr(), kk, B_.sqnorm(j))) return false;
      A_.push_back(j);
      sA_.push_back(s);
      rhs_[na] = s - simd::vdot(xj, sigma_.memptr(), D);
    } else {
      const uword l = j - N;
      gather_coordinate(l);
      if (!chol_.downdate(kbuf_.memptr(), 1.0)) return false;
      for (uword t = 0; t < A_.size(); ++t) rhs_[t] -= kbuf_[t] * s;
      I_.push_back(l);
      sigma_[l] = s;
    }
    active_[j] = 1;
    mask_[j] = std::numeric_limits<double>::infinity();
    return true;
  }

  // Remove training column at position p of A, or coordinate at position p of I.
  void drop_training(uword p) {
    chol_.remove(p);
    A_.erase(A_.begin() + p);
    sA_.erase(sA_.begin() + p);
    for (uword t = p; t < A_.size(); ++t) rhs_[t] = rhs_[t + 1];
  }
  void drop_coordinate(uword p) {
    const uword l = I_[p];
    gather_coordinate(l);
    chol_.update(kbuf_.memptr());
    for (uword t = 0; t < A_.size(); ++t) rhs_[t] += kbuf_[t] * sigma_[l];
    sigma_[l] = 0.0;
    I_[p] = I_.back();
    I_.pop_back();
  }

  // d_A = S^{-1} (s_A - X_A sigma), u = X_A^T d_A, v = u on F and s_I on I.
  void direction() {
    const uword na = A_.size(), D = B_.D();
    if (out.steps % 64 == 63) {  // re-form the right-hand side (drift)
      const double* Xt = B_.Xt().memptr();
      for (uword t = 0; t < na; ++t) rhs_[t] = sA_[t] - simd::vdot(Xt + A_[t] * D, sigma_.memptr(), D);
    }
    std::copy(rhs_.memptr(), rhs_.memptr() + na, dA_.memptr());
    chol_.solve(dA_.memptr());
    B_.combine(A_, dA_.memptr(), u_.memptr());
    double* v = v_.memptr();
    std::copy(u_.memptr(), u_.memptr() + D, v);
    for (uword l : I_) v[l] = sigma_[l];
  }

  // Entry step of inactive column j (c_j, g_j in c_, gbuf_), with the rule
  // for the column dropped last (it may re-enter only with the other sign).
  double entry_step(uword j) const {
    const double c = c_[j], g = gbuf_[j];
    const double d1 = 1.0 - g, d2 = 1.0 + g;
    double best = std::numeric_limits<double>::infinity();
    const bool last = long(j) == last_dropped_;
    if (d1 > 0 && !(last && last_sign_ > 0)) best = std::max(lam_ - c, 0.0) / d1;
    if (d2 > 0 && !(last && last_sign_ < 0)) best = std::min(best, std::max(lam_ + c, 0.0) / d2);
    return best + mask_[j];
  }

  // Correlations g_j = x_j^T v of the training columns in idx[0 .. n-1]
  // (into gbuf_), and c_j = x_j^T r as well when with_c.
  void correlate_tracked(const uword* idx, uword n, bool with_c) {
    const uword D = B_.D();
    const double* Xt = B_.Xt().memptr();
    double o[4];
    uword t = 0;
    for (; t + 4 <= n; t += 4) {
      const double* p0 = Xt + idx[t] * D;
      const double* p1 = Xt + idx[t + 1] * D;
      const double* p2 = Xt + idx[t + 2] * D;
      const double* p3 = Xt + idx[t + 3] * D;
      simd::vdot4(p0, p1, p2, p3, v_.memptr(), D, o);
      for (int q = 0; q < 4; ++q) gbuf_[idx[t + q]] = o[q];
      if (with_c) {
        simd::vdot4(p0, p1, p2, p3, r_.memptr(), D, o);
        for (int q = 0; q < 4; ++q) c_[idx[t + q]] = o[q];
      }
    }
    for (; t < n; ++t) {
      const double* p = Xt + idx[t] * D;
      gbuf_[idx[t]] = simd::vdot(p, v_.memptr(), D);
      if (with_c) c_[idx[t]] = simd::vdot(p, r_.memptr(), D);
    }
  }

  // One homotopy step. Returns 0 when lam reached 0, 1 after an add or drop
  // event, -1 on failure.
  int step() {
    const uword N = B_.N(), D = B_.D();
    const double inf = std::numeric_limits<double>::infinity();
    ++out.steps;
    const uword nA = A_.size(), nI = I_.size();
    const bool can_add = nA + nI < D;
    // refresh = 0: a full pass every step, all columns tracked (the
    // reference the screening is tested against)
    const bool track_all = refresh_ == 0;
    if (track_all && !fresh_) correlate_all_c();
    // 1. the tracked inactive training columns and all coordinates
    uword nc = 0;
    for (uword j : trk_)
      if (!active_[j]) cidx_[nc++] = j;
    correlate_tracked(cidx_.memptr(), nc, false);
    std::copy(v_.memptr(), v_.memptr() + D, gbuf_.memptr() + N);
    for (uword l = 0; l < D; ++l) cidx_[nc++] = N + l;
    double gadd = inf;
    if (can_add) {
      for (uword k = 0; k < nc; ++k) {
        const uword j = cidx_[k];
        cc_[k] = c_[j];
        cg_[k] = gbuf_[j];
        cm_[k] = mask_[j];
      }
      gadd = simd::entry_ratios(cc_.memptr(), cg_.memptr(), cm_.memptr(), lam_, nc, cr_.memptr());
      if (last_dropped_ >= 0) {
        for (uword k = 0; k < nc; ++k) {
          if (long(cidx_[k]) != last_dropped_) continue;
          const double old = cr_[k];
          cr_[k] = entry_step(cidx_[k]);
          if (cr_[k] < gadd) {
            gadd = cr_[k];
          } else if (old == gadd && cr_[k] != old) {
            gadd = inf;
            for (uword kk = 0; kk < nc; ++kk) gadd = std::min(gadd, cr_[kk]);
          }
          break;
        }
      }
    }
    // 2. drops: training columns (direction dA), coordinates (d_l = s_l - u_l)
    double gdrop = inf;
    long pdrop = -1;
    bool drop_coord = false;
    for (uword t = 0; t < nA; ++t) {
      const double dt = dA_[t];
      if (dt == 0.0) continue;
      const double gam = -a_[A_[t]] / dt;
      if (gam > 0 && gam < gdrop) { gdrop = gam; pdrop = long(t); }
    }
    for (uword p = 0; p < nI; ++p) {
      const uword l = I_[p];
      const double dl = sigma_[l] - u_[l];
      if (dl == 0.0) continue;
      const double gam = -a_[N + l] / dl;
      if (gam > 0 && gam < gdrop) { gdrop = gam; pdrop = long(p); drop_coord = true; }
    }
    // 3. track the untracked columns that cannot be excluded: candidates
    // from the step found so far (an upper bound of the final one), taken
    // by decreasing key until the next key passes the test for the current
    // step (the rest then pass it too)
    double gam = std::min(std::min(gadd, gdrop), lam_);
    if ((can_add || track_all) && nU_ > 0) {
      double* w = w_.memptr();
      const double* v = v_.memptr();
      const double* vT = vT_.memptr();
      for (uword l = 0; l < D; ++l) w[l] = v[l] - vT[l];
      const double pp = simd::vdot(p_.memptr(), p_.memptr(), D);
      const double pw = simd::vdot(p_.memptr(), w, D);
      const double ww = simd::vdot(w, w, D);
      const double margin = 1e-9 * lam0_;
      const double t0 = gam;
      const double e2 = std::max(pp - 2.0 * t0 * pw + t0 * t0 * ww, 0.0);
      const double A0 = track_all ? -inf : lam_ - nmax_ * std::sqrt(pp) - margin;
      const double A1 = track_all ? -inf : lam_ - t0 - nmax_ * std::sqrt(e2) - margin;
      // one scan: every column failing the test for the current step is
      // tracked (a smaller final step only makes the test easier to pass)
      uword nnew = 0, fresh_idx[4];
      auto flush = [&]() {
        if (!fresh_) correlate_tracked(fresh_idx, nnew, true);
        for (uword t = 0; t < nnew; ++t) {
          const uword j = fresh_idx[t];
          trk_.push_back(j);
          cidx_[nc] = j;
          cr_[nc] = can_add ? entry_step(j) : inf;
          if (cr_[nc] < gadd) gadd = cr_[nc];
          ++nc;
        }
        nnew = 0;
      };
      const uword nf = simd::screen(uc_.memptr(), uh_.memptr(), nU_, Gsum_, A0, Gsum_ + t0, A1,
                              fpos_.data());
      // failing positions in decreasing order: each leaves U by a swap with
      // the last entry (which is not a later failure)
      uword keep = nU_;
      for (uword q = nf; q-- > 0;) {
        const uword k = fpos_[q];
        const uword j = uidx_[k];
        if (fresh_) {  // c and g from the checkpoint pass are exact
          c_[j] = uc_[k];
          gbuf_[j] = uh_[k];
        }
        fresh_idx[nnew++] = j;
        if (nnew == 4) flush();
        --keep;
        uidx_[k] = uidx_[keep];
        uc_[k] = uc_[keep];
        uh_[k] = uh_[keep];
      }
      flush();
      nU_ = keep;
      gam = std::min(std::min(gadd, gdrop), lam_);
    }
    out.tracked += double(nc - D);
    if (check_) check_screening(nc, gam);
    int event = 0;  // 0: reach lam = 0, 1: add, 2: drop
    gam = lam_;
    if (gadd < gam) { gam = gadd; event = 1; }
    if (gdrop < gam) { gam = gdrop; event = 2; }
    if (!std::isfinite(gam)) return -1;
    long jadd = -1;
    double sadd = 0.0;
    if (event == 1) {
      // the first minimiser (ties: the lower index, the + sign first)
      for (uword k = 0; k < nc; ++k)
        if (cr_[k] == gadd && (jadd < 0 || cidx_[k] < uword(jadd))) jadd = long(cidx_[k]);
      const uword j = uword(jadd);
      const double d1 = 1.0 - gbuf_[j];
      const bool plus_ok = d1 > 0 && !(long(j) == last_dropped_ && last_sign_ > 0);
      sadd = (plus_ok && std::max(lam_ - c_[j], 0.0) / d1 == gadd) ? 1.0 : -1.0;
    }
    // 4. move along the path
    for (uword t = 0; t < nA; ++t) a_[A_[t]] += gam * dA_[t];
    for (uword l : I_) a_[N + l] += gam * (sigma_[l] - u_[l]);
    for (uword k = 0; k < nc; ++k) {
      const uword j = cidx_[k];
      c_[j] -= gam * gbuf_[j];
    }
    simd::vaxpy(-gam, v_.memptr(), r_.memptr(), D);
    {  // p <- p - gam (v - v_T)
      double* pv = p_.memptr();
      const double* v = v_.memptr();
      const double* vT = vT_.memptr();
      for (uword l = 0; l < D; ++l) pv[l] -= gam * (v[l] - vT[l]);
    }
    Gsum_ += gam;
    fresh_ = false;
    lam_ -= gam;
    for (uword t = 0; t < nA; ++t) c_[A_[t]] = lam_ * sA_[t];
    for (uword l : I_) c_[N + l] = lam_ * sigma_[l];
    if (event == 0 || lam_ <= 1e-14 * lam0_) return 0;
    if (event == 2) {
      uword j;
      if (drop_coord) {
        j = N + I_[pdrop];
        last_sign_ = sigma_[I_[pdrop]];
        drop_coordinate(uword(pdrop));
      } else {
        j = A_[pdrop];
        last_sign_ = sA_[pdrop];
        drop_training(uword(pdrop));
      }
      a_[j] = 0.0;
      last_dropped_ = long(j);
      active_[j] = 0;
      // unblock every column
      for (uword i : blocked_list_) { blocked_[i] = 0; mask_[i] = 0.0; }
      blocked_list_.clear();
      mask_[j] = 0.0;
      ++out.drops;
    } else {
      last_dropped_ = -1;
      if (!try_add(uword(jadd), sadd)) {
        blocked_[jadd] = 1;
        blocked_list_.push_back(uword(jadd));
        mask_[jadd] = inf;
      }
    }
    // the next step starts with a checkpoint when tracking costs too much
    need_pass_ = refresh_ > 0 && long(nc - D) > refresh_;
    return 1;
  }

  // refresh = 0: exact correlations of every inactive column (a full pass
  // every step; the reference the screening is tested against)
  void correlate_all_c() {
    const uword N = B_.N(), D = B_.D();
    kwork_.set_size(2 * D);
    std::copy(r_.memptr(), r_.memptr() + D, kwork_.memptr());
    std::copy(v_.memptr(), v_.memptr() + D, kwork_.memptr() + D);
    gwork_.set_size(2 * N);
    B_.correlate_block(kwork_.memptr(), 2, gwork_.memptr(), N);
    checkpoint(gwork_.memptr(), gwork_.memptr() + N);
    ++out.passes;
  }

  // Tests: every untracked inactive training column must have an entry step
  // larger than gamma. Counts violations in out.screen_violations.
  void check_screening(uword nc, double gam) {
    const uword N = B_.N(), D = B_.D();
    if (n_active() >= D) return;
    std::vector<char> seen(N, 0);
    for (uword k = 0; k < nc; ++k)
      if (cidx_[k] < N) seen[cidx_[k]] = 1;
    const double* Xt = B_.Xt().memptr();
    for (uword j = 0; j < N; ++j) {
      if (seen[j] || active_[j] || blocked_[j]) continue;
      const double c = simd::vdot(Xt + j * D, r_.memptr(), D), g = simd::vdot(Xt + j * D, v_.memptr(), D);
      double best = std::numeric_limits<double>::infinity();
      if (1.0 - g > 0) best = std::max(lam_ - c, 0.0) / (1.0 - g);
      if (1.0 + g > 0) best = std::min(best, std::max(lam_ + c, 0.0) / (1.0 + g));
      if (!(best > gam)) ++out.screen_violations;
    }
  }

  // End point: least-squares solve of B_act a = x on the final active set
  // (exact for |A| + |I| = D) with two refinement steps: S a_A = X_A[, F]
  // x[F], a_I = (x - X_A^T a_A)_I. Dual y = the direction of the last
  // segment. Then certify.
  bool finish() {
    const uword N = B_.N(), D = B_.D();
    const uword na = A_.size();
    if (n_active() == 0) return false;
    const double* Xt = B_.Xt().memptr();
    arma::vec aa(na, arma::fill::zeros), rhs(na), r(D);
    std::copy(x_, x_ + D, r.memptr());
    for (int it = 0; it < 3; ++it) {  // r = residual on F
      for (uword l : I_) r[l] = 0.0;
      for (uword t = 0; t < na; ++t) rhs[t] = simd::vdot(Xt + A_[t] * D, r.memptr(), D);
      chol_.solve(rhs.memptr());
      aa += rhs;
      B_.combine(A_, aa.memptr(), u_.memptr());
      for (uword l = 0; l < D; ++l) r[l] = x_[l] - u_[l];
    }
    // r = x - X_A^T a_A: its I-part is a_I
    out.support.clear();
    out.values.clear();
    for (uword t = 0; t < na; ++t) {
      if (aa[t] == 0.0) continue;
      out.support.push_back(A_[t]);
      out.values.push_back(aa[t]);
    }
    std::vector<uword> Is(I_);
    std::sort(Is.begin(), Is.end());
    for (uword l : Is) {
      if (r[l] == 0.0) continue;
      out.support.push_back(N + l);
      out.values.push_back(r[l]);
    }
    direction();
    std::copy(v_.memptr(), v_.memptr() + D, out.dual.memptr());
    certify(B_, x_, out, gwork_);
    return out.certified;
  }

  const dictionary& B_;
  arma::vec c_, a_, gbuf_, dA_, rhs_, v_, u_, sigma_, xF_, kbuf_, r_, p_, vT_, w_, uc_, uh_;
  arma::vec gwork_, kwork_;
  arma::vec mask_;             // +inf for active or blocked columns
  arma::vec cc_, cg_, cm_, cr_;  // compact c, g, mask, entry steps of the candidates
  std::vector<char> active_, blocked_;
  std::vector<uword> uidx_;    // untracked columns U (c_j(T), h_j in uc_, uh_)
  std::vector<uword> trk_;     // tracked training columns (active ones included)
  std::vector<uword> fpos_;    // positions in U failing the screening test
  arma::uvec cidx_;            // candidate columns (compact order)
  std::vector<uword> blocked_list_;  // columns refused by the factor since the last drop
  std::vector<uword> A_, I_;   // active training columns (Cholesky order), coordinates
  std::vector<double> sA_;     // signs of the active training columns
  updatable_cholesky chol_;
  uword id_ = 0, nU_ = 0;
  const double* x_ = nullptr;
  int max_steps_ = 0, phase_ = 0;
  long refresh_ = 0;
  bool check_ = false, fresh_ = false, need_pass_ = false;
  double lam_ = 0.0, lam0_ = 0.0, last_sign_ = 0.0, nmax_ = 1.0, Gsum_ = 0.0;
  long last_dropped_ = -1;
};

// Run the homotopy for the queries `ids` (columns of Qt, D x m) with `width`
// of them in lockstep: each round computes the checkpoint correlations
// (X r and X v) of every live query in one pass over the dictionary. Finished queries go to
// sink(); failed ones to `failed`.
inline void homotopy_lockstep(const dictionary& B, const arma::mat& Qt,
                              const std::vector<uword>& ids, uword width,
                              const homotopy_options& hopt,
                              const std::function<void(uword, code_result&)>& sink,
                              std::vector<uword>& failed, interrupt_flag& flag) {
  const uword D = B.D(), N = B.N();
  width = std::max<uword>(1, width);
  std::vector<homotopy_state> slots;
  slots.reserve(width);
  std::vector<char> live(width, 0);
  uword next = 0;
  for (uword s = 0; s < width; ++s) {
    slots.emplace_back(B);
    if (next < ids.size()) {
      slots[s].start(ids[next], Qt.colptr(ids[next]), hopt);
      live[s] = 1;
      ++next;
    }
  }
  arma::mat V(D, 2 * width, arma::fill::zeros), G(N, 2 * width);
  std::vector<uword> col(width);
  // a round takes from well under a millisecond (one query) to tens of
  // them, and a poll from R (R_CheckUserInterrupt inside a top-level
  // context and an R-level tryCatch) tens of microseconds: poll when 20 ms
  // have passed since the last poll
  auto last_poll = std::chrono::steady_clock::now();
  while (true) {
    // live requests packed into the first columns
    uword nl = 0;
    for (uword s = 0; s < width; ++s) {
      if (!live[s]) continue;
      std::copy(slots[s].request_r(), slots[s].request_r() + D, V.colptr(2 * nl));
      std::copy(slots[s].request_v(), slots[s].request_v() + D, V.colptr(2 * nl + 1));
      col[s] = nl++;
    }
    if (nl == 0) break;
    if (flag.stopped()) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_poll >= std::chrono::milliseconds(20)) {
      last_poll = now;
      if (flag.poll(0)) return;
    }
    B.correlate_block(V.memptr(), 2 * nl, G.memptr(), N);
    for (uword s = 0; s < width; ++s) {
      if (!live[s]) continue;
      homotopy_state& st = slots[s];
      st.receive(G.colptr(2 * col[s]), G.colptr(2 * col[s] + 1));
      if (st.status == 0) continue;
      if (st.status == 1 && st.out.certified) {
        sink(st.id(), st.out);
      } else {
        failed.push_back(st.id());
      }
      live[s] = 0;
      if (next < ids.size()) {
        st.start(ids[next], Qt.colptr(ids[next]), hopt);
        live[s] = 1;
        ++next;
      }
    }
  }
}

}  // namespace l1
}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_OOS_L1_HOMOTOPY_H
