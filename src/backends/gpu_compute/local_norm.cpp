// LRN (shaders/lrn.comp) and MeanVarianceNormalization (the normalization kernel's Mvn mode) on
// the GPU, for float32 tensors; their attributes and checks come from opdefs/local_norm.h.
//
// MeanVarianceNormalization normalizes over any set of axes, the normalization kernel along the
// middle of an [outer, n, inner] view: reduced axes that are adjacent (size-1 axes aside) are that
// view as they lie; others are transposed after the kept ones first, and the result back.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/normalization.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/local_norm.h"

namespace kiln::gpu_compute {
namespace {

// ---- The LRN kernel --------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 256;

// Mirrors the shader's push-constant block.
struct LrnPushConstants {
  uint32_t count = 0, channels = 1, spatial = 1, before = 0, after = 0;
  float scale = 0, beta = 0, bias = 0;
};
static_assert(sizeof(LrnPushConstants) <= kMaxPushConstantBytes);

class Lrn {
 public:
  explicit Lrn(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::lrn(), 2, sizeof(LrnPushConstants), kWorkgroup}) {}

  void record(VkCommandBuffer cmd, DescriptorArena& arena, const LrnPushConstants& pc,
              const Buffer& x, const Buffer& y) const {
    const Buffer* buffers[] = {&x, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc, pc.count, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// ---- The adapters ----------------------------------------------------------------------------

RecordFn lrn(LrnAttrs a) {
  return [a](OpRecorder& r) {
    const Shape& x = r.shape(0);
    if (x.size() < 2)
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "an input that is not (N, C, ...); the CPU kernel reports it");
    const int64_t count = x.element_count();
    if (count > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    LrnPushConstants pc;
    pc.count = static_cast<uint32_t>(count);
    pc.channels = static_cast<uint32_t>(std::max<int64_t>(x[1], 1));
    int64_t spatial = 1;
    for (size_t d = 2; d < x.size(); ++d) spatial *= x[d];
    pc.spatial = static_cast<uint32_t>(std::max<int64_t>(spatial, 1));
    // A window wider than the channels reaches no further than they do.
    pc.before = static_cast<uint32_t>(std::min<int64_t>(a.before, x[1]));
    pc.after = static_cast<uint32_t>(std::min<int64_t>(a.after, x[1]));
    pc.scale = static_cast<float>(static_cast<double>(a.alpha) / static_cast<double>(a.size));
    pc.beta = a.beta;
    pc.bias = a.bias;
    const Buffer& in = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, x);
    r.kernel<Lrn>().record(r.cmd(), r.arena(), pc, in, y);
  };
}

OpFactory lrn_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const Shape* x = static_input_shape(q, 0);
    if (x && x->size() < 2) {
      reason = "an input that is not (N, C, ...) (the CPU kernel reports it)";
      return nullptr;
    }
    return lrn(parse_lrn_attrs(q.info));
  };
}

// The normalization of `shape` over the dimensions `reduced` (a bit mask) as an [outer, n,
// inner] view, when the reduced dimensions of more than one element are adjacent.
std::optional<NormProblem> mvn_in_place(const Shape& shape, uint32_t reduced) {
  std::vector<size_t> wide;  // the dimensions of more than one element
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1) wide.push_back(d);
  }
  size_t first = wide.size(), last = 0;
  for (size_t i = 0; i < wide.size(); ++i) {
    if ((reduced >> wide[i]) & 1u) {
      if (first == wide.size()) first = i;
      if (last + 1 < i && first != i) return std::nullopt;  // a kept dimension in between
      last = i;
    }
  }
  NormProblem p;
  p.mode = NormMode::Mvn;
  p.epsilon = static_cast<float>(kMvnEpsilon);
  for (size_t i = 0; i < wide.size(); ++i) {
    const int64_t size = shape[wide[i]];
    if (first == wide.size() || i < first) {
      p.outer *= size;
    } else if (i <= last) {
      p.n *= size;
    } else {
      p.inner *= size;
    }
  }
  return p;
}

RecordFn mvn(std::vector<int64_t> axes, NodeRef node) {
  return [axes, node](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const uint32_t reduced = resolve_mvn_axes(*node.node, axes, static_cast<int64_t>(x.size()));
    const int64_t count = x.element_count();
    if (count > INT32_MAX)
      throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
    const Buffer& in = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, x);
    if (count == 0) return;
    Normalization& norm = r.kernel<Normalization>();
    if (const std::optional<NormProblem> p = mvn_in_place(x, reduced)) {
      norm.record(r.cmd(), r.arena(), *p, in, nullptr, nullptr, nullptr, nullptr, y);
      return;
    }
    if (x.size() > static_cast<size_t>(kRegionMaxRank))
      throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                     "a rank beyond the transposes' " + std::to_string(kRegionMaxRank));
    // The kept dimensions first, then the reduced ones, each in their order.
    std::vector<int64_t> perm, inverse(x.size());
    Shape moved;
    NormProblem p;
    p.mode = NormMode::Mvn;
    p.epsilon = static_cast<float>(kMvnEpsilon);
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t d = 0; d < x.size(); ++d) {
        if (((reduced >> d) & 1u) != static_cast<uint32_t>(pass)) continue;
        inverse[d] = static_cast<int64_t>(perm.size());
        perm.push_back(static_cast<int64_t>(d));
        moved.push_back(x[d]);
        (pass == 0 ? p.outer : p.n) *= x[d];
      }
    }
    const size_t bytes = static_cast<size_t>(count) * sizeof(float);
    const Buffer& gathered = r.scratch(bytes);
    const Buffer& normalized = r.scratch(bytes);
    RegionCopy& copy = r.kernel<RegionCopy>();
    copy.transpose(r.cmd(), r.arena(), DataType::Float32, in, x, perm, gathered);
    norm.record(r.cmd(), r.arena(), p, gathered, nullptr, nullptr, nullptr, nullptr, normalized);
    copy.transpose(r.cmd(), r.arena(), DataType::Float32, normalized, moved, inverse, y);
  };
}

OpFactory mvn_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return mvn(parse_mvn_axes(q.info), NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(local_norm);
void register_local_norm_ops(OpTable& t) {
  t.add("LRN", lrn_factory());
  t.add("MeanVarianceNormalization", mvn_factory());
}

}  // namespace kiln::gpu_compute
