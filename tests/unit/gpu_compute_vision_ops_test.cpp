// GPU-compute kernels whose checks are their op's definition (src/opdefs) reject bad input with
// a kiln::Error naming the node, as the CPU kernels do (their values against the CPU are the op
// harness's cases, backend_ops_vision_cases.cpp). Each node is checked to be placed on the GPU
// first, so the error comes from the GPU kernel's recording, not from a CPU fallback.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "backends/gpu_compute/device.h"
#include "gpu_compute_fixture.h"
#include "kiln/error.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// The worker for `test` on GPU-compute with every node native; nullopt (the test skipped) without
// a Vulkan device.
std::optional<Worker> native_worker(const Model& model) {
  std::optional<Worker> worker;
  try {
    worker.emplace(model, Backend::GpuCompute);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    return std::nullopt;
  }
  for (const NodePlacement& p : worker->placements()) {
    EXPECT_EQ(p.backend, Backend::GpuCompute) << p.op_type << " fell back: " << p.fallback_reason;
  }
  return worker;
}

// Runs `test` natively on GPU-compute, expecting a kiln::Error that names the node's op type and
// contains `words`, with the validation layer silent.
void expect_run_error(const OpTest& test, const std::string& op_type, const std::string& words) {
  gpu_compute::ScopedEnv validation("KILN_VULKAN_VALIDATION", "1");
  gpu_compute::clear_validation_messages_of_all_devices();
  const Model model = test.model();
  std::optional<Worker> worker = native_worker(model);
  if (!worker) GTEST_SKIP() << "no Vulkan device";
  try {
    test.run(*worker);
    ADD_FAILURE() << "no error for bad " << op_type << " input";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(op_type), std::string::npos) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
  for (const std::string& m : gpu_compute::validation_messages_of_all_devices()) ADD_FAILURE() << m;
}

TEST(GpuComputeVisionOps, RangeWithZeroDeltaIsAnError) {
  expect_run_error(OpTest("Range")
                       .input(Tensor::scalar<float>(1.0f))
                       .input(Tensor::scalar<float>(5.0f))
                       .input(Tensor::scalar<float>(0.0f)),
                   "Range", "delta must not be zero");
}

TEST(GpuComputeVisionOps, RangeOfNonScalarsIsAnError) {
  expect_run_error(OpTest("Range")
                       .input(f32({2}, {1, 2}))
                       .input(Tensor::scalar<float>(5.0f))
                       .input(Tensor::scalar<float>(1.0f)),
                   "Range", "must be scalars");
}

TEST(GpuComputeVisionOps, MeanVarianceNormalizationAxisOutOfRangeIsAnError) {
  expect_run_error(OpTest("MeanVarianceNormalization")
                       .input(f32({2, 3}, {1, 2, 3, 4, 5, 6}))
                       .attr("axes", std::vector<int64_t>{0, 2}),
                   "MeanVarianceNormalization", "out of range");
}

TEST(GpuComputeVisionOps, DetOfNonSquareMatricesIsAnError) {
  expect_run_error(OpTest("Det").input(f32({2, 3}, {1, 2, 3, 4, 5, 6})), "Det", "[*, M, M]");
}

TEST(GpuComputeVisionOps, MelWeightMatrixBeyondTheSpectrumIsAnError) {
  expect_run_error(OpTest("MelWeightMatrix")
                       .input(Tensor::scalar<int64_t>(8))
                       .input(Tensor::scalar<int64_t>(16))
                       .input(Tensor::scalar<int64_t>(1000))
                       .input(Tensor::scalar<float>(0.0f))
                       .input(Tensor::scalar<float>(4000.0f)),
                   "MelWeightMatrix", "beyond the spectrum");
}

TEST(GpuComputeVisionOps, MaxUnpoolWithTooSmallAnOutputShapeIsAnError) {
  expect_run_error(OpTest("MaxUnpool", 11)
                       .input(f32({1, 1, 1, 2}, {1, 2}))
                       .input(i64({1, 1, 1, 2}, {0, 3}))
                       .input(i64({4}, {1, 1, 1, 3}))
                       .attr("kernel_shape", std::vector<int64_t>{1, 2})
                       .attr("strides", std::vector<int64_t>{1, 2}),
                   "MaxUnpool", "must have X's rank and be at least the unpooled shape");
}

TEST(GpuComputeVisionOps, RoiAlignWithABatchIndexOutsideTheBatchIsAnError) {
  expect_run_error(OpTest("RoiAlign", 16)
                       .input(f32({1, 1, 2, 2}, {1, 2, 3, 4}))
                       .input(f32({1, 4}, {0, 0, 1, 1}))
                       .input(i64({1}, {1})),
                   "RoiAlign", "outside the batch");
}

TEST(GpuComputeVisionOps, DeformConvWithAnOffsetOfTheWrongShapeIsAnError) {
  expect_run_error(OpTest("DeformConv", 19)
                       .input(f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}))
                       .input(f32({1, 1, 2, 2}, {1, 1, 1, 1}))
                       .input(f32({1, 8, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0})),
                   "DeformConv", "offset must have shape");
}

TEST(GpuComputeVisionOps, LrnWithoutAPositiveSizeIsAnError) {
  const OpTest test = OpTest("LRN").input(f32({1, 2, 1, 1}, {1, 2})).attr("size", int64_t{0});
  try {
    Worker worker(test.model(), Backend::GpuCompute);
    ADD_FAILURE() << "no error for LRN with size 0";
  } catch (const Error& e) {
    if (is_no_device_error(e)) GTEST_SKIP() << e.what();
    EXPECT_NE(std::string(e.what()).find("size must be positive"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
