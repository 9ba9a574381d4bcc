// If, Loop and Scan: subgraphs, outer-scope values, loop-carried state, scan outputs.
#include <gtest/gtest.h>

#include "graph_builder.h"
#include "subgraph_builder.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

std::vector<Tensor> run_model(Model model, const std::vector<NamedTensor>& inputs) {
  Worker worker(model);
  worker.schedule(inputs);
  std::vector<Tensor> out;
  for (const auto& o : model.outputs())
    out.push_back(worker.peek_output(o.name).readback_and_clone());
  return out;
}

// ---- If ----------------------------------------------------------------------------------------

// The branches read x and y from the enclosing graph: they are not inputs of the If node.
Model if_model() {
  GraphBuilder b;
  b.input("c", DataType::Bool, {});
  b.input("x", DataType::Float32, {2});
  b.input("y", DataType::Float32, {2});
  b.node("Relu", {"x"}, {"rx"});  // an outer value computed by a node the If must wait for
  ir::Node& n = b.node("If", {"c"}, {"z"});
  n.attributes.push_back(
      graph_attr("then_branch", Body("then").node("Add", {"rx", "y"}, {"s"}).output("s")));
  n.attributes.push_back(
      graph_attr("else_branch", Body("else").node("Mul", {"rx", "y"}, {"p"}).output("p")));
  b.output("z");
  return b.build();
}

TEST(IfOp, RunsTheChosenBranchOnOuterScopeValues) {
  const Tensor x = f32({2}, {-2, 3}), y = f32({2}, {4, 5});
  auto then_out = run_model(if_model(), {{"c", Tensor::scalar(true)}, {"x", x}, {"y", y}});
  EXPECT_TRUE(all_close(then_out[0], f32({2}, {4, 8})));
  auto else_out = run_model(if_model(), {{"c", Tensor::scalar(false)}, {"x", x}, {"y", y}});
  EXPECT_TRUE(all_close(else_out[0], f32({2}, {0, 15})));
}

TEST(IfOp, ConditionMustBeOneBool) {
  GraphBuilder b;
  b.input("c", DataType::Float32, {});
  ir::Node& n = b.node("If", {"c"}, {"z"});
  n.attributes.push_back(
      graph_attr("then_branch", Body("t").constant("k", f32({1}, {1})).output("k")));
  n.attributes.push_back(
      graph_attr("else_branch", Body("e").constant("k", f32({1}, {2})).output("k")));
  b.output("z");
  EXPECT_THROW(run_model(b.build(), {{"c", Tensor::scalar(1.0f)}}), Error);
}

TEST(IfOp, BranchWithTheWrongOutputCountFailsAtLoad) {
  GraphBuilder b;
  b.input("c", DataType::Bool, {});
  ir::Node& n = b.node("If", {"c"}, {"z"});
  n.attributes.push_back(graph_attr("then_branch", Body("t")));
  n.attributes.push_back(
      graph_attr("else_branch", Body("e").constant("k", f32({1}, {2})).output("k")));
  b.output("z");
  EXPECT_THROW(b.build(), Error);
}

// ---- Loop --------------------------------------------------------------------------------------

// Loop(M, cond, acc): acc += i * step each iteration (step from the enclosing graph), stop once
// acc exceeds `limit`; scan output: acc after each iteration.
Model accumulate_model() {
  GraphBuilder b;
  b.input("M", DataType::Int64, {});
  b.input("cond", DataType::Bool, {});
  b.input("acc0", DataType::Float32, {1});
  b.input("step", DataType::Float32, {1});
  Body body("body");
  body.input("i").input("cond_in").input("acc");
  body.constant("limit", f32({1}, {10}));
  body.node("Cast", {"i"}, {"fi"}, {[] {
              ir::Attribute a;
              a.name = "to";
              a.type = ir::Attribute::Type::Int;
              a.i = static_cast<int64_t>(DataType::Float32);
              return a;
            }()});
  body.node("Mul", {"fi", "step"}, {"inc"});
  body.node("Add", {"acc", "inc"}, {"acc_out"});
  body.node("Less", {"acc_out", "limit"}, {"below"});
  body.node("Squeeze", {"below"}, {"cond_out"});
  body.node("Identity", {"acc_out"}, {"scan"});
  body.output("cond_out").output("acc_out").output("scan", DataType::Float32);
  ir::Node& n = b.node("Loop", {"M", "cond", "acc0"}, {"acc_final", "trace"});
  n.attributes.push_back(graph_attr("body", body));
  b.output("acc_final").output("trace");
  return b.build();
}

TEST(LoopOp, CarriesStateAndStacksScanOutputs) {
  auto out = run_model(accumulate_model(), {{"M", Tensor::scalar<int64_t>(4)},
                                            {"cond", Tensor::scalar(true)},
                                            {"acc0", f32({1}, {0})},
                                            {"step", f32({1}, {1})}});
  // acc: 0, 1, 3, 6 after iterations 0..3.
  EXPECT_TRUE(all_close(out[0], f32({1}, {6})));
  EXPECT_TRUE(all_close(out[1], f32({4, 1}, {0, 1, 3, 6})));
}

TEST(LoopOp, StopsWhenTheBodyConditionTurnsFalse) {
  auto out = run_model(accumulate_model(), {{"M", Tensor::scalar<int64_t>(100)},
                                            {"cond", Tensor::scalar(true)},
                                            {"acc0", f32({1}, {0})},
                                            {"step", f32({1}, {2})}});
  // acc: 0, 2, 6, 12 -> 12 is not below 10, the loop ends after that iteration.
  EXPECT_TRUE(all_close(out[0], f32({1}, {12})));
  EXPECT_EQ(out[1].shape(), (Shape{4, 1}));
}

