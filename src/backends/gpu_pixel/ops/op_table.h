// The ONNX ops the GPU-pixel backend runs as draws, one family file each (the table is
// backends/gpu_common/device_op_table.h). Textures hold every dtype whose values are exactly
// float32 values, and int32, uint32 and int64 in integer textures (texel_dtype.h): the float ops
// take float32 (the element-wise ones float16 too), the data-movement ops every texture dtype,
// the integer arithmetic and bit ops the 8- to 64-bit integers, and Cast, BitCast, Where,
// ArgMax/ArgMin, the comparison and the logical ops their own. float64 tensors,
// and the ops on them, stay on the CPU.
#pragma once

#include <string>

#include "backends/gpu_common/device_op_table.h"
#include "backends/gpu_pixel/op_recorder.h"
#include "opdefs/fused_conv.h"

namespace kiln::gpu_pixel {

using OpTable = DeviceOpTable<OpRecorder>;
// Records one node's draws.
using RecordFn = OpTable::RecordFn;
using OpFactory = OpTable::OpFactory;

// The backend's ops, registered by the family files. Each family file declares itself with one
// line at namespace scope and defines the function that line names:
//   KILN_GPU_PIXEL_OPS(pool);
//   void register_pool_ops(OpTable& t) { t.add("MaxPool", pool_factory(PoolOp::Max)); ... }
// The build generates register_all_ops from those lines (cmake/op_families.cmake): a new family
// file is registered without editing any list.
const OpTable& op_table();

// Declares register_<family>_ops, and marks the file for the generated register_all_ops.
#define KILN_GPU_PIXEL_OPS(family) void register_##family##_ops(OpTable& table)

// Registers every family (generated).
void register_all_ops(OpTable& table);

// The kiln::FusedConv chains the backend's convolution draws (ops/matmul_conv_ops.cpp).
FusedConvCoverage fused_conv_coverage();

// The float inputs [first, first + count) are float32 (or of unknown dtype, checked per run);
// false with `reason` otherwise.
bool float_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first = 0,
                  size_t count = SIZE_MAX);
// The inputs [first, first + count) are of dtypes textures hold (texel_dtype.h: the float
// textures' and the integer textures'), or of unknown dtype, checked per run; false with `reason`
// otherwise.
bool texel_inputs(const DevicePlacementQuery& q, std::string& reason, size_t first = 0,
                  size_t count = SIZE_MAX);
// Inputs [first, first + count) must be host values: CPU-resident, constant, integer (read
// through OpRecorder::host, downloaded when a draw made them) or of a dtype textures never hold
// (shape, index and bound inputs).
bool host_inputs(const DevicePlacementQuery& q, size_t first, std::string& reason,
                 size_t count = SIZE_MAX);

}  // namespace kiln::gpu_pixel
