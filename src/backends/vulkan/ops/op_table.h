// The ONNX ops the GPU-compute backend runs natively. Each family file registers, per op type,
// a factory that looks at the node at load time and returns how to record it, or explains why
// the node stays on the CPU (a dtype the shaders lack, an attribute they do not cover, ...).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "backends/vulkan/op_recorder.h"
#include "runtime/device_backend.h"

namespace kiln::vulkan {

// Records one node: reads inputs, creates outputs, records dispatches. Called once per run,
// possibly from different threads (never concurrently); must not keep per-run state.
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

// One per family file.
void register_elementwise_ops(OpTable& table);
void register_data_movement_ops(OpTable& table);
void register_matmul_ops(OpTable& table);
void register_conv_ops(OpTable& table);
void register_pad_ops(OpTable& table);
void register_resize_ops(OpTable& table);
void register_pool_ops(OpTable& table);
void register_softmax_ops(OpTable& table);
void register_normalization_ops(OpTable& table);
void register_reduce_ops(OpTable& table);
void register_indexing_ops(OpTable& table);
void register_cast_ops(OpTable& table);
void register_logical_ops(OpTable& table);

// Shared load-time checks. Each returns false and sets `reason` when the node does not qualify.
bool inputs_are(const DevicePlacementQuery& q, std::initializer_list<DataType> allowed,
                std::string& reason, size_t first = 0, size_t count = SIZE_MAX);

}  // namespace kiln::vulkan
