// The CPU worker's Conv fusions (passes/fuse_conv_activation.cpp, kiln::FusedConv): which
// chains fuse, which must not, and that the fused graph gives the unfused graph's results on
// every path of the float32 Conv (GEMM on the image, im2col chunks, the transposed product for
// small outputs, depthwise).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <set>

#include "graph_builder.h"
#include "ir/domains.h"
#include "passes/passes.h"

using namespace kiln;
using kiln::testing::GraphBuilder;
using kiln::testing::int_attr;
using kiln::testing::ints_attr;
using kiln::testing::run_one;

namespace {

Tensor random_tensor(const Shape& s, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(static_cast<size_t>(s.element_count()));
  for (float& x : v) x = d(rng);
  return Tensor::from_data<float>(s, v);
}

// The shapes of one conv: channels in and out, image side, kernel side, group.
struct ConvShape {
  const char* what;
  int64_t in_channels, out_channels, side, kernel, group;
};

const ConvShape kShapes[] = {
    {"pointwise (GEMM on the image)", 8, 16, 12, 1, 1},
    {"3x3 (im2col chunks)", 8, 16, 20, 3, 1},
    {"3x3 on a small map (transposed product)", 16, 24, 6, 3, 1},
    {"grouped 3x3", 8, 8, 10, 3, 2},
    {"depthwise 3x3", 12, 12, 10, 3, 12},
    {"depthwise 5x5 on a map narrower than a vector", 12, 12, 7, 5, 12},
};

// x -> Conv(w, b) -> c, then `tail` adds the rest; `z` is a second input of Y's shape.
GraphBuilder conv_model(const ConvShape& s, const std::function<void(GraphBuilder&)>& tail) {
  GraphBuilder b(17);
  b.input("x", DataType::Float32, {1, s.in_channels, s.side, s.side});
  b.input("z", DataType::Float32, {1, s.out_channels, s.side, s.side});
  b.initializer("w",
                random_tensor({s.out_channels, s.in_channels / s.group, s.kernel, s.kernel}, 1));
  b.initializer("b", random_tensor({s.out_channels}, 2));
  ir::Node& conv = b.node("Conv", {"x", "w", "b"}, {"c"});
  const int64_t pad = s.kernel / 2;
  conv.attributes = {int_attr("group", s.group), ints_attr("pads", {pad, pad, pad, pad})};
  tail(b);
  b.output("y");
  return b;
}

std::vector<std::string> fused_op_types(const Model& m) {
  ir::Graph g = m.ir()->graph;
  passes::fuse_conv_activations(g, m.ir()->opset_for(""), FusedConvCoverage::everything());
  std::vector<std::string> ops;
  for (const auto& n : g.nodes) ops.push_back(n.op_type);
  return ops;
}

// The values the fused graph no longer has: exposing them as outputs keeps the chain unfused.
std::vector<std::string> fused_away(const Model& m) {
  ir::Graph g = m.ir()->graph;
  passes::fuse_conv_activations(g, m.ir()->opset_for(""), FusedConvCoverage::everything());
  std::set<std::string> kept;
  for (const auto& n : g.nodes) kept.insert(n.outputs.begin(), n.outputs.end());
  std::vector<std::string> gone;
  for (const auto& n : m.ir()->graph.nodes) {
    for (const auto& out : n.outputs) {
      if (!kept.count(out)) gone.push_back(out);
    }
  }
  return gone;
}

// Fused (the CPU worker's graph) against unfused (the same model with every intermediate value
// also a graph output, so that nothing fuses).
void expect_same_result(const std::function<GraphBuilder()>& make, const std::string& what) {
  const Model fused = make().build(true);
  ASSERT_FALSE(fused_away(fused).empty()) << what << ": nothing fused";
  GraphBuilder exposed = make();
  for (const auto& n : fused.ir()->graph.nodes) {
    for (const auto& out : n.outputs) {
      if (out != "y") exposed.output(out);
    }
  }
  const Model plain = exposed.build(true);
  ASSERT_TRUE(fused_away(plain).empty()) << what;
  const auto& in = fused.inputs();
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < in.size(); ++i) {
    Shape shape;
    for (const Dim& d : in[i].shape) shape.push_back(d.value);
    feeds.push_back({in[i].name, random_tensor(shape, 10 + static_cast<unsigned>(i))});
  }
  const auto a = run_one(fused, feeds, "y").to_vector<float>();
  const auto e = run_one(plain, feeds, "y").to_vector<float>();
  ASSERT_EQ(a.size(), e.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], e[i], 1e-5 + 1e-5 * std::abs(e[i])) << what << " at " << i;
  }
}

