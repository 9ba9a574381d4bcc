// OpenGL ES pooling against kiln's CPU ops (the oracle): MaxPool, AveragePool with and without
// count_include_pad, LpPool, 1-D and 2-D (3-D in the op harness), strides, dilations, asymmetric
// pads, ceil_mode, and the global pools.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/gpu_pixel/pool.h"
#include "gpu_pixel_fixture.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

struct Case {
  std::string name;
  Shape x;  // [N, C, spatial...]
  Shape kernel, stride, dilation;
  std::vector<int64_t> pads;  // begins then ends
  int ceil_mode = 0;
};

class GpuPixelPool : public GpuPixel {
 protected:
  void check_pool(const Case& c, PoolOp op, bool count_include_pad = false, float p = 2.0f) {
    const size_t rank = c.kernel.size();
    const Tensor x = random_tensor(c.x, -2, 2, 11);
    const char* onnx = op == PoolOp::Max       ? "MaxPool"
                       : op == PoolOp::Average ? "AveragePool"
                                               : "LpPool";
    testing::OpTest test(onnx);
    test.input(x)
        .attr("kernel_shape", c.kernel.to_vector())
        .attr("strides", c.stride.to_vector())
        .attr("pads", c.pads);
    test.attr("ceil_mode", c.ceil_mode);
    if (op != PoolOp::Average || c.dilation != Shape(std::vector<int64_t>(rank, 1))) {
      test.attr("dilations", c.dilation.to_vector());
    }
    if (op == PoolOp::Average) test.attr("count_include_pad", count_include_pad ? 1 : 0);
    if (op == PoolOp::Lp) test.attr("p", static_cast<int64_t>(p));
    const Tensor want = test.run()[0];

    PoolParams params;
    params.op = op;
    params.count_include_pad = count_include_pad;
    params.p = p;
    params.shape.geometry = {spatial_dims(c.x), spatial_dims(want.shape()), c.kernel, c.stride,
                             c.dilation,        pad_begins(c.pads)};
    params.shape.pad_end = pad_ends(c.pads);
    params.shape.planes = c.x[0] * c.x[1];

    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), want.element_count());
    Pool(context()).record(params, gx, gy);
    expect_matches(to_host(gy, want.shape()), want, op == PoolOp::Max ? 0 : 1e-5,
                   std::string(onnx) + " " + c.name, 1e-6);
  }
};

const std::vector<Case> kCases = {
    {"3x3 stride 2 pad 1", {1, 4, 15, 15}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
    {"asymmetric pads, ceil_mode", {2, 3, 10, 9}, {3, 2}, {2, 3}, {1, 1}, {0, 1, 2, 0}, 1},
    {"kernel covers the image", {1, 2, 4, 4}, {4, 4}, {1, 1}, {1, 1}, {0, 0, 0, 0}},
    {"1-D", {2, 3, 13}, {3}, {2}, {1}, {1, 2}},
};

TEST_F(GpuPixelPool, MaxPoolMatchesCpu) {
  for (const Case& c : kCases) check_pool(c, PoolOp::Max);
  check_pool({"dilated", {1, 2, 12, 11}, {3, 2}, {1, 2}, {2, 3}, {2, 1, 1, 2}, 1}, PoolOp::Max);
}

TEST_F(GpuPixelPool, AveragePoolMatchesCpuWithAndWithoutPadCounting) {
  for (const Case& c : kCases) {
    check_pool(c, PoolOp::Average, false);
    check_pool(c, PoolOp::Average, true);
  }
}

TEST_F(GpuPixelPool, LpPoolMatchesCpu) {
  for (const Case& c : kCases) {
    for (const float p : {1.0f, 2.0f, 3.0f}) check_pool(c, PoolOp::Lp, false, p);
  }
}

TEST_F(GpuPixelPool, GlobalPoolsMatchCpu) {
  const Tensor x = random_tensor({2, 3, 7, 5}, -2, 2, 12);
  const TextureTensor gx = to_gpu(x);
  const struct {
    PoolOp op;
    const char* onnx;
  } ops[] = {{PoolOp::Max, "GlobalMaxPool"},
             {PoolOp::Average, "GlobalAveragePool"},
             {PoolOp::Lp, "GlobalLpPool"}};
  for (const auto& op : ops) {
    const Tensor want = testing::OpTest(op.onnx).input(x).run()[0];
    TextureTensor gy(context(), 6);
    Pool(context()).record_global(op.op, 6, 35, gx, gy);
    expect_matches(to_host(gy, want.shape()), want, 1e-5, op.onnx, 1e-6);
  }
}

TEST_F(GpuPixelPool, BadParametersAreErrors) {
  PoolParams params;
  params.shape.geometry = {{5, 5}, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {0, 0}};
  params.shape.pad_end = {0, 0};
  params.shape.planes = 2;
  const TextureTensor x = to_gpu(random_tensor({2, 25}, -2, 2, 1));
  TextureTensor wrong(context(), 17);
  EXPECT_THROW(Pool(context()).record(params, x, wrong), Error);
  TextureTensor y(context(), 18);
  params.op = PoolOp::Lp;
  params.p = 0.0f;
  EXPECT_THROW(Pool(context()).record(params, x, y), Error);
  params.op = PoolOp::Max;
  params.shape.geometry.stride = {1, 0};
  EXPECT_THROW(Pool(context()).record(params, x, y), Error);
  // Four spatial axes (the shader walks up to three).
  params.shape.geometry = {{5, 5, 1, 1}, {3, 3, 1, 1}, {3, 3, 1, 1},
                           {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}};
  params.shape.pad_end = {0, 0, 0, 0};
  EXPECT_THROW(Pool(context()).record(params, x, y), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
