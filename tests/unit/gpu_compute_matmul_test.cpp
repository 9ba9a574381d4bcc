// shaders/matmul.comp against kiln's CPU MatMul and Gemm (the oracle): sizes around the 8 x 8
// register block, 1-D operands, broadcast batches, transposes, every Gemm C shape, alpha and
// beta, a fused Add, and the Relu / Clip epilogues; and the errors past the kernel's limits.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/matmul.h"
#include "gpu_compute_fixture.h"
#include "gpu_compute_float_util.h"
#include "test_util.h"

namespace kiln::gpu_compute {
namespace {

using testing::OpTest;

// Runs `problem` on the GPU; `c` (when defined) is the addend.
Tensor run_matmul(Device& device, const MatMul& kernel, const MatMulProblem& problem,
                  const Tensor& a, const Tensor& b, const Tensor& c = Tensor(), float beta = 1.0f,
                  ActivationParams activation = {}) {
  Buffer ga = to_gpu(device, a), gb = to_gpu(device, b);
  Buffer gy = gpu_floats(device, problem.out_shape.element_count());
  Buffer gc;
  MatMulAddend addend;
  MatMulEpilogue epilogue{.activation = activation};
  if (c.defined()) {
    gc = to_gpu(device, c);
    addend = matmul_addend(problem, c.shape(), beta);
    epilogue.addend = &addend;
    epilogue.addend_buffer = &gc;
  }
  DescriptorArena arena(device);
  submit_and_wait(device, [&](VkCommandBuffer cmd) {
    kernel.record(cmd, arena, problem, ga, gb, gy, epilogue);
  });
  return from_gpu(device, gy, problem.out_shape);
}

Tensor cpu_matmul(const Tensor& a, const Tensor& b) {
  return OpTest("MatMul").input(a).input(b).run()[0];
}

TEST_F(GpuCompute, MatMulMatchesCpuAroundTileEdges) {
  // m, n, k: below, at and past the 8 x 8 block, and many blocks with ragged edges.
  const int64_t sizes[][3] = {{1, 1, 1},
                              {1, 1, 17},
                              {3, 5, 7},
                              {4, 8, 1},
                              {5, 9, 3},
                              {17, 3, 63},
                              {63, 65, 2},
                              {65, 63, 17},
                              {1, 130, 5},
                              {130, 1, 65},
                              {32, 64, 16},
                              {130, 67, 129},
                              // vec4 path (k, n multiples of 4) with ragged m and n edges
                              {5, 12, 8},
                              {63, 68, 64},
                              {1, 4, 4},
                              {130, 36, 132}};
  MatMul kernel(device());
  unsigned seed = 1;
  for (const auto& s : sizes) {
    const Tensor a = random_floats({s[0], s[2]}, seed++);
    const Tensor b = random_floats({s[2], s[1]}, seed++);
    expect_close(run_matmul(device(), kernel, matmul_problem(a.shape(), b.shape()), a, b),
                 cpu_matmul(a, b), "MatMul " + a.shape().to_string() + b.shape().to_string());
  }
}

TEST_F(GpuCompute, MatMulBroadcastsBatchesAndVectors) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 1, 5, 7}, {3, 7, 9}},            // both sides broadcast
      {{4, 5, 6}, {6, 3}},                  // B shared by every batch (stride 0)
      {{6, 3}, {4, 3, 10}},                 // A shared
      {{4, 5, 6}, {6}},                     // 1-D B: n dropped
      {{6}, {2, 6, 5}},                     // 1-D A: m dropped
      {{9}, {9}},                           // dot product: a scalar
      {{2, 3, 1, 2, 3, 4}, {3, 2, 4, 5}},   // rank 6; [2, 3] merges into one batch dim
      {{2, 1, 3, 5, 2}, {1, 4, 3, 2, 3}},   // three strided batch dims
      {{2, 1, 3, 5, 8}, {1, 4, 3, 8, 12}},  // the same through the vec4 path
  };
  MatMul kernel(device());
  unsigned seed = 100;
  for (const auto& [sa, sb] : shapes) {
    const Tensor a = random_floats(sa, seed++);
    const Tensor b = random_floats(sb, seed++);
    const std::string what = "MatMul " + sa.to_string() + sb.to_string();
    expect_close(run_matmul(device(), kernel, matmul_problem(sa, sb), a, b), cpu_matmul(a, b),
                 "MatMul " + sa.to_string() + sb.to_string());
  }
}

