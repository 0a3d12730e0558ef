// Direct compressed-column assembly of a sum of clique blocks: the n x n
// matrix M = sum_i S_i' A_i S_i, where clique i is the row nbhd(i, .) of k
// indices into [0, n) and A_i is its k x k block (LTSA's I - G_i G_i', LLE's
// r_i r_i', LGRM's local matrices).
//
// Built without a triplet list: (1) the cliques of every index, in ascending
// clique order (a CSR "membership" list); (2) the sparsity pattern, column by
// column, as the union of the cliques holding the column index (sorted rows);
// (3) the values, in chunks of cliques: the blocks of a chunk are computed in
// parallel into a buffer, then every column adds the contributions of the
// chunk's cliques, in ascending clique order. Entry (r, c) is therefore
// summed in the same order as Eigen's setFromTriplets() sums the duplicates
// of a triplet list written clique by clique (column-major within a block):
// the first contribution, then each later one added in clique order. The
// result is bit-identical to sparse_from_triplets() on those triplets, with
// the same explicit zeros, and takes about a third of the memory (no n k^2
// triplets, no transposed intermediate).
#ifndef MANIFOLDOOS_CLIQUE_ASSEMBLY_H
#define MANIFOLDOOS_CLIQUE_ASSEMBLY_H

#include <armadillo>
#include <manifoldOOS/core/eigen_sparse.h>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include <manifoldOOS/core/common.h>
#include <manifoldOOS/blocks/eigen_sparse.h>
#include <manifoldOOS/blocks/local_align.h>
#include <manifoldOOS/blocks/parallel.h>

