// An operator's one definition, read by every layer above: the load-time passes (shape inference,
// the CPU-residency analysis, constant folding), the CPU kernels and both GPU backends.
//
// A definition says what an op *is*, independent of any kernel:
//   - its output types and shapes, as far as the known input types and constant inputs decide
//     them (symbolic dims are kept by name);
//   - which inputs are read for their *contents* to decide shapes or indices, by opset (those
//     must be on the CPU for a GPU backend);
//   - whether its results differ between runs (random ops are never folded).
// Attribute parsing and the resolved "problem" a kernel takes live beside each family's
// definition (window.h, reduce.h, softmax.h, ...), so kernels and rules share one parser.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/model.h"
#include "opdefs/node_info.h"
#include "opdefs/op_families.h"

namespace kiln {

// What shape inference knows when it reaches a node: the node's attributes and constant inputs
// (through NodeInfo) and the types of its inputs, where known.
class InferenceContext {
 public:
  InferenceContext(const NodeInfo& info, std::vector<const ValueInfo*> inputs)
      : info_(info), inputs_(std::move(inputs)) {}

  const NodeInfo& info() const { return info_; }
  const ir::Node& node() const { return info_.node(); }
  int opset() const { return info_.opset(); }
  size_t num_inputs() const { return inputs_.size(); }
  // nullptr when the input is absent or its type is unknown.
  const ValueInfo* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  // The input's shape when its rank is known.
  const std::vector<Dim>* shape(size_t i) const;
  // A constant int32/int64 input's values; nullopt when it is not known at load time.
  std::optional<std::vector<int64_t>> constant_ints(size_t i) const;

 private:
  const NodeInfo& info_;
  std::vector<const ValueInfo*> inputs_;
};

// Output types, one per output (fewer is fine: the rest stay unknown). A rule may throw
// kiln::Error for a node its op rejects; inference then leaves the outputs unknown and the
// kernel reports the error at run time.
using ShapeRule = std::vector<ValueInfo> (*)(const InferenceContext&);

// Inputs read for their contents, from an opset on (many were attributes in early opsets).
struct ShapeInputs {
  int since_opset;
  std::vector<size_t> inputs;
};

struct OpDef {
  std::string domain;  // canonical: "" for ai.onnx
  std::string op_type;
  ShapeRule infer = nullptr;              // nullptr: outputs stay unknown
  std::vector<ShapeInputs> shape_inputs;  // oldest rule first
  bool nondeterministic = false;          // random ops: never folded into constants
  bool ends_shape_walk = false;           // reads only its input's shape (Shape, Size)

  // The inputs read for their contents at `opset`; empty when none are.
  const std::vector<size_t>& shape_deciding_inputs(int opset) const;
};

class OpDefs {
 public:
  static const OpDefs& global();  // every built-in definition

  // The family whose definitions follow (called by the generated define_all_ops).
  void begin_family(std::string family) { families_.begin_family(std::move(family)); }
  // Adds or extends the definition of (domain, op_type); returns it for chaining. A family may
  // extend its own definitions; kiln::Error when another family defined the op.
  OpDef& define(const std::string& domain, const std::string& op_type);
  OpDef& define(const std::string& op_type) { return define("", op_type); }
  const OpDef* find(const std::string& domain, const std::string& op_type) const;
  const OpDef* find(const ir::Node& node) const { return find(node.domain, node.op_type); }

 private:
  std::map<std::pair<std::string, std::string>, OpDef> defs_;
  OpFamilies families_;
};

// ---- helpers for shape rules ---------------------------------------------------------------

inline Dim fixed_dim(int64_t v) { return Dim{v, ""}; }
ValueInfo tensor_type(DataType dtype, std::vector<Dim> dims);
ValueInfo dtype_only(DataType dtype);
// The broadcast of two dims (numpy rules); an unknown dim when it cannot be told at load time.
Dim broadcast_dim(const Dim& a, const Dim& b);
// The multidirectional broadcast of inputs [first, end); nullopt when a rank is unknown.
std::optional<std::vector<Dim>> broadcast_shapes(const InferenceContext& ctx, size_t first);
// Rules shared by many ops.
std::vector<ValueInfo> same_as_input0(const InferenceContext& ctx);

// A family's op types and the enum that names them in kernels, looked up both ways.
template <class E, size_t N>
std::optional<E> find_op(const std::pair<const char*, E> (&table)[N], const std::string& op_type) {
  for (const auto& [name, op] : table) {
    if (op_type == name) return op;
  }
  return std::nullopt;
}
template <class E, size_t N>
const char* find_op_type(const std::pair<const char*, E> (&table)[N], E op) {
  for (const auto& [name, o] : table) {
    if (o == op) return name;
  }
  return "?";
}

}  // namespace kiln
