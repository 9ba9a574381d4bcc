// Normalizations on the GPU (shaders/normalization.comp): LayerNormalization, RMSNormalization,
// com.microsoft's SimplifiedLayerNormalization, SkipLayerNormalization and
// SkipSimplifiedLayerNormalization (input + skip + bias added first), InstanceNormalization,
// GroupNormalization and LpNormalization compute their statistics per line (the row
// normalizations also write them out as their optional statistics outputs); inference
// BatchNormalization takes them from its inputs. Outputs the kernel does not write
// (BatchNormalization's running statistics) keep the node on the CPU; so do parameter shapes the
// kernel does not index (the CPU kernel then broadcasts them or reports them); LayerNormalization's
// and RMSNormalization's broadcast parameters are expanded first.
#include <algorithm>

#include "backends/gpu_compute/binary_elementwise.h"
#include "backends/gpu_compute/normalization.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/region_copy.h"
#include "ir/domains.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_compute {
namespace {

int64_t count_of(OpRecorder& r, size_t k) { return r.shape(k).element_count(); }

// Records the problem with inputs 1 and 2 as scale and bias (3 and 4 as mean and var when the
// statistics are given); `stats_shape` set: outputs 1 and 2 receive each line's mean and
// inverse standard deviation.
void record_norm(OpRecorder& r, const NormProblem& p, bool has_bias,
                 const Shape* stats_shape = nullptr) {
  const Buffer& x = r.buffer(0);
  const Buffer* scale = r.has_input(1) ? &r.buffer(1) : nullptr;
  const Buffer* bias = has_bias ? &r.buffer(2) : nullptr;
  const Buffer* mean = p.mode == NormMode::Given ? &r.buffer(3) : nullptr;
  const Buffer* var = p.mode == NormMode::Given ? &r.buffer(4) : nullptr;
  const Buffer& y = r.output(0, DataType::Float32, r.shape(0));
  const Buffer* mean_out = stats_shape ? &r.output(1, DataType::Float32, *stats_shape) : nullptr;
  const Buffer* inv_std_out = stats_shape ? &r.output(2, DataType::Float32, *stats_shape) : nullptr;
  r.kernel<Normalization>().record(r.cmd(), r.arena(), p, x, scale, bias, mean, var, y, mean_out,
                                   inv_std_out);
}

// (N, C, spatial...) inputs: C and the spatial size.
std::pair<int64_t, int64_t> channels_and_spatial(OpRecorder& r) {
  const Shape& x = r.shape(0);
  if (x.size() < 2) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "input is not (N, C, ...)");
  int64_t spatial = 1;
  for (size_t d = 2; d < x.size(); ++d) spatial *= x[d];
  return {x[1], spatial};
}

// Input k as one value per element of the normalized dimensions `norm`: its own buffer when it
// has that many elements, else its broadcast (numpy rules, from the right) expanded into
// scratch. RunOnCpu for a shape that does not broadcast to `norm`: the CPU kernel reports it.
const Buffer& row_param(OpRecorder& r, size_t k, const Shape& norm) {
  const Shape& s = r.shape(k);
  const bool fits = s.size() <= norm.size() && or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
                      return broadcast_shapes(s, norm, "normalization parameter") == norm;
                    });
  if (!fits)
    throw RunOnCpu(
        RunTimeCause::ShapeOutsideKernel,
        "a parameter of shape " + s.to_string() + " does not broadcast to " + norm.to_string());
  if (s.element_count() == norm.element_count()) return r.buffer(k);
  const Buffer& full =
      r.scratch(static_cast<size_t>(std::max<int64_t>(norm.element_count(), 1)) * sizeof(float));
  r.kernel<RegionCopy>().expand(r.cmd(), r.arena(), DataType::Float32, r.buffer(k), s, norm, full);
  return full;
}

// The row normalizations: where each input and output sits (-1: the op has none).
struct RowNormSpec {
  NormMode mode = NormMode::Moments;
  bool skip = false;  // normalizes input + skip (+ bias): com.microsoft's Skip forms
  int scale_input = 1, shift_input = 2, skip_bias_input = -1;
  int mean_output = 1, inv_std_output = 2, sum_output = -1;
};

