// The SIMD target that kiln's run-time dispatch picks on this processor (Highway compiles the
// CPU kernels once per target and calls the best one the processor supports).
#pragma once

#include <string>

namespace kiln::cpu {

// Highway's name for it, e.g. "AVX3_ZEN4", "AVX3" (AVX-512), "AVX2", "SSE4", "EMU128".
std::string simd_target_name();

}  // namespace kiln::cpu
