// OpenGL ES data movement against kiln's CPU ops (the oracle): region copies (Transpose, Slice,
// Expand, DepthToSpace, SpaceToDepth), Concat, Pad, Tile and Gather, over ranks 1..6, odd sizes,
// negative steps, broadcasts and empty tensors.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "backends/gpu_pixel/concat.h"
#include "backends/gpu_pixel/gather.h"
#include "backends/gpu_pixel/pad_tile.h"
#include "backends/gpu_pixel/region_copy.h"
#include "gpu_pixel_fixture.h"
#include "opdefs/concat.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

Tensor iota(const Shape& shape, float start = 0.0f) {
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<float>(i) * 0.5f;
  return testing::f32(shape, v);
}

class GpuPixelRegion : public GpuPixel {
 protected:
  // The result in `shape`, or in the region's own shape when none is given.
  Tensor copy(const Region& region, const Tensor& x, const Shape& shape = {}) {
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), region_indexing(region, x.element_count()).count);
    RegionCopy(context()).record(region, gx, gy);
    return to_host(gy, shape.empty() ? Shape(region.shape) : shape);
  }
};

TEST_F(GpuPixelRegion, TransposeMatchesCpu) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{7}, {0}},
      {{3, 5}, {1, 0}},
      {{2, 3, 4}, {}},
      {{2, 3, 5, 7}, {0, 2, 3, 1}},
      {{2, 3, 2, 3, 2}, {4, 2, 0, 3, 1}},
      {{2, 1, 3, 2, 3, 2}, {5, 3, 1, 0, 4, 2}},
      {{0, 3}, {1, 0}},
  };
  for (const auto& [shape, perm] : cases) {
    const Tensor x = iota(shape);
    testing::OpTest test("Transpose");
    test.input(x);
    if (!perm.empty()) test.attr("perm", perm);
    expect_matches(copy(transpose_region(shape, perm), x), test.run()[0], 0,
                   "Transpose " + shape.to_string());
  }
  EXPECT_THROW(transpose_region({2, 3}, std::vector<int64_t>{0, 0}), Error);
}

TEST_F(GpuPixelRegion, SliceMatchesCpu) {
  struct Case {
    Shape shape;
    std::vector<int64_t> starts, ends, axes, steps;
  };
  const std::vector<Case> cases = {
      {{10}, {2}, {9}, {0}, {3}},
      {{10}, {-1}, {-100}, {0}, {-2}},  // reversed
      {{4, 7}, {1, 0}, {3, 7}, {0, 1}, {1, 1}},
      {{4, 7, 5}, {0, 6, 4}, {4, 0, 0}, {0, 1, 2}, {2, -3, -1}},
      {{3, 4, 5}, {5}, {10}, {1}, {1}},  // empty
  };
  for (const Case& c : cases) {
    const Tensor x = iota(c.shape);
    const Tensor expected = testing::OpTest("Slice")
                                .input(x)
                                .input(testing::i64({int64_t(c.starts.size())}, c.starts))
                                .input(testing::i64({int64_t(c.ends.size())}, c.ends))
                                .input(testing::i64({int64_t(c.axes.size())}, c.axes))
                                .input(testing::i64({int64_t(c.steps.size())}, c.steps))
                                .run()[0];
    expect_matches(copy(slice_region(c.shape, c.starts, c.ends, c.axes, c.steps), x), expected, 0,
                   "Slice " + c.shape.to_string());
  }
}

TEST_F(GpuPixelRegion, ExpandMatchesCpu) {
  const std::vector<std::pair<Shape, Shape>> cases = {{{}, {3, 5}},
                                                      {{3, 1}, {3, 7}},
                                                      {{1, 5}, {2, 3, 1}},
                                                      {{2, 1, 3, 1, 2, 1}, {2, 4, 3, 3, 2, 5}},
                                                      {{3}, {0, 3}}};
  for (const auto& [shape, target] : cases) {
    const Tensor x = iota(shape, 1.0f);
    const Tensor expected = testing::OpTest("Expand")
                                .input(x)
                                .input(testing::i64({int64_t(target.size())}, target.to_vector()))
                                .run()[0];
    expect_matches(copy(expand_region(shape, target), x), expected, 0,
                   "Expand " + shape.to_string() + " to " + target.to_string());
  }
}