bool given(OpRecorder& r, int input) {
  return input >= 0 && r.has_input(static_cast<size_t>(input));
}
bool produced(OpRecorder& r, int output) {
  return output >= 0 && r.num_outputs() > static_cast<size_t>(output);
}

// The Skip forms' input + skip (+ bias), into input_skip_bias_sum when the node has it. skip
// may broadcast over the leading dimensions; gamma, beta and bias are [hidden] exactly, as the
// CPU kernel requires (which reports other shapes).
const Buffer& skip_sum(OpRecorder& r, const RowNormSpec& spec, const Shape& hidden) {
  const Shape& x = r.shape(0);
  const Shape& skip = r.shape(1);
  const bool skip_fits = skip.size() <= x.size() && skip.size() > 0 &&
                         std::equal(skip.begin(), skip.end(), x.end() - skip.size(),
                                    [](int64_t s, int64_t d) { return s == 1 || s == d; }) &&
                         skip.back() == x.back();
  if (!skip_fits || r.dtype(1) != r.dtype(0))
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "skip of another shape than the input's");
  for (int k : {spec.scale_input, spec.shift_input, spec.skip_bias_input}) {
    if (given(r, k) && r.shape(static_cast<size_t>(k)) != hidden)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "a parameter that is not [hidden]");
  }
  const Buffer& sum =
      produced(r, spec.sum_output)
          ? r.output(static_cast<size_t>(spec.sum_output), DataType::Float32, x)
          : r.scratch(static_cast<size_t>(std::max<int64_t>(x.element_count(), 1)) * sizeof(float));
  if (x.element_count() == 0) return sum;
  BinaryElementwise& add = r.kernel<BinaryElementwise>();
  add.record(r.cmd(), r.arena(), BinaryOp::Add, r.buffer(0), x, r.buffer(1), skip, sum);
  if (given(r, spec.skip_bias_input)) {
    const size_t k = static_cast<size_t>(spec.skip_bias_input);
    add.record(r.cmd(), r.arena(), BinaryOp::Add, sum, x, r.buffer(k), r.shape(k), sum);
  }
  return sum;
}

// LayerNormalization (Moments), RMSNormalization and SimplifiedLayerNormalization (Rms), and
// the Skip forms: lines over the dimensions from `axis` on, with a scale (and an optional shift)
// per element of a line, which broadcast to those dimensions. The statistics outputs keep the
// leading dimensions, with 1 for each normalized one.
RecordFn row_norm(RowNormSpec spec, int64_t axis, float epsilon) {
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    const int64_t a = non_negative_axis(axis, rank);
    NormProblem p;
    p.mode = spec.mode;
    for (int64_t d = 0; d < a; ++d) p.outer *= x[d];
    const Shape norm(x.begin() + a, x.end());
    p.n = norm.element_count();
    p.channel_mod = 1;
    p.channel_mul = 0;
    p.channel_div = 1;
    p.epsilon = epsilon;
    if (!given(r, spec.scale_input))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "no scale (the CPU kernel reports it)");
    const Buffer& in = spec.skip ? skip_sum(r, spec, norm) : r.buffer(0);
    const Buffer* scale = &row_param(r, static_cast<size_t>(spec.scale_input), norm);
    const Buffer* bias = given(r, spec.shift_input)
                             ? &row_param(r, static_cast<size_t>(spec.shift_input), norm)
                             : nullptr;
    Shape stats(x.begin(), x.begin() + a);
    for (int64_t d = a; d < rank; ++d) stats.push_back(1);
    // The shader writes both statistics or neither: scratch stands in for one the op lacks.
    const bool with_stats = produced(r, spec.mean_output) || produced(r, spec.inv_std_output);
    auto stat = [&](int output) -> const Buffer* {
      if (!with_stats) return nullptr;
      if (produced(r, output))
        return &r.output(static_cast<size_t>(output), DataType::Float32, stats);
      return &r.scratch(static_cast<size_t>(std::max<int64_t>(p.outer, 1)) * sizeof(float));
    };
    const Buffer& y = r.output(0, DataType::Float32, x);
    const Buffer* mean_out = stat(spec.mean_output);
    const Buffer* inv_std_out = stat(spec.inv_std_output);
    r.kernel<Normalization>().record(r.cmd(), r.arena(), p, in, scale, bias, nullptr, nullptr, y,
                                     mean_out, inv_std_out);
  };
}

