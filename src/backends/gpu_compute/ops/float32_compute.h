// 16-bit floats (float16, bfloat16) on the float32 kernels. The CPU kernels of these ops widen
// 16-bit operands to float32, compute in float32 and round each result once to the output type;
// the GPU does the same: the inputs are converted to float32 (exactly), the op's float32 kernel
// runs, and its float32 results are rounded to the output type (round to nearest even, NaN and
// infinities kept: shaders/half_bits.glsl). One mechanism for every such op, instead of a 16-bit
// variant of each shader; data-movement ops copy 16-bit elements as they are instead
// (region_copy.comp), and Where moves them as bits.
#pragma once

#include <string>

#include "backends/gpu_compute/ops/op_table.h"

namespace kiln::gpu_compute {

// `inner` (a float32 kernel's factory) for nodes with float16 or bfloat16 inputs or outputs
// too: it is asked about the node as if those were float32, and its recording runs with the
// recorder computing in float32 (OpRecorder::compute_in_float32). Nodes without 16-bit floats
// go to `inner` unchanged.
OpFactory with_16bit_floats_in_float32(OpFactory inner);

// Whether the ONNX op's CPU kernel computes 16-bit floats that way and its GPU factory takes
// the rule (OpTable::add applies it).
bool computes_16bit_floats_in_float32(const std::string& op_type);

}  // namespace kiln::gpu_compute
