// Tests of the ai.onnx.ml ops against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

using Strings = std::vector<std::string>;
constexpr const char* kMl = "ai.onnx.ml";
const float kNaN = std::numeric_limits<float>::quiet_NaN();

Tensor str(const Shape& shape, Strings values) {
  return Tensor::from_data<std::string>(shape, values);
}
OpTest ml_op(const std::string& op, int opset = 1) { return OpTest(op, opset, kMl); }

void expect_near_all(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(t.element_count(), static_cast<int64_t>(expected.size()));
  const float* p = t.data<float>();
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(p[i], expected[i], tol) << "at " << i;
}

// --- LabelEncoder ----------------------------------------------------------------------------

TEST(LabelEncoder, StringsToInts) {
  auto out = ml_op("LabelEncoder", 2)
                 .input(str({2, 2}, {"a", "c", "b", "z"}))
                 .attr("keys_strings", Strings{"a", "b", "c"})
                 .attr("values_int64s", std::vector<int64_t>{10, 20, 30})
                 .attr("default_int64", int64_t{-7})
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[0].to_vector<int64_t>(), (std::vector<int64_t>{10, 30, 20, -7}));
}

TEST(LabelEncoder, FloatsToStringsWithNaNKeyAndDefault) {
  auto out = ml_op("LabelEncoder", 2)
                 .input(f32({4}, {1.5f, kNaN, -0.0f, 9}))
                 .attr("keys_floats", std::vector<float>{1.5f, kNaN, 0.0f})
                 .attr("values_strings", Strings{"x", "nan", "zero"})
                 .run();
  EXPECT_EQ(out[0].to_vector<std::string>(), (Strings{"x", "nan", "zero", "_Unused"}));
}

TEST(LabelEncoder, TensorAttributes) {
  auto out = ml_op("LabelEncoder", 4)
                 .input(i64({3}, {1, 2, 3}))
                 .attr("keys_tensor", i64({2}, {1, 3}))
                 .attr("values_tensor", Tensor::from_data<double>({2}, {0.5, 1.5}))
                 .attr("default_tensor", Tensor::from_data<double>({1}, {42.0}))
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Float64);
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{0.5, 42.0, 1.5}));
  // Without default_tensor an int32 value type defaults to -1.
  auto ints = ml_op("LabelEncoder", 4)
                  .input(str({2}, {"a", "q"}))
                  .attr("keys_strings", Strings{"a"})
                  .attr("values_tensor", Tensor::from_data<int32_t>({1}, {5}))
                  .run();
  EXPECT_EQ(ints[0].to_vector<int32_t>(), (std::vector<int32_t>{5, -1}));
}

// OpTest fixes the ai.onnx.ml opset at 5; the older LabelEncoder forms run their kernel
// directly at the opset they were written for.
class HeapOutputs : public OutputAllocator {
 public:
  Tensor allocate(size_t, DataType dtype, const Shape& shape) override {
    return Tensor::zeros(dtype, shape);
  }
  Tensor view(size_t, const Tensor& source, const Shape& shape) override {
    return source.reshaped(shape);
  }
};

ir::Attribute strings_attr(const std::string& name, Strings values) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Strings;
  a.strings = std::move(values);
  return a;
}

Tensor label_encoder_at(int opset, std::vector<ir::Attribute> attributes, const Tensor& x) {
  ir::Node node;
  node.op_type = "LabelEncoder";
  node.domain = kMl;
  node.name = "old_label_encoder";
  node.inputs = {"x"};
  node.outputs = {"y"};
  node.attributes = std::move(attributes);
  const OpSchema* schema = OpRegistry::global().find(kMl, "LabelEncoder");
  CpuKernel kernel = schema->factory(NodeInfo(node, opset));
  std::vector<Tensor> inputs{x}, outputs(1);
  HeapOutputs allocator;
  OpContext ctx(node, opset, inputs, outputs, allocator);
  kernel(ctx);
  return outputs[0];
}

