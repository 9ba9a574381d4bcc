// Trilu, TopK and Shape as GPU-pixel draws, beyond the cases both backends share (the Trilu
// cases, backend_ops_test.cpp's TopK, Shape and Size cases): the dtypes only the pixel backend
// takes (float16, uint32, the 8-bit integers), TopK with sorted = 0, and values the host reads
// per run (k and K as graph inputs, a k beyond 32 bits). And bad input is the definition's
// kiln::Error on the draws, as on the CPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend_op_cases.h"
#include "backends/gpu_pixel/loop_budget.h"
#include "gpu_pixel_fixture.h"
#include "kernels/device_backend.h"

namespace kiln::testing {
namespace {

// uint32 values above and below 2^31, with ties.
Tensor wide_uint32(const Shape& shape, unsigned seed) {
  std::vector<uint32_t> v;
  for (int32_t x : random_int<int32_t>(shape, seed, -4, 4).to_vector<int32_t>())
    v.push_back(static_cast<uint32_t>(x) * 0x40000001u);
  return Tensor::from_data<uint32_t>(shape, v);
}

void add_pixel_trilu_cases(std::vector<OpCase>& c) {
  // float16 (with NaN and -inf) and uint32: the GPU-compute kernel takes neither.
  c.push_back({"Trilu_float16_upper_k1", [] {
                 return OpTest("Trilu")
                     .input(few_values(DataType::Float16, {2, 3, 5}, 600))
                     .input(i64({}, {1}))
                     .constant_input(1);
               }});
  c.back().on_compute = false;
  c.push_back({"Trilu_uint32_lower_km2", [] {
                 return OpTest("Trilu")
                     .input(wide_uint32({4, 6}, 601))
                     .input(i64({}, {-2}))
                     .constant_input(1)
                     .attr("upper", int64_t{0});
               }});
  c.back().on_compute = false;
  // k beyond 32 bits either way: every element kept or every one zeroed.
  for (int64_t k : {int64_t{5000000000}, int64_t{-5000000000}}) {
    for (int64_t upper : {0, 1}) {
      c.push_back(
          {"Trilu_int64_k" + std::string(k < 0 ? "m" : "") + "5e9_" + (upper ? "upper" : "lower"),
           [k, upper] {
             return OpTest("Trilu")
                 .input(few_values(DataType::Int64, {3, 4}, 602))
                 .input(i64({}, {k}))
                 .constant_input(1)
                 .attr("upper", upper);
           }});
    }
  }
  // k a graph input: read on the host per run.
  c.push_back({"Trilu_k_graph_input", [] {
                 return OpTest("Trilu").input(random_f32({3, 4, 4}, 603)).input(i64({}, {-1}));
               }});
}

void add_pixel_top_k_cases(std::vector<OpCase>& c) {
  // Dtypes the GPU-compute kernel leaves to the CPU: float16 (NaN and -inf among ties), int8 and
  // uint16.
  const std::vector<std::pair<std::string, Tensor>> inputs = {
      {"float16", few_values(DataType::Float16, {4, 7}, 610)},
      {"int8", few_values(DataType::Int8, {4, 7}, 611)},
      {"uint16", few_values(DataType::UInt16, {4, 7}, 612)}};
  for (const auto& [name, x] : inputs) {
    for (int64_t largest : {0, 1}) {
      c.push_back({"TopK_pixel_" + name + (largest ? "_largest" : "_smallest"), [x = x, largest] {
                     return OpTest("TopK", 11)
                         .input(x)
                         .input(i64({1}, {4}))
                         .constant_input(1)
                         .outputs(2)
                         .attr("axis", int64_t{1})
                         .attr("largest", largest);
                   }});
      c.back().on_compute = false;
    }
  }
  // sorted = 0: the chosen elements in the order of their indices (the CPU's choice), along the
  // first axis and the last, with ties and a NaN.
  for (int64_t axis : {0, -1}) {
    for (int64_t largest : {0, 1}) {
      c.push_back(
          {"TopK_unsorted_axis" + std::to_string(axis + 1) + (largest ? "_largest" : "_smallest"),
           [axis, largest] {
             return OpTest("TopK", 11)
                 .input(few_values(DataType::Float32, {6, 5}, 614))
                 .input(i64({1}, {3}))
                 .constant_input(1)
                 .outputs(2)
                 .attr("axis", axis)
                 .attr("largest", largest)
                 .attr("sorted", int64_t{0});
           }});
      c.back().on_compute = false;
    }
  }
  // K a graph input (read on the host per run), and lines of several hundred elements.
  c.push_back({"TopK_K_graph_input", [] {
                 return OpTest("TopK", 11)
                     .input(few_values(DataType::Int64, {3, 8}, 615))
                     .input(i64({1}, {5}))
                     .outputs(2);
               }});
  c.push_back({"TopK_long_lines", [] {
                 return OpTest("TopK", 11)
                     .input(random_f32({2, 300, 3}, 616))
                     .input(i64({1}, {7}))
                     .constant_input(1)
                     .outputs(2)
                     .attr("axis", int64_t{1});
               }});
}

// Shape reads only its input's shape: inputs of dtypes no texture holds, and int64 ones.
void add_pixel_shape_cases(std::vector<OpCase>& c) {
  c.push_back({"Shape_of_float64", [] {
                 return OpTest("Shape").input(Tensor::zeros(DataType::Float64, {2, 3, 4}));
               }});
  c.push_back({"Size_of_int64_scalar", [] { return OpTest("Size").input(i64({}, {7})); }});
}

REGISTER_OP_CASES(add_pixel_trilu_cases);
REGISTER_OP_CASES(add_pixel_top_k_cases);
REGISTER_OP_CASES(add_pixel_shape_cases);

}  // namespace
}  // namespace kiln::testing

