// Tests of the vision ops (GridSample, AffineGrid, RoiAlign, NonMaxSuppression, MaxUnpool,
// DeformConv, Col2Im, CenterCropPad) against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

std::vector<float> floats(const Tensor& t) { return t.to_vector<float>(); }
std::vector<int64_t> ints(const Tensor& t) { return t.to_vector<int64_t>(); }

void expect_near(const Tensor& t, const std::vector<float>& expected, float tol = 1e-5f) {
  const std::vector<float> got = floats(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol) << "at " << i;
}

// --- GridSample ------------------------------------------------------------------------------

const Tensor k2x2 = f32({1, 1, 2, 2}, {1, 2, 3, 4});

TEST(GridSample, CornersWithAlignCorners) {
  // Grid entries are (x, y): x walks the width.
  const Tensor grid = f32({1, 2, 2, 2}, {-1, -1, 1, -1, -1, 1, 1, 1});
  auto out = OpTest("GridSample", 20).input(k2x2).input(grid).attr("align_corners", 1).run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 2}));
  expect_near(out[0], {1, 2, 3, 4});
}

TEST(GridSample, BilinearCentreIsTheMean) {
  auto out = OpTest("GridSample", 16)
                 .input(k2x2)
                 .input(f32({1, 1, 1, 2}, {0, 0}))
                 .attr("mode", "bilinear")
                 .run();
  expect_near(out[0], {2.5f});
}

TEST(GridSample, PaddingModesOutsideTheImage) {
  // Without align_corners, (-1, -1) is the outer corner of pixel (0, 0): pixel coords
  // (-0.5, -0.5), half outside on both axes.
  const Tensor grid = f32({1, 1, 1, 2}, {-1, -1});
  auto zeros = OpTest("GridSample", 22).input(k2x2).input(grid).run();
  expect_near(zeros[0], {0.25f});
  auto border =
      OpTest("GridSample", 22).input(k2x2).input(grid).attr("padding_mode", "border").run();
  expect_near(border[0], {1.0f});
  auto reflection =
      OpTest("GridSample", 22).input(k2x2).input(grid).attr("padding_mode", "reflection").run();
  expect_near(reflection[0], {1.0f});
  // Far outside: border clamps to the last pixel, zeros reads nothing.
  const Tensor far = f32({1, 1, 1, 2}, {5, 5});
  expect_near(OpTest("GridSample", 22).input(k2x2).input(far).run()[0], {0.0f});
  expect_near(
      OpTest("GridSample", 22).input(k2x2).input(far).attr("padding_mode", "border").run()[0],
      {4.0f});
}

TEST(GridSample, NearestRoundsHalfToEvenIn2D) {
  const Tensor x = f32({1, 1, 1, 4}, {10, 20, 30, 40});
  // x = -0.5 -> pixel 0.5 -> 0; x = 0 -> pixel 1.5 -> 2; x = 0.25 -> pixel 2.
  const Tensor grid = f32({1, 1, 3, 2}, {-0.5f, 0, 0, 0, 0.25f, 0});
  auto out = OpTest("GridSample", 20).input(x).input(grid).attr("mode", "nearest").run();
  expect_near(out[0], {10, 30, 30});
}

TEST(GridSample, CubicReproducesARamp) {
  const Tensor x = f32({1, 1, 1, 5}, {0, 1, 2, 3, 4});
  const Tensor grid = f32({1, 1, 2, 2}, {0, 0, -0.25f, 0});
  auto out = OpTest("GridSample", 20)
                 .input(x)
                 .input(grid)
                 .attr("mode", "cubic")
                 .attr("align_corners", 1)
                 .run();
  expect_near(out[0], {2.0f, 1.5f});
}

TEST(GridSample, VolumetricLinear) {
  const Tensor x = f32({1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  // (x, y, z) = (1, -1, 1): w = 1, h = 0, d = 1 -> element 5.
  const Tensor grid = f32({1, 1, 1, 2, 3}, {0, 0, 0, 1, -1, 1});
  auto out = OpTest("GridSample", 20).input(x).input(grid).attr("align_corners", 1).run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 1, 1, 2}));
  expect_near(out[0], {3.5f, 5.0f});
}

