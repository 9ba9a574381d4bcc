// Builds small multi-node models in tests without writing ONNX files.
//
//   GraphBuilder b;
//   b.input("x", DataType::Float32, {2, 3});
//   b.node("Relu", {"x"}, {"y"});
//   b.output("y");
//   kiln::Model model = b.build();
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kiln/kiln.h"
#include "runtime/kernel_hooks.h"

namespace kiln::testing {

class GraphBuilder {
 public:
  explicit GraphBuilder(int opset = 21) : model_(std::make_shared<ir::Model>()) {
    model_->ir_version = 10;
    model_->opsets[""] = opset;
    model_->opsets["kiln.test"] = 1;
    model_->path = "test model";
  }

  GraphBuilder& input(const std::string& name, DataType dtype, std::vector<int64_t> dims) {
    ValueInfo v;
    v.name = name;
    v.dtype = dtype;
    v.has_shape = true;
    for (int64_t d : dims) v.shape.push_back(Dim{d, ""});
    model_->graph.inputs.push_back(v);
    return *this;
  }
  // An input whose dims are named symbols (empty string: fixed by `dims` instead).
  GraphBuilder& symbolic_input(const std::string& name, DataType dtype,
                               std::vector<std::string> dims) {
    ValueInfo v;
    v.name = name;
    v.dtype = dtype;
    v.has_shape = true;
    for (const auto& d : dims) v.shape.push_back(Dim{-1, d});
    model_->graph.inputs.push_back(v);
    return *this;
  }
  GraphBuilder& initializer(const std::string& name, const Tensor& value) {
    model_->graph.initializers[name] = value;
    return *this;
  }
  ir::Node& node(const std::string& op, std::vector<std::string> inputs,
                 std::vector<std::string> outputs, const std::string& domain = "") {
    ir::Node n;
    n.op_type = op;
    n.domain = domain;
    n.name = op + "_" + std::to_string(model_->graph.nodes.size());
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    model_->graph.nodes.push_back(n);
    return model_->graph.nodes.back();
  }
  GraphBuilder& output(const std::string& name) {
    ValueInfo v;
    v.name = name;
    model_->graph.outputs.push_back(v);
    return *this;
  }
  // Runs the load pipeline (optimizations on unless told otherwise).
  Model build(bool optimize = true) {
    prepare_model(*model_, LoadOptions{.optimize = optimize});
    return Model(model_);
  }
  ir::Model& ir() { return *model_; }

 private:
  std::shared_ptr<ir::Model> model_;
};

inline ir::Attribute int_attr(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Int;
  a.i = v;
  return a;
}

inline ir::Attribute ints_attr(const std::string& name, std::vector<int64_t> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::Ints;
  a.ints = std::move(v);
  return a;
}

// Runs `model` once on the CPU and reads back one output.
inline Tensor run_one(Model model, const std::vector<NamedTensor>& inputs,
                      const std::string& output, const WorkerOptions& options = {}) {
  Worker worker(model, Backend::Cpu, options);
  worker.schedule(inputs);
  return worker.peek_output(output).readback_and_clone();
}

}  // namespace kiln::testing
