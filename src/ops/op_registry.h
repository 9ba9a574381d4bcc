// The operator registry: for each (domain, op type), a factory that parses a node's attributes
// once at load time and returns the CPU kernel that runs it.
//
// Adding an op (see docs/adding-an-op.md): write its factory in the family file under src/ops/,
// register it in that file's register_*_ops function, and add tests.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kiln/tensor.h"
#include "ops/op_context.h"

namespace kiln {

// What a kernel factory may look at: the node, the opset in force for its domain, and the
// inputs whose values are known at load time (initializers and folded constants).
class NodeInfo {
 public:
  NodeInfo(const ir::Node& node, int opset, std::vector<const Tensor*> constant_inputs = {},
           const std::map<std::string, int>* model_opsets = nullptr)
      : node_(node),
        opset_(opset),
        constants_(std::move(constant_inputs)),
        model_opsets_(model_opsets) {}

  const ir::Node& node() const { return node_; }
  const std::string& op_type() const { return node_.op_type; }
  int opset() const { return opset_; }
  // Every domain's opset in the model: what a subgraph attribute (If's branches, Loop's body)
  // is compiled with. Just this node's domain when the caller did not give them.
  std::map<std::string, int> model_opsets() const;
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  bool has_output(size_t i) const { return i < node_.outputs.size() && !node_.outputs[i].empty(); }
  // The load-time value of input i, or nullptr when it is only known at run time.
  const Tensor* constant_input(size_t i) const {
    return i < constants_.size() ? constants_[i] : nullptr;
  }

  // Attribute getters: the default when absent; kiln::Error naming node, attribute and the
  // expected type when present with another type.
  bool has_attr(const std::string& name) const { return node_.find_attribute(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t default_value) const;
  float attr_float(const std::string& name, float default_value) const;
  std::string attr_string(const std::string& name, const std::string& default_value) const;
  std::vector<int64_t> attr_ints(const std::string& name,
                                 std::vector<int64_t> default_value = {}) const;
  std::vector<float> attr_floats(const std::string& name,
                                 std::vector<float> default_value = {}) const;
  std::vector<std::string> attr_strings(const std::string& name,
                                        std::vector<std::string> default_value = {}) const;
  std::optional<Tensor> attr_tensor(const std::string& name) const;
  const ir::Attribute* attr(const std::string& name) const { return node_.find_attribute(name); }
  // Required attributes: kiln::Error when absent.
  int64_t required_int(const std::string& name) const;
  std::vector<int64_t> required_ints(const std::string& name) const;

  // kiln::Error("<node description>: <message>")
  [[noreturn]] void fail(const std::string& message) const;
  std::string describe() const { return node_.describe(); }

 private:
  const ir::Attribute* typed_attr(const std::string& name, ir::Attribute::Type type) const;
  const ir::Node& node_;
  int opset_;
  std::vector<const Tensor*> constants_;
  const std::map<std::string, int>* model_opsets_;
};

// Runs one node. Must be safe to call concurrently from several executions: keep per-run
// state on the stack or in the context, never in captured variables.
using CpuKernel = std::function<void(OpContext&)>;
using KernelFactory = std::function<CpuKernel(const NodeInfo&)>;

struct OpSchema {
  std::string domain;
  std::string op_type;
  KernelFactory factory;
  int min_opset = 1;  // earliest opset this registration handles
};

class OpRegistry {
 public:
  static OpRegistry& global();  // every built-in op, registered on first use

  void add(const std::string& op_type, KernelFactory factory) {
    add("", op_type, std::move(factory));
  }
  void add(const std::string& domain, const std::string& op_type, KernelFactory factory);
  const OpSchema* find(const std::string& domain, const std::string& op_type) const;
  std::vector<std::string> op_names() const;  // "Relu", "ai.onnx.ml::LabelEncoder"

 private:
  std::map<std::pair<std::string, std::string>, OpSchema> ops_;
};

}  // namespace kiln