TEST(GridSample, ChannelsAndEmptyGrid) {
  const Tensor x = f32({1, 2, 1, 2}, {1, 3, 10, 30});
  auto out = OpTest("GridSample", 20)
                 .input(x)
                 .input(f32({1, 1, 1, 2}, {0, 0}))
                 .attr("align_corners", 1)
                 .run();
  expect_near(out[0], {2, 20});
  auto empty = OpTest("GridSample", 20).input(x).input(f32({1, 0, 3, 2}, {})).run();
  EXPECT_EQ(empty[0].shape(), (Shape{1, 2, 0, 3}));
}

TEST(GridSample, BadInputs) {
  EXPECT_THROW(OpTest("GridSample", 20).input(k2x2).input(f32({1, 1, 1, 3}, {0, 0, 0})).run(),
               Error);
  EXPECT_THROW(OpTest("GridSample", 20).input(k2x2).input(f32({2, 1, 1, 2}, {0, 0, 0, 0})).run(),
               Error);
  EXPECT_THROW(
      OpTest("GridSample", 20).input(k2x2).input(f32({1, 1, 1, 2}, {0, 0})).attr("mode", "x").run(),
      Error);
  // An empty X with 2^62 channels: channels times grid positions overflowed Y's element count.
  EXPECT_THROW(OpTest("GridSample", 20)
                   .input(f32({1, int64_t{1} << 62, 0, 0}, {}))
                   .input(f32({1, 4, 1, 2}, std::vector<float>(8, 0.0f)))
                   .run(),
               Error);
  // A NaN position reads zero padding rather than crashing.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = OpTest("GridSample", 20).input(k2x2).input(f32({1, 1, 1, 2}, {nan, nan})).run();
  expect_near(out[0], {0.0f});
}

// --- AffineGrid ------------------------------------------------------------------------------

TEST(AffineGrid, IdentityWithAndWithoutAlignCorners) {
  const Tensor theta = f32({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const Tensor size = i64({4}, {1, 1, 2, 2});
  auto aligned = OpTest("AffineGrid", 20).input(theta).input(size).attr("align_corners", 1).run();
  EXPECT_EQ(aligned[0].shape(), (Shape{1, 2, 2, 2}));
  expect_near(aligned[0], {-1, -1, 1, -1, -1, 1, 1, 1});
  auto centred = OpTest("AffineGrid", 20).input(theta).input(size).run();
  expect_near(centred[0], {-0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f});
}

TEST(AffineGrid, TranslationAndScale3D) {
  // x' = 2x + 0.5, y' = y, z' = z - 1 over a 1 x 1 x 2 volume (only W varies).
  const Tensor theta = f32({1, 3, 4}, {2, 0, 0, 0.5f, 0, 1, 0, 0, 0, 0, 1, -1});
  auto out = OpTest("AffineGrid", 20)
                 .input(theta)
                 .input(i64({5}, {1, 1, 1, 1, 2}))
                 .attr("align_corners", 1)
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 1, 2, 3}));
  expect_near(out[0], {-1.5f, 0, -1, 2.5f, 0, -1});
}

TEST(AffineGrid, BadShapes) {
  EXPECT_THROW(OpTest("AffineGrid", 20)
                   .input(f32({1, 2, 3}, {1, 0, 0, 0, 1, 0}))
                   .input(i64({5}, {1, 1, 2, 2, 2}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("AffineGrid", 20)
                   .input(f32({1, 2, 3}, {1, 0, 0, 0, 1, 0}))
                   .input(i64({3}, {1, 2, 2}))
                   .run(),
               Error);
}

// --- RoiAlign --------------------------------------------------------------------------------

// A 4 x 4 map whose value is the column index: bilinear samples read back their x.
const Tensor kRamp = f32({1, 1, 4, 4}, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});

OpTest roi_align(const std::string& mode) {
  OpTest t("RoiAlign", 16);
  t.input(kRamp)
      .input(f32({1, 4}, {0, 0, 4, 4}))
      .input(i64({1}, {0}))
      .attr("output_height", 2)
      .attr("output_width", 2)
      .attr("sampling_ratio", 2)
      .attr("mode", mode);
  return t;
}

TEST(RoiAlign, AverageOfBilinearSamples) {
  // half_pixel: samples at x = 0, 1 (left bins) and 2, 3 (right bins).
  auto out = roi_align("avg").run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 2}));
  expect_near(out[0], {0.5f, 2.5f, 0.5f, 2.5f});
}

