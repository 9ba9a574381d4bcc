#include "backends/gpu_common/op_table_kernel.h"

namespace kiln {

bool may_run_on_device(const DevicePlacementQuery& query, std::string& reason) {
  const ir::Node& node = query.info.node();
  if (!node.domain.empty() && node.domain != "ai.onnx") {
    reason = "no GPU kernel for domain " + node.domain;
    return false;
  }
  if (query.output_on_cpu) {
    reason = "its output decides shapes, so it stays on the CPU";
    return false;
  }
  return true;
}

}  // namespace kiln