TEST(LabelEncoder, Opset1MapsBothWays) {
  const ir::Attribute classes = strings_attr("classes_strings", {"a", "b"});
  const Tensor to_index = label_encoder_at(1, {classes}, str({3}, {"b", "a", "?"}));
  EXPECT_EQ(to_index.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, -1}));
  const Tensor to_string = label_encoder_at(1, {classes}, i64({2}, {1, 5}));
  EXPECT_EQ(to_string.to_vector<std::string>(), (Strings{"b", "_Unused"}));
}

TEST(LabelEncoder, TensorAttributesNeedOpset4) {
  ir::Attribute keys;
  keys.name = "keys_tensor";
  keys.type = ir::Attribute::Type::Tensor;
  keys.t = str({1}, {"a"});
  EXPECT_THROW(label_encoder_at(2, {keys, strings_attr("values_strings", {"b"})}, str({1}, {"a"})),
               Error);
}

TEST(LabelEncoder, BadAttributesAndInputs) {
  EXPECT_THROW(ml_op("LabelEncoder", 2)
                   .input(str({1}, {"a"}))
                   .attr("keys_strings", Strings{"a", "b"})
                   .attr("values_int64s", std::vector<int64_t>{1})
                   .run(),
               Error);
  EXPECT_THROW(ml_op("LabelEncoder", 2)
                   .input(i64({1}, {1}))
                   .attr("keys_strings", Strings{"a"})
                   .attr("values_int64s", std::vector<int64_t>{1})
                   .run(),
               Error);
  EXPECT_THROW(ml_op("LabelEncoder", 2).input(str({1}, {"a"})).run(), Error);
}

// --- TreeEnsemble ----------------------------------------------------------------------------

// One tree: node 0 tests x0 <= 0.5 (false: leaf 0, 10 to target 0); node 1 tests x1 in {1, 3}
// (true: leaf 1, 1 to target 0; false: leaf 2, 2 to target 1).
OpTest one_tree(int64_t aggregate = 1, int64_t post_transform = 0,
                std::vector<int64_t> true_ids = {1, 1}, std::vector<int64_t> false_ids = {0, 2}) {
  OpTest t = ml_op("TreeEnsemble", 5);
  t.attr("nodes_featureids", std::vector<int64_t>{0, 1})
      .attr("nodes_splits", f32({2}, {0.5f, 0}))
      .attr("nodes_modes", Tensor::from_data<uint8_t>({2}, {0, 6}))
      .attr("nodes_truenodeids", true_ids)
      .attr("nodes_trueleafs", std::vector<int64_t>{0, 1})
      .attr("nodes_falsenodeids", false_ids)
      .attr("nodes_falseleafs", std::vector<int64_t>{1, 1})
      .attr("membership_values", f32({3}, {1, 3, kNaN}))
      .attr("leaf_targetids", std::vector<int64_t>{0, 0, 1})
      .attr("leaf_weights", f32({3}, {10, 1, 2}))
      .attr("tree_roots", std::vector<int64_t>{0})
      .attr("n_targets", int64_t{2})
      .attr("aggregate_function", aggregate)
      .attr("post_transform", post_transform);
  return t;
}

const Tensor kTreeRows = f32({4, 2}, {0.2f, 3, 0.2f, 2, 0.9f, 1, kNaN, 1});

TEST(TreeEnsemble, BranchesAndSetMembership) {
  auto out = one_tree().input(kTreeRows).run();
  EXPECT_EQ(out[0].shape(), (Shape{4, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0, 0, 2, 10, 0, 10, 0}));
}

TEST(TreeEnsemble, MissingValueTracksTrue) {
  auto out = one_tree()
                 .attr("nodes_missing_value_tracks_true", std::vector<int64_t>{1, 0})
                 .input(f32({1, 2}, {kNaN, 1}))
                 .run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0}));
}

