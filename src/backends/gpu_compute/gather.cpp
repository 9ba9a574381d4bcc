#include "backends/gpu_compute/gather.h"

#include <algorithm>
#include <span>

#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/shaders.h"

namespace kiln::gpu_compute {
namespace {

// The shader indexes 32-bit words with 32-bit unsigned arithmetic.
constexpr uint64_t kWordLimit = uint64_t{1} << 31;

std::optional<uint32_t> index_words(DataType index_type) {
  if (index_type == DataType::Int32) return 1;
  if (index_type == DataType::Int64) return 2;
  return std::nullopt;
}

std::optional<int64_t> wrapped_axis(int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (r == 0 || axis < -r || axis >= r) return std::nullopt;
  return axis < 0 ? axis + r : axis;
}

bool fits_words(uint64_t elements, uint32_t words) { return elements * words < kWordLimit; }

}  // namespace

bool gather_indices_in_range(const Tensor& indices, int64_t dim) {
  const int64_t n = indices.element_count();
  auto in_range = [dim](int64_t v) { return v >= -dim && v < dim; };
  if (indices.dtype() == DataType::Int32) {
    const int32_t* v = indices.data<int32_t>();
    for (int64_t i = 0; i < n; ++i)
      if (!in_range(v[i])) return false;
    return true;
  }
  if (indices.dtype() == DataType::Int64) {
    const int64_t* v = indices.data<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      if (!in_range(v[i])) return false;
    return true;
  }
  return false;
}

std::optional<GatherPlan> gather_plan(const Shape& data, const Shape& indices, int64_t axis,
                                      DataType dtype, DataType index_type) {
  const std::optional<int64_t> a = wrapped_axis(axis, data.size());
  const std::optional<uint32_t> iw = index_words(index_type);
  if (!a || !iw) return std::nullopt;
  GatherPlan plan;
  uint64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < *a; ++d) {
    outer *= static_cast<uint64_t>(data[d]);
    plan.out_shape.push_back(data[d]);
  }
  for (int64_t d : indices) plan.out_shape.push_back(d);
  for (size_t d = static_cast<size_t>(*a) + 1; d < data.size(); ++d) {
    inner *= static_cast<uint64_t>(data[d]);
    plan.out_shape.push_back(data[d]);
  }
  const uint64_t n = static_cast<uint64_t>(indices.element_count());
  const uint64_t count = outer * n * inner;
  const uint32_t words = element_words(dtype);
  const uint64_t dim = static_cast<uint64_t>(data[*a]);
  if (count > 0 && dim == 0) return std::nullopt;  // nothing to gather from: the CPU reports it
  if (!fits_words(count, words) || !fits_words(data.element_count(), words) || !fits_words(n, *iw))
    return std::nullopt;
  GatherPushConstants& pc = plan.pc;
  pc.count = static_cast<uint32_t>(count);
  pc.elements = 0;
  pc.words = words;
  pc.index_words = *iw;
  pc.dim = static_cast<uint32_t>(dim);
  pc.n = static_cast<uint32_t>(n);
  pc.inner = static_cast<uint32_t>(inner);
  return plan;
}

std::optional<GatherPlan> gather_elements_plan(const Shape& data, const Shape& indices,
                                               int64_t axis, DataType dtype, DataType index_type) {
  const std::optional<int64_t> a = wrapped_axis(axis, data.size());
  const std::optional<uint32_t> iw = index_words(index_type);
  if (!a || !iw || indices.size() != data.size() || data.size() > kGatherMaxRank)
    return std::nullopt;
  for (size_t d = 0; d < data.size(); ++d) {
    if (static_cast<int64_t>(d) != *a && indices[d] > data[d]) return std::nullopt;
  }
  const uint64_t count = static_cast<uint64_t>(indices.element_count());
  const uint32_t words = element_words(dtype);
  if (count > 0 && data[*a] == 0) return std::nullopt;
  if (!fits_words(count, words) || !fits_words(data.element_count(), words) ||
      !fits_words(count, *iw))
    return std::nullopt;
  GatherPlan plan;
  plan.out_shape = indices;
  GatherPushConstants& pc = plan.pc;
  pc.count = static_cast<uint32_t>(count);
  pc.elements = 1;
  pc.words = words;
  pc.index_words = *iw;
  pc.dim = static_cast<uint32_t>(data[*a]);
  pc.rank = static_cast<uint32_t>(data.size());
  pc.axis = static_cast<uint32_t>(*a);
  uint64_t stride = 1;
  for (size_t d = data.size(); d-- > 0;) {
    pc.shape[d] = static_cast<uint32_t>(indices[d]);
    pc.stride[d] = static_cast<uint32_t>(stride);
    stride *= static_cast<uint64_t>(data[d]);
  }
  pc.axis_stride = pc.stride[*a];
  return plan;
}

