#include "backends/gpu_pixel/region_copy.h"

#include <span>
#include <string>
#include <vector>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "kernels/device_backend.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform highp VALUE_SAMPLER x;
uniform int x_width;
uniform int u_rank;
uniform int u_in_offset;
uniform int u_shape[6];
uniform int u_in_stride[6];

VALUE element(int i) {
  // Partial sums stay within the region's index range, which the host checked.
  int rest = i, s = u_in_offset;
  for (int d = u_rank - 1; d >= 0; --d) {
    s += (rest % u_shape[d]) * u_in_stride[d];
    rest /= u_shape[d];
  }
  return fetch_element(x, x_width, s);
}
)";

}  // namespace

RegionIndexing region_indexing(const Region& region, int64_t in_elements) {
  const size_t rank = region.shape.size();
  check(region.in_strides.size() == rank, "region copy: shape and strides differ in rank");
  RegionIndexing ix;
  int64_t count = 1;
  for (int64_t n : region.shape) {
    check(n >= 0, "region copy: negative dimension");
    count *= n;
  }
  if (count == 0) return ix;  // nothing is read, so no bounds to check
  check(count <= INT32_MAX,
        "region copy on OpenGL ES: " + std::to_string(count) + " elements exceed 32-bit indexing");
  ix.count = static_cast<int>(count);
  int64_t lo = region.in_offset, hi = region.in_offset;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t reach = (region.shape[d] - 1) * region.in_strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  check(lo >= 0 && hi < in_elements, "region copy: the region reads outside the input");
  check(hi <= INT32_MAX, "region copy on OpenGL ES: indices exceed 32-bit indexing");
  ix.in_offset = static_cast<int>(region.in_offset);
  struct Dim {
    int64_t n, stride;
  };
  std::vector<Dim> dims;
  for (size_t d = 0; d < rank; ++d) {
    const Dim c{region.shape[d], region.in_strides[d]};
    if (c.n == 1) continue;
    // The output is contiguous, so a dimension merges whenever the input is contiguous too.
    if (!dims.empty() && dims.back().stride == c.stride * c.n) {
      dims.back() = {dims.back().n * c.n, c.stride};
    } else {
      dims.push_back(c);
    }
  }
  // A rank-6 int64 tensor's word axis makes a seventh: the CPU kernel takes that node.
  if (dims.size() > kRegionMaxRank) {
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                   "more than 6 dimensions remain after merging the copy's axes");
  }
  for (const Dim& d : dims) {
    ix.shape[ix.rank] = static_cast<int>(d.n);
    ix.in_stride[ix.rank] = static_cast<int>(d.stride);  // |(n-1) stride| is within the range
    ++ix.rank;
  }
  return ix;
}

Region word_region(const Region& region, DataType dtype) {
  const int64_t words = words_per_element(dtype);
  if (words == 1) return region;
  Region w = region;
  w.in_offset *= words;
  for (int64_t& stride : w.in_strides) stride *= words;
  w.shape.push_back(words);
  w.in_strides.push_back(1);
  return w;
}

Region transpose_region(const Shape& in_shape, std::span<const int64_t> perm) {
  return plan_transpose(in_shape, perm);
}

Region slice_region(const Shape& in_shape, std::span<const int64_t> starts,
                    std::span<const int64_t> ends, std::span<const int64_t> axes,
                    std::span<const int64_t> steps) {
  return plan_slice(in_shape, starts, ends, axes, steps);
}

Region expand_region(const Shape& in_shape, const Shape& target) {
  return plan_expand(in_shape, target);
}

Region depth_to_space_region(const Shape& in_shape, int64_t blocksize, const std::string& mode) {
  check(mode == "DCR" || mode == "CRD",
        "DepthToSpace: mode must be \"DCR\" or \"CRD\", got \"" + mode + "\"");
  return plan_depth_to_space(in_shape, blocksize, mode == "CRD");
}

Region space_to_depth_region(const Shape& in_shape, int64_t blocksize) {
  return plan_space_to_depth(in_shape, blocksize);
}

void RegionCopy::record(const Region& region, const TextureTensor& in, TextureTensor& out) const {
  const RegionIndexing ix = region_indexing(region, in.element_count());
  check(out.element_count() == ix.count, "region copy on OpenGL ES: the output holds " +
                                             std::to_string(out.element_count()) +
                                             " elements, the region " + std::to_string(ix.count));
  if (ix.count == 0) return;
  check(in.format() == out.format(), "region copy on OpenGL ES: the input is " +
                                         std::string(to_string(in.format())) + ", the output " +
                                         to_string(out.format()));
  const ProgramVariant variant = values_variant(out.format());
  const Program& program = context_.programs().get("region_copy", variant.name, variant.defines,
                                                   std::string(kShader) + kElementMain);
  const DrawInput inputs[] = {{"x", &in}};
  draw(context_, program, out, inputs, [&] {
    program.set("u_rank", ix.rank);
    program.set("u_in_offset", ix.in_offset);
    program.set("u_shape", std::span<const int>(ix.shape));
    program.set("u_in_stride", std::span<const int>(ix.in_stride));
  });
}

}  // namespace kiln::gpu_pixel
