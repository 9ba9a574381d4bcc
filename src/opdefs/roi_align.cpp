#include "opdefs/roi_align.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/dtype_dispatch.h"
#include "opdefs/node_info.h"

namespace kiln {
namespace {

// Samples per bin beyond which a region is rejected rather than pooled (a corrupt or huge ROI
// with an adaptive sampling ratio would otherwise run for hours).
constexpr double kMaxSamplesPerRoi = 1 << 20;

RoiSample bilinear_sample(double y, double x, int64_t height, int64_t width) {
  RoiSample s;
  // Samples more than a pixel outside the map contribute nothing.
  if (y < -1.0 || y > static_cast<double>(height) || x < -1.0 || x > static_cast<double>(width)) {
    return s;
  }
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high = y_low + 1, x_high = x_low + 1;
  if (y_low >= height - 1) {
    y_low = y_high = height - 1;
    y = static_cast<double>(y_low);
  }
  if (x_low >= width - 1) {
    x_low = x_high = width - 1;
    x = static_cast<double>(x_low);
  }
  const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low);
  const double hy = 1 - ly, hx = 1 - lx;
  s.pos[0] = y_low * width + x_low;
  s.pos[1] = y_low * width + x_high;
  s.pos[2] = y_high * width + x_low;
  s.pos[3] = y_high * width + x_high;
  s.w[0] = hy * hx;
  s.w[1] = hy * lx;
  s.w[2] = ly * hx;
  s.w[3] = ly * lx;
  return s;
}

// Returns false when the region is unusable (non-finite or needing too many samples).
bool plan_roi(const RoiAlignAttrs& a, const double* box, int64_t height, int64_t width,
              RoiPlan& plan) {
  const double offset = a.half_pixel ? 0.5 : 0.0;
  const double start_w = box[0] * a.spatial_scale - offset;
  const double start_h = box[1] * a.spatial_scale - offset;
  double roi_w = box[2] * a.spatial_scale - offset - start_w;
  double roi_h = box[3] * a.spatial_scale - offset - start_h;
  if (!a.half_pixel) {  // the original definition forces malformed regions to 1 x 1
    roi_w = std::max(roi_w, 1.0);
    roi_h = std::max(roi_h, 1.0);
  }
  if (!std::isfinite(start_w) || !std::isfinite(start_h) || !std::isfinite(roi_w) ||
      !std::isfinite(roi_h)) {
    return false;
  }
  const double bin_h = roi_h / static_cast<double>(a.out_h);
  const double bin_w = roi_w / static_cast<double>(a.out_w);
  const double grid_h = a.sampling_ratio > 0 ? static_cast<double>(a.sampling_ratio)
                                             : std::max(0.0, std::ceil(bin_h));
  const double grid_w = a.sampling_ratio > 0 ? static_cast<double>(a.sampling_ratio)
                                             : std::max(0.0, std::ceil(bin_w));
  if (grid_h * grid_w * static_cast<double>(a.out_h * a.out_w) > kMaxSamplesPerRoi) return false;
  plan.grid_h = static_cast<int64_t>(grid_h);
  plan.grid_w = static_cast<int64_t>(grid_w);
  plan.samples.clear();
  for (int64_t ph = 0; ph < a.out_h; ++ph) {
    for (int64_t pw = 0; pw < a.out_w; ++pw) {
      for (int64_t iy = 0; iy < plan.grid_h; ++iy) {
        const double y = start_h + static_cast<double>(ph) * bin_h +
                         (static_cast<double>(iy) + 0.5) * bin_h / grid_h;
        for (int64_t ix = 0; ix < plan.grid_w; ++ix) {
          const double x = start_w + static_cast<double>(pw) * bin_w +
                           (static_cast<double>(ix) + 0.5) * bin_w / grid_w;
          plan.samples.push_back(bilinear_sample(y, x, height, width));
        }
      }
    }
  }
  return true;
}

}  // namespace

