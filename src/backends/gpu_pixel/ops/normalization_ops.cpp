// Normalizations as draws (backends/gpu_pixel/normalization): BatchNormalization (inference),
// InstanceNormalization, GroupNormalization, LayerNormalization (with its statistics outputs),
// RMSNormalization and LpNormalization. Parameters of unexpected sizes run on the CPU, whose kernel
// reports them.
#include "backends/gpu_pixel/normalization.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/region_copy.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

ChannelShape channel_shape(const Shape& x) {
  if (x.size() < 2) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "expects (N, C, ...)");
  int64_t spatial = 1;
  for (size_t d = 2; d < x.size(); ++d) spatial *= x[d];
  return {x[0], x[1], spatial};
}

void expect_count(OpRecorder& r, size_t k, int64_t count) {
  if (r.shape(k).element_count() != count)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "parameter of the wrong size");
}

// Inputs are float; the optional statistics outputs (but LayerNormalization's) have no draws.
bool plain_normalization(const DevicePlacementQuery& q, std::string& reason,
                         bool stats_drawn = false) {
  if (!float_inputs(q, reason)) return false;
  for (size_t k = 1; k < q.info.num_outputs() && !stats_drawn; ++k) {
    if (q.info.has_output(k)) {
      reason = "the statistics outputs stay on the CPU";
      return false;
    }
  }
  return true;
}

OpFactory batch_norm() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!plain_normalization(q, reason)) return nullptr;
    if (q.info.attr_int("training_mode", 0) != 0 || q.info.opset() < 9) {
      reason = "training-mode (or pre-opset-9) BatchNormalization stays on the CPU";
      return nullptr;
    }
    const float eps = q.info.attr_float("epsilon", 1e-5f);
    return [eps](OpRecorder& r) {
      const ChannelShape s = channel_shape(r.shape(0));
      for (size_t k = 1; k <= 4; ++k) expect_count(r, k, s.channels);
      r.kernel<Normalization>().record_batch_norm(s, r.texture(0), r.texture(1), r.texture(2),
                                                  r.texture(3), r.texture(4), eps,
                                                  r.output(0, r.shape(0)));
    };
  };
}

OpFactory instance_norm() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!plain_normalization(q, reason)) return nullptr;
    const float eps = q.info.attr_float("epsilon", 1e-5f);
    return [eps](OpRecorder& r) {
      const ChannelShape s = channel_shape(r.shape(0));
      if (r.shape(0).size() < 3)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "expects spatial dimensions");
      expect_count(r, 1, s.channels);
      expect_count(r, 2, s.channels);
      r.kernel<Normalization>().record_instance_norm(s, r.texture(0), r.texture(1), r.texture(2),
                                                     eps, r.output(0, r.shape(0)));
    };
  };
}

OpFactory group_norm() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!plain_normalization(q, reason)) return nullptr;
    const float eps = q.info.attr_float("epsilon", 1e-5f);
    const int64_t groups = q.info.required_int("num_groups");
    const bool per_channel_spec = q.info.opset() >= 21;
    return [=](OpRecorder& r) {
      const ChannelShape s = channel_shape(r.shape(0));
      if (groups <= 0 || s.channels % groups != 0)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "bad num_groups");
      const int64_t params = r.shape(1).element_count();
      // Per channel from opset 21; per group before, where a per-channel vector is accepted too.
      const bool per_group = !per_channel_spec && params == groups && groups != s.channels;
      expect_count(r, 1, per_group ? groups : s.channels);
      expect_count(r, 2, per_group ? groups : s.channels);
      r.kernel<Normalization>().record_group_norm(s, groups, per_group, r.texture(0), r.texture(1),
                                                  r.texture(2), eps, r.output(0, r.shape(0)));
    };
  };
}

