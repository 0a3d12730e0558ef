// A locality order of the rows of a point set: rows close in the order lie
// close in space, so that a structure built or searched row after row (the
// HNSW graph) touches memory it touched a moment before; and, for any point,
// a row near it in that order (an entry point for a graph search).
//
// The order is a Morton (Z-order) code of the rows' coordinates on the
// leading principal axes of the data:
//   1. the axes (at most 3) from a subspace iteration on at most 2,048 rows
//      spread evenly over the data, centred on their mean; they need not be
//      exact, only stable, so the iteration count is fixed and the start
//      vectors are fixed (no random state);
//   2. every row projected on them (project()); each coordinate replaced by
//      its rank among the rows' coordinates, quantised to 10 bits;
//   3. the bits interleaved (most significant first) and the rows sorted by
//      (code, row).
// The rank of a row's coordinate breaks ties by row; the code of any point
// (code(), for queries) uses the number of rows with a smaller coordinate.
// Deterministic for the same data. Constant data, or fewer than 3 rows,
// give the identity.
//
// R-free core.
#ifndef MANIFOLDOOS_LOCALITY_ORDER_H
#define MANIFOLDOOS_LOCALITY_ORDER_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace manifoldOOS {

class locality_coder {
 public:
  locality_coder() = default;

  // X: n x p, column-major. Fits the axes and the coordinates' ranks, and
  // returns the order (perm[t]: the row placed t-th).
  std::vector<std::uint32_t> fit(const double* X, std::size_t n, std::size_t p) {
    n_ = n;
    p_ = p;
    r_ = 0;
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    if (n < 3 || p < 1) return perm;
    axes(X, n, p);
    // every row's coordinates on the axes (the loop of project(), by column)
    std::vector<double> Z(n * r_, 0.0);
    for (std::size_t a = 0; a < r_; ++a) {
      double* z = &Z[a * n];
      const double* v = &V_[a * p];
      for (std::size_t j = 0; j < p; ++j) {
        if (v[j] == 0.0) continue;
        const double* col = X + j * n;
        for (std::size_t i = 0; i < n; ++i) z[i] += (col[i] - mu_[j]) * v[j];
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(z[i])) z[i] = 0.0;
      }
    }
    // ranks (ties by row) quantised to 10 bits, interleaved
    std::vector<std::uint32_t> code(n, 0u), byz(n);
    sorted_.assign(r_, std::vector<double>(n));
    for (std::size_t a = 0; a < r_; ++a) {
      const double* z = &Z[a * n];
      std::iota(byz.begin(), byz.end(), 0u);
      std::sort(byz.begin(), byz.end(), [z](std::uint32_t x, std::uint32_t y) {
        return z[x] < z[y] || (z[x] == z[y] && x < y);
      });
      for (std::size_t t = 0; t < n; ++t) {
        sorted_[a][t] = z[byz[t]];
        code[byz[t]] |= spread(quantise(t), a);
      }
    }
    std::sort(perm.begin(), perm.end(), [&code](std::uint32_t x, std::uint32_t y) {
      return code[x] < code[y] || (code[x] == code[y] && x < y);
    });
    codes_.resize(n);
    for (std::size_t t = 0; t < n; ++t) codes_[t] = code[perm[t]];
    return perm;
  }

  // The code of a point x (p values).
  std::uint32_t code(const double* x) const {
    std::uint32_t c = 0u;
    for (std::size_t a = 0; a < r_; ++a) {
      const double z = project(x, a);
      const std::size_t rank = static_cast<std::size_t>(
          std::lower_bound(sorted_[a].begin(), sorted_[a].end(), z) - sorted_[a].begin());
      c |= spread(quantise(std::min(rank, n_ - 1)), a);
    }
    return c;
  }

  // The position in the order of the first row whose code is at least c
  // (the last row when there is none).
  std::size_t locate(std::uint32_t c) const {
    if (codes_.empty()) return 0u;
    const std::size_t t = static_cast<std::size_t>(
        std::lower_bound(codes_.begin(), codes_.end(), c) - codes_.begin());
    return std::min(t, codes_.size() - 1);
  }

 private:
  // x's coordinate on axis a (the same operations as fit()'s loop)
  double project(const double* x, std::size_t a) const {
    const double* v = &V_[a * p_];
    double z = 0.0;
    for (std::size_t j = 0; j < p_; ++j) {
      if (v[j] == 0.0) continue;
      z += (x[j] - mu_[j]) * v[j];
    }
    return std::isfinite(z) ? z : 0.0;
  }

  std::uint32_t quantise(std::size_t rank) const {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(rank) * 1024u) / n_);
  }

  // bit b of q at bit 3 b + (2 - a) of the code
  static std::uint32_t spread(std::uint32_t q, std::size_t a) {
    std::uint32_t c = 0u;
    for (int b = 0; b < 10; ++b) c |= ((q >> b) & 1u) << (3 * b + (2 - static_cast<int>(a)));
    return c;
  }

  // The leading axes (r_ = min(3, p)) by subspace iteration on a centred
  // sample; V_ holds them (axis a at &V_[a * p]), mu_ the sample mean.
  void axes(const double* X, std::size_t n, std::size_t p) {
    r_ = std::min<std::size_t>(3, p);
    const std::size_t ns = std::min<std::size_t>(n, 2048);
    std::vector<double> S(ns * p);
    mu_.assign(p, 0.0);
    for (std::size_t j = 0; j < p; ++j) {
      const double* col = X + j * n;
      double* s = &S[j * ns];
      double sum = 0.0;
      for (std::size_t e = 0; e < ns; ++e) {
        s[e] = col[(e * n) / ns];
        sum += s[e];
      }
      mu_[j] = sum / static_cast<double>(ns);
      for (std::size_t e = 0; e < ns; ++e) s[e] -= mu_[j];
    }
    V_.assign(p * r_, 0.0);
    for (std::size_t a = 0; a < r_; ++a) {
      for (std::size_t j = 0; j < p; ++j) {
        V_[a * p + j] = 1.0 + 0.5 * std::sin(static_cast<double>((a + 1) * (j + 1)));
      }
    }
    orthonormalise();
    std::vector<double> T(ns);
    for (int it = 0; it < 12; ++it) {
      for (std::size_t a = 0; a < r_; ++a) {
        std::fill(T.begin(), T.end(), 0.0);
        for (std::size_t j = 0; j < p; ++j) {
          const double v = V_[a * p + j];
          const double* s = &S[j * ns];
          for (std::size_t e = 0; e < ns; ++e) T[e] += s[e] * v;
        }
        for (std::size_t j = 0; j < p; ++j) {
          const double* s = &S[j * ns];
          double d = 0.0;
          for (std::size_t e = 0; e < ns; ++e) d += s[e] * T[e];
          V_[a * p + j] = d;
        }
      }
      orthonormalise();
    }
  }

  void orthonormalise() {
    const std::size_t p = p_;
    for (std::size_t a = 0; a < r_; ++a) {
      double* v = &V_[a * p];
      for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t b = 0; b < a; ++b) {
          const double* w = &V_[b * p];
          double d = 0.0;
          for (std::size_t j = 0; j < p; ++j) d += v[j] * w[j];
          for (std::size_t j = 0; j < p; ++j) v[j] -= d * w[j];
        }
      }
      double nrm = 0.0;
      for (std::size_t j = 0; j < p; ++j) nrm += v[j] * v[j];
      nrm = std::sqrt(nrm);
      if (nrm > 0.0 && std::isfinite(nrm)) {
        for (std::size_t j = 0; j < p; ++j) v[j] /= nrm;
      } else {
        std::fill(v, v + p, 0.0);  // no variance left in this direction
      }
    }
  }

  std::size_t n_ = 0, p_ = 0, r_ = 0;
  std::vector<double> mu_, V_;
  std::vector<std::vector<double>> sorted_;  // per axis, the rows' coordinates sorted
  std::vector<std::uint32_t> codes_;         // the codes in the order
};

// The order alone (perm[t]: the row placed t-th).
inline std::vector<std::uint32_t> locality_order(const double* X, std::size_t n, std::size_t p) {
  locality_coder lc;
  return lc.fit(X, n, p);
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LOCALITY_ORDER_H
