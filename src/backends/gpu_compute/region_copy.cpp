#include "backends/gpu_compute/region_copy.h"

#include <string>

#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_compute {
namespace {

std::vector<int64_t> contiguous_strides(const Shape& shape) {
  const Shape strides = strides_of(shape);
  return {strides.begin(), strides.end()};
}

// The smallest and largest element index `region` reaches through `strides` from `offset`.
std::pair<int64_t, int64_t> index_range(const Region& region, int64_t offset,
                                        const std::vector<int64_t>& strides) {
  int64_t lo = offset, hi = offset;
  for (size_t d = 0; d < region.shape.size(); ++d) {
    const int64_t reach = (region.shape[d] - 1) * strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi};
}

struct Dim {
  int64_t n, in, out;
};

// Size-1 dimensions add nothing to any index; a dimension that is contiguous after its
// predecessor in both tensors merges with it. Both keep high-rank regions within
// kRegionMaxRank.
std::vector<Dim> merged_dims(const Region& region) {
  std::vector<Dim> dims;
  for (size_t d = 0; d < region.shape.size(); ++d) {
    const Dim c{region.shape[d], region.in_strides[d], region.out_strides[d]};
    if (c.n == 1) continue;
    if (!dims.empty() && dims.back().in == c.in * c.n && dims.back().out == c.out * c.n) {
      dims.back() = {dims.back().n * c.n, c.in, c.out};
    } else {
      dims.push_back(c);
    }
  }
  return dims;
}

}  // namespace

std::vector<Region> regions_within_rank(const Region& region, uint64_t max_pieces) {
  const size_t rank = region.shape.size();
  check(region.in_strides.size() == rank && region.out_strides.size() == rank,
        "region copy: shape and strides differ in rank");
  for (int64_t n : region.shape) {
    check(n >= 0, "region copy: negative dimension");
    if (n == 0) return {region};  // nothing to copy
  }
  const std::vector<Dim> dims = merged_dims(region);
  if (dims.size() <= kRegionMaxRank) return {region};
  const size_t peeled = dims.size() - kRegionMaxRank;
  uint64_t pieces = 1;
  for (size_t k = 0; k < peeled; ++k) {
    pieces *= static_cast<uint64_t>(dims[k].n);
    check(pieces <= max_pieces, "region copy on the GPU: more than " + std::to_string(max_pieces) +
                                    " copies for " + std::to_string(dims.size()) + " dimensions");
  }
  Region inner;
  for (size_t k = peeled; k < dims.size(); ++k) {
    inner.shape.push_back(dims[k].n);
    inner.in_strides.push_back(dims[k].in);
    inner.out_strides.push_back(dims[k].out);
  }
  std::vector<Region> out;
  for (uint64_t p = 0; p < pieces; ++p) {
    Region r = inner;
    r.in_offset = region.in_offset;
    r.out_offset = region.out_offset;
    auto rest = static_cast<int64_t>(p);
    for (size_t k = peeled; k-- > 0;) {
      const int64_t index = rest % dims[k].n;
      rest /= dims[k].n;
      r.in_offset += index * dims[k].in;
      r.out_offset += index * dims[k].out;
    }
    out.push_back(std::move(r));
  }
  return out;
}

uint32_t element_words(DataType dtype) {
  const size_t size = dtype_size(dtype);
  check(size == 4 || size == 8, "region copy on the GPU: elements of " + std::to_string(size) +
                                    " bytes; only 4 and 8 are supported");
  return static_cast<uint32_t>(size / 4);
}

