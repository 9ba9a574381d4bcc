// Ops that generate a tensor from a few parameters: Range, OneHot, Trilu, EyeLike.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/eye_like.h"
#include "opdefs/range.h"
#include "opdefs/trilu.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

std::string type_name(DataType t) { return std::string(dtype_name(t)); }

// The single value of a scalar or one-element tensor of any numeric type, as a double.
double scalar_value(const OpContext& ctx, const Tensor& t, const char* what) {
  if (t.element_count() != 1) {
    ctx.fail(std::string(what) + " must hold exactly one value, got shape " +
             t.shape().to_string());
  }
  double v = 0;
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_complex_v<T> || std::is_same_v<T, std::string>) {
      ctx.fail(std::string(what) + " must be numeric, got " + type_name(t.dtype()));
    } else {
      v = to_double(t.data<T>()[0]);
    }
  });
  return v;
}

// ---------------------------------------------------------------------------------------------
// Range

CpuKernel make_range(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& start_t = ctx.input(0);
    const DataType dtype = start_t.dtype();
    const int64_t count = resolve_range_length(ctx.node(), start_t, ctx.input(1), ctx.input(2));
    Tensor& y = ctx.allocate_output(0, dtype, Shape{count});
    const Tensor& delta_t = ctx.input(2);
    visit_dtype(dtype, [&]<class T>() {
      if constexpr (is_plain_int_v<T>) {
        const T start = start_t.data<T>()[0], delta = delta_t.data<T>()[0];
        T* out = y.mutable_data<T>();
        for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(start + i * delta);
      } else if constexpr (is_float_like_v<T>) {
        // Computed in the element type for float/double, as the reference accumulates.
        using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;
        const Compute s = static_cast<Compute>(to_double(start_t.data<T>()[0]));
        const Compute d = static_cast<Compute>(to_double(delta_t.data<T>()[0]));
        T* out = y.mutable_data<T>();
        for (int64_t i = 0; i < count; ++i) out[i] = T(s + static_cast<Compute>(i) * d);
      }
    });
  };
}

// ---------------------------------------------------------------------------------------------
// OneHot

CpuKernel make_one_hot(const NodeInfo& info) {
  const int64_t axis_attr = info.attr_int("axis", -1);
  return [axis_attr](OpContext& ctx) {
    const Tensor& indices = ctx.input(0);
    const Tensor& depth_t = ctx.input(1);
    const Tensor& values = ctx.input(2);
    // A non-integer depth is cast to int64 (truncation), as the spec says.
    const double depth_value = scalar_value(ctx, depth_t, "depth");
    if (!(depth_value >= 1) || depth_value > 9.0e18) {
      ctx.fail("depth must be a positive number, got " + std::to_string(depth_value));
    }
    const int64_t depth = static_cast<int64_t>(depth_value);
    if (values.element_count() != 2 || values.rank() > 1) {
      ctx.fail("values must be a 1-D tensor [off_value, on_value], got shape " +
               values.shape().to_string());
    }
    const Shape& in_shape = indices.shape();
    const int64_t out_rank = static_cast<int64_t>(in_shape.size()) + 1;
    if (axis_attr < -out_rank || axis_attr >= out_rank) {
      ctx.fail("axis " + std::to_string(axis_attr) + " is out of range for output rank " +
               std::to_string(out_rank));
    }
    const int64_t axis = axis_attr < 0 ? axis_attr + out_rank : axis_attr;
    Shape out_shape = in_shape;
    out_shape.insert(static_cast<size_t>(axis), depth);
    Tensor& y = ctx.allocate_output(0, values.dtype(), out_shape);

    // Output viewed as [outer, depth, inner]; indices as [outer, inner].
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= in_shape[d];
    for (size_t d = axis; d < in_shape.size(); ++d) inner *= in_shape[d];

    visit_storage(values.dtype(), [&]<class S>() {
      const S off = storage_element<S>(values, 0), on = storage_element<S>(values, 1);
      S* out = static_cast<S*>(y.mutable_raw_data());
      std::fill(out, out + y.element_count(), off);
      visit_dtype(indices.dtype(), [&]<class I>() {
        if constexpr (is_complex_v<I> || std::is_same_v<I, std::string>) {
          ctx.fail("indices must be numeric, got " + type_name(indices.dtype()));
        } else {
          const I* idx = indices.data<I>();
          for (int64_t o = 0; o < outer; ++o) {
            for (int64_t i = 0; i < inner; ++i) {
              double v = to_double(idx[o * inner + i]);
              if (std::isnan(v)) continue;
              int64_t k = static_cast<int64_t>(v);
              if (k < 0) k += depth;              // negative indices count from the end
              if (k < 0 || k >= depth) continue;  // out of range: the row stays off
              out[(o * depth + k) * inner + i] = on;
            }
          }
        }
      });
    });
  };
}

// ---------------------------------------------------------------------------------------------
// Trilu

CpuKernel make_trilu(const NodeInfo& info) {
  const TriluAttrs attrs = parse_trilu_attrs(info);
  return [attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const TriluPlan plan = resolve_trilu(NodeInputs{ctx.node(), ctx.inputs()});
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    const int64_t rows = plan.rows, cols = plan.cols;
    const int64_t total = x.element_count();
    if (total == 0) return;
    const int64_t matrices = total / (rows * cols);
    visit_storage(x.dtype(), [&]<class S>() {
      const S zero = storage_from_double<S>(x.dtype(), 0.0);
      const S* in = static_cast<const S*>(x.raw_data());
      S* out = static_cast<S*>(y.mutable_raw_data());
      parallel_for(matrices * rows, std::max<int64_t>(1, 16384 / cols),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) {
                       const int64_t split = trilu_split(attrs.upper, plan, r % rows);
                       const S* src = in + r * cols;
                       S* dst = out + r * cols;
                       if (attrs.upper) {
                         std::fill(dst, dst + split, zero);
                         std::copy(src + split, src + cols, dst + split);
                       } else {
                         std::copy(src, src + split, dst);
                         std::fill(dst + split, dst + cols, zero);
                       }
                     }
                   });
    });
  };
}

// ---------------------------------------------------------------------------------------------
// EyeLike

CpuKernel make_eye_like(const NodeInfo& info) {
  const EyeLikeAttrs attrs = parse_eye_like_attrs(info);
  const int64_t k = attrs.k;
  return [k, attrs](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 2) ctx.fail("input must be 2-D, got shape " + x.shape().to_string());
    const DataType dtype = attrs.dtype.value_or(x.dtype());
    if (dtype == DataType::String) ctx.fail("the output type cannot be string");
    const int64_t rows = x.shape()[0], cols = x.shape()[1];
    Tensor& y = ctx.allocate_output(0, dtype, x.shape());
    visit_storage(dtype, [&]<class S>() {
      const S zero = storage_from_double<S>(dtype, 0.0), one = storage_from_double<S>(dtype, 1.0);
      S* out = static_cast<S*>(y.mutable_raw_data());
      std::fill(out, out + rows * cols, zero);
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t j = i + k;
        if (j >= 0 && j < cols) out[i * cols + j] = one;
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(generator);
void register_generator_ops(OpRegistry& registry) {
  registry.add("Range", make_range);
  registry.add("OneHot", make_one_hot);
  registry.add("Trilu", make_trilu);
  registry.add("EyeLike", make_eye_like);
}

}  // namespace kiln
