// Tests of Resize and Upsample against hand-computed values (1-D and 2-D cases small enough to
// follow the spec's formulas by hand).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// Resize(X, roi, scales, sizes) at the latest opset.
OpTest resize_scales(const Tensor& x, std::vector<float> scales) {
  OpTest t("Resize");
  t.input(x).input(Tensor()).input(f32({static_cast<int64_t>(scales.size())}, scales));
  return t;
}
OpTest resize_sizes(const Tensor& x, std::vector<int64_t> sizes) {
  OpTest t("Resize");
  t.input(x).input(Tensor()).input(Tensor()).input(
      i64({static_cast<int64_t>(sizes.size())}, sizes));
  return t;
}

void expect_near(const Tensor& t, const Shape& shape, const std::vector<float>& expected) {
  ASSERT_EQ(t.shape(), shape);
  const std::vector<float> v = t.to_vector<float>();
  ASSERT_EQ(v.size(), expected.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], expected[i], 1e-5) << "element " << i;
}

TEST(Resize, NearestHalfPixelUpsample) {
  auto out = resize_scales(f32({3}, {1, 2, 3}), {2}).run();
  expect_near(out[0], {6}, {1, 1, 2, 2, 3, 3});
}

TEST(Resize, NearestModes) {
  auto run = [](const char* mode) {
    return resize_sizes(f32({4}, {1, 2, 3, 4}), {3})
        .attr("coordinate_transformation_mode", "asymmetric")
        .attr("nearest_mode", mode)
        .run()[0];
  };
  // With sizes, scale = 3/4: coordinates 0, 4/3, 8/3.
  expect_near(run("round_prefer_floor"), {3}, {1, 2, 4});
  expect_near(run("floor"), {3}, {1, 2, 3});
  expect_near(run("ceil"), {3}, {1, 3, 4});
  auto half = resize_scales(f32({2}, {1, 2}), {4})
                  .attr("coordinate_transformation_mode", "asymmetric")
                  .attr("nearest_mode", "round_prefer_ceil")
                  .run()[0];
  // Coordinates 0, 0.25, 0.5, 0.75.
  expect_near(half, {8}, {1, 1, 2, 2, 2, 2, 2, 2});
}

TEST(Resize, LinearHalfPixelClampsAtTheBorders) {
  auto out = resize_scales(f32({2}, {1, 3}), {2}).attr("mode", "linear").run();
  expect_near(out[0], {4}, {1, 1.5f, 2.5f, 3});
}

TEST(Resize, BilinearAlignCorners) {
  auto out = resize_sizes(f32({2, 2}, {1, 2, 3, 4}), {3, 3})
                 .attr("mode", "linear")
                 .attr("coordinate_transformation_mode", "align_corners")
                 .run();
  expect_near(out[0], {3, 3}, {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
}

TEST(Resize, CubicAsymmetricAndExcludeOutside) {
  auto x = f32({4}, {0, 1, 2, 3});
  auto out = resize_scales(x, {2})
                 .attr("mode", "cubic")
                 .attr("coordinate_transformation_mode", "asymmetric")
                 .run();
  // Keys kernel with a = -0.75 at t = 0.5: weights -0.09375, 0.59375, 0.59375, -0.09375; the
  // tap left of the input repeats x[0].
  const std::vector<float> v = out[0].to_vector<float>();
  EXPECT_NEAR(v[1], 0.40625f, 1e-5);
  EXPECT_NEAR(v[3], 1.5f, 1e-5);
  auto excl = resize_scales(x, {2})
                  .attr("mode", "cubic")
                  .attr("coordinate_transformation_mode", "asymmetric")
                  .attr("exclude_outside", 1)
                  .run();
  EXPECT_NEAR(excl[0].to_vector<float>()[1], 0.40625f / 1.09375f, 1e-5);
}

TEST(Resize, TfCropAndResizeExtrapolates) {
  auto out = OpTest("Resize")
                 .input(f32({5}, {1, 2, 3, 4, 5}))
                 .input(f32({2}, {0.5f, 1.5f}))
                 .input(Tensor())
                 .input(i64({1}, {3}))
                 .attr("mode", "linear")
                 .attr("coordinate_transformation_mode", "tf_crop_and_resize")
                 .attr("extrapolation_value", 10.0f)
                 .run();
  // Source coordinates 2, 4, 6 (beyond the input).
  expect_near(out[0], {3}, {3, 5, 10});
}

TEST(Resize, AntialiasLinearDownsample) {
  auto out = resize_scales(f32({4}, {1, 2, 3, 4}), {0.5f})
                 .attr("mode", "linear")
                 .attr("antialias", 1)
                 .run();
  // A triangle of half-width 2 around 0.5 and 2.5, edge samples repeated past the border.
  expect_near(out[0], {2}, {1.625f, 3.375f});
}

TEST(Resize, AxesAndKeepAspectRatio) {
  auto out = OpTest("Resize")
                 .input(f32({2, 2}, {1, 2, 3, 4}))
                 .input(Tensor())
                 .input(f32({1}, {2}))
                 .attr("axes", std::vector<int64_t>{-1})
                 .run();
  expect_near(out[0], {2, 4}, {1, 1, 2, 2, 3, 3, 4, 4});
  auto x = f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto larger = resize_sizes(x, {4, 4}).attr("keep_aspect_ratio_policy", "not_larger").run();
  EXPECT_EQ(larger[0].shape(), (Shape{2, 4}));
  auto smaller = resize_sizes(x, {4, 4}).attr("keep_aspect_ratio_policy", "not_smaller").run();
  EXPECT_EQ(smaller[0].shape(), (Shape{4, 8}));
}

TEST(Resize, IntegerLinearRoundsAndNearestCopiesExactly) {
  auto out =
      resize_scales(Tensor::from_data<uint8_t>({2}, {0, 255}), {2}).attr("mode", "linear").run();
  EXPECT_EQ(out[0].to_vector<uint8_t>(), (std::vector<uint8_t>{0, 64, 191, 255}));
  const int64_t big = (int64_t{1} << 60) + 1;
  auto n = resize_scales(Tensor::from_data<int64_t>({1}, {big}), {2}).run();
  EXPECT_EQ(n[0].to_vector<int64_t>(), (std::vector<int64_t>{big, big}));
}

// uint8 with antialias=1 against ONNX Runtime's own output, bit for bit: ONNX Runtime resizes
// 8-bit data in fixed point, one axis at a time with a uint8 image in between, and users compare
// such pipelines exactly. The references come from tests/data/resize/make_uint8_antialias.py,
// whose `image` is the formula below.
Tensor reference_image(int64_t channels, int64_t height, int64_t width) {
  std::vector<uint8_t> v;
  v.reserve(static_cast<size_t>(channels * height * width));
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t h = 0; h < height; ++h) {
      for (int64_t w = 0; w < width; ++w) {
        v.push_back(static_cast<uint8_t>(
            (3 * h + 2 * w + 85 * c + 4 * ((7 * h * w + 3 * h + w) % 29)) % 256));
      }
    }
  }
  return Tensor::from_data<uint8_t>({1, channels, height, width}, v);
}

