// A locality order of the rows of a point set: rows close in the order lie
// close in space, so that a structure built or searched row after row (the
// HNSW graph) touches memory it touched a moment before.
//
// The order is a Morton (Z-order) code of the rows' coordinates on the
// leading principal axes of the data:
//   1. the axes (at most 3) from a subspace iteration on at most 2,048 rows
//      spread evenly over the data, centred on their mean; they need not be
//      exact, only stable, so the iteration count is fixed and the start
//      vectors are fixed (no random state);
//   2. every row projected on them; each coordinate replaced by its rank
//      (ties by row), quantised to 10 bits;
//   3. the bits interleaved (most significant first) and the rows sorted by
//      (code, row).
// Deterministic: the same data give the same order on every machine up to
// the rounding of the projection, which only moves rows between neighbouring
// cells. Constant data, or a single row, give the identity.
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

// X: n x p, column-major. Returns perm (n entries): perm[t] is the row placed
// t-th.
inline std::vector<std::uint32_t> locality_order(const double* X, std::size_t n, std::size_t p) {
  std::vector<std::uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  if (n < 3 || p < 1) return perm;
  const std::size_t r = std::min<std::size_t>(3, p);
  const std::size_t ns = std::min<std::size_t>(n, 2048);
  // the sample (ns x p, column-major), centred
  std::vector<double> S(ns * p), mu(p, 0.0);
  for (std::size_t j = 0; j < p; ++j) {
    const double* col = X + j * n;
    double* s = &S[j * ns];
    double sum = 0.0;
    for (std::size_t e = 0; e < ns; ++e) {
      s[e] = col[(e * n) / ns];
      sum += s[e];
    }
    mu[j] = sum / static_cast<double>(ns);
    for (std::size_t e = 0; e < ns; ++e) s[e] -= mu[j];
  }
  // subspace iteration V <- orth(S' S V), V p x r; fixed start vectors
  std::vector<double> V(p * r), T(ns * r);
  for (std::size_t a = 0; a < r; ++a) {
    for (std::size_t j = 0; j < p; ++j) {
      V[a * p + j] = 1.0 + 0.5 * std::sin(static_cast<double>((a + 1) * (j + 1)));
    }
  }
  auto orthonormalise = [&]() {
    for (std::size_t a = 0; a < r; ++a) {
      double* v = &V[a * p];
      for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t b = 0; b < a; ++b) {
          const double* w = &V[b * p];
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
  };
  orthonormalise();
  for (int it = 0; it < 12; ++it) {
    std::fill(T.begin(), T.end(), 0.0);
    for (std::size_t a = 0; a < r; ++a) {
      double* t = &T[a * ns];
      for (std::size_t j = 0; j < p; ++j) {
        const double v = V[a * p + j];
        const double* s = &S[j * ns];
        for (std::size_t e = 0; e < ns; ++e) t[e] += s[e] * v;
      }
      for (std::size_t j = 0; j < p; ++j) {
        const double* s = &S[j * ns];
        double d = 0.0;
        for (std::size_t e = 0; e < ns; ++e) d += s[e] * t[e];
        V[a * p + j] = d;
      }
    }
    orthonormalise();
  }
  // every row's coordinates on the axes
  std::vector<double> Z(n * r, 0.0);
  for (std::size_t a = 0; a < r; ++a) {
    double* z = &Z[a * n];
    for (std::size_t j = 0; j < p; ++j) {
      const double v = V[a * p + j];
      if (v == 0.0) continue;
      const double* col = X + j * n;
      const double m = mu[j];
      for (std::size_t i = 0; i < n; ++i) z[i] += (col[i] - m) * v;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(z[i])) z[i] = 0.0;
    }
  }
  // ranks quantised to 10 bits, interleaved
  std::vector<std::uint32_t> code(n, 0u), byz(n);
  std::vector<std::uint32_t> q(n);
  for (std::size_t a = 0; a < r; ++a) {
    const double* z = &Z[a * n];
    std::iota(byz.begin(), byz.end(), 0u);
    std::sort(byz.begin(), byz.end(), [z](std::uint32_t x, std::uint32_t y) {
      return z[x] < z[y] || (z[x] == z[y] && x < y);
    });
    for (std::size_t t = 0; t < n; ++t) {
      q[byz[t]] = static_cast<std::uint32_t>((static_cast<std::uint64_t>(t) * 1024u) / n);
    }
    // axis a takes bit position 3 b + (2 - a) of the code for bit b of q
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t c = 0u;
      for (int b = 0; b < 10; ++b) c |= ((q[i] >> b) & 1u) << (3 * b + (2 - static_cast<int>(a)));
      code[i] |= c;
    }
  }
  std::sort(perm.begin(), perm.end(), [&code](std::uint32_t x, std::uint32_t y) {
    return code[x] < code[y] || (code[x] == code[y] && x < y);
  });
  return perm;
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LOCALITY_ORDER_H
