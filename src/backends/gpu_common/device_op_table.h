// The ONNX ops a device backend runs natively, as a table from op type to factory. Each
// backend's family files register, per op type, a factory that looks at the node at load time
// and returns how to record it, or explains why the node stays on the CPU. The backends differ
// only in what recording sees (`Recorder`: textures and draws, or buffers and dispatches).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>

#include "kernels/device_backend.h"
#include "opdefs/op_families.h"

namespace kiln {

template <class Recorder>
class DeviceOpTable {
 public:
  // Records one node's work. Called once per run, possibly from different threads (never
  // concurrently): it must keep no per-run state.
  using RecordFn = std::function<void(Recorder&)>;
  // nullptr (with `reason` set) when the node must run on the CPU.
  using OpFactory = std::function<RecordFn(const DevicePlacementQuery&, std::string& reason)>;

  // The family whose registrations follow (called by the generated register_all_ops).
  void begin_family(std::string family) { families_.begin_family(std::move(family)); }
  // An ONNX op, or one of another domain (kiln's own fused ops). kiln::Error when the op is
  // registered already (by this family or another).
  void add(const std::string& op_type, OpFactory factory) { add("", op_type, std::move(factory)); }
  void add(const std::string& domain, const std::string& op_type, OpFactory factory) {
    families_.claim("GPU op table", domain.empty() ? op_type : domain + "::" + op_type);
    ops_[{domain, op_type}] = std::move(factory);
  }
  // `domain` "" or "ai.onnx" for ONNX ops.
  const OpFactory* find(const std::string& domain, const std::string& op_type) const {
    auto it = ops_.find({domain == "ai.onnx" ? std::string() : domain, op_type});
    return it == ops_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::pair<std::string, std::string>, OpFactory> ops_;
  OpFamilies families_;
};

}  // namespace kiln
