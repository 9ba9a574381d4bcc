// The ONNX ops the GPU-pixel backend runs as draws. Each family file registers, per op type, a
// factory that looks at the node at load time and returns how to record it, or explains why the
// node stays on the CPU. Only float32 data lives in textures: integer and bool tensors, and the
// ops on them, stay on the CPU.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "backends/gl/op_recorder.h"
#include "runtime/device_backend.h"

namespace kiln::gl {

// Records one node's draws; called once per run, never concurrently; keeps no per-run state.
using RecordFn = std::function<void(OpRecorder&)>;
// nullptr (with `reason` set) when the node must run on the CPU.
using OpFactory = std::function<RecordFn(const DevicePlacementQuery&, std::string& reason)>;

class OpTable {
 public:
  static const OpTable& global();
  void add(const std::string& op_type, OpFactory factory) { ops_[op_type] = std::move(factory); }
  const OpFactory* find(const std::string& op_type) const {
    auto it = ops_.find(op_type);
    return it == ops_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, OpFactory> ops_;
};

void register_elementwise_ops(OpTable& table);
void register_data_movement_ops(OpTable& table);
void register_matmul_conv_ops(OpTable& table);
void register_pool_ops(OpTable& table);
void register_softmax_reduce_ops(OpTable& table);
void register_normalization_ops(OpTable& table);
void register_resize_ops(OpTable& table);

// The float inputs [first, first + count) are float32 (or of unknown dtype, checked per run);
// false with `reason` otherwise.
bool float_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first = 0,
                  size_t count = SIZE_MAX);
// Inputs from `first` on must be host values: CPU-resident or constant (shape, index and bound
// inputs).
bool host_inputs(const DevicePlacementQuery& q, size_t first, std::string& reason);

}  // namespace kiln::gl
