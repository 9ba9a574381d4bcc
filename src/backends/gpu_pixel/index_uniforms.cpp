#include "backends/gpu_pixel/index_uniforms.h"

#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {

void set_index_uniforms(const Context& context, const Program& program,
                        std::span<const int> values) {
  check(index_uniforms_fit(values.size()), "OpenGL ES: " + std::to_string(values.size()) +
                                               " index values, more than " +
                                               std::to_string(kIndexUniforms) + " fit in uniforms");
  // The array and the few uniforms of a kernel's own.
  check(context.info().max_fragment_uniform_vectors >= kIndexUniforms / 4 + 16,
        "OpenGL ES: the device has too few fragment uniforms for an index array");
  if (values.empty()) return;
  // Whole ivec4s: the last one padded with zeros.
  std::vector<int> padded(values.begin(), values.end());
  padded.resize((values.size() + 3) / 4 * 4, 0);
  glUniform4iv(program.location("u_index"), static_cast<GLsizei>(padded.size() / 4), padded.data());
}

bool index_input_on_host(const DevicePlacementQuery& q, size_t k, std::string& reason) {
  static constexpr DataType kIndexTypes[] = {DataType::Int32, DataType::Int64};
  const bool resident =
      (k < q.input_on_cpu.size() && q.input_on_cpu[k]) || q.info.constant_input(k) != nullptr;
  if (const std::optional<size_t> bad = input_outside_dtypes(q, kIndexTypes, k, 1);
      bad && !resident) {
    reason = "indices of " + std::string(dtype_name(q.input_types[*bad])) + " stay on the CPU";
    return false;
  }
  return true;
}

std::vector<int64_t> host_index_values(const Tensor& indices) {
  if ((indices.dtype() != DataType::Int32 && indices.dtype() != DataType::Int64) ||
      indices.impl()->device)
    throw RunOnCpu(RunTimeCause::InputKind, "indices that are no host int32 or int64 tensor");
  return to_int64_vector(indices, "indices");
}

}  // namespace kiln::gpu_pixel
