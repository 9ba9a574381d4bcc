// Models for the cancellation and deadline tests (CPU and GPU backends).
#pragma once

#include <vector>

#include "graph_builder.h"
#include "subgraph_builder.h"
#include "test_util.h"

namespace kiln::testing {

// y = Relu(Loop(M, true, x){ x + 1 }): a trip count of 10^15 runs until stopped.
inline Model endless_loop_model() {
  GraphBuilder b;
  b.input("M", DataType::Int64, {});
  b.input("x", DataType::Float32, {4});
  b.initializer("cond", Tensor::scalar(true));
  Body body("body");
  body.input("i").input("cond_in").input("acc");
  body.constant("one", f32({1}, {1}));
  body.node("Add", {"acc", "one"}, {"acc_out"});
  body.node("Identity", {"cond_in"}, {"cond_out"});
  body.output("cond_out").output("acc_out");
  ir::Node& loop = b.node("Loop", {"M", "cond", "x"}, {"looped"});
  loop.attributes.push_back(graph_attr("body", body));
  b.node("Relu", {"looped"}, {"y"});
  b.output("y");
  return b.build();
}

inline std::vector<NamedTensor> endless_loop_inputs(int64_t trips) {
  return {{"M", Tensor::scalar<int64_t>(trips)}, {"x", f32({4}, {1, 2, 3, 4})}};
}

// y = MatMul(a, b), shapes from the inputs.
inline Model big_matmul_model() {
  GraphBuilder b;
  b.symbolic_input("a", DataType::Float32, {"m", "k"});
  b.symbolic_input("b", DataType::Float32, {"k", "n"});
  b.node("MatMul", {"a", "b"}, {"y"});
  b.output("y");
  return b.build();
}

}  // namespace kiln::testing
