// Load-time passes, each run on its own over a small in-memory model, and the whole pipeline
// checked against the unoptimized model.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <mutex>
#include <random>
#include <set>

#include "graph_builder.h"
#include "kernels/op_registry.h"
#include "passes/passes.h"
#include "test_util.h"

using namespace kiln;
using kiln::testing::f32;
using kiln::testing::GraphBuilder;
using kiln::testing::i64;
using kiln::testing::int_attr;
using kiln::testing::ints_attr;
using kiln::testing::run_one;

namespace {

ir::Attribute graph_attr(const std::string& name, std::shared_ptr<ir::Graph> g) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Graph;
  a.g = std::move(g);
  return a;
}

// A subgraph with no inputs whose one node reads `outer` from the enclosing graph.
std::shared_ptr<ir::Graph> branch_reading(const std::string& outer, const std::string& op,
                                          const std::string& out) {
  auto g = std::make_shared<ir::Graph>();
  ir::Node n;
  n.op_type = op;
  n.name = op + "_in_" + out;
  n.inputs = {outer};
  n.outputs = {out};
  g->nodes.push_back(n);
  g->outputs.push_back(ValueInfo{out});
  return g;
}

// An input with a mix of fixed and named dims: a non-empty symbol wins over the number.
void mixed_input(GraphBuilder& b, const std::string& name, std::vector<Dim> dims) {
  b.input(name, DataType::Float32, {});
  b.ir().graph.inputs.back().shape = std::move(dims);
}

Dim sym(const std::string& s) { return Dim{-1, s}; }
Dim fix(int64_t v) { return Dim{v, ""}; }

std::vector<std::string> op_types(const ir::Graph& g) {
  std::vector<std::string> ops;
  for (const auto& n : g.nodes) ops.push_back(n.op_type);
  return ops;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The inferred info of `value`, failing the test when there is none.
ValueInfo info_of(const ir::Model& m, const std::string& value) {
  const ValueInfo* v = m.graph.find_value_info(value);
  EXPECT_NE(v, nullptr) << "no inferred info for " << value;
  return v ? *v : ValueInfo{};
}

void expect_dims(const ir::Model& m, const std::string& value, DataType dtype,
                 std::vector<Dim> dims) {
  const ValueInfo v = info_of(m, value);
  EXPECT_EQ(v.dtype, dtype) << value;
  EXPECT_TRUE(v.has_shape) << value;
  EXPECT_EQ(v.shape, dims) << value << " is " << v.to_string();
}

// A test op with no kernel-side state: folding must leave kiln.test ops to run time (they
// stand in for nondeterministic ops, whose result must differ from run to run).
void register_passes_test_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpRegistry::global().add("kiln.test", "PassesRandomLike", [](const NodeInfo&) -> CpuKernel {
      return [](OpContext& ctx) { ctx.set_output(0, ctx.input(0).clone()); };
    });
  });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// topological_sort

TEST(TopologicalSort, OrdersProducersBeforeConsumers) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.node("Relu", {"b"}, {"y"});
  b.node("Neg", {"a"}, {"b"});
  b.node("Abs", {"x"}, {"a"});
  b.output("y");
  passes::topological_sort(b.ir().graph, "m");
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Abs", "Neg", "Relu"}));
}

TEST(TopologicalSort, KeepsFileOrderAmongIndependentNodes) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.node("Neg", {"x"}, {"a"});
  b.node("Abs", {"x"}, {"c"});
  b.node("Relu", {"x"}, {"d"});
  b.output("a").output("c").output("d");
  passes::topological_sort(b.ir().graph, "m");
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Neg", "Abs", "Relu"}));
}

TEST(TopologicalSort, ReportsCycleNamingTheNode) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.node("Add", {"x", "b"}, {"a"});
  b.node("Relu", {"a"}, {"b"});
  b.output("b");
  const std::string msg = error_of([&] { passes::topological_sort(b.ir().graph, "m.onnx"); });
  EXPECT_TRUE(contains(msg, "m.onnx")) << msg;
  EXPECT_TRUE(contains(msg, "cycle")) << msg;
  EXPECT_TRUE(contains(msg, "Add_0") || contains(msg, "Relu_1")) << msg;
}

TEST(TopologicalSort, ReportsUndefinedInputNamingNodeAndValue) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.node("Add", {"x", "nowhere"}, {"y"});
  b.output("y");
  const std::string msg = error_of([&] { passes::topological_sort(b.ir().graph, "m.onnx"); });
  EXPECT_TRUE(contains(msg, "Add_0")) << msg;
  EXPECT_TRUE(contains(msg, "'nowhere'")) << msg;
}

TEST(TopologicalSort, ReportsUnproducedGraphOutput) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.node("Relu", {"x"}, {"y"});
  b.output("ghost");
  const std::string msg = error_of([&] { passes::topological_sort(b.ir().graph, "m"); });
  EXPECT_TRUE(contains(msg, "'ghost'")) << msg;
}

TEST(TopologicalSort, AcceptsInitializersAndOptionalEmptyInputs) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.initializer("lo", Tensor::scalar<float>(0.f));
  b.node("Clip", {"x", "lo", ""}, {"y"});
  b.output("y");
  EXPECT_NO_THROW(passes::topological_sort(b.ir().graph, "m"));
}

TEST(TopologicalSort, SubgraphMayReadOuterValuesAndOrdersAfterTheirProducer) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.input("cond", DataType::Bool, {});
  // The If reads `r` only inside its branches, yet must still come after the Relu.
  auto& if_node = b.node("If", {"cond"}, {"y"});
  if_node.attributes.push_back(graph_attr("then_branch", branch_reading("r", "Neg", "t")));
  if_node.attributes.push_back(graph_attr("else_branch", branch_reading("x", "Abs", "e")));
  b.node("Relu", {"x"}, {"r"});
  b.output("y");
  ASSERT_NO_THROW(passes::topological_sort(b.ir().graph, "m"));
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Relu", "If"}));
}