std::optional<GatherPlan> gather_nd_plan(const Shape& data, const Shape& indices,
                                         int64_t batch_dims, DataType dtype, DataType index_type) {
  const std::optional<uint32_t> iw = index_words(index_type);
  const auto r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(indices.size());
  if (!iw || r < 1 || q < 1 || batch_dims < 0 || batch_dims >= std::min(r, q)) return std::nullopt;
  const int64_t k = indices[q - 1];
  if (k < 1 || k > r - batch_dims || k > kGatherMaxRank) return std::nullopt;
  GatherPlan plan;
  uint64_t batches = 1, tuples = 1, slice = 1;
  for (int64_t d = 0; d < batch_dims; ++d) {
    if (data[d] != indices[d]) return std::nullopt;
    batches *= static_cast<uint64_t>(data[d]);
  }
  for (int64_t d = 0; d < q - 1; ++d) {
    plan.out_shape.push_back(indices[d]);
    if (d >= batch_dims) tuples *= static_cast<uint64_t>(indices[d]);
  }
  for (int64_t d = batch_dims + k; d < r; ++d) {
    plan.out_shape.push_back(data[d]);
    slice *= static_cast<uint64_t>(data[d]);
  }
  const uint64_t count = batches * tuples * slice;
  const uint32_t words = element_words(dtype);
  if (!fits_words(count, words) || !fits_words(data.element_count(), words) ||
      !fits_words(indices.element_count(), *iw))
    return std::nullopt;
  GatherPushConstants& pc = plan.pc;
  pc.count = static_cast<uint32_t>(count);
  pc.elements = 2;
  pc.words = words;
  pc.index_words = *iw;
  pc.n = static_cast<uint32_t>(tuples);
  pc.inner = static_cast<uint32_t>(slice);
  pc.rank = static_cast<uint32_t>(k);
  uint64_t stride = 1;
  for (int64_t d = r - 1; d >= 0; --d) {
    if (d >= batch_dims && d < batch_dims + k) {
      // Nothing is gathered from an empty indexed dim: the CPU kernel reports any index.
      if (count > 0 && data[d] == 0) return std::nullopt;
      pc.shape[d - batch_dims] = static_cast<uint32_t>(data[d]);
      pc.stride[d - batch_dims] = static_cast<uint32_t>(stride);
    }
    if (d == batch_dims - 1) pc.axis_stride = static_cast<uint32_t>(stride);  // a batch's
    stride *= static_cast<uint64_t>(data[d]);
  }
  return plan;
}

bool gather_nd_indices_in_range(const Tensor& indices, const Shape& data, int64_t batch_dims) {
  const int64_t k = indices.shape().back();
  auto check = [&](auto* v) {
    for (int64_t i = 0; i < indices.element_count(); ++i) {
      const int64_t dim = data[static_cast<size_t>(batch_dims + i % k)];
      if (v[i] < -dim || v[i] >= dim) return false;
    }
    return true;
  };
  if (indices.dtype() == DataType::Int32) return check(indices.data<int32_t>());
  if (indices.dtype() == DataType::Int64) return check(indices.data<int64_t>());
  return false;
}

Gather::Gather(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::gather(), 3, sizeof(GatherPushConstants), workgroup_size}) {}

void Gather::record(VkCommandBuffer cmd, DescriptorArena& arena, const GatherPushConstants& pc,
                    const Buffer& data, const Buffer& indices, const Buffer& out) const {
  const Buffer* buffers[] = {&data, &indices, &out};
  record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
}

}  // namespace kiln::gpu_compute
