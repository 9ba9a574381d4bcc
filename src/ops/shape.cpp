// Shape-only ops: they change how a tensor's elements are seen, not the elements themselves,
// so most return a view of their input (Tensor::reshaped shares the storage). Also the ops that
// make tensors out of attributes or shapes: Constant, ConstantOfShape, Shape, Size; and Dropout,
// which is Identity at inference.
#include <algorithm>
#include <atomic>
#include <random>

#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "opdefs/constant.h"
#include "opdefs/dropout.h"
#include "opdefs/shape_slice.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"

namespace kiln {

namespace {

// --- Reshape -------------------------------------------------------------------------------

// Resolves Reshape's requested shape against the input's: 0 copies the input dim (unless
// allow_zero, where 0 is a real zero), one -1 is inferred from the element count.
Shape resolve_reshape(const OpContext& ctx, const Shape& in, const Shape& requested,
                      bool allow_zero) {
  Shape out = requested;
  int64_t infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer_at >= 0) ctx.fail("shape " + requested.to_string() + " has more than one -1");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (out[i] < -1) {
      ctx.fail("shape " + requested.to_string() + " has the invalid dimension " +
               std::to_string(out[i]));
    }
    if (out[i] == 0 && !allow_zero) {
      if (i >= in.size()) {
        ctx.fail("shape " + requested.to_string() + " copies dimension " + std::to_string(i) +
                 " (0) of an input of rank " + std::to_string(in.size()));
      }
      out[i] = in[i];
    }
    known *= out[i];
  }
  const int64_t total = in.element_count();
  if (infer_at >= 0) {
    if (known == 0) {
      ctx.fail("cannot infer the -1 of shape " + requested.to_string() +
               " when the other dimensions hold zero elements (input " + in.to_string() + ")");
    }
    if (total % known != 0) {
      ctx.fail("cannot reshape " + in.to_string() + " to " + requested.to_string() + ": " +
               std::to_string(total) + " elements do not divide by " + std::to_string(known));
    }
    out[infer_at] = total / known;
  } else if (known != total) {
    ctx.fail("cannot reshape " + in.to_string() + " (" + std::to_string(total) + " elements) to " +
             out.to_string() + " (" + std::to_string(known) + " elements)");
  }
  return out;
}

CpuKernel make_reshape(const NodeInfo& info) {
  const bool allow_zero = info.opset() >= 14 && info.attr_int("allowzero", 0) != 0;
  if (info.opset() < 5) {
    const Shape requested(info.required_ints("shape"));
    return [=](OpContext& ctx) {
      const Tensor& x = ctx.input(0);
      ctx.set_output_view(0, x, resolve_reshape(ctx, x.shape(), requested, false));
    };
  }
  if (!info.has_input(1)) info.fail("the 'shape' input is required");
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape requested = read_index_list(ctx, ctx.input(1), "shape");
    ctx.set_output_view(0, x, resolve_reshape(ctx, x.shape(), requested, allow_zero));
  };
}

// --- Flatten -------------------------------------------------------------------------------

CpuKernel make_flatten(const NodeInfo& info) {
  const int64_t axis = info.attr_int("axis", 1);
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const auto rank = static_cast<int64_t>(x.rank());
    // Unlike most axes, rank itself is valid: everything goes into the first dimension.
    if (axis < -rank || axis > rank) {
      ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " +
               std::to_string(rank));
    }
    const int64_t a = axis < 0 ? axis + rank : axis;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) (d < a ? outer : inner) *= x.shape()[d];
    ctx.set_output_view(0, x, Shape{outer, inner});
  };
}

// --- Squeeze / Unsqueeze ---------------------------------------------------------------------

// Axes come from an attribute before opset 13 and from an input since.
bool axes_from_input(const NodeInfo& info) { return info.opset() >= 13; }

