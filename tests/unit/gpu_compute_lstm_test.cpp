// What the GPU-compute LSTM leaves to the CPU, and how: attributes outside the step kernel's
// subset at load time with a reason, sequence lengths shorter than the sequence at run time, and
// bad shapes reported by the CPU kernel. (The op harness, backend_ops_test.cpp, checks the
// native results.)
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gpu_compute_fixture.h"
#include "test_util.h"

namespace kiln::gpu_compute {
namespace {

using kiln::testing::OpTest;

Tensor random_f32(const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = dist(rng);
  return Tensor::from_data<float>(shape, v);
}

constexpr int64_t kSeq = 3, kBatch = 2, kInput = 4, kHidden = 5;

// A forward LSTM with constant weights; sequence_lens (input 4) is a graph input when given.
OpTest lstm(const Tensor& sequence_lens = Tensor(),
            const Shape& w_shape = {1, 4 * kHidden, kInput}) {
  OpTest t("LSTM");
  t.input(random_f32({kSeq, kBatch, kInput}, 1))
      .input(random_f32(w_shape, 2))
      .input(random_f32({1, 4 * kHidden, kHidden}, 3))
      .input(random_f32({1, 8 * kHidden}, 4))
      .input(sequence_lens)
      .attr("hidden_size", kHidden)
      .outputs(3)
      .constant_input(1)
      .constant_input(2)
      .constant_input(3);
  return t;
}

class GpuComputeLstm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!shared_device().device) GTEST_SKIP() << shared_device().skip_reason;
  }

  // The LSTM node's placement on the GPU-compute backend.
  static NodePlacement placement(const OpTest& test) {
    const std::vector<NodePlacement> p = Worker(test.model(), Backend::GpuCompute).placements();
    EXPECT_EQ(p.size(), 1u);
    return p.at(0);
  }
};

TEST_F(GpuComputeLstm, AttributesOutsideTheKernelStayOnTheCpuWithAReason) {
  struct Case {
    std::string attribute;
    std::function<void(OpTest&)> set;
  };
  const std::vector<Case> cases = {
      {"clip", [](OpTest& t) { t.attr("clip", 2.0f); }},
      {"input_forget", [](OpTest& t) { t.attr("input_forget", int64_t{1}); }},
      {"activations",
       [](OpTest& t) {
         t.attr("activations", std::vector<std::string>{"Sigmoid", "Relu", "Tanh"});
       }},
  };
  for (const Case& c : cases) {
    OpTest t = lstm();
    c.set(t);
    const NodePlacement p = placement(t);
    EXPECT_EQ(p.backend, Backend::Cpu) << c.attribute;
    EXPECT_NE(p.fallback_reason.find(c.attribute), std::string::npos) << p.fallback_reason;
  }
}

// The step kernel runs every batch entry for the whole sequence; a shorter one runs on the CPU
// for that run and gives the CPU's results (Y zero past each entry's end).
TEST_F(GpuComputeLstm, ShorterSequenceLengthsGiveTheCpuResults) {
  const OpTest t = lstm(Tensor::from_data<int32_t>({kBatch}, {kSeq, 1}));
  EXPECT_EQ(placement(t).backend, Backend::GpuCompute);
  const std::vector<Tensor> expected = t.run(Backend::Cpu);
  const std::vector<Tensor> actual = t.run(Backend::GpuCompute);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(actual[k].to_vector<float>(), expected[k].to_vector<float>()) << "output " << k;
  }
}

TEST_F(GpuComputeLstm, AWrongWeightShapeIsReportedByTheCpuKernel) {
  const OpTest t = lstm(Tensor(), {1, 4 * kHidden, kInput + 1});
  try {
    t.run(Backend::GpuCompute);
    FAIL() << "expected a kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input W has shape"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::gpu_compute
