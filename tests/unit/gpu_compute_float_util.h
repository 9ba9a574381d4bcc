// Float32 tensors to and from Vulkan buffers, the CPU side of the fused activations, and a
// comparison with a tolerance for sums, for the tests of the arithmetic kernels (matmul, conv)
// against the CPU ops.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/matmul.h"
#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::gpu_compute {

inline Tensor random_floats(const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) n *= shape[d];
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return Tensor::from_data<float>(shape, v);
}

inline Buffer to_gpu(Device& device, const Tensor& t) {
  Buffer b(device, t.byte_size(), MemoryUse::DeviceLocal);
  if (t.byte_size())
    upload(device, b, std::as_bytes(std::span(t.data<float>(), t.element_count())));
  return b;
}

inline Buffer gpu_floats(Device& device, int64_t count) {
  return Buffer(device, static_cast<size_t>(count) * sizeof(float), MemoryUse::DeviceLocal);
}

inline Tensor from_gpu(Device& device, const Buffer& b, const Shape& shape) {
  Tensor t = Tensor::zeros(DataType::Float32, shape);
  if (t.element_count()) {
    download(device, b,
             std::as_writable_bytes(std::span(t.mutable_data<float>(), t.element_count())));
  }
  return t;
}

// The activation a kernel fuses, applied on the CPU to the reference op's result.
inline Tensor apply_activation(const Tensor& t, ActivationParams act) {
  Tensor out = t.clone();
  float* v = out.mutable_data<float>();
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (act.kind == Activation::kRelu) v[i] = std::max(v[i], 0.0f);
    if (act.kind == Activation::kClip) v[i] = std::clamp(v[i], act.min, act.max);
  }
  return out;
}

// GPU sums run in another order than the CPU's: allow 1e-4 relative to the value, and as much
// absolute error near zero (inputs are in [-1, 1]).
inline void expect_close(const Tensor& gpu, const Tensor& cpu, const std::string& what,
                         double tol = 1e-4) {
  ASSERT_EQ(gpu.shape(), cpu.shape()) << what;
  const float* g = gpu.data<float>();
  const float* c = cpu.data<float>();
  int reported = 0;
  for (int64_t i = 0; i < cpu.element_count() && reported < 5; ++i) {
    if (!testing::value_matches(g[i], c[i], tol, tol)) {
      ADD_FAILURE() << what << " at " << i << ": gpu " << g[i] << ", cpu " << c[i];
      ++reported;
    }
  }
}

}  // namespace kiln::gpu_compute
