// The checks the GPU op harness (backend_ops_test.cpp) and the GPU-pixel fixture rely on, each
// against a tampered expected value that a looser check would let pass.
#include <gtest/gtest.h>

#include <limits>

#include "test_util.h"

namespace kiln::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(HarnessCompare, AnInfinityMatchesOnlyTheSameInfinity) {
  EXPECT_TRUE(value_matches(kInf, kInf, 1e-5, 1e-4));
  EXPECT_TRUE(value_matches(-kInf, -kInf, 1e-5, 1e-4));
  // |a - inf| <= atol + rtol * inf holds for any finite a: the hole of ASSERT_NEAR.
  EXPECT_FALSE(value_matches(3.0e38, kInf, 1e-5, 1e-4));
  EXPECT_FALSE(value_matches(0.0, -kInf, 1e-5, 1e-4));
  EXPECT_FALSE(value_matches(-kInf, kInf, 1e-5, 1e-4));
  EXPECT_FALSE(value_matches(kInf, 3.0e38, 1e-5, 1e-4));
}

TEST(HarnessCompare, NaNMatchesOnlyNaN) {
  EXPECT_TRUE(value_matches(kNaN, kNaN, 1e-5, 1e-4));
  EXPECT_FALSE(value_matches(0.0, kNaN, 1e-5, 1e-4));
  EXPECT_FALSE(value_matches(kNaN, 1.0, 1e-5, 1e-4));
  EXPECT_FALSE(value_matches(kInf, kNaN, 1e-5, 1e-4));
}

TEST(HarnessCompare, FiniteValuesWithinTheTolerance) {
  EXPECT_TRUE(value_matches(1.00005, 1.0, 1e-5, 1e-4));
  EXPECT_FALSE(value_matches(1.001, 1.0, 1e-5, 1e-4));
  EXPECT_TRUE(value_matches(-2.0, -2.0, 0, 0));
}

TEST(HarnessCompare, OnlyAMissingDeviceSkips) {
  EXPECT_TRUE(is_no_device_error(Error("no Vulkan device: no Vulkan driver reports a device")));
  EXPECT_TRUE(is_no_device_error(Error("no OpenGL ES device: eglInitialize failed")));
  EXPECT_TRUE(is_no_device_error(
      Error("backend gpu-compute is not available: this build of kiln has no Vulkan")));
  // Errors of a worker that a device exists for are failures of the case.
  EXPECT_FALSE(is_no_device_error(Error("node 'n' (Cast): vkCreateComputePipelines failed")));
  EXPECT_FALSE(is_no_device_error(Error("shader compile failed: 0:12: syntax error")));
}

}  // namespace
}  // namespace kiln::testing