TEST(TopologicalSort, SubgraphReadingUnknownNameIsAnError) {
  GraphBuilder b;
  b.input("cond", DataType::Bool, {});
  auto& if_node = b.node("If", {"cond"}, {"y"});
  if_node.attributes.push_back(graph_attr("then_branch", branch_reading("missing", "Neg", "t")));
  if_node.attributes.push_back(graph_attr("else_branch", branch_reading("cond", "Not", "e")));
  b.output("y");
  const std::string msg = error_of([&] { passes::topological_sort(b.ir().graph, "m"); });
  EXPECT_TRUE(contains(msg, "'missing'")) << msg;
}

// ---------------------------------------------------------------------------------------------
// infer_shapes

TEST(InferShapes, ConvAndMaxPool) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {1, 3, 32, 32});
  b.initializer("w", Tensor::zeros(DataType::Float32, {8, 3, 3, 3}));
  auto& conv = b.node("Conv", {"x", "w"}, {"c"});
  conv.attributes.push_back(ints_attr("pads", {1, 1, 1, 1}));
  conv.attributes.push_back(ints_attr("strides", {2, 2}));
  auto& pool = b.node("MaxPool", {"c"}, {"p", "idx"});
  pool.attributes.push_back(ints_attr("kernel_shape", {2, 2}));
  pool.attributes.push_back(ints_attr("strides", {2, 2}));
  b.output("p");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "c", DataType::Float32, {fix(1), fix(8), fix(16), fix(16)});
  expect_dims(b.ir(), "p", DataType::Float32, {fix(1), fix(8), fix(8), fix(8)});
  expect_dims(b.ir(), "idx", DataType::Int64, {fix(1), fix(8), fix(8), fix(8)});
}

TEST(InferShapes, MaxPoolCeilMode) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {1, 1, 5, 5});
  auto& pool = b.node("MaxPool", {"x"}, {"p"});
  pool.attributes.push_back(ints_attr("kernel_shape", {2, 2}));
  pool.attributes.push_back(ints_attr("strides", {2, 2}));
  pool.attributes.push_back(int_attr("ceil_mode", 1));
  b.output("p");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "p", DataType::Float32, {fix(1), fix(1), fix(3), fix(3)});
}

// The case that drifted when inference kept its own copy of the window rule: ceil_mode drops a
// last window that would start in the end padding, measured from the begin pad (not from half of
// all pads). The CPU kernel, both GPU backends and ONNX Runtime give three values.
TEST(InferShapes, MaxPoolCeilModeWithOnlyEndPadsMatchesTheKernel) {
  GraphBuilder b(13);
  b.input("x", DataType::Float32, {1, 1, 6});
  auto& pool = b.node("MaxPool", {"x"}, {"y"});
  pool.attributes.push_back(ints_attr("kernel_shape", {3}));
  pool.attributes.push_back(ints_attr("strides", {2}));
  pool.attributes.push_back(ints_attr("pads", {0, 2}));
  pool.attributes.push_back(int_attr("ceil_mode", 1));
  b.output("y");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {fix(1), fix(1), fix(3)});
  const Tensor y = run_one(b.build(), {{"x", f32({1, 1, 6}, {0, 1, 2, 3, 4, 5})}}, "y",
                           WorkerOptions{.verify_shapes = true});
  EXPECT_EQ(y.shape(), Shape({1, 1, 3}));
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>({2, 4, 5}));
}

// Rules that read constant inputs: the inferred shape, then a run under verify_shapes that holds
// the kernel to it.
void expect_rule_matches_kernel(GraphBuilder& b, const std::string& output,
                                const std::vector<Dim>& dims, const Tensor& x) {
  passes::infer_shapes(b.ir());
  const ValueInfo* v = b.ir().graph.find_value_info(output);
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->has_shape) << output;
  EXPECT_EQ(v->shape, dims) << v->to_string();
  const Tensor y = run_one(b.build(), {{"x", x}}, output, WorkerOptions{.verify_shapes = true});
  std::vector<Dim> actual;
  for (int64_t d : y.shape()) actual.push_back(fix(d));
  EXPECT_EQ(actual, dims);
}

TEST(InferShapes, ExpandBroadcastsWithTheConstantShape) {
  GraphBuilder b(13);
  b.input("x", DataType::Float32, {3, 1});
  b.initializer("shape", i64({3}, {2, 1, 4}));
  b.node("Expand", {"x", "shape"}, {"y"});
  b.output("y");
  expect_rule_matches_kernel(b, "y", {fix(2), fix(3), fix(4)},
                             Tensor::zeros(DataType::Float32, {3, 1}));
}

TEST(InferShapes, TileMultipliesEachDim) {
  GraphBuilder b(13);
  b.input("x", DataType::Float32, {2, 3});
  b.initializer("repeats", i64({2}, {3, 1}));
  b.node("Tile", {"x", "repeats"}, {"y"});
  b.output("y");
  expect_rule_matches_kernel(b, "y", {fix(6), fix(3)}, Tensor::zeros(DataType::Float32, {2, 3}));
}

TEST(InferShapes, PadGrowsAndNegativePadsCrop) {
  GraphBuilder b(13);
  b.input("x", DataType::Float32, {2, 5});
  b.initializer("pads", i64({4}, {1, -1, 2, 0}));
  b.node("Pad", {"x", "pads"}, {"y"});
  b.output("y");
  expect_rule_matches_kernel(b, "y", {fix(5), fix(4)}, Tensor::zeros(DataType::Float32, {2, 5}));
}

TEST(InferShapes, TopKCutsTheAxisToK) {
  GraphBuilder b(13);
  b.input("x", DataType::Float32, {2, 7, 3});
  b.initializer("k", i64({1}, {4}));
  b.node("TopK", {"x", "k"}, {"values", "indices"}).attributes.push_back(int_attr("axis", 1));
  b.output("values");
  b.output("indices");
  expect_rule_matches_kernel(b, "indices", {fix(2), fix(4), fix(3)},
                             Tensor::zeros(DataType::Float32, {2, 7, 3}));
  expect_dims(b.ir(), "indices", DataType::Int64, {fix(2), fix(4), fix(3)});
}

