// The host side of shaders/requantize.glsl, shared by the quantized products (QLinearMatMul,
// QLinearConv): a requantization multiplier as the integer pair the shader rounds with exactly.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::gpu_compute {

// Appends `multiplier` as (mantissa, shift), multiplier = mantissa * 2^-shift with
// |mantissa| < 2^24 (exact: the multiplier is a float32, float16 or bfloat16 value), for sums
// |acc| <= acc_bound. A shift so large that the product is below half a unit gives (0, 0): the
// result is the zero point. RunOnCpu (InputValues) for multipliers beyond the shader's 64-bit
// arithmetic (huge, or not finite).
void push_multiplier(std::vector<int32_t>& params, double multiplier, double acc_bound);

}  // namespace kiln::gpu_compute
