// compile() and the kernel it makes, for a device backend whose ops live in a DeviceOpTable:
// the placement rules every such backend shares, then the op's own factory, and a kernel that
// runs the factory's recording. The backend supplies only what differs: how recording is opened
// around a node (a current GL context, the Vulkan command stream's lock) and any placement rule
// of its own.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "backends/gpu_common/device_op_table.h"
#include "kernels/device_backend.h"

namespace kiln {

// Runs `record` with a recorder for `run`, inside what recording needs on the backend. A
// RunOnCpu or kiln::Error from `record` passes through.
template <class Recorder>
using RecordSession =
    std::function<void(DeviceOpRun& run, const typename DeviceOpTable<Recorder>::RecordFn& record)>;

// A backend-wide placement rule, checked after the shared ones and before the op's factory;
// false with `reason` set when the node stays on the CPU.
using BackendPlacementRule =
    std::function<bool(const DevicePlacementQuery& query, std::string& reason)>;

template <class Recorder>
class OpTableKernel final : public DeviceKernel {
 public:
  using RecordFn = typename DeviceOpTable<Recorder>::RecordFn;

  OpTableKernel(RecordSession<Recorder> session, RecordFn record, DeferredDtypeChecks dtype_checks)
      : session_(std::move(session)),
        record_(std::move(record)),
        dtype_checks_(std::move(dtype_checks)) {}

  // False, and the node runs on the CPU for this run, when the run brings a run-time cause: the
  // kernel says so with RunOnCpu. Any kiln::Error is an error of the run, not a silent CPU rerun,
  // so a GPU kernel's bug shows.
  bool record(DeviceOpRun& run) override {
    if (!inputs_fit(run.inputs, dtype_checks_)) {
      note(RunTimeCause::InputKind, "inputs of a kind or dtype the kernel does not take");
      return false;
    }
    try {
      session_(run, record_);
    } catch (const RunOnCpu& e) {
      note(e.cause, e.what());
      return false;
    }
    return true;
  }

  RunTimeFallbackCount run_time_fallbacks() const override {
    std::lock_guard lock(mutex_);
    return fallbacks_;
  }

 private:
  void note(RunTimeCause cause, const std::string& reason) {
    note_run_time_fallback(cause, reason);
    std::lock_guard lock(mutex_);
    ++fallbacks_.runs;
    fallbacks_.last_cause = cause;
    fallbacks_.last_reason = reason;
  }

  RecordSession<Recorder> session_;
  RecordFn record_;
  DeferredDtypeChecks dtype_checks_;
  mutable std::mutex mutex_;
  RunTimeFallbackCount fallbacks_;  // guarded by mutex_
};

// The placement rule shared by every device backend, before its own: no node whose output
// decides shapes. False with `reason` set otherwise.
bool may_run_on_device(const DevicePlacementQuery& query, std::string& reason);

// What compile() does on a table-driven backend: nullptr with `reason` set when the node stays
// on the CPU.
template <class Recorder>
std::unique_ptr<DeviceKernel> compile_from_table(const DeviceOpTable<Recorder>& table,
                                                 const DevicePlacementQuery& query,
                                                 std::string& reason,
                                                 RecordSession<Recorder> session,
                                                 const BackendPlacementRule& backend_rule = {}) {
  if (!may_run_on_device(query, reason)) return nullptr;
  if (backend_rule && !backend_rule(query, reason)) return nullptr;
  const ir::Node& node = query.info.node();
  const auto* factory = table.find(node.domain, node.op_type);
  if (!factory) {
    const bool onnx = node.domain.empty() || node.domain == "ai.onnx";
    reason = onnx ? "no GPU kernel for " + node.op_type : "no GPU kernel for domain " + node.domain;
    return nullptr;
  }
  typename DeviceOpTable<Recorder>::RecordFn record = (*factory)(query, reason);
  if (!record) return nullptr;
  return std::make_unique<OpTableKernel<Recorder>>(std::move(session), std::move(record),
                                                   std::move(query.deferred_dtype_checks));
}

}  // namespace kiln