TEST_F(GpuPixelRegion, DepthToSpaceAndSpaceToDepthMatchCpu) {
  const Tensor x = iota({2, 8, 3, 5});
  for (const char* mode : {"DCR", "CRD"}) {
    const Tensor expected =
        testing::OpTest("DepthToSpace").input(x).attr("blocksize", 2).attr("mode", mode).run()[0];
    expect_matches(copy(depth_to_space_region(x.shape(), 2, mode), x, expected.shape()), expected,
                   0, mode);
  }
  const Tensor y = iota({2, 3, 6, 9});
  const Tensor expected = testing::OpTest("SpaceToDepth").input(y).attr("blocksize", 3).run()[0];
  expect_matches(copy(space_to_depth_region(y.shape(), 3), y, expected.shape()), expected, 0,
                 "SpaceToDepth");
  EXPECT_THROW(depth_to_space_region({1, 6, 2, 2}, 2, "DCR"), Error);
  EXPECT_THROW(depth_to_space_region({1, 8, 2, 2}, 2, "XYZ"), Error);
  // A blocksize whose square overflows is refused, not wrapped around.
  EXPECT_THROW(depth_to_space_region({1, 8, 2, 2}, int64_t{1} << 32, "DCR"), Error);
  EXPECT_THROW(space_to_depth_region({1, 1, 5, 4}, 2), Error);
}

TEST_F(GpuPixelRegion, RegionBoundsAreChecked) {
  Region r{{4}, 2, {1}};
  EXPECT_THROW(region_indexing(r, 5), Error);
  EXPECT_NO_THROW(region_indexing(r, 6));
  Region reversed{{4}, 3, {-1}};
  EXPECT_NO_THROW(region_indexing(reversed, 4));
  reversed.in_offset = 2;
  EXPECT_THROW(region_indexing(reversed, 4), Error);
}

class GpuPixelConcat : public GpuPixel {
 protected:
  Tensor run(const std::vector<Tensor>& xs, int64_t axis) {
    std::vector<TextureTensor> gs;
    std::vector<Shape> shapes;
    for (const Tensor& x : xs) {
      gs.push_back(to_gpu(x));
      shapes.push_back(x.shape());
    }
    std::vector<const TextureTensor*> ptrs;
    for (const TextureTensor& g : gs) ptrs.push_back(&g);
    const Shape out = concat_output_shape(shapes, axis, "Concat");
    TextureTensor gy(context(), out.element_count());
    Concat(context()).record(ptrs, shapes, axis, gy);
    return to_host(gy, out);
  }
  static Tensor cpu(const std::vector<Tensor>& xs, int64_t axis) {
    testing::OpTest test("Concat");
    for (const Tensor& x : xs) test.input(x);
    return test.attr("axis", axis).run()[0];
  }
};

TEST_F(GpuPixelConcat, MatchesCpuIncludingMidTexelBoundaries) {
  const std::vector<std::pair<std::vector<Shape>, int64_t>> cases = {
      {{{3}, {5}, {1}}, 0},         // boundaries inside texels
      {{{2, 3}, {2, 5}}, 1},        // last axis, odd sizes
      {{{2, 3}, {2, 5}}, -1},       //
      {{{2, 3, 4}, {1, 3, 4}}, 0},  // first axis
      {{{2, 1, 3}, {2, 4, 3}, {2, 2, 3}}, 1},
      {{{2, 0, 3}, {2, 2, 3}}, 1},  // an empty input
      {{{0, 3}, {0, 2}}, 1},        // an empty output
  };
  float start = 0;
  for (const auto& [shapes, axis] : cases) {
    std::vector<Tensor> xs;
    for (const Shape& s : shapes) {
      xs.push_back(iota(s, start));
      start += 100;
    }
    expect_matches(run(xs, axis), cpu(xs, axis), 0,
                   "Concat of " + shapes[0].to_string() + "... on axis " + std::to_string(axis));
  }
}

TEST_F(GpuPixelConcat, MoreInputsThanOneDrawTakes) {
  std::vector<Tensor> xs;
  for (int j = 0; j < 19; ++j) xs.push_back(iota({2, 1 + j % 3}, 10.0f * j));
  expect_matches(run(xs, 1), cpu(xs, 1), 0, "Concat of 19");
  EXPECT_THROW(concat_output_shape(std::vector<Shape>{{2, 3}, {3, 3}}, 1, "Concat"), Error);
  EXPECT_THROW(concat_output_shape(std::vector<Shape>{{2, 3}}, 2, "Concat"), Error);
}

class GpuPixelPad : public GpuPixel {};

