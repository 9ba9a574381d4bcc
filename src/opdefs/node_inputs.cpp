#include "opdefs/node_inputs.h"

namespace kiln {

const Tensor& NodeInputs::input(size_t i) const {
  if (!has_input(i)) fail("required input " + std::to_string(i) + " is missing");
  return inputs[i];
}

void fail_at(const ir::Node& node, const std::string& message) {
  throw Error(node.describe() + ": " + message);
}

void NodeInputs::fail(const std::string& message) const { fail_at(node, message); }

}  // namespace kiln
