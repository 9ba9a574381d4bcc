// BatchNormalization, InstanceNormalization and GroupNormalization: normalization over the
// channel layout of an (N, C, D1, ..., Dk) tensor. The rest of the family lives in
// layer_normalization.cpp and local_response_norm.cpp and registers through this file.
#include <cmath>
#include <memory>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/norm_common.h"

namespace kiln {
namespace {

using norm::compute_t;

// (N, C, spatial) of an input with at least two dimensions.
struct ChannelLayout {
  int64_t batch = 0, channels = 0, spatial = 1;
};

ChannelLayout channel_layout(const OpContext& ctx, const Tensor& x) {
  if (!norm::is_norm_dtype(x.dtype())) {
    ctx.fail("input X must be float, float16, bfloat16 or double, got " + x.to_string(0));
  }
  const Shape& s = x.shape();
  if (s.size() < 2) ctx.fail("input X must have shape (N, C, ...), got " + s.to_string());
  ChannelLayout l;
  l.batch = s[0];
  l.channels = s[1];
  for (size_t d = 2; d < s.size(); ++d) l.spatial *= s[d];
  return l;
}

void check_param(const OpContext& ctx, const Tensor& t, const char* name, int64_t count) {
  if (!norm::is_norm_dtype(t.dtype())) {
    ctx.fail(std::string("input ") + name + " must be a float tensor, got " + t.to_string(0));
  }
  if (t.element_count() != count) {
    ctx.fail(std::string("input ") + name + " must have " + std::to_string(count) +
             " elements (one per channel), got shape " + t.shape().to_string());
  }
}

// y = x * a[c] + b[c] for every (n, c) row of `spatial` elements.
template <class T, class C>
void apply_per_channel(const T* x, T* y, int64_t rows, int64_t channels, int64_t spatial,
                       const C* a, const C* b) {
  parallel_for(rows, norm::rows_grain(spatial), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t c = r % channels;
      norm::scale_shift(x + r * spatial, y + r * spatial, spatial, a[c], b[c]);
    }
  });
}

// --- BatchNormalization ----------------------------------------------------------------------

// Inference-mode multiplier and offset per channel, folded at load time when scale, bias, mean
// and variance are all initializers (the usual case in exported models).
struct FoldedBatchNorm {
  std::vector<float> a_f32, b_f32;
  std::vector<double> a_f64, b_f64;
};

struct BnScaleTag {};
struct BnStatsTag {};

template <class C>
void fold_batch_norm(const C* scale, const C* bias, const C* mean, const C* var, int64_t n,
                     double epsilon, C* a, C* b) {
  for (int64_t c = 0; c < n; ++c) {
    const double m =
        static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + epsilon);
    a[c] = static_cast<C>(m);
    b[c] = static_cast<C>(static_cast<double>(bias[c]) - static_cast<double>(mean[c]) * m);
  }
}

