// The vectorised activations of backends/cpu/vector_math.h on every SIMD target this build has,
// against the C library in double precision: SiLU within a few ulp of x * sigmoid(x), with
// sigmoid's inf and NaN behaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/vector_math.h"
#include "hwy/targets.h"

namespace kiln::cpu {
namespace {

double silu_reference(double x) { return x / (1.0 + std::exp(-x)); }

TEST(VectorMath, SiluIsWithinAFewUlpOfTheDefinitionOnEveryTarget) {
  std::vector<float> x;
  for (float v = -100.0f; v <= 100.0f; v += 0.0137f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 87.9f, -87.9f, 88.1f, -88.1f, 1e30f, -1e30f}) {
    x.push_back(v);
  }
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    std::vector<float> y(x.size());
    silu_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      const double e = silu_reference(x[i]);
      // 4 ulp; below x = -87, where sigmoid(x) nears the denormals, SiLU may be zero (as the
      // exact formula gives once exp(-x) overflows).
      const double tolerance =
          4 * std::abs(e) * std::numeric_limits<float>::epsilon() + (x[i] < -87.0f ? 1e-35 : 0.0);
      ASSERT_NEAR(y[i], e, tolerance) << "x = " << x[i];
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(VectorMath, SiluKeepsSigmoidsInfinitiesAndNaN) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), -1e30f};
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    std::vector<float> y(x.size());
    silu_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
    EXPECT_EQ(y[0], kInf);          // inf * sigmoid(inf) = inf * 1
    EXPECT_TRUE(std::isnan(y[1]));  // -inf * sigmoid(-inf) = -inf * 0
    EXPECT_TRUE(std::isnan(y[2]));
    EXPECT_EQ(y[3], 0.0f);  // -1e30 * 0
  }
  hwy::SetSupportedTargetsForTest(0);
}

// erf to a few ulp of 1 makes 1 + erf(x / sqrt 2), and so GELU, good to a few ulp of |x| / 2:
// for large negative x the sum cancels, as it does when the formula runs op by op.
TEST(VectorMath, GeluIsWithinAFewUlpOfXOfTheDefinitionOnEveryTarget) {
  std::vector<float> x;
  for (float v = -12.0f; v <= 12.0f; v += 0.0037f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-6f, -1e-6f, 1e30f, -1e30f}) x.push_back(v);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    std::vector<float> y(x.size());
    gelu_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = x[i];
      const double e = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
      ASSERT_NEAR(y[i], e, 4 * std::abs(v) * std::numeric_limits<float>::epsilon())
          << "x = " << x[i];
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace kiln::cpu
