// Registry of the external sparse SPD factorisation (see
// <manifoldOOS/blocks/spd_factor.h>).
#include <manifoldOOS/blocks/spd_factor.h>

#include <atomic>

namespace manifoldOOS {

namespace {
std::atomic<spd_factor_maker> g_spd_backend{nullptr};
}  // namespace

void set_spd_factor_backend(spd_factor_maker maker) { g_spd_backend.store(maker); }

spd_factor_maker spd_factor_backend() { return g_spd_backend.load(); }

}  // namespace manifoldOOS
