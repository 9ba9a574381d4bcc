// The host-side checks that kernels make of their operands before drawing.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

// Shaders index elements in highp int, so every element index must stay below 2^31.
constexpr int64_t kIndexLimit = std::numeric_limits<int32_t>::max();

// kiln::Error "<where>: <name> holds N elements, its shape needs M" unless `tensor` holds
// `count` elements.
void expect_element_count(const TextureTensor& tensor, int64_t count, const std::string& where,
                          const char* name);

}  // namespace kiln::gpu_pixel