namespace kiln::gpu_pixel {
namespace {

using kiln::testing::i64;
using kiln::testing::OpTest;
using kiln::testing::random_f32;

// The error of running `test` on `worker`, or "" when it ran.
std::string run_error(const OpTest& test, Worker& worker) {
  try {
    test.run(worker);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// k and K are graph inputs here, so only the run tells they are wrong: the draws' recording
// resolves them with the definition, whose error is the CPU kernel's.
TEST_F(GpuPixel, TopKAndTriluRejectBadInputsAsTheCpuDoes) {
  const std::vector<std::pair<std::string, OpTest>> bad = {
      {"TopK K beyond the axis",
       OpTest("TopK", 11).input(random_f32({2, 6}, 620)).input(i64({1}, {9})).outputs(2)},
      {"TopK negative K",
       OpTest("TopK", 11).input(random_f32({2, 6}, 621)).input(i64({1}, {-1})).outputs(2)},
      {"TopK K of two values",
       OpTest("TopK", 11).input(random_f32({2, 6}, 622)).input(i64({2}, {1, 2})).outputs(2)},
      {"Trilu of a vector", OpTest("Trilu").input(random_f32({5}, 623)).input(i64({}, {0}))},
      {"Trilu k of two values",
       OpTest("Trilu").input(random_f32({3, 3}, 624)).input(i64({2}, {0, 1}))},
  };
  for (const auto& [what, test] : bad) {
    SCOPED_TRACE(what);
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

// A line so long that ranking it would loop past the device's budget (llvmpipe cuts loops short
// after 65535 steps) runs on the CPU for that run, with the reason, and gives the CPU's result;
// a device without such a cut runs it natively.
TEST_F(GpuPixel, TopKOfLinesBeyondTheLoopBudgetRunsOnTheCpu) {
  const int64_t budget = context().info().max_fragment_loop_steps;
  const bool limited = budget != kUnlimitedLoopSteps;
  // The rank draw walks the line once for each of a fragment's four elements.
  const int64_t n = limited ? budget / 4 + 1 : 1000;
  const OpTest test = OpTest("TopK", 11)
                          .input(random_f32({2, n}, 625))
                          .input(i64({1}, {3}))
                          .constant_input(1)
                          .outputs(2);
  Worker worker(test.model(), Backend::GpuPixel);
  for (const NodePlacement& p : worker.placements()) {
    EXPECT_EQ(p.backend, Backend::GpuPixel) << p.op_type << ": " << p.fallback_reason;
  }
  const RunTimeFallbacks before = run_time_fallbacks();
  const std::vector<Tensor> actual = test.run(worker);
  const RunTimeFallbacks after = run_time_fallbacks();
  EXPECT_EQ(after.count - before.count, limited ? 1u : 0u);
  if (limited) EXPECT_NE(after.last_reason.find("loop"), std::string::npos) << after.last_reason;
  const std::vector<Tensor> expected = test.run(Backend::Cpu);
  ASSERT_EQ(actual.size(), 2u);
  EXPECT_EQ(actual[0].to_vector<float>(), expected[0].to_vector<float>());
  EXPECT_EQ(actual[1].to_vector<int64_t>(), expected[1].to_vector<int64_t>());
}

}  // namespace
}  // namespace kiln::gpu_pixel
