// Expand, Tile and Pad: ops that build a larger (or cropped) tensor by repeating, broadcasting or
// reflecting the elements of their input. They never look at element values, so the kernels
// run on storage types (see element_storage.h).
#include <algorithm>
#include <string>

#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

// Rows of at least this many elements per parallel task keep scheduling overhead negligible.
constexpr int64_t kGrainElements = 16384;

int64_t row_grain(int64_t row_length) {
  return std::max<int64_t>(1, kGrainElements / std::max<int64_t>(row_length, 1));
}

// ---------------------------------------------------------------------------------------------
// Expand

// out[i] = in[sum(coord[d] * in_strides[d])], with stride 0 on broadcast dimensions.
template <class S>
void broadcast_copy(const S* in, const Shape& in_strides, S* out, const Shape& out_shape) {
  const int64_t total = out_shape.element_count();
  if (total == 0) return;
  if (out_shape.empty()) {
    out[0] = in[0];
    return;
  }
  const size_t rank = out_shape.size();
  const int64_t inner = out_shape[rank - 1];
  const int64_t inner_stride = in_strides[rank - 1];
  parallel_for(total / inner, row_grain(inner), [&](int64_t begin, int64_t end) {
    RowCursor cursor(out_shape);
    cursor.seek(begin);
    for (int64_t row = begin; row < end; ++row, cursor.next()) {
      int64_t offset = 0;
      for (size_t d = 0; d + 1 < rank; ++d) offset += cursor.coord()[d] * in_strides[d];
      S* dst = out + row * inner;
      if (inner_stride == 0) {
        std::fill(dst, dst + inner, in[offset]);
      } else {
        std::copy(in + offset, in + offset + inner, dst);
      }
    }
  });
}

CpuKernel make_expand(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& shape_input = ctx.input(1);
    if (shape_input.rank() != 1) {
      ctx.fail("the shape input must be 1-D, got shape " + shape_input.shape().to_string());
    }
    Shape requested;
    read_int_list(shape_input, requested, "Expand shape");
    for (int64_t d : requested) {
      if (d < 0) ctx.fail("the shape input " + requested.to_string() + " has a negative dimension");
    }
    const Shape out_shape = broadcast_shapes(x.shape(), requested, "Expand");
    Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
    const Shape strides = broadcast_strides(x.shape(), out_shape);
    visit_storage(x.dtype(), [&]<class S>() {
      broadcast_copy(static_cast<const S*>(x.raw_data()), strides,
                     static_cast<S*>(y.mutable_raw_data()), out_shape);
    });
  };
}

// ---------------------------------------------------------------------------------------------
// Tile

