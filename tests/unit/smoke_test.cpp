#include <gtest/gtest.h>

#include "test_util.h"

using namespace kiln;
using kiln::testing::OpTest;

TEST(OpTestHarness, RunsAOneNodeModel) {
  auto out = OpTest("Relu").input(kiln::testing::f32({4}, {-1, 0, 2, -3})).run();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0, 0, 2, 0}));
}
