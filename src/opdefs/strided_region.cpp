#include "opdefs/strided_region.h"

#include <algorithm>
#include <string>

#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln {

StridedRegion plan_transpose(const Shape& in_shape, std::span<const int64_t> perm) {
  const size_t rank = in_shape.size();
  std::vector<int64_t> p(perm.begin(), perm.end());
  if (p.empty()) {
    for (size_t d = 0; d < rank; ++d) p.push_back(static_cast<int64_t>(rank - 1 - d));
  }
  check(p.size() == rank, "Transpose: perm has " + std::to_string(p.size()) +
                              " entries for an input of rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  const Shape strides = strides_of(in_shape);
  StridedRegion r;
  for (int64_t axis : p) {
    check(axis >= 0 && axis < static_cast<int64_t>(rank) && !seen[axis],
          "Transpose: perm is not a permutation of 0.." + std::to_string(rank - 1));
    seen[axis] = true;
    r.shape.push_back(in_shape[axis]);
    r.in_strides.push_back(strides[axis]);
  }
  return r;
}

StridedRegion plan_slice(const Shape& in_shape, std::span<const int64_t> starts,
                         std::span<const int64_t> ends, std::span<const int64_t> axes,
                         std::span<const int64_t> steps) {
  check(ends.size() == starts.size() && (axes.empty() || axes.size() == starts.size()) &&
            (steps.empty() || steps.size() == starts.size()),
        "Slice: starts, ends, axes and steps differ in length");
  // normalize_axis takes axis 0 of a scalar (for ops that treat it as rank 1); a slice cannot.
  check(starts.size() <= in_shape.size(), "Slice: " + std::to_string(starts.size()) +
                                              " slices for an input of rank " +
                                              std::to_string(in_shape.size()));
  const Shape strides = strides_of(in_shape);
  StridedRegion r;
  r.shape.assign(in_shape.begin(), in_shape.end());
  r.in_strides.assign(strides.begin(), strides.end());
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

StridedRegion plan_expand(const Shape& in_shape, const Shape& target) {
  const Shape out = broadcast_shapes(in_shape, target, "Expand");
  const Shape strides = broadcast_strides(in_shape, out);
  StridedRegion r;
  r.shape.assign(out.begin(), out.end());
  r.in_strides.assign(strides.begin(), strides.end());
  return r;
}

namespace {

// The largest block whose square and products with image sizes stay far from overflow.
constexpr int64_t kMaxBlock = int64_t{1} << 20;

void check_nchw(const Shape& s, int64_t b, const char* op) {
  check(s.size() == 4, std::string(op) + ": the input must be 4-D (NCHW), got " + s.to_string());
  check(b > 0 && b <= kMaxBlock,
        std::string(op) + ": blocksize must be in [1, 2^20], got " + std::to_string(b));
}

}  // namespace

StridedRegion plan_depth_to_space(const Shape& s, int64_t b, bool crd) {
  check_nchw(s, b, "DepthToSpace");
  check(s[1] % (b * b) == 0, "DepthToSpace: channels " + std::to_string(s[1]) +
                                 " are not a multiple of blocksize^2 = " + std::to_string(b * b));
  const int64_t c = s[1] / (b * b);
  if (crd) {
    const int64_t perm[] = {0, 1, 4, 2, 5, 3};
    return plan_transpose(Shape{s[0], c, b, b, s[2], s[3]}, perm);
  }
  const int64_t perm[] = {0, 3, 4, 1, 5, 2};
  return plan_transpose(Shape{s[0], b, b, c, s[2], s[3]}, perm);
}

StridedRegion plan_space_to_depth(const Shape& s, int64_t b) {
  check_nchw(s, b, "SpaceToDepth");
  check(s[2] % b == 0 && s[3] % b == 0, "SpaceToDepth: height and width " + std::to_string(s[2]) +
                                            "x" + std::to_string(s[3]) +
                                            " are not multiples of blocksize " + std::to_string(b));
  const int64_t perm[] = {0, 3, 5, 1, 2, 4};
  return plan_transpose(Shape{s[0], s[1], s[2] / b, b, s[3] / b, b}, perm);
}

}  // namespace kiln
