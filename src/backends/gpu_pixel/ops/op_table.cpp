#include "backends/gpu_pixel/ops/op_table.h"

#include <algorithm>

#include "backends/gpu_pixel/texel_dtype.h"

namespace kiln::gpu_pixel {

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_all_ops(t);
    return t;
  }();
  return table;
}

bool float_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first, size_t count) {
  static constexpr DataType kFloat32[] = {DataType::Float32};
  const std::optional<size_t> k = input_outside_dtypes(q, kFloat32, first, count);
  if (!k) return true;
  reason = std::string(dtype_name(q.input_types[*k])) +
           " tensors stay on the CPU (textures hold float32)";
  return false;
}

bool texel_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first, size_t count) {
  const std::optional<size_t> k = input_outside_dtypes(q, texel_dtypes(), first, count);
  if (!k) return true;
  reason = std::string(dtype_name(q.input_types[*k])) +
           " tensors stay on the CPU (textures hold the dtypes exact in float32, int32, uint32 "
           "and int64)";
  return false;
}

bool host_inputs(const DevicePlacementQuery& q, size_t first, std::string& reason, size_t count) {
  const size_t n = q.input_on_cpu.size();
  const size_t end = count >= n ? n : std::min(n, first + count);
  for (size_t k = first; k < end; ++k) {
    // Constants are host values too, and so is every tensor of a dtype textures never hold
    // (float64, ...): the node that made it ran on the CPU. Integer tensors are read through
    // OpRecorder::host, which downloads one a draw made.
    const DataType t = k < q.input_types.size() ? q.input_types[k] : DataType::Undefined;
    const std::span<const DataType> held = float_texel_dtypes();
    const bool read_on_host =
        in_integer_texture(t) ||
        (t != DataType::Undefined && std::find(held.begin(), held.end(), t) == held.end());
    if (q.info.has_input(k) && !q.input_on_cpu[k] && !q.info.constant_input(k) && !read_on_host) {
      reason = "input " + std::to_string(k) + " is not on the CPU";
      return false;
    }
  }
  return true;
}

}  // namespace kiln::gpu_pixel