TEST(InferShapes, SplitPartsFromConstantSizesAndFromNumOutputs) {
  GraphBuilder b(18);
  b.input("x", DataType::Float32, {2, 7});
  b.initializer("sizes", i64({2}, {3, 4}));
  b.node("Split", {"x", "sizes"}, {"a", "b"}).attributes.push_back(int_attr("axis", 1));
  auto& thirds = b.node("Split", {"x"}, {"p", "q", "r"});
  thirds.attributes.push_back(int_attr("axis", 1));
  thirds.attributes.push_back(int_attr("num_outputs", 3));
  b.output("a");
  b.output("b");
  b.output("r");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "b", DataType::Float32, {fix(2), fix(4)});
  expect_dims(b.ir(), "q", DataType::Float32, {fix(2), fix(3)});
  // Parts of ceil(7 / 3) = 3, the last one smaller.
  expect_rule_matches_kernel(b, "r", {fix(2), fix(1)}, Tensor::zeros(DataType::Float32, {2, 7}));
}

TEST(InferShapes, ConstantOfShapeTakesTheValuesType) {
  GraphBuilder b(13);
  b.input("x", DataType::Float32, {1});
  b.initializer("shape", i64({2}, {3, 4}));
  ir::Attribute value;
  value.name = "value";
  value.type = ir::Attribute::Type::Tensor;
  value.t = i64({1}, {7});
  b.node("ConstantOfShape", {"shape"}, {"y"}).attributes.push_back(value);
  b.node("Identity", {"x"}, {"z"});
  b.output("y");
  b.output("z");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Int64, {fix(3), fix(4)});
}

TEST(InferShapes, GemmWithTransposedB) {
  GraphBuilder b;
  b.input("a", DataType::Float32, {4, 5});
  b.initializer("w", Tensor::zeros(DataType::Float32, {6, 5}));
  b.node("Gemm", {"a", "w"}, {"y"}).attributes.push_back(int_attr("transB", 1));
  b.output("y");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {fix(4), fix(6)});
}

TEST(InferShapes, MatMulBroadcastsBatchDims) {
  GraphBuilder b;
  b.input("a", DataType::Float32, {2, 1, 4, 5});
  b.input("b", DataType::Float32, {3, 5, 7});
  b.input("v", DataType::Float32, {5});
  b.node("MatMul", {"a", "b"}, {"y"});
  b.node("MatMul", {"a", "v"}, {"av"});
  b.output("y").output("av");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {fix(2), fix(3), fix(4), fix(7)});
  expect_dims(b.ir(), "av", DataType::Float32, {fix(2), fix(1), fix(4)});
}

TEST(InferShapes, ReshapeWithZeroAndMinusOne) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.initializer("s", i64({2}, {0, -1}));
  b.initializer("s2", i64({3}, {-1, 2, 2}));
  b.node("Reshape", {"x", "s"}, {"y"});
  b.node("Reshape", {"x", "s2"}, {"y2"});
  b.output("y").output("y2");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {fix(2), fix(12)});
  expect_dims(b.ir(), "y2", DataType::Float32, {fix(6), fix(2), fix(2)});
}

TEST(InferShapes, ReshapeKeepsSymbolicDimCopiedByZero) {
  GraphBuilder b;
  mixed_input(b, "x", {sym("batch"), fix(3), fix(4)});
  b.initializer("s", i64({2}, {0, 12}));
  b.node("Reshape", {"x", "s"}, {"y"});
  b.output("y");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {sym("batch"), fix(12)});
}

TEST(InferShapes, ReshapeWithComputedShapeKnowsOnlyTheType) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3});
  b.input("s", DataType::Int64, {2});
  b.node("Reshape", {"x", "s"}, {"y"});
  b.output("y");
  passes::infer_shapes(b.ir());
  const ValueInfo v = info_of(b.ir(), "y");
  EXPECT_EQ(v.dtype, DataType::Float32);
  EXPECT_FALSE(v.has_shape);
}

TEST(InferShapes, TransposeConcatFlatten) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.input("a", DataType::Float32, {2, 3});
  b.input("c", DataType::Float32, {2, 5});
  b.node("Transpose", {"x"}, {"t"}).attributes.push_back(ints_attr("perm", {2, 0, 1}));
  b.node("Transpose", {"x"}, {"t_default"});
  b.node("Concat", {"a", "c"}, {"cat"}).attributes.push_back(int_attr("axis", -1));
  b.node("Flatten", {"x"}, {"f"});
  b.node("Flatten", {"x"}, {"f0"}).attributes.push_back(int_attr("axis", 0));
  b.output("t").output("t_default").output("cat").output("f").output("f0");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "t", DataType::Float32, {fix(4), fix(2), fix(3)});
  expect_dims(b.ir(), "t_default", DataType::Float32, {fix(4), fix(3), fix(2)});
  expect_dims(b.ir(), "cat", DataType::Float32, {fix(2), fix(8)});
  expect_dims(b.ir(), "f", DataType::Float32, {fix(2), fix(12)});
  expect_dims(b.ir(), "f0", DataType::Float32, {fix(1), fix(24)});
}

TEST(InferShapes, UnsqueezeAndSqueezeWithConstantAxes) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {3, 4});
  b.input("z", DataType::Float32, {3, 1, 4, 1});
  b.initializer("ua", i64({2}, {0, -1}));
  b.initializer("sa", i64({1}, {1}));
  b.node("Unsqueeze", {"x", "ua"}, {"u"});
  b.node("Squeeze", {"z", "sa"}, {"s"});
  b.node("Squeeze", {"z"}, {"s_all"});
  b.output("u").output("s").output("s_all");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "u", DataType::Float32, {fix(1), fix(3), fix(4), fix(1)});
  expect_dims(b.ir(), "s", DataType::Float32, {fix(3), fix(4), fix(1)});
  expect_dims(b.ir(), "s_all", DataType::Float32, {fix(3), fix(4)});
}

TEST(InferShapes, UnsqueezeTakesAxesAttributeBeforeOpset13) {
  GraphBuilder b(11);
  b.input("x", DataType::Float32, {3, 4});
  b.node("Unsqueeze", {"x"}, {"u"}).attributes.push_back(ints_attr("axes", {1}));
  b.output("u");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "u", DataType::Float32, {fix(3), fix(1), fix(4)});
}

