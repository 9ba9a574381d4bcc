// Small helpers the passes share for reading and rewriting a graph.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::passes {

// Every value name some node reads, directly or from inside a subgraph, plus graph outputs.
std::set<std::string> used_values(const ir::Graph& graph);
// Replaces reads of `from` by `to` in the graph's nodes (not in subgraphs).
void rename_reads(ir::Graph& graph, const std::string& from, const std::string& to);
bool is_graph_output(const ir::Graph& graph, const std::string& value);
bool has_subgraph(const ir::Node& node);

// An ai.onnx node of this type.
bool is_op(const ir::Node& node, const char* op_type);
// Whether the value is known to be float32.
bool is_float32(const ir::Graph& graph, const std::string& value);
// Whether both values have known, equal shapes: every axis fixed or named by a symbol, so equal
// means equal at run time.
bool same_known_shape(const ir::Graph& graph, const std::string& a, const std::string& b);

// Reads of each value by the graph's nodes: (node index, input slot). A value read from a
// subgraph or as a graph output gets the kOutsideReader sentinel, so it never counts as read
// once: fusions keep it.
using Readers = std::map<std::string, std::vector<size_t>>;
inline constexpr size_t kOutsideReader = static_cast<size_t>(-1);
Readers find_readers(const ir::Graph& graph);
// The node that produces each value, by index.
using Producers = std::map<std::string, size_t>;
Producers find_producers(const ir::Graph& graph);
// The one node that reads `value` (once), or nullopt.
std::optional<size_t> only_reader(const Readers& readers, const std::string& value);
// The node that alone reads `value`, when it is the ai.onnx op `op_type` with `inputs` inputs
// and one output.
std::optional<size_t> only_reader_op(const ir::Graph& graph, const Readers& readers,
                                     const std::string& value, const char* op_type, size_t inputs);
// Whether every read of `value` is by one of `nodes` (no subgraph, no graph output).
bool read_only_by(const Readers& readers, const std::string& value,
                  const std::vector<size_t>& nodes);
// The other operand of a two-input, one-output node that reads `value`, or nullopt.
std::optional<std::string> other_operand(const ir::Node& node, const std::string& value);

// The float32 initializer `name`, or nullptr.
const Tensor* float32_constant(const ir::Graph& graph, const std::string& name);
// The value of a float32 initializer of one element, or nullopt.
std::optional<float> float32_scalar(const ir::Graph& graph, const std::string& name);
// Whether `name` is a float32 constant of one element within float rounding of `value`.
bool is_scalar(const ir::Graph& graph, const std::string& name, double value);

// Attributes of the nodes a pass makes.
// The node a fusion puts in place of its chain: `op_type` of `domain`, named `name` (the chain's
// first node's), reading `inputs` (trailing empty ones dropped) and writing `output`.
ir::Node fused_node(const std::string& name, const std::string& domain, const std::string& op_type,
                    std::vector<std::string> inputs, const std::string& output);

ir::Attribute int_attribute(const std::string& name, int64_t value);
ir::Attribute float_attribute(const std::string& name, float value);
ir::Attribute ints_attribute(const std::string& name, std::vector<int64_t> values);
ir::Attribute string_attribute(const std::string& name, const std::string& value);

// Rewrites chains of nodes into single nodes: each fused node takes the place of its chain's
// last node (after every value the chain reads); the chain's other nodes go.
class ChainFusion {
 public:
  explicit ChainFusion(const ir::Graph& graph) : removed_(graph.nodes.size(), false) {}
  // Whether no node of `chain` is taken by an earlier fusion.
  bool free(const std::vector<size_t>& chain) const;
  void fuse(const std::vector<size_t>& chain, ir::Node fused);
  // Applies the fusions to the graph the object was made for.
  void apply(ir::Graph& graph);

 private:
  std::vector<bool> removed_;
  std::map<size_t, ir::Node> replacement_;  // at the chain's last node
};

}  // namespace kiln::passes
