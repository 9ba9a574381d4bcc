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
#include "kernels/op_context.h"
#include "kiln/tensor.h"
#include "opdefs/node_info.h"
#include "opdefs/op_families.h"

namespace kiln {

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

  // The family whose registrations follow (called by the generated register_all_ops).
  void begin_family(std::string family) { families_.begin_family(std::move(family)); }
  // kiln::Error when the op is registered already (by this family or another).
  void add(const std::string& op_type, KernelFactory factory) {
    add("", op_type, std::move(factory));
  }
  void add(const std::string& domain, const std::string& op_type, KernelFactory factory);
  const OpSchema* find(const std::string& domain, const std::string& op_type) const;
  std::vector<std::string> op_names() const;  // "Relu", "ai.onnx.ml::LabelEncoder"

 private:
  std::map<std::pair<std::string, std::string>, OpSchema> ops_;
  OpFamilies families_;
};

}  // namespace kiln