TEST_F(GpuCompute, GemmMatchesCpuOverTransposesAndCShapes) {
  MatMul kernel(device());
  unsigned seed = 200;
  // Odd sizes read with scalar loads; k and n multiples of 4 take the vec4 paths (B's rows, or
  // B's columns with transB).
  for (const auto [m, n, k] : {std::array<int64_t, 3>{13, 17, 11}, {13, 20, 16}}) {
    const std::vector<Shape> c_shapes = {{}, {1}, {n}, {1, n}, {m, 1}, {m, n}, {1, 1}};
    for (int trans_a = 0; trans_a < 2; ++trans_a) {
      for (int trans_b = 0; trans_b < 2; ++trans_b) {
        const Tensor a = random_floats(trans_a ? Shape{k, m} : Shape{m, k}, seed++);
        const Tensor b = random_floats(trans_b ? Shape{n, k} : Shape{k, n}, seed++);
        const MatMulProblem p = gemm_problem(a.shape(), b.shape(), trans_a, trans_b, 0.75f);
        const std::string what =
            "Gemm transA " + std::to_string(trans_a) + " transB " + std::to_string(trans_b);
        const Tensor no_c = OpTest("Gemm")
                                .input(a)
                                .input(b)
                                .attr("transA", trans_a)
                                .attr("transB", trans_b)
                                .attr("alpha", 0.75f)
                                .run()[0];
        expect_close(run_matmul(device(), kernel, p, a, b), no_c, what + " without C");
        for (const Shape& cs : c_shapes) {
          const Tensor c = random_floats(cs, seed++);
          const Tensor expected = OpTest("Gemm")
                                      .input(a)
                                      .input(b)
                                      .input(c)
                                      .attr("transA", trans_a)
                                      .attr("transB", trans_b)
                                      .attr("alpha", 0.75f)
                                      .attr("beta", -1.5f)
                                      .run()[0];
          expect_close(run_matmul(device(), kernel, p, a, b, c, -1.5f), expected,
                       what + " C " + cs.to_string());
        }
      }
    }
  }
}

TEST_F(GpuCompute, MatMulFusesAddAndActivations) {
  MatMul kernel(device());
  const Tensor a = random_floats({2, 3, 9, 7}, 300);
  const Tensor b = random_floats({7, 10}, 301);
  const Tensor c = random_floats({3, 1, 10}, 302);  // broadcast over batch 0 and the rows
  const MatMulProblem p = matmul_problem(a.shape(), b.shape());
  const Tensor sum = OpTest("Add").input(cpu_matmul(a, b)).input(c).run()[0];
  expect_close(run_matmul(device(), kernel, p, a, b, c), sum, "MatMul+Add");

  const ActivationParams relu{Activation::kRelu};
  const ActivationParams clip{Activation::kClip, -0.5f, 0.75f};
  expect_close(run_matmul(device(), kernel, p, a, b, c, 1.0f, relu), apply_activation(sum, relu),
               "MatMul+Add+Relu");
  expect_close(run_matmul(device(), kernel, p, a, b, Tensor(), 1.0f, clip),
               apply_activation(cpu_matmul(a, b), clip), "MatMul+Clip");

  // A bias along n on a 1-D-promoted product: [k] x [k, n] + [n].
  const Tensor v = random_floats({7}, 303);
  const Tensor bias = random_floats({10}, 304);
  const MatMulProblem pv = matmul_problem(v.shape(), b.shape());
  expect_close(run_matmul(device(), kernel, pv, v, b, bias, 1.0f, relu),
               apply_activation(OpTest("Add").input(cpu_matmul(v, b)).input(bias).run()[0], relu),
               "vector MatMul+bias+Relu");
}

