// Deeply nested subgraphs: up to kiln's documented limit they load and run; past it the error
// says so, rather than protobuf's "truncated or corrupt".
#include <gtest/gtest.h>

#include "kiln/kiln.h"
#include "onnx/onnx.pb.h"

using namespace kiln;

namespace {

void float_output(onnx::ValueInfoProto* v, const std::string& name) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(1);
}

// A graph whose output "y<level>" is `value` as a one-element float tensor.
void constant_graph(onnx::GraphProto* g, const std::string& name, float value) {
  g->set_name(name);
  auto* n = g->add_node();
  n->set_op_type("Constant");
  n->add_output(name + "_y");
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_float_data(value);
  float_output(g->add_output(), name + "_y");
}

// y = If(c) nested `depth` times in the then-branches; the innermost then-branch gives
// `depth`, every else-branch gives -1.
std::string nested_if_model(int depth) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  auto* c = g->add_input();
  c->set_name("c");
  c->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
  c->mutable_type()->mutable_tensor_type()->mutable_shape();
  std::string out = "y";
  float_output(g->add_output(), out);
  for (int level = 1; level <= depth; ++level) {
    auto* n = g->add_node();
    n->set_op_type("If");
    n->set_name("if" + std::to_string(level));
    n->add_input("c");
    n->add_output(out);
    auto* else_branch = n->add_attribute();
    else_branch->set_name("else_branch");
    else_branch->set_type(onnx::AttributeProto::GRAPH);
    constant_graph(else_branch->mutable_g(), "else" + std::to_string(level), -1);
    auto* then_branch = n->add_attribute();
    then_branch->set_name("then_branch");
    then_branch->set_type(onnx::AttributeProto::GRAPH);
    g = then_branch->mutable_g();
    if (level == depth) {
      constant_graph(g, "then" + std::to_string(level), static_cast<float>(depth));
    } else {
      g->set_name("then" + std::to_string(level));
      out = "then" + std::to_string(level) + "_y";
      float_output(g->add_output(), out);
    }
  }
  return m.SerializeAsString();
}

std::string load_error(const std::string& bytes) {
  try {
    load_model_from_bytes(bytes.data(), bytes.size());
  } catch (const Error& e) {
    return e.what();
  }
  return "loaded";
}

}  // namespace

TEST(Nesting, FiftyNestedIfsLoadAndRun) {
  const std::string bytes = nested_if_model(50);
  Model model = load_model_from_bytes(bytes.data(), bytes.size());
  Worker worker(model);
  worker.schedule({{"c", Tensor::scalar(true)}});
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(),
            std::vector<float>{50});
  worker.schedule({{"c", Tensor::scalar(false)}});
  EXPECT_EQ(worker.peek_output("y").readback_and_clone().to_vector<float>(),
            std::vector<float>{-1});
}

TEST(Nesting, TheLimitItselfLoads) { EXPECT_EQ(load_error(nested_if_model(64)), "loaded"); }

TEST(Nesting, DeeperThanTheLimitIsRefusedByName) {
  for (int depth : {65, 200, 5000}) {
    const std::string message = load_error(nested_if_model(depth));
    EXPECT_NE(message.find("subgraphs nested deeper than 64"), std::string::npos)
        << depth << ": " << message;
    EXPECT_NE(message.find(std::to_string(depth) + " levels"), std::string::npos) << message;
  }
}