void expect_matches_onnx_runtime(const std::string& name, int64_t in_h, int64_t in_w, int64_t out_h,
                                 int64_t out_w, const char* mode, int exclude_outside = 0) {
  const Tensor want = load_tensor(KILN_SOURCE_DIR "/tests/data/resize/" + name + ".npy");
  const Tensor got = resize_sizes(reference_image(3, in_h, in_w), {1, 3, out_h, out_w})
                         .attr("mode", mode)
                         .attr("antialias", 1)
                         .attr("exclude_outside", exclude_outside)
                         .run()[0];
  ASSERT_EQ(got.dtype(), DataType::UInt8);
  ASSERT_EQ(got.shape(), want.shape());
  const std::vector<uint8_t> g = got.to_vector<uint8_t>(), w = want.to_vector<uint8_t>();
  int64_t mismatched = 0, first = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i] != w[i] && mismatched++ == 0) first = static_cast<int64_t>(i);
  }
  EXPECT_EQ(mismatched, 0) << "elements (of " << g.size()
                           << ") differ from ONNX Runtime; the first is element " << first << ": "
                           << (first < 0 ? 0 : int{g[first]}) << " instead of "
                           << (first < 0 ? 0 : int{w[first]});
}

TEST(Resize, Uint8AntialiasLinearUpsampleMatchesOnnxRuntime) {
  expect_matches_onnx_runtime("uint8_antialias_linear_60x80_to_224x298", 60, 80, 224, 298,
                              "linear");
}

TEST(Resize, Uint8AntialiasLinearDownsampleMatchesOnnxRuntime) {
  expect_matches_onnx_runtime("uint8_antialias_linear_224x298_to_60x80", 224, 298, 60, 80,
                              "linear");
}

TEST(Resize, Uint8AntialiasCubicDownsampleMatchesOnnxRuntime) {
  expect_matches_onnx_runtime("uint8_antialias_cubic_224x298_to_60x80", 224, 298, 60, 80, "cubic",
                              1);
}

TEST(Resize, Opset10AndUpsample) {
  // Resize-10: asymmetric coordinates, nearest rounds up when downsampling.
  auto down = OpTest("Resize", 10).input(f32({4}, {1, 2, 3, 4})).input(f32({1}, {0.5f})).run();
  expect_near(down[0], {2}, {1, 3});
  auto up7 =
      OpTest("Upsample", 7).input(f32({2}, {1, 2})).attr("scales", std::vector<float>{2}).run();
  expect_near(up7[0], {4}, {1, 1, 2, 2});
  auto up9 = OpTest("Upsample", 9)
                 .input(f32({2}, {1, 3}))
                 .input(f32({1}, {2}))
                 .attr("mode", "linear")
                 .run();
  expect_near(up9[0], {4}, {1, 2, 3, 3});
}

TEST(Resize, EmptyInput) {
  auto out = resize_scales(f32({0, 2}, {}), {1, 2}).run();
  EXPECT_EQ(out[0].shape(), (Shape{0, 4}));
}

TEST(Resize, BadInputFails) {
  auto x = f32({2}, {1, 2});
  EXPECT_THROW(resize_scales(x, {2, 2}).run(), Error);
  EXPECT_THROW(resize_scales(x, {-1}).run(), Error);
  EXPECT_THROW(
      OpTest("Resize").input(x).input(Tensor()).input(f32({1}, {2})).input(i64({1}, {4})).run(),
      Error);
  EXPECT_THROW(OpTest("Resize").input(x).input(Tensor()).input(Tensor()).run(), Error);
  EXPECT_THROW(
      resize_scales(x, {2}).attr("coordinate_transformation_mode", "tf_crop_and_resize").run(),
      Error);
  EXPECT_THROW(resize_scales(x, {2}).attr("mode", "area").run(), Error);
  EXPECT_THROW(OpTest("Upsample", 9).input(x).input(f32({1}, {0.5f})).run(), Error);
}

}  // namespace
}  // namespace kiln::testing
