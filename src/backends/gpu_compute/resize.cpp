#include "backends/gpu_compute/resize.h"

#include <bit>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {

ResizePlan plan_resize(const Shape& in_shape, std::span<const ResizeAxis> axes,
                       const ResizeOptions& options) {
  check(axes.size() == in_shape.size(), "Resize on the GPU: " + std::to_string(axes.size()) +
                                            " axis descriptions for rank " +
                                            std::to_string(in_shape.size()));
  check(in_shape.size() <= kResizeMaxRank, "Resize on the GPU: rank above 6");
  std::vector<ResizeAxis> all(axes.begin(), axes.end());
  if (all.empty()) all.push_back(ResizeAxis{});  // a scalar is a one-element axis
  ResizePlan plan;
  ResizePushConstants& pc = plan.push;
  pc.rank = static_cast<uint32_t>(all.size());
  pc.fill = options.extrapolation_value;
  pc.nearest = options.mode == ResizeMode::Nearest ? 1 : 0;
  uint64_t count = 1, in_count = 1;
  for (const ResizeAxis& a : all) {
    check(a.in >= 0 && a.out >= 0, "Resize on the GPU: negative length");
    check(a.in > 0 || a.out == 0, "Resize on the GPU: resizing an empty axis to a non-empty one");
    count *= static_cast<uint64_t>(a.out);
    in_count *= static_cast<uint64_t>(a.in);
    plan.out_shape.push_back(a.out);
  }
  if (in_shape.empty()) plan.out_shape = Shape{};
  check(count <= INT32_MAX && in_count <= INT32_MAX,
        "Resize on the GPU: tensors exceed 32-bit indexing");
  pc.count = static_cast<uint32_t>(count);
  plan.in_elements = in_count;
  if (count == 0) return plan;

  uint64_t stride = 1;
  for (size_t d = all.size(); d-- > 0;) {
    pc.in_stride[d] = static_cast<uint32_t>(stride);
    stride *= static_cast<uint64_t>(all[d].in);
  }
  for (size_t d = 0; d < all.size(); ++d) {
    AxisTaps taps;
    compute_axis_taps(all[d], options, taps);
    const int64_t out = all[d].out, max_taps = taps.max_count;
    pc.out_shape[d] = static_cast<uint32_t>(out);
    pc.max_taps[d] = static_cast<uint32_t>(max_taps);
    pc.table_offset[d] = static_cast<uint32_t>(plan.table.size());
    for (int64_t o = 0; o < out; ++o) {
      plan.table.push_back(static_cast<uint32_t>(taps.first[o + 1] - taps.first[o]));
    }
    const size_t rows = plan.table.size();
    plan.table.resize(rows + static_cast<size_t>(out * max_taps * 2), 0);
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t t = taps.first[o]; t < taps.first[o + 1]; ++t) {
        const size_t e = rows + static_cast<size_t>((o * max_taps + (t - taps.first[o])) * 2);
        plan.table[e] = static_cast<uint32_t>(static_cast<int32_t>(taps.index[t]));
        plan.table[e + 1] = std::bit_cast<uint32_t>(taps.weight[t]);
      }
    }
    check(plan.table.size() <= INT32_MAX, "Resize on the GPU: tap table too large");
  }
  return plan;
}

Resize::Resize(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::resize(), 3, sizeof(ResizePushConstants), workgroup_size}) {}

void Resize::record(VkCommandBuffer cmd, DescriptorArena& arena, const ResizePlan& plan,
                    const Buffer& x, const Buffer& table, const Buffer& y) const {
  const ResizePushConstants& pc = plan.push;
  if (pc.count == 0) return;
  check(table.size() >= plan.table_bytes() && y.size() >= uint64_t{pc.count} * sizeof(float) &&
            x.size() >= plan.in_elements * sizeof(float),
        "Resize on the GPU: a buffer is smaller than its shape");
  const Buffer* buffers[] = {&x, &table, &y};
  record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
}

}  // namespace kiln::gpu_compute
