#include "backends/gpu_common/op_table_kernel.h"

namespace kiln {

bool may_run_on_device(const DevicePlacementQuery& query, std::string& reason) {
  if (query.output_on_cpu) {
    reason = "its output decides shapes, so it stays on the CPU";
    return false;
  }
  return true;
}

}  // namespace kiln