TEST(RoiAlign, MaxOfWeightedCorners) {
  auto out = roi_align("max").run();
  expect_near(out[0], {1, 3, 1, 3});
}

TEST(RoiAlign, OutputHalfPixelAndErrors) {
  // Without the half-pixel shift the samples sit at 0.5, 1.5 and 2.5, 3.5 (3.5 clamps to 3).
  auto out = OpTest("RoiAlign", 10)
                 .input(kRamp)
                 .input(f32({1, 4}, {0, 0, 4, 4}))
                 .input(i64({1}, {0}))
                 .attr("output_height", 1)
                 .attr("output_width", 2)
                 .attr("sampling_ratio", 2)
                 .run();
  expect_near(out[0], {1.0f, 2.75f});
  EXPECT_THROW(OpTest("RoiAlign", 16)
                   .input(kRamp)
                   .input(f32({1, 4}, {0, 0, 4, 4}))
                   .input(i64({1}, {1}))
                   .run(),
               Error);
  EXPECT_THROW(
      OpTest("RoiAlign", 16).input(kRamp).input(f32({1, 3}, {0, 0, 4})).input(i64({1}, {0})).run(),
      Error);
  auto none = OpTest("RoiAlign", 16).input(kRamp).input(f32({0, 4}, {})).input(i64({0}, {})).run();
  EXPECT_EQ(none[0].shape(), (Shape{0, 1, 1, 1}));
  // 2^32 x 2^32 bins: the element count wrapped to 0 and Y came back with a huge shape and no
  // storage.
  EXPECT_THROW(OpTest("RoiAlign", 16)
                   .input(kRamp)
                   .input(f32({1, 4}, {0, 0, 4, 4}))
                   .input(i64({1}, {0}))
                   .attr("output_height", int64_t{1} << 32)
                   .attr("output_width", int64_t{1} << 32)
                   .run(),
               Error);
}

// --- NonMaxSuppression ---------------------------------------------------------------------

// Box 1 overlaps box 0 heavily (IoU 0.82); box 2 is far away.
const Tensor kBoxes = f32({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 10, 1, 11});
const Tensor kScores = f32({1, 1, 3}, {0.9f, 0.8f, 0.7f});

TEST(NonMaxSuppression, SuppressesOverlaps) {
  auto out = OpTest("NonMaxSuppression", 11)
                 .input(kBoxes)
                 .input(kScores)
                 .input(i64({1}, {10}))
                 .input(f32({1}, {0.5f}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
}

TEST(NonMaxSuppression, ScoreThresholdAndLimit) {
  auto thresholded = OpTest("NonMaxSuppression", 11)
                         .input(kBoxes)
                         .input(kScores)
                         .input(i64({1}, {10}))
                         .input(f32({1}, {0.5f}))
                         .input(f32({1}, {0.75f}))
                         .run();
  EXPECT_EQ(ints(thresholded[0]), (std::vector<int64_t>{0, 0, 0}));
  auto limited = OpTest("NonMaxSuppression", 11)
                     .input(kBoxes)
                     .input(kScores)
                     .input(i64({1}, {1}))
                     .input(f32({1}, {0.9f}))
                     .run();
  EXPECT_EQ(ints(limited[0]), (std::vector<int64_t>{0, 0, 0}));
  // Without max_output_boxes_per_class nothing is selected.
  auto none = OpTest("NonMaxSuppression", 11).input(kBoxes).input(kScores).run();
  EXPECT_EQ(none[0].shape(), (Shape{0, 3}));
}

TEST(NonMaxSuppression, FlippedCornersAndCenterFormat) {
  const Tensor flipped = f32({1, 3, 4}, {1, 1, 0, 0, 1, 1.1f, 0, 0.1f, 1, 11, 0, 10});
  auto out = OpTest("NonMaxSuppression", 11)
                 .input(flipped)
                 .input(kScores)
                 .input(i64({1}, {10}))
                 .input(f32({1}, {0.5f}))
                 .run();
  EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
  // The same boxes as (x_center, y_center, width, height).
  const Tensor centers = f32({1, 3, 4}, {0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1, 10.5f, 0.5f, 1, 1});
  auto c = OpTest("NonMaxSuppression", 11)
               .input(centers)
               .input(kScores)
               .input(i64({1}, {10}))
               .input(f32({1}, {0.5f}))
               .attr("center_point_box", 1)
               .run();
  EXPECT_EQ(ints(c[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
}

TEST(NonMaxSuppression, ClassesAndBatchesAndErrors) {
  // Two classes: the second ranks box 2 first.
  const Tensor scores = f32({1, 2, 3}, {0.9f, 0.8f, 0.7f, 0.1f, 0.2f, 0.3f});
  auto out = OpTest("NonMaxSuppression", 11).input(kBoxes).input(scores).input(i64({1}, {1})).run();
  EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{0, 0, 0, 0, 1, 2}));
  EXPECT_THROW(OpTest("NonMaxSuppression", 11).input(kBoxes).input(f32({1, 1, 2}, {1, 2})).run(),
               Error);
  EXPECT_THROW(OpTest("NonMaxSuppression", 11)
                   .input(kBoxes)
                   .input(kScores)
                   .attr("center_point_box", 2)
                   .run(),
               Error);
}

// --- MaxUnpool -------------------------------------------------------------------------------

TEST(MaxUnpool, ScattersToIndices) {
  const Tensor x = f32({1, 1, 2, 2}, {5, 6, 7, 8});
  const Tensor idx = i64({1, 1, 2, 2}, {0, 3, 8, 15});
  auto out = OpTest("MaxUnpool", 11)
                 .input(x)
                 .input(idx)
                 .attr("kernel_shape", std::vector<int64_t>{2, 2})
                 .attr("strides", std::vector<int64_t>{2, 2})
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 4, 4}));
  std::vector<float> expected(16, 0.0f);
  expected[0] = 5;
  expected[3] = 6;
  expected[8] = 7;
  expected[15] = 8;
  EXPECT_EQ(floats(out[0]), expected);
}

