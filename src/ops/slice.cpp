// Slice: the output is the input read from a start offset with strides multiplied by the steps
// (negative for negative steps), one strided copy.
#include <algorithm>

#include "backends/cpu/strided_copy.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/op_utils.h"

namespace kiln {

namespace {

// Applies the slice lists to `x` and writes output 0. Empty `axes` means 0..n-1, empty
// `steps` all ones.
void run_slice(OpContext& ctx, const Tensor& x, const Shape& starts, const Shape& ends,
               const Shape& axes, const Shape& steps) {
  const Shape& in = x.shape();
  const auto rank = static_cast<int64_t>(in.size());
  const size_t n = starts.size();
  if (ends.size() != n) {
    ctx.fail("starts and ends have different lengths (" + std::to_string(n) + " and " +
             std::to_string(ends.size()) + ")");
  }
  if (!axes.empty() && axes.size() != n) {
    ctx.fail("axes has " + std::to_string(axes.size()) + " entries, starts has " +
             std::to_string(n));
  }
  if (!steps.empty() && steps.size() != n) {
    ctx.fail("steps has " + std::to_string(steps.size()) + " entries, starts has " +
             std::to_string(n));
  }
  if (static_cast<int64_t>(n) > rank) {
    ctx.fail(std::to_string(n) + " slices given for an input of rank " + std::to_string(rank));
  }
  // Per dimension: first element and step; untouched dimensions keep everything.
  Shape out_shape = in, first, step;
  first.resize(in.size(), 0);
  step.resize(in.size(), 1);
  Shape sliced;
  sliced.resize(in.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t axis =
        checked_axis(ctx, axes.empty() ? static_cast<int64_t>(i) : axes[i], rank, "axis");
    if (sliced[axis]) ctx.fail("axis " + std::to_string(axis) + " is sliced more than once");
    sliced[axis] = 1;
    int64_t s = steps.empty() ? 1 : steps[i];
    if (s == 0) ctx.fail("step of axis " + std::to_string(axis) + " is 0");
    const int64_t dim = in[axis];
    // A step longer than the axis takes one element at most; shortening it keeps the
    // arithmetic below (and the strides) from overflowing.
    const int64_t max_step = std::max<int64_t>(dim, 1);
    s = std::clamp(s, -max_step, max_step);
    int64_t b = starts[i], e = ends[i];
    // Negative bounds count from the end; then bounds are clamped (ONNX Slice-13): to [0, dim]
    // going forward, to [-1, dim - 1] going backward, where -1 is "before the first element".
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    int64_t count;
    if (dim == 0) {
      b = 0;
      count = 0;
    } else if (s > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count = e > b ? (e - b - 1) / s + 1 : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count = b > e ? (b - e - 1) / -s + 1 : 0;
    }
    out_shape[axis] = count;
    first[axis] = b;
    step[axis] = s;
  }
  Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
  if (y.element_count() == 0) return;
  const Shape in_strides = strides_of(in);
  Shape src_strides;
  src_strides.resize(in.size());
  int64_t offset = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    offset += first[d] * in_strides[d];
    src_strides[d] = step[d] * in_strides[d];
  }
  const auto* src = static_cast<const std::byte*>(x.raw_data()) +
                    offset * static_cast<int64_t>(dtype_size(x.dtype()));
  cpu::strided_copy_to_contiguous(x.dtype(), out_shape, y.mutable_raw_data(), src, src_strides);
}

CpuKernel make_slice(const NodeInfo& info) {
  if (info.opset() < 10) {
    // Slice-1: the lists are attributes.
    const Shape starts(info.required_ints("starts"));
    const Shape ends(info.required_ints("ends"));
    const Shape axes(info.attr_ints("axes"));
    return [=](OpContext& ctx) { run_slice(ctx, ctx.input(0), starts, ends, axes, Shape{}); };
  }
  if (!info.has_input(1) || !info.has_input(2))
    info.fail("the starts and ends inputs are required");
  return [](OpContext& ctx) {
    const Shape starts = read_index_list(ctx, ctx.input(1), "starts");
    const Shape ends = read_index_list(ctx, ctx.input(2), "ends");
    const Shape axes = ctx.has_input(3) ? read_index_list(ctx, ctx.input(3), "axes") : Shape{};
    const Shape steps = ctx.has_input(4) ? read_index_list(ctx, ctx.input(4), "steps") : Shape{};
    if (ctx.has_input(3) && axes.size() != starts.size()) {
      ctx.fail("axes has " + std::to_string(axes.size()) + " entries, starts has " +
               std::to_string(starts.size()));
    }
    run_slice(ctx, ctx.input(0), starts, ends, axes, steps);
  };
}

}  // namespace

KILN_CPU_OPS(slice);
void register_slice_ops(OpRegistry& registry) { registry.add("Slice", make_slice); }

}  // namespace kiln
