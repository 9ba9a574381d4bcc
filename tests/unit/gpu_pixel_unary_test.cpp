// OpenGL ES unary ops and activations against kiln's CPU ops (the oracle), for every op of the
// shared table (gpu_unary_cases.h), over negatives, zeros, halves, tiny and large magnitudes,
// infinities and NaN, in a count that leaves a partial last texel. Every op meets 1e-5 relative
// plus 1e-6 absolute, as on the gpu-compute backend.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/gpu_pixel/unary_elementwise.h"
#include "gpu_pixel_fixture.h"
#include "gpu_unary_cases.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

class GpuPixelUnary : public GpuPixel {
 protected:
  Tensor run(const UnaryElementwise& kernel, const UnaryParams& params, const Tensor& x) {
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), x.element_count());
    kernel.record(params, gx, gy);
    return to_host(gy, x.shape());
  }
};

TEST_F(GpuPixelUnary, OpsMatchCpu) {
  UnaryElementwise kernel(context());
  for (const testing::GpuUnaryCase& c : testing::gpu_unary_cases()) {
    const std::vector<float> values = testing::gpu_unary_values(c.max_magnitude);
    const Tensor x = testing::f32({static_cast<int64_t>(values.size())}, values);
    expect_matches(run(kernel, c.params, x), c.cpu(x), 1e-5, c.label, 1e-6);
  }
}

TEST_F(GpuPixelUnary, ClipTakesBoundsAsParameters) {
  const Tensor x = testing::f32({6}, {-3, -1, 0, 0.5f, 2, NAN});
  const Tensor expected = testing::OpTest("Clip")
                              .input(x)
                              .input(testing::f32({}, {-1.5f}))
                              .input(testing::f32({}, {1}))
                              .run()[0];
  UnaryElementwise kernel(context());
  expect_matches(run(kernel, {UnaryOp::Clip, -1.5f, 1.0f}, x), expected, 0, "Clip");
}

TEST_F(GpuPixelUnary, EmptyAndMismatchedTensors) {
  UnaryElementwise kernel(context());
  TextureTensor empty_in(context(), 0), empty_out(context(), 0);
  EXPECT_NO_THROW(kernel.record({UnaryOp::Exp}, empty_in, empty_out));
  TextureTensor a(context(), 5), b(context(), 6);
  EXPECT_THROW(kernel.record({UnaryOp::Exp}, a, b), Error);
  EXPECT_THROW(kernel.record({UnaryOp::Celu, 0.0f}, a, a), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
