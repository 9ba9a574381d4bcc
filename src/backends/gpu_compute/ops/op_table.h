// The ONNX ops the GPU-compute backend runs natively, one family file each (the table is
// backends/gpu_common/device_op_table.h). A factory explains why a node it does not take stays on
// the CPU: a dtype the shaders lack, an attribute they do not cover, ...
#pragma once

#include <string>

#include "backends/gpu_common/device_op_table.h"
#include "backends/gpu_compute/op_recorder.h"

namespace kiln::gpu_compute {

using OpTable = DeviceOpTable<OpRecorder>;
// Records one node: reads inputs, creates outputs, records dispatches.
using RecordFn = OpTable::RecordFn;
using OpFactory = OpTable::OpFactory;

// The backend's ops, registered by the family files below.
const OpTable& op_table();

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
void register_recurrent_ops(OpTable& table);
void register_split_ops(OpTable& table);

// Shared load-time checks. Each returns false and sets `reason` when the node does not qualify.
bool inputs_are(const DevicePlacementQuery& q, std::initializer_list<DataType> allowed,
                std::string& reason, size_t first = 0, size_t count = SIZE_MAX);

}  // namespace kiln::gpu_compute