TEST(InferShapes, Reductions) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.initializer("ax", i64({1}, {1}));
  b.node("ReduceSum", {"x", "ax"}, {"sum_keep"});
  b.node("ReduceMean", {"x", "ax"}, {"mean"}).attributes.push_back(int_attr("keepdims", 0));
  b.node("ReduceMax", {"x"}, {"all"}).attributes.push_back(int_attr("keepdims", 0));
  auto& argmax = b.node("ArgMax", {"x"}, {"arg"});
  argmax.attributes.push_back(int_attr("axis", -1));
  b.output("sum_keep").output("mean").output("all").output("arg");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "sum_keep", DataType::Float32, {fix(2), fix(1), fix(4)});
  expect_dims(b.ir(), "mean", DataType::Float32, {fix(2), fix(4)});
  expect_dims(b.ir(), "all", DataType::Float32, {});
  expect_dims(b.ir(), "arg", DataType::Int64, {fix(2), fix(3), fix(1)});
}

TEST(InferShapes, GatherInsertsIndexShapeAtAxis) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {5, 6, 7});
  b.initializer("idx", i64({2, 3}, {0, 1, 2, 3, 4, 5}));
  b.initializer("one", Tensor::scalar<int64_t>(1));
  b.node("Gather", {"x", "idx"}, {"g"}).attributes.push_back(int_attr("axis", 1));
  b.node("Gather", {"x", "one"}, {"g0"});
  b.output("g").output("g0");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "g", DataType::Float32, {fix(5), fix(2), fix(3), fix(7)});
  expect_dims(b.ir(), "g0", DataType::Float32, {fix(6), fix(7)});
}

TEST(InferShapes, CastChangesOnlyTheType) {
  GraphBuilder b;
  mixed_input(b, "x", {sym("batch"), fix(3)});
  b.node("Cast", {"x"}, {"y"})
      .attributes.push_back(int_attr("to", static_cast<int64_t>(DataType::Int32)));
  b.output("y");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Int32, {sym("batch"), fix(3)});
}

TEST(InferShapes, ShapeAndSize) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.node("Shape", {"x"}, {"s"});
  b.node("Shape", {"x"}, {"s_tail"}).attributes.push_back(int_attr("start", -2));
  b.node("Size", {"x"}, {"n"});
  b.output("s").output("s_tail").output("n");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "s", DataType::Int64, {fix(3)});
  expect_dims(b.ir(), "s_tail", DataType::Int64, {fix(2)});
  expect_dims(b.ir(), "n", DataType::Int64, {});
}

TEST(InferShapes, SymbolicBatchSurvivesConvReluFlatten) {
  GraphBuilder b;
  mixed_input(b, "x", {sym("batch"), fix(3), fix(8), fix(8)});
  b.initializer("w", Tensor::zeros(DataType::Float32, {4, 3, 3, 3}));
  b.node("Conv", {"x", "w"}, {"c"}).attributes.push_back(ints_attr("pads", {1, 1, 1, 1}));
  b.node("Relu", {"c"}, {"r"});
  b.node("Flatten", {"r"}, {"f"});
  b.output("f");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "c", DataType::Float32, {sym("batch"), fix(4), fix(8), fix(8)});
  expect_dims(b.ir(), "r", DataType::Float32, {sym("batch"), fix(4), fix(8), fix(8)});
  expect_dims(b.ir(), "f", DataType::Float32, {sym("batch"), fix(256)});
  // The graph output takes the inferred type, since the model did not declare one.
  ASSERT_EQ(b.ir().graph.outputs.size(), 1u);
  EXPECT_EQ(b.ir().graph.outputs[0].dtype, DataType::Float32);
  EXPECT_EQ(b.ir().graph.outputs[0].shape, (std::vector<Dim>{sym("batch"), fix(256)}));
}

// ConvTranspose's rule is the kernels' own geometry (conv_transpose_geometry): a symbolic batch
// keeps its name, a symbolic spatial axis becomes unknown, and the kernel agrees on fixed shapes.
TEST(InferShapes, ConvTransposeUsesTheKernelsGeometry) {
  GraphBuilder b;
  mixed_input(b, "x", {sym("batch"), fix(2), fix(5), sym("w")});
  b.initializer("w", Tensor::zeros(DataType::Float32, {2, 3, 3, 3}));
  auto& node = b.node("ConvTranspose", {"x", "w"}, {"y"});
  node.attributes.push_back(ints_attr("strides", {2, 2}));
  node.attributes.push_back(ints_attr("output_padding", {1, 0}));
  b.output("y");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {sym("batch"), fix(3), fix(12), Dim{}});

  GraphBuilder fixed;
  fixed.input("x", DataType::Float32, {1, 2, 5, 4});
  fixed.initializer("w", Tensor::zeros(DataType::Float32, {2, 3, 3, 3}));
  auto& n2 = fixed.node("ConvTranspose", {"x", "w"}, {"y"});
  n2.attributes.push_back(ints_attr("strides", {2, 2}));
  n2.attributes.push_back(ints_attr("output_padding", {1, 0}));
  n2.attributes.push_back(ints_attr("pads", {1, 0, 0, 1}));
  fixed.output("y");
  expect_rule_matches_kernel(fixed, "y", {fix(1), fix(3), fix(11), fix(8)},
                             Tensor::zeros(DataType::Float32, {1, 2, 5, 4}));
}

// Resize: axes the scales leave alone keep their symbolic names; the others follow
// resolve_resize, as the kernel does.
TEST(InferShapes, ResizeKeepsSymbolicAxesItLeavesAlone) {
  GraphBuilder b(13);
  mixed_input(b, "x", {sym("batch"), fix(3), fix(5), fix(4)});
  b.initializer("roi", Tensor::zeros(DataType::Float32, {0}));
  b.initializer("scales", f32({4}, {1, 1, 1.5f, 2}));
  b.node("Resize", {"x", "roi", "scales"}, {"y"});
  b.output("y");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {sym("batch"), fix(3), fix(7), fix(8)});

  GraphBuilder fixed(13);
  fixed.input("x", DataType::Float32, {1, 3, 5, 4});
  fixed.initializer("roi", Tensor::zeros(DataType::Float32, {0}));
  fixed.initializer("scales", Tensor::zeros(DataType::Float32, {0}));
  fixed.initializer("sizes", i64({4}, {1, 3, 9, 2}));
  fixed.node("Resize", {"x", "roi", "scales", "sizes"}, {"y"});
  fixed.output("y");
  expect_rule_matches_kernel(fixed, "y", {fix(1), fix(3), fix(9), fix(2)},
                             Tensor::zeros(DataType::Float32, {1, 3, 5, 4}));
}