TEST(TreeEnsemble, MinAggregateAndLogistic) {
  // MIN leaves an unreached target at the type's largest value.
  auto min = one_tree(2).input(f32({1, 2}, {0.9f, 1})).run();
  EXPECT_EQ(min[0].data<float>()[0], 10.0f);
  EXPECT_EQ(min[0].data<float>()[1], std::numeric_limits<float>::max());
  auto logistic = one_tree(1, 2).input(f32({1, 2}, {0.2f, 2})).run();
  expect_near_all(logistic[0], {0.5f, 1.0f / (1.0f + std::exp(-2.0f))});
}

TEST(TreeEnsemble, DoubleInputGivesDoubleOutput) {
  auto out = one_tree().input(Tensor::from_data<double>({1, 2}, {0.9, 1})).run();
  EXPECT_EQ(out[0].dtype(), DataType::Float64);
  EXPECT_EQ(out[0].to_vector<double>(), (std::vector<double>{10, 0}));
}

TEST(TreeEnsemble, BadModels) {
  // Too few features for the trees.
  EXPECT_THROW(one_tree().input(f32({1, 1}, {0})).run(), Error);
  // A cycle: node 0's true branch leads back to node 0.
  EXPECT_THROW(one_tree(1, 0, {0, 1}, {0, 2}).input(kTreeRows).run(), Error);
  // A leaf index out of range.
  EXPECT_THROW(one_tree(1, 0, {1, 1}, {7, 2}).input(kTreeRows).run(), Error);
}

TEST(TreeEnsemble, FeatureIdAtTheTopOfTheRange) {
  // Feature INT64_MAX overflowed the feature count, which then passed X's width check and the
  // walk read far outside X.
  EXPECT_THROW(ml_op("TreeEnsemble", 5)
                   .attr("nodes_featureids", std::vector<int64_t>{INT64_MAX})
                   .attr("nodes_splits", f32({1}, {0.5f}))
                   .attr("nodes_modes", Tensor::from_data<uint8_t>({1}, {0}))
                   .attr("nodes_truenodeids", std::vector<int64_t>{0})
                   .attr("nodes_trueleafs", std::vector<int64_t>{1})
                   .attr("nodes_falsenodeids", std::vector<int64_t>{1})
                   .attr("nodes_falseleafs", std::vector<int64_t>{1})
                   .attr("leaf_targetids", std::vector<int64_t>{0, 0})
                   .attr("leaf_weights", f32({2}, {1, 2}))
                   .attr("tree_roots", std::vector<int64_t>{0})
                   .attr("n_targets", int64_t{1})
                   .input(f32({1, 2}, {0, 1}))
                   .run(),
               Error);
}

// --- ArrayFeatureExtractor and Binarizer -----------------------------------------------------

TEST(ArrayFeatureExtractor, PicksLastAxisColumns) {
  auto out = ml_op("ArrayFeatureExtractor")
                 .input(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
                 .input(i64({2}, {2, 0}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3, 1, 6, 4}));
  auto strings =
      ml_op("ArrayFeatureExtractor").input(str({3}, {"a", "b", "c"})).input(i64({1}, {1})).run();
  EXPECT_EQ(strings[0].shape(), (Shape{1, 1}));
  EXPECT_EQ(strings[0].to_vector<std::string>(), Strings{"b"});
  EXPECT_THROW(ml_op("ArrayFeatureExtractor").input(f32({3}, {1, 2, 3})).input(i64({1}, {3})).run(),
               Error);
}

TEST(Binarizer, ThresholdsEachElement) {
  auto out = ml_op("Binarizer").input(f32({4}, {-1, 0.5f, 2, kNaN})).attr("threshold", 0.5f).run();
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 0, 1, 0}));
  auto ints = ml_op("Binarizer").input(i64({3}, {-2, 0, 3})).run();
  EXPECT_EQ(ints[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 1}));
}

// --- Normalizer, Scaler, Imputer, FeatureVectorizer ------------------------------------------

