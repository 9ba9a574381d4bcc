// Host side of shaders/region_copy.comp: one strided copy between 32- or 64-bit tensors, and the
// data-movement ops built from it on contiguous row-major tensors.
//
//   RegionCopy copy(device);
//   submit_and_wait(device, [&](VkCommandBuffer cmd) {
//     copy.transpose(cmd, arena, DataType::Float32, x, {2, 3, 4}, {2, 0, 1}, y);
//   });
//
// Each op records its copies followed by a barrier on the output. Pad's interior would fit the
// same kernel (a copy at an output offset after a fill).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/dtype.h"
#include "kiln/shape.h"
#include "opdefs/strided_region.h"

namespace kiln::gpu_compute {

// 8 dimensions after merging: a rank-4 Tile (a repeat and a dim per axis) fits, and the
// push constants stay within 128 bytes.
constexpr int kRegionMaxRank = 8;

// One strided copy, in elements: for every index i of `shape`,
//   out[out_offset + sum_k i_k out_strides[k]] = in[in_offset + sum_k i_k in_strides[k]].
// Input strides may be 0 (broadcast) or negative (reversed).
struct Region {
  std::vector<int64_t> shape;
  int64_t in_offset = 0;
  std::vector<int64_t> in_strides;
  int64_t out_offset = 0;
  std::vector<int64_t> out_strides;
};

// Mirrors the shader's push-constant block (std430: plain arrays, no padding).
struct RegionPushConstants {
  uint32_t count = 0;
  uint32_t rank = 0;
  uint32_t words = 1;
  int32_t in_offset = 0;
  int32_t out_offset = 0;
  uint32_t shape[kRegionMaxRank] = {};
  int32_t in_stride[kRegionMaxRank] = {};
  int32_t out_stride[kRegionMaxRank] = {};
};
static_assert(sizeof(RegionPushConstants) <= kMaxPushConstantBytes);

// 32-bit words per element of `dtype`: 1 for 4-byte types, 2 for 8-byte ones (int64 moves as
// two words); kiln::Error for any other size.
uint32_t element_words(DataType dtype);

// Push constants for `region` between buffers of `in_elements` and `out_elements` elements.
// Drops size-1 dimensions and merges dimensions contiguous in both tensors, so higher ranks
// often fit in kRegionMaxRank. kiln::Error when a reachable index falls outside either buffer,
// more than kRegionMaxRank dimensions remain, or a word index exceeds 32-bit indexing.
RegionPushConstants region_push_constants(const Region& region, uint32_t words,
                                          uint64_t in_elements, uint64_t out_elements);

// At most this many copies record one region whose dimensions exceed kRegionMaxRank.
constexpr uint64_t kRegionMaxPieces = 64;

// `region` as copies the shader takes: size-1 dimensions dropped and contiguous ones merged as
// above, then the leading dimensions beyond kRegionMaxRank peeled into one copy per index (at
// an offset), so a rank-5 Tile of 10 strided dimensions becomes a few 8-dimensional copies.
// Just `region` when it fits or is empty. kiln::Error when more than `max_pieces` copies would
// be needed.
std::vector<Region> regions_within_rank(const Region& region,
                                        uint64_t max_pieces = kRegionMaxPieces);

// `region` with the contiguous row-major output that the data-movement ops of
// opdefs/strided_region.h write.
Region contiguous_output(const StridedRegion& region);

// The regions of ONNX ops (row-major, contiguous input and output), as planned in
// opdefs/strided_region.h. Each Region's shape is the op's output shape (for concat, input j's
// shape inside the output).
Region transpose_region(const Shape& in_shape, std::span<const int64_t> perm);
Region slice_region(const Shape& in_shape, std::span<const int64_t> starts,
                    std::span<const int64_t> ends, std::span<const int64_t> axes,
                    std::span<const int64_t> steps);
Region expand_region(const Shape& in_shape, const Shape& target);
Region depth_to_space_region(const Shape& in_shape, int64_t block, bool crd);
Region space_to_depth_region(const Shape& in_shape, int64_t block);
std::vector<Region> concat_regions(std::span<const Shape> in_shapes, int64_t axis);
// Tile: the output seen as [repeats_0, dim_0, repeats_1, dim_1, ...], reading the input with
// stride 0 over the repeats. kiln::Error when `repeats` has the wrong length or a negative entry.
Region tile_region(const Shape& in_shape, std::span<const int64_t> repeats);

class RegionCopy {
 public:
  explicit RegionCopy(Device& device, uint32_t workgroup_size = 256);

  // Records the copy of `region` (the copies of regions_within_rank when it has more dimensions
  // than the shader) followed by a barrier on `out`; nothing for an empty region. Elements of 2,
  // 4 or 8 bytes (element_words for the 4- and 8-byte ones).
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const Region& region, DataType dtype,
              const Buffer& in, const Buffer& out) const;

  // `perm` empty reverses the dimensions, as in ONNX.
  void transpose(VkCommandBuffer cmd, DescriptorArena& arena, DataType dtype, const Buffer& in,
                 const Shape& in_shape, std::span<const int64_t> perm, const Buffer& out) const;
  // `axes` empty means 0..starts.size()-1 and `steps` empty means all 1, as in ONNX.
  void slice(VkCommandBuffer cmd, DescriptorArena& arena, DataType dtype, const Buffer& in,
             const Shape& in_shape, std::span<const int64_t> starts, std::span<const int64_t> ends,
             std::span<const int64_t> axes, std::span<const int64_t> steps,
             const Buffer& out) const;
  // `out` holds the broadcast of `in_shape` and `target`.
  void expand(VkCommandBuffer cmd, DescriptorArena& arena, DataType dtype, const Buffer& in,
              const Shape& in_shape, const Shape& target, const Buffer& out) const;
  // One copy per input into its slice of `out`.
  void concat(VkCommandBuffer cmd, DescriptorArena& arena, DataType dtype,
              std::span<const Buffer* const> ins, std::span<const Shape> in_shapes, int64_t axis,
              const Buffer& out) const;

 private:
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const Region& region, DataType dtype,
              const Buffer& in, const Buffer& out, bool barrier) const;

  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
