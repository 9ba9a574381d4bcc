// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
//
// Both read an input of shape [N, C, d1, ..., dk] (log-probabilities for the first, raw scores
// for the second) and a target of shape [N, d1, ..., dk] holding one class index per sample.
// The input is seen as [N, C, D] with D = d1 * ... * dk, and sample s = n * D + d reads class c
// at offset (n * C + c) * D + d.
//
// SoftmaxCrossEntropyLoss is LogSoftmax over the class axis followed by the negative
// log-likelihood. Unless its optional log_prob output is wanted, it computes the
// log-probability only at each sample's target class, which needs no scratch tensor.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <type_traits>

#include "backends/cpu/softmax_kernel.h"
#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/softmax.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

// The type per-sample arithmetic happens in: double for double, float otherwise.
template <class T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

bool is_loss_dtype(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64 || t == DataType::Float16 ||
         t == DataType::BFloat16;
}

// Checks input, target and the optional weight against each other and returns the [N, C, D]
// view. `weight` is an undefined tensor when absent.
LossGeometry check_loss_inputs(const OpContext& ctx, const Tensor& input, const Tensor& target,
                               const Tensor& weight) {
  if (!is_loss_dtype(input.dtype())) {
    ctx.fail("expects a float16, bfloat16, float32 or float64 input, got " +
             std::string(dtype_name(input.dtype())));
  }
  if (target.dtype() != DataType::Int32 && target.dtype() != DataType::Int64) {
    ctx.fail("target must be int32 or int64, got " + std::string(dtype_name(target.dtype())));
  }
  if (weight.defined() && weight.dtype() != input.dtype()) {
    ctx.fail("weight must have the input's type " + std::string(dtype_name(input.dtype())) +
             ", got " + std::string(dtype_name(weight.dtype())));
  }
  std::string error;
  const std::optional<LossGeometry> g = loss_geometry(
      input.shape(), target.shape(), weight.defined() ? &weight.shape() : nullptr, error);
  if (!g) ctx.fail(error);
  return *g;
}

// Fails on a target that is neither a class in [0, C) nor the ignore_index. Runs before the
// parallel loops, which must not throw.
template <class Index>
void check_targets(const OpContext& ctx, const Index* target, const LossGeometry& g,
                   const LossAttrs& a) {
  for (int64_t s = 0; s < g.samples(); ++s) {
    const int64_t cls = static_cast<int64_t>(target[s]);
    if (a.has_ignore_index && cls == a.ignore_index) continue;
    if (cls < 0 || cls >= g.classes) {
      ctx.fail("target " + std::to_string(cls) + " at position " + std::to_string(s) +
               " is out of range for " + std::to_string(g.classes) + " classes");
    }
  }
}

// The negative log-likelihood of every sample, reduced as asked, into output 0.
// log_prob_at(n, c, d) is the log-probability of class c for sample (n, d). `cost` is the
// work one call of it takes, for sizing the parallel split.
template <class T, class Index, class LogProbAt>
void negative_log_likelihood(OpContext& ctx, const LossGeometry& g, const Index* target,
                             const T* weight, const LossAttrs& a, int64_t cost,
                             LogProbAt&& log_prob_at) {
  using C = Compute<T>;
  check_targets(ctx, target, g, a);
  auto ignored = [&](int64_t cls) { return a.has_ignore_index && cls == a.ignore_index; };
  // Ignored samples weigh 0; without weights every other sample weighs 1.
  auto weight_of = [&](int64_t cls) -> C {
    if (ignored(cls)) return C(0);
    return weight ? static_cast<C>(weight[cls]) : C(1);
  };
  // An ignored sample's target may be no class at all: its input is never read.
  auto loss_of = [&](int64_t s, C w) -> C {
    const int64_t cls = static_cast<int64_t>(target[s]);
    if (ignored(cls)) return C(0);
    return -static_cast<C>(log_prob_at(s / g.spatial, cls, s % g.spatial)) * w;
  };
  const int64_t samples = g.samples();
  constexpr int64_t kWorkPerTask = 16384;

  if (a.reduction == LossReduction::None) {
    // One loss per sample: the target's shape.
    const Shape& out_shape = ctx.input(1).shape();
    T* out = ctx.allocate_output(0, dtype_of<T>, out_shape).template mutable_data<T>();
    const int64_t grain = std::max<int64_t>(1, kWorkPerTask / std::max<int64_t>(cost, 1));
    parallel_for(samples, grain, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        out[s] = static_cast<T>(loss_of(s, weight_of(static_cast<int64_t>(target[s]))));
      }
    });
    return;
  }

  // Sum in double over a fixed split of the samples that depends only on the shapes, so the
  // result is the same whatever the number of threads.
  constexpr int64_t kMaxBlocks = 64;
  const int64_t blocks =
      std::clamp<int64_t>(samples * std::max<int64_t>(cost, 1) / kWorkPerTask, 1, kMaxBlocks);
  std::array<double, kMaxBlocks> loss_sums{}, weight_sums{};
  parallel_for(blocks, 1, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      double loss_sum = 0, weight_sum = 0;
      for (int64_t s = samples * b / blocks; s < samples * (b + 1) / blocks; ++s) {
        const C w = weight_of(static_cast<int64_t>(target[s]));
        loss_sum += loss_of(s, w);
        weight_sum += w;
      }
      loss_sums[b] = loss_sum;
      weight_sums[b] = weight_sum;
    }
  });
  double loss = 0, total_weight = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    loss += loss_sums[b];
    total_weight += weight_sums[b];
  }
  // A mean over no (or only ignored) samples is 0 / 0 = NaN, as in the reference.
  if (a.reduction == LossReduction::Mean) loss /= total_weight;
  T* out = ctx.allocate_output(0, dtype_of<T>, Shape{}).template mutable_data<T>();
  out[0] = static_cast<T>(static_cast<C>(loss));
}