TEST(GpuComputeMatMul, PicksTheVectorPathsWhereAligned) {
  auto mode = [](const MatMulProblem& p) {
    uint32_t batches = 0;
    return static_cast<MatMulMode>(matmul_push_constants(p, {}, &batches).mode);
  };
  EXPECT_EQ(mode(matmul_problem({5, 8}, {8, 12})), MatMulMode::Rows);
  EXPECT_EQ(mode(matmul_problem({2, 5, 8}, {8, 12})), MatMulMode::Rows);
  EXPECT_EQ(mode(gemm_problem({13, 16}, {20, 16}, false, true)), MatMulMode::Columns);
  EXPECT_EQ(mode(gemm_problem({13, 16}, {17, 16}, false, true)), MatMulMode::Columns);
  EXPECT_EQ(mode(gemm_problem({16, 13}, {16, 20}, true, false)), MatMulMode::Scalar);
  EXPECT_EQ(mode(matmul_problem({5, 8}, {8, 13})), MatMulMode::Scalar);  // n odd
  EXPECT_EQ(mode(matmul_problem({5, 7}, {7, 12})), MatMulMode::Scalar);  // k odd
  EXPECT_EQ(mode(matmul_problem({3, 5, 2}, {2, 4})), MatMulMode::Scalar);
}

TEST_F(GpuCompute, MatMulEmptyAndZeroK) {
  MatMul kernel(device());
  // k == 0: the product is zero, only the addend remains.
  const Tensor a = random_floats({5, 0}, 400), b = random_floats({0, 6}, 401);
  const Tensor c = random_floats({6}, 402);
  const MatMulProblem p = gemm_problem(a.shape(), b.shape(), false, false);
  const Tensor expected = OpTest("Gemm").input(a).input(b).input(c).attr("beta", 2.0f).run()[0];
  expect_close(run_matmul(device(), kernel, p, a, b, c, 2.0f), expected, "k == 0");
  // An empty output records nothing.
  const Tensor e = random_floats({0, 4}, 403), f = random_floats({4, 3}, 404);
  EXPECT_EQ(
      run_matmul(device(), kernel, matmul_problem(e.shape(), f.shape()), e, f).element_count(), 0);
}

TEST_F(GpuCompute, MatMulLargerThanManyWorkgroups) {
  MatMul kernel(device());
  const Tensor a = random_floats({3, 200, 96}, 500);
  const Tensor b = random_floats({96, 260}, 501);
  expect_close(run_matmul(device(), kernel, matmul_problem(a.shape(), b.shape()), a, b),
               cpu_matmul(a, b), "MatMul [3,200,96] x [96,260]");
}

TEST_F(GpuCompute, MatMulErrorsAreClear) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] {
              matmul_problem({3, 4}, {5, 6});
            }).find("inner dimensions"),
            std::string::npos);
  EXPECT_NE(message([] {
              matmul_problem({2, 3, 4}, {3, 4, 5});
            }).find("do not broadcast"),
            std::string::npos);
  EXPECT_NE(message([] {
              gemm_problem({3, 4, 1}, {4, 5}, false, false);
            }).find("2-D"),
            std::string::npos);
  EXPECT_NE(message([] {
              matmul_addend(gemm_problem({3, 4}, {4, 5}, false, false), {3, 4}, 1.0f);
            }).find("does not broadcast"),
            std::string::npos);

  // A tensor past the device's storage-buffer range is refused before anything is recorded.
  const uint64_t range = device().info().max_storage_buffer_range;
  if (range < (uint64_t{1} << 31)) {
    const int64_t k = static_cast<int64_t>(range / sizeof(float) / 64) + 1;
    const MatMulProblem p = matmul_problem({64, k}, {k, 1});
    Buffer big(device(), static_cast<size_t>(64 * k) * sizeof(float), MemoryUse::DeviceLocal);
    Buffer small = gpu_floats(device(), k), y = gpu_floats(device(), 64);
    MatMul kernel(device());
    DescriptorArena arena(device());
    const std::string m = message([&] {
      submit_and_wait(device(),
                      [&](VkCommandBuffer cmd) { kernel.record(cmd, arena, p, big, small, y); });
    });
    EXPECT_NE(m.find("storage-buffer range"), std::string::npos) << m;
  }

  // Four batch dimensions that alternate between A and B cannot merge into the shader's three.
  MatMulEpilogue none;
  uint32_t batches = 0;
  EXPECT_NE(message([&] {
              matmul_push_constants(matmul_problem({2, 1, 3, 1, 5, 2}, {1, 4, 1, 3, 2, 3}), none,
                                    &batches);
            }).find("more than 3"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::gpu_compute