TEST(LoopOp, ZeroIterationsReturnTheInitialStateAndEmptyScans) {
  auto out = run_model(accumulate_model(), {{"M", Tensor::scalar<int64_t>(0)},
                                            {"cond", Tensor::scalar(true)},
                                            {"acc0", f32({1}, {7})},
                                            {"step", f32({1}, {1})}});
  EXPECT_TRUE(all_close(out[0], f32({1}, {7})));
  EXPECT_EQ(out[1].element_count(), 0);
  EXPECT_EQ(out[1].dtype(), DataType::Float32);
}

TEST(LoopOp, CarriedValueMayChangeShapeBetweenIterations) {
  // v grows by one element per iteration: Concat(v, [i]).
  GraphBuilder b;
  b.input("M", DataType::Int64, {});
  b.input("v0", DataType::Int64, {0});
  Body body("grow");
  body.input("i").input("c").input("v");
  body.constant("one", i64({1}, {1}));
  body.node("Reshape", {"i", "one"}, {"i1"});
  ir::Attribute axis;
  axis.name = "axis";
  axis.type = ir::Attribute::Type::Int;
  axis.i = 0;
  body.node("Concat", {"v", "i1"}, {"v_out"}, {axis});
  body.node("Identity", {"c"}, {"c_out"});
  body.output("c_out").output("v_out");
  ir::Node& n = b.node("Loop", {"M", "", "v0"}, {"v"});
  n.attributes.push_back(graph_attr("body", body));
  b.output("v");
  auto out = run_model(b.build(), {{"M", Tensor::scalar<int64_t>(3)}, {"v0", i64({0}, {})}});
  EXPECT_TRUE(all_close(out[0], i64({3}, {0, 1, 2})));
}

TEST(LoopOp, ErrorInsideTheBodyNamesTheFailingNode) {
  GraphBuilder b;
  b.input("M", DataType::Int64, {});
  b.input("v0", DataType::Float32, {2});
  Body body("bad");
  body.input("i").input("c").input("v");
  body.constant("shape", i64({1}, {3}));  // 2 elements cannot become 3
  body.node("Reshape", {"v", "shape"}, {"v_out"});
  body.node("Identity", {"c"}, {"c_out"});
  body.output("c_out").output("v_out");
  ir::Node& n = b.node("Loop", {"M", "", "v0"}, {"v"});
  n.attributes.push_back(graph_attr("body", body));
  b.output("v");
  try {
    run_model(b.build(), {{"M", Tensor::scalar<int64_t>(1)}, {"v0", f32({2}, {1, 2})}});
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Reshape"), std::string::npos) << e.what();
  }
}

// ---- Scan --------------------------------------------------------------------------------------

// Running sum over the rows of x: state s += row; scan output: s after each row.
Model running_sum_model(std::vector<ir::Attribute> extra) {
  GraphBuilder b;
  b.input("s0", DataType::Float32, {2});
  b.input("x", DataType::Float32, {3, 2});
  Body body("sum");
  body.input("s").input("row");
  body.node("Add", {"s", "row"}, {"s_out"});
  body.node("Identity", {"s_out"}, {"y"});
  body.output("s_out").output("y", DataType::Float32);
  ir::Node& n = b.node("Scan", {"s0", "x"}, {"s", "ys"});
  n.attributes.push_back(graph_attr("body", body));
  ir::Attribute count;
  count.name = "num_scan_inputs";
  count.type = ir::Attribute::Type::Int;
  count.i = 1;
  n.attributes.push_back(count);
  for (auto& a : extra) n.attributes.push_back(a);
  b.output("s").output("ys");
  return b.build();
}

TEST(ScanOp, RunningSumOverRows) {
  const Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = run_model(running_sum_model({}), {{"s0", f32({2}, {0, 0})}, {"x", x}});
  EXPECT_TRUE(all_close(out[0], f32({2}, {9, 12})));
  EXPECT_TRUE(all_close(out[1], f32({3, 2}, {1, 2, 4, 6, 9, 12})));
}

TEST(ScanOp, ReversedInputAndTransposedOutputAxis) {
  const Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = run_model(running_sum_model({ints_attr("scan_input_directions", {1}),
                                          ints_attr("scan_output_axes", {1})}),
                       {{"s0", f32({2}, {0, 0})}, {"x", x}});
  // Rows visited 5 6, 3 4, 1 2: sums (5, 6), (8, 10), (9, 12), stacked along axis 1.
  EXPECT_TRUE(all_close(out[1], f32({2, 3}, {5, 8, 9, 6, 10, 12})));
}

TEST(ScanOp, ScanInputsOfDifferentLengthsAreAnError) {
  GraphBuilder b;
  b.input("a", DataType::Float32, {3});
  b.input("b", DataType::Float32, {2});
  Body body("pair");
  body.input("x").input("y");
  body.node("Add", {"x", "y"}, {"z"});
  body.output("z", DataType::Float32);
  ir::Node& n = b.node("Scan", {"a", "b"}, {"zs"});
  n.attributes.push_back(graph_attr("body", body));
  ir::Attribute count;
  count.name = "num_scan_inputs";
  count.type = ir::Attribute::Type::Int;
  count.i = 2;
  n.attributes.push_back(count);
  b.output("zs");
  EXPECT_THROW(run_model(b.build(), {{"a", f32({3}, {1, 2, 3})}, {"b", f32({2}, {1, 2})}}), Error);
}

}  // namespace
}  // namespace kiln::testing