CpuKernel make_squeeze(const NodeInfo& info) {
  const bool from_input = axes_from_input(info);
  const Shape attr_axes(info.attr_ints("axes"));
  const bool attr_given = info.has_attr("axes");
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& in = x.shape();
    const auto rank = static_cast<int64_t>(in.size());
    const bool given = from_input ? ctx.has_input(1) : attr_given;
    const Shape axes = !given       ? Shape{}
                       : from_input ? read_index_list(ctx, ctx.input(1), "axes")
                                    : attr_axes;
    Shape out;
    if (axes.empty()) {
      // No (or empty) axes: every dimension of size 1 goes.
      for (int64_t d : in)
        if (d != 1) out.push_back(d);
    } else {
      // A bit per dimension would cap the rank; mark removed dims with -1 in a copy instead.
      Shape marked = in;
      for (int64_t a : axes) {
        const int64_t d = checked_axis(ctx, a, rank, "axis");
        if (in[d] != 1) {
          ctx.fail("cannot squeeze axis " + std::to_string(a) + " of shape " + in.to_string() +
                   ": its size is " + std::to_string(in[d]) + ", not 1");
        }
        marked[d] = -1;
      }
      for (int64_t d : marked)
        if (d != -1) out.push_back(d);
    }
    ctx.set_output_view(0, x, out);
  };
}

CpuKernel make_unsqueeze(const NodeInfo& info) {
  const bool from_input = axes_from_input(info);
  const Shape attr_axes(info.attr_ints("axes"));
  if (from_input && !info.has_input(1)) info.fail("the 'axes' input is required");
  if (!from_input && !info.has_attr("axes")) info.fail("the 'axes' attribute is required");
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& in = x.shape();
    const Shape axes = from_input ? read_index_list(ctx, ctx.input(1), "axes") : attr_axes;
    const auto out_rank = static_cast<int64_t>(in.size() + axes.size());
    // Mark the new dimensions first (axes refer to the output's rank), then fill the others
    // with the input's dimensions in order.
    Shape out;
    out.resize(static_cast<size_t>(out_rank), -1);
    for (int64_t a : axes) {
      const int64_t d = checked_axis(ctx, a, out_rank, "axis");
      if (out[d] == 1) ctx.fail("axis " + std::to_string(a) + " is given more than once");
      out[d] = 1;
    }
    size_t next = 0;
    for (int64_t& d : out)
      if (d == -1) d = in[next++];
    ctx.set_output_view(0, x, out);
  };
}

// --- Shape / Size / Identity -------------------------------------------------------------------

CpuKernel make_shape(const NodeInfo& info) {
  const ShapeSliceAttrs attrs = parse_shape_slice_attrs(info);
  return [=](OpContext& ctx) {
    const Shape& in = ctx.input(0).shape();
    const ShapeSlice slice = resolve_shape_slice(attrs, static_cast<int64_t>(in.size()));
    const int64_t n = slice.end - slice.begin;
    Tensor& out = ctx.allocate_output(0, DataType::Int64, Shape{n});
    int64_t* p = out.mutable_data<int64_t>();
    for (int64_t i = 0; i < n; ++i) p[i] = in[slice.begin + i];
  };
}

CpuKernel make_size(const NodeInfo&) {
  return [](OpContext& ctx) {
    Tensor& out = ctx.allocate_output(0, DataType::Int64, Shape{});
    *out.mutable_data<int64_t>() = ctx.input(0).element_count();
  };
}

CpuKernel make_identity(const NodeInfo&) {
  return [](OpContext& ctx) { ctx.set_output(0, ctx.input(0)); };
}

// --- Constant / ConstantOfShape ----------------------------------------------------------------

CpuKernel make_constant(const NodeInfo& info) {
  const Tensor value = parse_constant_value(info);
  // The runtime never writes into a handed-over tensor, so every run can share this one.
  return [value](OpContext& ctx) { ctx.set_output(0, value); };
}