TEST(Normalizer, MaxL1L2) {
  const Tensor x = f32({2, 2}, {3, -4, 0, 0});
  expect_near_all(ml_op("Normalizer").input(x).attr("norm", "MAX").run()[0], {0.75f, -1, 0, 0});
  expect_near_all(ml_op("Normalizer").input(x).attr("norm", "L1").run()[0],
                  {3.0f / 7, -4.0f / 7, 0, 0});
  expect_near_all(ml_op("Normalizer").input(x).attr("norm", "L2").run()[0], {0.6f, -0.8f, 0, 0});
  EXPECT_THROW(ml_op("Normalizer").input(x).attr("norm", "L3").run(), Error);
}

TEST(Scaler, PerColumnOffsetAndScale) {
  auto out = ml_op("Scaler")
                 .input(i64({2, 2}, {1, 2, 3, 4}))
                 .attr("offset", std::vector<float>{1, 2})
                 .attr("scale", std::vector<float>{2})
                 .run();
  EXPECT_EQ(out[0].dtype(), DataType::Float32);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 0, 4, 4}));
  EXPECT_THROW(
      ml_op("Scaler").input(f32({1, 2}, {1, 2})).attr("scale", std::vector<float>{1, 2, 3}).run(),
      Error);
}

TEST(Imputer, ReplacesNaNOrAValue) {
  auto nan = ml_op("Imputer")
                 .input(f32({2, 2}, {kNaN, 1, 2, kNaN}))
                 .attr("imputed_value_floats", std::vector<float>{7, 8})
                 .attr("replaced_value_float", kNaN)
                 .run();
  EXPECT_EQ(nan[0].to_vector<float>(), (std::vector<float>{7, 1, 2, 8}));
  auto ints = ml_op("Imputer")
                  .input(i64({3}, {0, -1, 5}))
                  .attr("imputed_value_int64s", std::vector<int64_t>{9})
                  .attr("replaced_value_int64", int64_t{-1})
                  .run();
  EXPECT_EQ(ints[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 9, 5}));
}

TEST(FeatureVectorizer, ConcatenatesCutsAndPads) {
  auto out = ml_op("FeatureVectorizer")
                 .input(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
                 .input(i64({2, 1}, {7, 8}))
                 .attr("inputdimensions", std::vector<int64_t>{2, 2})
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 4}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 2, 7, 0, 4, 5, 8, 0}));
  // Widths whose sum overflows int64.
  EXPECT_THROW(ml_op("FeatureVectorizer")
                   .input(f32({1, 1}, {1}))
                   .input(f32({1, 1}, {2}))
                   .attr("inputdimensions", std::vector<int64_t>{INT64_MAX, 2})
                   .run(),
               Error);
}

TEST(TreeEnsemble, HugeTargetCount) {
  // n_targets 2^62 asked for 2^62 scores per row from a one-node model.
  EXPECT_THROW(ml_op("TreeEnsemble", 5)
                   .attr("nodes_featureids", std::vector<int64_t>{0})
                   .attr("nodes_splits", f32({1}, {0.5f}))
                   .attr("nodes_modes", Tensor::from_data<uint8_t>({1}, {0}))
                   .attr("nodes_truenodeids", std::vector<int64_t>{0})
                   .attr("nodes_trueleafs", std::vector<int64_t>{1})
                   .attr("nodes_falsenodeids", std::vector<int64_t>{1})
                   .attr("nodes_falseleafs", std::vector<int64_t>{1})
                   .attr("leaf_targetids", std::vector<int64_t>{0, 0})
                   .attr("leaf_weights", f32({2}, {1, 2}))
                   .attr("tree_roots", std::vector<int64_t>{0})
                   .attr("n_targets", int64_t{1} << 62)
                   .input(f32({1, 1}, {0}))
                   .run(),
               Error);
}

// --- TreeEnsembleRegressor and TreeEnsembleClassifier ----------------------------------------

