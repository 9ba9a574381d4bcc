// DFT and STFT on the GPU (shaders/dft.comp): float32 signals, transformed directly (n terms per
// output bin) to about twice float's precision, with the sizes their definition
// (opdefs/signal.h) resolves for the CPU kernels too. Other float types stay on the CPU.
//
// The family in one file: the kernel (the pipeline and its dispatch) and the adapter that places
// ONNX nodes on it. Nothing else uses the kernel, so it has no header.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_common/wide_float.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/pipeline.h"
#include "backends/gpu_compute/shaders.h"
#include "opdefs/signal.h"

namespace kiln::gpu_compute {
namespace {

// ---- The kernel ------------------------------------------------------------------------------

constexpr uint32_t kWorkgroup = 64;
// The direct transform loops n times per output bin: longer transforms stay on the CPU's FFT.
constexpr int64_t kMaxLength = 16384;

// Mirrors the shader's push-constant block.
struct DftPushConstants {
  uint32_t lines = 0, inner = 1;
  uint32_t in_outer_stride = 0, in_inner_stride = 0, in_axis_stride = 0;
  uint32_t in_count = 0, in_components = 1;
  uint32_t out_outer_stride = 0, out_inner_stride = 0, out_axis_stride = 0;
  uint32_t out_length = 0, out_components = 2;
  uint32_t n = 1, inverse = 0, half_spectrum = 0, has_window = 0;
};
static_assert(sizeof(DftPushConstants) <= kMaxPushConstantBytes);

class Dft {
 public:
  explicit Dft(Device& device)
      : device_(device),
        pipeline_(device, PipelineDesc{shaders::dft(), 4, sizeof(DftPushConstants), kWorkgroup}) {}

  // y = the transform of x's lines; `window` is x when there is none.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const DftPushConstants& pc,
              const Buffer& x, const Buffer& window, const Buffer& twiddles,
              const Buffer& y) const {
    const Buffer* buffers[] = {&x, &window, &twiddles, &y};
    record_per_element(cmd, device_, arena, pipeline_, pc,
                       static_cast<uint64_t>(pc.lines) * pc.out_length, buffers);
  }

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// cos and sin of 2 pi r / n for r in [0, n), computed in double, as three floats each
// (wide_float.h).
std::vector<float> twiddles(int64_t n) {
  std::vector<float> table;
  table.reserve(static_cast<size_t>(n) * 6);
  for (int64_t r = 0; r < n; ++r) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(r) / static_cast<double>(n);
    push_wide(table, std::cos(angle));
    push_wide(table, std::sin(angle));
  }
  return table;
}

void check_32_bit(int64_t in_elements, int64_t out_elements) {
  if (in_elements > INT32_MAX || out_elements > INT32_MAX)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the tensor exceeds 32-bit indexing");
}

void check_length(int64_t n) {
  if (n > kMaxLength)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "a transform of " + std::to_string(n) +
                                                  " points, beyond the direct kernel's " +
                                                  std::to_string(kMaxLength));
}

void record_transform(OpRecorder& r, const DftPushConstants& pc, int64_t n, const Shape& out,
                      std::optional<size_t> window) {
  const std::vector<float> table = twiddles(n);
  const Buffer& x = r.buffer(0);
  const Buffer& w = window ? r.buffer(*window) : x;
  const Buffer& t = r.upload(std::as_bytes(std::span(table)));
  const Buffer& y = r.output(0, DataType::Float32, out);
  r.add_work(static_cast<uint64_t>(out.element_count()) * static_cast<uint64_t>(n));
  r.kernel<Dft>().record(r.cmd(), r.arena(), pc, x, w, t, y);
}

// ---- The adapter -----------------------------------------------------------------------------