CpuKernel make_constant_of_shape(const NodeInfo& info) {
  Tensor value = Tensor::scalar<float>(0.0f);
  if (info.has_attr("value")) {
    value = *info.attr_tensor("value");
    if (value.element_count() != 1) {
      info.fail("the 'value' attribute must hold one element, it has shape " +
                value.shape().to_string());
    }
  }
  return [value](OpContext& ctx) {
    const Shape shape = read_index_list(ctx, ctx.input(0), "shape");
    for (int64_t d : shape) {
      if (d < 0) ctx.fail("shape " + shape.to_string() + " has a negative dimension");
    }
    Tensor& out = ctx.allocate_output(0, value.dtype(), shape);
    visit_dtype(value.dtype(), [&]<class T>() {
      const T v = value.data<T>()[0];
      std::fill_n(out.mutable_data<T>(), out.element_count(), v);
    });
  };
}

// --- Dropout -----------------------------------------------------------------------------------

template <class T>
T from_double(double v) {
  if constexpr (is_small_float_v<T>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// A small, fast generator (splitmix64): dropout needs uniform bits, not cryptographic ones.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

uint64_t fresh_seed() {
  static std::atomic<uint64_t> counter{std::random_device{}()};
  return counter.fetch_add(0x632BE59BD9B4E019ull, std::memory_order_relaxed);
}

CpuKernel make_dropout(const NodeInfo& info) {
  // The mode comes from the definition (opdefs/dropout.h). Before opset 10 the mask has the
  // input's type.
  const int opset = info.opset();
  const bool bool_mask = opset >= 10;
  const bool has_seed = info.has_attr("seed");
  const auto seed = static_cast<uint64_t>(info.attr_int("seed", 0));
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const DropoutMode mode = resolve_dropout_mode(NodeInputs{ctx.node(), ctx.inputs()}, opset);
    const bool drop = mode.drop;
    const double ratio = mode.ratio;
    const bool want_mask = ctx.num_outputs() > 1 && ctx.wants_output(1);
    if (!drop) {
      ctx.set_output(0, x);
      if (want_mask) {
        const DataType mask_type = bool_mask ? DataType::Bool : x.dtype();
        Tensor& mask = ctx.allocate_output(1, mask_type, x.shape());
        visit_dtype(mask_type, [&]<class T>() {
          if constexpr (std::is_same_v<T, bool>) {
            std::fill_n(mask.mutable_data<bool>(), mask.element_count(), true);
          } else if constexpr (is_float_like_v<T>) {
            std::fill_n(mask.mutable_data<T>(), mask.element_count(), from_double<T>(1.0));
          } else {
            ctx.fail("Dropout does not support " + std::string(dtype_name(mask_type)));
          }
        });
      }
      return;
    }
    if (!(ratio > 0 && ratio < 1)) {
      ctx.fail("ratio must be in [0, 1) in training mode, got " + std::to_string(ratio));
    }
    const double scale = 1.0 / (1.0 - ratio);
    SplitMix64 rng{has_seed ? seed : fresh_seed()};
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    bool* mask = want_mask ? ctx.allocate_output(1, DataType::Bool, x.shape()).mutable_data<bool>()
                           : nullptr;
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        const T* in = x.data<T>();
        T* out = y.mutable_data<T>();
        for (int64_t i = 0, n = x.element_count(); i < n; ++i) {
          const bool keep = rng.uniform() >= ratio;
          out[i] = from_double<T>(keep ? to_double(in[i]) * scale : 0.0);
          if (mask) mask[i] = keep;
        }
      } else {
        ctx.fail("Dropout in training mode needs a float input, got " +
                 std::string(dtype_name(x.dtype())));
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(shape);
void register_shape_ops(OpRegistry& registry) {
  registry.add("Reshape", make_reshape);
  registry.add("Flatten", make_flatten);
  registry.add("Squeeze", make_squeeze);
  registry.add("Unsqueeze", make_unsqueeze);
  registry.add("Shape", make_shape);
  registry.add("Size", make_size);
  registry.add("Identity", make_identity);
  registry.add("Constant", make_constant);
  registry.add("ConstantOfShape", make_constant_of_shape);
  registry.add("Dropout", make_dropout);
}

}  // namespace kiln
