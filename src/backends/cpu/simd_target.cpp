#include "backends/cpu/simd_target.h"

#include <cstdint>
#include <cstdlib>

#include "kiln/error.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_target.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// The per-target code must come after foreach_target.h, which re-includes this file per target.
#include "hwy/highway.h"
#include "hwy/targets.h"

HWY_BEFORE_NAMESPACE();
namespace kiln::cpu::HWY_NAMESPACE {

// Compiled once per target; the dispatched copy names the target it was compiled for, which is
// the one every other dispatched kernel runs (they share Highway's one choice per process).
const char* compiled_target_name() { return hwy::TargetName(HWY_TARGET); }

}  // namespace kiln::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::cpu {

HWY_EXPORT(compiled_target_name);

std::string simd_target_name() {
  apply_simd_target_from_env();
  return HWY_DYNAMIC_DISPATCH(compiled_target_name)();
}

bool limit_simd_target(std::string_view name) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (name == hwy::TargetName(target)) {
      // Targets are bits, better ones lower: every bit below this one goes.
      hwy::DisableTargets(target - 1);
      return true;
    }
  }
  return false;
}

std::string available_simd_targets() {
  std::string names;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (!names.empty()) names += ' ';
    names += hwy::TargetName(target);
  }
  return names;
}

void apply_simd_target_from_env() {
  // A static's initializer runs once; when it throws, the next call tries again (and throws).
  static const bool applied = [] {
    const char* name = std::getenv("KILN_SIMD_TARGET");
    if (name == nullptr || *name == '\0') return false;
    if (!limit_simd_target(name))
      throw Error(std::string("KILN_SIMD_TARGET=") + name +
                  ": not a SIMD target this build can run here (available: " +
                  available_simd_targets() + ")");
    return true;
  }();
  (void)applied;
}

}  // namespace kiln::cpu
#endif
