#include "opdefs/node_inputs.h"

namespace kiln {

const Tensor& NodeInputs::input(size_t i) const {
  if (!has_input(i)) fail("required input " + std::to_string(i) + " is missing");
  return inputs[i];
}

void NodeInputs::fail(const std::string& message) const {
  throw Error(node.describe() + ": " + message);
}

}  // namespace kiln
