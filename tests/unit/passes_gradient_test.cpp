// The load-time expansion of ai.onnx.preview.training::Gradient: gradients of small graphs
// against hand-computed derivatives.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph_builder.h"
#include "passes/graph_rewrite.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kTraining = "ai.onnx.preview.training";

ir::Attribute strings_attr(const std::string& name, std::vector<std::string> values) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Strings;
  a.strings = std::move(values);
  return a;
}

// A builder at opset 12 (where ReduceSum takes static axes) with the training domain imported.
GraphBuilder builder() {
  GraphBuilder b(12);
  b.ir().opsets[kTraining] = 1;
  return b;
}

ir::Node& gradient(GraphBuilder& b, std::vector<std::string> inputs,
                   std::vector<std::string> outputs, std::vector<std::string> xs,
                   const std::string& y, std::vector<std::string> zs = {}) {
  ir::Node& n = b.node("Gradient", std::move(inputs), std::move(outputs), kTraining);
  n.name = "grad";
  n.attributes.push_back(strings_attr("xs", std::move(xs)));
  if (!zs.empty()) n.attributes.push_back(strings_attr("zs", std::move(zs)));
  n.attributes.push_back(passes::string_attribute("y", y));
  return n;
}

std::vector<Tensor> run(Model model, const std::vector<NamedTensor>& inputs,
                        const std::vector<std::string>& outputs) {
  Worker worker(model);
  worker.schedule(inputs);
  std::vector<Tensor> result;
  for (const auto& name : outputs) result.push_back(worker.peek_output(name).readback_and_clone());
  return result;
}

void expect_values(const Tensor& t, const Shape& shape, const std::vector<float>& values) {
  EXPECT_TRUE(all_close(t, f32(shape, values), 1e-5, 1e-6)) << t.to_string();
}

TEST(GradientExpansion, AddSumsTheGradientOverBroadcastAxes) {
  GraphBuilder b = builder();
  b.input("a", DataType::Float32, {2, 3});
  b.input("b", DataType::Float32, {3});
  b.node("Add", {"a", "b"}, {"c"});
  gradient(b, {"a", "b"}, {"da", "db"}, {"a", "b"}, "c");
  b.output("c").output("da").output("db");
  Model model = b.build();
  for (const auto& n : model.ir()->graph.nodes) EXPECT_NE(n.op_type, "Gradient");
  auto out = run(model, {{"a", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", f32({3}, {1, 1, 1})}},
                 {"da", "db"});
  expect_values(out[0], {2, 3}, {1, 1, 1, 1, 1, 1});
  expect_values(out[1], {3}, {2, 2, 2});
}

TEST(GradientExpansion, ProductRuleThroughTwoOps) {
  // d = (a + b) * a: dd/da = 2a + b, dd/db = a.
  GraphBuilder b = builder();
  b.input("a", DataType::Float32, {2});
  b.input("b", DataType::Float32, {2});
  b.node("Add", {"a", "b"}, {"c"});
  b.node("Mul", {"c", "a"}, {"d"});
  gradient(b, {"a", "b"}, {"da", "db"}, {"a", "b"}, "d");
  b.output("d").output("da").output("db");
  auto out = run(b.build(), {{"a", f32({2}, {1, 2})}, {"b", f32({2}, {3, -1})}}, {"da", "db"});
  expect_values(out[0], {2}, {5, 3});
  expect_values(out[1], {2}, {1, 2});
}

TEST(GradientExpansion, SubDivNeg) {
  // e = -(a - b) / b: de/da = -1 / b, de/db = (1 / b) + (a - b) / b^2 = a / b^2.
  GraphBuilder b = builder();
  b.input("a", DataType::Float32, {2});
  b.input("b", DataType::Float32, {2});
  b.node("Sub", {"a", "b"}, {"c"});
  b.node("Neg", {"c"}, {"n"});
  b.node("Div", {"n", "b"}, {"e"});
  gradient(b, {"a", "b"}, {"da", "db"}, {"a", "b"}, "e");
  b.output("da").output("db");
  auto out = run(b.build(), {{"a", f32({2}, {3, 1})}, {"b", f32({2}, {2, -1})}}, {"da", "db"});
  expect_values(out[0], {2}, {-0.5f, 1});
  expect_values(out[1], {2}, {0.75f, 1});
}

TEST(GradientExpansion, ReluPassesTheGradientWherePositive) {
  GraphBuilder b = builder();
  b.input("x", DataType::Float32, {4});
  b.node("Relu", {"x"}, {"r"});
  b.node("Identity", {"r"}, {"y"});
  gradient(b, {"x"}, {"dx"}, {"x"}, "y");
  b.output("dx");
  auto out = run(b.build(), {{"x", f32({4}, {-1, 0, 2, 3})}}, {"dx"});
  expect_values(out[0], {4}, {0, 0, 1, 1});
}

TEST(GradientExpansion, MatMulWithBroadcastBatch) {
  // y = a @ w with a [2, 1, 2] and w [2, 2]: dy/da = ones @ w^T, dy/dw = sum over the batch of
  // a^T @ ones.
  GraphBuilder b = builder();
  b.input("a", DataType::Float32, {2, 1, 2});
  b.input("w", DataType::Float32, {2, 2});
  b.node("MatMul", {"a", "w"}, {"y"});
  gradient(b, {"a", "w"}, {"da", "dw"}, {"a", "w"}, "y");
  b.output("da").output("dw");
  auto out = run(b.build(), {{"a", f32({2, 1, 2}, {1, 2, 3, 4})}, {"w", f32({2, 2}, {1, 2, 3, 4})}},
                 {"da", "dw"});
  // Row sums of w: {3, 7}; column k of dw is the sum of a[..., k]: {1 + 3, 2 + 4}.
  expect_values(out[0], {2, 1, 2}, {3, 7, 3, 7});
  expect_values(out[1], {2, 2}, {4, 4, 6, 6});
}

TEST(GradientExpansion, ZsAreHeldConstant) {
  GraphBuilder b = builder();
  b.input("a", DataType::Float32, {2});
  b.input("b", DataType::Float32, {2});
  b.node("Mul", {"a", "b"}, {"y"});
  gradient(b, {"a", "b"}, {"da"}, {"a"}, "y", {"b"});
  b.output("da");
  auto out = run(b.build(), {{"a", f32({2}, {1, 2})}, {"b", f32({2}, {5, 7})}}, {"da"});
  expect_values(out[0], {2}, {5, 7});
}

TEST(GradientExpansion, EvaluatesAtTheGivenInputs) {
  // The Gradient's input a2 stands for a: d(a * a)/da at a2 is 2 * a2.
  GraphBuilder b = builder();
  b.input("a", DataType::Float32, {2});
  b.input("a2", DataType::Float32, {2});
  b.node("Mul", {"a", "a"}, {"y"});
  gradient(b, {"a2"}, {"da"}, {"a"}, "y");
  b.output("y").output("da");
  auto out = run(b.build(), {{"a", f32({2}, {1, 2})}, {"a2", f32({2}, {10, 20})}}, {"y", "da"});
  expect_values(out[0], {2}, {1, 4});
  expect_values(out[1], {2}, {20, 40});
}

TEST(GradientExpansion, IndependentInputGetsZeros) {
  GraphBuilder b = builder();
  b.input("a", DataType::Float32, {2});
  b.input("b", DataType::Float32, {3});
  b.node("Neg", {"a"}, {"y"});
  gradient(b, {"a", "b"}, {"da", "db"}, {"a", "b"}, "y");
  b.output("da").output("db");
  auto out = run(b.build(), {{"a", f32({2}, {1, 2})}, {"b", f32({3}, {1, 2, 3})}}, {"da", "db"});
  expect_values(out[0], {2}, {-1, -1});
  expect_values(out[1], {3}, {0, 0, 0});
}

TEST(GradientExpansion, UnknownOpIsAnErrorNamingItAndTheGradient) {
  GraphBuilder b = builder();
  b.input("x", DataType::Float32, {2});
  b.node("Sin", {"x"}, {"y"});
  gradient(b, {"x"}, {"dx"}, {"x"}, "y");
  b.output("dx");
  try {
    b.build();
    FAIL() << "expected a kiln::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Sin"), std::string::npos) << what;
    EXPECT_NE(what.find("grad"), std::string::npos) << what;
  }
}

