// manifoldOOS numerical core: shared definitions.
//
// The core is free of R and Rcpp types. Errors are reported by throwing
// manifoldOOS::error (or a subclass); the R glue turns them into classed R
// conditions. Long loops poll manifoldOOS::check_interrupt(), which the glue
// wires to R's interrupt mechanism.
#ifndef MANIFOLDOOS_COMMON_H
#define MANIFOLDOOS_COMMON_H

#include <atomic>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace manifoldOOS {

// Base class of every error thrown by the core.
class error : public std::runtime_error {
 public:
  explicit error(const std::string& what) : std::runtime_error(what) {}
};

// Invalid input that slipped past the R-level validation.
class input_error : public error {
 public:
  explicit input_error(const std::string& what) : error(what) {}
};

// A string option and the enum value it names.
template <class E>
struct choice {
  const char* name;
  E value;
};

// The value of the first choice in [first, last) named `s`; an input_error
// with `message` when none is. Every string option of the core and of the
// glue is parsed here, through one of the two forms below.
template <class E>
E parse_choice(const std::string& s, const choice<E>* first, const choice<E>* last,
               const std::string& message) {
  for (; first != last; ++first)
    if (s == first->name) return first->value;
  throw input_error(message);
}

// A table written at the call, e.g.
// parse_choice<eig_which>(s, {{"top", eig_which::top}, ...}, "...").
template <class E>
E parse_choice(const std::string& s, std::initializer_list<choice<E>> choices,
               const std::string& message) {
  return parse_choice(s, choices.begin(), choices.end(), message);
}

// A table stated once next to its enum, e.g.
// inline constexpr choice<eig_which> eig_which_names[] = {{"top", eig_which::top}, ...};
// parse_choice(s, eig_which_names, "...").
template <class E, std::size_t N>
E parse_choice(const std::string& s, const choice<E> (&choices)[N], const std::string& message) {
  return parse_choice(s, choices, choices + N, message);
}

// An iterative solver did not converge.
class convergence_error : public error {
 public:
  explicit convergence_error(const std::string& what) : error(what) {}
};

// The user interrupted a long computation.
class interrupted : public error {
 public:
  interrupted() : error("computation interrupted by the user") {}
};

// ---- notes -----------------------------------------------------------------
// Two notes of a result joined as "a; b", or the one that is not empty.
inline std::string join_notes(const std::string& a, const std::string& b) {
  return a.empty() ? b : (b.empty() ? a : a + "; " + b);
}

// ---- interrupt polling ---------------------------------------------------
// The glue installs a function returning true when the user asked to stop.
using interrupt_fn = bool (*)();

inline interrupt_fn& interrupt_hook() {
  static interrupt_fn fn = nullptr;
  return fn;
}

// The thread that installed the hook (R's main thread): the only thread
// allowed to call back into R.
inline std::thread::id& interrupt_thread() {
  static std::thread::id id;
  return id;
}

inline void set_interrupt_hook(interrupt_fn fn) {
  interrupt_hook() = fn;
  interrupt_thread() = std::this_thread::get_id();
}

// Returns true when an interrupt is pending. On any thread other than the
// one that installed the hook (e.g. an OpenMP worker, including thread 0 of
// a nested team) it returns false without calling into R.
inline bool interrupt_pending() {
  interrupt_fn fn = interrupt_hook();
  if (fn == nullptr || std::this_thread::get_id() != interrupt_thread()) return false;
  return fn();
}

// Throws manifoldOOS::interrupted when an interrupt is pending. Serial code only.
inline void check_interrupt() {
  if (interrupt_pending()) throw interrupted();
}

// Helper for OpenMP loops: the master thread polls every `every` iterations
// and raises a shared flag; workers skip remaining work once it is set. After
// the parallel region call rethrow_if_stopped().
class interrupt_flag {
 public:
  explicit interrupt_flag(long every = 256) : every_(every > 0 ? every : 1) {}
  // Call once per iteration; returns true when the loop should skip work.
  bool poll(long iter) {
    if (stop_.load(std::memory_order_relaxed)) return true;
    if (iter % every_ == 0 && interrupt_pending()) {
      stop_.store(true, std::memory_order_relaxed);
      return true;
    }
    return false;
  }
  bool stopped() const { return stop_.load(std::memory_order_relaxed); }
  void rethrow_if_stopped() const {
    if (stopped()) throw interrupted();
  }

 private:
  long every_;
  std::atomic<bool> stop_{false};
};

// ---- thread counts ---------------------------------------------------------
// The process-wide thread settings behind resolve_threads(). Plain atomics:
// they are written by the glue (at load time, by the fork handler and by the
// R-level thread resolution) and read at the start of every threaded call.
struct thread_settings {
  // What "all available" (n_threads <= 0) means; 0 until the glue sets it
  // (then OpenMP's own default, omp_get_max_threads(), is used).
  std::atomic<int> available{0};
  // Most threads a process created by fork() may use; 0 outside such a child.
  // GNU OpenMP's thread pool does not survive fork(): a forked child that
  // opens a parallel region with more than one thread waits forever for the
  // pool threads of its parent, so the fork handler sets this to 1.
  std::atomic<int> fork_limit{0};
};

inline thread_settings& threads_config() {
  static thread_settings s;
  return s;
}

// Called in the child right after fork() (pthread_atfork): the package is
// single-threaded there until the glue raises the limit on request.
inline void enter_forked_child() {
  threads_config().fork_limit.store(1);
#ifdef _OPENMP
  omp_set_num_threads(1);
#endif
}

inline bool in_forked_child() { return threads_config().fork_limit.load() > 0; }

// Number of threads to use; 0 or negative means "all available" (the count
// the glue set, at most OpenMP's default). Never more than OMP_THREAD_LIMIT,
// and never more than the fork limit in a forked child. Every parallel region
// of the package opens with `num_threads(nt) if (nt > 1)`, so a count of 1
// runs the loop on the calling thread without starting an OpenMP team.
inline int resolve_threads(int n_threads) {
#ifdef _OPENMP
  const thread_settings& cfg = threads_config();
  int nt = n_threads;
  if (nt <= 0) {
    const int avail = cfg.available.load();
    nt = avail > 0 ? avail : omp_get_max_threads();
  }
  const int limit = omp_get_thread_limit();
  if (limit > 0 && nt > limit) nt = limit;
  const int fork_limit = cfg.fork_limit.load();
  if (fork_limit > 0 && nt > fork_limit) nt = fork_limit;
  return nt < 1 ? 1 : nt;
#else
  (void)n_threads;
  return 1;
#endif
}

// ---- run-time CPU dispatch -------------------------------------------------
// Hot loops may be compiled a second time for AVX2/FMA (GCC/clang on x86-64,
// function attribute target("avx2,fma")); that version runs only when the CPU
// has both (checked once). Define MO_NO_AVX2_KERNELS to build without them.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(MO_NO_AVX2_KERNELS)
#define MO_HAVE_AVX2_KERNELS 1
inline bool cpu_has_avx2_fma() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}
inline bool cpu_has_avx512() {
  static const bool ok = __builtin_cpu_supports("avx512f");
  return ok;
}
#else
inline bool cpu_has_avx2_fma() { return false; }
inline bool cpu_has_avx512() { return false; }
#endif

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_COMMON_H