// LSTM with layout 1 and both directions: Y [batch, seq, 2, hidden], Y_h and Y_c
// [batch, 2, hidden], hidden from R.
TEST(InferShapes, LstmOutputsFollowLayoutAndDirections) {
  GraphBuilder b(14);
  mixed_input(b, "x", {sym("batch"), fix(5), fix(4)});
  b.initializer("w", Tensor::zeros(DataType::Float32, {2, 12, 4}));
  b.initializer("r", Tensor::zeros(DataType::Float32, {2, 12, 3}));
  auto& node = b.node("LSTM", {"x", "w", "r"}, {"y", "y_h", "y_c"});
  node.attributes.push_back(int_attr("layout", 1));
  ir::Attribute direction;
  direction.name = "direction";
  direction.type = ir::Attribute::Type::String;
  direction.s = "bidirectional";
  node.attributes.push_back(direction);
  b.output("y").output("y_h").output("y_c");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {sym("batch"), fix(5), fix(2), fix(3)});
  expect_dims(b.ir(), "y_h", DataType::Float32, {sym("batch"), fix(2), fix(3)});
  expect_dims(b.ir(), "y_c", DataType::Float32, {sym("batch"), fix(2), fix(3)});
}

// If takes its outputs' types from both branches: what they agree on.
TEST(InferShapes, IfMergesItsBranches) {
  GraphBuilder b;
  b.input("cond", DataType::Bool, {});
  b.input("x", DataType::Float32, {2, 3});
  b.input("z", DataType::Float32, {4, 3});
  auto& node = b.node("If", {"cond"}, {"y"});
  node.attributes.push_back(graph_attr("then_branch", branch_reading("x", "Relu", "a")));
  node.attributes.push_back(graph_attr("else_branch", branch_reading("z", "Neg", "c")));
  b.output("y");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {Dim{}, fix(3)});
}

TEST(InferShapes, BroadcastKeepsSymbolicDim) {
  GraphBuilder b;
  mixed_input(b, "x", {sym("batch"), fix(3)});
  b.initializer("bias", Tensor::zeros(DataType::Float32, {1, 3}));
  b.initializer("row", Tensor::zeros(DataType::Float32, {3}));
  b.node("Add", {"x", "bias"}, {"y"});
  b.node("Mul", {"row", "x"}, {"z"});
  b.node("Less", {"x", "bias"}, {"lt"});
  b.output("y").output("z").output("lt");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {sym("batch"), fix(3)});
  expect_dims(b.ir(), "z", DataType::Float32, {sym("batch"), fix(3)});
  expect_dims(b.ir(), "lt", DataType::Bool, {sym("batch"), fix(3)});
}

// ---------------------------------------------------------------------------------------------
// remove_noop_nodes

TEST(RemoveNoopNodes, DropsIdentityAndDropoutBetweenNodes) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.node("Relu", {"x"}, {"a"});
  b.node("Identity", {"a"}, {"b"});
  b.node("Neg", {"b"}, {"c"});
  b.node("Dropout", {"c"}, {"d"});
  b.node("Abs", {"d"}, {"y"});
  b.output("y");
  passes::remove_noop_nodes(b.ir().graph);
  const auto& nodes = b.ir().graph.nodes;
  ASSERT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Relu", "Neg", "Abs"}));
  EXPECT_EQ(nodes[1].inputs, (std::vector<std::string>{"a"}));
  EXPECT_EQ(nodes[2].inputs, (std::vector<std::string>{"c"}));
}

TEST(RemoveNoopNodes, KeepsIdentityProducingAGraphOutput) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.node("Relu", {"x"}, {"a"});
  b.node("Identity", {"a"}, {"y"});
  b.output("a").output("y");
  passes::remove_noop_nodes(b.ir().graph);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Relu", "Identity"}));
}

TEST(RemoveNoopNodes, KeepsDropoutThatMayTrainOrReturnsAMask) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.input("training", DataType::Bool, {});
  b.initializer("ratio", Tensor::scalar<float>(0.5f));
  b.node("Dropout", {"x"}, {"a", "mask"});
  b.node("Dropout", {"a", "ratio", "training"}, {"c"});
  b.node("Relu", {"c"}, {"y"});
  b.output("y").output("mask");
  passes::remove_noop_nodes(b.ir().graph);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Dropout", "Dropout", "Relu"}));
}

TEST(RemoveNoopNodes, KeepsIdentityReadInsideASubgraph) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.input("cond", DataType::Bool, {});
  b.node("Identity", {"x"}, {"i"});
  auto& if_node = b.node("If", {"cond"}, {"y"});
  if_node.attributes.push_back(graph_attr("then_branch", branch_reading("i", "Neg", "t")));
  if_node.attributes.push_back(graph_attr("else_branch", branch_reading("i", "Abs", "e")));
  b.output("y");
  passes::remove_noop_nodes(b.ir().graph);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Identity", "If"}));
}

// ---------------------------------------------------------------------------------------------
// fold_constants

TEST(FoldConstants, AddOfInitializersBecomesAnInitializer) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {3});
  b.initializer("a", f32({3}, {1, 2, 3}));
  b.initializer("b", f32({3}, {10, 20, 30}));
  b.node("Add", {"a", "b"}, {"c"});
  b.node("Mul", {"x", "c"}, {"y"});
  b.output("y");
  passes::infer_shapes(b.ir());
  passes::fold_constants(b.ir(), cpu_kernel_hooks().evaluate);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Mul"}));
  ASSERT_TRUE(b.ir().graph.initializers.count("c"));
  EXPECT_EQ(b.ir().graph.initializers.at("c").to_vector<float>(), (std::vector<float>{11, 22, 33}));
}

TEST(FoldConstants, FoldsChainsInOnePass) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.initializer("a", f32({2}, {1, 2}));
  b.node("Neg", {"a"}, {"n"});
  b.node("Mul", {"n", "a"}, {"m"});
  b.node("Add", {"x", "m"}, {"y"});
  b.output("y");
  passes::fold_constants(b.ir(), cpu_kernel_hooks().evaluate);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Add"}));
  EXPECT_EQ(b.ir().graph.initializers.at("m").to_vector<float>(), (std::vector<float>{-1, -4}));
}