// Calls f.template operator()<T, Index>() for the float type of `input` and the integer type
// of `target` (both already checked).
template <class F>
void visit_loss_types(const Tensor& input, const Tensor& target, F&& f) {
  visit_dtype(input.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      if (target.dtype() == DataType::Int64) {
        f.template operator()<T, int64_t>();
      } else {
        f.template operator()<T, int32_t>();
      }
    }
  });
}

template <class T>
const T* optional_data(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

CpuKernel make_negative_log_likelihood_loss(const NodeInfo& info) {
  const LossAttrs attributes = parse_loss_attrs(info);
  return [attributes](OpContext& ctx) {
    const Tensor& input = ctx.input(0);
    const Tensor& target = ctx.input(1);
    const Tensor weight = ctx.has_input(2) ? ctx.input(2) : Tensor();
    const LossGeometry g = check_loss_inputs(ctx, input, target, weight);
    visit_loss_types(input, target, [&]<class T, class Index>() {
      const T* x = input.data<T>();
      negative_log_likelihood<T, Index>(
          ctx, g, target.data<Index>(), optional_data<T>(weight), attributes, 1,
          [&](int64_t n, int64_t c, int64_t d) { return x[(n * g.classes + c) * g.spatial + d]; });
    });
  };
}

// log(sum(exp(x))) over the `count` classes of one sample (elements `stride` apart), computed
// as max + log(sum(exp(x - max))) so that it neither overflows nor loses small inputs.
template <class T>
Compute<T> log_sum_exp(const T* x, int64_t stride, int64_t count) {
  using C = Compute<T>;
  C max = static_cast<C>(x[0]);
  for (int64_t c = 1; c < count; ++c) max = std::max(max, static_cast<C>(x[c * stride]));
  C sum = 0;
  for (int64_t c = 0; c < count; ++c) sum += std::exp(static_cast<C>(x[c * stride]) - max);
  return max + std::log(sum);
}

// y = LogSoftmax(x) over the class axis; float32 takes the vectorised kernel.
template <class T>
void log_softmax_over_classes(const T* x, T* y, const LossGeometry& g) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::softmax_f32(x, y, g.batch, g.classes, g.spatial, /*log=*/true);
  } else {
    using C = Compute<T>;
    const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(g.classes, 1));
    parallel_for(g.samples(), grain, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        const int64_t offset = (s / g.spatial) * g.classes * g.spatial + s % g.spatial;
        const C shift = log_sum_exp(x + offset, g.spatial, g.classes);
        for (int64_t c = 0; c < g.classes; ++c) {
          const int64_t i = offset + c * g.spatial;
          y[i] = static_cast<T>(static_cast<C>(x[i]) - shift);
        }
      }
    });
  }
}

CpuKernel make_softmax_cross_entropy_loss(const NodeInfo& info) {
  const LossAttrs attributes = parse_loss_attrs(info);
  return [attributes](OpContext& ctx) {
    const Tensor& scores = ctx.input(0);
    const Tensor& labels = ctx.input(1);
    const Tensor weight = ctx.has_input(2) ? ctx.input(2) : Tensor();
    const LossGeometry g = check_loss_inputs(ctx, scores, labels, weight);
    visit_loss_types(scores, labels, [&]<class T, class Index>() {
      const T* x = scores.data<T>();
      const Index* target = labels.data<Index>();
      const T* w = optional_data<T>(weight);
      if (ctx.wants_output(1)) {
        T* log_prob =
            ctx.allocate_output(1, scores.dtype(), scores.shape()).template mutable_data<T>();
        if (g.samples() > 0 && g.classes > 0) log_softmax_over_classes(x, log_prob, g);
        negative_log_likelihood<T, Index>(ctx, g, target, w, attributes, 1,
                                          [&](int64_t n, int64_t c, int64_t d) {
                                            return log_prob[(n * g.classes + c) * g.spatial + d];
                                          });
        return;
      }
      negative_log_likelihood<T, Index>(ctx, g, target, w, attributes, g.classes,
                                        [&](int64_t n, int64_t c, int64_t d) {
                                          const T* line = x + n * g.classes * g.spatial + d;
                                          return static_cast<Compute<T>>(line[c * g.spatial]) -
                                                 log_sum_exp(line, g.spatial, g.classes);
                                        });
    });
  };
}

}  // namespace

KILN_CPU_OPS(loss);
void register_loss_ops(OpRegistry& registry) {
  registry.add("NegativeLogLikelihoodLoss", make_negative_log_likelihood_loss);
  registry.add("SoftmaxCrossEntropyLoss", make_softmax_cross_entropy_loss);
}

}  // namespace kiln
