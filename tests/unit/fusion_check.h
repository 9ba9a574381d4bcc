// Checks shared by the tests of the CPU worker's load-time fusions: which ops the worker runs,
// and that the fused worker gives the results of the unfused graph, which is the same model
// with every value a node produces also a graph output (the fusions never remove a value the
// user can see, so that keeps every node as it is).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "graph_builder.h"
#include "random_data.h"
#include "test_util.h"

namespace kiln::testing {

inline Tensor random(const Shape& s, uint32_t seed) {
  return f32(s, uniform_floats(s.element_count(), seed, -2.0f, 2.0f));
}

inline Tensor scalar(float v) { return Tensor::from_data<float>({}, {v}); }

// The op types of the nodes the CPU worker runs for `m`, in order.
inline std::vector<std::string> worker_ops(const Model& m) {
  Worker w(m, Backend::Cpu);
  std::vector<std::string> ops;
  for (const auto& p : w.placements()) ops.push_back(p.op_type);
  return ops;
}

// Runs `make`'s model on the CPU worker and its unfused copy, each input random in [-2, 2]
// unless `given` names it, and expects the same output "y" within float rounding, the fused
// worker's outputs of the shapes shape inference gave them. Returns the number of nodes each
// worker runs: {fused, unfused}.
inline std::pair<size_t, size_t> compare_with_unfused(const std::function<GraphBuilder()>& make,
                                                      const std::string& what,
                                                      const std::vector<NamedTensor>& given = {}) {
  const Model fused = make().build();
  GraphBuilder exposed = make();
  for (const auto& n : fused.ir()->graph.nodes) {
    for (const auto& out : n.outputs) {
      if (out != "y") exposed.output(out);
    }
  }
  const Model plain = exposed.build();
  const auto& in = fused.inputs();
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < in.size(); ++i) {
    bool fixed = false;
    for (const auto& g : given) {
      if (g.name == in[i].name) {
        feeds.push_back(g);
        fixed = true;
      }
    }
    if (fixed) continue;
    Shape shape;
    for (const Dim& d : in[i].shape) shape.push_back(d.value);
    feeds.push_back({in[i].name, random(shape, 10 + static_cast<uint32_t>(i))});
  }
  WorkerOptions checked;
  checked.verify_shapes = true;
  const auto a = run_one(fused, feeds, "y", checked).to_vector<float>();
  const auto e = run_one(plain, feeds, "y").to_vector<float>();
  EXPECT_EQ(a.size(), e.size()) << what;
  for (size_t i = 0; i < a.size() && i < e.size(); ++i) {
    if (std::abs(a[i] - e[i]) > 1e-5 + 1e-5 * std::abs(e[i])) {
      ADD_FAILURE() << what << " at " << i << ": " << a[i] << ", unfused " << e[i];
      break;
    }
  }
  return {worker_ops(fused).size(), worker_ops(plain).size()};
}

// The unfused graph's results, and `fuses`: the worker runs fewer nodes than the graph has
// (else the same number).
inline void expect_fused_result(const std::function<GraphBuilder()>& make, const std::string& what,
                                bool fuses = true) {
  const auto [fused, unfused] = compare_with_unfused(make, what);
  if (fuses) {
    EXPECT_LT(fused, unfused) << what << ": nothing fused";
  } else {
    EXPECT_EQ(fused, unfused) << what << ": fused";
  }
}

}  // namespace kiln::testing
