// Helpers every device backend shares (runtime/device_backend.h).
#include <algorithm>

#include "runtime/device_backend.h"

namespace kiln {

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
