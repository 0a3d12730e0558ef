// Isomap out-of-sample kernel (triangulation rule); see methods/isomap_project.h.
#include <manifoldOOS/methods/isomap_project.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#ifdef MO_HAVE_AVX2_KERNELS
#include <immintrin.h>
#endif

namespace manifoldOOS {

namespace {

struct tri_problem {
  const double* D;
  long m;
  const int* idx;
  const double* dist;
  long c;
  int k;
  const double* L;  // m x q
  const double* mu;
  int q;
  double* Y;  // c x q
};

// One row, in the order of geodesic_row_sq() + lmds_place(): the whole
// geodesic row (min-plus), squared, then one sum per output column.
void row_portable(const tri_problem& P, long a, std::vector<double>& s) {
  const long m = P.m;
  std::fill(s.begin(), s.end(), std::numeric_limits<double>::infinity());
  for (int r = 0; r < P.k; ++r) {
    const double d = P.dist[a + r * P.c];
    const double* col = P.D + static_cast<long>(P.idx[a + r * P.c]) * m;
    for (long l = 0; l < m; ++l) s[l] = (d + col[l] < s[l]) ? d + col[l] : s[l];
  }
  for (long l = 0; l < m; ++l) s[l] *= s[l];
  for (int j = 0; j < P.q; ++j) {
    const double* Lj = P.L + j * m;
    double acc = 0.0;
    for (long l = 0; l < m; ++l) acc += Lj[l] * (s[l] - P.mu[l]);
    P.Y[a + j * P.c] = -0.5 * acc;
  }
}

#ifdef MO_HAVE_AVX2_KERNELS

constexpr int grp = 8;     // rows per group: two vectors of four lanes
constexpr long blk = 128;  // landmarks per block (the group's block: 8 KB)

// Min-plus of one row over landmarks [l0, l0 + nb): writes
// v[i] = g(l0 + i)^2 - mu(l0 + i) for i < nb.
__attribute__((target("avx2"))) void minplus_block(const tri_problem& P, const double* const* cols,
                                                  const double* d, long l0, long nb, double* v) {
  const int k = P.k;
  const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  long i = 0;
  for (; i + 16 <= nb; i += 16) {
    __m256d s0 = inf, s1 = inf, s2 = inf, s3 = inf;
    for (int r = 0; r < k; ++r) {
      const double* col = cols[r] + l0 + i;
      const __m256d dr = _mm256_set1_pd(d[r]);
      // min(a, b) returns b unless a < b: the value of (a < b ? a : b)
      s0 = _mm256_min_pd(_mm256_add_pd(dr, _mm256_loadu_pd(col)), s0);
      s1 = _mm256_min_pd(_mm256_add_pd(dr, _mm256_loadu_pd(col + 4)), s1);
      s2 = _mm256_min_pd(_mm256_add_pd(dr, _mm256_loadu_pd(col + 8)), s2);
      s3 = _mm256_min_pd(_mm256_add_pd(dr, _mm256_loadu_pd(col + 12)), s3);
    }
    const double* mu = P.mu + l0 + i;
    _mm256_storeu_pd(v + i, _mm256_sub_pd(_mm256_mul_pd(s0, s0), _mm256_loadu_pd(mu)));
    _mm256_storeu_pd(v + i + 4, _mm256_sub_pd(_mm256_mul_pd(s1, s1), _mm256_loadu_pd(mu + 4)));
    _mm256_storeu_pd(v + i + 8, _mm256_sub_pd(_mm256_mul_pd(s2, s2), _mm256_loadu_pd(mu + 8)));
    _mm256_storeu_pd(v + i + 12, _mm256_sub_pd(_mm256_mul_pd(s3, s3), _mm256_loadu_pd(mu + 12)));
  }
  for (; i < nb; ++i) {
    double s = std::numeric_limits<double>::infinity();
    for (int r = 0; r < k; ++r) {
      const double t = d[r] + cols[r][l0 + i];
      s = (t < s) ? t : s;
    }
    v[i] = s * s - P.mu[l0 + i];
  }
}

// Columns 0..Q-1 (Q > 0: fixed; Q == 0: P.q at run time) of the projection
// of a block: acc[2 j + h] (lanes = rows 4 h .. 4 h + 3) += L(l, j) * v(l),
// in increasing l; V holds the group's rows, row h at V + h * blk.
template <int Q>
__attribute__((target("avx2"))) void project_block(const tri_problem& P, const double* V, long l0,
                                                   long nb, __m256d* acc) {
  const int q = Q > 0 ? Q : P.q;
  __m256d a[Q > 0 ? 2 * Q : 1];
  if (Q > 0) {
    for (int t = 0; t < 2 * q; ++t) a[t] = acc[t];
  }
  __m256d* A = Q > 0 ? a : acc;
  const double* L = P.L + l0;
  const long m = P.m;
  long i = 0;
  for (; i + 4 <= nb; i += 4) {
    __m256d lo[4], hi[4];
    for (int half = 0; half < 2; ++half) {
      const double* base = V + (4 * half) * blk + i;
      const __m256d r0 = _mm256_loadu_pd(base);
      const __m256d r1 = _mm256_loadu_pd(base + blk);
      const __m256d r2 = _mm256_loadu_pd(base + 2 * blk);
      const __m256d r3 = _mm256_loadu_pd(base + 3 * blk);
      const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
      const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
      __m256d* out = half == 0 ? lo : hi;
      out[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
      out[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
      out[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
      out[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
    }
    for (int u = 0; u < 4; ++u) {
      for (int j = 0; j < q; ++j) {
        const __m256d lj = _mm256_set1_pd(L[j * m + i + u]);
        A[2 * j] = _mm256_add_pd(A[2 * j], _mm256_mul_pd(lj, lo[u]));
        A[2 * j + 1] = _mm256_add_pd(A[2 * j + 1], _mm256_mul_pd(lj, hi[u]));
      }
    }
  }
  for (; i < nb; ++i) {
    const __m256d lo = _mm256_set_pd(V[3 * blk + i], V[2 * blk + i], V[blk + i], V[i]);
    const __m256d hi =
        _mm256_set_pd(V[7 * blk + i], V[6 * blk + i], V[5 * blk + i], V[4 * blk + i]);
    for (int j = 0; j < q; ++j) {
      const __m256d lj = _mm256_set1_pd(L[j * m + i]);
      A[2 * j] = _mm256_add_pd(A[2 * j], _mm256_mul_pd(lj, lo));
      A[2 * j + 1] = _mm256_add_pd(A[2 * j + 1], _mm256_mul_pd(lj, hi));
    }
  }
  if (Q > 0) {
    for (int t = 0; t < 2 * q; ++t) acc[t] = a[t];
  }
}

// A group of up to `grp` rows (positions `rows`, gs of them); the unused
// lanes repeat the first row and are discarded.
__attribute__((target("avx2"))) void group_avx2(const tri_problem& P, const long* rows, int gs,
                                               std::vector<double>& V,
                                               std::vector<const double*>& cols,
                                               std::vector<double>& d, __m256d* acc) {
  const int k = P.k, q = P.q;
  const long m = P.m;
  for (int h = 0; h < grp; ++h) {
    const long a = rows[h < gs ? h : 0];
    for (int r = 0; r < k; ++r) {
      cols[h * k + r] = P.D + static_cast<long>(P.idx[a + r * P.c]) * m;
      d[h * k + r] = P.dist[a + r * P.c];
    }
  }
  for (int t = 0; t < 2 * q; ++t) acc[t] = _mm256_setzero_pd();
  for (long l0 = 0; l0 < m; l0 += blk) {
    const long nb = std::min(blk, m - l0);
    for (int h = 0; h < grp; ++h) {
      minplus_block(P, cols.data() + h * k, d.data() + h * k, l0, nb, V.data() + h * blk);
    }
    switch (q) {
      case 1: project_block<1>(P, V.data(), l0, nb, acc); break;
      case 2: project_block<2>(P, V.data(), l0, nb, acc); break;
      case 3: project_block<3>(P, V.data(), l0, nb, acc); break;
      case 4: project_block<4>(P, V.data(), l0, nb, acc); break;
      default: project_block<0>(P, V.data(), l0, nb, acc); break;
    }
  }
  alignas(32) double out[grp];
  for (int j = 0; j < q; ++j) {
    _mm256_store_pd(out, acc[2 * j]);
    _mm256_store_pd(out + 4, acc[2 * j + 1]);
    for (int h = 0; h < gs; ++h) P.Y[rows[h] + j * P.c] = -0.5 * out[h];
  }
}

#endif  // MO_HAVE_AVX2_KERNELS

bool use_avx2() {
#ifdef MO_HAVE_AVX2_KERNELS
  static const bool ok = __builtin_cpu_supports("avx2");
  return ok;
#else
  return false;
#endif
}

}  // namespace

const char* isomap_kernel_name() { return use_avx2() ? "avx2" : "portable"; }

void isomap_triangulate_rows(const double* D, long m, const int* idx, const double* dist, long c,
                             int k, const double* lsharp_t, const double* mu, int q,
                             const unsigned* order, double* Y, int n_threads,
                             isomap_kernel kernel) {
  if (m < 1 || k < 1 || q < 1) throw input_error("empty Isomap projection");
  if (c < 1) return;
  const tri_problem P{D, m, idx, dist, c, k, lsharp_t, mu, q, Y};
  const bool vec = kernel == isomap_kernel::automatic && use_avx2();
  const int nt = resolve_threads(n_threads);
  (void)nt;
  interrupt_flag flag(16);
  if (!vec) {
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
      std::vector<double> s(m);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
      for (long t = 0; t < c; ++t) {
        if (flag.poll(t)) continue;
        row_portable(P, static_cast<long>(order[t]), s);
      }
    }
    flag.rethrow_if_stopped();
    return;
  }
#ifdef MO_HAVE_AVX2_KERNELS
  const long n_groups = (c + grp - 1) / grp;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
  {
    std::vector<double> V(grp * blk);
    std::vector<const double*> cols(static_cast<std::size_t>(grp) * k);
    std::vector<double> d(static_cast<std::size_t>(grp) * k);
    // accumulators: 2 q vectors of 4 doubles, 32-byte aligned
    std::vector<double> acc_store(8 * static_cast<std::size_t>(q) + 4);
    double* acc_mem = acc_store.data();
    while (reinterpret_cast<std::uintptr_t>(acc_mem) % 32 != 0) ++acc_mem;
    __m256d* acc = reinterpret_cast<__m256d*>(acc_mem);
    long rows[grp];
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (long g = 0; g < n_groups; ++g) {
      if (flag.poll(g)) continue;
      const long t0 = g * grp;
      const int gs = static_cast<int>(std::min<long>(grp, c - t0));
      for (int h = 0; h < gs; ++h) rows[h] = static_cast<long>(order[t0 + h]);
      group_avx2(P, rows, gs, V, cols, d, acc);
    }
  }
  flag.rethrow_if_stopped();
#endif
}

}  // namespace manifoldOOS
