// Concat and Split. Seen as [outer, axis * inner], every input of Concat (output of Split) is a
// block of columns of the bigger tensor: a 2-D strided copy whose rows are one memcpy each.
#include "backends/cpu/strided_copy.h"
#include "kernels/op_registry.h"
#include "opdefs/concat.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"

namespace kiln {

namespace {

std::byte* byte_at(Tensor& t, int64_t element) {
  return static_cast<std::byte*>(t.mutable_raw_data()) +
         element * static_cast<int64_t>(dtype_size(t.dtype()));
}
const std::byte* byte_at(const Tensor& t, int64_t element) {
  return static_cast<const std::byte*>(t.raw_data()) +
         element * static_cast<int64_t>(dtype_size(t.dtype()));
}

CpuKernel make_concat(const NodeInfo& info) {
  const int64_t axis_attr = parse_concat_axis(info);
  return [=](OpContext& ctx) {
    const size_t count = ctx.num_inputs();
    if (count == 0 || !ctx.has_input(0)) ctx.fail("needs at least one input");
    const Tensor& first = ctx.input(0);
    for (size_t i = 0; i < count; ++i) {
      if (!ctx.has_input(i)) ctx.fail("input " + std::to_string(i) + " is missing");
      const Tensor& t = ctx.input(i);
      if (t.dtype() != first.dtype()) {
        ctx.fail("input " + std::to_string(i) + " is " + std::string(dtype_name(t.dtype())) +
                 ", input 0 is " + std::string(dtype_name(first.dtype())));
      }
    }
    const Shape out_shape = concat_output_shape(
        count, [&](size_t i) -> const Shape& { return ctx.input(i).shape(); }, axis_attr,
        [&] { return ctx.node().describe(); });
    const auto rank = static_cast<int64_t>(first.rank());
    const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
    Tensor& y = ctx.allocate_output(0, first.dtype(), out_shape);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis) outer *= out_shape[d];
      if (d > axis) inner *= out_shape[d];
    }
    const int64_t out_row = out_shape[axis] * inner;
    int64_t column = 0;
    for (size_t i = 0; i < count; ++i) {
      const Tensor& t = ctx.input(i);
      const int64_t row = t.shape()[axis] * inner;
      if (row == 0 || outer == 0) continue;  // nothing to copy, and no data to point into
      cpu::strided_copy(t.dtype(), Shape{outer, row}, byte_at(y, column), Shape{out_row, 1},
                        t.raw_data(), Shape{row, 1});
      column += row;
    }
  };
}

CpuKernel make_split(const NodeInfo& info) {
  const SplitAttrs attrs = parse_split_attrs(info);
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& in = x.shape();
    const auto rank = static_cast<int64_t>(in.size());
    const auto outputs = static_cast<int64_t>(ctx.num_outputs());
    Shape split_input;
    const bool split_given = attrs.split_from_input && ctx.has_input(1);
    if (split_given) split_input = read_index_list(ctx, ctx.input(1), "split");
    int64_t axis = 0;
    const Shape split =
        resolve_split(attrs, in, outputs, split_given ? &split_input : nullptr, ctx.node(), &axis);
    const int64_t dim = in[axis];
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis) outer *= in[d];
      if (d > axis) inner *= in[d];
    }
    const int64_t in_row = dim * inner;
    int64_t column = 0;
    for (int64_t i = 0; i < outputs; ++i) {
      const int64_t row = split[i] * inner;
      if (ctx.wants_output(i)) {
        Shape out_shape = in;
        out_shape[axis] = split[i];
        Tensor& y = ctx.allocate_output(i, x.dtype(), out_shape);
        if (row != 0 && outer != 0)
          cpu::strided_copy(x.dtype(), Shape{outer, row}, y.mutable_raw_data(), Shape{row, 1},
                            byte_at(x, column), Shape{in_row, 1});
      }
      column += row;
    }
  };
}

}  // namespace

KILN_CPU_OPS(concat_split);
void register_concat_split_ops(OpRegistry& registry) {
  registry.add("Concat", make_concat);
  registry.add("Split", make_split);
}

}  // namespace kiln
