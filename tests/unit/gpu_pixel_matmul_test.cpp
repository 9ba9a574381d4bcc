// OpenGL ES MatMul and Gemm against kiln's CPU ops (the oracle): every shader variant (scalar,
// texel rows of B, texel rows of A and B), broadcast batches, 1-D operands, Gemm transposes,
// alpha and beta, every C broadcast, fused Relu and Clip, K = 0, long sums and bad shapes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/gpu_pixel/matmul.h"
#include "gpu_pixel_fixture.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

std::string dims(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

class GpuPixelMatmul : public GpuPixel {
 protected:
  Tensor run(const MatmulParams& p, const Tensor& a, const Tensor& b, const Tensor* c,
             const Shape& out_shape) {
    const TextureTensor ga = to_gpu(a);
    const TextureTensor gb = to_gpu(b);
    TextureTensor gc;
    if (c) gc = to_gpu(*c);
    TextureTensor gy(context(), p.output_count());
    Matmul(context()).record(p, ga, gb, c ? &gc : nullptr, gy);
    return to_host(gy, out_shape);
  }
};

TEST_F(GpuPixelMatmul, MatchesCpuOverShapesAndBroadcasts) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{3, 5}, {5, 7}},              // scalar path
      {{2, 3, 8}, {8, 12}},          // texel rows of A and B
      {{4, 6, 5}, {5, 8}},           // texel rows of B only (K % 4 != 0)
      {{6, 8}, {2, 8, 4}},           // broadcast A
      {{2, 1, 3, 4}, {5, 4, 8}},     // broadcast on both sides
      {{3, 2, 3, 6}, {3, 1, 6, 5}},  // scalar path with broadcast
      {{7}, {7, 4}},                 // 1-D A
      {{3, 7}, {7}},                 // 1-D B
      {{9}, {9}},                    // dot product
      {{1, 130}, {130, 3}},          // odd everything
      {{2, 16, 256}, {256, 20}},     // long sums on the vec4 path
      {{5, 999}, {999, 3}},          // long sums on the scalar path
  };
  unsigned seed = 1;
  for (const auto& [as, bs] : cases) {
    const Tensor a = random_tensor(as, -1, 1, seed++);
    const Tensor b = random_tensor(bs, -1, 1, seed++);
    const Tensor want = testing::OpTest("MatMul").input(a).input(b).run()[0];
    const Tensor got = run(matmul_params(as, bs), a, b, nullptr, want.shape());
    expect_matches(got, want, 1e-4, "MatMul " + dims(as) + " x " + dims(bs), 1e-5);
  }
}

TEST_F(GpuPixelMatmul, LargeProductDrawnInBands) {
  const Shape as{384, 768}, bs{768, 256};
  const Tensor a = random_tensor(as, -1, 1, 50);
  const Tensor b = random_tensor(bs, -1, 1, 51);
  const Tensor want = testing::OpTest("MatMul").input(a).input(b).run()[0];
  const Tensor got = run(matmul_params(as, bs), a, b, nullptr, want.shape());
  expect_matches(got, want, 1e-4, "MatMul [384,768] x [768,256]", 1e-4);
}

TEST_F(GpuPixelMatmul, GemmTransposesAlphaBetaAndEveryCBroadcast) {
  const int m = 5, n = 8, k = 12;
  const std::vector<Shape> c_shapes = {{}, {n}, {1}, {m, 1}, {1, n}, {m, n}};
  unsigned seed = 100;
  for (int trans_a = 0; trans_a < 2; ++trans_a) {
    for (int trans_b = 0; trans_b < 2; ++trans_b) {
      for (const Shape& cs : c_shapes) {
        const Shape as = trans_a ? Shape{k, m} : Shape{m, k};
        const Shape bs = trans_b ? Shape{n, k} : Shape{k, n};
        const Tensor a = random_tensor(as, -1, 1, seed++);
        const Tensor b = random_tensor(bs, -1, 1, seed++);
        const Tensor c = random_tensor(cs, -1, 1, seed++);
        const float alpha = 0.75f, beta = -1.5f;
        const Tensor want = testing::OpTest("Gemm")
                                .input(a)
                                .input(b)
                                .input(c)
                                .attr("transA", trans_a)
                                .attr("transB", trans_b)
                                .attr("alpha", alpha)
                                .attr("beta", beta)
                                .run()[0];
        const MatmulParams p = gemm_params(as, bs, &cs, trans_a, trans_b, alpha, beta);
        const Tensor got = run(p, a, b, &c, want.shape());
        expect_matches(got, want, 1e-4,
                       "Gemm transA=" + std::to_string(trans_a) +
                           " transB=" + std::to_string(trans_b) + " C " + dims(cs),
                       1e-5);
      }
    }
  }
}

