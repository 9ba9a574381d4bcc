// The GPU unary kernels' test cases, one or two per row of gpu_common/unary_ops.inc, shared by
// the Vulkan and OpenGL ES kernel tests so that a new row is tested on both without a test edit.
// Each case pairs the kernel's parameters with the CPU node (the oracle) that computes the same:
// once with no attributes (so the row's defaults must be ONNX's, as the CPU op reads them) and,
// for a row with attributes, once with other values.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/gpu_common/device_unary_op.h"
#include "kiln/kiln.h"

namespace kiln::testing {

struct GpuUnaryCase {
  UnaryParams params;
  std::string label;                         // "LeakyRelu(alpha=0.1075)"
  std::function<Tensor(const Tensor&)> cpu;  // the CPU node on x
  // Largest input magnitude: the GPU's sin and cos reduce their argument exactly only up to
  // about 1e4.
  float max_magnitude = 1e30f;
};

// Every row with an ONNX op type, and GeluTanh (Gelu with approximate="tanh"). DivideBy, reached
// only through Mean, is left to the op harness.
std::vector<GpuUnaryCase> gpu_unary_cases();

// Edge values (zeros, halves, magnitudes from 1e-30 to 1e30, the ends of exp's range,
// infinities, NaN; no subnormals, which GPUs may flush), then a random spread on [-12, 12] and
// positive values from 1e-6 to 1e6; magnitudes above `max_magnitude` drop out. The count is not
// a multiple of 4, so a texture's last texel is partial.
std::vector<float> gpu_unary_values(float max_magnitude);

}  // namespace kiln::testing
