// The GPU-pixel draws that resolve each run with their op's definition (opdefs) reject bad
// inputs with the definition's kiln::Error, the same words as the CPU kernel's, while the node
// stays placed on the GPU: no crash, and no silent rerun on the CPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend_op_cases.h"
#include "gpu_pixel_fixture.h"
#include "kernels/device_backend.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

using kiln::testing::i64;
using kiln::testing::OpTest;

// The error of running `test` on `worker`, or "" when it ran.
std::string run_error(const OpTest& test, Worker& worker) {
  try {
    test.run(worker);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(GpuPixel, DefinitionsRejectBadInputsOfTheDraws) {
  const std::vector<std::pair<std::string, OpTest>> bad = {
      // A length beyond the time steps (sequence_lens is a graph input: known only per run).
      {"ReverseSequence", OpTest("ReverseSequence", 10)
                              .input(kiln::testing::random_f32({4, 2, 3}, 470))
                              .input(i64({2}, {2, 9}))},
      // An axis the input does not have (the attribute is checked against each run's rank).
      {"MeanVarianceNormalization", OpTest("MeanVarianceNormalization", 13)
                                        .input(kiln::testing::random_f32({2, 3}, 471))
                                        .attr("axes", std::vector<int64_t>{0, 4})},
      // A lower edge above the upper one.
      {"MelWeightMatrix", OpTest("MelWeightMatrix", 17)
                              .input(i64({}, {8}))
                              .input(i64({}, {16}))
                              .input(i64({}, {8192}))
                              .input(Tensor::scalar<float>(900.0f))
                              .input(Tensor::scalar<float>(100.0f))},
      // A non-positive transform length.
      {"DFT", OpTest("DFT", 17)
                  .input(kiln::testing::random_f32({1, 8, 1}, 472))
                  .input(i64({}, {0}))
                  .attr("axis", int64_t{1})},
  };
  for (const auto& [op, test] : bad) {
    SCOPED_TRACE(op);
    Worker worker(test.model(), Backend::GpuPixel);
    for (const NodePlacement& p : worker.placements()) {
      EXPECT_EQ(p.backend, Backend::GpuPixel) << p.op_type << ": " << p.fallback_reason;
    }
    Worker cpu(test.model(), Backend::Cpu);
    const std::string expected = run_error(test, cpu);
    ASSERT_FALSE(expected.empty()) << "the CPU kernel took the input";
    const RunTimeFallbacks before = run_time_fallbacks();
    EXPECT_EQ(run_error(test, worker), expected);
    EXPECT_EQ(run_time_fallbacks().count, before.count) << "the node reran on the CPU";
  }
}

}  // namespace
}  // namespace kiln::gpu_pixel