TEST_F(GpuPixelMatmul, GemmWithoutCAndOddN) {
  const Tensor a = random_tensor({7, 3}, -1, 1, 7);
  const Tensor b = random_tensor({5, 3}, -1, 1, 8);
  const Tensor want =
      testing::OpTest("Gemm").input(a).input(b).attr("transB", 1).attr("alpha", 2.0f).run()[0];
  const MatmulParams p = gemm_params({7, 3}, {5, 3}, nullptr, false, true, 2.0f, 1.0f);
  expect_matches(run(p, a, b, nullptr, want.shape()), want, 1e-5, "Gemm transB, no C", 1e-6);
}

TEST_F(GpuPixelMatmul, FusedReluAndClip) {
  for (const MatmulActivation act : {MatmulActivation::kRelu, MatmulActivation::kClip}) {
    for (const int n : {8, 7}) {  // texel and scalar paths
      const Shape as{4, 16}, bs{16, n}, cs{n};
      const Tensor a = random_tensor(as, -1, 1, 20 + n);
      const Tensor b = random_tensor(bs, -1, 1, 30 + n);
      const Tensor c = random_tensor(cs, -1, 1, 40 + n);
      const Tensor gemm = testing::OpTest("Gemm").input(a).input(b).input(c).run()[0];
      Tensor want;
      if (act == MatmulActivation::kRelu) {
        want = testing::OpTest("Relu").input(gemm).run()[0];
      } else {
        want = testing::OpTest("Clip")
                   .input(gemm)
                   .input(Tensor::scalar(-0.5f))
                   .input(Tensor::scalar(0.25f))
                   .run()[0];
      }
      MatmulParams p = gemm_params(as, bs, &cs, false, false, 1.0f, 1.0f);
      p.activation = act;
      p.clip_min = -0.5f;
      p.clip_max = 0.25f;
      expect_matches(
          run(p, a, b, &c, want.shape()), want, 1e-4,
          std::string(act == MatmulActivation::kRelu ? "Relu" : "Clip") + " n=" + std::to_string(n),
          1e-5);
    }
  }
}

TEST_F(GpuPixelMatmul, EmptyInnerDimensionGivesBetaC) {
  const Tensor a = testing::f32({3, 0}, {});
  const Tensor b = testing::f32({0, 4}, {});
  const Tensor c = random_tensor({4}, -1, 1, 3);
  const Tensor want =
      testing::OpTest("Gemm").input(a).input(b).input(c).attr("beta", 2.0f).run()[0];
  const Shape cs{4};
  const MatmulParams p = gemm_params({3, 0}, {0, 4}, &cs, false, false, 1.0f, 2.0f);
  const TextureTensor gc = to_gpu(c);
  TextureTensor gy(context(), p.output_count());
  Matmul(context()).record(p, TextureTensor(), TextureTensor(), &gc, gy);
  expect_matches(to_host(gy, want.shape()), want, 1e-6, "Gemm K=0");
}

TEST_F(GpuPixelMatmul, BadShapesAreErrors) {
  EXPECT_THROW(matmul_params({3, 4}, {5, 6}), Error);
  EXPECT_THROW(matmul_params({2, 3, 4}, {3, 4, 6}), Error);
  EXPECT_THROW(matmul_params({}, {3}), Error);
  const Shape bad_c{3, 4};
  EXPECT_THROW(gemm_params({2, 3}, {3, 4}, &bad_c, false, false, 1, 1), Error);
  EXPECT_THROW(gemm_params({2, 3}, {4, 5}, nullptr, false, false, 1, 1), Error);
  EXPECT_THROW(gemm_params({2, 3, 1}, {3, 4}, nullptr, false, false, 1, 1), Error);

  const MatmulParams p = matmul_params({2, 3}, {3, 4});
  const TextureTensor a = to_gpu(random_tensor({2, 3}, -1, 1, 1));
  const TextureTensor b = to_gpu(random_tensor({3, 4}, -1, 1, 2));
  TextureTensor wrong(context(), 7);
  EXPECT_THROW(Matmul(context()).record(p, a, b, nullptr, wrong), Error);
  TextureTensor y(context(), 8);
  const TextureTensor small = to_gpu(random_tensor({5}, -1, 1, 3));
  EXPECT_THROW(Matmul(context()).record(p, a, small, nullptr, y), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