namespace manifoldOOS {

// n: order of the result; nbhd: one clique per row (indices in [0, n));
// make_state(): per-thread scratch state; fill(state, i, dst): writes the
// k x k block of clique i, column-major, to dst[0 .. k^2); finish(state):
// merges a thread's state (inside a critical section); chunk: cliques per
// value pass (0: about 2^22 block entries, 32 MB of buffer). An exception
// thrown by `fill` is rethrown; an interrupt throws manifoldOOS::interrupted.
template <class MakeState, class Fill, class Finish>
inline sp_mat_e assemble_cliques_compressed(long n, const arma::Mat<int>& nbhd, int n_threads,
                                            MakeState make_state, Fill fill, Finish finish,
                                            long chunk = 0) {
  using idx_t = sp_mat_e::StorageIndex;
  const long nc = nbhd.n_rows, k = nbhd.n_cols;
  const long kk = k * k;
  sp_mat_e M(n, n);
  if (nc == 0 || k == 0) return M;
  const int* nb = nbhd.memptr();  // column-major: nbhd(i, b) = nb[b * nc + i]

  // (1) membership: refs i * k + b of every index, ascending in (i, b)
  std::vector<std::int64_t> mstart(static_cast<std::size_t>(n) + 1, 0);
  for (long b = 0; b < k; ++b)
    for (long i = 0; i < nc; ++i) ++mstart[static_cast<std::size_t>(nb[b * nc + i]) + 1];
  for (long c = 0; c < n; ++c) mstart[c + 1] += mstart[c];
  std::vector<std::int64_t> mref(static_cast<std::size_t>(nc) * static_cast<std::size_t>(k));
  {
    std::vector<std::int64_t> pos(mstart.begin(), mstart.end() - 1);
    for (long i = 0; i < nc; ++i) {
      if ((i & 65535) == 0) check_interrupt();
      for (long b = 0; b < k; ++b) mref[pos[nb[b * nc + i]]++] = static_cast<std::int64_t>(i) * k + b;
    }
  }

  // (2) pattern: rows of column c = union of the cliques holding c
  struct mark_state {
    std::vector<long> mark;
    std::vector<idx_t> rows;
  };
  auto make_mark = [n] {
    mark_state s;
    s.mark.assign(static_cast<std::size_t>(n), -1L);
    return s;
  };
  auto gather = [&](mark_state& s, long c) {
    s.rows.clear();
    for (std::int64_t m = mstart[c]; m < mstart[c + 1]; ++m) {
      const long i = static_cast<long>(mref[m] / k);
      for (long a = 0; a < k; ++a) {
        const int r = nb[a * nc + i];
        if (s.mark[r] != c) {
          s.mark[r] = c;
          s.rows.push_back(static_cast<idx_t>(r));
        }
      }
    }
  };
  std::vector<std::int64_t> colptr(static_cast<std::size_t>(n) + 1, 0);
  auto noop_prepare = [](std::size_t, std::size_t) {};
  parallel_row_blocks(
      n, n, n_threads, noop_prepare, make_mark,
      [&](mark_state& s, std::size_t c) {
        gather(s, static_cast<long>(c));
        colptr[c + 1] = static_cast<std::int64_t>(s.rows.size());
      },
      [](mark_state&) {}, 256);
  for (long c = 0; c < n; ++c) colptr[c + 1] += colptr[c];
  const std::int64_t nnz = colptr[n];
  if (nnz > static_cast<std::int64_t>(INT_MAX))
    throw input_error("the assembled sparse matrix would have more than 2^31 - 1 non-zero entries; "
                      "use a smaller `k` or fewer points");
  M.resizeNonZeros(static_cast<Eigen::Index>(nnz));
  idx_t* outer = M.outerIndexPtr();
  idx_t* inner = M.innerIndexPtr();
  double* val = M.valuePtr();
  for (long c = 0; c <= n; ++c) outer[c] = static_cast<idx_t>(colptr[c]);
  std::vector<std::int64_t>().swap(colptr);
  parallel_row_blocks(
      n, n, n_threads, noop_prepare, make_mark,
      [&](mark_state& s, std::size_t c) {
        gather(s, static_cast<long>(c));
        std::sort(s.rows.begin(), s.rows.end());
        std::copy(s.rows.begin(), s.rows.end(), inner + outer[c]);
        // -0.0 is the exact additive identity: the first contribution is stored as is
        std::fill(val + outer[c], val + outer[c + 1], -0.0);
      },
      [](mark_state&) {}, 256);

  // (3) values, chunk by chunk of cliques, each entry summed in clique order
  if (chunk <= 0) chunk = std::max<long>(1024, (1L << 22) / std::max<long>(kk, 1));
  std::vector<double> buf(static_cast<std::size_t>(std::min(chunk, nc)) * static_cast<std::size_t>(kk));
  std::vector<std::int64_t> cursor(mstart.begin(), mstart.end() - 1);
  // parallel_row_blocks rethrows the first exception of `fill` after the loop.
  for (long s0 = 0; s0 < nc; s0 += chunk) {
    const long s1 = std::min(nc, s0 + chunk);
    parallel_row_blocks(
        static_cast<std::size_t>(s1 - s0), static_cast<std::size_t>(s1 - s0), n_threads, noop_prepare,
        make_state,
        [&](auto& st, std::size_t j) {
          fill(st, s0 + static_cast<long>(j), buf.data() + j * static_cast<std::size_t>(kk));
        },
        finish, 64);
    const std::int64_t lim = static_cast<std::int64_t>(s1) * k;  // refs of cliques < s1
    parallel_row_blocks(
        n, n, n_threads, noop_prepare, [] { return 0; },
        [&](int&, std::size_t c) {
          std::int64_t m = cursor[c];
          const std::int64_t mend = mstart[c + 1];
          if (m >= mend || mref[m] >= lim) return;
          const idx_t* rb = inner + outer[c];
          const idx_t* re = inner + outer[c + 1];
          double* vc = val + outer[c];
          for (; m < mend && mref[m] < lim; ++m) {
            const long i = static_cast<long>(mref[m] / k), b = static_cast<long>(mref[m] % k);
            const double* blk = buf.data() + static_cast<std::size_t>(i - s0) * kk + b * k;
            for (long a = 0; a < k; ++a) {
              const idx_t r = static_cast<idx_t>(nb[a * nc + i]);
              vc[std::lower_bound(rb, re, r) - rb] += blk[a];
            }
          }
          cursor[c] = m;
        },
        [](int&) {}, 1024);
  }
  return M;
}

// The n x n matrix (n = nrow(X)) summed from one k x k block per clique (row
// of nbhd): block(i, Ci, deficient) gets the centred clique
// Ci = centred_clique(X, nbhd, i) and returns its block, setting `deficient`
// when the clique is rank deficient; those are counted into n_deficient.
template <class Block>
inline sp_mat_e assemble_clique_matrix(const arma::mat& X, const arma::Mat<int>& nbhd, int n_threads,
                                       long& n_deficient, Block block) {
  const long k = nbhd.n_cols;
  n_deficient = 0;
  return assemble_cliques_compressed(
      static_cast<long>(X.n_rows), nbhd, n_threads, [] { return 0L; },
      [&](long& deficient, long i, double* dst) {
        const arma::mat Ci = centred_clique(X, nbhd, i);
        bool def = false;
        const arma::mat B = block(i, Ci, def);
        if (def) ++deficient;
        if (static_cast<long>(B.n_rows) != k || static_cast<long>(B.n_cols) != k)
          throw error("a clique block has the wrong size");
        std::copy(B.memptr(), B.memptr() + k * k, dst);
      },
      [&](long& deficient) { n_deficient += deficient; });
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_CLIQUE_ASSEMBLY_H
