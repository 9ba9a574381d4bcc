// Helpers every device backend shares (kernels/device_backend.h).
#include <algorithm>
#include <mutex>
#include <string>

#include "core/log.h"
#include "kernels/device_backend.h"

namespace kiln {
namespace {

std::mutex fallbacks_mutex;
RunTimeFallbacks fallbacks;  // guarded by fallbacks_mutex

}  // namespace

RunTimeFallbacks run_time_fallbacks() {
  std::lock_guard lock(fallbacks_mutex);
  return fallbacks;
}

void note_run_time_fallback(const std::string& reason) {
  {
    std::lock_guard lock(fallbacks_mutex);
    ++fallbacks.count;
    fallbacks.last_reason = reason;
  }
  log_once(
      LogLevel::Warn, "run-time fallback:" + reason,
      "a GPU node ran on the CPU for this run, its inputs downloaded (a slow path): " + reason);
}

int64_t non_negative_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) throw RunOnCpu("axis out of range");
  return axis < 0 ? axis + rank : axis;
}

std::optional<size_t> input_outside_dtypes(const DevicePlacementQuery& query,
                                           std::span<const DataType> allowed, size_t first,
                                           size_t count) {
  for (size_t k = first; k < query.input_types.size() && k - first < count; ++k) {
    if (!query.info.has_input(k)) continue;
    const DataType t = query.input_types[k];
    if (t == DataType::Undefined) {
      query.deferred_dtype_checks.emplace_back(
          k, std::vector<DataType>(allowed.begin(), allowed.end()));
    } else if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
      return k;
    }
  }
  return std::nullopt;
}

bool every_input_present(const NodeInfo& info, std::string& reason) {
  if (info.num_inputs() == 0) {
    reason = "no inputs";
    return false;
  }
  for (size_t k = 0; k < info.num_inputs(); ++k) {
    if (!info.has_input(k)) {
      reason = "input " + std::to_string(k) + " is missing";
      return false;
    }
  }
  return true;
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
