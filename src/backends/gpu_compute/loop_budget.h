// How many loop iterations one shader invocation may run, in all its loops together. llvmpipe
// (Mesa's lavapipe) ends every loop of an invocation once 65535 iterations have run, silently,
// so a kernel whose loop lengths come from the shapes (a sum's length, a count of chunks) checks
// them against this and sends longer runs to the CPU (RunOnCpu, DeviceLimit).
#pragma once

#include <cstdint>

namespace kiln::gpu_compute {

inline constexpr uint64_t kShaderLoopBudget = 65535;

}  // namespace kiln::gpu_compute
