// Tests of the unary op parameters the GPU backends read from ONNX nodes at load time.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "backends/gpu_common/device_unary_op.h"
#include "kiln/kiln.h"
#include "passes/graph_rewrite.h"

namespace kiln {
namespace {

ir::Node node_of(const std::string& op_type, std::vector<std::string> inputs,
                 std::vector<ir::Attribute> attributes = {}) {
  ir::Node node;
  node.op_type = op_type;
  node.inputs = std::move(inputs);
  node.outputs = {"y"};
  node.attributes = std::move(attributes);
  return node;
}

TEST(DeviceUnaryOp, ActivationsTakeTheirAttributesOrOnnxDefaults) {
  std::string reason;
  const ir::Node leaky = node_of("LeakyRelu", {"x"});
  const auto leaky_params = unary_params(NodeInfo(leaky, 16), reason);
  ASSERT_TRUE(leaky_params);
  EXPECT_EQ(leaky_params->op, UnaryOp::LeakyRelu);
  EXPECT_FLOAT_EQ(leaky_params->alpha, 0.01f);

  const ir::Node hard_sigmoid =
      node_of("HardSigmoid", {"x"},
              {passes::float_attribute("alpha", 0.5f), passes::float_attribute("beta", 0.25f)});
  const auto hard_sigmoid_params = unary_params(NodeInfo(hard_sigmoid, 6), reason);
  ASSERT_TRUE(hard_sigmoid_params);
  EXPECT_EQ(hard_sigmoid_params->op, UnaryOp::HardSigmoid);
  EXPECT_FLOAT_EQ(hard_sigmoid_params->alpha, 0.5f);
  EXPECT_FLOAT_EQ(hard_sigmoid_params->beta, 0.25f);

  const ir::Node gelu = node_of("Gelu", {"x"}, {passes::string_attribute("approximate", "tanh")});
  const auto gelu_params = unary_params(NodeInfo(gelu, 20), reason);
  ASSERT_TRUE(gelu_params);
  EXPECT_EQ(gelu_params->op, UnaryOp::GeluTanh);
}

TEST(DeviceUnaryOp, ClipBoundsComeFromAttributesThenConstantInputs) {
  std::string reason;
  const ir::Node old_clip = node_of("Clip", {"x"}, {passes::float_attribute("min", -1.0f)});
  const auto old_params = unary_params(NodeInfo(old_clip, 6), reason);
  ASSERT_TRUE(old_params);
  EXPECT_EQ(old_params->op, UnaryOp::Clip);
  EXPECT_FLOAT_EQ(old_params->alpha, -1.0f);
  EXPECT_EQ(old_params->beta, std::numeric_limits<float>::infinity());

  const Tensor max = Tensor::from_data<float>(Shape{}, {6.0f});
  const ir::Node clip = node_of("Clip", {"x", "", "max"});
  const auto params = unary_params(NodeInfo(clip, 13, {nullptr, nullptr, &max}), reason);
  ASSERT_TRUE(params);
  EXPECT_EQ(params->alpha, -std::numeric_limits<float>::infinity());
  EXPECT_FLOAT_EQ(params->beta, 6.0f);

  // A bound computed at run time cannot become a load-time parameter.
  const ir::Node computed = node_of("Clip", {"x", "min"});
  EXPECT_FALSE(unary_params(NodeInfo(computed, 13, {nullptr, nullptr}), reason));
  EXPECT_EQ(reason, "Clip bounds computed at run time");
}

// Every row of unary_ops.inc: its node type maps back to it, and the attributes it names are
// read into alpha and beta (Clip's only before opset 11).
TEST(DeviceUnaryOp, EveryRowReadsItsOwnAttributes) {
  for (const UnaryOpInfo& row : kUnaryOps) {
    if (!row.onnx_type) continue;
    std::vector<ir::Attribute> attrs;
    if (row.alpha_attr) attrs.push_back(passes::float_attribute(row.alpha_attr, 0.375f));
    if (row.beta_attr) attrs.push_back(passes::float_attribute(row.beta_attr, -2.5f));
    const ir::Node node = node_of(row.onnx_type, {"x"}, attrs);
    std::string reason;
    const auto params = unary_params(NodeInfo(node, row.op == UnaryOp::Clip ? 6 : 21), reason);
    ASSERT_TRUE(params) << row.name << ": " << reason;
    EXPECT_EQ(params->op, row.op) << row.name;
    EXPECT_STREQ(to_string(params->op), row.name);
    EXPECT_EQ(params->alpha, row.alpha_attr ? 0.375f : row.alpha_default) << row.name;
    EXPECT_EQ(params->beta, row.beta_attr ? -2.5f : row.beta_default) << row.name;
  }
  EXPECT_THROW(to_string(static_cast<UnaryOp>(kUnaryOpCount)), Error);
}

TEST(DeviceUnaryOp, OtherOpTypesAreReported) {
  std::string reason;
  const ir::Node add = node_of("Add", {"a", "b"});
  EXPECT_THROW(unary_params(NodeInfo(add, 14), reason), Error);
}

}  // namespace
}  // namespace kiln
