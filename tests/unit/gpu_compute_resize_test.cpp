// shaders/resize.comp against kiln's CPU Resize: nearest (every nearest_mode), linear and cubic,
// every coordinate_transformation_mode, tf_crop_and_resize with extrapolation, exclude_outside,
// cubic_coeff_a and antialias, upsampling and downsampling with scales or sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backends/gpu_compute/command.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/resize.h"
#include "gpu_compute_fixture.h"
#include "gpu_compute_tensor_util.h"
#include "test_util.h"

namespace kiln::gpu_compute {
namespace {

struct Attrs {
  const char* mode = "nearest";
  const char* coordinate = "half_pixel";
  const char* nearest = "round_prefer_floor";
  float cubic_a = -0.75f;
  int exclude_outside = 0;
  float extrapolation = 0.0f;
  int antialias = 0;
};

ResizeOptions options_of(const Attrs& a) {
  ResizeOptions o;
  const std::string mode = a.mode, coord = a.coordinate, nearest = a.nearest;
  o.mode = mode == "nearest"  ? ResizeMode::Nearest
           : mode == "linear" ? ResizeMode::Linear
                              : ResizeMode::Cubic;
  o.coordinate = coord == "half_pixel"             ? ResizeCoordinateMode::HalfPixel
                 : coord == "half_pixel_symmetric" ? ResizeCoordinateMode::HalfPixelSymmetric
                 : coord == "pytorch_half_pixel"   ? ResizeCoordinateMode::PytorchHalfPixel
                 : coord == "align_corners"        ? ResizeCoordinateMode::AlignCorners
                 : coord == "asymmetric"           ? ResizeCoordinateMode::Asymmetric
                                                   : ResizeCoordinateMode::TfCropAndResize;
  o.nearest = nearest == "round_prefer_floor"  ? ResizeNearestMode::RoundPreferFloor
              : nearest == "round_prefer_ceil" ? ResizeNearestMode::RoundPreferCeil
              : nearest == "floor"             ? ResizeNearestMode::Floor
                                               : ResizeNearestMode::Ceil;
  o.cubic_coeff_a = a.cubic_a;
  o.exclude_outside = a.exclude_outside != 0;
  o.extrapolation_value = a.extrapolation;
  o.antialias = a.antialias != 0;
  return o;
}

// Per-axis descriptions from scales, as the CPU op derives them.
std::vector<ResizeAxis> axes_from_scales(const Shape& in, const std::vector<float>& scales,
                                         const std::vector<float>& roi) {
  std::vector<ResizeAxis> axes(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    ResizeAxis& a = axes[d];
    a.in = in[d];
    a.scale = scales[d];
    a.length = scales[d] * static_cast<float>(in[d]);
    a.out = static_cast<int64_t>(std::floor(a.length));
    if (!roi.empty()) {
      a.roi_start = roi[d];
      a.roi_end = roi[d + in.size()];
    }
  }
  return axes;
}

Tensor run_on_gpu(Device& device, const Tensor& x, const std::vector<ResizeAxis>& axes,
                  const ResizeOptions& options) {
  static const Resize resize(device);  // one pipeline for the whole suite
  const ResizePlan plan = plan_resize(x.shape(), axes, options);
  Buffer gx = to_gpu(device, x), gy = gpu_buffer(device, DataType::Float32, plan.out_shape);
  Buffer table(device, plan.table_bytes(), MemoryUse::DeviceLocal);
  if (!plan.table.empty()) upload(device, table, std::as_bytes(std::span(plan.table)));
  DescriptorArena arena(device);
  submit_and_wait(device,
                  [&](VkCommandBuffer cmd) { resize.record(cmd, arena, plan, gx, table, gy); });
  return from_gpu(device, gy, DataType::Float32, plan.out_shape);
}

void expect_close(const Tensor& gpu, const Tensor& cpu, const std::string& what) {
  ASSERT_EQ(gpu.shape(), cpu.shape()) << what;
  const float* g = gpu.data<float>();
  const float* c = cpu.data<float>();
  for (int64_t i = 0; i < cpu.element_count(); ++i) {
    if (!(std::fabs(g[i] - c[i]) <= 1e-5f * (1.0f + std::fabs(c[i])))) {
      ADD_FAILURE() << what << " at " << i << ": gpu " << g[i] << ", cpu " << c[i];
      return;
    }
  }
}

Tensor random_input(const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = std::uniform_real_distribution<float>(-5, 5)(rng);
  return testing::f32(shape, v);
}

void check_case(Device& device, const Tensor& x, const std::vector<float>& scales,
                const std::vector<float>& roi, const Attrs& a, const std::string& what) {
  const Tensor expected =
      testing::OpTest("Resize")
          .input(x)
          .input(roi.empty() ? Tensor() : testing::f32({int64_t(roi.size())}, roi))
          .input(testing::f32({int64_t(scales.size())}, scales))
          .attr("mode", a.mode)
          .attr("coordinate_transformation_mode", a.coordinate)
          .attr("nearest_mode", a.nearest)
          .attr("cubic_coeff_a", a.cubic_a)
          .attr("exclude_outside", a.exclude_outside)
          .attr("extrapolation_value", a.extrapolation)
          .attr("antialias", a.antialias)
          .run()[0];
  expect_close(run_on_gpu(device, x, axes_from_scales(x.shape(), scales, roi), options_of(a)),
               expected, what);
}

const char* const kCoordinateModes[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                        "align_corners", "asymmetric"};

TEST_F(GpuCompute, ResizeNearestMatchesCpu) {
  const Tensor x = random_input({1, 2, 5, 7}, 1);
  for (const std::vector<float>& scales :
       {std::vector<float>{1, 1, 2.0f, 1.5f}, std::vector<float>{1, 1, 0.6f, 0.45f}}) {
    for (const char* coord : kCoordinateModes) {
      for (const char* nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
        check_case(device(), x, scales, {}, {.coordinate = coord, .nearest = nearest},
                   std::string(coord) + " " + nearest);
      }
    }
  }
}

TEST_F(GpuCompute, ResizeLinearAndCubicMatchCpu) {
  const Tensor x = random_input({1, 2, 6, 5}, 2);
  for (const std::vector<float>& scales :
       {std::vector<float>{1, 1, 1.7f, 2.5f}, std::vector<float>{1, 1, 0.5f, 0.8f}}) {
    for (const char* mode : {"linear", "cubic"}) {
      for (const char* coord : kCoordinateModes) {
        check_case(device(), x, scales, {}, {.mode = mode, .coordinate = coord},
                   std::string(mode) + " " + coord);
      }
      check_case(device(), x, scales, {}, {.mode = mode, .antialias = 1},
                 std::string(mode) + " antialias");
    }
    check_case(device(), x, scales, {}, {.mode = "cubic", .cubic_a = -0.5f, .exclude_outside = 1},
               "cubic exclude");
  }
  // Trilinear on a 3-D tensor and 1-D linear.
  check_case(device(), random_input({3, 4, 5}, 3), {1.5f, 0.75f, 2.0f}, {}, {.mode = "linear"},
             "trilinear");
  check_case(device(), random_input({9}, 4), {1.4f}, {}, {.mode = "linear"}, "1-D");
}

TEST_F(GpuCompute, ResizeTfCropAndResizeExtrapolates) {
  const Tensor x = random_input({1, 1, 6, 6}, 5);
  const std::vector<float> roi = {0, 0, 0.1f, -0.3f, 1, 1, 0.8f, 1.4f};
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    check_case(device(), x, {1, 1, 1.5f, 1.2f}, roi,
               {.mode = mode, .coordinate = "tf_crop_and_resize", .extrapolation = 7.5f},
               std::string("tf_crop_and_resize ") + mode);
  }
}

TEST_F(GpuCompute, ResizeRejectsBadPlans) {
  ResizeAxis a;
  a.in = 0;
  a.out = 3;
  EXPECT_THROW(plan_resize({0}, std::vector<ResizeAxis>{a}, {}), Error);
  EXPECT_THROW(plan_resize({2, 2}, std::vector<ResizeAxis>{ResizeAxis{}}, {}), Error);
}

}  // namespace
}  // namespace kiln::gpu_compute
