// Checks for the CPU worker's load-time fusions: the ops the worker places, and its results
// against the same model with every value a node produces also a graph output, which keeps
// every node as it is (the fusions never remove a value the user can see).
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

inline std::vector<std::string> worker_ops(const Model& m) {
  Worker w(m, Backend::Cpu);
  std::vector<std::string> ops;
  for (const auto& p : w.placements()) ops.push_back(p.op_type);
  return ops;
}

// Runs `make`'s model and its unfused copy on the CPU worker, each input random in [-2, 2]
// unless `given` names it, and expects output "y" to agree. Returns the number of nodes each
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
  const auto a = run_one(fused, feeds, "y").to_vector<float>();
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

// The fused worker runs fewer nodes than the unfused one and gives its results.
inline void expect_fused_result(const std::function<GraphBuilder()>& make,
                                const std::string& what) {
  const auto [fused, unfused] = compare_with_unfused(make, what);
  EXPECT_LT(fused, unfused) << what << ": nothing fused";
}

}  // namespace kiln::testing
