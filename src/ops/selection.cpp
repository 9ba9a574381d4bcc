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
#include "opdefs/compress.h"
#include "opdefs/reverse_sequence.h"
#include "opdefs/unique.h"
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
  const UniqueAttrs attrs = parse_unique_attrs(info);
  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const UniqueLayout l = resolve_unique(NodeInputs{ctx.node(), ctx.inputs()}, attrs);
    const Tensor flat = x.reshaped(l.source);
    const AxisBlocks b{l.outer, l.extent, l.inner};
    UniqueSlices u;
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (!is_complex_v<T>) u = find_unique_slices(flat.data<T>(), b, attrs.sorted);
    });
    Shape y_shape = l.source;
    y_shape[l.axis] = static_cast<int64_t>(u.first.size());
    copy_picked_slices(flat, b, u.first, ctx.allocate_output(0, x.dtype(), y_shape));
    write_int64_output(ctx, 1, u.first);
    write_int64_output(ctx, 2, u.inverse);
    write_int64_output(ctx, 3, u.counts);
  };
}

// ---------------------------------------------------------------------------------------------
// Compress

CpuKernel make_compress(const NodeInfo& info) {
  const CompressAttrs attrs = parse_compress_attrs(info);
  return [attrs](OpContext& ctx) {
    const CompressSelection s = resolve_compress(NodeInputs{ctx.node(), ctx.inputs()}, attrs);
    const Tensor& x = ctx.input(0);
    const Tensor flat = attrs.has_axis ? x : x.reshaped(s.source);
    copy_picked_slices(flat, blocks_around(s.source, s.axis), s.picked,
                       ctx.allocate_output(0, x.dtype(), s.out));
  };
}

// ---------------------------------------------------------------------------------------------
// ReverseSequence

CpuKernel make_reverse_sequence(const NodeInfo& info) {
  const reverse_sequence::Axes axes = reverse_sequence::parse_axes(info);
  return [axes](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const std::vector<StridedCopy> copies =
        reverse_sequence::plan_copies({ctx.node(), ctx.inputs()}, axes);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    const size_t element =
        x.dtype() == DataType::String ? sizeof(std::string) : dtype_size(x.dtype());
    const auto* src = static_cast<const char*>(x.raw_data());
    auto* dst = static_cast<char*>(y.mutable_raw_data());
    for (const StridedCopy& c : copies) {
      cpu::strided_copy(x.dtype(), Shape(c.shape), dst + c.out_offset * element,
                        Shape(c.out_strides), src + c.in_offset * element, Shape(c.in_strides));
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
