// Ops that pick or reorder slices of their input: Unique, Compress, ReverseSequence.
//
// Each sees its input as [outer, extent, inner] around one axis and moves whole inner blocks
// (any element type, by size; strings by assignment).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cpu/strided_copy.h"
#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "opdefs/reverse_sequence.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

struct AxisBlocks {
  int64_t outer = 1, extent = 1, inner = 1;
};

AxisBlocks blocks_around(const Shape& shape, int64_t axis) {
  AxisBlocks b;
  for (int64_t d = 0; d < axis; ++d) b.outer *= shape[d];
  b.extent = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) b.inner *= shape[d];
  return b;
}

const std::byte* bytes_of(const Tensor& t) { return static_cast<const std::byte*>(t.raw_data()); }
std::byte* bytes_of(Tensor& t) { return static_cast<std::byte*>(t.mutable_raw_data()); }

// out[o, j, :] = in[o, picked[j], :] for every outer position o.
void copy_picked_slices(const Tensor& in, const AxisBlocks& b, const std::vector<int64_t>& picked,
                        Tensor& out) {
  const auto count = static_cast<int64_t>(picked.size());
  if (out.element_count() == 0) return;
  cpu::visit_element_mover(in.dtype(), [&]<class M>() {
    constexpr auto size = static_cast<int64_t>(M::size);
    const std::byte* src = bytes_of(in);
    std::byte* dst = bytes_of(out);
    cpu::for_each_chunk(b.outer * count, b.inner * size, [&](int64_t begin, int64_t end) {
      for (int64_t unit = begin; unit < end; ++unit) {
        const int64_t o = unit / count, j = unit % count;
        M::copy_n(dst + unit * b.inner * size, src + (o * b.extent + picked[j]) * b.inner * size,
                  b.inner);
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Unique

// Orders elements for Unique: numbers by value with every NaN equal to every other and after
// all numbers (as numpy.unique does), strings and bools as C++ orders them.
template <class T>
int compare_elements(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> ||
                std::is_integral_v<T>) {
    return a < b ? -1 : (b < a ? 1 : 0);
  } else {
    const double x = to_double(a), y = to_double(b);
    const bool x_nan = std::isnan(x), y_nan = std::isnan(y);
    if (x_nan || y_nan) return x_nan == y_nan ? 0 : (x_nan ? 1 : -1);
    return x < y ? -1 : (y < x ? 1 : 0);
  }
}

// The distinct slices along the axis: for each, the first slice index holding it and how many
// slices hold it; and for each slice, which distinct one it is.
struct UniqueSlices {
  std::vector<int64_t> first;
  std::vector<int64_t> counts;
  std::vector<int64_t> inverse;
};

// Slices compare lexicographically in row-major order of their elements.
template <class T>
UniqueSlices find_unique_slices(const T* x, const AxisBlocks& b, bool sorted) {
  auto compare_slices = [&](int64_t i, int64_t j) {
    for (int64_t o = 0; o < b.outer; ++o) {
      const T* si = x + (o * b.extent + i) * b.inner;
      const T* sj = x + (o * b.extent + j) * b.inner;
      for (int64_t k = 0; k < b.inner; ++k) {
        if (const int c = compare_elements(si[k], sj[k]); c != 0) return c;
      }
    }
    return 0;
  };
  // A stable sort keeps equal slices in input order, so each run starts at its first occurrence.
  std::vector<int64_t> order(static_cast<size_t>(b.extent));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t i, int64_t j) { return compare_slices(i, j) < 0; });

  UniqueSlices u;
  u.inverse.resize(order.size());
  for (size_t r = 0; r < order.size(); ++r) {
    if (r == 0 || compare_slices(order[r - 1], order[r]) != 0) {
      u.first.push_back(order[r]);
      u.counts.push_back(0);
    }
    ++u.counts.back();
    u.inverse[order[r]] = static_cast<int64_t>(u.first.size()) - 1;
  }
  if (!sorted) {
    // Renumber the distinct slices by first occurrence instead of by value.
    std::vector<int64_t> by_occurrence(u.first.size());
    std::iota(by_occurrence.begin(), by_occurrence.end(), int64_t{0});
    std::sort(by_occurrence.begin(), by_occurrence.end(),
              [&](int64_t a, int64_t c) { return u.first[a] < u.first[c]; });
    std::vector<int64_t> new_id(by_occurrence.size());
    UniqueSlices renumbered;
    for (size_t id = 0; id < by_occurrence.size(); ++id) {
      new_id[by_occurrence[id]] = static_cast<int64_t>(id);
      renumbered.first.push_back(u.first[by_occurrence[id]]);
      renumbered.counts.push_back(u.counts[by_occurrence[id]]);
    }
    for (int64_t& v : u.inverse) v = new_id[v];
    renumbered.inverse = std::move(u.inverse);
    u = std::move(renumbered);
  }
  return u;
}

void write_int64_output(OpContext& ctx, size_t index, const std::vector<int64_t>& values) {
  if (!ctx.wants_output(index)) return;
  Tensor& t =
      ctx.allocate_output(index, DataType::Int64, Shape{static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.mutable_data<int64_t>());
}

CpuKernel make_unique(const NodeInfo& info) {
  const bool has_axis = info.has_attr("axis");
  const int64_t axis_attr = info.attr_int("axis", 0);
  const bool sorted = info.attr_int("sorted", 1) != 0;
  return [has_axis, axis_attr, sorted](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    // Without an axis the input is flattened and its elements are the slices.
    const Tensor flat = has_axis ? x : x.reshaped(Shape{x.element_count()});
    const int64_t axis =
        checked_axis(ctx, has_axis ? axis_attr : 0, static_cast<int64_t>(flat.rank()), "axis");
    const AxisBlocks b = blocks_around(flat.shape(), axis);
    UniqueSlices u;
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_complex_v<T>) {
        ctx.fail("complex tensors have no order for Unique");
      } else {
        u = find_unique_slices(flat.data<T>(), b, sorted);
      }
    });
    Shape y_shape = flat.shape();
    y_shape[axis] = static_cast<int64_t>(u.first.size());
    copy_picked_slices(flat, b, u.first, ctx.allocate_output(0, x.dtype(), y_shape));
    write_int64_output(ctx, 1, u.first);
    write_int64_output(ctx, 2, u.inverse);
    write_int64_output(ctx, 3, u.counts);
  };
}

// ---------------------------------------------------------------------------------------------
// Compress

CpuKernel make_compress(const NodeInfo& info) {
  const bool has_axis = info.has_attr("axis");
  const int64_t axis_attr = info.attr_int("axis", 0);
  return [has_axis, axis_attr](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& condition = ctx.input(1);
    if (condition.dtype() != DataType::Bool || condition.rank() != 1) {
      ctx.fail("condition must be a 1-D bool tensor, got " +
               std::string(dtype_name(condition.dtype())) + condition.shape().to_string());
    }
    // Without an axis the input is flattened first.
    const Tensor flat = has_axis ? x : x.reshaped(Shape{x.element_count()});
    const int64_t axis =
        checked_axis(ctx, has_axis ? axis_attr : 0, static_cast<int64_t>(flat.rank()), "axis");
    const AxisBlocks b = blocks_around(flat.shape(), axis);
    // A shorter condition drops the slices it does not reach; a longer one may only add falses.
    const bool* keep = condition.data<bool>();
    std::vector<int64_t> picked;
    for (int64_t i = 0; i < condition.element_count(); ++i) {
      if (!keep[i]) continue;
      if (i >= b.extent) {
        ctx.fail("condition selects index " + std::to_string(i) + " beyond the axis of size " +
                 std::to_string(b.extent));
      }
      picked.push_back(i);
    }
    Shape y_shape = flat.shape();
    y_shape[axis] = static_cast<int64_t>(picked.size());
    copy_picked_slices(flat, b, picked, ctx.allocate_output(0, x.dtype(), y_shape));
  };
}

// ---------------------------------------------------------------------------------------------
// ReverseSequence

CpuKernel make_reverse_sequence(const NodeInfo& info) {
  const ReverseSequenceAttrs attrs = parse_reverse_sequence_attrs(info);
  return [attrs](OpContext& ctx) {
    const int64_t batch_axis = attrs.batch_axis, time_axis = attrs.time_axis;
    const Tensor& x = ctx.input(0);
    const std::vector<int64_t> lengths =
        resolve_reverse_sequence(NodeInputs{ctx.node(), ctx.inputs()}, attrs);
    const Shape& shape = x.shape();
    const int64_t batch = shape[batch_axis], steps = shape[time_axis];
    Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
    if (x.element_count() == 0) return;
    // Per batch entry, two strided copies of [time, rest...]: the first lengths[b] steps read
    // backwards, the others straight.
    const Shape strides = strides_of(shape);
    Shape region = shape, src_strides = strides;
    region.erase(static_cast<size_t>(batch_axis));
    src_strides.erase(static_cast<size_t>(batch_axis));
    // After dropping the batch axis the time axis is dimension 0.
    const size_t element =
        x.dtype() == DataType::String ? sizeof(std::string) : dtype_size(x.dtype());
    const auto* src = static_cast<const char*>(x.raw_data());
    auto* dst = static_cast<char*>(y.mutable_raw_data());
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t base = b * strides[batch_axis];
      const int64_t len = lengths[b];
      Shape reversed_strides = src_strides;
      reversed_strides[0] = -src_strides[0];
      region[0] = len;
      if (len > 0) {
        cpu::strided_copy(x.dtype(), region, dst + base * element, src_strides,
                          src + (base + (len - 1) * strides[time_axis]) * element,
                          reversed_strides);
      }
      region[0] = steps - len;
      if (len < steps) {
        const int64_t offset = (base + len * strides[time_axis]) * element;
        cpu::strided_copy(x.dtype(), region, dst + offset, src_strides, src + offset, src_strides);
      }
    }
  };
}

}  // namespace

KILN_CPU_OPS(selection);
void register_selection_ops(OpRegistry& registry) {
  registry.add("Unique", make_unique);
  registry.add("Compress", make_compress);
  registry.add("ReverseSequence", make_reverse_sequence);
}

}  // namespace kiln