CpuKernel make_tile(const NodeInfo& info) {
  // Opset 1 took (input, tiles, axis); opset 6 onwards a repeats tensor with one entry per axis.
  if (info.opset() < 6) info.fail("Tile before opset 6 (tiles/axis inputs) is not supported");
  return [](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& repeats_input = ctx.input(1);
    const Shape& in_shape = x.shape();
    const size_t rank = in_shape.size();
    Shape repeats;
    read_int_list(repeats_input, repeats, "Tile repeats");
    if (repeats_input.rank() > 1 || repeats.size() != rank) {
      ctx.fail("repeats must be a 1-D tensor with one value per input dimension (" +
               std::to_string(rank) + "), got shape " + repeats_input.shape().to_string());
    }
    Shape out_shape;
    out_shape.resize(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (repeats[d] < 0) ctx.fail("repeats " + repeats.to_string() + " has a negative value");
      out_shape[d] = in_shape[d] * repeats[d];
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
    const int64_t total = out_shape.element_count();
    if (total == 0) return;
    visit_storage(x.dtype(), [&]<class S>() {
      const S* in = static_cast<const S*>(x.raw_data());
      S* out = static_cast<S*>(y.mutable_raw_data());
      if (rank == 0) {
        out[0] = in[0];
        return;
      }
      const Shape in_strides = strides_of(in_shape);
      const int64_t in_inner = in_shape[rank - 1];
      const int64_t out_inner = out_shape[rank - 1];
      parallel_for(total / out_inner, row_grain(out_inner), [&](int64_t begin, int64_t end) {
        RowCursor cursor(out_shape);
        cursor.seek(begin);
        for (int64_t row = begin; row < end; ++row, cursor.next()) {
          int64_t offset = 0;
          for (size_t d = 0; d + 1 < rank; ++d) {
            offset += (cursor.coord()[d] % in_shape[d]) * in_strides[d];
          }
          S* dst = out + row * out_inner;
          for (int64_t r = 0; r < repeats[rank - 1]; ++r) {
            dst = std::copy(in + offset, in + offset + in_inner, dst);
          }
        }
      });
    });
  };
}

// ---------------------------------------------------------------------------------------------
// Pad

enum class PadMode { Constant, Reflect, Edge, Wrap };

// One axis of a pad: the output is `before` mapped elements, the kept input range
// [lo, lo + n), then `after` mapped elements. Negative pads crop the input first, and the
// non-constant modes then reflect, clamp or wrap inside the cropped range (as ONNX Runtime does).
struct PadAxis {
  int64_t before = 0;
  int64_t lo = 0;
  int64_t n = 0;
  int64_t out = 0;

  // The input index for output index o, or -1 where the constant value goes.
  int64_t source(int64_t o, PadMode mode) const {
    int64_t j = o - before;
    if (j >= 0 && j < n) return lo + j;
    switch (mode) {
      case PadMode::Constant:
        return -1;
      case PadMode::Edge:
        j = std::clamp<int64_t>(j, 0, n - 1);
        break;
      case PadMode::Wrap:
        j %= n;
        if (j < 0) j += n;
        break;
      case PadMode::Reflect: {
        // Repeated reflection (as numpy does for pads wider than the axis): the pattern
        // 0 1 .. n-1 n-2 .. 1 has period 2(n-1).
        if (n == 1) {
          j = 0;
          break;
        }
        const int64_t period = 2 * (n - 1);
        j %= period;
        if (j < 0) j += period;
        if (j >= n) j = period - j;
        break;
      }
    }
    return lo + j;
  }
};

PadMode parse_pad_mode(const NodeInfo& info) {
  const std::string mode = info.attr_string("mode", "constant");
  if (mode == "constant") return PadMode::Constant;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "edge") return PadMode::Edge;
  if (mode == "wrap") return PadMode::Wrap;
  info.fail("unknown mode '" + mode + "' (expected constant, reflect, edge or wrap)");
}

template <class S>
void pad_copy(const S* in, const Shape& in_shape, S* out, const Shape& out_shape,
              const PadAxis* axes, PadMode mode, const S& value) {
  const size_t rank = out_shape.size();
  const int64_t total = out_shape.element_count();
  if (total == 0) return;
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  const Shape in_strides = strides_of(in_shape);
  const PadAxis& last = axes[rank - 1];
  const int64_t out_inner = last.out;
  parallel_for(total / out_inner, row_grain(out_inner), [&](int64_t begin, int64_t end) {
    RowCursor cursor(out_shape);
    cursor.seek(begin);
    for (int64_t row = begin; row < end; ++row, cursor.next()) {
      S* dst = out + row * out_inner;
      int64_t offset = 0;
      bool constant_row = false;
      for (size_t d = 0; d + 1 < rank; ++d) {
        const int64_t src = axes[d].source(cursor.coord()[d], mode);
        if (src < 0) {
          constant_row = true;
          break;
        }
        offset += src * in_strides[d];
      }
      if (constant_row) {
        std::fill(dst, dst + out_inner, value);
        continue;
      }
      const S* src_row = in + offset;
      // The kept middle part is one contiguous copy; only the borders need the index mapping.
      const int64_t mid_begin = std::clamp<int64_t>(last.before, 0, out_inner);
      const int64_t mid_end = std::clamp<int64_t>(last.before + last.n, 0, out_inner);
      for (int64_t o = 0; o < mid_begin; ++o) {
        const int64_t s = last.source(o, mode);
        dst[o] = s < 0 ? value : src_row[s];
      }
      std::copy(src_row + last.lo + (mid_begin - last.before),
                src_row + last.lo + (mid_end - last.before), dst + mid_begin);
      for (int64_t o = mid_end; o < out_inner; ++o) {
        const int64_t s = last.source(o, mode);
        dst[o] = s < 0 ? value : src_row[s];
      }
    }
  });
}