TEST(MaxUnpool, OutputShapeKeepsCoordinates) {
  // Indices address the 4 x 4 unpooled shape; a 5 x 5 output_shape keeps their (row, column).
  const Tensor x = f32({1, 1, 2, 2}, {5, 6, 7, 8});
  auto unpool = [&](const Tensor& indices, const Tensor& output_shape) {
    return OpTest("MaxUnpool", 11)
        .input(x)
        .input(indices)
        .input(output_shape)
        .attr("kernel_shape", std::vector<int64_t>{2, 2})
        .attr("strides", std::vector<int64_t>{2, 2})
        .run();
  };
  auto out = unpool(i64({1, 1, 2, 2}, {5, 7, 13, 15}), i64({4}, {1, 1, 5, 5}));
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 5, 5}));
  std::vector<float> expected(25, 0.0f);
  expected[6] = 5;
  expected[8] = 6;
  expected[16] = 7;
  expected[18] = 8;
  EXPECT_EQ(floats(out[0]), expected);
  // An index beyond the unpooled shape, or an output_shape smaller than it, is an error.
  EXPECT_THROW(unpool(i64({1, 1, 2, 2}, {0, 3, 8, 16}), i64({4}, {1, 1, 5, 5})), Error);
  EXPECT_THROW(unpool(i64({1, 1, 2, 2}, {0, 1, 2, 3}), i64({4}, {1, 1, 3, 5})), Error);
}

TEST(MaxUnpool, NeedsKernelShape) {
  const Tensor x = f32({1, 1, 2, 2}, {5, 6, 7, 8});
  EXPECT_THROW(OpTest("MaxUnpool", 11).input(x).input(i64({1, 1, 2, 2}, {0, 1, 2, 3})).run(),
               Error);
}

// --- DeformConv ------------------------------------------------------------------------------

const Tensor k3x3 = f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
const Tensor kOnes2x2 = f32({1, 1, 2, 2}, {1, 1, 1, 1});

Tensor offsets(float dy, float dx) {
  // (offset_group 1, 2 x 2 taps, [dy, dx]) channels over a 2 x 2 output.
  std::vector<float> v;
  for (int tap = 0; tap < 4; ++tap) {
    for (int k = 0; k < 4; ++k) v.push_back(dy);
    for (int k = 0; k < 4; ++k) v.push_back(dx);
  }
  return f32({1, 8, 2, 2}, v);
}

