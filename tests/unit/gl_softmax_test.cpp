// OpenGL ES Softmax and LogSoftmax against kiln's CPU ops (the oracle), along first, middle and
// last axes, long lines, large logits and a line of one.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "backends/gl/softmax.h"
#include "gl_fixture.h"
#include "test_util.h"

namespace kiln::gl {
namespace {

Tensor random_tensor(const Shape& shape, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = dist(rng);
  return testing::f32(shape, v);
}

class GlSoftmax : public Gl {
 protected:
  void check_case(SoftmaxOp op, const Shape& shape, int64_t axis, float scale) {
    const Tensor x = random_tensor(shape, scale, static_cast<unsigned>(shape.element_count()));
    const char* onnx = op == SoftmaxOp::Softmax ? "Softmax" : "LogSoftmax";
    const Tensor want = testing::OpTest(onnx).input(x).attr("axis", axis).run()[0];
    SoftmaxShape s;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      (d < axis ? s.outer : d == axis ? s.axis_len : s.inner) *= shape[d];
    }
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), x.element_count());
    Softmax(context()).record(op, s, gx, gy);
    expect_matches(to_host(gy, want.shape()), want, 1e-5,
                   std::string(onnx) + " of " + std::to_string(shape.element_count()) +
                       " along axis " + std::to_string(axis),
                   1e-6);
  }
};

TEST_F(GlSoftmax, MatchesCpuAlongEveryAxis) {
  for (const SoftmaxOp op : {SoftmaxOp::Softmax, SoftmaxOp::LogSoftmax}) {
    check_case(op, {3, 5, 7}, 2, 4.0f);
    check_case(op, {3, 5, 7}, 1, 4.0f);
    check_case(op, {3, 5, 7}, 0, 4.0f);
    check_case(op, {2, 1000}, 1, 8.0f);  // long lines
    check_case(op, {4, 9}, 1, 60.0f);    // logits far from zero
    check_case(op, {5, 1}, 1, 3.0f);     // a line of one
  }
}

TEST_F(GlSoftmax, BadShapesAreErrors) {
  const TextureTensor x = to_gpu(testing::f32({6}, {1, 2, 3, 4, 5, 6}));
  TextureTensor y(context(), 6);
  TextureTensor short_y(context(), 5);
  EXPECT_THROW(Softmax(context()).record(SoftmaxOp::Softmax, {2, 4, 1}, x, y), Error);
  EXPECT_THROW(Softmax(context()).record(SoftmaxOp::Softmax, {2, 3, 1}, x, short_y), Error);
  EXPECT_THROW(Softmax(context()).record(SoftmaxOp::Softmax, {-2, 3, 1}, x, y), Error);
}

}  // namespace
}  // namespace kiln::gl