TEST(FoldConstants, ShapeOfStaticallyShapedValueBecomesConstant) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.node("Relu", {"x"}, {"r"});
  b.node("Shape", {"r"}, {"s"});
  b.node("Shape", {"r"}, {"s_tail"}).attributes.push_back(int_attr("start", 1));
  b.node("Size", {"r"}, {"n"});
  b.node("Concat", {"s", "s_tail"}, {"y"}).attributes.push_back(int_attr("axis", 0));
  b.node("Identity", {"n"}, {"z"});
  b.output("y").output("z");
  passes::infer_shapes(b.ir());
  passes::fold_constants(b.ir(), cpu_kernel_hooks().evaluate);
  const auto& inits = b.ir().graph.initializers;
  ASSERT_TRUE(inits.count("s"));
  ASSERT_TRUE(inits.count("s_tail"));
  ASSERT_TRUE(inits.count("n"));
  EXPECT_EQ(inits.at("s").to_vector<int64_t>(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(inits.at("s_tail").to_vector<int64_t>(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(inits.at("n").to_vector<int64_t>(), (std::vector<int64_t>{24}));
  // The Concat and Identity now read constants, but produce graph outputs: they stay nodes.
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Relu", "Concat", "Identity"}));
}

TEST(FoldConstants, ShapeWithSymbolicDimIsNotFolded) {
  GraphBuilder b;
  mixed_input(b, "x", {sym("batch"), fix(3)});
  b.node("Shape", {"x"}, {"s"});
  b.node("Cast", {"s"}, {"y"})
      .attributes.push_back(int_attr("to", static_cast<int64_t>(DataType::Float32)));
  b.output("y");
  passes::infer_shapes(b.ir());
  passes::fold_constants(b.ir(), cpu_kernel_hooks().evaluate);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Shape", "Cast"}));
  EXPECT_FALSE(b.ir().graph.initializers.count("s"));
}

TEST(FoldConstants, LeavesNodesReadingGraphInputsOrTestOps) {
  register_passes_test_ops();
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.input("d", DataType::Float32, {2});
  b.initializer("a", f32({2}, {1, 2}));
  b.initializer("d", f32({2}, {5, 5}));  // an overridable default, not a constant
  // Stands in for a random op: all inputs are constant, yet it must run at run time.
  b.node("PassesRandomLike", {"a"}, {"rnd"}, "kiln.test");
  b.node("Add", {"x", "a"}, {"xa"});
  b.node("Add", {"d", "a"}, {"da"});
  b.node("Sum", {"rnd", "xa", "da"}, {"y"});
  b.output("y");
  passes::fold_constants(b.ir(), cpu_kernel_hooks().evaluate);
  EXPECT_EQ(op_types(b.ir().graph),
            (std::vector<std::string>{"PassesRandomLike", "Add", "Add", "Sum"}));
  for (const char* v : {"rnd", "xa", "da"}) EXPECT_FALSE(b.ir().graph.initializers.count(v)) << v;
}

TEST(FoldConstants, FoldedValueThatIsAGraphOutputStaysComputedByANode) {
  GraphBuilder b;
  b.initializer("a", f32({2}, {1, 2}));
  b.initializer("b", f32({2}, {3, 4}));
  b.node("Add", {"a", "b"}, {"y"});
  b.output("y");
  passes::fold_constants(b.ir(), cpu_kernel_hooks().evaluate);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Add"}));
  EXPECT_FALSE(b.ir().graph.initializers.count("y"));
}

TEST(FoldConstants, ANodeWhoseKernelFailsIsLeftForRunTime) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.initializer("a", f32({2}, {1, 2}));
  b.initializer("b", f32({3}, {1, 2, 3}));
  b.node("Add", {"a", "b"}, {"bad"});  // shapes do not broadcast
  b.node("Add", {"x", "bad"}, {"y"});
  b.output("y");
  EXPECT_NO_THROW(passes::fold_constants(b.ir(), cpu_kernel_hooks().evaluate));
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Add", "Add"}));
}

// ---------------------------------------------------------------------------------------------
// remove_dead_nodes

TEST(RemoveDeadNodes, RemovesUnusedBranchAndItsInitializers) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2});
  b.initializer("w", f32({2}, {1, 1}));
  b.initializer("dead_w", f32({2}, {2, 2}));
  b.node("Mul", {"x", "w"}, {"m"});
  b.node("Add", {"x", "dead_w"}, {"d1"});
  b.node("Exp", {"d1"}, {"d2"});
  b.node("Relu", {"m"}, {"y"});
  b.output("y");
  passes::remove_dead_nodes(b.ir().graph);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"Mul", "Relu"}));
  EXPECT_TRUE(b.ir().graph.initializers.count("w"));
  EXPECT_FALSE(b.ir().graph.initializers.count("dead_w"));
}

TEST(RemoveDeadNodes, KeepsInitializersThatAreInputDefaultsOrReadInSubgraphs) {
  GraphBuilder b;
  b.input("cond", DataType::Bool, {});
  b.input("opt", DataType::Float32, {2});
  b.initializer("opt", f32({2}, {0, 0}));
  b.initializer("k", f32({2}, {1, 2}));
  auto& if_node = b.node("If", {"cond"}, {"y"});
  if_node.attributes.push_back(graph_attr("then_branch", branch_reading("k", "Neg", "t")));
  if_node.attributes.push_back(graph_attr("else_branch", branch_reading("k", "Abs", "e")));
  b.output("y");
  passes::remove_dead_nodes(b.ir().graph);
  EXPECT_EQ(op_types(b.ir().graph), (std::vector<std::string>{"If"}));
  EXPECT_TRUE(b.ir().graph.initializers.count("opt"));
  EXPECT_TRUE(b.ir().graph.initializers.count("k"));
}

TEST(RemoveDeadNodes, ClearsUnreadOptionalOutputs) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {1, 1, 4, 4});
  auto& pool = b.node("MaxPool", {"x"}, {"p", "idx"});
  pool.attributes.push_back(ints_attr("kernel_shape", {2, 2}));
  b.output("p");
  passes::remove_dead_nodes(b.ir().graph);
  ASSERT_EQ(b.ir().graph.nodes.size(), 1u);
  EXPECT_EQ(b.ir().graph.nodes[0].outputs, (std::vector<std::string>{"p", ""}));
}

