// Numeric supernodal Cholesky on CHOLMOD's symbolic analysis, with Eigen's
// dense kernels and threads over independent subtrees of the supernodal
// elimination tree (see glue_cholmod_super.h).
//
// Left-looking: supernode j gathers the columns of the permuted matrix,
// subtracts the update L_d L_d(rows of j)' of every earlier supernode d whose
// row pattern meets its columns, factorises its diagonal block (LLT) and
// solves for the rows below it. The updates of j are listed in a fixed order
// (ascending d), so the factor does not depend on the number of threads.
#include "glue_cholmod_super.h"

#include <manifoldOOS/core/eigen.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <new>
#include <thread>
#include <vector>

namespace mo_super_detail {

struct update_ref {
  int d;   // updating supernode
  int p1;  // its row indices s[p1, p2) are the columns of the target
  int p2;
};

using mat_map = Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
using cmat_map = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

class super_numeric {
 public:
  // the factor's pattern misses an entry of the matrix (never expected)
  struct structure_error : std::exception {};

  explicit super_numeric(cholmod_factor* L)
      : n_(static_cast<int>(L->n)),
        ns_(static_cast<int>(L->nsuper)),
        super_(static_cast<const int*>(L->super)),
        pi_(static_cast<const int*>(L->pi)),
        px_(static_cast<const int*>(L->px)),
        s_(static_cast<const int*>(L->s)),
        perm_(static_cast<const int*>(L->Perm)),
        x_(static_cast<double*>(L->x)) {}

  // false: the symbolic structure is not the expected one (the caller then
  // lets CHOLMOD factorise)
  bool prepare() {
    pinv_.assign(n_, -1);
    for (int k = 0; k < n_; ++k) {
      const int c = perm_[k];
      if (c < 0 || c >= n_ || pinv_[c] >= 0) return false;
      pinv_[c] = k;
    }
    smap_.assign(n_, -1);
    for (int j = 0; j < ns_; ++j) {
      const int k1 = super_[j], k2 = super_[j + 1];
      const int nscol = k2 - k1, nsrow = pi_[j + 1] - pi_[j];
      if (nscol < 1 || nsrow < nscol) return false;
      maxrow_ = std::max(maxrow_, nsrow);
      for (int k = k1; k < k2; ++k) smap_[k] = j;
      // the first nscol rows are the supernode's own columns; rows ascend
      for (int t = 0; t < nsrow; ++t) {
        const int r = s_[pi_[j] + t];
        if (t < nscol ? r != k1 + t : r <= s_[pi_[j] + t - 1]) return false;
        if (r >= n_) return false;
      }
    }
    // updates received by each supernode (CSR, ascending d)
    ustart_.assign(ns_ + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<int> fill(ustart_.begin(), ustart_.end() - 1);
      for (int d = 0; d < ns_; ++d) {
        const int nscol = super_[d + 1] - super_[d];
        int p = pi_[d] + nscol;
        const int pend = pi_[d + 1];
        while (p < pend) {
          const int j = smap_[s_[p]];
          const int p1 = p;
          while (p < pend && s_[p] < super_[j + 1]) ++p;
          if (pass == 0) {
            ++ustart_[j + 1];
          } else {
            upd_[fill[j]++] = update_ref{d, p1, p};
          }
        }
      }
      if (pass == 0) {
        for (int j = 0; j < ns_; ++j) ustart_[j + 1] += ustart_[j];
        upd_.resize(ustart_[ns_]);
      }
    }
    // supernodal elimination tree (a postorder: every subtree is a
    // contiguous range of supernodes ending at its root)
    parent_.assign(ns_, -1);
    first_.resize(ns_);
    work_.assign(ns_, 0.0);
    for (int j = 0; j < ns_; ++j) first_[j] = j;
    for (int j = 0; j < ns_; ++j) {
      const int nscol = super_[j + 1] - super_[j], nsrow = pi_[j + 1] - pi_[j];
      work_[j] += double(nscol) * nsrow * nsrow + double(nscol) * nscol * nscol;
      if (nsrow > nscol) {
        const int p = smap_[s_[pi_[j] + nscol]];
        if (p <= j) return false;
        parent_[j] = p;
        work_[p] += work_[j];
        first_[p] = std::min(first_[p], first_[j]);
      }
    }
    std::vector<int> count(ns_, 1);
    for (int j = 0; j < ns_; ++j) {
      if (parent_[j] >= 0) count[parent_[j]] += count[j];
    }
    for (int j = 0; j < ns_; ++j) {
      if (count[j] != j - first_[j] + 1) return false;
    }
    return true;
  }