CpuKernel make_batch_norm(const NodeInfo& info) {
  const double epsilon = info.attr_float("epsilon", 1e-5f);
  const double momentum = info.attr_float("momentum", 0.9f);
  const int opset = info.opset();
  bool training = false;
  if (opset >= 14) {
    training = info.attr_int("training_mode", 0) != 0;
  } else {
    // Before opset 14 a node in training mode is one that asks for the running statistics
    // (opset 6 also has is_test; an explicit is_test=1 means inference).
    bool stats_wanted = false;
    for (size_t i = 1; i < info.num_outputs(); ++i) stats_wanted |= info.has_output(i);
    training = stats_wanted && info.attr_int("is_test", 0) == 0;
  }
  // Opsets before 9 allow spatial=0: statistics and parameters per activation (C x D1 x ...).
  const bool per_activation = opset < 9 && info.attr_int("spatial", 1) == 0;
  if (info.num_inputs() != 5) info.fail("expects 5 inputs (X, scale, B, mean, var)");

  std::shared_ptr<const FoldedBatchNorm> folded;
  const Tensor* params[4] = {info.constant_input(1), info.constant_input(2), info.constant_input(3),
                             info.constant_input(4)};
  if (!training && params[0] && params[1] && params[2] && params[3]) {
    const int64_t n = params[0]->element_count();
    bool ok = true;
    for (const Tensor* p : params) ok &= norm::is_norm_dtype(p->dtype()) && p->element_count() == n;
    if (ok) {
      auto f = std::make_shared<FoldedBatchNorm>();
      std::vector<double> v[4];
      for (int i = 0; i < 4; ++i) {
        v[i].resize(n);
        norm::convert_to(*params[i], v[i].data());
      }
      f->a_f64.resize(n);
      f->b_f64.resize(n);
      fold_batch_norm(v[0].data(), v[1].data(), v[2].data(), v[3].data(), n, epsilon,
                      f->a_f64.data(), f->b_f64.data());
      f->a_f32.assign(f->a_f64.begin(), f->a_f64.end());
      f->b_f32.assign(f->b_f64.begin(), f->b_f64.end());
      folded = std::move(f);
    }
  }

  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    ChannelLayout l = channel_layout(ctx, x);
    if (per_activation && ctx.input(1).element_count() != l.channels) {
      l.channels *= l.spatial;
      l.spatial = 1;
    }
    const char* names[4] = {"scale", "B", "mean", "var"};
    for (int i = 0; i < 4; ++i) check_param(ctx, ctx.input(i + 1), names[i], l.channels);
    const int64_t channels = l.channels, spatial = l.spatial, rows = l.batch * l.channels;
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());

    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        using C = compute_t<T>;
        const T* xp = x.data<T>();
        T* yp = y.mutable_data<T>();
        if (folded && !training) {
          const C* a;
          const C* b;
          if constexpr (std::is_same_v<C, double>) {
            a = folded->a_f64.data(), b = folded->b_f64.data();
          } else {
            a = folded->a_f32.data(), b = folded->b_f32.data();
          }
          apply_per_channel(xp, yp, rows, channels, spatial, a, b);
          return;
        }
        // Parameters converted to C: scale, bias, mean, var, then the folded a and b.
        C* p = norm::scratch<C, BnScaleTag>(6 * channels);
        for (int i = 0; i < 4; ++i) norm::convert_to(ctx.input(i + 1), p + i * channels);
        C* a = p + 4 * channels;
        C* b = p + 5 * channels;
        if (!training) {
          fold_batch_norm(p, p + channels, p + 2 * channels, p + 3 * channels, channels, epsilon, a,
                          b);
          apply_per_channel(xp, yp, rows, channels, spatial, a, b);
          return;
        }
        // Training mode: normalize with this batch's statistics (population variance).
        double* stats = norm::scratch<double, BnStatsTag>(2 * channels);
        double* mean = stats;
        double* var = stats + channels;
        const int64_t count = l.batch * spatial;
        parallel_for(channels, norm::rows_grain(count), [&](int64_t begin, int64_t end) {
          for (int64_t c = begin; c < end; ++c) {
            double sum = 0.0;
            for (int64_t n = 0; n < l.batch; ++n) {
              const T* row = xp + (n * channels + c) * spatial;
              if constexpr (std::is_same_v<T, float>) {
                sum += cpu::sum_f32(row, spatial);
              } else {
                for (int64_t i = 0; i < spatial; ++i) sum += norm::load<double>(row[i]);
              }
            }
            const double m = count > 0 ? sum / static_cast<double>(count) : 0.0;
            double sq = 0.0;
            for (int64_t n = 0; n < l.batch; ++n) {
              const T* row = xp + (n * channels + c) * spatial;
              if constexpr (std::is_same_v<T, float>) {
                sq += cpu::sum_squared_deviations_f32(row, spatial, static_cast<float>(m));
              } else {
                for (int64_t i = 0; i < spatial; ++i) {
                  const double d = norm::load<double>(row[i]) - m;
                  sq += d * d;
                }
              }
            }
            mean[c] = m;
            var[c] = count > 0 ? sq / static_cast<double>(count) : 0.0;
            const double k = static_cast<double>(p[c]) / std::sqrt(var[c] + epsilon);
            a[c] = static_cast<C>(k);
            b[c] = static_cast<C>(static_cast<double>(p[channels + c]) - m * k);
          }
        });
        apply_per_channel(xp, yp, rows, channels, spatial, a, b);

        // Running statistics: input * momentum + current * (1 - momentum); before opset 14
        // outputs 3 and 4 also carry this batch's mean and variance.
        const C* in_mean = p + 2 * channels;
        const C* in_var = p + 3 * channels;
        for (size_t out = 1; out < ctx.num_outputs() && out <= 4; ++out) {
          if (!ctx.wants_output(out)) continue;
          const bool running = out <= 2;
          const bool is_var = out == 2 || out == 4;
          const Tensor& like = ctx.input(is_var ? 4 : 3);
          Tensor& t = ctx.allocate_output(out, like.dtype(), like.shape());
          visit_dtype(like.dtype(), [&]<class U>() {
            if constexpr (is_float_like_v<U>) {
              U* o = t.mutable_data<U>();
              const double* current = is_var ? var : mean;
              const C* input = is_var ? in_var : in_mean;
              for (int64_t c = 0; c < channels; ++c) {
                const double v =
                    running ? static_cast<double>(input[c]) * momentum + current[c] * (1 - momentum)
                            : current[c];
                o[c] = norm::store<U>(v);
              }
            }
          });
        }
      }
    });
  };
}

