// Host side of shaders/recurrent_step.comp: the recurrence of a float32 ONNX RNN or GRU, any
// direction, layout, activation functions, clip and sequence lengths. The input projection
// X·Wᵀ of all steps comes first, from the MatMul kernel; each time step is then one dispatch
// (RNN) or two (GRU: the gates, then the candidate, which needs every unit's reset gate).
//
//   RecurrentStepBuffers buffers{...};
//   for (int64_t s = 0; s < seq; ++s) kernel.record_step(cmd, arena, problem, buffers, s);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "opdefs/recurrent.h"

namespace kiln::gpu_compute {

enum class RecurrentCell : uint8_t { kRnn, kGru };

// The sizes of one run and which optional inputs and outputs it has.
struct RecurrentStepProblem {
  RecurrentCell cell = RecurrentCell::kRnn;
  int64_t seq = 0, batch = 0, hidden = 0, directions = 1;
  int64_t layout = 0;    // the node's layout attribute (0 or 1)
  bool reverse = false;  // direction="reverse": the only direction runs backwards in time
  bool has_bias = false, has_initial_h = false;
  bool has_lengths = false, lengths_int64 = false;  // sequence_lens, checked by the host
  bool has_clip = false;
  float clip = 0.0f;
  bool linear_before_reset = false;  // GRU
  bool writes_final_h = false;
  // Every direction's functions, forward's first (RecurrentAttributes::activations).
  std::vector<recurrent::Activation> activations;

  int64_t gates() const { return cell == RecurrentCell::kGru ? 3 : 1; }
  // Floats of the scratch buffer `state`: two hidden-state slots, then GRU's gates.
  int64_t state_elements() const {
    const int64_t states = directions * batch * hidden;
    return cell == RecurrentCell::kGru ? 4 * states : 2 * states;
  }
};

// The step kernel's operands. An absent optional input may be any buffer (it is not read).
struct RecurrentStepBuffers {
  const Buffer* projection = nullptr;  // [rows of X, directions * gates * hidden]
  const Buffer* r = nullptr;           // [directions, gates * hidden, hidden]
  const Buffer* bias = nullptr;        // [directions, 2 * gates * hidden]: Wb then Rb
  const Buffer* lengths = nullptr;     // [batch] int32 or int64
  const Buffer* initial_h = nullptr;   // the node's state shape
  const Buffer* y = nullptr;           // the node's Y shape, written
  const Buffer* state = nullptr;       // scratch of state_elements() floats
  const Buffer* final_h = nullptr;     // the node's state shape, written when asked
};

// Mirrors the shader's push-constant block.
struct RecurrentStepPushConstants {
  uint32_t seq = 0, batch = 0, hidden = 0, directions = 0;
  uint32_t step = 0, phase = 0, flags = 0;
  float clip = 0.0f;
  uint32_t kinds = 0;
  float alpha[4] = {}, beta[4] = {};
};
static_assert(sizeof(RecurrentStepPushConstants) <= kMaxPushConstantBytes);

class RecurrentStep {
 public:
  explicit RecurrentStep(Device& device);

  // Records time step `step` (0 .. seq-1, counted in each direction's own order) of every
  // direction, each dispatch followed by a barrier. kiln::Error when a size exceeds 32-bit
  // indexing, a buffer is too small for the problem or the activations do not fit.
  void record_step(VkCommandBuffer cmd, DescriptorArena& arena, const RecurrentStepProblem& problem,
                   const RecurrentStepBuffers& buffers, int64_t step) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
