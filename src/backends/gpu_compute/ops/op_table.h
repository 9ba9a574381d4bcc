// The ONNX ops the GPU-compute backend runs natively, one family file each (the table is
// backends/gpu_common/device_op_table.h). A factory explains why a node it does not take stays on
// the CPU: a dtype the shaders lack, an attribute they do not cover, ...
#pragma once

#include <string>
#include <utility>

#include "backends/gpu_common/device_op_table.h"
#include "backends/gpu_compute/op_recorder.h"
#include "opdefs/fused_conv.h"

namespace kiln::gpu_compute {

// Records one node: reads inputs, creates outputs, records dispatches.
using RecordFn = DeviceOpTable<OpRecorder>::RecordFn;
using OpFactory = DeviceOpTable<OpRecorder>::OpFactory;

// The shared table, whose add() layers one rule over the factories of the ops that
// ops/float32_compute.h lists: their float32 kernels also compute float16 and bfloat16 nodes.
class OpTable : public DeviceOpTable<OpRecorder> {
 public:
  void add(const std::string& op_type, OpFactory factory) { add("", op_type, std::move(factory)); }
  void add(const std::string& domain, const std::string& op_type, OpFactory factory);
};

// The backend's ops, registered by the family files. Each family file declares itself with one
// line at namespace scope and defines the function that line names:
//   KILN_GPU_COMPUTE_OPS(softmax);
//   void register_softmax_ops(OpTable& t) { t.add("Softmax", softmax_factory(...)); ... }
// The build generates register_all_ops from those lines (cmake/op_families.cmake): a new family
// file is registered without editing any list.
const OpTable& op_table();

// Declares register_<family>_ops, and marks the file for the generated register_all_ops.
#define KILN_GPU_COMPUTE_OPS(family) void register_##family##_ops(OpTable& table)

// Registers every family (generated).
void register_all_ops(OpTable& table);

// The kiln::FusedConv chains the backend's convolution computes (ops/conv_ops.cpp).
FusedConvCoverage fused_conv_coverage();

// Shared load-time checks. Each returns false and sets `reason` when the node does not qualify.
bool inputs_are(const DevicePlacementQuery& q, std::initializer_list<DataType> allowed,
                std::string& reason, size_t first = 0, size_t count = SIZE_MAX);

}  // namespace kiln::gpu_compute
