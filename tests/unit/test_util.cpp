#include "test_util.h"

#include <algorithm>

#include "runtime/kernel_hooks.h"

namespace kiln::testing {

OpTest::OpTest(std::string op_type, int opset, std::string domain) : opset_(opset) {
  node_.op_type = std::move(op_type);
  node_.domain = std::move(domain);
  node_.name = "node_under_test";
}

OpTest& OpTest::input(const Tensor& t) {
  inputs_.push_back(t);
  constant_.push_back(false);
  return *this;
}

OpTest& OpTest::outputs(int count) {
  outputs_ = count;
  return *this;
}

OpTest& OpTest::absent_output(int index) {
  absent_outputs_.push_back(index);
  return *this;
}

OpTest& OpTest::constant_input(size_t index) {
  constant_.at(index) = true;
  return *this;
}

namespace {
ir::Attribute named(const std::string& name, ir::Attribute::Type type) {
  ir::Attribute a;
  a.name = name;
  a.type = type;
  return a;
}
}  // namespace

OpTest& OpTest::attr(const std::string& name, int64_t value) {
  auto a = named(name, ir::Attribute::Type::Int);
  a.i = value;
  node_.attributes.push_back(a);
  return *this;
}
OpTest& OpTest::attr(const std::string& name, float value) {
  auto a = named(name, ir::Attribute::Type::Float);
  a.f = value;
  node_.attributes.push_back(a);
  return *this;
}
OpTest& OpTest::attr(const std::string& name, const std::string& value) {
  auto a = named(name, ir::Attribute::Type::String);
  a.s = value;
  node_.attributes.push_back(a);
  return *this;
}
OpTest& OpTest::attr(const std::string& name, const std::vector<int64_t>& value) {
  auto a = named(name, ir::Attribute::Type::Ints);
  a.ints = value;
  node_.attributes.push_back(a);
  return *this;
}
OpTest& OpTest::attr(const std::string& name, const std::vector<float>& value) {
  auto a = named(name, ir::Attribute::Type::Floats);
  a.floats = value;
  node_.attributes.push_back(a);
  return *this;
}
OpTest& OpTest::attr(const std::string& name, const std::vector<std::string>& value) {
  auto a = named(name, ir::Attribute::Type::Strings);
  a.strings = value;
  node_.attributes.push_back(a);
  return *this;
}
OpTest& OpTest::attr(const std::string& name, const Tensor& value) {
  auto a = named(name, ir::Attribute::Type::Tensor);
  a.t = value;
  node_.attributes.push_back(a);
  return *this;
}

OpTest& OpTest::attr(const std::string& name, std::shared_ptr<ir::Graph> subgraph) {
  auto a = named(name, ir::Attribute::Type::Graph);
  a.g = std::move(subgraph);
  node_.attributes.push_back(a);
  return *this;
}

Model OpTest::model() const {
  auto m = std::make_shared<ir::Model>();
  m->ir_version = 10;
  m->opsets[""] = opset_;
  if (!node_.domain.empty()) m->opsets[node_.domain] = node_.domain == "ai.onnx.ml" ? 5 : 1;
  m->path = "op test";
  ir::Node node = node_;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (!inputs_[i].defined()) {
      node.inputs.push_back("");
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    node.inputs.push_back(name);
    if (constant_[i]) {
      m->graph.initializers[name] = inputs_[i];
    } else {
      ValueInfo v;
      v.name = name;
      v.dtype = inputs_[i].dtype();
      if (inputs_[i].is_sequence()) v.kind = ValueInfo::Kind::Sequence;
      if (inputs_[i].is_optional()) v.kind = ValueInfo::Kind::Optional;
      // Declared with its shape, so that every op test is also a drift test of the op's shape
      // rule against its kernel (the worker runs with verify_shapes).
      if (v.kind == ValueInfo::Kind::Tensor) {
        v.has_shape = true;
        for (int64_t d : inputs_[i].shape()) v.shape.push_back(Dim{d, ""});
      }
      m->graph.inputs.push_back(v);
    }
  }
  for (int i = 0; i < outputs_; ++i) {
    if (std::ranges::find(absent_outputs_, i) != absent_outputs_.end()) {
      node.outputs.push_back("");
      continue;
    }
    node.outputs.push_back("out" + std::to_string(i));
    ValueInfo v;
    v.name = node.outputs.back();
    m->graph.outputs.push_back(v);
  }
  m->graph.nodes.push_back(node);
  prepare_model(*m, LoadOptions{.optimize = false});
  return Model(m);
}

std::vector<Tensor> OpTest::run(Backend backend) const {
  Worker worker(model(), backend, WorkerOptions{.verify_shapes = true});
  return run(worker);
}

std::vector<Tensor> OpTest::run(Worker& worker) const {
  // NamedTensor holds a string_view: the names must outlive the schedule call.
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs_.size(); ++i) names.push_back("in" + std::to_string(i));
  std::vector<NamedTensor> named;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].defined() && !constant_[i]) named.push_back({names[i], inputs_[i]});
  }
  worker.schedule(std::span<const NamedTensor>(named));
  std::vector<Tensor> out;
  for (const auto& name : worker.output_names())
    out.push_back(worker.peek_output(name).readback_and_clone());
  return out;
}

}  // namespace kiln::testing
