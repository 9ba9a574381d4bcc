// Ops whose output's shape depends on the data, in the GPU op harness (GPU-compute only):
// NonZero and NonMaxSuppression, which count on the device and read the count back, and
// Compress, whose host condition picks the slices a Gather copies. Compared exactly with the CPU.
#include <gtest/gtest.h>

#include <optional>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// NonZero over every element size: -0.0 is zero and NaN is not, int64 values zero only in their
// low word, scalars, empty tensors and inputs over several of the kernel's chunks.
void add_non_zero_cases(std::vector<OpCase>& c) {
  const size_t first = c.size();
  const auto nan = std::nanf("");
  c.push_back(
      {"NonZero_float32_signed_zero_nan", [nan] {
         return OpTest("NonZero", 13).input(f32({2, 3}, {0.0f, -0.0f, 1.5f, nan, 0.0f, -2.0f}));
       }});
  c.push_back({"NonZero_int64_high_word", [] {
                 return OpTest("NonZero", 13)
                     .input(
                         i64({2, 2, 2}, {0, int64_t{1} << 33, 0, -1, 5, 0, 0, int64_t{1} << 40}));
               }});
  for (DataType t : {DataType::Bool, DataType::UInt8, DataType::Int32, DataType::Float16}) {
    c.push_back({"NonZero_few_values_" + std::string(dtype_name(t)), [t] {
                   return OpTest("NonZero", 13).input(few_values(t, {3, 4, 5}, 1010));
                 }});
  }
  c.push_back({"NonZero_many_chunks", [] {
                 return OpTest("NonZero", 13).input(random_int<int32_t>({7, 300}, 1011, -1, 1));
               }});
  c.push_back({"NonZero_scalar", [] { return OpTest("NonZero", 13).input(f32({}, {3.0f})); }});
  c.push_back({"NonZero_empty", [] { return OpTest("NonZero", 13).input(f32({2, 0, 3}, {})); }});
  c.push_back({"NonZero_all_zero", [] {
                 return OpTest("NonZero", 13).input(f32({4}, {0.0f, 0.0f, -0.0f, 0.0f}));
               }});
  for (size_t i = first; i < c.size(); ++i) c[i].on_pixel = false;
}

Tensor condition(std::vector<bool> keep) {
  return Tensor::from_data<bool>(Shape{static_cast<int64_t>(keep.size())}, keep);
}

// Compress along an axis (negative too), flattened without one, with a shorter condition, with
// none picked; float32, int32 and int64.
void add_compress_cases(std::vector<OpCase>& c) {
  const size_t first = c.size();
  c.push_back({"Compress_axis0_float32", [] {
                 return OpTest("Compress", 11)
                     .input(random_f32({4, 3}, 1020))
                     .input(condition({true, false, true, true}))
                     .attr("axis", int64_t{0});
               }});
  c.push_back({"Compress_negative_axis_int64_short_condition", [] {
                 return OpTest("Compress", 11)
                     .input(random_int<int64_t>({2, 3, 5}, 1021, -100, 100))
                     .input(condition({false, true, false, true}))
                     .attr("axis", int64_t{-1});
               }});
  c.push_back({"Compress_flattened_int32", [] {
                 return OpTest("Compress", 11)
                     .input(random_int<int32_t>({3, 4}, 1022))
                     .input(condition({true, false, false, true, true, false, true}));
               }});
  c.push_back({"Compress_none_picked", [] {
                 return OpTest("Compress", 11)
                     .input(random_f32({3, 2}, 1023))
                     .input(condition({false, false}))
                     .attr("axis", int64_t{1});
               }});
  for (size_t i = first; i < c.size(); ++i) c[i].on_pixel = false;
}

// Boxes [batches, boxes, 4] in corner form with the corners in either order (or, with
// `center`, centres and positive sizes), on a small grid so that many overlap.
Tensor nms_boxes(int64_t batches, int64_t boxes, unsigned seed, bool center) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> at(0, 8), size(1, 4);
  std::vector<float> v;
  for (int64_t i = 0; i < batches * boxes; ++i) {
    const float y = static_cast<float>(at(rng)), x = static_cast<float>(at(rng));
    const float h = static_cast<float>(size(rng)), w = static_cast<float>(size(rng));
    if (center) {
      v.insert(v.end(), {x, y, w, h});
    } else if (i % 3 == 1) {
      v.insert(v.end(), {y + h, x + w, y, x});  // flipped corners
    } else {
      v.insert(v.end(), {y, x, y + h, x + w});
    }
  }
  return f32({batches, boxes, 4}, v);
}

