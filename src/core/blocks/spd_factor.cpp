// Registry of the external sparse SPD factorisation (see
// <manifoldOOS/blocks/spd_factor.h>).
#include <manifoldOOS/blocks/spd_factor.h>

#include <atomic>

namespace manifoldOOS {

namespace {
std::atomic<spd_factor_maker> g_spd_backend{nullptr};
std::atomic<spd_fill_estimator> g_spd_fill{nullptr};
thread_local spd_symbolic* t_symbolic = nullptr;
}  // namespace

spd_symbolic_scope::spd_symbolic_scope(spd_symbolic* s) : prev_(t_symbolic) { t_symbolic = s; }

spd_symbolic_scope::~spd_symbolic_scope() { t_symbolic = prev_; }

spd_symbolic* current_spd_symbolic() { return t_symbolic; }

void set_spd_factor_backend(spd_factor_maker maker) { g_spd_backend.store(maker); }

spd_factor_maker spd_factor_backend() { return g_spd_backend.load(); }

void set_spd_fill_estimator(spd_fill_estimator f) { g_spd_fill.store(f); }

spd_fill_estimator spd_fill_estimator_fn() { return g_spd_fill.load(); }

}  // namespace manifoldOOS
