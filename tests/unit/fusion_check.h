// Checks shared by the tests of the CPU worker's load-time fusions: which ops the worker runs,
// and that the fused worker gives the results of the unfused graph.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "graph_builder.h"
#include "random_data.h"
#include "test_util.h"

namespace kiln::testing {

inline Tensor random(const Shape& s, uint32_t seed) {
  return f32(s, uniform_floats(s.element_count(), seed, -2.0f, 2.0f));
}

// The op types of the nodes the CPU worker runs for `m`, in order.
inline std::vector<std::string> worker_ops(const Model& m) {
  Worker w(m, Backend::Cpu);
  std::vector<std::string> ops;
  for (const auto& p : w.placements()) ops.push_back(p.op_type);
  return ops;
}

// The CPU worker on `make`'s model against the same model with every value a node produces
// also a graph output, which keeps every node as it is: the same output "y" within float
// rounding, for random inputs of the declared shapes, and every output of the shape inference
// gave it. `fuses`: whether the worker must run fewer nodes than the graph has (else the same).
inline void expect_fused_result(const std::function<GraphBuilder()>& make, const std::string& what,
                                bool fuses = true) {
  const Model fused = make().build();
  GraphBuilder exposed = make();
  for (const auto& n : fused.ir()->graph.nodes) {
    for (const auto& out : n.outputs) {
      if (out != "y") exposed.output(out);
    }
  }
  const Model plain = exposed.build();
  if (fuses) {
    ASSERT_LT(worker_ops(fused).size(), worker_ops(plain).size()) << what << ": nothing fused";
  } else {
    ASSERT_EQ(worker_ops(fused).size(), worker_ops(plain).size()) << what << ": fused";
  }
  const auto& in = fused.inputs();
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < in.size(); ++i) {
    Shape shape;
    for (const Dim& d : in[i].shape) shape.push_back(d.value);
    feeds.push_back({in[i].name, random(shape, 10 + static_cast<uint32_t>(i))});
  }
  WorkerOptions checked;
  checked.verify_shapes = true;  // the fused ops' outputs have the shapes inference gave them
  const auto a = run_one(fused, feeds, "y", checked).to_vector<float>();
  const auto e = run_one(plain, feeds, "y").to_vector<float>();
  ASSERT_EQ(a.size(), e.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], e[i], 1e-5 + 1e-5 * std::abs(e[i])) << what << " at " << i;
  }
}

}  // namespace kiln::testing
