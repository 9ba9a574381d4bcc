// Function expansion: the model's own functions and the ONNX spec's function bodies.
#include <gtest/gtest.h>

#include "graph_builder.h"
#include "onnx/spec_functions.h"
#include "passes/passes.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

ir::Node body_node(const std::string& op, std::vector<std::string> in,
                   std::vector<std::string> out) {
  ir::Node n;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// square_of_sum(x, y) = (x + y)^2, in domain "local".
ir::Function square_of_sum() {
  ir::Function f;
  f.name = "SquareOfSum";
  f.domain = "local";
  f.inputs = {"x", "y"};
  f.outputs = {"z"};
  f.nodes = {body_node("Add", {"x", "y"}, {"t"}), body_node("Mul", {"t", "t"}, {"z"})};
  return f;
}

TEST(InlineFunctions, ModelFunctionsAreExpandedAtEachCall) {
  GraphBuilder b;
  b.ir().functions.push_back(square_of_sum());
  b.ir().opsets["local"] = 1;
  b.input("a", DataType::Float32, {2});
  b.input("b", DataType::Float32, {2});
  b.node("SquareOfSum", {"a", "b"}, {"s1"}, "local");
  b.node("SquareOfSum", {"s1", "b"}, {"s2"}, "local");  // a second call: its own value names
  b.output("s2");
  Model model = b.build(/*optimize=*/false);
  for (const auto& n : model.ir()->graph.nodes) EXPECT_NE(n.op_type, "SquareOfSum");
  const Tensor out = run_one(model, {{"a", f32({2}, {1, 0})}, {"b", f32({2}, {1, 2})}}, "s2");
  // ((1 + 1)^2 + 1)^2 = 25, ((0 + 2)^2 + 2)^2 = 36
  EXPECT_TRUE(all_close(out, f32({2}, {25, 36})));
}

TEST(InlineFunctions, AttributeReferencesTakeTheCallersValue) {
  ir::Function f;
  f.name = "Leaky";
  f.domain = "local";
  f.inputs = {"x"};
  f.outputs = {"y"};
  ir::Node n = body_node("LeakyRelu", {"x"}, {"y"});
  ir::Attribute alpha;
  alpha.name = "alpha";
  alpha.type = ir::Attribute::Type::Float;
  alpha.ref_attr_name = "slope";
  n.attributes.push_back(alpha);
  f.nodes = {n};
  f.attributes = {"slope"};
  GraphBuilder b;
  b.ir().functions.push_back(f);
  b.ir().opsets["local"] = 1;
  b.input("x", DataType::Float32, {2});
  ir::Attribute slope;
  slope.name = "slope";
  slope.type = ir::Attribute::Type::Float;
  slope.f = 0.5f;
  b.node("Leaky", {"x"}, {"y"}, "local").attributes.push_back(slope);
  b.output("y");
  const Tensor out = run_one(b.build(), {{"x", f32({2}, {-2, 3})}}, "y");
  EXPECT_TRUE(all_close(out, f32({2}, {-1, 3})));
}

TEST(InlineFunctions, RecursiveFunctionIsAnError) {
  ir::Function f;
  f.name = "Forever";
  f.domain = "local";
  f.inputs = {"x"};
  f.outputs = {"y"};
  ir::Node self = body_node("Forever", {"x"}, {"y"});
  self.domain = "local";
  f.nodes = {self};
  GraphBuilder b;
  b.ir().functions.push_back(f);
  b.ir().opsets["local"] = 1;
  b.input("x", DataType::Float32, {1});
  b.node("Forever", {"x"}, {"y"}, "local");
  b.output("y");
  EXPECT_THROW(b.build(), Error);
}

TEST(SpecFunctions, PicksTheBodyInForceAtTheOpset) {
  EXPECT_NE(onnx_import::spec_function("", "MeanVarianceNormalization", 13), nullptr);
  EXPECT_NE(onnx_import::spec_function("", "MeanVarianceNormalization", 9), nullptr);
  EXPECT_NE(onnx_import::spec_function("", "MeanVarianceNormalization", 12),
            onnx_import::spec_function("", "MeanVarianceNormalization", 13));
  EXPECT_EQ(onnx_import::spec_function("", "MeanVarianceNormalization", 8), nullptr);
  EXPECT_EQ(onnx_import::spec_function("", "Relu", 14), nullptr);
}

TEST(SpecFunctions, OpWithoutAKernelRunsAsTheSpecBody) {
  // An op kiln has no kernel for ("kiln.test::HardSwishNoKernel") expands to the spec's
  // HardSwish body; its result must match the HardSwish kernel.
  GraphBuilder b(14);
  b.input("x", DataType::Float32, {5});
  b.node("HardSwishNoKernel", {"x"}, {"y"}, "kiln.test");
  b.output("y");
  passes::inline_functions(b.ir(), [](const ir::Node& node, int) -> const ir::Function* {
    return node.op_type == "HardSwishNoKernel" ? onnx_import::spec_function("", "HardSwish", 14)
                                               : nullptr;
  });
  ASSERT_FALSE(b.ir().graph.nodes.empty());
  for (const auto& n : b.ir().graph.nodes) EXPECT_NE(n.op_type, "HardSwishNoKernel");
  const Tensor x = f32({5}, {-4, -1, 0, 1.5f, 4});
  const Tensor expanded = run_one(b.build(), {{"x", x}}, "y");
  const Tensor kernel = OpTest("HardSwish", 14).input(x).run()[0];
  EXPECT_TRUE(all_close(expanded, kernel, 1e-6, 1e-6));
}

}  // namespace
}  // namespace kiln::testing
