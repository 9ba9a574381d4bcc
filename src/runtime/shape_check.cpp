#include "runtime/shape_check.h"

#include <string>

namespace kiln {
namespace {

// Whether `actual` is what `predicted` says; symbolic and unknown dims match any extent.
bool matches(const ValueInfo& predicted, const Tensor& actual) {
  if (predicted.kind != ValueInfo::Kind::Tensor || actual.kind() != ValueKind::Tensor) return true;
  if (predicted.dtype != DataType::Undefined && predicted.dtype != actual.dtype()) return false;
  if (!predicted.has_shape) return true;
  if (predicted.shape.size() != actual.rank()) return false;
  for (size_t d = 0; d < actual.rank(); ++d) {
    const Dim& dim = predicted.shape[d];
    if (dim.is_fixed() && dim.value != actual.shape()[d]) return false;
  }
  return true;
}

}  // namespace

std::vector<std::optional<ValueInfo>> predicted_outputs(const ir::Graph& graph,
                                                        const ir::Node& node) {
  // value_infos holds what inference made of every value, graph outputs included, while
  // graph.outputs keeps the file's declarations: the check is against inference.
  std::vector<std::optional<ValueInfo>> predicted;
  for (const std::string& name : node.outputs) {
    std::optional<ValueInfo> found;
    for (const ValueInfo& v : graph.value_infos) {
      if (!name.empty() && v.name == name) found = v;
    }
    predicted.push_back(std::move(found));
  }
  return predicted;
}

CpuKernel with_shape_check(CpuKernel kernel, std::vector<std::optional<ValueInfo>> predicted) {
  return [kernel = std::move(kernel), predicted = std::move(predicted)](OpContext& ctx) {
    kernel(ctx);
    for (size_t i = 0; i < predicted.size() && i < ctx.num_outputs(); ++i) {
      if (!predicted[i] || !ctx.wants_output(i) || !ctx.output(i).defined()) continue;
      const Tensor& actual = ctx.output(i);
      if (!matches(*predicted[i], actual)) {
        ctx.fail("output " + std::to_string(i) + " ('" + ctx.node().outputs[i] + "') is " +
                 std::string(dtype_name(actual.dtype())) + actual.shape().to_string() +
                 " but shape inference predicted " + predicted[i]->to_string());
      }
    }
  };
}

}  // namespace kiln
