// Strided region copies on texture tensors and the data-movement ops built from them:
// Transpose, Slice, Expand, DepthToSpace and SpaceToDepth. A draw writes whole output texels, so
// a region here always produces a whole contiguous output (there is no output offset or stride,
// unlike the Vulkan copy): for every index (i_0..i_{r-1}) of `shape`, in row-major output order,
//
//   out[i] = in[in_offset + sum_k i_k in_strides[k]]
//
// Input strides may be 0 (broadcast) or negative (reversed). The copy takes any texture format,
// the same for input and output; an int64 tensor's region goes through word_region first. Pad and
// Tile (pad_tile.h), Concat (concat.h) and Gather (gather.h) have their own shaders.
//
//   RegionCopy copy(context);
//   copy.record(transpose_region({2, 3, 4}, perm), x, y);
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/dtype.h"
#include "kiln/shape.h"
#include "opdefs/strided_region.h"

namespace kiln::gpu_pixel {

constexpr int kRegionMaxRank = 6;

using Region = StridedRegion;

// The shader's uniforms for a region.
struct RegionIndexing {
  int count = 0;  // output elements
  int rank = 0;
  int in_offset = 0;
  std::array<int, kRegionMaxRank> shape{};
  std::array<int, kRegionMaxRank> in_stride{};
};

// Drops size-1 dimensions and merges dimensions contiguous in the input, so higher ranks often
// fit in 6. kiln::Error when a reachable index falls outside an input of `in_elements`, more
// than 6 dimensions remain, or indices exceed 32-bit indexing.
RegionIndexing region_indexing(const Region& region, int64_t in_elements);

// `region` of a tensor of `dtype` as the region of its texture's words (texel_dtype.h): for an
// int64 every offset and stride doubles and a trailing axis of 2 walks the two words; unchanged
// for the other dtypes.
Region word_region(const Region& region, DataType dtype);

// The regions of ONNX ops as opdefs/strided_region.h plans them for every GPU backend (see there
// for their attributes and errors); DepthToSpace takes the ONNX `mode`, "DCR" or "CRD".
Region transpose_region(const Shape& in_shape, std::span<const int64_t> perm);
Region slice_region(const Shape& in_shape, std::span<const int64_t> starts,
                    std::span<const int64_t> ends, std::span<const int64_t> axes,
                    std::span<const int64_t> steps);
Region expand_region(const Shape& in_shape, const Shape& target);
Region depth_to_space_region(const Shape& in_shape, int64_t blocksize, const std::string& mode);
Region space_to_depth_region(const Shape& in_shape, int64_t blocksize);

class RegionCopy {
 public:
  explicit RegionCopy(Context& context) : context_(context) {}

  // Draws out = the region of `in`. Nothing for an empty region. kiln::Error when `out` does
  // not hold exactly the region's element count, or `in` is too small for it.
  void record(const Region& region, const TextureTensor& in, TextureTensor& out) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