RoiAlignAttrs parse_roi_align_attrs(const NodeInfo& info) {
  RoiAlignAttrs a;
  const std::string mode = info.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") info.fail("mode must be avg or max, got '" + mode + "'");
  a.max_mode = mode == "max";
  // Opset 10 had no attribute and behaved as output_half_pixel.
  const std::string ctm = info.attr_string("coordinate_transformation_mode",
                                           info.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel") {
    info.fail("coordinate_transformation_mode must be half_pixel or output_half_pixel, got '" +
              ctm + "'");
  }
  a.half_pixel = ctm == "half_pixel";
  a.out_h = info.attr_int("output_height", 1);
  a.out_w = info.attr_int("output_width", 1);
  a.sampling_ratio = info.attr_int("sampling_ratio", 0);
  a.spatial_scale = info.attr_float("spatial_scale", 1.0f);
  if (a.out_h <= 0 || a.out_w <= 0) info.fail("output_height and output_width must be positive");
  if (a.sampling_ratio < 0) info.fail("sampling_ratio must not be negative");
  if (!std::isfinite(a.spatial_scale)) info.fail("spatial_scale must be finite");
  return a;
}

RoiAlignRun resolve_roi_align(const NodeInputs& in, const RoiAlignAttrs& a) {
  const Tensor& x = in.input(0);
  const Tensor& rois = in.input(1);
  const Tensor& batch_indices = in.input(2);
  const Shape& xs = x.shape();
  if (xs.size() != 4) in.fail("X must have shape (N, C, H, W), got " + xs.to_string());
  const int64_t num_rois = rois.rank() == 2 ? rois.shape()[0] : -1;
  if (rois.rank() != 2 || rois.shape()[1] != 4) {
    in.fail("rois must have shape (num_rois, 4), got " + rois.shape().to_string());
  }
  if (batch_indices.shape() != Shape{num_rois} ||
      (batch_indices.dtype() != DataType::Int64 && batch_indices.dtype() != DataType::Int32)) {
    in.fail("batch_indices must be int64 of shape (" + std::to_string(num_rois) + "), got " +
            std::string(dtype_name(batch_indices.dtype())) + batch_indices.shape().to_string());
  }
  if (rois.dtype() != x.dtype()) in.fail("rois must have X's element type");
  RoiAlignRun run;
  run.batch.resize(static_cast<size_t>(num_rois));
  for (int64_t r = 0; r < num_rois; ++r) {
    run.batch[r] = batch_indices.dtype() == DataType::Int64 ? batch_indices.data<int64_t>()[r]
                                                            : batch_indices.data<int32_t>()[r];
    if (run.batch[r] < 0 || run.batch[r] >= xs[0]) {
      in.fail("batch index " + std::to_string(run.batch[r]) + " of roi " + std::to_string(r) +
              " is outside the batch of " + std::to_string(xs[0]));
    }
  }
  // Huge output_height and output_width overflow the element count (then a small buffer would
  // be taken for a huge shape).
  run.out_shape = Shape{num_rois, xs[1], a.out_h, a.out_w};
  int64_t count = 1;
  for (int64_t d : run.out_shape) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) {
      in.fail("the output shape " + run.out_shape.to_string() + " is not a valid tensor shape");
    }
  }
  return run;
}

std::vector<RoiPlan> plan_roi_align(const NodeInputs& in, const RoiAlignAttrs& a, int64_t height,
                                    int64_t width) {
  const Tensor& x = in.input(0);
  const Tensor& rois = in.input(1);
  if (height == 0 || width == 0) {
    in.fail("X has an empty spatial axis: " + x.shape().to_string());
  }
  const int64_t num_rois = rois.shape()[0];
  std::vector<double> boxes(static_cast<size_t>(num_rois * 4));
  bool is_float = false;
  visit_dtype(rois.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      is_float = true;
      const T* rd = rois.data<T>();
      for (size_t i = 0; i < boxes.size(); ++i) boxes[i] = to_double(rd[i]);
    }
  });
  if (!is_float) {
    in.fail("X must be float32, float64, float16 or bfloat16, got " +
            std::string(dtype_name(x.dtype())));
  }
  // Plan every region first: an unusable one fails the node before any work is spread.
  std::vector<RoiPlan> plans(static_cast<size_t>(num_rois));
  for (int64_t r = 0; r < num_rois; ++r) {
    if (!plan_roi(a, boxes.data() + r * 4, height, width, plans[r])) {
      in.fail("roi " + std::to_string(r) + " is not finite or needs too many samples");
    }
  }
  return plans;
}

}  // namespace kiln
