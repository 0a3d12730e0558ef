// Blocked, threaded loops over rows with exception capture and interrupt
// polling: the one driver behind every row-streaming computation.
#ifndef MANIFOLDOOS_PARALLEL_H
#define MANIFOLDOOS_PARALLEL_H

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <optional>
#include <manifoldOOS/core/common.h>

namespace manifoldOOS {

// For rows [0, n) in blocks of `block` rows: `prepare(i0, i1)` runs serially
// (e.g. a BLAS product for the block), then the rows of the block are
// processed in parallel. Each thread creates its scratch state once with
// `make_state()`, calls `body(state, i)` for its rows and `finish(state)`
// once at the end inside a critical section (to merge per-thread results).
// The first exception thrown by any thread is rethrown after the loop; an
// interrupt stops the loop and throws manifoldOOS::interrupted.
template <class Prepare, class MakeState, class Body, class Finish>
void parallel_row_blocks(std::size_t n, std::size_t block, int n_threads, Prepare prepare,
                         MakeState make_state, Body body, Finish finish, int chunk = 8) {
  if (block < 1) block = 1;
  const int nt = resolve_threads(n_threads);
  (void)nt;  // unused without OpenMP
  interrupt_flag flag;
  std::exception_ptr err = nullptr;
  std::atomic<bool> failed{false};
  for (std::size_t i0 = 0; i0 < n && !flag.stopped() && !failed.load(); i0 += block) {
    const std::size_t i1 = std::min(n, i0 + block);
    prepare(i0, i1);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
      // No exception may leave the worksharing loop (OpenMP would end the
      // process): make_state(), every body call and finish() are caught on
      // their own, and a thread whose state failed still meets the loop.
      auto record = [&]() {
#ifdef _OPENMP
#pragma omp critical(mo_parallel_err)
#endif
        {
          if (!err) err = std::current_exception();
          failed.store(true);
        }
      };
      std::optional<decltype(make_state())> state;
      try {
        state.emplace(make_state());
      } catch (...) {
        record();
      }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, chunk)
#endif
      for (long ii = static_cast<long>(i0); ii < static_cast<long>(i1); ++ii) {
        if (!state || flag.poll(ii - static_cast<long>(i0)) || failed.load(std::memory_order_relaxed)) continue;
        try {
          body(*state, static_cast<std::size_t>(ii));
        } catch (...) {
          record();
        }
      }
      if (state) {
#ifdef _OPENMP
#pragma omp critical(mo_parallel_finish)
#endif
        {
          try {
            finish(*state);
          } catch (...) {
            record();
          }
        }
      }
    }
  }
  if (err) std::rethrow_exception(err);
  flag.rethrow_if_stopped();
}

// Independent rows [0, m), threaded (dynamic schedule of `chunk` rows) with
// interrupt polling: each thread makes its scratch state once with
// `make_state()` and calls `body(state, i)` for its rows. An exception thrown
// by a body stops the loop (the remaining rows are skipped) and the function
// returns false, so that the caller can throw the error that names its own
// failure; an interrupt throws manifoldOOS::interrupted.
template <class MakeState, class Body>
bool parallel_rows_guarded(std::size_t m, int n_threads, int chunk, MakeState make_state, Body body) {
  interrupt_flag flag;
  std::atomic<bool> failed{false};
  const int nt = resolve_threads(n_threads);
  (void)nt;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
  {
    std::optional<decltype(make_state())> state;
    try {
      state.emplace(make_state());
    } catch (...) {
      failed.store(true);
    }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, chunk)
#endif
    for (long i = 0; i < static_cast<long>(m); ++i) {
      if (!state || flag.poll(i) || failed.load(std::memory_order_relaxed)) continue;
      try {
        body(*state, static_cast<std::size_t>(i));
      } catch (...) {
        failed.store(true);
      }
    }
  }
  flag.rethrow_if_stopped();
  return !failed.load();
}

// out.row(j) = A.row(idx(i, j)) for j < idx.n_cols: the neighbour rows of
// query i (out must have idx.n_cols rows and A.n_cols columns).
template <class Mat, class Idx>
inline void gather_neighbour_rows(const Mat& A, const Idx& idx, std::size_t i, Mat& out) {
  for (std::size_t j = 0; j < idx.n_cols; ++j) out.row(j) = A.row(idx(i, j));
}

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_PARALLEL_H
