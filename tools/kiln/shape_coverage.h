// How much of a model shape inference predicts on its own: the node outputs (in every subgraph)
// whose dtype and rank the definitions' rules infer, without the exporter's declarations. The
// drift check (--verify-shapes) can only hold a kernel to what was predicted, so this is the
// reach of that check, as `kiln test-onnx --verify-shapes` reports it.
#pragma once

#include "ir/graph.h"

namespace kiln::cli {

struct ShapeCoverage {
  size_t outputs = 0;    // node outputs (present ones)
  size_t predicted = 0;  // of those, the ones inference gave a dtype and rank
  bool complete() const { return predicted == outputs; }
};

// Infers `model`'s types afresh on a copy (declared value types dropped) and counts.
ShapeCoverage shape_coverage(const ir::Model& model);

}  // namespace kiln::cli
