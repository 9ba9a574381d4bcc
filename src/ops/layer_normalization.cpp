// The row normalizations: each row of the trailing dimensions [axis, rank) is normalized on its
// own, then scaled (and for LayerNorm shifted) by tensors broadcast over those dimensions.
//
//   LayerNormalization (ai.onnx 17; ONNX Runtime's own before 17, and in com.microsoft)
//       X, Scale, B? -> Y, Mean?, InvStdDev?
//   RMSNormalization (ai.onnx 23)                       X, Scale -> Y
//   SimplifiedLayerNormalization (ONNX Runtime's RMS norm, ai.onnx and com.microsoft)
//       X, scale -> Y, inv_std_var?
//   SkipLayerNormalization (com.microsoft)             input, skip, gamma, beta?, bias?
//       -> output, mean?, inv_std_var?, input_skip_bias_sum?
//   SkipSimplifiedLayerNormalization (com.microsoft)   input, skip, gamma, bias?
//       -> output, mean? (zeros: an RMS norm does not centre, as ONNX Runtime gives it),
//          inv_std_var?, input_skip_bias_sum?
//
// The Skip forms normalize input + skip (+ bias) over the last axis; skip may also be broadcast
// over the leading (batch) dimensions, as ONNX Runtime allows. Their statistics are float32.
#include <cmath>
#include <string>

#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/norm_common.h"