// Tree 0: x0 <= 0.5 ? node 1 : node 2 (both leaves); tree 1: a single leaf (node 0). The
// weights go to the leaves (w_trees[k], w_nodes[k]).
OpTest legacy_trees(const std::string& op, const std::string& prefix, std::vector<int64_t> w_trees,
                    std::vector<int64_t> w_nodes, std::vector<int64_t> ids,
                    std::vector<float> weights, std::vector<int64_t> false_ids = {2, 0, 0, 0}) {
  OpTest t = ml_op(op, 3);
  t.attr("nodes_treeids", std::vector<int64_t>{0, 0, 0, 1})
      .attr("nodes_nodeids", std::vector<int64_t>{0, 1, 2, 0})
      .attr("nodes_featureids", std::vector<int64_t>{0, 0, 0, 0})
      .attr("nodes_modes", Strings{"BRANCH_LEQ", "LEAF", "LEAF", "LEAF"})
      .attr("nodes_values", std::vector<float>{0.5f, 0, 0, 0})
      .attr("nodes_truenodeids", std::vector<int64_t>{1, 0, 0, 0})
      .attr("nodes_falsenodeids", false_ids)
      .attr(prefix + "_treeids", w_trees)
      .attr(prefix + "_nodeids", w_nodes)
      .attr(prefix + "_ids", ids)
      .attr(prefix + "_weights", weights);
  return t;
}

TEST(TreeEnsembleRegressor, SumAverageAndBaseValues) {
  const Tensor x = f32({3, 1}, {0.2f, 0.9f, kNaN});
  auto make = [](const std::string& aggregate) {
    // The third weight belongs to tree 1's leaf.
    OpTest t = legacy_trees("TreeEnsembleRegressor", "target", {0, 0, 1}, {1, 2, 0}, {0, 0, 0},
                            {1, 2, 10});
    t.attr("n_targets", int64_t{1}).attr("aggregate_function", aggregate);
    return t;
  };
  // NaN takes the false branch (missing values do not track true here).
  EXPECT_EQ(make("SUM").input(x).run()[0].to_vector<float>(), (std::vector<float>{11, 12, 12}));
  EXPECT_EQ(make("AVERAGE").input(x).run()[0].to_vector<float>(), (std::vector<float>{5.5f, 6, 6}));
  EXPECT_EQ(make("MAX").input(x).run()[0].to_vector<float>(), (std::vector<float>{10, 10, 10}));
  auto based = make("SUM").attr("base_values", std::vector<float>{1}).input(x).run();
  EXPECT_EQ(based[0].shape(), (Shape{3, 1}));
  EXPECT_EQ(based[0].to_vector<float>(), (std::vector<float>{12, 13, 13}));
}

TEST(TreeEnsembleRegressor, RejectsUnknownChild) {
  OpTest t =
      legacy_trees("TreeEnsembleRegressor", "target", {0, 0}, {1, 2}, {0, 0}, {1, 2}, {9, 0, 0, 0});
  t.input(f32({1, 1}, {0}));
  EXPECT_THROW(t.run(), Error);
}

TEST(TreeEnsembleClassifier, BinaryLogistic) {
  OpTest t = legacy_trees("TreeEnsembleClassifier", "class", {0, 0}, {1, 2}, {0, 0}, {-1, 2});
  auto out = t.attr("classlabels_int64s", std::vector<int64_t>{0, 1})
                 .attr("post_transform", "LOGISTIC")
                 .outputs(2)
                 .input(f32({2, 1}, {0.2f, 0.9f}))
                 .run();
  EXPECT_EQ(out[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  const auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
  expect_near_all(out[1], {sigmoid(1), sigmoid(-1), sigmoid(-2), sigmoid(2)});
}

TEST(TreeEnsembleClassifier, MultiClassStrings) {
  OpTest t = legacy_trees("TreeEnsembleClassifier", "class", {0, 0, 0}, {1, 2, 2}, {2, 1, 0},
                          {1, 1, 0.5f});
  auto out = t.attr("classlabels_strings", Strings{"a", "b", "c"})
                 .outputs(2)
                 .input(f32({2, 1}, {0.2f, 0.9f}))
                 .run();
  EXPECT_EQ(out[0].to_vector<std::string>(), (Strings{"c", "b"}));
  EXPECT_EQ(out[1].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{0, 0, 1, 0.5f, 1, 0}));
}

// --- LinearRegressor and LinearClassifier ----------------------------------------------------

TEST(LinearRegressor, TwoTargets) {
  auto out = ml_op("LinearRegressor")
                 .input(f32({2, 2}, {1, 1, 0, 2}))
                 .attr("coefficients", std::vector<float>{1, 2, 3, 4})
                 .attr("intercepts", std::vector<float>{0.5f, -1})
                 .attr("targets", int64_t{2})
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3.5f, 6, 4.5f, 7}));
  EXPECT_THROW(ml_op("LinearRegressor")
                   .input(f32({1, 3}, {1, 1, 1}))
                   .attr("coefficients", std::vector<float>{1, 2})
                   .run(),
               Error);
}

