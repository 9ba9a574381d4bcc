// OpenGL ES Resize against kiln's CPU op (the oracle): nearest with its rounding modes, linear,
// cubic, antialiased downsampling, the coordinate modes, tf_crop_and_resize with extrapolation,
// a 1-D resize, and a leading axis that changes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/gpu_pixel/resize.h"
#include "gpu_pixel_fixture.h"
#include "test_util.h"

namespace kiln::gpu_pixel {
namespace {

struct Case {
  std::string name;
  Shape x;
  std::vector<float> scales;
  const char* mode;
  const char* coordinate;
  const char* nearest = "round_prefer_floor";
  int antialias = 0;
  std::vector<float> roi = {};
};

class GpuPixelResize : public GpuPixel {
 protected:
  void check_case(const Case& c) {
    const Tensor x = random_tensor(c.x, -2, 2, 21);
    const int64_t rank = static_cast<int64_t>(c.x.size());
    const Tensor roi = c.roi.empty() ? Tensor() : testing::f32({2 * rank}, c.roi);
    testing::OpTest op("Resize");
    op.input(x).input(roi).input(testing::f32({rank}, c.scales));
    op.attr("mode", c.mode)
        .attr("coordinate_transformation_mode", c.coordinate)
        .attr("nearest_mode", c.nearest)
        .attr("antialias", c.antialias)
        .attr("extrapolation_value", 7.0f);
    const Tensor want = op.run()[0];

    ResizeOptions options;
    const std::string mode = c.mode, coordinate = c.coordinate, nearest = c.nearest;
    options.mode = mode == "nearest"  ? ResizeMode::Nearest
                   : mode == "linear" ? ResizeMode::Linear
                                      : ResizeMode::Cubic;
    options.coordinate = coordinate == "half_pixel"      ? ResizeCoordinateMode::HalfPixel
                         : coordinate == "align_corners" ? ResizeCoordinateMode::AlignCorners
                         : coordinate == "asymmetric"    ? ResizeCoordinateMode::Asymmetric
                         : coordinate == "pytorch_half_pixel"
                             ? ResizeCoordinateMode::PytorchHalfPixel
                             : ResizeCoordinateMode::TfCropAndResize;
    options.nearest = nearest == "floor"  ? ResizeNearestMode::Floor
                      : nearest == "ceil" ? ResizeNearestMode::Ceil
                                          : ResizeNearestMode::RoundPreferFloor;
    options.antialias = c.antialias != 0;
    options.extrapolation_value = 7.0f;
    std::vector<ResizeAxis> axes(c.x.size());
    for (size_t d = 0; d < c.x.size(); ++d) {
      axes[d].in = c.x[d];
      axes[d].out = want.shape()[d];
      axes[d].scale = c.scales[d];
      axes[d].length = c.scales[d] * static_cast<float>(c.x[d]);
      if (!c.roi.empty()) {
        axes[d].roi_start = c.roi[d];
        axes[d].roi_end = c.roi[d + rank];
      }
    }
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), want.element_count());
    Resize(context()).record(axes, options, gx, gy);
    expect_matches(to_host(gy, want.shape()), want, 1e-5, "Resize " + c.name, 1e-6);
  }
};

TEST_F(GpuPixelResize, MatchesCpuOverModes) {
  const std::vector<Case> cases = {
      {"nearest half_pixel", {1, 2, 5, 6}, {1, 1, 2, 1.5f}, "nearest", "half_pixel"},
      {"nearest asymmetric floor", {2, 1, 4, 3}, {1, 1, 3, 2}, "nearest", "asymmetric", "floor"},
      {"nearest down, ceil", {1, 2, 9, 7}, {1, 1, 0.5f, 0.6f}, "nearest", "half_pixel", "ceil"},
      {"linear half_pixel", {1, 3, 5, 6}, {1, 1, 2, 1.5f}, "linear", "half_pixel"},
      {"linear align_corners", {1, 2, 4, 5}, {1, 1, 1.75f, 2}, "linear", "align_corners"},
      {"linear pytorch_half_pixel", {1, 2, 6, 1}, {1, 1, 0.5f, 3}, "linear", "pytorch_half_pixel"},
      {"cubic", {1, 2, 5, 6}, {1, 1, 2, 1.5f}, "cubic", "half_pixel"},
      {"linear antialiased downsampling",
       {1, 2, 12, 10},
       {1, 1, 0.4f, 0.5f},
       "linear",
       "half_pixel",
       "round_prefer_floor",
       1},
      {"tf_crop_and_resize",
       {1, 2, 5, 6},
       {1, 1, 1.6f, 1.5f},
       "linear",
       "tf_crop_and_resize",
       "round_prefer_floor",
       0,
       {0, 0, -0.2f, 0.1f, 1, 1, 0.8f, 1.3f}},
      {"1-D", {2, 7}, {1, 1.5f}, "linear", "half_pixel"},
  };
  for (const Case& c : cases) check_case(c);
}

TEST_F(GpuPixelResize, ChangingALeadingAxisIsAnError) {
  std::vector<ResizeAxis> axes(4);
  axes[1].in = 2;
  axes[1].out = 4;
  axes[1].scale = 2;
  axes[1].length = 4;
  const TextureTensor x = to_gpu(random_tensor({2}, -2, 2, 1));
  TextureTensor y(context(), 4);
  EXPECT_THROW(Resize(context()).record(axes, {}, x, y), Error);
  axes[1] = {};
  TextureTensor wrong(context(), 3);
  EXPECT_THROW(Resize(context()).record(axes, {}, x, wrong), Error);
}

}  // namespace
}  // namespace kiln::gpu_pixel
