#include <gtest/gtest.h>

#include <optional>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// ReverseSequence (GPU-compute only) and TensorScatter: both axis orders, lengths of zero and
// of the whole sequence, inner dimensions, int64 and int32 data; TensorScatter's linear and
// circular modes (wrapping and not), its default axis and write_indices, a middle axis.
void add_strided_copy_cases(std::vector<OpCase>& c) {
  auto add = [&c](std::string name, std::function<OpTest()> make) {
    const bool on_pixel = name.rfind("TensorScatter", 0) == 0;
    c.push_back({std::move(name), std::move(make)});
    c.back().on_pixel = on_pixel;
  };
  add("ReverseSequence_time_major", [] {
    return OpTest("ReverseSequence")
        .input(random_f32({5, 4, 3}, 1001))
        .input(i64({4}, {5, 0, 2, 1}))
        .attr("batch_axis", int64_t{1})
        .attr("time_axis", int64_t{0});
  });
  add("ReverseSequence_batch_major_int64", [] {
    return OpTest("ReverseSequence")
        .input(random_int<int64_t>({3, 6, 2}, 1002))
        .input(i64({3}, {6, 3, 1}))
        .attr("batch_axis", int64_t{0})
        .attr("time_axis", int64_t{1});
  });
  add("ReverseSequence_2d_int32", [] {
    return OpTest("ReverseSequence")
        .input(random_int<int32_t>({4, 4}, 1003))
        .input(i64({4}, {4, 3, 2, 1}))
        .constant_input(1);
  });
  add("TensorScatter_linear", [] {
    return OpTest("TensorScatter", 24)
        .input(random_f32({2, 3, 6, 4}, 1004))
        .input(random_f32({2, 3, 2, 4}, 1005))
        .input(i64({2}, {0, 4}))
        .attr("mode", "linear");
  });
  add("TensorScatter_circular_wraps", [] {
    return OpTest("TensorScatter", 24)
        .input(random_f32({3, 2, 5, 3}, 1006))
        .input(random_f32({3, 2, 3, 3}, 1007))
        .input(i64({3}, {4, 1, 7}))
        .attr("mode", "circular");
  });
  add("TensorScatter_no_indices_middle_axis_int64", [] {
    return OpTest("TensorScatter", 24)
        .input(random_int<int64_t>({2, 5, 3}, 1008))
        .input(random_int<int64_t>({2, 2, 3}, 1009))
        .attr("axis", int64_t{1});
  });
}

REGISTER_OP_CASES(add_strided_copy_cases);

// Indices past the cache in linear mode are the node's error on the GPU as on the CPU.
TEST(GpuComputeTensorScatter, WriteIndexPastTheCacheIsAnError) {
  OpTest test("TensorScatter", 24);
  test.input(random_f32({2, 4, 3}, 1)).input(random_f32({2, 2, 3}, 2)).input(i64({2}, {0, 3}));
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), Backend::GpuCompute);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << "gpu-compute is not available here: " << e.what();
  }
  try {
    test.run(*worker);
    ADD_FAILURE() << "wrote 2 updates from position 3 into a cache of length 4";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("write_indices[1] = 3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