TEST_F(GpuPixelPad, PadModesMatchCpu) {
  struct Case {
    Shape shape;
    std::vector<int64_t> pads;
  };
  const std::vector<Case> cases = {
      {{5}, {2, 3}},
      {{3, 4}, {1, 2, 2, 1}},
      {{2, 3, 4}, {0, 1, 2, 1, 0, 3}},
      {{2, 3, 4}, {0, -1, 1, 0, 2, -2}},  // negative pads crop
      {{2, 2, 1, 3, 2, 2}, {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1}},
  };
  PadTile kernel(context());
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    for (const Case& c : cases) {
      const Tensor x = iota(c.shape, -3.0f);
      const Tensor expected = testing::OpTest("Pad")
                                  .input(x)
                                  .input(testing::i64({int64_t(c.pads.size())}, c.pads))
                                  .input(testing::f32({}, {1.5f}))
                                  .attr("mode", mode)
                                  .run()[0];
      const TextureTensor gx = to_gpu(x);
      TextureTensor gy(context(), expected.element_count());
      kernel.pad(gx, c.shape, c.pads, pad_mode_from_string(mode), 1.5f, gy);
      expect_matches(to_host(gy, expected.shape()), expected, 0,
                     std::string(mode) + " " + c.shape.to_string());
    }
  }
  EXPECT_THROW(pad_mode_from_string("mirror"), Error);
  EXPECT_THROW(pad_indexing({3}, std::vector<int64_t>{1}, PadMode::Constant), Error);
  EXPECT_THROW(pad_indexing({0}, std::vector<int64_t>{1, 0}, PadMode::Reflect), Error);
  EXPECT_THROW(pad_indexing({3}, std::vector<int64_t>{-2, -2}, PadMode::Constant), Error);
}

TEST_F(GpuPixelPad, ConstantPadOfAnEmptyInput) {
  const Tensor x = testing::f32({0, 2}, {});
  PadTile kernel(context());
  TextureTensor gx(context(), 0);
  TextureTensor gy(context(), 2 * 3);
  const std::vector<int64_t> pads = {1, 1, 1, 0};
  kernel.pad(gx, x.shape(), pads, PadMode::Constant, 7.0f, gy);
  const Tensor expected = testing::OpTest("Pad")
                              .input(x)
                              .input(testing::i64({4}, pads))
                              .input(testing::f32({}, {7.0f}))
                              .run()[0];
  expect_matches(to_host(gy, {2, 3}), expected, 0, "Pad of empty");
}

TEST_F(GpuPixelPad, TileMatchesCpu) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {
      {{3}, {4}},
      {{2, 3}, {2, 3}},
      {{1, 3, 2}, {3, 1, 2}},
      {{2, 3}, {0, 2}},
      {{2, 1, 2, 1, 2, 1}, {1, 2, 1, 3, 1, 2}}};
  PadTile kernel(context());
  for (const auto& [shape, repeats] : cases) {
    const Tensor x = iota(shape, 2.0f);
    const Tensor expected = testing::OpTest("Tile")
                                .input(x)
                                .input(testing::i64({int64_t(repeats.size())}, repeats))
                                .run()[0];
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), expected.element_count());
    kernel.tile(gx, shape, repeats, gy);
    expect_matches(to_host(gy, expected.shape()), expected, 0, "Tile " + shape.to_string());
  }
}

class GpuPixelGather : public GpuPixel {};

TEST_F(GpuPixelGather, MatchesCpu) {
  struct Case {
    Shape shape;
    std::vector<int64_t> indices;
    Shape indices_shape;
    int64_t axis;
  };
  std::vector<int64_t> many(1024);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>((i * 7) % 13) - 6;
  const std::vector<Case> cases = {
      {{5}, {4, 0, -1, 2}, {4}, 0},      {{4, 5}, {2, 0, -1}, {3}, 0},
      {{4, 5}, {1, 1, 4, 0}, {2, 2}, 1}, {{3, 4, 5}, {3}, {}, 1},  // a scalar index drops the axis
      {{13, 3}, many, {32, 32}, 0},      {{4, 5}, {}, {0}, 1},
  };
  Gather kernel(context());
  for (const Case& c : cases) {
    const Tensor x = iota(c.shape, 1.0f);
    const Tensor idx = testing::i64(c.indices_shape, c.indices);
    const Tensor expected =
        testing::OpTest("Gather").input(x).input(idx).attr("axis", c.axis).run()[0];
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), expected.element_count());
    kernel.record(gx, c.shape, c.indices, c.indices_shape, c.axis, gy);
    expect_matches(to_host(gy, expected.shape()), expected, 0, "Gather " + c.shape.to_string());
  }
}

TEST_F(GpuPixelGather, ErrorsNameTheProblem) {
  Gather kernel(context());
  const TextureTensor gx = to_gpu(iota({4, 5}));
  TextureTensor gy(context(), 5);
  const std::vector<int64_t> bad = {4};
  EXPECT_THROW(kernel.record(gx, {4, 5}, bad, {1}, 0, gy), Error);
  std::vector<int64_t> too_many(1025, 0);
  TextureTensor big(context(), 1025 * 5);
  EXPECT_FALSE(gather_supported(1025));
  EXPECT_THROW(kernel.record(gx, {4, 5}, too_many, {1025}, 0, big), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
