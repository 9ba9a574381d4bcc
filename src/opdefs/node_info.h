// NodeInfo: one node as its definition reads it at load time: the node, the opset in force for
// its domain, and the inputs whose values are already known. Attribute getters check types and
// name the node in their errors, so every definition parses attributes the same way.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kiln/tensor.h"

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

}  // namespace kiln
