// Helpers every device backend shares (runtime/device_backend.h).
#include <algorithm>

#include "runtime/device_backend.h"

namespace kiln {

int64_t non_negative_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) throw RunOnCpu("axis out of range");
  return axis < 0 ? axis + rank : axis;
}

bool inputs_fit(std::span<const Tensor> inputs, const DeferredDtypeChecks& dtype_checks) {
  for (const Tensor& in : inputs) {
    if (in.defined() && in.kind() != ValueKind::Tensor) return false;
  }
  for (const auto& [k, allowed] : dtype_checks) {
    if (k >= inputs.size() || !inputs[k].defined()) continue;
    if (std::find(allowed.begin(), allowed.end(), inputs[k].dtype()) == allowed.end()) return false;
  }
  return true;
}

}  // namespace kiln
