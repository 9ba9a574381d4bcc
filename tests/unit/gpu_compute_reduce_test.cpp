// The host side of shaders/reduce.comp: how a reduction's axes become the kernel's view of
// kept and reduced dimensions (the GPU results themselves are checked against the CPU in
// backend_ops_test.cpp).
#include <gtest/gtest.h>

#include "backends/gpu_compute/reduce.h"

namespace kiln::gpu_compute {
namespace {

TEST(GpuComputeReduceProblem, MiddleAxisKeepsBothNeighbours) {
  const auto p = reduce_problem({2, 3, 4}, {false, true, false}, ReduceOp::Sum);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pc.lines, 8u);
  EXPECT_EQ(p->pc.n, 3u);
  ASSERT_EQ(p->pc.kept_rank, 2u);
  EXPECT_EQ(p->pc.kept_size[0], 2u);
  EXPECT_EQ(p->pc.kept_stride[0], 12u);
  EXPECT_EQ(p->pc.kept_size[1], 4u);
  EXPECT_EQ(p->pc.kept_stride[1], 1u);
  ASSERT_EQ(p->pc.reduced_rank, 1u);
  EXPECT_EQ(p->pc.reduced_size[0], 3u);
  EXPECT_EQ(p->pc.reduced_stride[0], 4u);
}

TEST(GpuComputeReduceProblem, ExtentsOfOneDoNotSplitARun) {
  // Axes 0, 2 and 3 reduced around a kept axis of extent 1: one contiguous run of 24.
  const auto p = reduce_problem({2, 1, 3, 4}, {true, false, true, true}, ReduceOp::Max);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pc.lines, 1u);
  EXPECT_EQ(p->pc.kept_rank, 0u);
  ASSERT_EQ(p->pc.reduced_rank, 1u);
  EXPECT_EQ(p->pc.reduced_size[0], 24u);
  EXPECT_EQ(p->pc.reduced_stride[0], 1u);
}

TEST(GpuComputeReduceProblem, NothingReducedIsALineOfOnePerElement) {
  const auto p = reduce_problem({3, 4}, {false, false}, ReduceOp::SumSquare);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pc.lines, 12u);
  EXPECT_EQ(p->pc.n, 1u);
  ASSERT_EQ(p->pc.reduced_rank, 1u);
  EXPECT_EQ(p->pc.reduced_size[0], 1u);
}

TEST(GpuComputeReduceProblem, TooManyAlternatingRunsAreRefused) {
  const Shape shape{2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
  std::vector<bool> reduced;
  for (size_t d = 0; d < shape.size(); ++d) reduced.push_back(d % 2 == 1);
  EXPECT_FALSE(reduce_problem(shape, reduced, ReduceOp::Sum));
}

TEST(GpuComputeReduceProblem, ArgReductionsCarrySelectLast) {
  const auto p = reduce_problem({5, 7}, {false, true}, ReduceOp::ArgMin, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->pc.op, static_cast<uint32_t>(ReduceOp::ArgMin));
  EXPECT_EQ(p->pc.select_last, 1u);
  EXPECT_EQ(p->pc.lines, 5u);
  EXPECT_EQ(p->pc.n, 7u);
}

}  // namespace
}  // namespace kiln::gpu_compute