RegionPushConstants region_push_constants(const Region& region, uint32_t words,
                                          uint64_t in_elements, uint64_t out_elements) {
  const size_t rank = region.shape.size();
  check(region.in_strides.size() == rank && region.out_strides.size() == rank,
        "region copy: shape and strides differ in rank");
  RegionPushConstants pc;
  pc.words = words;
  uint64_t count = 1;
  for (int64_t n : region.shape) {
    check(n >= 0, "region copy: negative dimension");
    count *= static_cast<uint64_t>(n);
  }
  if (count == 0) return pc;  // nothing is read or written, so no bounds to check
  check(count <= UINT32_MAX,
        "region copy on the GPU: " + std::to_string(count) + " elements exceed 32-bit indexing");
  pc.count = static_cast<uint32_t>(count);

  // The shader computes word indices in 32 bits, so every reachable one must stay below 2^31.
  const int64_t word_limit = (int64_t{1} << 31) / words;
  const auto [in_lo, in_hi] = index_range(region, region.in_offset, region.in_strides);
  const auto [out_lo, out_hi] = index_range(region, region.out_offset, region.out_strides);
  check(in_lo >= 0 && static_cast<uint64_t>(in_hi) < in_elements,
        "region copy: the region reads outside the input buffer");
  check(out_lo >= 0 && static_cast<uint64_t>(out_hi) < out_elements,
        "region copy: the region writes outside the output buffer");
  check(in_hi < word_limit && out_hi < word_limit,
        "region copy on the GPU: indices exceed 32-bit indexing");
  pc.in_offset = static_cast<int32_t>(region.in_offset);
  pc.out_offset = static_cast<int32_t>(region.out_offset);

  const std::vector<Dim> dims = merged_dims(region);
  check(dims.size() <= kRegionMaxRank, "region copy on the GPU: more than " +
                                           std::to_string(kRegionMaxRank) +
                                           " dimensions remain after merging");
  for (const Dim& d : dims) {
    // Fits: (n - 1) * |stride| is within the checked index range, below 2^31.
    pc.shape[pc.rank] = static_cast<uint32_t>(d.n);
    pc.in_stride[pc.rank] = static_cast<int32_t>(d.in);
    pc.out_stride[pc.rank] = static_cast<int32_t>(d.out);
    ++pc.rank;
  }
  return pc;
}

Region contiguous_output(const StridedRegion& region) {
  Region r;
  r.shape = region.shape;
  r.in_offset = region.in_offset;
  r.in_strides = region.in_strides;
  r.out_strides = contiguous_strides(Shape(r.shape));
  return r;
}

Region transpose_region(const Shape& in_shape, std::span<const int64_t> perm) {
  return contiguous_output(plan_transpose(in_shape, perm));
}

Region slice_region(const Shape& in_shape, std::span<const int64_t> starts,
                    std::span<const int64_t> ends, std::span<const int64_t> axes,
                    std::span<const int64_t> steps) {
  return contiguous_output(plan_slice(in_shape, starts, ends, axes, steps));
}

Region expand_region(const Shape& in_shape, const Shape& target) {
  return contiguous_output(plan_expand(in_shape, target));
}

Region depth_to_space_region(const Shape& in_shape, int64_t block, bool crd) {
  return contiguous_output(plan_depth_to_space(in_shape, block, crd));
}

Region space_to_depth_region(const Shape& in_shape, int64_t block) {
  return contiguous_output(plan_space_to_depth(in_shape, block));
}

std::vector<Region> concat_regions(std::span<const Shape> in_shapes, int64_t axis) {
  check(!in_shapes.empty(), "concat: no inputs");
  const size_t rank = in_shapes[0].size();
  check(rank > 0, "concat: scalar inputs");
  const int64_t a = normalize_axis(axis, static_cast<int64_t>(rank), "concat");
  std::vector<int64_t> out(in_shapes[0].begin(), in_shapes[0].end());
  out[a] = 0;
  for (const Shape& s : in_shapes) {
    check(s.size() == rank, "concat: inputs differ in rank");
    for (size_t d = 0; d < rank; ++d) {
      check(static_cast<int64_t>(d) == a || s[d] == out[d],
            "concat: inputs differ outside the axis");
    }
    out[a] += s[a];
  }
  const std::vector<int64_t> out_strides = contiguous_strides(Shape(out));
  std::vector<Region> regions;
  int64_t offset = 0;
  for (const Shape& s : in_shapes) {
    Region r;
    r.shape.assign(s.begin(), s.end());
    r.in_strides = contiguous_strides(s);
    r.out_offset = offset * out_strides[a];
    r.out_strides = out_strides;
    regions.push_back(std::move(r));
    offset += s[a];
  }
  return regions;
}

