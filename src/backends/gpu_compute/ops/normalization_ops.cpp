// Normalizations on the GPU (shaders/normalization.comp): LayerNormalization, RMSNormalization,
// InstanceNormalization, GroupNormalization and LpNormalization compute their statistics per
// line (LayerNormalization also writes them out as its optional Mean and InvStdDev); inference
// BatchNormalization takes them from its inputs. Outputs the kernel does not write
// (BatchNormalization's running statistics) keep the node on the CPU; so do parameter shapes the
// kernel does not index (the CPU kernel then broadcasts them or reports them); LayerNormalization's
// and RMSNormalization's broadcast parameters are expanded first.
#include "backends/gpu_compute/normalization.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/region_copy.h"
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
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                   "a parameter of shape " + s.to_string() + " does not broadcast to " +
                       norm.to_string());
  if (s.element_count() == norm.element_count()) return r.buffer(k);
  const Buffer& full =
      r.scratch(static_cast<size_t>(std::max<int64_t>(norm.element_count(), 1)) * sizeof(float));
  r.kernel<RegionCopy>().expand(r.cmd(), r.arena(), DataType::Float32, r.buffer(k), s, norm, full);
  return full;
}

// LayerNormalization (Moments) and RMSNormalization (Rms): lines over the dimensions from
// `axis` on, with a scale (and LayerNormalization's optional bias) per element of a line, which
// broadcast to those dimensions. LayerNormalization's Mean and InvStdDev keep the leading
// dimensions, with 1 for each normalized one.
RecordFn row_norm(NormMode mode, int64_t axis, float epsilon) {
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    const int64_t a = non_negative_axis(axis, rank);
    NormProblem p;
    p.mode = mode;
    for (int64_t d = 0; d < a; ++d) p.outer *= x[d];
    const Shape norm(x.begin() + a, x.end());
    p.n = norm.element_count();
    p.channel_mod = 1;
    p.channel_mul = 0;
    p.channel_div = 1;
    p.epsilon = epsilon;
    if (!r.has_input(1))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "no Scale (the CPU kernel reports it)");
    const Buffer* scale = &row_param(r, 1, norm);
    const Buffer* bias = mode == NormMode::Moments && r.has_input(2) ? &row_param(r, 2, norm)
                                                                    : nullptr;
    Shape stats(x.begin(), x.begin() + a);
    for (int64_t d = a; d < rank; ++d) stats.push_back(1);
    const bool with_stats = r.num_outputs() == 3;
    const Buffer& y = r.output(0, DataType::Float32, x);
    const Buffer* mean_out = with_stats ? &r.output(1, DataType::Float32, stats) : nullptr;
    const Buffer* inv_std_out = with_stats ? &r.output(2, DataType::Float32, stats) : nullptr;
    r.kernel<Normalization>().record(r.cmd(), r.arena(), p, r.buffer(0), scale, bias, nullptr,
                                     nullptr, y, mean_out, inv_std_out);
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
  t.add("LayerNormalization", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    if (q.info.num_outputs() == 2) {
      reason = "LayerNormalization's Mean without InvStdDev has no GPU kernel";
      return nullptr;
    }
    if (q.info.attr_int("stash_type", 1) != 1) {
      reason = "statistics in a stash_type other than float have no GPU kernel";
      return nullptr;
    }
    return row_norm(NormMode::Moments, q.info.attr_int("axis", -1),
                    q.info.attr_float("epsilon", 1e-5f));
  });
  t.add("RMSNormalization", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    if (q.info.attr_int("stash_type", 1) != 1) {
      reason = "statistics in a stash_type other than float have no GPU kernel";
      return nullptr;
    }
    if (q.info.num_inputs() < 2 || !q.info.has_input(1)) {
      reason = "RMSNormalization without its Scale (the CPU kernel reports it)";
      return nullptr;
    }
    return row_norm(NormMode::Rms, q.info.attr_int("axis", -1),
                    q.info.attr_float("epsilon", 1e-5f));
  });
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
