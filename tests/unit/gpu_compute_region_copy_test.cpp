// shaders/region_copy.comp through Transpose, Slice, Expand and Concat against kiln's CPU ops
// (the oracle), for float32, int32 and int64 (two words per element), with empty and rank-6
// tensors. Copies move bits, so results must match byte for byte.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/region_copy.h"
#include "gpu_compute_fixture.h"
#include "test_util.h"

namespace kiln::gpu_compute {
namespace {

using testing::OpTest;

const DataType kTypes[] = {DataType::Float32, DataType::Int32, DataType::Int64};

// Distinct values per element; int64 ones differ in both 32-bit words, so a copy that moved
// only one word, or swapped them, would show.
Tensor numbered(DataType dtype, const Shape& shape) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) n *= shape[d];
  std::vector<float> f;
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  for (int64_t i = 0; i < n; ++i) {
    f.push_back(0.5f * static_cast<float>(i) - 3.0f);
    i32.push_back(static_cast<int32_t>(i * 7 - 100));
    i64.push_back((i << 33) - 3 * i - 1);
  }
  if (dtype == DataType::Float32) return Tensor::from_data<float>(shape, f);
  if (dtype == DataType::Int32) return Tensor::from_data<int32_t>(shape, i32);
  return Tensor::from_data<int64_t>(shape, i64);
}

Buffer to_gpu(Device& device, const Tensor& t) {
  Buffer b(device, t.byte_size(), MemoryUse::DeviceLocal);
  if (t.byte_size()) {
    upload(device, b, std::span(static_cast<const std::byte*>(t.raw_data()), t.byte_size()));
  }
  return b;
}

using Recorder = std::function<void(VkCommandBuffer, DescriptorArena&,
                                    std::span<const Buffer* const>, const Buffer&)>;

// Runs `record` on the inputs' buffers into an output shaped like `expected`, then compares bytes.
void expect_same(Device& device, const std::vector<Tensor>& inputs, const Tensor& expected,
                 const Recorder& record, const std::string& what) {
  std::vector<Buffer> buffers;
  std::vector<const Buffer*> pointers;
  for (const Tensor& t : inputs) buffers.push_back(to_gpu(device, t));
  for (const Buffer& b : buffers) pointers.push_back(&b);
  Buffer out(device, expected.byte_size(), MemoryUse::DeviceLocal);
  DescriptorArena arena(device);
  submit_and_wait(device, [&](VkCommandBuffer cmd) { record(cmd, arena, pointers, out); });
  std::vector<std::byte> got(expected.byte_size());
  if (!got.empty()) download(device, out, got);
  EXPECT_TRUE(got.empty() || std::memcmp(got.data(), expected.raw_data(), got.size()) == 0)
      << what << " " << dtype_name(expected.dtype());
}

Tensor i64_vector(const std::vector<int64_t>& v) {
  return testing::i64({static_cast<int64_t>(v.size())}, v);
}

TEST_F(GpuCompute, RegionCopyTransposeMatchesCpu) {
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;  // empty: reverse
  };
  const Case cases[] = {
      {{2, 3}, {1, 0}},
      {{2, 3, 4}, {2, 0, 1}},
      {{2, 3, 4}, {}},
      {{}, {}},
      {{2, 3, 1, 2, 3, 2}, {5, 3, 1, 0, 4, 2}},              // rank 6
      {{1, 2, 1, 3, 1, 2, 1, 2}, {7, 0, 3, 2, 5, 1, 6, 4}},  // rank 8 with unit dimensions
      {{2, 3, 4, 2, 2, 3, 2}, {0, 1, 2, 4, 3, 5, 6}},        // rank 7 merging to fewer
      {{0, 3}, {1, 0}},                                      // empty
      {{3, 0, 2}, {2, 1, 0}},
      {{70, 33}, {1, 0}},  // several workgroups
  };
  RegionCopy copy(device());
  for (DataType dtype : kTypes) {
    for (const Case& c : cases) {
      const Tensor x = numbered(dtype, c.shape);
      OpTest test("Transpose");
      test.input(x);
      if (!c.perm.empty()) test.attr("perm", c.perm);
      expect_same(
          device(), {x}, test.run()[0],
          [&](VkCommandBuffer cmd, DescriptorArena& arena, auto ins, const Buffer& out) {
            copy.transpose(cmd, arena, dtype, *ins[0], c.shape, c.perm, out);
          },
          "transpose");
    }
  }
}

