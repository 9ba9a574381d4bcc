#include "backends/gpu_pixel/host_indices.h"

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

int64_t wrapped_host_index(int64_t i, int64_t dim) {
  if (i < -dim || i >= dim)
    throw RunOnCpu(RunTimeCause::InputValues, "an index is out of range; the CPU reports it");
  return i < 0 ? i + dim : i;
}

void run_rejected_shapes_on_cpu() {
  throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "shapes the op rejects; the CPU reports them");
}

void check_index_uniforms_fit(const Shape& data, int64_t count) {
  if (!index_uniforms_fit(static_cast<size_t>(count)))
    throw RunOnCpu(RunTimeCause::DeviceLimit, "more index values than the uniforms hold");
  if (data.element_count() > INT32_MAX)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "data beyond 32-bit indexing");
}

std::vector<int> elements_offsets(const Shape& data, const Shape& indices,
                                  std::span<const int64_t> values, int64_t axis_attr) {
  const auto rank = static_cast<int64_t>(data.size());
  if (rank == 0 || indices.size() != data.size() || axis_attr < -rank || axis_attr >= rank)
    run_rejected_shapes_on_cpu();
  const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indices[d] > data[d]) run_rejected_shapes_on_cpu();
  check_index_uniforms_fit(data, indices.element_count());
  const Shape strides = strides_of(data);
  const Shape positions = strides_of(indices);
  std::vector<int> offsets;
  for (int64_t p = 0; p < indices.element_count(); ++p) {
    int64_t offset = 0, rest = p;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t c = rest / positions[d];
      rest %= positions[d];
      offset += (d == axis ? wrapped_host_index(values[p], data[d]) : c) * strides[d];
    }
    offsets.push_back(static_cast<int>(offset));
  }
  return offsets;
}

}  // namespace kiln::gpu_pixel
