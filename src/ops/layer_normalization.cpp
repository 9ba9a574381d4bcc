// LayerNormalization (opset 17) and RMSNormalization (opset 23): each row of the trailing
// dimensions [axis, rank) is normalized on its own, then scaled (and for LayerNorm shifted) by
// tensors broadcast over those dimensions.
#include <cmath>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/norm_common.h"

namespace kiln {
namespace {

struct RowNormSpec {
  int64_t axis = -1;
  double epsilon = 1e-5;
  DataType stash = DataType::Float32;
  bool rms = false;  // RMSNormalization: no centering, no bias, no statistics outputs
};

struct ScaleTag {};
struct BiasTag {};
struct StatsTag {};

// A broadcast parameter as a contiguous array of `count` C values over the normalized shape:
// the tensor's own data when it already has that layout and type, else an expanded copy.
template <class C, class Tag>
const C* row_param(const Tensor& t, const Shape& norm_shape, int64_t count) {
  if (t.dtype() == dtype_of<C> && t.element_count() == count) return t.data<C>();
  C* out = norm::scratch<C, Tag>(count);
  norm::expand_to(t, norm_shape, out);
  return out;
}

template <class T, class C>
void normalize_rows(OpContext& ctx, const RowNormSpec& spec, int64_t axis) {
  const Tensor& x = ctx.input(0);
  const Shape& shape = x.shape();
  int64_t outer = 1, inner = 1;
  Shape norm_shape, stats_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int64_t>(d) < axis) {
      outer *= shape[d];
      stats_shape.push_back(shape[d]);
    } else {
      inner *= shape[d];
      norm_shape.push_back(shape[d]);
      stats_shape.push_back(1);
    }
  }
  const C* scale = row_param<C, ScaleTag>(ctx.input(1), norm_shape, inner);
  const C* bias = nullptr;
  if (!spec.rms && ctx.has_input(2)) bias = row_param<C, BiasTag>(ctx.input(2), norm_shape, inner);

  Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
  const bool want_mean = !spec.rms && ctx.num_outputs() > 1 && ctx.wants_output(1);
  const bool want_inv_std = !spec.rms && ctx.num_outputs() > 2 && ctx.wants_output(2);
  double* stats =
      (want_mean || want_inv_std) ? norm::scratch<double, StatsTag>(2 * outer) : nullptr;

  const T* xp = x.data<T>();
  T* yp = y.mutable_data<T>();
  parallel_for(outer, norm::rows_grain(inner), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* in = xp + r * inner;
      T* out = yp + r * inner;
      double mean, var;
      norm::row_moments(in, inner, spec.rms, mean, var);
      const double inv_std = 1.0 / std::sqrt(var + spec.epsilon);
      if (stats) {
        stats[2 * r] = mean;
        stats[2 * r + 1] = inv_std;
      }
      const C a = static_cast<C>(inv_std);
      const C b = static_cast<C>(-mean * inv_std);
      if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
        cpu::scale_shift_affine_f32(in, out, inner, a, b, scale, bias);
      } else if (bias) {
        for (int64_t i = 0; i < inner; ++i) {
          out[i] = norm::store<T>((norm::load<C>(in[i]) * a + b) * scale[i] + bias[i]);
        }
      } else {
        for (int64_t i = 0; i < inner; ++i) {
          out[i] = norm::store<T>((norm::load<C>(in[i]) * a + b) * scale[i]);
        }
      }
    }
  });

  for (int which = 0; which < 2; ++which) {
    if (!(which == 0 ? want_mean : want_inv_std)) continue;
    Tensor& t = ctx.allocate_output(1 + which, spec.stash, stats_shape);
    visit_dtype(spec.stash, [&]<class U>() {
      if constexpr (is_float_like_v<U>) {
        U* o = t.mutable_data<U>();
        for (int64_t r = 0; r < outer; ++r) o[r] = norm::store<U>(stats[2 * r + which]);
      }
    });
  }
}

CpuKernel make_row_norm(const NodeInfo& info, bool rms) {
  RowNormSpec spec;
  spec.rms = rms;
  spec.axis = info.attr_int("axis", -1);
  spec.epsilon = info.attr_float("epsilon", 1e-5f);
  const int64_t stash = info.attr_int("stash_type", 1);
  spec.stash = static_cast<DataType>(stash);
  if (!norm::is_norm_dtype(spec.stash)) {
    info.fail("stash_type must be a float type (1, 10, 11 or 16), got " + std::to_string(stash));
  }
  if (info.num_inputs() < 2) info.fail("expects the inputs X and Scale");
  if (rms && info.num_outputs() > 1) info.fail("has a single output Y");

  return [spec](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (!norm::is_norm_dtype(x.dtype())) {
      ctx.fail("input X must be float, float16, bfloat16 or double, got " + x.to_string(0));
    }
    const int64_t rank = static_cast<int64_t>(x.rank());
    if (spec.axis < -rank || spec.axis >= rank) {
      ctx.fail("axis " + std::to_string(spec.axis) + " is out of range for input rank " +
               std::to_string(rank));
    }
    const int64_t axis = spec.axis < 0 ? spec.axis + rank : spec.axis;
    Shape norm_shape;
    for (int64_t d = axis; d < rank; ++d) norm_shape.push_back(x.shape()[d]);
    for (size_t i = 1; i < 3 && i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i) || (spec.rms && i == 2)) continue;
      const Tensor& p = ctx.input(i);
      const char* name = i == 1 ? "Scale" : "B";
      if (!norm::is_norm_dtype(p.dtype())) {
        ctx.fail(std::string("input ") + name + " must be a float tensor, got " + p.to_string(0));
      }
      if (!norm::broadcastable_to(p.shape(), norm_shape)) {
        ctx.fail(std::string("input ") + name + " of shape " + p.shape().to_string() +
                 " does not broadcast to the normalized shape " + norm_shape.to_string());
      }
    }
    if (!ctx.has_input(1)) ctx.fail("input Scale is required");
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        // stash_type selects the precision of the statistics; double inputs keep double.
        if (spec.stash == DataType::Float64 || std::is_same_v<T, double>) {
          normalize_rows<T, double>(ctx, spec, axis);
        } else {
          normalize_rows<T, float>(ctx, spec, axis);
        }
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(layer_normalization);
void register_layer_normalization_ops(OpRegistry& registry) {
  registry.add("LayerNormalization",
               [](const NodeInfo& info) { return make_row_norm(info, false); });
  registry.add("RMSNormalization", [](const NodeInfo& info) { return make_row_norm(info, true); });
}

}  // namespace kiln