RecordFn dft(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_dft_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const DftSizes s = resolve_dft(NodeInputs{*node.node, inputs}, attrs, INT64_MAX);
    check_length(s.n);
    const Shape& shape = r.shape(0);
    const auto rank = static_cast<int64_t>(shape.size());
    check_32_bit(shape.element_count(), s.out_shape.element_count());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < s.axis; ++d) outer *= shape[d];
    for (int64_t d = s.axis + 1; d < rank - 1; ++d) inner *= shape[d];
    const int64_t in_length = shape[s.axis], in_components = shape[rank - 1];
    DftPushConstants pc;
    pc.lines = static_cast<uint32_t>(outer * inner);
    pc.inner = static_cast<uint32_t>(std::max<int64_t>(inner, 1));
    pc.in_components = static_cast<uint32_t>(in_components);
    pc.in_inner_stride = static_cast<uint32_t>(in_components);
    pc.in_axis_stride = static_cast<uint32_t>(inner * in_components);
    pc.in_outer_stride = static_cast<uint32_t>(in_length * inner * in_components);
    pc.in_count = static_cast<uint32_t>(s.half_spectrum ? in_length : std::min(in_length, s.n));
    pc.out_components = static_cast<uint32_t>(s.out_components);
    pc.out_inner_stride = static_cast<uint32_t>(s.out_components);
    pc.out_axis_stride = static_cast<uint32_t>(inner * s.out_components);
    pc.out_outer_stride = static_cast<uint32_t>(s.out_length * inner * s.out_components);
    pc.out_length = static_cast<uint32_t>(s.out_length);
    pc.n = static_cast<uint32_t>(s.n);
    pc.inverse = attrs.inverse ? 1 : 0;
    pc.half_spectrum = s.half_spectrum ? 1 : 0;
    record_transform(r, pc, s.n, s.out_shape, std::nullopt);
  };
}

RecordFn stft(const NodeInfo& info) {
  return [node = NodeRef(info), attrs = parse_stft_attrs(info)](OpRecorder& r) {
    const std::vector<Tensor> inputs = run_inputs(r);
    const StftSizes s = resolve_stft(NodeInputs{*node.node, inputs}, attrs, INT64_MAX);
    check_length(s.frame_length);
    check_32_bit(r.shape(0).element_count(), s.out_shape.element_count());
    // Lines are (batch, frame); frame f starts at sample f * frame_step.
    DftPushConstants pc;
    pc.lines = static_cast<uint32_t>(s.batch * s.frames);
    pc.inner = static_cast<uint32_t>(std::max<int64_t>(s.frames, 1));
    pc.in_components = static_cast<uint32_t>(s.components);
    pc.in_outer_stride = static_cast<uint32_t>(s.signal_length * s.components);
    // Within the signal whenever there is a second frame (the 32-bit check covers it).
    pc.in_inner_stride = static_cast<uint32_t>(s.frames > 1 ? s.frame_step * s.components : 0);
    pc.in_axis_stride = static_cast<uint32_t>(s.components);
    pc.in_count = static_cast<uint32_t>(s.frame_length);
    pc.out_components = 2;
    pc.out_axis_stride = 2;
    pc.out_inner_stride = static_cast<uint32_t>(s.bins * 2);
    pc.out_outer_stride = static_cast<uint32_t>(s.frames * s.bins * 2);
    pc.out_length = static_cast<uint32_t>(s.bins);
    pc.n = static_cast<uint32_t>(s.frame_length);
    pc.has_window = s.has_window ? 1 : 0;
    record_transform(r, pc, s.frame_length, s.out_shape,
                     s.has_window ? std::optional<size_t>(2) : std::nullopt);
  };
}

// Float32 signals (and windows); the scalar inputs are host values (shape-deciding).
OpFactory signal_factory(RecordFn (*make)(const NodeInfo&), size_t float_inputs) {
  return [make, float_inputs](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
    if (float_inputs > 1 && !inputs_are(q, {DataType::Float32}, reason, 2, 1)) return nullptr;
    return make(q.info);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(dft);
void register_dft_ops(OpTable& t) {
  t.add("DFT", signal_factory(dft, 1));
  t.add("STFT", signal_factory(stft, 2));
}

}  // namespace kiln::gpu_compute