// ---------------------------------------------------------------------------------------------
// cpu_resident_values

TEST(CpuResidentValues, ReshapeShapeChainUpToShapeButNotTheData) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.initializer("idx", i64({1}, {0}));
  b.initializer("minus_one", i64({1}, {-1}));
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "idx"}, {"g"});
  b.node("Concat", {"g", "minus_one"}, {"target"}).attributes.push_back(int_attr("axis", 0));
  b.node("Reshape", {"x", "target"}, {"y"});
  b.output("y");
  // Run on the unoptimized model: folding would turn the whole chain into one constant.
  const std::set<std::string> resident = passes::cpu_resident_values(b.ir());
  // The Shape output is marked (it is read for its contents) but the walk stops there: x is
  // needed only for its shape by Shape and lives wherever Reshape's data lives.
  EXPECT_EQ(resident, (std::set<std::string>{"target", "g", "minus_one", "s", "idx"}));
}

TEST(CpuResidentValues, StopsAtGraphInputsAndSize) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {4, 4});
  b.input("n", DataType::Int64, {1});
  b.initializer("ax", i64({1}, {0}));
  b.node("Size", {"x"}, {"count"});
  b.node("Unsqueeze", {"count", "ax"}, {"count1"});
  b.node("Add", {"count1", "n"}, {"end"});
  b.node("Slice", {"x", "ax", "end"}, {"y"});
  b.node("Relu", {"y"}, {"z"});
  b.output("z");
  const std::set<std::string> resident = passes::cpu_resident_values(b.ir());
  EXPECT_EQ(resident, (std::set<std::string>{"ax", "end", "count1", "n", "count"}));
}

TEST(CpuResidentValues, FollowsTheOpsetOfTheModel) {
  // Squeeze took its axes as an attribute before opset 13: no input decides the shape.
  GraphBuilder old_model(11);
  old_model.input("x", DataType::Float32, {1, 3});
  old_model.node("Squeeze", {"x"}, {"y"}).attributes.push_back(ints_attr("axes", {0}));
  old_model.output("y");
  EXPECT_TRUE(passes::cpu_resident_values(old_model.ir()).empty());

  GraphBuilder new_model(13);
  new_model.input("x", DataType::Float32, {1, 3});
  new_model.initializer("axes", i64({1}, {0}));
  new_model.node("Squeeze", {"x", "axes"}, {"y"});
  new_model.output("y");
  EXPECT_EQ(passes::cpu_resident_values(new_model.ir()), (std::set<std::string>{"axes"}));
}

TEST(CpuResidentValues, OpsOfOtherDomains) {
  // The shape kiln::SumToShape reduces to (from Gradient's expansion) decides its output.
  GraphBuilder b;
  b.input("g", DataType::Float32, {2, 3});
  b.input("x", DataType::Float32, {1, 3});
  b.node("Shape", {"x"}, {"s"});
  ir::Node& n = b.node("SumToShape", {"g", "s"}, {"y"});
  n.domain = "kiln";
  b.output("y");
  EXPECT_EQ(passes::cpu_resident_values(b.ir()), (std::set<std::string>{"s"}));
}

TEST(CpuResidentValues, NothingForModelsWithoutShapeDecidingInputs) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3});
  b.node("Shape", {"x"}, {"s"});
  b.node("Relu", {"x"}, {"y"});
  b.output("y").output("s");
  EXPECT_TRUE(passes::cpu_resident_values(b.ir()).empty());
}

// ---------------------------------------------------------------------------------------------
// The whole pipeline

namespace {

// x[2,3,4] -> Add(constant Add) -> Identity -> Reshape(Shape/Gather/Concat) -> Dropout -> Relu,
// with a dead branch: every pass has something to do.
GraphBuilder optimizable_model() {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3, 4});
  b.initializer("c1", f32({4}, {1, -2, 3, -4}));
  b.initializer("c2", f32({4}, {0.5f, 0.5f, -0.5f, -0.5f}));
  b.initializer("idx", i64({1}, {0}));
  b.initializer("minus_one", i64({1}, {-1}));
  b.initializer("unused", f32({1}, {7}));
  b.node("Add", {"c1", "c2"}, {"c"});
  b.node("Add", {"x", "c"}, {"xa"});
  b.node("Identity", {"xa"}, {"xi"});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "idx"}, {"g"});
  b.node("Concat", {"g", "minus_one"}, {"target"}).attributes.push_back(int_attr("axis", 0));
  b.node("Reshape", {"xi", "target"}, {"r"});
  b.node("Dropout", {"r"}, {"dr"});
  b.node("Relu", {"dr"}, {"y"});
  b.node("Neg", {"x"}, {"dead"});
  b.node("Mul", {"dead", "unused"}, {"dead2"});
  b.output("y");
  return b;
}

Tensor run_once(const Model& model, const Tensor& x) {
  Worker worker(model);
  worker.schedule(x);
  return worker.peek_output("y").readback_and_clone();
}

}  // namespace

TEST(LoadPipeline, OptimizationDoesNotChangeResults) {
  Model optimized = optimizable_model().build(true);
  Model plain = optimizable_model().build(false);
  EXPECT_LT(optimized.node_count(), plain.node_count());
  // Only the Add and Reshape on x, and the Relu, are left once Identity, Dropout, the shape
  // chain, the constant Add and the dead branch are gone.
  EXPECT_EQ(op_types(optimized.ir()->graph), (std::vector<std::string>{"Add", "Reshape", "Relu"}));
  EXPECT_FALSE(optimized.ir()->graph.initializers.count("unused"));

  std::vector<float> values(24);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) - 11.5f;
  const Tensor x = f32({2, 3, 4}, values);
  const Tensor a = run_once(optimized, x);
  const Tensor b = run_once(plain, x);
  EXPECT_EQ(a.shape(), (Shape{2, 12}));
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  // Spot check against the arithmetic: x[0] + (1 + 0.5), through Relu.
  EXPECT_FLOAT_EQ(a.to_vector<float>()[0], 0.f);
  EXPECT_FLOAT_EQ(a.to_vector<float>()[23], std::max(11.5f + (-4.f - 0.5f), 0.f));
}

