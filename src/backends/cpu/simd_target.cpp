#include "backends/cpu/simd_target.h"

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

std::string simd_target_name() { return HWY_DYNAMIC_DISPATCH(compiled_target_name)(); }

}  // namespace kiln::cpu
#endif
