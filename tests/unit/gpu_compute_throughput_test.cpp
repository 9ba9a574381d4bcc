// Throughput of the matmul and conv shaders, for reading by hand (disabled: timings are not
// tests, and lavapipe on a shared host varies widely). Run with
//   kiln_tests --gtest_also_run_disabled_tests --gtest_filter='GpuCompute.DISABLED_Throughput*'
// Reports the best of several runs after a warm-up (pipelines are compiled at first dispatch),
// in wall time and in process CPU time, which moves less when other processes share the cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/conv.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/matmul.h"
#include "gpu_compute_fixture.h"
#include "gpu_compute_float_util.h"

namespace kiln::gpu_compute {
namespace {

struct Timing {
  double wall = 1e9, cpu = 1e9;  // seconds, best of the runs
};

template <class Record>
Timing best_of(Device& device, Record&& record, int runs = 10) {
  DescriptorArena arena(device);
  submit_and_wait(device, [&](VkCommandBuffer cmd) { record(cmd, arena); });
  Timing best;
  for (int i = 0; i < runs; ++i) {
    arena.reset();
    const auto wall0 = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    submit_and_wait(device, [&](VkCommandBuffer cmd) { record(cmd, arena); });
    best.cpu = std::min(best.cpu, static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC);
    best.wall = std::min(
        best.wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
  }
  return best;
}

void report(const std::string& what, double flops, Timing t) {
  std::printf("%-40s %8.2f ms  %6.1f GFLOP/s wall  %6.1f GFLOP/s per CPU second\n", what.c_str(),
              t.wall * 1e3, flops / t.wall / 1e9, flops / t.cpu / 1e9);
}

TEST_F(GpuCompute, DISABLED_ThroughputMatMul) {
  MatMul kernel(device());
  for (int64_t s : {256, 512, 1024}) {
    for (bool trans_b : {false, true}) {
      const Tensor a = random_floats({s, s}, 1), b = random_floats({s, s}, 2);
      Buffer ga = to_gpu(device(), a), gb = to_gpu(device(), b);
      Buffer gy = gpu_floats(device(), s * s);
      const MatMulProblem p = gemm_problem(a.shape(), b.shape(), false, trans_b);
      const Timing t = best_of(device(), [&](VkCommandBuffer cmd, DescriptorArena& arena) {
        kernel.record(cmd, arena, p, ga, gb, gy);
      });
      report("matmul " + std::to_string(s) + "^3" + (trans_b ? " transB" : ""), 2.0 * s * s * s, t);
    }
  }
}

TEST_F(GpuCompute, DISABLED_ThroughputConv) {
  struct Case {
    const char* name;
    Shape x, w;
    int64_t group, stride, pad;
  };
  const Case cases[] = {
      {"ResNet 3x3 64->64 at 56x56", {1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, 1},
      {"ResNet 1x1 256->64 at 56x56", {1, 256, 56, 56}, {64, 256, 1, 1}, 1, 1, 0},
      {"depthwise 3x3 144 at 56x56", {1, 144, 56, 56}, {144, 1, 3, 3}, 144, 1, 1},
      {"depthwise 3x3 s2 144 at 56x56", {1, 144, 56, 56}, {144, 1, 3, 3}, 144, 2, 1},
      {"stem 7x7 s2 3->64 at 224x224", {1, 3, 224, 224}, {64, 3, 7, 7}, 1, 2, 3},
  };
  Conv kernel(device());
  for (const Case& c : cases) {
    const int64_t out = (c.x[2] + 2 * c.pad - c.w[2]) / c.stride + 1;
    ConvProblem p;
    p.geometry = {Shape{c.x[2], c.x[3]},     Shape{out, out}, Shape{c.w[2], c.w[3]},
                  Shape{c.stride, c.stride}, Shape{1, 1},     Shape{c.pad, c.pad}};
    p.in_channels = c.x[1];
    p.out_channels = c.w[0];
    p.group = c.group;
    Buffer gx = to_gpu(device(), random_floats(c.x, 1));
    Buffer gw = to_gpu(device(), random_floats(c.w, 2));
    Buffer gb = to_gpu(device(), random_floats({c.w[0]}, 3));
    Buffer gy = gpu_floats(device(), c.w[0] * out * out);
    const Timing t = best_of(device(), [&](VkCommandBuffer cmd, DescriptorArena& arena) {
      kernel.record(cmd, arena, p, gx, gw, &gb, gy, {Activation::kRelu});
    });
    report(c.name, 2.0 * c.w[0] * out * out * c.w[1] * c.w[2] * c.w[3], t);
  }
}

}  // namespace
}  // namespace kiln::gpu_compute
