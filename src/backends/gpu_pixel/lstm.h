// Float32 ONNX LSTM (layout 0, default activations, no clip, no input_forget) on texture
// tensors, with the gate order of the CPU op (ops/lstm.cpp): i, o, f, c in W, R and B, Wb before
// Rb, peepholes i, o, f.
//
//   LstmTensors t{&x, &w, &r, &b, nullptr, nullptr, nullptr, &y, nullptr, nullptr};
//   Lstm(context).record(shape, reversed, t);
//
// One Matmul draws the input projection X·Wᵀ of every step and direction. The recurrence then
// ping-pongs one state texture, [Y | h | c] with Y laid out [seq, directions, batch, hidden] and h
// and c [directions, batch, hidden]: each step is one draw over all directions that writes the
// new h and c of every (direction, batch, unit) and this step's slice of Y, and copies the rest
// of Y from the previous state (a draw cannot read the texture it writes). Region copies take
// the wanted outputs out of the last state. A step's Y slice and its h recompute the same gates:
// one draw per step is worth more than the repeated arithmetic.
#pragma once

#include <array>
#include <cstdint>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"

namespace kiln::gpu_pixel {

struct LstmShape {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, directions = 1;

  int64_t state_count() const { return directions * batch * hidden; }
  int64_t y_count() const { return seq * state_count(); }
};

// The operands of one LSTM; every pointer but x, w and r may be null (absent input, unwanted
// output).
struct LstmTensors {
  const TextureTensor* x;          // [seq, batch, input]
  const TextureTensor* w;          // [directions, 4 * hidden, input]
  const TextureTensor* r;          // [directions, 4 * hidden, hidden]
  const TextureTensor* b;          // [directions, 8 * hidden]
  const TextureTensor* initial_h;  // [directions, batch, hidden]
  const TextureTensor* initial_c;  // [directions, batch, hidden]
  const TextureTensor* p;          // [directions, 3 * hidden]
  TextureTensor* y;                // [seq, directions, batch, hidden]
  TextureTensor* y_h;              // [directions, batch, hidden]
  TextureTensor* y_c;              // [directions, batch, hidden]
};

class Lstm {
 public:
  explicit Lstm(Context& context) : context_(context) {}

  // reversed[d]: direction d runs from the last time step to the first. kiln::Error when a
  // tensor does not hold its shape's element count or sizes exceed 32-bit indexing.
  void record(const LstmShape& shape, std::array<bool, 2> reversed, const LstmTensors& t) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