namespace kiln {
namespace {

struct RowNormSpec {
  int64_t axis = -1;
  double epsilon = 1e-5;
  DataType stash = DataType::Float32;
  bool rms = false;   // no centering, no shift (RMSNormalization, the Simplified forms)
  bool skip = false;  // normalizes input + skip (+ bias): the Skip forms
  // Where each input and output sits; -1 when the op has none.
  int scale_input = 1, shift_input = 2, skip_bias_input = -1;
  int mean_output = 1, inv_std_output = 2, sum_output = -1;
};

struct ScaleTag {};
struct BiasTag {};
struct StatsTag {};
struct SumTag {};

// A broadcast parameter as a contiguous array of `count` C values over the normalized shape:
// the tensor's own data when it already has that layout and type, else an expanded copy.
template <class C, class Tag>
const C* row_param(const Tensor& t, const Shape& norm_shape, int64_t count) {
  if (t.dtype() == dtype_of<C> && t.element_count() == count) return t.data<C>();
  C* out = norm::scratch<C, Tag>(count);
  norm::expand_to(t, norm_shape, out);
  return out;
}

bool wants(const OpContext& ctx, int output) {
  return output >= 0 && ctx.num_outputs() > static_cast<size_t>(output) && ctx.wants_output(output);
}

bool given(const OpContext& ctx, int input) {
  return input >= 0 && ctx.has_input(static_cast<size_t>(input));
}

// The type the Skip forms keep input + skip (+ bias) in while normalizing: float for the 16-bit
// floats (rounded only in input_skip_bias_sum, as ONNX Runtime does), else the input's type.
template <class T>
using sum_t = std::conditional_t<is_small_float_v<T>, float, T>;

// The Skip forms' input + skip (+ bias), also written to input_skip_bias_sum when it is wanted.
template <class T>
const sum_t<T>* skip_sum(OpContext& ctx, const RowNormSpec& spec) {
  using S = sum_t<T>;
  const Tensor &x = ctx.input(0), &skip = ctx.input(1);
  const int64_t n = x.element_count(), width = x.shape().back();
  const int64_t skip_count = skip.element_count();
  T* out = wants(ctx, spec.sum_output)
               ? ctx.allocate_output(spec.sum_output, x.dtype(), x.shape()).mutable_data<T>()
               : nullptr;
  S* sum = std::is_same_v<S, T> && out ? reinterpret_cast<S*>(out) : norm::scratch<S, SumTag>(n);
  const T* xp = x.data<T>();
  const T* sp = skip.data<T>();
  const T* bp =
      given(ctx, spec.skip_bias_input) ? ctx.input(spec.skip_bias_input).data<T>() : nullptr;
  parallel_for(n / std::max<int64_t>(width, 1), norm::rows_grain(width),
               [&](int64_t begin, int64_t end) {
                 for (int64_t i = begin * width; i < end * width; ++i) {
                   S v = norm::load<S>(xp[i]) + norm::load<S>(sp[i % skip_count]);
                   if (bp) v += norm::load<S>(bp[i % width]);
                   sum[i] = v;
                   if (!std::is_same_v<S, T> && out) out[i] = norm::store<T>(v);
                 }
               });
  return sum;
}

// Normalizes the rows of `xp` (X itself, or the Skip forms' sum) into Y, of X's type T.
template <class T, class C, class S>
void normalize_rows(OpContext& ctx, const RowNormSpec& spec, int64_t axis, const S* xp) {
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
  const C* scale = row_param<C, ScaleTag>(ctx.input(spec.scale_input), norm_shape, inner);
  const C* bias = nullptr;
  if (given(ctx, spec.shift_input)) {
    bias = row_param<C, BiasTag>(ctx.input(spec.shift_input), norm_shape, inner);
  }

  Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
  const bool want_mean = wants(ctx, spec.mean_output);
  const bool want_inv_std = wants(ctx, spec.inv_std_output);
  double* stats =
      (want_mean || want_inv_std) ? norm::scratch<double, StatsTag>(2 * outer) : nullptr;

  T* yp = y.mutable_data<T>();
  parallel_for(outer, norm::rows_grain(inner), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const S* in = xp + r * inner;
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
      if constexpr (std::is_same_v<T, float> && std::is_same_v<S, float> &&
                    std::is_same_v<C, float>) {
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
    const int output = which == 0 ? spec.mean_output : spec.inv_std_output;
    Tensor& t = ctx.allocate_output(output, spec.stash, stats_shape);
    visit_dtype(spec.stash, [&]<class U>() {
      if constexpr (is_float_like_v<U>) {
        U* o = t.mutable_data<U>();
        for (int64_t r = 0; r < outer; ++r) o[r] = norm::store<U>(stats[2 * r + which]);
      }
    });
  }
}

void check_param(const OpContext& ctx, int input, const char* name, const Shape& norm_shape,
                 DataType x_dtype, bool exact) {
  if (!given(ctx, input)) return;
  const Tensor& p = ctx.input(input);
  if (!norm::is_norm_dtype(p.dtype()) || (exact && p.dtype() != x_dtype)) {
    ctx.fail(std::string("input ") + name + " must be a float tensor" +
             (exact ? " of the input's type" : "") + ", got " + p.to_string(0));
  }
  if (exact ? p.shape() != norm_shape : !norm::broadcastable_to(p.shape(), norm_shape)) {
    ctx.fail(std::string("input ") + name + " of shape " + p.shape().to_string() +
             (exact ? " is not 1-D of the hidden size " : " does not broadcast to ") +
             norm_shape.to_string());
  }
}

// skip: input's shape, or its trailing dimensions (batch broadcast), of input's type.
void check_skip(const OpContext& ctx, const Tensor& x) {
  const Tensor& skip = ctx.input(1);
  const Shape& xs = x.shape();
  const Shape& ss = skip.shape();
  size_t lead = 0;
  while (lead < ss.size() && ss[lead] == 1 && ss.size() - lead > 1) ++lead;
  bool ok = skip.dtype() == x.dtype() && ss.size() <= xs.size() && ss.size() > lead;
  for (size_t i = lead; ok && i < ss.size(); ++i) {
    ok = ss[i] == xs[xs.size() - ss.size() + i];
  }
  if (!ok) {
    ctx.fail("skip must have the input's type and shape " + x.to_string(0) +
             " (or its trailing dimensions), got " + skip.to_string(0));
  }
}

CpuKernel make_row_norm(const NodeInfo& info, RowNormSpec spec) {
  if (!spec.skip) {
    spec.axis = info.attr_int("axis", -1);
    const int64_t stash = info.attr_int("stash_type", 1);
    spec.stash = static_cast<DataType>(stash);
    if (!norm::is_norm_dtype(spec.stash)) {
      info.fail("stash_type must be a float type (1, 10, 11 or 16), got " + std::to_string(stash));
    }
  }
  spec.epsilon = info.attr_float("epsilon", static_cast<float>(spec.epsilon));
  if (spec.skip && spec.epsilon < 0) info.fail("epsilon must not be negative");
  const size_t needed = spec.skip ? 3 : 2;
  if (info.num_inputs() < needed) {
    info.fail(spec.skip ? "expects the inputs input, skip and gamma"
                        : "expects the inputs X and Scale");
  }
  const int last_output = std::max({0, spec.mean_output, spec.inv_std_output, spec.sum_output});
  if (info.num_outputs() > static_cast<size_t>(last_output) + 1) {
    info.fail("has at most " + std::to_string(last_output + 1) + " outputs, got " +
              std::to_string(info.num_outputs()));
  }

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
    if (!ctx.has_input(spec.scale_input)) ctx.fail("input Scale is required");
    if (spec.skip) {
      check_skip(ctx, x);
      check_param(ctx, spec.scale_input, "gamma", norm_shape, x.dtype(), true);
      check_param(ctx, spec.shift_input, "beta", norm_shape, x.dtype(), true);
      check_param(ctx, spec.skip_bias_input, "bias", norm_shape, x.dtype(), true);
    } else {
      check_param(ctx, spec.scale_input, "Scale", norm_shape, x.dtype(), false);
      check_param(ctx, spec.shift_input, "B", norm_shape, x.dtype(), false);
    }
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        auto normalize = [&](const auto* source) {
          // stash_type selects the precision of the statistics; double inputs keep double.
          if (spec.stash == DataType::Float64 || std::is_same_v<T, double>) {
            normalize_rows<T, double>(ctx, spec, axis, source);
          } else {
            normalize_rows<T, float>(ctx, spec, axis, source);
          }
        };
        if (spec.skip) {
          normalize(skip_sum<T>(ctx, spec));
        } else {
          normalize(x.data<T>());
        }
      }
    });
  };
}

