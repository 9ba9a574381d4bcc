// OpenGL ES Softmax, LogSoftmax and Hardmax against kiln's CPU ops (the oracle), along first,
// middle and last axes, long lines, large logits and a line of one; Hardmax also on ties, NaNs
// and infinities.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/gpu_pixel/softmax.h"
#include "gpu_pixel_fixture.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

class GpuPixelSoftmax : public GpuPixel {
 protected:
  // Hardmax's ones and zeros must match exactly; the others within float rounding.
  void check_case(SoftmaxOp op, const Tensor& x, int64_t axis) {
    const char* onnx = op_type_of(op);
    const Tensor want = testing::OpTest(onnx).input(x).attr("axis", axis).run()[0];
    SoftmaxShape s;
    for (int64_t d = 0; d < static_cast<int64_t>(x.shape().size()); ++d) {
      (d < axis ? s.outer : d == axis ? s.axis_len : s.inner) *= x.shape()[d];
    }
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), x.element_count());
    Softmax(context()).record(op, s, gx, gy);
    const bool exact = op == SoftmaxOp::Hardmax;
    expect_matches(to_host(gy, want.shape()), want, exact ? 0 : 1e-5,
                   std::string(onnx) + " of " + std::to_string(x.element_count()) + " along axis " +
                       std::to_string(axis),
                   exact ? 0 : 1e-6);
  }

  void check_case(SoftmaxOp op, const Shape& shape, int64_t axis, float scale) {
    check_case(op,
               random_tensor(shape, -scale, scale, static_cast<unsigned>(shape.element_count())),
               axis);
  }
};

TEST_F(GpuPixelSoftmax, MatchesCpuAlongEveryAxis) {
  for (const SoftmaxOp op : {SoftmaxOp::Softmax, SoftmaxOp::LogSoftmax}) {
    check_case(op, {3, 5, 7}, 2, 4.0f);
    check_case(op, {3, 5, 7}, 1, 4.0f);
    check_case(op, {3, 5, 7}, 0, 4.0f);
    check_case(op, {2, 1000}, 1, 8.0f);  // long lines
    check_case(op, {4, 9}, 1, 60.0f);    // logits far from zero
    check_case(op, {5, 1}, 1, 3.0f);     // a line of one
  }
}

// Small integers make ties, which Hardmax breaks toward the first maximum. Element 0 is a NaN
// (first on its line along every axis, so it wins its line) and so is element 40 (first on its
// line along axis 1, later along axes 0 and 2, where it never wins).
TEST_F(GpuPixelSoftmax, HardmaxMarksTheFirstMaximumAsTheCpuDoes) {
  std::vector<float> v = random_tensor({3, 5, 7}, -2.0f, 2.0f, 7).to_vector<float>();
  for (float& e : v) e = std::round(e);
  v[0] = v[40] = std::nanf("");
  const Tensor ties = testing::f32({3, 5, 7}, v);
  for (int64_t axis : {0, 1, 2}) check_case(SoftmaxOp::Hardmax, ties, axis);
  check_case(SoftmaxOp::Hardmax, {2, 1000}, 1, 8.0f);  // long lines
  check_case(SoftmaxOp::Hardmax, {5, 1}, 1, 3.0f);     // a line of one

  // A line of only -inf marks its first element; a NaN after it changes nothing.
  const float inf = std::numeric_limits<float>::infinity();
  check_case(SoftmaxOp::Hardmax,
             testing::f32({2, 4}, {-inf, -inf, -inf, -inf,  //
                                   -inf, std::nanf(""), -inf, -inf}),
             1);
}

TEST_F(GpuPixelSoftmax, BadShapesAreErrors) {
  const TextureTensor x = to_gpu(testing::f32({6}, {1, 2, 3, 4, 5, 6}));
  TextureTensor y(context(), 6);
  TextureTensor short_y(context(), 5);
  EXPECT_THROW(Softmax(context()).record(SoftmaxOp::Softmax, {2, 4, 1}, x, y), Error);
  EXPECT_THROW(Softmax(context()).record(SoftmaxOp::Softmax, {2, 3, 1}, x, short_y), Error);
  EXPECT_THROW(Softmax(context()).record(SoftmaxOp::Softmax, {-2, 3, 1}, x, y), Error);
  EXPECT_THROW(Softmax(context()).record(SoftmaxOp::Hardmax, {2, 4, 1}, x, y), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
