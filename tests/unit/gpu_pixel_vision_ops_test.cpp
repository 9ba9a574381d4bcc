// GPU-pixel draws whose checks are their op's definition (src/opdefs) reject bad input with a
// kiln::Error naming the node, as the CPU kernels do (their values against the CPU are the op
// harness's cases, backend_ops_vision_cases.cpp and backend_ops_strided_copy_cases.cpp). Each
// node is checked to be placed on the GPU first, so the error comes from the draw's recording,
// not from a CPU fallback.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "backend_op_cases.h"
#include "kiln/error.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// Runs `test` natively on GPU-pixel, expecting a kiln::Error that names the node's op type and
// contains `words`; skipped without an OpenGL ES device.
void expect_run_error(const OpTest& test, const std::string& op_type, const std::string& words) {
  const Model model = test.model();
  std::optional<Worker> worker;
  try {
    worker.emplace(model, Backend::GpuPixel);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << "gpu-pixel is not available here: " << e.what();
  }
  for (const NodePlacement& p : worker->placements()) {
    ASSERT_EQ(p.backend, Backend::GpuPixel) << p.op_type << " fell back: " << p.fallback_reason;
  }
  try {
    test.run(*worker);
    ADD_FAILURE() << "no error for bad " << op_type << " input";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(op_type), std::string::npos) << what;
    EXPECT_NE(what.find(words), std::string::npos) << what;
  }
}

TEST(GpuPixelVisionOps, MaxUnpoolWithTooSmallAnOutputShapeIsAnError) {
  expect_run_error(OpTest("MaxUnpool", 11)
                       .input(f32({1, 1, 1, 2}, {1, 2}))
                       .input(i64({1, 1, 1, 2}, {0, 3}))
                       .input(i64({4}, {1, 1, 1, 3}))
                       .attr("kernel_shape", std::vector<int64_t>{1, 2})
                       .attr("strides", std::vector<int64_t>{1, 2}),
                   "MaxUnpool", "must have X's rank and be at least the unpooled shape");
}

TEST(GpuPixelVisionOps, RoiAlignWithABatchIndexOutsideTheBatchIsAnError) {
  expect_run_error(OpTest("RoiAlign", 16)
                       .input(f32({1, 1, 2, 2}, {1, 2, 3, 4}))
                       .input(f32({1, 4}, {0, 0, 1, 1}))
                       .input(i64({1}, {1})),
                   "RoiAlign", "outside the batch");
}

TEST(GpuPixelVisionOps, DeformConvWithAnOffsetOfTheWrongShapeIsAnError) {
  expect_run_error(OpTest("DeformConv", 19)
                       .input(f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}))
                       .input(f32({1, 1, 2, 2}, {1, 1, 1, 1}))
                       .input(f32({1, 8, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0})),
                   "DeformConv", "offset must have shape");
}

// Indices past the cache in linear mode are the node's error on the GPU as on the CPU.
TEST(GpuPixelVisionOps, TensorScatterWriteIndexPastTheCacheIsAnError) {
  expect_run_error(OpTest("TensorScatter", 24)
                       .input(random_f32({2, 4, 3}, 1))
                       .input(random_f32({2, 2, 3}, 2))
                       .input(i64({2}, {0, 3})),
                   "TensorScatter", "write_indices[1] = 3");
}

}  // namespace
}  // namespace kiln::testing