// NonMaxSuppression: corner and centre boxes, scores with ties and a NaN, with and without a
// score threshold, a count limit, several batches and classes, no count (nothing kept).
void add_non_max_suppression_cases(std::vector<OpCase>& c) {
  const size_t first = c.size();
  struct NCase {
    std::string name;
    int64_t batches, classes, boxes, max_out;
    float iou, score;  // score < 0: no score threshold
    bool center;
  };
  const std::vector<NCase> ns = {
      {"corners", 1, 1, 12, 10, 0.3f, -1.0f, false},
      {"center_limit", 2, 3, 9, 2, 0.5f, -1.0f, true},
      {"score_threshold", 2, 2, 16, 16, 0.1f, 0.4f, false},
      {"no_overlap_allowed", 1, 2, 20, 20, 0.0f, 0.2f, false},
  };
  for (size_t i = 0; i < ns.size(); ++i) {
    c.push_back({"NonMaxSuppression_" + ns[i].name, [n = ns[i], i] {
                   const auto seed = 1040 + static_cast<unsigned>(10 * i);
                   // Scores in steps of 0.125: ties; one NaN.
                   Tensor scores = random_int<int32_t>({n.batches, n.classes, n.boxes}, seed, 0, 8);
                   std::vector<float> sv;
                   for (int32_t k : scores.to_vector<int32_t>()) sv.push_back(0.125f * k);
                   sv[1] = std::nanf("");
                   OpTest t("NonMaxSuppression", 11);
                   t.input(nms_boxes(n.batches, n.boxes, seed + 1, n.center))
                       .input(f32({n.batches, n.classes, n.boxes}, sv))
                       .input(i64({1}, {n.max_out}))
                       .input(f32({1}, {n.iou}));
                   if (n.score >= 0) t.input(f32({1}, {n.score}));
                   if (n.center) t.attr("center_point_box", int64_t{1});
                   return t;
                 }});
  }
  c.push_back({"NonMaxSuppression_no_count", [] {
                 return OpTest("NonMaxSuppression", 11)
                     .input(nms_boxes(1, 5, 1090, false))
                     .input(random_f32({1, 1, 5}, 1091, 0.0f, 1.0f));
               }});
  for (size_t i = first; i < c.size(); ++i) c[i].on_pixel = false;
}

REGISTER_OP_CASES(add_non_zero_cases);
REGISTER_OP_CASES(add_compress_cases);
REGISTER_OP_CASES(add_non_max_suppression_cases);

// A condition picking an index past the axis fails the GPU-compute run with the definition's
// kiln::Error, as on the CPU.
TEST(GpuComputeDataDependentOps, CompressBeyondTheAxisIsAnError) {
  const OpTest test = OpTest("Compress", 11)
                          .input(random_f32({2, 3}, 1030))
                          .input(condition({false, true, true}))
                          .attr("axis", int64_t{0});
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), Backend::GpuCompute);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << "gpu-compute is not available here: " << e.what();
  }
  for (const NodePlacement& p : worker->placements()) EXPECT_EQ(p.backend, Backend::GpuCompute);
  try {
    test.run(*worker);
    ADD_FAILURE() << "no error for a condition beyond the axis";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("condition selects index 2 beyond the axis of size 2"),
              std::string::npos)
        << e.what();
  }
}

TEST(GpuComputeDataDependentOps, NonMaxSuppressionBoxesOfTheWrongShapeAreAnError) {
  const OpTest test = OpTest("NonMaxSuppression", 11)
                          .input(random_f32({1, 4, 3}, 1095))
                          .input(random_f32({1, 1, 4}, 1096))
                          .input(i64({1}, {3}));
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), Backend::GpuCompute);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << "gpu-compute is not available here: " << e.what();
  }
  for (const NodePlacement& p : worker->placements()) EXPECT_EQ(p.backend, Backend::GpuCompute);
  try {
    test.run(*worker);
    ADD_FAILURE() << "no error for boxes of shape [1,4,3]";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("boxes must have shape (batches, boxes, 4)"),
              std::string::npos)
        << e.what();
  }
}

// NonZero reads its count back while recording, so the node records afresh every run rather than
// replaying the first run's dispatches: two runs of one worker with different values give each
// its own count.
TEST(GpuComputeDataDependentOps, NonZeroCountsEachRun) {
  const OpTest first = OpTest("NonZero", 13).input(f32({2, 3}, {1, 0, 2, 0, 0, 3}));
  const OpTest second = OpTest("NonZero", 13).input(f32({2, 3}, {0, 0, 0, 4, 0, 0}));
  std::optional<Worker> worker;
  try {
    worker.emplace(first.model(), Backend::GpuCompute);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << "gpu-compute is not available here: " << e.what();
  }
  for (const OpTest* test : {&first, &second, &first}) {
    const std::vector<Tensor> expected = test->run(Backend::Cpu);
    const std::vector<Tensor> actual = test->run(*worker);
    ASSERT_EQ(actual[0].shape(), expected[0].shape());
    EXPECT_EQ(actual[0].to_vector<int64_t>(), expected[0].to_vector<int64_t>());
  }
}

}  // namespace
}  // namespace kiln::testing
