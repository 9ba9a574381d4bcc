// Host side of shaders/pad_tile.comp: ONNX Pad (all four modes, negative pads crop) and Tile
// for 32- and 64-bit elements (float32, int32, int64) on contiguous row-major tensors, up to 6
// output dimensions that are not 1.
//
//   PadTile kernel(device);
//   PadParams params{.mode = PadMode::Reflect, .pads = {0, 2, 0, 2}};  // [2, 5] -> [2, 9]
//   submit_and_wait(device, [&](VkCommandBuffer cmd) {
//     kernel.pad(cmd, arena, params, DataType::Float32, x, {2, 5}, y);
//   });
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

namespace kiln::gpu_compute {

// The shader's mode codes; the order is part of the shader interface.
enum class PadMode : uint32_t { Constant, Reflect, Edge, Wrap };

struct PadParams {
  PadMode mode = PadMode::Constant;  // ONNX attribute `mode`
  // ONNX input `pads` for every axis: [begin_0 .. begin_{r-1}, end_0 .. end_{r-1}]. The
  // executor expands the optional `axes` input into this full form (0 for axes not listed).
  // Negative values crop; the non-constant modes then reflect, clamp or wrap inside the
  // cropped range, as ONNX Runtime and kiln's CPU Pad do.
  std::vector<int64_t> pads;
  // ONNX input `constant_value` as raw little-endian bytes of the tensor's type (a float32 or
  // int32 in the low 4 bytes); used in constant mode only.
  uint64_t constant_bits = 0;
};

constexpr int kPadMaxRank = 6;

// Mirrors the shader's push-constant block (std430: plain arrays, no padding).
struct PadPushConstants {
  uint32_t count = 0;
  uint32_t rank = 0;
  uint32_t words = 1;
  uint32_t mode = 0;
  uint32_t value_lo = 0;
  uint32_t value_hi = 0;
  uint32_t value_in_buffer = 0;  // constant mode: the value is the value buffer's first element
  uint32_t in_offset = 0;
  uint32_t out_shape[kPadMaxRank] = {};
  uint32_t in_stride[kPadMaxRank] = {};
  int32_t before[kPadMaxRank] = {};
  int32_t kept[kPadMaxRank] = {};
};
static_assert(sizeof(PadPushConstants) <= kMaxPushConstantBytes);

// Output shapes; kiln::Error for pads of the wrong length, crops larger than an axis, a
// non-constant pad of an axis left empty, or negative repeats.
Shape pad_output_shape(const Shape& in_shape, const PadParams& params);
Shape tile_output_shape(const Shape& in_shape, std::span<const int64_t> repeats);

class PadTile {
 public:
  explicit PadTile(Device& device, uint32_t workgroup_size = 256);

  // Each records its dispatch and a barrier on `out` (nothing for an empty output). Pad's
  // constant is params.constant_bits, or the first element of `value` (of `dtype`) when given: a
  // constant_value computed on the device.
  void pad(VkCommandBuffer cmd, DescriptorArena& arena, const PadParams& params, DataType dtype,
           const Buffer& in, const Shape& in_shape, const Buffer& out,
           const Buffer* value = nullptr) const;
  // ONNX Tile: `repeats` has one entry per axis.
  void tile(VkCommandBuffer cmd, DescriptorArena& arena, std::span<const int64_t> repeats,
            DataType dtype, const Buffer& in, const Shape& in_shape, const Buffer& out) const;

 private:
  struct Axis {
    int64_t before = 0, lo = 0, kept = 0, out = 0;
  };
  void record(VkCommandBuffer cmd, DescriptorArena& arena, PadMode mode, uint64_t constant_bits,
              const Buffer* value, const std::vector<Axis>& axes, DataType dtype, const Buffer& in,
              const Shape& in_shape, const Buffer& out) const;
  static std::vector<Axis> pad_axes(const Shape& in_shape, const PadParams& params);
  static std::vector<Axis> tile_axes(const Shape& in_shape, std::span<const int64_t> repeats);
  friend Shape pad_output_shape(const Shape&, const PadParams&);
  friend Shape tile_output_shape(const Shape&, std::span<const int64_t>);

  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