struct Tail {
  const char* what;
  std::function<void(GraphBuilder&)> add;
};

std::vector<Tail> tails() {
  return {
      {"Relu", [](GraphBuilder& b) { b.node("Relu", {"c"}, {"y"}); }},
      {"Clip(0, 6)",
       [](GraphBuilder& b) {
         b.initializer("lo", Tensor::from_data<float>({}, {0.0f}));
         b.initializer("hi", Tensor::from_data<float>({}, {0.5f}));
         b.node("Clip", {"c", "lo", "hi"}, {"y"});
       }},
      {"Clip with only a max",
       [](GraphBuilder& b) {
         b.initializer("hi", Tensor::from_data<float>({}, {0.25f}));
         b.node("Clip", {"c", "", "hi"}, {"y"});
       }},
      {"HardSwish", [](GraphBuilder& b) { b.node("HardSwish", {"c"}, {"y"}); }},
      {"SiLU",
       [](GraphBuilder& b) {
         b.node("Sigmoid", {"c"}, {"s"});
         b.node("Mul", {"c", "s"}, {"y"});
       }},
      {"Sigmoid", [](GraphBuilder& b) { b.node("Sigmoid", {"c"}, {"y"}); }},
      {"com.microsoft Gelu",
       [](GraphBuilder& b) { b.node("Gelu", {"c"}, {"y"}, ir::kMicrosoftDomain); }},
      {"Add",
       [](GraphBuilder& b) {
         b.node("Add", {"z", "c"}, {"y"});
       }},
      {"Add + Relu",
       [](GraphBuilder& b) {
         b.node("Add", {"c", "z"}, {"r"});
         b.node("Relu", {"r"}, {"y"});
       }},
      {"Add + Clip",
       [](GraphBuilder& b) {
         b.node("Add", {"c", "z"}, {"r"});
         b.initializer("lo", Tensor::from_data<float>({}, {-0.5f}));
         b.initializer("hi", Tensor::from_data<float>({}, {0.5f}));
         b.node("Clip", {"r", "lo", "hi"}, {"y"});
       }},
      {"Add + HardSwish",
       [](GraphBuilder& b) {
         b.node("Add", {"c", "z"}, {"r"});
         b.node("HardSwish", {"r"}, {"y"});
       }},
  };
}

}  // namespace

TEST(FuseConvActivation, EveryChainOnEveryConvPathGivesTheUnfusedResult) {
  for (const ConvShape& s : kShapes) {
    for (const Tail& t : tails()) {
      const std::string what = std::string(s.what) + " + " + t.what;
      auto make = [&] { return conv_model(s, t.add); };
      EXPECT_EQ(fused_op_types(make().build(true)), std::vector<std::string>{"FusedConv"}) << what;
      expect_same_result(make, what);
    }
  }
}

TEST(FuseConvActivation, LeavesValuesThatAreReadElsewhere) {
  const ConvShape s = kShapes[1];
  // The conv's output is also a graph output.
  GraphBuilder b = conv_model(s, [](GraphBuilder& g) { g.node("Relu", {"c"}, {"y"}); });
  b.output("c");
  EXPECT_EQ(fused_op_types(b.build(true)), (std::vector<std::string>{"Conv", "Relu"}));
  // The Add's output feeds the Relu and another node: the Add fuses, the Relu cannot.
  GraphBuilder b2 = conv_model(s, [](GraphBuilder& g) {
    g.node("Add", {"c", "z"}, {"r"});
    g.node("Relu", {"r"}, {"y"});
    g.node("Neg", {"r"}, {"n"});
  });
  b2.output("n");
  EXPECT_EQ(fused_op_types(b2.build(true)), (std::vector<std::string>{"FusedConv", "Relu", "Neg"}));
  // Sigmoid(c) * something else is not SiLU: the Sigmoid is an activation of its own.
  GraphBuilder b3 = conv_model(s, [](GraphBuilder& g) {
    g.node("Sigmoid", {"c"}, {"s"});
    g.node("Mul", {"z", "s"}, {"y"});
  });
  EXPECT_EQ(fused_op_types(b3.build(true)), (std::vector<std::string>{"FusedConv", "Mul"}));
}