// The row normalizations' placement: float32, float statistics; the Skip forms normalize the
// last axis.
OpFactory row_norm_factory(RowNormSpec spec, float default_epsilon) {
  return [=](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    if (!spec.skip && q.info.attr_int("stash_type", 1) != 1) {
      reason = "statistics in a stash_type other than float have no GPU kernel";
      return nullptr;
    }
    const size_t needed = spec.skip ? 3 : 2;
    for (size_t k = 0; k < needed; ++k) {
      if (!q.info.has_input(k)) {
        reason = "a required input left out (the CPU kernel reports it)";
        return nullptr;
      }
    }
    const int last_output = std::max({0, spec.mean_output, spec.inv_std_output, spec.sum_output});
    if (q.info.num_outputs() > static_cast<size_t>(last_output) + 1) {
      reason = "more outputs than the op has (the CPU kernel reports it)";
      return nullptr;
    }
    const float epsilon = q.info.attr_float("epsilon", default_epsilon);
    if (spec.skip && epsilon < 0) {
      reason = "a negative epsilon (the CPU kernel reports it)";
      return nullptr;
    }
    return row_norm(spec, spec.skip ? -1 : q.info.attr_int("axis", -1), epsilon);
  };
}

// One line per (n, c) plane of an (N, C, spatial...) input, with the parameters of channel c.
NormProblem per_channel_problem(OpRecorder& r, int64_t channels, int64_t spatial, float epsilon) {
  NormProblem p;
  p.outer = r.shape(0)[0] * channels;
  p.n = spatial;
  p.channel_mod = channels;
  p.channel_mul = 1;
  p.channel_div = std::max<int64_t>(spatial, 1);
  p.epsilon = epsilon;
  return p;
}

RecordFn instance_norm(float epsilon) {
  return [=](OpRecorder& r) {
    const auto [channels, spatial] = channels_and_spatial(r);
    if (count_of(r, 1) != channels || count_of(r, 2) != channels)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "InstanceNormalization parameters of the wrong size");
    record_norm(r, per_channel_problem(r, channels, spatial, epsilon), true);
  };
}

RecordFn group_norm(int64_t groups, float epsilon, int opset) {
  return [=](OpRecorder& r) {
    const auto [channels, spatial] = channels_and_spatial(r);
    if (channels % groups != 0)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "channels not divisible by num_groups");
    // Opset 18 has a scale and bias per group, opset 21 per channel (accepted in opset 18
    // models too when unambiguous, as the CPU kernel does).
    const bool per_group = opset < 21 && count_of(r, 1) == groups;
    const int64_t expected = per_group ? groups : channels;
    if (count_of(r, 1) != expected || count_of(r, 2) != expected)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "GroupNormalization parameters of the wrong size");
    const int64_t per = channels / groups;
    NormProblem p;
    p.outer = r.shape(0)[0] * groups;
    p.n = per * spatial;
    p.channel_mod = groups;
    p.channel_mul = per_group ? 1 : per;
    p.channel_div = per_group ? std::max<int64_t>(p.n, 1) : std::max<int64_t>(spatial, 1);
    p.epsilon = epsilon;
    record_norm(r, p, true);
  };
}

RecordFn batch_norm(float epsilon) {
  return [=](OpRecorder& r) {
    const auto [channels, spatial] = channels_and_spatial(r);
    for (size_t k = 1; k <= 4; ++k) {
      if (count_of(r, k) != channels)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                       "BatchNormalization parameters of the wrong size");
    }
    NormProblem p = per_channel_problem(r, channels, spatial, epsilon);
    p.mode = NormMode::Given;
    record_norm(r, p, true);
  };
}

