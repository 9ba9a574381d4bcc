// Shared by the OpenGL ES tests: one context per test process, and a fixture that skips where
// there is no OpenGL ES device, plus helpers to move host tensors through textures, to make
// random inputs and to compare results.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/error.h"
#include "kiln/tensor.h"
#include "test_util.h"

namespace kiln::gpu_pixel {

inline bool is_no_device(const Error& e) {
  return std::string(e.what()).find("no OpenGL ES device") != std::string::npos;
}

struct SharedContext {
  std::unique_ptr<Context> context;
  std::string skip_reason;  // no OpenGL ES device on this machine
  std::string failure;      // any other error: a real failure
};

inline SharedContext& shared_context() {
  static SharedContext shared = [] {
    SharedContext s;
    try {
      s.context = std::make_unique<Context>();
    } catch (const Error& e) {
      (is_no_device(e) ? s.skip_reason : s.failure) = e.what();
    }
    return s;
  }();
  return shared;
}

class GpuPixel : public ::testing::Test {
 protected:
  void SetUp() override {
    SharedContext& s = shared_context();
    ASSERT_TRUE(s.failure.empty()) << s.failure;
    if (!s.context) GTEST_SKIP() << s.skip_reason;
    context_ = s.context.get();
  }
  Context& context() { return *context_; }

  TextureTensor to_gpu(const Tensor& t) {
    TextureTensor g(context(), t.element_count());
    upload(g, std::span(t.data<float>(), static_cast<size_t>(t.element_count())));
    return g;
  }
  Tensor to_host(const TextureTensor& g, const Shape& shape) {
    Tensor t = Tensor::zeros(DataType::Float32, shape);
    download(g, std::span(t.mutable_data<float>(), static_cast<size_t>(t.element_count())));
    return t;
  }

 private:
  Context* context_ = nullptr;
};

// Uniform random float32 values in [lo, hi), the same for the same seed.
inline Tensor random_tensor(const Shape& shape, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = dist(rng);
  return Tensor::from_data<float>(shape, v);
}

// For the windowed ops (convolution, pooling): the spatial dims of an [N, C, spatial...] shape,
// and the halves of ONNX pads (all begins, then all ends).
inline Shape spatial_dims(const Shape& shape) { return Shape(shape.begin() + 2, shape.end()); }
inline Shape pad_begins(const std::vector<int64_t>& pads) {
  return Shape(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(pads.size() / 2));
}
inline Shape pad_ends(const std::vector<int64_t>& pads) {
  return Shape(pads.begin() + static_cast<std::ptrdiff_t>(pads.size() / 2), pads.end());
}

// Element-wise comparison: both NaN, the same infinity, or within rtol relative (plus atol
// absolute); see testing::value_matches.
inline void expect_matches(const Tensor& gpu, const Tensor& cpu, double rtol,
                           const std::string& what, double atol = 0) {
  ASSERT_EQ(gpu.shape(), cpu.shape()) << what;
  const float* g = gpu.data<float>();
  const float* c = cpu.data<float>();
  int reported = 0;
  for (int64_t i = 0; i < cpu.element_count() && reported < 5; ++i) {
    if (!kiln::testing::value_matches(g[i], c[i], atol, rtol)) {
      ADD_FAILURE() << what << " at " << i << ": gpu " << g[i] << ", cpu " << c[i];
      ++reported;
    }
  }
}

}  // namespace kiln::gpu_pixel