OpFactory layer_norm() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!plain_normalization(q, reason, true)) return nullptr;
    if (q.info.attr_int("stash_type", 1) != 1) {
      reason = "LayerNormalization with stash_type other than float stays on the CPU";
      return nullptr;
    }
    const float eps = q.info.attr_float("epsilon", 1e-5f);
    const int64_t axis = q.info.attr_int("axis", -1);
    const bool want_stats[2] = {q.info.has_output(1), q.info.has_output(2)};
    return [=](OpRecorder& r) {
      const Shape& x = r.shape(0);
      const auto rank = static_cast<int64_t>(x.size());
      const int64_t a = non_negative_axis(axis, rank);
      int64_t rows = 1, row_len = 1;
      for (int64_t d = 0; d < rank; ++d) (d < a ? rows : row_len) *= x[static_cast<size_t>(d)];
      // Scale and bias spanning the whole normalized shape; other broadcasts run on the CPU.
      expect_count(r, 1, row_len);
      if (r.has_input(2)) expect_count(r, 2, row_len);
      const TextureTensor* bias = r.has_input(2) ? &r.texture(2) : nullptr;
      // Mean and InvStdDev (float32, as stash_type 1 says): X's shape with 1 for each normalized
      // dimension.
      TextureTensor* stats[2] = {nullptr, nullptr};
      Shape stats_shape = x;
      for (int64_t d = a; d < rank; ++d) stats_shape[static_cast<size_t>(d)] = 1;
      for (size_t k = 1; k <= 2; ++k) {
        if (!want_stats[k - 1]) continue;
        if (rows > 0 && row_len == 0)
          throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                         "the statistics of empty rows; the CPU kernel gives them");
        stats[k - 1] = &r.output(k, stats_shape);
      }
      r.kernel<Normalization>().record_layer_norm(rows, row_len, r.texture(0), r.texture(1), bias,
                                                  eps, r.output(0, x), stats[0], stats[1]);
    };
  };
}

// RMSNormalization's Scale as one value per element of the normalized dimensions `norm`: its own
// texture when it holds that many, else its broadcast (numpy rules) expanded into a temporary.
// RunOnCpu for a shape that does not broadcast to `norm`: the CPU kernel reports it.
const TextureTensor& row_scale(OpRecorder& r, const Shape& norm, TextureTensor& expanded) {
  const Shape& s = r.shape(1);
  const bool fits = s.size() <= norm.size() && or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
                      return broadcast_shapes(s, norm, "RMSNormalization Scale") == norm;
                    });
  if (!fits)
    throw RunOnCpu(
        RunTimeCause::ShapeOutsideKernel,
        "a Scale of shape " + s.to_string() + " does not broadcast to " + norm.to_string());
  if (s.element_count() == norm.element_count()) return r.texture(1);
  expanded = r.temporary(norm.element_count());
  r.kernel<RegionCopy>().record(expand_region(s, norm), r.texture(1), expanded);
  return expanded;
}

OpFactory rms_norm() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!plain_normalization(q, reason)) return nullptr;
    if (q.info.attr_int("stash_type", 1) != 1) {
      reason = "RMSNormalization with stash_type other than float stays on the CPU";
      return nullptr;
    }
    const float eps = q.info.attr_float("epsilon", 1e-5f);
    const int64_t axis = q.info.attr_int("axis", -1);
    return [=](OpRecorder& r) {
      if (!r.has_input(1))
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "no Scale (the CPU kernel reports it)");
      const Shape& x = r.shape(0);
      const auto rank = static_cast<int64_t>(x.size());
      const int64_t a = non_negative_axis(axis, rank);
      const Shape norm(x.begin() + a, x.end());
      int64_t rows = 1;
      for (int64_t d = 0; d < a; ++d) rows *= x[static_cast<size_t>(d)];
      TextureTensor expanded;
      const TextureTensor& scale = row_scale(r, norm, expanded);
      r.kernel<Normalization>().record_rms_norm(rows, norm.element_count(), r.texture(0), scale,
                                                eps, r.output(0, x));
    };
  };
}

OpFactory lp_norm() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    const int64_t axis = q.info.attr_int("axis", -1);
    const int64_t p = q.info.attr_int("p", 2);
    if (p != 1 && p != 2) {
      reason = "LpNormalization with p other than 1 or 2";
      return nullptr;
    }
    return [=](OpRecorder& r) {
      const Shape& x = r.shape(0);
      const auto rank = static_cast<int64_t>(x.size());
      const int64_t a = non_negative_axis(axis, rank);
      int64_t outer = 1, inner = 1;
      for (int64_t d = 0; d < a; ++d) outer *= x[static_cast<size_t>(d)];
      for (int64_t d = a + 1; d < rank; ++d) inner *= x[static_cast<size_t>(d)];
      r.kernel<Normalization>().record_lp_norm(outer, x[static_cast<size_t>(a)], inner,
                                               static_cast<int>(p), r.texture(0), r.output(0, x));
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(normalization);
void register_normalization_ops(OpTable& t) {
  t.add("BatchNormalization", batch_norm());
  t.add("InstanceNormalization", instance_norm());
  t.add("GroupNormalization", group_norm());
  t.add("LayerNormalization", layer_norm());
  t.add("RMSNormalization", rms_norm());
  t.add("LpNormalization", lp_norm());
}

}  // namespace kiln::gpu_pixel