CpuKernel make_pad(const NodeInfo& info) {
  const PadMode mode = parse_pad_mode(info);
  const int opset = info.opset();
  // Before opset 11 the pads and the constant are attributes ("paddings" in opset 1).
  std::vector<int64_t> attr_pads;
  float attr_value = 0.0f;
  if (opset < 11) {
    const char* name = opset < 2 ? "paddings" : "pads";
    attr_pads = info.required_ints(name);
    attr_value = info.attr_float("value", 0.0f);
  }
  return [mode, opset, attr_pads, attr_value](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& in_shape = x.shape();
    const int64_t rank = static_cast<int64_t>(in_shape.size());

    Shape pads;
    if (opset < 11) {
      pads = Shape(attr_pads.begin(), attr_pads.end());
    } else {
      const Tensor& pads_input = ctx.input(1);
      if (pads_input.rank() != 1) {
        ctx.fail("pads must be a 1-D tensor, got shape " + pads_input.shape().to_string());
      }
      read_int_list(pads_input, pads, "Pad pads");
    }

    // The axes the pads refer to (opset 18): all of them by default.
    Shape axes;
    if (opset >= 18 && ctx.has_input(3)) {
      read_int_list(ctx.input(3), axes, "Pad axes");
      for (int64_t& a : axes) {
        if (a < -rank || a >= rank) {
          ctx.fail("axis " + std::to_string(a) + " is out of range for rank " +
                   std::to_string(rank));
        }
        if (a < 0) a += rank;
      }
    } else {
      axes.resize(static_cast<size_t>(rank));
      for (int64_t d = 0; d < rank; ++d) axes[d] = d;
    }
    const size_t num_axes = axes.size();
    if (pads.size() != 2 * num_axes) {
      ctx.fail("pads has " + std::to_string(pads.size()) + " values, expected " +
               std::to_string(2 * num_axes) + " (begin and end for each of " +
               std::to_string(num_axes) + " axes)");
    }

    PadAxis pad_axes[Shape::kInlineRank];
    std::vector<PadAxis> pad_axes_heap;  // only for ranks beyond the inline capacity
    PadAxis* per_axis = pad_axes;
    if (rank > static_cast<int64_t>(Shape::kInlineRank)) {
      pad_axes_heap.resize(static_cast<size_t>(rank));
      per_axis = pad_axes_heap.data();
    }
    Shape begin_pads, end_pads;
    begin_pads.resize(static_cast<size_t>(rank), 0);
    end_pads.resize(static_cast<size_t>(rank), 0);
    Shape seen;
    seen.resize(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < num_axes; ++i) {
      if (seen[axes[i]]++) ctx.fail("axis " + std::to_string(axes[i]) + " is repeated in axes");
      begin_pads[axes[i]] = pads[i];
      end_pads[axes[i]] = pads[i + num_axes];
    }

    Shape out_shape;
    out_shape.resize(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
      PadAxis& a = per_axis[d];
      const int64_t dim = in_shape[d];
      a.lo = std::max<int64_t>(0, -begin_pads[d]);
      const int64_t hi = dim - std::max<int64_t>(0, -end_pads[d]);
      if (hi < a.lo) {
        ctx.fail("pads " + pads.to_string() + " crop more than the " + std::to_string(dim) +
                 " elements of axis " + std::to_string(d));
      }
      a.n = hi - a.lo;
      a.before = std::max<int64_t>(0, begin_pads[d]);
      a.out = a.before + a.n + std::max<int64_t>(0, end_pads[d]);
      out_shape[d] = a.out;
      if (a.n == 0 && a.out > 0 && mode != PadMode::Constant) {
        ctx.fail("cannot pad axis " + std::to_string(d) +
                 " in a non-constant mode: it has no elements to repeat");
      }
    }

    Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
    visit_storage(x.dtype(), [&]<class S>() {
      S value{};
      if (mode == PadMode::Constant) {
        if (opset < 11) {
          value = storage_from_double<S>(x.dtype(), attr_value);
        } else if (ctx.has_input(2) && ctx.input(2).element_count() > 0) {
          const Tensor& c = ctx.input(2);
          if (c.dtype() != x.dtype()) {
            ctx.fail("constant_value has type " + std::string(dtype_name(c.dtype())) +
                     ", expected the data's type " + std::string(dtype_name(x.dtype())));
          }
          value = storage_element<S>(c, 0);
        } else {
          value = storage_from_double<S>(x.dtype(), 0.0);
        }
      }
      pad_copy(static_cast<const S*>(x.raw_data()), in_shape, static_cast<S*>(y.mutable_raw_data()),
               out_shape, per_axis, mode, value);
    });
  };
}

}  // namespace

KILN_CPU_OPS(expand_tile_pad);
void register_expand_tile_pad_ops(OpRegistry& registry) {
  registry.add("Expand", make_expand);
  registry.add("Tile", make_tile);
  registry.add("Pad", make_pad);
}

}  // namespace kiln