KernelFactory row_norm(RowNormSpec spec) {
  return [spec](const NodeInfo& info) { return make_row_norm(info, spec); };
}

}  // namespace

KILN_CPU_OPS(layer_normalization);
void register_layer_normalization_ops(OpRegistry& registry) {
  const RowNormSpec layer_norm;
  RowNormSpec rms_norm{.rms = true, .shift_input = -1, .mean_output = -1, .inv_std_output = -1};
  RowNormSpec simplified{.rms = true, .shift_input = -1, .mean_output = -1, .inv_std_output = 1};
  const RowNormSpec skip{.epsilon = 1e-12,
                         .skip = true,
                         .scale_input = 2,
                         .shift_input = 3,
                         .skip_bias_input = 4,
                         .sum_output = 3};
  const RowNormSpec skip_simplified{.epsilon = 1e-12,
                                    .rms = true,
                                    .skip = true,
                                    .scale_input = 2,
                                    .shift_input = -1,
                                    .skip_bias_input = 3,
                                    .sum_output = 3};
  registry.add("LayerNormalization", row_norm(layer_norm));
  registry.add(ir::kMicrosoftDomain, "LayerNormalization", row_norm(layer_norm));
  registry.add("RMSNormalization", row_norm(rms_norm));
  registry.add("SimplifiedLayerNormalization", row_norm(simplified));
  registry.add(ir::kMicrosoftDomain, "SimplifiedLayerNormalization", row_norm(simplified));
  registry.add(ir::kMicrosoftDomain, "SkipLayerNormalization", row_norm(skip));
  registry.add(ir::kMicrosoftDomain, "SkipSimplifiedLayerNormalization", row_norm(skip_simplified));
}

}  // namespace kiln