  // 1: done; 0: not positive definite
  int run(const Eigen::SparseMatrix<double>& M, int threads) {
    M_ = &M;
    const int r = run_numeric(threads);
    M_ = nullptr;
    return r;
  }

  // x = (L L')^{-1} b in the original ordering (P' L L' P = M)
  void solve(const double* b, double* x) const {
    std::vector<double> y(n_), tmp(maxrow_);
    for (int k = 0; k < n_; ++k) y[k] = b[perm_[k]];
    if (bins_.empty()) {
      for (int j = 0; j < ns_; ++j) forward(j, y.data(), tmp);
      for (int j = ns_ - 1; j >= 0; --j) backward(j, y.data());
    } else {
      run_bins([&](int j, std::vector<double>& tmp) { forward(j, y.data(), tmp); }, true);
      for (int j : top_) forward(j, y.data(), tmp);
      for (auto it = top_.rbegin(); it != top_.rend(); ++it) backward(*it, y.data());
      run_bins([&](int j, std::vector<double>&) { backward(j, y.data()); }, false);
    }
    for (int k = 0; k < n_; ++k) x[perm_[k]] = y[k];
  }

 private:
  // forward substitution for supernode j: gathers the updates of its
  // descendants, then y_j = L11^{-1} y_j
  void forward(int j, double* y, std::vector<double>& tmp) const {
    const int k1 = super_[j], nscol = super_[j + 1] - k1;
    const int nsrow = pi_[j + 1] - pi_[j];
    for (int u = ustart_[j]; u < ustart_[j + 1]; ++u) {
      const update_ref& r = upd_[u];
      const int d = r.d, dk1 = super_[d];
      const int ndcol = super_[d + 1] - dk1;
      const int ld = pi_[d + 1] - pi_[d];
      const int nr1 = r.p2 - r.p1;
      // t = L_d(rows p1..p2) y_d, column by column (contiguous reads)
      const double* Ld = x_ + px_[d] + (r.p1 - pi_[d]);
      const double* yd = y + dk1;
      double* t = tmp.data();
      std::fill(t, t + nr1, 0.0);
      for (int c = 0; c < ndcol; ++c) {
        const double* col = Ld + std::size_t(c) * ld;
        const double yc = yd[c];
        for (int a = 0; a < nr1; ++a) t[a] += col[a] * yc;
      }
      for (int a = 0; a < nr1; ++a) y[s_[r.p1 + a]] -= t[a];
    }
    const cmat_map L11(x_ + px_[j], nscol, nscol, Eigen::OuterStride<>(nsrow));
    Eigen::Map<Eigen::VectorXd> yj(y + k1, nscol);
    L11.triangularView<Eigen::Lower>().solveInPlace(yj);
  }

  // backward substitution for supernode j: y_j = L11^{-T} (y_j - L21' y_below)
  void backward(int j, double* y) const {
    const int k1 = super_[j], nscol = super_[j + 1] - k1;
    const int psi = pi_[j], nsrow = pi_[j + 1] - psi;
    const double* Lj = x_ + px_[j];
    Eigen::Map<Eigen::VectorXd> yj(y + k1, nscol);
    for (int c = 0; c < nscol; ++c) {
      const double* col = Lj + std::size_t(c) * nsrow;
      double acc = 0.0;
      for (int t = nscol; t < nsrow; ++t) acc += col[t] * y[s_[psi + t]];
      yj(c) -= acc;
    }
    const cmat_map L11(Lj, nscol, nscol, Eigen::OuterStride<>(nsrow));
    L11.triangularView<Eigen::Lower>().transpose().solveInPlace(yj);
  }

