#include "backends/gpu_pixel/half_output.h"

#include <optional>

namespace kiln::gpu_pixel {

bool float_or_half_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first,
                          size_t count) {
  static constexpr DataType kFloats[] = {DataType::Float32, DataType::Float16};
  if (const std::optional<size_t> k = input_outside_dtypes(q, kFloats, first, count)) {
    reason = std::string(dtype_name(q.input_types[*k])) +
             " tensors stay on the CPU (float arithmetic takes float32 and float16)";
    return false;
  }
  return true;
}

bool float_half_or_bfloat16_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first,
                                   size_t count) {
  static constexpr DataType kFloats[] = {DataType::Float32, DataType::Float16, DataType::BFloat16};
  if (const std::optional<size_t> k = input_outside_dtypes(q, kFloats, first, count)) {
    reason = std::string(dtype_name(q.input_types[*k])) +
             " tensors stay on the CPU (float arithmetic takes float32, float16 and bfloat16)";
    return false;
  }
  return true;
}

}  // namespace kiln::gpu_pixel
