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

std::string_view to_string(RunTimeCause cause) {
  switch (cause) {
    case RunTimeCause::DeviceLimit:
      return "device limit";
    case RunTimeCause::ShapeOutsideKernel:
      return "shape outside the kernel";
    case RunTimeCause::InputValues:
      return "input values";
    case RunTimeCause::InputKind:
      return "input kind";
  }
  return "?";
}

void note_run_time_fallback(RunTimeCause cause, const std::string& reason) {
  const std::string described = std::string(to_string(cause)) + ": " + reason;
  {
    std::lock_guard lock(fallbacks_mutex);
    ++fallbacks.count;
    fallbacks.last_reason = described;
  }
  log_once(
      LogLevel::Warn, "run-time fallback:" + described,
      "a GPU node ran on the CPU for this run, its inputs downloaded (a slow path): " + described);
}

int64_t non_negative_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "axis out of range");
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

const Shape* static_input_shape(const DevicePlacementQuery& query, size_t k) {
  return k < query.input_shapes.size() && query.input_shapes[k] ? &*query.input_shapes[k] : nullptr;
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