  // f(j) over the subtrees of every bin, one thread per bin (ascending or
  // descending within each subtree)
  template <class F>
  void run_bins(F&& f, bool ascending) const {
    std::atomic<bool> failed{false};
    auto body = [&](int t) {
      try {
        std::vector<double> tmp(maxrow_);
        for (int r : bins_[t]) {
          if (ascending) {
            for (int j = first_[r]; j <= r; ++j) f(j, tmp);
          } else {
            for (int j = r; j >= first_[r]; --j) f(j, tmp);
          }
        }
      } catch (...) {  // only the scratch allocation can throw
        failed.store(true);
      }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < bins_.size(); ++t) pool.emplace_back(body, int(t));
    body(0);
    for (auto& th : pool) th.join();
    if (failed.load()) throw std::bad_alloc();
  }

  int run_numeric(int threads) {
    if (threads < 2 || ns_ < 64) {
      worker w(*this);
      for (int j = 0; j < ns_; ++j) {
        if (!w.factor(j)) return 0;
      }
      return 1;
    }
    // split the tree into subtrees for the threads (largest first, expanded
    // until the greedy assignment is balanced); the expanded roots run last
    std::vector<std::vector<int>> children(ns_);
    std::vector<int> roots;
    double total = 0.0;
    for (int j = 0; j < ns_; ++j) {
      if (parent_[j] >= 0) {
        children[parent_[j]].push_back(j);
      } else {
        roots.push_back(j);
        total += work_[j];
      }
    }
    std::vector<int>& top = top_;
    std::vector<std::vector<int>>& bins = bins_;
    top.clear();
    bins.assign(threads, std::vector<int>());
    for (int round = 0; round < 4096; ++round) {
      std::sort(roots.begin(), roots.end(), [&](int a, int b) { return work_[a] > work_[b]; });
      std::vector<double> load(threads, 0.0);
      for (auto& b : bins) b.clear();
      for (int r : roots) {
        const int t = int(std::min_element(load.begin(), load.end()) - load.begin());
        load[t] += work_[r];
        bins[t].push_back(r);
      }
      const double hi = *std::max_element(load.begin(), load.end());
      const double lo = *std::min_element(load.begin(), load.end());
      if (hi - lo <= 0.02 * total || roots.empty()) break;
      const int r = roots.front();
      if (children[r].empty()) break;
      roots.erase(roots.begin());
      top.push_back(r);
      for (int c : children[r]) roots.push_back(c);
    }
    for (auto& b : bins) std::sort(b.begin(), b.end());
    std::atomic<bool> failed{false}, notpd{false}, structure{false};
    auto body = [&](int t) {
      try {
        worker w(*this);
        for (int r : bins[t]) {
          for (int j = first_[r]; j <= r; ++j) {
            if (failed.load() || notpd.load() || structure.load()) return;
            if (!w.factor(j)) {
              notpd.store(true);
              return;
            }
          }
        }
      } catch (const structure_error&) {
        structure.store(true);
      } catch (...) {
        failed.store(true);
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
    body(0);
    for (auto& th : pool) th.join();
    if (structure.load()) throw structure_error();
    if (failed.load()) throw std::bad_alloc();
    if (notpd.load()) return 0;
    std::sort(top.begin(), top.end());
    worker w(*this);
    for (int j : top) {
      if (!w.factor(j)) return 0;
    }
    return 1;
  }

 private:
 private:
  // per-thread scratch
  class worker {
   public:
    explicit worker(const super_numeric& s) : S_(s), map_(s.n_, -1) {}

    bool factor(int j) {
      const int k1 = S_.super_[j], k2 = S_.super_[j + 1];
      const int nscol = k2 - k1;
      const int psi = S_.pi_[j], nsrow = S_.pi_[j + 1] - psi;
      double* Lj = S_.x_ + S_.px_[j];
      for (int t = 0; t < nsrow; ++t) map_[S_.s_[psi + t]] = t;
      std::fill(Lj, Lj + std::size_t(nsrow) * nscol, 0.0);
      // the lower part of columns k1..k2-1 of P M P'
      const int* Mp = S_.M_->outerIndexPtr();
      const int* Mi = S_.M_->innerIndexPtr();
      const double* Mx = S_.M_->valuePtr();
      for (int k = k1; k < k2; ++k) {
        const int c = S_.perm_[k];
        double* col = Lj + std::size_t(k - k1) * nsrow;
        for (int e = Mp[c]; e < Mp[c + 1]; ++e) {
          const int i = S_.pinv_[Mi[e]];
          if (i < k) continue;
          const int t = map_[i];
          if (t < 0 || t >= nsrow || S_.s_[psi + t] != i) return fail_structure();
          col[t] += Mx[e];
        }
      }
      // updates from the descendants
      for (int u = S_.ustart_[j]; u < S_.ustart_[j + 1]; ++u) {
        const update_ref& r = S_.upd_[u];
        const int d = r.d;
        const int ndcol = S_.super_[d + 1] - S_.super_[d];
        const int ld = S_.pi_[d + 1] - S_.pi_[d];
        const int off = r.p1 - S_.pi_[d];
        const int nr1 = r.p2 - r.p1;
        const int nr2 = S_.pi_[d + 1] - r.p1;
        const cmat_map Ld(S_.x_ + S_.px_[d] + off, nr2, ndcol, Eigen::OuterStride<>(ld));
        C_.resize(nr2, nr1);
        C_.noalias() = Ld * Ld.topRows(nr1).transpose();
        rel_.resize(nr2);
        for (int a = 0; a < nr2; ++a) rel_[a] = map_[S_.s_[r.p1 + a]];
        for (int b = 0; b < nr1; ++b) {
          double* dst = Lj + std::size_t(S_.s_[r.p1 + b] - k1) * nsrow;
          const double* src = C_.data() + std::size_t(b) * nr2;
          for (int a = b; a < nr2; ++a) dst[rel_[a]] -= src[a];
        }
      }
      mat_map Lf(Lj, nsrow, nscol, Eigen::OuterStride<>(nsrow));
      Eigen::Ref<Eigen::MatrixXd, 0, Eigen::OuterStride<>> L11 = Lf.topRows(nscol);
      for (int t = 0; t < nscol; ++t) {
        if (!(L11(t, t) > 0)) return false;
      }
      Eigen::LLT<Eigen::Ref<Eigen::MatrixXd, 0, Eigen::OuterStride<>>, Eigen::Lower> llt(L11);
      if (llt.info() != Eigen::Success) return false;
      for (int t = 0; t < nscol; ++t) {
        if (!(L11(t, t) > 0) || !std::isfinite(L11(t, t))) return false;
      }
      if (nsrow > nscol) {
        auto L21 = Lf.bottomRows(nsrow - nscol);
        L11.triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(L21);
      }
      return true;
    }

   private:
    bool fail_structure() { throw structure_error(); }

    const super_numeric& S_;
    std::vector<int> map_;
    std::vector<int> rel_;
    Eigen::MatrixXd C_;
  };

  const Eigen::SparseMatrix<double>* M_ = nullptr;  // during run() only
  int n_, ns_;
  const int *super_, *pi_, *px_, *s_, *perm_;
  double* x_;
  std::vector<int> pinv_, smap_, ustart_, parent_, first_;
  std::vector<update_ref> upd_;
  int maxrow_ = 1;                       // the longest row pattern of a supernode
  std::vector<int> top_;                 // supernodes run after the threads
  std::vector<std::vector<int>> bins_;   // subtree roots of each thread
  std::vector<double> work_;
};

}  // namespace mo_super_detail

mo_supernodal_factor::mo_supernodal_factor() = default;
mo_supernodal_factor::~mo_supernodal_factor() = default;

struct mo_supernodal_factor::impl : mo_super_detail::super_numeric {
  using mo_super_detail::super_numeric::super_numeric;
};

int mo_supernodal_factor::factorize(const Eigen::SparseMatrix<double>& M, cholmod_factor* L,
                                    int threads) {
  p_.reset();
  if (L == nullptr || !L->is_super || L->itype != CHOLMOD_INT || L->x == nullptr ||
      L->xtype != CHOLMOD_REAL || L->Perm == nullptr || M.rows() != static_cast<long>(L->n) ||
      !M.isCompressed()) {
    return -1;
  }
  std::unique_ptr<impl> S(new impl(L));
  if (!S->prepare()) return -1;
  int r;
  try {
    r = S->run(M, threads);
  } catch (const mo_super_detail::super_numeric::structure_error&) {
    return -1;
  }
  if (r == 1) p_ = std::move(S);
  return r;
}

void mo_supernodal_factor::solve(const double* b, double* x) const { p_->solve(b, x); }
