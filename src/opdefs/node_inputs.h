// A node's inputs for one run as a definition's resolution code reads them: host or device
// tensors, of which only dtypes and shapes are read, except the values that decide shapes (which
// are host tensors, see OpDef::shape_inputs). Errors name the node.
#pragma once

#include <span>
#include <string>

#include "ir/graph.h"
#include "kiln/tensor.h"

namespace kiln {

// kiln::Error("<node description>: <message>"): how every definition reports a node it rejects.
[[noreturn]] void fail_at(const ir::Node& node, const std::string& message);

struct NodeInputs {
  const ir::Node& node;
  std::span<const Tensor> inputs;

  // An absent optional input (empty name, or beyond the node's input list) is not there.
  bool has_input(size_t i) const { return i < inputs.size() && inputs[i].defined(); }
  // kiln::Error naming the node when input i is absent.
  const Tensor& input(size_t i) const;
  [[noreturn]] void fail(const std::string& message) const;
};

}  // namespace kiln