RecordFn lp_norm(int64_t axis, uint32_t norm_p) {
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    const int64_t a = non_negative_axis(axis, rank);
    NormProblem p;
    p.mode = NormMode::Lp;
    p.p = norm_p;
    for (int64_t d = 0; d < a; ++d) p.outer *= x[d];
    p.n = x[a];
    for (int64_t d = a + 1; d < rank; ++d) p.inner *= x[d];
    const Buffer& xb = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, x);
    r.kernel<Normalization>().record(r.cmd(), r.arena(), p, xb, nullptr, nullptr, nullptr, nullptr,
                                     y);
  };
}

// Only output 0 is written.
bool single_output(const DevicePlacementQuery& q, const char* what, std::string& reason) {
  for (size_t k = 1; k < q.info.num_outputs(); ++k) {
    if (q.info.has_output(k)) {
      reason = std::string(what) + " has no GPU kernel";
      return false;
    }
  }
  return true;
}

}  // namespace

KILN_GPU_COMPUTE_OPS(normalization);
void register_normalization_ops(OpTable& t) {
  const RowNormSpec layer_norm;
  const RowNormSpec rms_norm{
      .mode = NormMode::Rms, .shift_input = -1, .mean_output = -1, .inv_std_output = -1};
  const RowNormSpec simplified{
      .mode = NormMode::Rms, .shift_input = -1, .mean_output = -1, .inv_std_output = 1};
  const RowNormSpec skip{
      .skip = true, .scale_input = 2, .shift_input = 3, .skip_bias_input = 4, .sum_output = 3};
  const RowNormSpec skip_simplified{.mode = NormMode::Rms,
                                    .skip = true,
                                    .scale_input = 2,
                                    .shift_input = -1,
                                    .skip_bias_input = 3,
                                    .sum_output = 3};
  t.add("LayerNormalization", row_norm_factory(layer_norm, 1e-5f));
  t.add(ir::kMicrosoftDomain, "LayerNormalization", row_norm_factory(layer_norm, 1e-5f));
  t.add("RMSNormalization", row_norm_factory(rms_norm, 1e-5f));
  t.add("SimplifiedLayerNormalization", row_norm_factory(simplified, 1e-5f));
  t.add(ir::kMicrosoftDomain, "SimplifiedLayerNormalization", row_norm_factory(simplified, 1e-5f));
  t.add(ir::kMicrosoftDomain, "SkipLayerNormalization", row_norm_factory(skip, 1e-12f));
  t.add(ir::kMicrosoftDomain, "SkipSimplifiedLayerNormalization",
        row_norm_factory(skip_simplified, 1e-12f));
  t.add("InstanceNormalization",
        [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
          if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
          return instance_norm(q.info.attr_float("epsilon", 1e-5f));
        });
  t.add("GroupNormalization", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const int64_t groups = q.info.attr_int("num_groups", 0);
    if (groups <= 0) {
      reason = "num_groups missing or not positive (the CPU kernel reports it)";
      return nullptr;
    }
    return group_norm(groups, q.info.attr_float("epsilon", 1e-5f), q.info.opset());
  });
  t.add("BatchNormalization", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason) ||
        !single_output(q, "BatchNormalization's running statistics output", reason))
      return nullptr;
    if (q.info.opset() >= 14 && q.info.attr_int("training_mode", 0) != 0) {
      reason = "BatchNormalization in training mode has no GPU kernel";
      return nullptr;
    }
    if (q.info.opset() < 9 && q.info.attr_int("spatial", 1) == 0) {
      reason = "per-activation BatchNormalization (spatial = 0) has no GPU kernel";
      return nullptr;
    }
    if (q.info.num_inputs() != 5) {
      reason = "BatchNormalization without its 5 inputs (the CPU kernel reports it)";
      return nullptr;
    }
    return batch_norm(q.info.attr_float("epsilon", 1e-5f));
  });
  t.add("LpNormalization", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const int64_t p = q.info.attr_int("p", 2);
    if (p != 1 && p != 2) {
      reason = "LpNormalization with p other than 1 or 2 (the CPU kernel reports it)";
      return nullptr;
    }
    return lp_norm(q.info.attr_int("axis", -1), static_cast<uint32_t>(p));
  });
}

}  // namespace kiln::gpu_compute
