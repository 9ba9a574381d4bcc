// Constant B operands packed once per constant, packing and SIMD target, whichever kernels or
// workers ask for them.
#include "ops/shared_packed_weights.h"

#include <gtest/gtest.h>

#include <vector>

#include "graph_builder.h"
#include "kiln/worker.h"
#include "random_data.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

Tensor weight(int64_t k, int64_t n, uint32_t seed) {
  return f32({k, n}, uniform_floats(k * n, seed, -1.0f, 1.0f));
}

TEST(SharedPackedWeights, OneConstantPackedOneWayIsPackedOnce) {
  const Tensor b = weight(64, 48, 1);
  const auto first = shared_packed_b(b, false, 64, 48, 48);
  EXPECT_EQ(shared_packed_b(b, false, 64, 48, 48), first);
  // Another packing of the same bytes, or other bytes of the same shape, are other forms.
  EXPECT_NE(shared_packed_b(b, true, 48, 64, 48), first);
  const Tensor same_values = b.clone();
  EXPECT_NE(shared_packed_b(same_values, false, 64, 48, 48), first);
}

TEST(SharedPackedWeights, TheCacheKeepsNoFormAlive) {
  const Tensor b = weight(32, 32, 2);
  std::weak_ptr<const PackedWeights> first = shared_packed_b(b, false, 32, 32, 32);
  // Its last holder gone, the form is freed: the cache only finds forms that kernels hold.
  EXPECT_TRUE(first.expired());
  const auto again = shared_packed_b(b, false, 32, 32, 32);
  EXPECT_EQ(again->shape, b.shape());
  EXPECT_EQ(again->packed.k(), 32);
  EXPECT_EQ(again->packed.n(), 32);
}

// Two layers reading one weight (as exporters deduplicate identical layers) and two workers on
// one model: every product still matches the unshared one.
TEST(SharedPackedWeights, LayersAndWorkersSharingAWeightGiveTheUnsharedResults) {
  const Tensor w = weight(40, 40, 3);
  GraphBuilder b;
  b.input("x", DataType::Float32, {3, 40});
  b.initializer("w", w);
  b.node("MatMul", {"x", "w"}, {"h"});
  b.node("Relu", {"h"}, {"r"});
  b.node("MatMul", {"r", "w"}, {"y"});
  b.output("y");
  const Model model = b.build();
  const Tensor x = f32({3, 40}, uniform_floats(120, 4, -1.0f, 1.0f));
  std::vector<float> expected(120, 0.0f), h(120, 0.0f);
  const float* wv = w.data<float>();
  const float* xv = x.data<float>();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 40; ++j) {
      double s = 0;
      for (int k = 0; k < 40; ++k) s += double{xv[i * 40 + k]} * wv[k * 40 + j];
      h[i * 40 + j] = static_cast<float>(std::max(s, 0.0));
    }
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 40; ++j) {
      double s = 0;
      for (int k = 0; k < 40; ++k) s += double{h[i * 40 + k]} * wv[k * 40 + j];
      expected[i * 40 + j] = static_cast<float>(s);
    }
  }
  Worker first(model, Backend::Cpu), second(model, Backend::Cpu);
  for (Worker* worker : {&first, &second}) {
    worker->schedule({{"x", x}});
    const Tensor y = worker->peek_output("y").readback_and_clone();
    for (int i = 0; i < 120; ++i) EXPECT_NEAR(y.data<float>()[i], expected[i], 1e-4f) << i;
  }
}

}  // namespace
}  // namespace kiln::testing