TEST(LoadPipeline, InfersOutputTypesAndModelInputsExcludeDefaults) {
  GraphBuilder b;
  mixed_input(b, "x", {sym("batch"), fix(3)});
  b.input("scale", DataType::Float32, {1, 3});
  b.initializer("scale", f32({1, 3}, {1, 2, 3}));
  b.node("Mul", {"x", "scale"}, {"y"});
  b.output("y");
  Model model = b.build();
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].name, "x");
  ASSERT_EQ(model.outputs().size(), 1u);
  EXPECT_EQ(model.outputs()[0].dtype, DataType::Float32);
  EXPECT_EQ(model.outputs()[0].shape, (std::vector<Dim>{sym("batch"), fix(3)}));
}

TEST(InferShapes, OutOfRangeAxesLeaveTheShapeUnknown) {
  // A bad axis fails at run time with the kernel's message; inference must not read out of
  // bounds on the way there.
  GraphBuilder b;
  b.input("a", DataType::Float32, {2, 3});
  b.input("c", DataType::Float32, {2, 3});
  b.node("Concat", {"a", "c"}, {"cat"}).attributes.push_back(int_attr("axis", -5));
  b.node("Flatten", {"a"}, {"f"}).attributes.push_back(int_attr("axis", 5));
  b.node("Flatten", {"a"}, {"fneg"}).attributes.push_back(int_attr("axis", -3));
  b.output("cat").output("f").output("fneg");
  passes::infer_shapes(b.ir());
  for (const char* v : {"cat", "f", "fneg"}) {
    const ValueInfo info = info_of(b.ir(), v);
    EXPECT_EQ(info.dtype, DataType::Float32) << v;
    EXPECT_FALSE(info.has_shape) << v << " is " << info.to_string();
  }
}

TEST(InferShapes, AReshapeTargetPastAnyTensorLeavesTheInferredDimUnknown) {
  // The target is a value and may be anything: its product must not overflow on the way to
  // the -1 dim (the kernel then refuses the node at run time).
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3});
  b.initializer("target",
                Tensor::from_data<int64_t>({3}, {int64_t{12884901960}, int64_t{2147483660}, -1}));
  b.node("Reshape", {"x", "target"}, {"y"});
  b.output("y");
  passes::infer_shapes(b.ir());
  expect_dims(b.ir(), "y", DataType::Float32, {fix(12884901960), fix(2147483660), Dim{}});
}

TEST(LoadPipeline, AShapeNodeWithoutOutputsIsNotFolded) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {2, 3});
  b.node("Shape", {"x"}, {});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  const Tensor y = run_one(b.build(), {{"x", f32({2, 3}, {-1, 2, -3, 4, -5, 6})}}, "y");
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0, 2, 0, 4, 0, 6}));
}

TEST(LoadPipeline, SplitWithAnUnreadOutputGivesTheSameResults) {
  auto make = [] {
    GraphBuilder b;
    b.input("x", DataType::Float32, {6});
    b.node("Split", {"x"}, {"p0", "p1", "p2"}).attributes.push_back(int_attr("num_outputs", 3));
    b.node("Add", {"p0", "p2"}, {"y"});
    b.output("y");
    return b;
  };
  const Tensor x = f32({6}, {1, 2, 3, 4, 5, 6});
  const Tensor a = run_once(make().build(true), x);
  const Tensor b = run_once(make().build(false), x);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{6, 8}));
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{6, 8}));
}

namespace {

// x -> Conv(W, B) -> BatchNormalization -> Relu -> y, with random but well-conditioned values.
GraphBuilder conv_batch_norm_model(bool conv_bias) {
  auto values = [](const Shape& s, float lo, float hi, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(static_cast<size_t>(s.element_count()));
    for (float& x : v) x = d(rng);
    return Tensor::from_data<float>(s, v);
  };
  GraphBuilder b;
  b.input("x", DataType::Float32, {1, 3, 6, 6});
  b.initializer("w", values({4, 3, 3, 3}, -1, 1, 1));
  std::vector<std::string> conv_inputs = {"x", "w"};
  if (conv_bias) {
    b.initializer("cb", values({4}, -1, 1, 2));
    conv_inputs.push_back("cb");
  }
  b.initializer("scale", values({4}, 0.5f, 2, 3));
  b.initializer("bias", values({4}, -1, 1, 4));
  b.initializer("mean", values({4}, -1, 1, 5));
  b.initializer("var", values({4}, 0.1f, 2, 6));
  b.node("Conv", conv_inputs, {"c"});
  b.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"n"});
  b.node("Relu", {"n"}, {"y"});
  b.output("y");
  return b;
}

}  // namespace

TEST(FoldBatchNorm, FoldsIntoTheConvAndKeepsTheResult) {
  for (bool conv_bias : {false, true}) {
    Model folded = conv_batch_norm_model(conv_bias).build(true);
    Model plain = conv_batch_norm_model(conv_bias).build(false);
    std::vector<std::string> ops;
    for (const auto& n : folded.ir()->graph.nodes) ops.push_back(n.op_type);
    EXPECT_EQ(ops, (std::vector<std::string>{"Conv", "Relu"}));
    std::vector<float> xv(108);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(static_cast<float>(i));
    const Tensor x = Tensor::from_data<float>({1, 3, 6, 6}, xv);
    Worker a(folded), b(plain);
    a.schedule({{"x", x}});
    b.schedule({{"x", x}});
    const auto ya = a.peek_output("y").readback_and_clone().to_vector<float>();
    const auto yb = b.peek_output("y").readback_and_clone().to_vector<float>();
    ASSERT_EQ(ya.size(), yb.size());
    for (size_t i = 0; i < ya.size(); ++i) EXPECT_NEAR(ya[i], yb[i], 1e-5 + 1e-5 * std::abs(yb[i]));
  }
}

TEST(FoldBatchNorm, LeavesAConvWhoseOutputIsReadElsewhere) {
  GraphBuilder b = conv_batch_norm_model(false);
  b.output("c");
  Model m = b.build(true);
  size_t bn = 0;
  for (const auto& n : m.ir()->graph.nodes) bn += n.op_type == "BatchNormalization";
  EXPECT_EQ(bn, 1u);
}