TEST_F(GpuCompute, RegionCopySliceMatchesCpu) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  struct Case {
    Shape shape;
    std::vector<int64_t> starts, ends, axes, steps;
  };
  const Case cases[] = {
      {{10}, {1}, {8}, {0}, {2}},
      {{10}, {-1}, {kMin}, {0}, {-1}},               // the whole axis reversed
      {{10}, {8}, {1}, {0}, {-3}},                   // negative step
      {{6, 5}, {5, -1}, {-7, 0}, {0, 1}, {-2, -1}},  // both axes reversed, clamped
      {{6, 5}, {1}, {kMax}, {-1}, {2}},              // negative axis, end past the end
      {{4, 5}, {3}, {1}, {0}, {1}},                  // empty: start after end
      {{0, 5}, {0, 1}, {1, 4}, {0, 1}, {1, 1}},      // empty input
      {{3, 2, 4, 2, 3, 2}, {2, 1, 0}, {0, 4, 3}, {0, 2, 4}, {-1, 2, 1}},  // rank 6
  };
  RegionCopy copy(device());
  for (DataType dtype : kTypes) {
    for (const Case& c : cases) {
      const Tensor x = numbered(dtype, c.shape);
      const Tensor expected = OpTest("Slice")
                                  .input(x)
                                  .input(i64_vector(c.starts))
                                  .input(i64_vector(c.ends))
                                  .input(i64_vector(c.axes))
                                  .input(i64_vector(c.steps))
                                  .run()[0];
      expect_same(
          device(), {x}, expected,
          [&](VkCommandBuffer cmd, DescriptorArena& arena, auto ins, const Buffer& out) {
            copy.slice(cmd, arena, dtype, *ins[0], c.shape, c.starts, c.ends, c.axes, c.steps, out);
          },
          "slice");
    }
  }
}

TEST_F(GpuCompute, RegionCopyExpandMatchesCpu) {
  const std::pair<Shape, Shape> cases[] = {
      {{3, 1}, {2, 1, 4}},
      {{}, {2, 3}},
      {{1, 4, 1}, {3, 1, 5}},
      {{4}, {1}},
      {{2, 1, 3, 1, 2, 1}, {1, 2, 1, 2, 1, 3}},  // rank 6
      {{0, 1}, {0, 3}},                          // empty
      {{3}, {0, 3}},
  };
  RegionCopy copy(device());
  for (DataType dtype : kTypes) {
    for (const auto& [shape, target] : cases) {
      const Tensor x = numbered(dtype, shape);
      std::vector<int64_t> dims(target.begin(), target.end());
      const Tensor expected = OpTest("Expand").input(x).input(i64_vector(dims)).run()[0];
      expect_same(
          device(), {x}, expected,
          [&, &shape = shape, &target = target](VkCommandBuffer cmd, DescriptorArena& arena,
                                                auto ins, const Buffer& out) {
            copy.expand(cmd, arena, dtype, *ins[0], shape, target, out);
          },
          "expand");
    }
  }
}

TEST_F(GpuCompute, RegionCopyConcatMatchesCpu) {
  struct Case {
    std::vector<Shape> shapes;
    int64_t axis;
  };
  const Case cases[] = {
      {{{2, 3}, {4, 3}}, 0},
      {{{2, 3}, {2, 1}, {2, 5}}, 1},
      {{{2, 3, 2}, {2, 3, 3}}, -1},
      {{{2, 0}, {2, 3}, {2, 0}}, 1},                  // empty inputs
      {{{0, 2}, {0, 2}}, 0},                          // empty output
      {{{2, 1, 3, 1, 2, 2}, {2, 1, 3, 2, 2, 2}}, 3},  // rank 6
      {{{5}}, 0},                                     // one input
  };
  RegionCopy copy(device());
  for (DataType dtype : kTypes) {
    for (const Case& c : cases) {
      std::vector<Tensor> inputs;
      OpTest test("Concat");
      for (const Shape& s : c.shapes) {
        inputs.push_back(numbered(dtype, s));
        test.input(inputs.back());
      }
      test.attr("axis", c.axis);
      expect_same(
          device(), inputs, test.run()[0],
          [&](VkCommandBuffer cmd, DescriptorArena& arena, auto ins, const Buffer& out) {
            copy.concat(cmd, arena, dtype, ins, c.shapes, c.axis, out);
          },
          "concat");
    }
  }
}

