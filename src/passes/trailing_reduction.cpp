#include "passes/trailing_reduction.h"

#include <algorithm>

#include "opdefs/reduce.h"

namespace kiln::passes {

std::optional<int64_t> known_rank(const ir::Graph& graph, const std::string& value) {
  const ValueInfo* info = graph.find_value_info(value);
  if (!info || !info->has_shape) return std::nullopt;
  return static_cast<int64_t>(info->shape.size());
}

namespace {

// The node's Int attribute `name`, or `fallback` without one.
int64_t int_attribute_or(const ir::Node& node, const char* name, int64_t fallback) {
  const ir::Attribute* a = node.find_attribute(name);
  return a && a->type == ir::Attribute::Type::Int ? a->i : fallback;
}

// The node's axes, or nullopt when they are not known at load time (a computed axes input).
// An empty list: none given.
std::optional<std::vector<int64_t>> reduction_axes(const ir::Graph& graph, const ir::Node& node,
                                                   ReduceOp op, int opset) {
  if (opset < reduce_axes_input_opset(op)) {
    const ir::Attribute* a = node.find_attribute("axes");
    if (!a) return std::vector<int64_t>{};
    if (a->type != ir::Attribute::Type::Ints) return std::nullopt;
    return a->ints;
  }
  if (node.inputs.size() < 2 || node.inputs[1].empty()) return std::vector<int64_t>{};
  auto it = graph.initializers.find(node.inputs[1]);
  if (it == graph.initializers.end() || it->second.dtype() != DataType::Int64 ||
      it->second.rank() > 1)
    return std::nullopt;
  const int64_t* p = it->second.data<int64_t>();
  return std::vector<int64_t>(p, p + it->second.element_count());
}

}  // namespace

std::optional<int64_t> trailing_reduction(const ir::Graph& graph, const ir::Node& reduce, int opset,
                                          std::optional<int64_t> rank) {
  const std::optional<ReduceOp> op = reduce_op_named(reduce.op_type);
  if (!reduce.domain.empty() || !op || reduce.inputs.empty() || reduce.outputs.size() != 1 ||
      int_attribute_or(reduce, "keepdims", 1) != 1)
    return std::nullopt;
  std::optional<std::vector<int64_t>> axes = reduction_axes(graph, reduce, *op, opset);
  if (!axes) return std::nullopt;
  if (axes->empty()) {  // every axis, or none at all
    if (!rank || *rank < 1 || int_attribute_or(reduce, "noop_with_empty_axes", 0) != 0)
      return std::nullopt;
    return *rank;
  }
  // As negative axes, sorted, they must be -k, ..., -1.
  for (int64_t& a : *axes) {
    if (a >= 0) {
      if (!rank || a >= *rank) return std::nullopt;
      a -= *rank;
    } else if (rank && a < -*rank) {
      return std::nullopt;
    }
  }
  std::sort(axes->begin(), axes->end());
  const int64_t k = static_cast<int64_t>(axes->size());
  for (int64_t i = 0; i < k; ++i) {
    if ((*axes)[i] != i - k) return std::nullopt;
  }
  return k;
}

}  // namespace kiln::passes