TEST(GradientExpansion, MalformedNodesAreErrors) {
  {
    GraphBuilder b = builder();  // two inputs for one name in xs
    b.input("x", DataType::Float32, {2});
    b.node("Neg", {"x"}, {"y"});
    gradient(b, {"x", "x"}, {"dx"}, {"x"}, "y");
    b.output("dx");
    EXPECT_THROW(b.build(), Error);
  }
  {
    GraphBuilder b = builder();  // no y
    b.input("x", DataType::Float32, {2});
    b.node("Neg", {"x"}, {"y"});
    ir::Node& n = b.node("Gradient", {"x"}, {"dx"}, kTraining);
    n.attributes.push_back(strings_attr("xs", {"x"}));
    b.output("dx");
    EXPECT_THROW(b.build(), Error);
  }
}

TEST(GradientExpansion, BroadcastShapeMismatchAtRunTimeIsAnError) {
  // Shapes are only known at run time: [3] and [2] do not broadcast; Add fails, not a crash.
  GraphBuilder b = builder();
  b.symbolic_input("a", DataType::Float32, {"n"});
  b.symbolic_input("b", DataType::Float32, {"m"});
  b.node("Add", {"a", "b"}, {"c"});
  gradient(b, {"a", "b"}, {"da", "db"}, {"a", "b"}, "c");
  b.output("da").output("db");
  Model model = b.build();
  EXPECT_THROW(run(model, {{"a", f32({3}, {1, 2, 3})}, {"b", f32({2}, {1, 2})}}, {"da"}), Error);
}

// kiln::SumToShape, the helper the expansion emits for broadcasting ops.
TEST(SumToShape, SumsOverBroadcastAxes) {
  auto out = OpTest("SumToShape", 12, "kiln")
                 .input(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
                 .input(i64({2}, {2, 1}))
                 .run();
  expect_values(out[0], {2, 1}, {6, 15});
  out = OpTest("SumToShape", 12, "kiln")
            .input(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
            .input(i64({1}, {3}))
            .run();
  expect_values(out[0], {3}, {5, 7, 9});
  out = OpTest("SumToShape", 12, "kiln")
            .input(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
            .input(i64({0}, {}))
            .run();
  expect_values(out[0], {}, {21});
}

TEST(SumToShape, RejectsShapesThatDoNotBroadcast) {
  EXPECT_THROW(OpTest("SumToShape", 12, "kiln")
                   .input(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
                   .input(i64({1}, {2}))
                   .run(),
               Error);
  EXPECT_THROW(
      OpTest("SumToShape", 12, "kiln").input(f32({3}, {1, 2, 3})).input(i64({2}, {1, 3})).run(),
      Error);
}

}  // namespace
}  // namespace kiln::testing