TEST_F(GpuCompute, RegionCopyWritesIntoASliceInReverse) {
  // Negative input strides and an output offset: rows of a 3x4 matrix reversed into columns
  // 1..4 of a 3x6 one, whose other elements stay untouched.
  const Tensor x = numbered(DataType::Int32, {3, 4});
  std::vector<int32_t> canvas(18, -1);
  const Tensor y0 = Tensor::from_data<int32_t>({3, 6}, canvas);
  Buffer gx = to_gpu(device(), x);
  Buffer gy = to_gpu(device(), y0);
  const Region region{{3, 4}, 3, {4, -1}, 1, {6, 1}};
  RegionCopy copy(device());
  DescriptorArena arena(device());
  submit_and_wait(device(), [&](VkCommandBuffer cmd) {
    copy.record(cmd, arena, region, DataType::Int32, gx, gy);
  });
  download(device(), gy, std::as_writable_bytes(std::span(canvas)));
  const int32_t* v = x.data<int32_t>();
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(canvas[r * 6], -1);
    EXPECT_EQ(canvas[r * 6 + 5], -1);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(canvas[r * 6 + 1 + c], v[r * 4 + 3 - c]);
  }
}

TEST_F(GpuCompute, RegionCopyChecksBoundsAndMergesDimensions) {
  // Identity transpose of a rank-7 tensor is one contiguous run.
  const Region identity =
      transpose_region({2, 3, 4, 5, 2, 3, 2}, std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6});
  const RegionPushConstants pc = region_push_constants(identity, 1, 1440, 1440);
  EXPECT_EQ(pc.rank, 1u);
  EXPECT_EQ(pc.count, 1440u);
  EXPECT_EQ(region_push_constants(identity, 2, 1440, 1440).words, 2u);
  // Reading before the start or past the end of a buffer is caught on the host.
  EXPECT_THROW(region_push_constants({{4}, 2, {-1}, 0, {1}}, 1, 8, 4), Error);
  EXPECT_THROW(region_push_constants({{4}, 0, {1}, 1, {1}}, 1, 4, 4), Error);
  // A reversal of every dimension merges none: 8 dimensions fit, 9 do not.
  EXPECT_EQ(region_push_constants({{2, 2, 2, 2, 2, 2, 2, 2},
                                   0,
                                   {1, 2, 4, 8, 16, 32, 64, 128},
                                   0,
                                   {128, 64, 32, 16, 8, 4, 2, 1}},
                                  1, 256, 256)
                .rank,
            8u);
  EXPECT_THROW(region_push_constants({{2, 2, 2, 2, 2, 2, 2, 2, 2},
                                      0,
                                      {1, 2, 4, 8, 16, 32, 64, 128, 256},
                                      0,
                                      {256, 128, 64, 32, 16, 8, 4, 2, 1}},
                                     1, 512, 512),
               Error);
  EXPECT_THROW(element_words(DataType::Float16), Error);
  // Past 8 dimensions the leading ones are peeled into copies at offsets: a reversal of 10
  // dimensions of 2 is 4 copies of 8 dimensions, each at its own corner of both tensors.
  Region reversal;
  for (int k = 0; k < 10; ++k) {
    reversal.shape.push_back(2);
    reversal.in_strides.push_back(int64_t{1} << k);
    reversal.out_strides.push_back(int64_t{1} << (9 - k));
  }
  const std::vector<Region> pieces = regions_within_rank(reversal);
  ASSERT_EQ(pieces.size(), 4u);
  for (size_t p = 0; p < 4; ++p) {
    EXPECT_EQ(pieces[p].shape.size(), 8u);
    EXPECT_EQ(pieces[p].in_offset, static_cast<int64_t>((p >> 1) + 2 * (p & 1)));
    EXPECT_EQ(pieces[p].out_offset, static_cast<int64_t>(512 * (p >> 1) + 256 * (p & 1)));
    EXPECT_EQ(region_push_constants(pieces[p], 1, 1024, 1024).rank, 8u);
  }
  EXPECT_EQ(regions_within_rank(identity).size(), 1u);
  EXPECT_THROW(regions_within_rank(reversal, 3), Error);
  EXPECT_THROW(transpose_region({2, 3}, std::vector<int64_t>{0, 0}), Error);
  // An empty region checks nothing and records nothing.
  EXPECT_EQ(region_push_constants({{0, 5}, 100, {5, 1}, 100, {5, 1}}, 1, 0, 0).count, 0u);
}

}  // namespace
}  // namespace kiln::gpu_compute