// --- InstanceNormalization and GroupNormalization --------------------------------------------

struct GroupScaleTag {};

// Normalizes each (n, group) block of channels_per_group * spatial contiguous elements, then
// applies scale and bias per channel (or per group when per_group_params).
template <class T>
void group_normalize(const Tensor& x, Tensor& y, const ChannelLayout& l, int64_t groups,
                     const Tensor& scale, const Tensor& bias, bool per_group_params,
                     double epsilon) {
  using C = compute_t<T>;
  const int64_t channels = l.channels, spatial = l.spatial;
  const int64_t per_group = channels / groups;
  const int64_t param_count = per_group_params ? groups : channels;
  C* params = norm::scratch<C, GroupScaleTag>(2 * param_count);
  norm::convert_to(scale, params);
  norm::convert_to(bias, params + param_count);
  const C* s = params;
  const C* b = params + param_count;
  const T* xp = x.data<T>();
  T* yp = y.mutable_data<T>();
  const int64_t row_length = per_group * spatial;
  parallel_for(l.batch * groups, norm::rows_grain(row_length), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t g = r % groups;
      const T* in = xp + r * row_length;
      T* out = yp + r * row_length;
      double mean, var;
      norm::row_moments(in, row_length, false, mean, var);
      const double inv_std = 1.0 / std::sqrt(var + epsilon);
      for (int64_t k = 0; k < per_group; ++k) {
        const int64_t p = per_group_params ? g : g * per_group + k;
        const double a = inv_std * static_cast<double>(s[p]);
        const double shift = static_cast<double>(b[p]) - mean * a;
        norm::scale_shift(in + k * spatial, out + k * spatial, spatial, static_cast<C>(a),
                          static_cast<C>(shift));
      }
    }
  });
}

CpuKernel make_instance_norm(const NodeInfo& info) {
  const double epsilon = info.attr_float("epsilon", 1e-5f);
  if (info.num_inputs() != 3) info.fail("expects 3 inputs (input, scale, B)");
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const ChannelLayout l = channel_layout(ctx, x);
    check_param(ctx, ctx.input(1), "scale", l.channels);
    check_param(ctx, ctx.input(2), "B", l.channels);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        group_normalize<T>(x, y, l, l.channels, ctx.input(1), ctx.input(2), false, epsilon);
      }
    });
  };
}

CpuKernel make_group_norm(const NodeInfo& info) {
  const double epsilon = info.attr_float("epsilon", 1e-5f);
  const int64_t groups = info.required_int("num_groups");
  if (groups <= 0) info.fail("num_groups must be positive, got " + std::to_string(groups));
  if (info.num_inputs() != 3) info.fail("expects 3 inputs (X, scale, bias)");
  const int opset = info.opset();
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const ChannelLayout l = channel_layout(ctx, x);
    if (l.channels % groups != 0) {
      ctx.fail("the channel count " + std::to_string(l.channels) +
               " is not divisible by num_groups " + std::to_string(groups));
    }
    // Opset 18 has one scale and bias per group and opset 21 one per channel; exporters wrote
    // per-channel parameters into opset-18 models too, so accept those when unambiguous.
    const int64_t count = ctx.input(1).element_count();
    const bool per_group = opset < 21 && count == groups;
    const int64_t expected = per_group ? groups : l.channels;
    check_param(ctx, ctx.input(1), "scale", expected);
    check_param(ctx, ctx.input(2), "bias", expected);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (is_float_like_v<T>) {
        group_normalize<T>(x, y, l, groups, ctx.input(1), ctx.input(2), per_group, epsilon);
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(normalization);
void register_normalization_ops(OpRegistry& registry) {
  registry.add("BatchNormalization", make_batch_norm);
  registry.add("InstanceNormalization", make_instance_norm);
  registry.add("GroupNormalization", make_group_norm);
}

}  // namespace kiln
