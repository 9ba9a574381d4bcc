// The activation that alone reads a value, for the fusions that fold it into the op producing
// the value (Conv, MatMul, Gemm: opdefs/fused_activation.h):
//   Relu | Clip(constant bounds) | HardSwish | Sigmoid | Gelu (ai.onnx, either approximation;
//   com.microsoft) | Mul(x, Sigmoid(x)) (SiLU as exporters spell it)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "opdefs/fused_activation.h"
#include "passes/graph_rewrite.h"

namespace kiln::passes {

struct ActivationMatch {
  ActivationAttrs attrs;
  std::vector<size_t> nodes;  // the activation's nodes, in graph order
  std::string output;         // the value the activation produces
};

// The activation that alone reads `value` (SiLU: its Sigmoid and Mul, which alone read it), or
// nullopt. The caller checks that its fused kernel applies the activation found.
std::optional<ActivationMatch> match_activation(const ir::Graph& graph, const Readers& readers,
                                                const std::string& value, int opset);

// The attributes that spell `a` on a kiln fused op (none for kNone).
std::vector<ir::Attribute> activation_attributes(const ActivationAttrs& a);

}  // namespace kiln::passes