TEST(FuseConvActivation, AConvWithoutItsWeightsIsLeftForItsDefinitionToRefuse) {
  // Found by the graph-mutation fuzzer: fusing read the missing weights' name out of bounds.
  GraphBuilder b(17);
  b.input("x", DataType::Float32, {1, 2, 4, 4});
  b.node("Conv", {"x"}, {"c"});
  b.node("Relu", {"c"}, {"y"});
  b.output("y");
  const Model m = b.build(true);
  EXPECT_EQ(fused_op_types(m), (std::vector<std::string>{"Conv", "Relu"}));
  try {
    Worker worker(m, Backend::Cpu);
    const Tensor x = random_tensor({1, 2, 4, 4}, 1);
    worker.schedule({{"x", x}});
    worker.peek_output("y").readback_and_clone();
    ADD_FAILURE() << "a Conv with one input ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Conv"), std::string::npos) << e.what();
  }
}

TEST(FuseConvActivation, ABroadcastingAddIsNotAResidual) {
  GraphBuilder b = conv_model(kShapes[0], [](GraphBuilder& g) {
    g.initializer("one", random_tensor({1, 16, 1, 1}, 3));
    g.node("Add", {"c", "one"}, {"r"});
    g.node("Relu", {"r"}, {"y"});
  });
  EXPECT_EQ(fused_op_types(b.build(true)), (std::vector<std::string>{"Conv", "Add", "Relu"}));
}

TEST(FuseConvActivation, TheSumOfTwoConvsFusesIntoTheLaterOne) {
  // ResNet's downsampling block: Relu(Conv_a(x) + Conv_b(x)).
  auto make = [] {
    GraphBuilder b(17);
    b.input("x", DataType::Float32, {1, 8, 10, 10});
    b.initializer("wa", random_tensor({16, 8, 1, 1}, 4));
    b.initializer("wb", random_tensor({16, 8, 3, 3}, 5));
    b.node("Conv", {"x", "wa"}, {"a"});
    ir::Node& conv = b.node("Conv", {"x", "wb"}, {"c"});
    conv.attributes = {ints_attr("pads", {1, 1, 1, 1})};
    b.node("Add", {"a", "c"}, {"r"});
    b.node("Relu", {"r"}, {"y"});
    b.output("y");
    return b;
  };
  const Model m = make().build(true);
  ir::Graph g = m.ir()->graph;
  passes::fuse_conv_activations(g, 17, FusedConvCoverage::everything());
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op_type, "Conv");
  EXPECT_EQ(g.nodes[1].op_type, "FusedConv");
  EXPECT_EQ(g.nodes[1].inputs, (std::vector<std::string>{"x", "wb", "", "a"}));
  expect_same_result(make, "Conv + Conv + Relu");
}

TEST(FuseConvActivation, TheCpuWorkerRunsTheFusedNode) {
  auto worker_ops = [](const Model& m) {
    Worker w(m, Backend::Cpu);
    std::vector<std::string> ops;
    for (const auto& p : w.placements()) ops.push_back(p.op_type);
    return ops;
  };
  GraphBuilder b = conv_model(kShapes[0], [](GraphBuilder& g) { g.node("Relu", {"c"}, {"y"}); });
  EXPECT_EQ(worker_ops(b.build(true)), std::vector<std::string>{"FusedConv"});
  // A value the user asked to see stays.
  GraphBuilder exposed =
      conv_model(kShapes[0], [](GraphBuilder& g) { g.node("Relu", {"c"}, {"y"}); });
  exposed.output("c");
  EXPECT_EQ(worker_ops(exposed.build(true)), (std::vector<std::string>{"Conv", "Relu"}));
}
