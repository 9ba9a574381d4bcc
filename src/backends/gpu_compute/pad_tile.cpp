#include "backends/gpu_compute/pad_tile.h"

#include <algorithm>
#include <string>

#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
std::vector<PadTile::Axis> PadTile::pad_axes(const Shape& in_shape, const PadParams& params) {
  const size_t rank = in_shape.size();
  check(params.pads.size() == 2 * rank, "Pad: pads has " + std::to_string(params.pads.size()) +
                                            " values for rank " + std::to_string(rank) +
                                            " (expected twice the rank)");
  std::vector<Axis> axes(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t begin = params.pads[d], end = params.pads[d + rank];
    Axis& a = axes[d];
    a.lo = std::max<int64_t>(0, -begin);
    const int64_t hi = in_shape[d] - std::max<int64_t>(0, -end);
    check(hi >= a.lo, "Pad: pads crop more than the " + std::to_string(in_shape[d]) +
                          " elements of axis " + std::to_string(d));
    a.kept = hi - a.lo;
    a.before = std::max<int64_t>(0, begin);
    a.out = a.before + a.kept + std::max<int64_t>(0, end);
    check(a.kept > 0 || a.out == 0 || params.mode == PadMode::Constant,
          "Pad: cannot pad axis " + std::to_string(d) +
              " in a non-constant mode: it has no elements to repeat");
  }
  return axes;
}

std::vector<PadTile::Axis> PadTile::tile_axes(const Shape& in_shape,
                                              std::span<const int64_t> repeats) {
  check(repeats.size() == in_shape.size(), "Tile: repeats has " + std::to_string(repeats.size()) +
                                               " values for rank " +
                                               std::to_string(in_shape.size()));
  std::vector<Axis> axes(in_shape.size());
  for (size_t d = 0; d < axes.size(); ++d) {
    check(repeats[d] >= 0, "Tile: repeats has a negative value");
    axes[d] = Axis{0, 0, in_shape[d], in_shape[d] * repeats[d]};
  }
  return axes;
}

Shape pad_output_shape(const Shape& in_shape, const PadParams& params) {
  std::vector<int64_t> out;
  for (const PadTile::Axis& a : PadTile::pad_axes(in_shape, params)) out.push_back(a.out);
  return Shape(out);
}

Shape tile_output_shape(const Shape& in_shape, std::span<const int64_t> repeats) {
  std::vector<int64_t> out;
  for (const PadTile::Axis& a : PadTile::tile_axes(in_shape, repeats)) out.push_back(a.out);
  return Shape(out);
}

PadTile::PadTile(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::pad_tile(), 3, sizeof(PadPushConstants), workgroup_size}) {}

void PadTile::pad(VkCommandBuffer cmd, DescriptorArena& arena, const PadParams& params,
                  DataType dtype, const Buffer& in, const Shape& in_shape, const Buffer& out,
                  const Buffer* value) const {
  record(cmd, arena, params.mode, params.constant_bits, value, pad_axes(in_shape, params), dtype,
         in, in_shape, out);
}

void PadTile::tile(VkCommandBuffer cmd, DescriptorArena& arena, std::span<const int64_t> repeats,
                   DataType dtype, const Buffer& in, const Shape& in_shape,
                   const Buffer& out) const {
  record(cmd, arena, PadMode::Wrap, 0, nullptr, tile_axes(in_shape, repeats), dtype, in, in_shape,
         out);
}

void PadTile::record(VkCommandBuffer cmd, DescriptorArena& arena, PadMode mode,
                     uint64_t constant_bits, const Buffer* value, const std::vector<Axis>& axes,
                     DataType dtype, const Buffer& in, const Shape& in_shape,
                     const Buffer& out) const {
  PadPushConstants pc;
  pc.words = element_words(dtype);
  pc.mode = static_cast<uint32_t>(mode);
  pc.value_lo = static_cast<uint32_t>(constant_bits);
  pc.value_hi = static_cast<uint32_t>(constant_bits >> 32);
  pc.value_in_buffer = value ? 1 : 0;
  uint64_t count = 1;
  for (const Axis& a : axes) count *= static_cast<uint64_t>(a.out);
  const uint64_t in_count = static_cast<uint64_t>(in_shape.element_count());
  // Word indices must fit the shader's signed and unsigned 32-bit arithmetic.
  check(count * pc.words <= INT32_MAX && in_count * pc.words <= INT32_MAX,
        "Pad or Tile on the GPU: tensors exceed 32-bit indexing");
  check(in.size() >= in_count * 4 * pc.words && out.size() >= count * 4 * pc.words,
        "Pad or Tile on the GPU: a buffer is smaller than its shape");
  if (count == 0) return;
  pc.count = static_cast<uint32_t>(count);
  uint64_t stride = 1, offset = 0;
  std::vector<uint64_t> strides(axes.size());
  for (size_t d = axes.size(); d-- > 0;) {
    strides[d] = stride;
    offset += static_cast<uint64_t>(axes[d].lo) * stride;
    stride *= static_cast<uint64_t>(in_shape[d]);
  }
  for (size_t d = 0; d < axes.size(); ++d) {
    const Axis& a = axes[d];
    // An output axis of length 1 whose element lies in the kept range only moves the start.
    if (a.out == 1 && a.before == 0) continue;
    check(pc.rank < kPadMaxRank, "Pad or Tile on the GPU: more than 6 output dimensions");
    pc.out_shape[pc.rank] = static_cast<uint32_t>(a.out);
    pc.in_stride[pc.rank] = static_cast<uint32_t>(strides[d]);
    pc.before[pc.rank] = static_cast<int32_t>(a.before);
    pc.kept[pc.rank] = static_cast<int32_t>(a.kept);
    ++pc.rank;
  }
  pc.in_offset = static_cast<uint32_t>(offset);
  // Without a value buffer the input fills the binding (never read there).
  const Buffer* buffers[] = {&in, &out, value ? value : &in};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&out};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, count), written);
}

}  // namespace kiln::gpu_compute