Region tile_region(const Shape& in_shape, std::span<const int64_t> repeats) {
  check(repeats.size() == in_shape.size(), "tile: repeats and input differ in length");
  const std::vector<int64_t> in_strides = contiguous_strides(in_shape);
  std::vector<int64_t> out;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    check(repeats[d] >= 0, "tile: negative repeat");
    out.push_back(in_shape[d] * repeats[d]);
  }
  const std::vector<int64_t> out_strides = contiguous_strides(Shape(out));
  Region r;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    r.shape.insert(r.shape.end(), {repeats[d], in_shape[d]});
    r.in_strides.insert(r.in_strides.end(), {0, in_strides[d]});
    r.out_strides.insert(r.out_strides.end(), {in_shape[d] * out_strides[d], out_strides[d]});
  }
  return r;
}

RegionCopy::RegionCopy(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device, PipelineDesc{shaders::region_copy(), 2, sizeof(RegionPushConstants),
                                     workgroup_size}) {}

void RegionCopy::record(VkCommandBuffer cmd, DescriptorArena& arena, const Region& region,
                        DataType dtype, const Buffer& in, const Buffer& out) const {
  // The pieces write disjoint parts of `out`, so only the last one needs a barrier after it.
  const std::vector<Region> pieces = regions_within_rank(region);
  for (size_t k = 0; k < pieces.size(); ++k)
    record(cmd, arena, pieces[k], dtype, in, out, k + 1 == pieces.size());
}

void RegionCopy::record(VkCommandBuffer cmd, DescriptorArena& arena, const Region& region,
                        DataType dtype, const Buffer& in, const Buffer& out, bool barrier) const {
  // 16-bit elements are indexed as elements (one word's worth of index range each) and copied
  // by the shader's half-word mode.
  const bool halves = dtype_size(dtype) == 2;
  const uint32_t words = halves ? 1 : element_words(dtype);
  const size_t element_bytes = halves ? 2 : 4 * size_t{words};
  RegionPushConstants pc =
      region_push_constants(region, words, in.size() / element_bytes, out.size() / element_bytes);
  if (pc.count == 0) return;
  if (halves) pc.words = 0;
  const Buffer* buffers[] = {&in, &out};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&out};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, pc.count), std::span(written, barrier ? 1 : 0));
}

void RegionCopy::transpose(VkCommandBuffer cmd, DescriptorArena& arena, DataType dtype,
                           const Buffer& in, const Shape& in_shape, std::span<const int64_t> perm,
                           const Buffer& out) const {
  record(cmd, arena, transpose_region(in_shape, perm), dtype, in, out);
}

void RegionCopy::slice(VkCommandBuffer cmd, DescriptorArena& arena, DataType dtype,
                       const Buffer& in, const Shape& in_shape, std::span<const int64_t> starts,
                       std::span<const int64_t> ends, std::span<const int64_t> axes,
                       std::span<const int64_t> steps, const Buffer& out) const {
  record(cmd, arena, slice_region(in_shape, starts, ends, axes, steps), dtype, in, out);
}

void RegionCopy::expand(VkCommandBuffer cmd, DescriptorArena& arena, DataType dtype,
                        const Buffer& in, const Shape& in_shape, const Shape& target,
                        const Buffer& out) const {
  record(cmd, arena, expand_region(in_shape, target), dtype, in, out);
}

void RegionCopy::concat(VkCommandBuffer cmd, DescriptorArena& arena, DataType dtype,
                        std::span<const Buffer* const> ins, std::span<const Shape> in_shapes,
                        int64_t axis, const Buffer& out) const {
  check(ins.size() == in_shapes.size(), "concat: buffers and shapes differ in number");
  const std::vector<Region> regions = concat_regions(in_shapes, axis);
  // The copies write disjoint slices, so only the last one needs a barrier after it.
  for (size_t j = 0; j < regions.size(); ++j) {
    record(cmd, arena, regions[j], dtype, *ins[j], out, j + 1 == regions.size());
  }
}

}  // namespace kiln::gpu_compute