TEST(DeformConv, ZeroOffsetsIsConvolution) {
  auto out = OpTest("DeformConv", 19).input(k3x3).input(kOnes2x2).input(offsets(0, 0)).run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 2}));
  expect_near(out[0], {12, 16, 24, 28});
}

TEST(DeformConv, ShiftedTapsReadZeroOutside) {
  // Every tap one pixel to the right: the right column of windows half leaves the image.
  auto out = OpTest("DeformConv", 19).input(k3x3).input(kOnes2x2).input(offsets(0, 1)).run();
  expect_near(out[0], {16, 9, 28, 15});
  // Half a pixel: bilinear between columns.
  auto half = OpTest("DeformConv", 19).input(k3x3).input(kOnes2x2).input(offsets(0, 0.5f)).run();
  expect_near(half[0], {14, 12.5f, 26, 21.5f});
}

TEST(DeformConv, MaskAndBias) {
  auto out = OpTest("DeformConv", 19)
                 .input(k3x3)
                 .input(kOnes2x2)
                 .input(offsets(0, 0))
                 .input(f32({1}, {1}))
                 .input(f32({1, 4, 2, 2}, std::vector<float>(16, 0.5f)))
                 .run();
  expect_near(out[0], {7, 9, 13, 15});
}

TEST(DeformConv, BadShapes) {
  EXPECT_THROW(OpTest("DeformConv", 19)
                   .input(k3x3)
                   .input(kOnes2x2)
                   .input(f32({1, 8, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("DeformConv", 19)
                   .input(k3x3)
                   .input(kOnes2x2)
                   .input(offsets(0, 0))
                   .attr("offset_group", 2)
                   .run(),
               Error);
}

TEST(DeformConv, EmptyKernelsAndHugeAttributes) {
  // A 0 x 0 kernel has no taps: an empty offset tensor used to fit any output size, so tiny
  // inputs with large pads could ask for a huge Y.
  EXPECT_THROW(OpTest("DeformConv", 19)
                   .input(k3x3)
                   .input(f32({1, 1, 0, 0}, {}))
                   .input(f32({1, 0, 5, 5}, {}))
                   .attr("pads", std::vector<int64_t>{1, 1, 0, 0})
                   .run(),
               Error);
  // Dilations that overflowed the output size arithmetic.
  EXPECT_THROW(OpTest("DeformConv", 19)
                   .input(k3x3)
                   .input(kOnes2x2)
                   .input(offsets(0, 0))
                   .attr("dilations", std::vector<int64_t>{int64_t{1} << 62, 1})
                   .run(),
               Error);
}

// --- Col2Im ----------------------------------------------------------------------------------

TEST(Col2Im, NonOverlappingBlocksRebuildTheImage) {
  auto out = OpTest("Col2Im", 18)
                 .input(f32({1, 4, 1}, {1, 2, 3, 4}))
                 .input(i64({2}, {2, 2}))
                 .input(i64({2}, {2, 2}))
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 2}));
  expect_near(out[0], {1, 2, 3, 4});
}

TEST(Col2Im, OverlapsAddUp) {
  // Two 1 x 2 blocks over a 1 x 3 image: the middle pixel gets one value from each.
  auto out = OpTest("Col2Im", 18)
                 .input(f32({1, 2, 2}, {1, 2, 3, 4}))
                 .input(i64({2}, {1, 3}))
                 .input(i64({2}, {1, 2}))
                 .run();
  expect_near(out[0], {1, 5, 4});
}

TEST(Col2Im, PadsStridesAndErrors) {
  // A 1 x 3 image padded by one on each side, blocks of 2 at stride 2: two blocks, their outer
  // elements fall in the padding.
  auto out = OpTest("Col2Im", 18)
                 .input(f32({1, 2, 2}, {1, 2, 3, 4}))
                 .input(i64({2}, {1, 3}))
                 .input(i64({2}, {1, 2}))
                 .attr("pads", std::vector<int64_t>{0, 1, 0, 1})
                 .attr("strides", std::vector<int64_t>{1, 2})
                 .run();
  expect_near(out[0], {3, 2, 4});
  EXPECT_THROW(OpTest("Col2Im", 18)
                   .input(f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}))
                   .input(i64({2}, {1, 3}))
                   .input(i64({2}, {1, 2}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("Col2Im", 18)
                   .input(f32({1, 2, 2}, {1, 2, 3, 4}))
                   .input(i64({2}, {1, 3}))
                   .input(i64({1}, {2}))
                   .run(),
               Error);
}

