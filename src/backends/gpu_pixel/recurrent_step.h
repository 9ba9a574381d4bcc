// Float32 ONNX RNN and GRU on texture tensors: any direction, layout, activation functions, clip
// and sequence lengths, with the rules of opdefs/recurrent.h (the Vulkan version is
// gpu_compute/shaders/recurrent_step.comp).
//
//   RecurrentTensors t{&x, &w, &r, &b, nullptr, &y, &y_h};
//   RecurrentDraws(context).record(problem, lengths, t);
//
// One Matmul draws the input projection X·Wᵀ of every step and direction. The recurrence then
// ping-pongs one state texture, [Y | h], Y and h in the node's layout: each step is one draw
// (RNN) over all directions that writes the new h of every (direction, batch entry, unit) and
// this step's slice of Y, copying the rest from the previous state (a draw cannot read the
// texture it writes). A GRU step draws its update and reset gates first, into a texture of their
// own, as the candidate needs every unit's reset gate. A batch entry whose sequence has ended
// carries its state, and Y past its length stays zero. Region copies take Y and Y_h out of the
// last state.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "opdefs/recurrent.h"

namespace kiln::gpu_pixel {

enum class RecurrentCell : uint8_t { kRnn, kGru };

struct RecurrentProblem {
  RecurrentCell cell = RecurrentCell::kRnn;
  recurrent::RecurrentShape shape;  // gates: 1 (RNN) or 3 (GRU)
  bool reverse = false;             // direction="reverse": direction 0 runs backwards in time
  bool has_clip = false;
  float clip = 0.0f;
  bool linear_before_reset = false;  // GRU
  // Every direction's functions, forward's first (RecurrentAttributes::activations).
  std::vector<recurrent::Activation> activations;
};

// The operands; b, initial_h, y and y_h may be null (absent input, unwanted output).
struct RecurrentTensors {
  const TextureTensor* x;          // X in the node's layout
  const TextureTensor* w;          // [directions, gates * hidden, input]
  const TextureTensor* r;          // [directions, gates * hidden, hidden]
  const TextureTensor* b;          // [directions, 2 * gates * hidden]: Wb then Rb
  const TextureTensor* initial_h;  // the node's state shape
  TextureTensor* y;                // the node's Y shape
  TextureTensor* y_h;              // the node's state shape
};

class RecurrentDraws {
 public:
  explicit RecurrentDraws(Context& context) : context_(context) {}

  // `lengths`: every batch entry's sequence length, checked to lie in [0, seq]. kiln::Error when
  // a tensor does not hold its shape's element count, the activations do not match the cell, or
  // sizes exceed 32-bit indexing; RunOnCpu when a step's loops exceed the fragment loop budget.
  void record(const RecurrentProblem& p, std::span<const int64_t> lengths,
              const RecurrentTensors& t) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
