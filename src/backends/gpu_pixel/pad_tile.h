// Pad (constant, reflect, edge, wrap) and Tile on texture tensors: one shader that maps each
// output coordinate back into the input per dimension, c_in = c_out - pad_begin, and resolves
// coordinates outside the input by the mode. Tile is wrap mode without padding at the start.
// Ranks up to 6.
//
//   PadTile kernel(context);
//   kernel.pad(x, {2, 3}, {1, 0, 1, 2}, PadMode::Reflect, 0.0f, y);
//
// Any texture format, the same for x and y; an int64 tensor goes as its words (texel_dtype.h):
// its shape with a trailing axis of 2 that neither pads nor tiles.
//   kernel.tile(x, {2, 3}, {2, 1}, y);
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/fill.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

enum class PadMode { Constant, Reflect, Edge, Wrap };
// "constant", "reflect", "edge" or "wrap"; kiln::Error otherwise.
PadMode pad_mode_from_string(const std::string& mode);

constexpr int kPadMaxRank = 6;

// The shader's uniforms.
struct PadIndexing {
  int count = 0;  // output elements
  int rank = 0;
  std::array<int, kPadMaxRank> out_shape{};
  std::array<int, kPadMaxRank> in_shape{};
  // Negative pads crop first (crop at the start, extent what remains); the positive ones then
  // pad that extent, so reflect and wrap see the cropped tensor, as on the CPU.
  std::array<int, kPadMaxRank> crop{};
  std::array<int, kPadMaxRank> extent{};
  std::array<int, kPadMaxRank> pad_begin{};
};

// ONNX Pad's output shape and uniforms: `pads` holds all begins then all ends (2 * rank values,
// possibly negative). kiln::Error for a wrong count, a negative output dimension, reflect on a
// dimension too small for its pads, or padding (not cropping) an empty dimension.
PadIndexing pad_indexing(const Shape& in_shape, std::span<const int64_t> pads, PadMode mode);
// Tile's output shape and uniforms: wrap mode over in_shape * repeats. kiln::Error for a wrong
// count or a negative repeat.
PadIndexing tile_indexing(const Shape& in_shape, std::span<const int64_t> repeats);

class PadTile {
 public:
  explicit PadTile(Context& context) : context_(context) {}

  void pad(const TextureTensor& x, const Shape& x_shape, std::span<const int64_t> pads,
           PadMode mode, const ConstantValue& value, TextureTensor& y) const;
  void tile(const TextureTensor& x, const Shape& x_shape, std::span<const int64_t> repeats,
            TextureTensor& y) const;

 private:
  void record(const PadIndexing& ix, PadMode mode, const ConstantValue& value,
              const TextureTensor& x, TextureTensor& y, const char* op) const;

  Context& context_;
};

}  // namespace kiln::gpu_pixel
