// Host side of shaders/lstm_step.comp: the recurrence of a float32 ONNX LSTM with the default
// activations, one dispatch per time step covering every direction. The input projection X·Wᵀ
// of all steps comes first, from the MatMul kernel; the step kernel adds R·h_prev, the biases
// and the peepholes, applies the gates and writes the cell state and Y's slice of the step.
//
//   LstmStepBuffers buffers{...};
//   for (int64_t s = 0; s < seq; ++s) kernel.record_step(cmd, arena, problem, buffers, s);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"

namespace kiln::gpu_compute {

// The sizes of one LSTM run (layout 0: X is [seq, batch, input], Y [seq, directions, batch,
// hidden]) and which optional inputs and outputs it has.
struct LstmProblem {
  int64_t seq = 0, batch = 0, hidden = 0, directions = 1;
  bool reverse = false;  // direction="reverse": the only direction runs backwards in time
  bool has_bias = false, has_peepholes = false, has_initial_h = false;
  bool has_initial_c = false;  // the cell state buffer holds it before step 0
  bool writes_final_h = false;
};

// The step kernel's operands. An absent optional input may be any buffer (it is not read).
struct LstmStepBuffers {
  const Buffer* projection = nullptr;  // [seq * batch, directions * 4 * hidden]
  const Buffer* r = nullptr;           // [directions, 4 * hidden, hidden]
  const Buffer* bias = nullptr;        // [directions, 8 * hidden]: Wb then Rb
  const Buffer* peepholes = nullptr;   // [directions, 3 * hidden]
  const Buffer* initial_h = nullptr;   // [directions, batch, hidden]
  const Buffer* y = nullptr;           // [seq, directions, batch, hidden], written
  // [directions, batch, hidden]: the running cell state, which must hold initial_c before step
  // 0 when the problem has one.
  const Buffer* cell = nullptr;
  const Buffer* final_h = nullptr;  // [directions, batch, hidden], written when asked
};

// Mirrors the shader's push-constant block.
struct LstmStepPushConstants {
  uint32_t seq = 0, batch = 0, hidden = 0, directions = 0;
  uint32_t step = 0;
  uint32_t reverse_forward = 0;
  uint32_t has_bias = 0, has_peepholes = 0, has_initial_h = 0, has_initial_c = 0;
  uint32_t write_final_h = 0;
};
static_assert(sizeof(LstmStepPushConstants) <= kMaxPushConstantBytes);

class LstmStep {
 public:
  explicit LstmStep(Device& device);

  // Records time step `step` (0 .. seq-1, counted in each direction's own order) of every
  // direction, then a barrier. kiln::Error when a size exceeds 32-bit indexing or a buffer is
  // too small for the problem.
  void record_step(VkCommandBuffer cmd, DescriptorArena& arena, const LstmProblem& problem,
                   const LstmStepBuffers& buffers, int64_t step) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
