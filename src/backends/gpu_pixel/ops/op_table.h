// The ONNX ops the GPU-pixel backend runs as draws, one family file each (the table is
// backends/gpu_common/device_op_table.h). Only float32 data lives in textures: integer and bool
// tensors, and the ops on them, stay on the CPU.
#pragma once

#include <string>

#include "backends/gpu_common/device_op_table.h"
#include "backends/gpu_pixel/op_recorder.h"

namespace kiln::gpu_pixel {

using OpTable = DeviceOpTable<OpRecorder>;
// Records one node's draws.
using RecordFn = OpTable::RecordFn;
using OpFactory = OpTable::OpFactory;

// The backend's ops, registered by the family files below.
const OpTable& op_table();

void register_elementwise_ops(OpTable& table);
void register_data_movement_ops(OpTable& table);
void register_matmul_conv_ops(OpTable& table);
void register_pool_ops(OpTable& table);
void register_softmax_reduce_ops(OpTable& table);
void register_normalization_ops(OpTable& table);
void register_resize_ops(OpTable& table);
void register_recurrent_ops(OpTable& table);
void register_split_ops(OpTable& table);

// The float inputs [first, first + count) are float32 (or of unknown dtype, checked per run);
// false with `reason` otherwise.
bool float_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first = 0,
                  size_t count = SIZE_MAX);
// Inputs from `first` on must be host values: CPU-resident, constant, or not float32 (shape,
// index and bound inputs).
bool host_inputs(const DevicePlacementQuery& q, size_t first, std::string& reason);

}  // namespace kiln::gpu_pixel