// --- CenterCropPad ---------------------------------------------------------------------------

const Tensor k2x3 = f32({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(CenterCropPad, CropsTheCentre) {
  auto out = OpTest("CenterCropPad", 18).input(k2x3).input(i64({2}, {1, 2})).run();
  EXPECT_EQ(out[0].shape(), (Shape{1, 2}));
  expect_near(out[0], {1, 2});
}

TEST(CenterCropPad, PadsWithZeros) {
  auto out = OpTest("CenterCropPad", 18).input(k2x3).input(i64({2}, {4, 4})).run();
  EXPECT_EQ(out[0].shape(), (Shape{4, 4}));
  expect_near(out[0], {0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0, 0});
}

TEST(CenterCropPad, NegativeAxesAndIntegers) {
  auto out = OpTest("CenterCropPad", 18)
                 .input(i64({2, 3}, {1, 2, 3, 4, 5, 6}))
                 .input(i64({1}, {1}))
                 .attr("axes", std::vector<int64_t>{-1})
                 .run();
  EXPECT_EQ(out[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{2, 5}));
  auto empty = OpTest("CenterCropPad", 18).input(k2x3).input(i64({2}, {0, 3})).run();
  EXPECT_EQ(empty[0].shape(), (Shape{0, 3}));
}

TEST(CenterCropPad, BadInputs) {
  EXPECT_THROW(OpTest("CenterCropPad", 18).input(k2x3).input(i64({1}, {1})).run(), Error);
  EXPECT_THROW(OpTest("CenterCropPad", 18)
                   .input(k2x3)
                   .input(i64({1}, {1}))
                   .attr("axes", std::vector<int64_t>{2})
                   .run(),
               Error);
  EXPECT_THROW(OpTest("CenterCropPad", 18).input(k2x3).input(i64({2}, {-1, 2})).run(), Error);
}

// --- Corrupt input fails cleanly ------------------------------------------------------------

TEST(VisionOps, HugeOrNonFiniteInputsAreErrors) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(OpTest("RoiAlign", 16)
                   .input(kRamp)
                   .input(f32({1, 4}, {0, 0, nan, 4}))
                   .input(i64({1}, {0}))
                   .run(),
               Error);
  // An adaptive sampling grid of 10^9 x 10^9 samples is refused rather than run.
  EXPECT_THROW(OpTest("RoiAlign", 16)
                   .input(kRamp)
                   .input(f32({1, 4}, {0, 0, 1e9f, 1e9f}))
                   .input(i64({1}, {0}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("Col2Im", 18)
                   .input(f32({1, 1, 1}, {1}))
                   .input(i64({2}, {int64_t{1} << 40, int64_t{1} << 40}))
                   .input(i64({2}, {1, 1}))
                   .run(),
               Error);
  EXPECT_THROW(OpTest("CenterCropPad", 18)
                   .input(k2x3)
                   .input(i64({2}, {int64_t{1} << 40, int64_t{1} << 40}))
                   .run(),
               Error);
}

TEST(VisionOps, DoubleAndHalfPrecision) {
  const Tensor x = Tensor::from_data<double>({1, 1, 2, 2}, {1, 2, 3, 4});
  auto out = OpTest("GridSample", 20)
                 .input(x)
                 .input(Tensor::from_data<double>({1, 1, 1, 2}, {0, 0}))
                 .run();
  ASSERT_EQ(out[0].dtype(), DataType::Float64);
  EXPECT_DOUBLE_EQ(out[0].data<double>()[0], 2.5);
  const Tensor h = Tensor::from_data<Float16>(
      {1, 1, 2, 2}, {Float16(1.0f), Float16(2.0f), Float16(3.0f), Float16(4.0f)});
  auto half = OpTest("GridSample", 20).input(h).input(f32({1, 1, 1, 2}, {0, 0})).run();
  ASSERT_EQ(half[0].dtype(), DataType::Float16);
  EXPECT_EQ(static_cast<float>(half[0].data<Float16>()[0]), 2.5f);
}

}  // namespace
}  // namespace kiln::testing
