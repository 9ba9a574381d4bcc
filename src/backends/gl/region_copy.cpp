#include "backends/gl/region_copy.h"

#include <algorithm>
#include <string>

#include "backends/gl/draw.h"
#include "backends/gl/program.h"
#include "kiln/error.h"
#include "ops/op_utils.h"

namespace kiln::gl {
namespace {

constexpr const char* kShader = R"(
uniform highp sampler2D x;
uniform int x_width;
uniform int u_rank;
uniform int u_in_offset;
uniform int u_shape[6];
uniform int u_in_stride[6];

void main() {
  ivec4 index = output_elements();
  vec4 r = vec4(0.0);
  for (int k = 0; k < 4; ++k) {
    int i = index[k];
    if (i >= u_out_count) break;
    // Partial sums stay within the region's index range, which the host checked.
    int rest = i, s = u_in_offset;
    for (int d = u_rank - 1; d >= 0; --d) {
      s += (rest % u_shape[d]) * u_in_stride[d];
      rest /= u_shape[d];
    }
    r[k] = fetch_element(x, x_width, s);
  }
  out_texel = finish_texel(r);
}
)";

std::vector<int64_t> contiguous_strides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

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
  check(dims.size() <= kRegionMaxRank,
        "region copy on OpenGL ES: more than 6 dimensions remain after merging");
  for (const Dim& d : dims) {
    ix.shape[ix.rank] = static_cast<int>(d.n);
    ix.in_stride[ix.rank] = static_cast<int>(d.stride);  // |(n-1) stride| is within the range
    ++ix.rank;
  }
  return ix;
}

Region transpose_region(const Shape& in_shape, std::span<const int64_t> perm) {
  const size_t rank = in_shape.size();
  std::vector<int64_t> p(perm.begin(), perm.end());
  if (p.empty()) {
    for (size_t d = 0; d < rank; ++d) p.push_back(static_cast<int64_t>(rank - 1 - d));
  }
  check(p.size() == rank, "Transpose: perm has " + std::to_string(p.size()) +
                              " entries for an input of rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  const std::vector<int64_t> strides = contiguous_strides(in_shape.span());
  Region r;
  for (int64_t axis : p) {
    check(axis >= 0 && axis < static_cast<int64_t>(rank) && !seen[axis],
          "Transpose: perm is not a permutation of 0.." + std::to_string(rank - 1));
    seen[axis] = true;
    r.shape.push_back(in_shape[axis]);
    r.in_strides.push_back(strides[axis]);
  }
  return r;
}

Region slice_region(const Shape& in_shape, std::span<const int64_t> starts,
                    std::span<const int64_t> ends, std::span<const int64_t> axes,
                    std::span<const int64_t> steps) {
  check(ends.size() == starts.size() && (axes.empty() || axes.size() == starts.size()) &&
            (steps.empty() || steps.size() == starts.size()),
        "Slice: starts, ends, axes and steps differ in length");
  const std::vector<int64_t> strides = contiguous_strides(in_shape.span());
  Region r;
  r.shape.assign(in_shape.begin(), in_shape.end());
  r.in_strides = strides;
  std::vector<bool> seen(in_shape.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t a = normalize_axis(axes.empty() ? static_cast<int64_t>(i) : axes[i],
                                     static_cast<int64_t>(in_shape.size()), "Slice");
    check(!seen[a], "Slice: axis " + std::to_string(a) + " repeats");
    seen[a] = true;
    const int64_t step = steps.empty() ? 1 : steps[i];
    check(step != 0, "Slice: step 0 on axis " + std::to_string(a));
    const int64_t dim = in_shape[a];
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t n = 0;
    // Magnitudes in unsigned arithmetic: a step of INT64_MIN has no positive counterpart.
    const uint64_t step_size = step > 0 ? uint64_t(step) : 0 - uint64_t(step);
    if (dim > 0 && step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      if (end > start) n = static_cast<int64_t>(uint64_t(end - start - 1) / step_size + 1);
    } else if (dim > 0) {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      if (start > end) n = static_cast<int64_t>(uint64_t(start - end - 1) / step_size + 1);
    }
    r.shape[a] = n;
    if (n > 0) r.in_offset += start * strides[a];
    r.in_strides[a] = n > 1 ? step * strides[a] : 0;  // |step| < dim when n > 1: no overflow
  }
  return r;
}

Region expand_region(const Shape& in_shape, const Shape& target) {
  const Shape out = broadcast_shapes(in_shape, target, "Expand");
  const Shape strides = broadcast_strides(in_shape, out);
  Region r;
  r.shape.assign(out.begin(), out.end());
  r.in_strides.assign(strides.begin(), strides.end());
  return r;
}

namespace {

void check_nchw(const Shape& s, int64_t b, const char* op) {
  check(s.size() == 4, std::string(op) + ": the input must be 4-D (NCHW), got " + s.to_string());
  check(b > 0, std::string(op) + ": blocksize must be positive");
}

}  // namespace

Region depth_to_space_region(const Shape& s, int64_t b, const std::string& mode) {
  check_nchw(s, b, "DepthToSpace");
  check(s[1] % (b * b) == 0, "DepthToSpace: channels " + std::to_string(s[1]) +
                                 " are not a multiple of blocksize^2 = " + std::to_string(b * b));
  const int64_t c = s[1] / (b * b);
  if (mode == "DCR") {
    const int64_t perm[] = {0, 3, 4, 1, 5, 2};
    return transpose_region(Shape{s[0], b, b, c, s[2], s[3]}, perm);
  }
  check(mode == "CRD", "DepthToSpace: mode must be \"DCR\" or \"CRD\", got \"" + mode + "\"");
  const int64_t perm[] = {0, 1, 4, 2, 5, 3};
  return transpose_region(Shape{s[0], c, b, b, s[2], s[3]}, perm);
}

Region space_to_depth_region(const Shape& s, int64_t b) {
  check_nchw(s, b, "SpaceToDepth");
  check(s[2] % b == 0 && s[3] % b == 0, "SpaceToDepth: height and width " + std::to_string(s[2]) +
                                            "x" + std::to_string(s[3]) +
                                            " are not multiples of blocksize " + std::to_string(b));
  const int64_t perm[] = {0, 3, 5, 1, 2, 4};
  return transpose_region(Shape{s[0], s[1], s[2] / b, b, s[3] / b, b}, perm);
}

void RegionCopy::record(const Region& region, const TextureTensor& in, TextureTensor& out) const {
  const RegionIndexing ix = region_indexing(region, in.element_count());
  check(out.element_count() == ix.count, "region copy on OpenGL ES: the output holds " +
                                             std::to_string(out.element_count()) +
                                             " elements, the region " + std::to_string(ix.count));
  if (ix.count == 0) return;
  const Program& program = context_.programs().get("region_copy", "", "", kShader);
  const DrawInput inputs[] = {{"x", &in}};
  draw(context_, program, out, inputs, [&] {
    program.set("u_rank", ix.rank);
    program.set("u_in_offset", ix.in_offset);
    program.set("u_shape", std::span<const int>(ix.shape));
    program.set("u_in_stride", std::span<const int>(ix.in_stride));
  });
}

}  // namespace kiln::gl
