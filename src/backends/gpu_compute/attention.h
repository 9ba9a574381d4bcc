// The scaled dot-product attention kernel (shaders/attention.comp) that ONNX Attention
// (attention.cpp) and com.microsoft's GroupQueryAttention (group_query_attention.cpp) record:
// float32 Q, K, V read through strides, grouped-query heads, a float or bool mask, causal
// masking with one offset or one per batch, a local window, per-batch valid keys, scale,
// softcap, and the scores of one stage on request. The semantics are the CPU kernel's
// (backends/cpu/attention_kernel.h).
#pragma once

#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/cast.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/op_recorder.h"
#include "backends/gpu_compute/pipeline.h"
#include "opdefs/attention.h"

namespace kiln::gpu_compute {

enum class MaskKind : uint32_t { None, Float, Bool };
constexpr uint32_t kNoScores = 4;

// One run's problem: the geometry (its total() keys are those K and V hold), where each
// operand's elements are, and the options.
struct AttentionProblem {
  AttentionGeometry g;
  HeadStrides q, k, v, y;  // k and v are strided over the total keys
  MaskKind mask = MaskKind::None;
  AttentionMaskLayout mask_layout;
  bool causal = false;
  // padded: `valid` holds each batch's valid keys. batch_offsets: `valid` then holds, after
  // them, each batch's causal offset, in place of causal_offset (without it, a padded causal
  // run's offset is valid[b] - q_len).
  bool padded = false, batch_offsets = false;
  int64_t causal_offset = 0;
  int64_t local_window = -1;  // with a causal mask: keys seen, the diagonal one included
  uint32_t scores_stage = kNoScores;
  float scale = 1, softcap = 0;
};

// The operands; mask, valid and scores may be null when the problem has none. valid is int32.
struct AttentionBuffers {
  const Buffer *q = nullptr, *k = nullptr, *v = nullptr, *mask = nullptr, *valid = nullptr;
  const Buffer *y = nullptr, *probs = nullptr, *scores = nullptr;
};

class AttentionKernel {
 public:
  explicit AttentionKernel(Device& device);

  // Records the attention of every query row; `probs` holds rows * total floats (at least one).
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const AttentionProblem& pr,
              const AttentionBuffers& b) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

// The node's float32 operands and results. 16-bit float inputs are converted into float32
// scratch first, and results meant for 16-bit float outputs are computed in float32 scratch and
// converted at the end, as the CPU kernel computes them in float32 and rounds.
class Float32Io {
 public:
  explicit Float32Io(OpRecorder& r) : r_(r) {}

  const Buffer& input(size_t k) {
    const DataType dt = r_.dtype(k);
    if (dt == DataType::Float32 || dt == DataType::Bool) return r_.buffer(k);
    const uint64_t count = static_cast<uint64_t>(r_.shape(k).element_count());
    const Buffer& f32 = scratch(count);
    r_.kernel<Cast>().record(r_.cmd(), r_.arena(), dt, r_.buffer(k), DataType::Float32, f32, count);
    return f32;
  }

  // Output k of element type `dt` and shape `shape`, or float32 scratch standing in for it.
  const Buffer& output(size_t k, DataType dt, const Shape& shape) {
    if (dt == DataType::Float32) return r_.output(k, dt, shape);
    const Buffer& f32 = scratch(static_cast<uint64_t>(shape.element_count()));
    pending_.push_back({k, dt, shape, &f32});
    return f32;
  }

  const Buffer& scratch(uint64_t floats) {
    return r_.scratch(static_cast<size_t>(std::max<uint64_t>(floats, 1)) * sizeof(float));
  }

  // Converts the stand-ins into their outputs.
  void finish() {
    for (const Pending& p : pending_) {
      r_.kernel<Cast>().record(r_.cmd(), r_.arena(), DataType::Float32, *p.f32, p.dtype,
                               r_.output(p.index, p.dtype, p.shape),
                               static_cast<uint64_t>(p.shape.element_count()));
    }
  }

 private:
  struct Pending {
    size_t index;
    DataType dtype;
    Shape shape;
    const Buffer* f32;
  };
  OpRecorder& r_;
  std::vector<Pending> pending_;
};

}  // namespace kiln::gpu_compute
