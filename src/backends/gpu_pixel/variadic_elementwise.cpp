#include "backends/gpu_pixel/variadic_elementwise.h"

#include <string>
#include <utility>

#include "kiln/error.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

const char* name_of(VariadicOp op) {
  switch (op) {
    case VariadicOp::Sum:
      return "Sum";
    case VariadicOp::Max:
      return "Max";
    case VariadicOp::Min:
      return "Min";
    case VariadicOp::Mean:
      return "Mean";
  }
  return "unknown";
}

BinaryOp binary_of(VariadicOp op) {
  switch (op) {
    case VariadicOp::Max:
      return BinaryOp::Max;
    case VariadicOp::Min:
      return BinaryOp::Min;
    default:
      return BinaryOp::Add;  // Sum, and Mean's sum
  }
}

}  // namespace

void VariadicElementwise::record(VariadicOp op, std::span<const VariadicInput> inputs,
                                 TextureTensor& c) const {
  const std::string where = std::string(name_of(op)) + " on OpenGL ES";
  check(inputs.size() >= 2,
        where + ": takes at least 2 inputs, got " + std::to_string(inputs.size()));
  Shape out = inputs[0].shape;
  for (const VariadicInput& in : inputs) out = broadcast_shapes(out, in.shape, where);
  check(c.element_count() == out.element_count(),
        where + ": the output holds " + std::to_string(c.element_count()) + " elements, not " +
            std::to_string(out.element_count()) + " (" + out.to_string() + ")");
  const bool mean = op == VariadicOp::Mean;
  // The running result and its shape; before the first draw, the first input itself.
  const TextureTensor* running = inputs[0].tensor;
  Shape running_shape = inputs[0].shape;
  TextureTensor scratch;
  for (size_t k = 1; k < inputs.size(); ++k) {
    const Shape next_shape = broadcast_shapes(running_shape, inputs[k].shape, where);
    const bool last = k + 1 == inputs.size();
    if (last && !mean) {
      binary_.record(binary_of(op), *running, running_shape, *inputs[k].tensor, inputs[k].shape, c);
      return;
    }
    TextureTensor next(context_, next_shape.element_count());
    binary_.record(binary_of(op), *running, running_shape, *inputs[k].tensor, inputs[k].shape,
                   next);
    // GL orders the draws, so the texture just read can go back to the pool at once.
    scratch = std::move(next);
    running = &scratch;
    running_shape = next_shape;
  }
  unary_.record({UnaryOp::DivideBy, static_cast<float>(inputs.size())}, scratch, c);
}

}  // namespace kiln::gpu_pixel