TEST(LinearClassifier, BinaryAndMultiClass) {
  auto binary = ml_op("LinearClassifier")
                    .outputs(2)
                    .input(f32({2, 2}, {2, 1, 0, 3}))
                    .attr("coefficients", std::vector<float>{1, -1})
                    .attr("intercepts", std::vector<float>{0})
                    .attr("classlabels_ints", std::vector<int64_t>{0, 1})
                    .run();
  EXPECT_EQ(binary[0].to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(binary[1].to_vector<float>(), (std::vector<float>{-1, 1, 3, -3}));
  auto multi = ml_op("LinearClassifier")
                   .outputs(2)
                   .input(f32({1, 1}, {2}))
                   .attr("coefficients", std::vector<float>{1, 0, -1})
                   .attr("classlabels_strings", Strings{"x", "y", "z"})
                   .attr("post_transform", "SOFTMAX")
                   .run();
  EXPECT_EQ(multi[0].to_vector<std::string>(), Strings{"x"});
  const float e2 = std::exp(2.0f), e0 = 1, em2 = std::exp(-2.0f), sum = e2 + e0 + em2;
  expect_near_all(multi[1], {e2 / sum, e0 / sum, em2 / sum});
}

// --- OneHotEncoder and CategoryMapper --------------------------------------------------------

TEST(OneHotEncoder, IntsAndStrings) {
  auto out = ml_op("OneHotEncoder")
                 .input(i64({2, 2}, {1, 5, 3, 7}))
                 .attr("cats_int64s", std::vector<int64_t>{1, 3, 5})
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}));
  auto s = ml_op("OneHotEncoder")
               .input(str({2}, {"b", "a"}))
               .attr("cats_strings", Strings{"a", "b"})
               .run();
  EXPECT_EQ(s[0].to_vector<float>(), (std::vector<float>{0, 1, 1, 0}));
  EXPECT_THROW(ml_op("OneHotEncoder")
                   .input(i64({1}, {7}))
                   .attr("cats_int64s", std::vector<int64_t>{1})
                   .attr("zeros", int64_t{0})
                   .run(),
               Error);
}

TEST(CategoryMapper, BothDirections) {
  auto to_int = ml_op("CategoryMapper")
                    .input(str({3}, {"b", "a", "q"}))
                    .attr("cats_strings", Strings{"a", "b"})
                    .attr("cats_int64s", std::vector<int64_t>{10, 20})
                    .run();
  EXPECT_EQ(to_int[0].to_vector<int64_t>(), (std::vector<int64_t>{20, 10, -1}));
  auto to_str = ml_op("CategoryMapper")
                    .input(i64({2}, {10, 3}))
                    .attr("cats_strings", Strings{"a", "b"})
                    .attr("cats_int64s", std::vector<int64_t>{10, 20})
                    .attr("default_string", "?")
                    .run();
  EXPECT_EQ(to_str[0].to_vector<std::string>(), (Strings{"a", "?"}));
}

}  // namespace
}  // namespace kiln::testing
