#include "opdefs/resize.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/dtype_dispatch.h"
#include "opdefs/all_defs.h"
#include "opdefs/node_info.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

ResizeMode parse_mode(const NodeInfo& info) {
  const std::string mode = info.attr_string("mode", "nearest");
  if (mode == "nearest") return ResizeMode::Nearest;
  // Upsample-7 documented "bilinear"; later versions call it "linear".
  if (mode == "linear" || mode == "bilinear") return ResizeMode::Linear;
  if (mode == "cubic" && !info.op_type().starts_with("Upsample") && info.opset() >= 11) {
    return ResizeMode::Cubic;
  }
  info.fail("unsupported mode '" + mode + "'");
}

ResizeCoordinateMode parse_coordinate_mode(const NodeInfo& info) {
  const std::string m = info.attr_string("coordinate_transformation_mode", "half_pixel");
  if (m == "half_pixel") return ResizeCoordinateMode::HalfPixel;
  if (m == "half_pixel_symmetric") return ResizeCoordinateMode::HalfPixelSymmetric;
  if (m == "pytorch_half_pixel") return ResizeCoordinateMode::PytorchHalfPixel;
  if (m == "align_corners") return ResizeCoordinateMode::AlignCorners;
  if (m == "asymmetric") return ResizeCoordinateMode::Asymmetric;
  if (m == "tf_half_pixel_for_nn") return ResizeCoordinateMode::TfHalfPixelForNn;
  if (m == "tf_crop_and_resize") return ResizeCoordinateMode::TfCropAndResize;
  info.fail("unknown coordinate_transformation_mode '" + m + "'");
}

ResizeNearestMode parse_nearest_mode(const NodeInfo& info) {
  const std::string m = info.attr_string("nearest_mode", "round_prefer_floor");
  if (m == "round_prefer_floor") return ResizeNearestMode::RoundPreferFloor;
  if (m == "round_prefer_ceil") return ResizeNearestMode::RoundPreferCeil;
  if (m == "floor") return ResizeNearestMode::Floor;
  if (m == "ceil") return ResizeNearestMode::Ceil;
  info.fail("unknown nearest_mode '" + m + "'");
}

AspectPolicy parse_policy(const NodeInfo& info) {
  const std::string p = info.attr_string("keep_aspect_ratio_policy", "stretch");
  if (p == "stretch") return AspectPolicy::Stretch;
  if (p == "not_larger") return AspectPolicy::NotLarger;
  if (p == "not_smaller") return AspectPolicy::NotSmaller;
  info.fail("unknown keep_aspect_ratio_policy '" + p + "'");
}

// The values of a float tensor of any float type (scales, roi) as floats.
void read_floats(const NodeInputs& ctx, const Tensor& t, const char* what, float* out) {
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) {
      const T* p = t.data<T>();
      for (int64_t i = 0; i < t.element_count(); ++i) out[i] = static_cast<float>(p[i]);
    } else {
      ctx.fail(std::string(what) + " must be a float tensor, got " +
               std::string(dtype_name(t.dtype())));
    }
  });
}

// A few floats, inline for the usual ranks so that a steady-state run stays off the heap.
class SmallFloats {
 public:
  explicit SmallFloats(size_t n) {
    if (n > kInline) heap_.resize(n);
  }
  float* data() { return heap_.empty() ? inline_ : heap_.data(); }

 private:
  static constexpr size_t kInline = 16;
  float inline_[kInline] = {};
  std::vector<float> heap_;
};

}  // namespace

std::vector<ResizeAxis> resolve_resize(const ResizeConfig& cfg, const NodeInputs& ctx) {
  return resolve_resize(cfg, ctx, ctx.input(0).shape());
}

std::vector<ResizeAxis> resolve_resize(const ResizeConfig& cfg, const NodeInputs& ctx,
                                       const Shape& in_shape) {
  const int64_t rank = static_cast<int64_t>(in_shape.size());

  // The axes that scales, sizes and roi describe.
  Shape axes;
  if (cfg.axes.empty()) {
    axes.resize(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) axes[d] = d;
  } else {
    Shape seen;
    seen.resize(static_cast<size_t>(rank), 0);
    for (int64_t a : cfg.axes) {
      if (a < -rank || a >= rank) {
        ctx.fail("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
      }
      if (a < 0) a += rank;
      if (seen[a]++) ctx.fail("axis " + std::to_string(a) + " is repeated in axes");
      axes.push_back(a);
    }
  }
  const size_t n = axes.size();

  // Which inputs hold scales, sizes and roi depends on the version.
  const Tensor* scales_t = nullptr;
  const Tensor* sizes_t = nullptr;
  const Tensor* roi_t = nullptr;
  if (cfg.is_upsample || cfg.opset < 11) {
    if (!(cfg.is_upsample && cfg.opset < 9)) scales_t = &ctx.input(1);
  } else {
    if (ctx.has_input(1) && ctx.input(1).element_count() > 0) roi_t = &ctx.input(1);
    if (ctx.has_input(2) && ctx.input(2).element_count() > 0) scales_t = &ctx.input(2);
    if (ctx.has_input(3) && ctx.input(3).element_count() > 0) sizes_t = &ctx.input(3);
  }

  std::vector<ResizeAxis> per_axis(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    per_axis[d].in = per_axis[d].out = in_shape[d];
    per_axis[d].length = static_cast<float>(in_shape[d]);
  }

  if (scales_t != nullptr || (cfg.is_upsample && cfg.opset < 9)) {
    if (sizes_t != nullptr) ctx.fail("only one of scales and sizes may be given");
    SmallFloats scale_values(n);
    float* scales = scale_values.data();
    if (scales_t != nullptr) {
      if (static_cast<size_t>(scales_t->element_count()) != n || scales_t->rank() != 1) {
        ctx.fail("scales must be a 1-D tensor with " + std::to_string(n) + " values, got shape " +
                 scales_t->shape().to_string());
      }
      read_floats(ctx, *scales_t, "scales", scales);
    } else {
      if (cfg.attr_scales.size() != n) {
        ctx.fail("the scales attribute has " + std::to_string(cfg.attr_scales.size()) +
                 " values, expected " + std::to_string(n));
      }
      std::copy(cfg.attr_scales.begin(), cfg.attr_scales.end(), scales);
    }
    for (size_t i = 0; i < n; ++i) {
      const float s = scales[i];
      if (!(s > 0.0f) || !std::isfinite(s)) {
        ctx.fail("scales must be positive, got " + std::to_string(s));
      }
      if (cfg.is_upsample && s < 1.0f) {
        ctx.fail("Upsample scales must be >= 1, got " + std::to_string(s));
      }
      ResizeAxis& a = per_axis[axes[i]];
      a.scale = s;
      a.length = s * static_cast<float>(a.in);
      a.out = static_cast<int64_t>(std::floor(a.length));
    }
  } else if (sizes_t != nullptr) {
    if (static_cast<size_t>(sizes_t->element_count()) != n || sizes_t->rank() != 1 ||
        sizes_t->dtype() != DataType::Int64) {
      ctx.fail("sizes must be a 1-D int64 tensor with " + std::to_string(n) + " values, got " +
               std::string(dtype_name(sizes_t->dtype())) + " of shape " +
               sizes_t->shape().to_string());
    }
    const int64_t* sizes = sizes_t->data<int64_t>();
    for (size_t i = 0; i < n; ++i) {
      if (sizes[i] < 0) ctx.fail("sizes must not be negative");
      if (in_shape[axes[i]] == 0 && sizes[i] != 0) {
        ctx.fail("cannot resize the empty axis " + std::to_string(axes[i]) + " to " +
                 std::to_string(sizes[i]) + " elements");
      }
    }
    if (cfg.policy == AspectPolicy::Stretch) {
      for (size_t i = 0; i < n; ++i) {
        ResizeAxis& a = per_axis[axes[i]];
        a.out = sizes[i];
        a.scale = a.in > 0 ? static_cast<float>(a.out) / static_cast<float>(a.in) : 1.0f;
        a.length = static_cast<float>(a.out);
      }
    } else {
      // One scale for every listed axis, the largest (not_larger) or smallest (not_smaller)
      // that keeps each output within (or beyond) the requested size.
      float scale = cfg.policy == AspectPolicy::NotLarger ? INFINITY : 0.0f;
      for (size_t i = 0; i < n; ++i) {
        const int64_t in = in_shape[axes[i]];
        if (in == 0) continue;
        const float s = static_cast<float>(sizes[i]) / static_cast<float>(in);
        scale = cfg.policy == AspectPolicy::NotLarger ? std::min(scale, s) : std::max(scale, s);
      }
      if (!std::isfinite(scale) || scale <= 0.0f) scale = 1.0f;
      for (size_t i = 0; i < n; ++i) {
        ResizeAxis& a = per_axis[axes[i]];
        a.scale = scale;
        // Rounded half up, as the spec's round_int.
        a.length = scale * static_cast<float>(a.in);
        a.out = static_cast<int64_t>(std::floor(a.length + 0.5f));
      }
    }
  } else {
    ctx.fail("one of scales and sizes must be given");
  }

  if (cfg.options.coordinate == ResizeCoordinateMode::TfCropAndResize) {
    if (roi_t == nullptr) ctx.fail("tf_crop_and_resize needs the roi input");
    if (static_cast<size_t>(roi_t->element_count()) != 2 * n) {
      ctx.fail("roi must hold " + std::to_string(2 * n) + " values (starts then ends), got " +
               std::to_string(roi_t->element_count()));
    }
    SmallFloats roi_values(2 * n);
    float* roi = roi_values.data();
    read_floats(ctx, *roi_t, "roi", roi);
    for (size_t i = 0; i < n; ++i) {
      per_axis[axes[i]].roi_start = roi[i];
      per_axis[axes[i]].roi_end = roi[i + n];
    }
  }

  return per_axis;
}

ResizeConfig parse_resize_config(const NodeInfo& info, bool is_upsample) {
  ResizeConfig cfg;
  cfg.is_upsample = is_upsample;
  cfg.opset = info.opset();
  cfg.options.mode = parse_mode(info);
  if (is_upsample || cfg.opset < 11) {
    // The first versions map coordinates as x_out / scale and round nearest down (up when
    // downsampling).
    cfg.options.coordinate = ResizeCoordinateMode::Asymmetric;
    cfg.options.nearest = ResizeNearestMode::Simple;
    if (is_upsample && cfg.opset < 9) cfg.attr_scales = info.attr_floats("scales");
  } else {
    cfg.options.coordinate = parse_coordinate_mode(info);
    cfg.options.nearest = parse_nearest_mode(info);
    cfg.options.cubic_coeff_a = info.attr_float("cubic_coeff_a", -0.75f);
    cfg.options.exclude_outside = info.attr_int("exclude_outside", 0) != 0;
    cfg.options.extrapolation_value = info.attr_float("extrapolation_value", 0.0f);
    if (cfg.opset >= 18) {
      cfg.options.antialias = info.attr_int("antialias", 0) != 0;
      cfg.axes = info.attr_ints("axes");
      cfg.policy = parse_policy(info);
    }
  }
  if (is_upsample && cfg.opset < 9 && cfg.attr_scales.empty()) {
    info.fail("Upsample before opset 9 needs the scales attribute");
  }
  return cfg;
}

// ---- coordinate mapping and filter taps ------------------------------------------------------

namespace {

// Keys's cubic convolution kernel with parameter a (-0.75 like TensorFlow, -0.5 like PIL).
float cubic_weight(float t, float a) {
  t = std::fabs(t);
  if (t <= 1.0f) return ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
  if (t < 2.0f) return ((a * t - 5.0f * a) * t + 8.0f * a) * t - 4.0f * a;
  return 0.0f;
}

float linear_weight(float t) { return std::max(0.0f, 1.0f - std::fabs(t)); }

int64_t nearest_index(float x, ResizeNearestMode mode, bool downsampling) {
  const float f = std::floor(x);
  switch (mode) {
    case ResizeNearestMode::RoundPreferFloor:
      return static_cast<int64_t>(x == f + 0.5f ? f : std::round(x));
    case ResizeNearestMode::RoundPreferCeil:
      return static_cast<int64_t>(x == f + 0.5f ? f + 1.0f : std::round(x));
    case ResizeNearestMode::Floor:
      return static_cast<int64_t>(f);
    case ResizeNearestMode::Ceil:
      return static_cast<int64_t>(std::ceil(x));
    case ResizeNearestMode::Simple:
      return static_cast<int64_t>(downsampling ? std::ceil(x) : std::trunc(x));
  }
  return static_cast<int64_t>(f);
}

// Coordinates far outside the input only ever get clamped; bounding them first keeps the
// float-to-integer conversions defined.
float bounded(float x) { return std::clamp(x, -1.0e15f, 1.0e15f); }

}  // namespace

float resize_source_coordinate(float x, const ResizeAxis& axis, ResizeCoordinateMode mode) {
  const float in = static_cast<float>(axis.in);
  const float length = axis.length;
  const float scale = axis.scale;
  switch (mode) {
    case ResizeCoordinateMode::HalfPixel:
      return (x + 0.5f) / scale - 0.5f;
    case ResizeCoordinateMode::HalfPixelSymmetric: {
      // Centres the sampled window when the output length was rounded from in * scale.
      const float adjustment = static_cast<float>(axis.out) / length;
      const float offset = in / 2.0f * (1.0f - adjustment);
      return offset + (x + 0.5f) / scale - 0.5f;
    }
    case ResizeCoordinateMode::PytorchHalfPixel:
      return length > 1.0f ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case ResizeCoordinateMode::AlignCorners:
      return length == 1.0f ? 0.0f : x * (in - 1.0f) / (length - 1.0f);
    case ResizeCoordinateMode::Asymmetric:
      return x / scale;
    case ResizeCoordinateMode::TfHalfPixelForNn:
      return (x + 0.5f) / scale;
    case ResizeCoordinateMode::TfCropAndResize: {
      const double start = axis.roi_start, end = axis.roi_end,
                   span = static_cast<double>(axis.in - 1);
      if (length > 1.0f)
        return static_cast<float>(start * span + x * (end - start) * span / (length - 1.0));
      return static_cast<float>(0.5 * (start + end) * span);
    }
  }
  return x;
}

float bounded_source_coordinate(float x, const ResizeAxis& axis, ResizeCoordinateMode mode) {
  return bounded(resize_source_coordinate(x, axis, mode));
}

void compute_axis_taps(const ResizeAxis& axis, const ResizeOptions& options, AxisTaps& taps) {
  taps.first.clear();
  taps.index.clear();
  taps.weight.clear();
  taps.first.reserve(static_cast<size_t>(axis.out) + 1);
  taps.max_count = 1;
  const int64_t last = axis.in - 1;
  const bool antialias =
      options.antialias && axis.scale < 1.0f && options.mode != ResizeMode::Nearest;
  auto push = [&](int64_t index, float weight) {
    taps.index.push_back(index);
    taps.weight.push_back(weight);
  };
  for (int64_t o = 0; o < axis.out; ++o) {
    const size_t begin = taps.index.size();
    taps.first.push_back(static_cast<int64_t>(begin));
    const float x = bounded_source_coordinate(static_cast<float>(o), axis, options.coordinate);
    if (options.coordinate == ResizeCoordinateMode::TfCropAndResize &&
        (x < 0.0f || x > static_cast<float>(last))) {
      push(-1, 0.0f);
      continue;
    }
    if (options.mode == ResizeMode::Nearest) {
      push(std::clamp<int64_t>(nearest_index(x, options.nearest, axis.scale < 1.0f), 0, last),
           1.0f);
      continue;
    }
    if (antialias) {
      // The filter is stretched by 1/scale so that every input sample under it contributes;
      // like the unstretched filters, taps beyond the border repeat the edge sample unless
      // exclude_outside drops them. The weights are renormalised to sum to one.
      const float support = (options.mode == ResizeMode::Linear ? 1.0f : 2.0f) / axis.scale;
      const int64_t lo = static_cast<int64_t>(std::ceil(x - support));
      const int64_t hi = static_cast<int64_t>(std::floor(x + support));
      float total = 0.0f;
      for (int64_t j = lo; j <= hi; ++j) {
        if (options.exclude_outside && (j < 0 || j > last)) continue;
        const float t = (static_cast<float>(j) - x) * axis.scale;
        const float w = options.mode == ResizeMode::Linear ? linear_weight(t)
                                                           : cubic_weight(t, options.cubic_coeff_a);
        if (w != 0.0f) {
          push(std::clamp<int64_t>(j, 0, last), w);
          total += w;
        }
      }
      if (taps.index.size() == begin || total == 0.0f) {
        taps.index.resize(begin);
        taps.weight.resize(begin);
        push(std::clamp<int64_t>(static_cast<int64_t>(std::round(x)), 0, last), 1.0f);
      } else {
        for (size_t i = begin; i < taps.weight.size(); ++i) taps.weight[i] /= total;
      }
    } else if (options.mode == ResizeMode::Linear) {
      const float xc = std::clamp(x, 0.0f, static_cast<float>(last));
      const int64_t x0 = static_cast<int64_t>(std::floor(xc));
      const int64_t x1 = std::min(x0 + 1, last);
      const float t = xc - static_cast<float>(x0);
      if (t != 1.0f) push(x0, 1.0f - t);
      if (t != 0.0f && x1 != x0) push(x1, t);
      if (taps.index.size() == begin) push(x0, 1.0f);
    } else {
      const float f = std::floor(x);
      const int64_t x0 = static_cast<int64_t>(f);
      const float t = x - f;
      float w[4] = {cubic_weight(t + 1.0f, options.cubic_coeff_a),
                    cubic_weight(t, options.cubic_coeff_a),
                    cubic_weight(1.0f - t, options.cubic_coeff_a),
                    cubic_weight(2.0f - t, options.cubic_coeff_a)};
      if (options.exclude_outside) {
        // Taps outside the input get no weight; the others are rescaled to sum to one.
        float total = 0.0f;
        for (int k = 0; k < 4; ++k) {
          const int64_t j = x0 - 1 + k;
          if (j < 0 || j > last) w[k] = 0.0f;
          total += w[k];
        }
        if (total != 0.0f) {
          for (float& v : w) v /= total;
        }
      }
      for (int k = 0; k < 4; ++k) {
        // Without exclude_outside, taps beyond the border repeat the edge sample.
        if (w[k] != 0.0f) push(std::clamp<int64_t>(x0 - 1 + k, 0, last), w[k]);
      }
      if (taps.index.size() == begin) push(std::clamp<int64_t>(x0, 0, last), 1.0f);
    }
    taps.max_count =
        std::max<int64_t>(taps.max_count, static_cast<int64_t>(taps.index.size() - begin));
  }
  taps.first.push_back(static_cast<int64_t>(taps.index.size()));
}

namespace {

// Resize and Upsample: X's shape with each axis's `out` from resolve_resize, read from the
// constant scales / sizes / roi. A symbolic axis is resolved with a stand-in extent and keeps
// its name where the resize leaves it alone (out == in), or takes a fixed size from `sizes`.
std::vector<ValueInfo> resize_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs) return {dtype_only(x->dtype)};
  const bool is_upsample = ctx.node().op_type == "Upsample";
  const ResizeConfig cfg = parse_resize_config(ctx.info(), is_upsample);
  std::vector<Tensor> inputs(ctx.num_inputs());
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (ctx.node().inputs[i].empty()) continue;
    const Tensor* t = ctx.info().constant_input(i);
    if (!t) return {dtype_only(x->dtype)};  // known only at run time
    inputs[i] = *t;
  }
  constexpr int64_t kStandIn = int64_t{1} << 40;
  Shape in;
  bool symbolic = false;
  for (const Dim& d : *xs) {
    in.push_back(d.is_fixed() ? d.value : kStandIn);
    symbolic = symbolic || !d.is_fixed();
  }
  const std::vector<ResizeAxis> axes = resolve_resize(cfg, NodeInputs{ctx.node(), inputs}, in);
  // With keep_aspect_ratio_policy, one scale for every listed axis comes from all of them.
  const bool shared_scale = cfg.policy != AspectPolicy::Stretch && symbolic;
  const bool by_sizes = !is_upsample && cfg.opset >= 11 && inputs.size() > 3 &&
                        inputs[3].defined() && inputs[3].element_count() > 0;
  std::vector<Dim> out;
  for (size_t d = 0; d < xs->size(); ++d) {
    const Dim& dim = (*xs)[d];
    if (shared_scale) {
      out.push_back(Dim{});
    } else if (dim.is_fixed()) {
      out.push_back(fixed_dim(axes[d].out));
    } else if (axes[d].out == in[d]) {
      out.push_back(dim);  // left alone
    } else if (by_sizes) {
      out.push_back(fixed_dim(axes[d].out));
    } else {
      out.push_back(Dim{});
    }
  }
  return {tensor_type(x->dtype, out)};
}

}  // namespace

KILN_OP_DEFS(resize);
void define_resize_ops(OpDefs& defs) {
  OpDef& resize = defs.define("Resize");
  resize.infer = resize_rule;
  resize.shape_inputs = {{10, {1}}, {11, {1, 2, 3}}};
  OpDef& upsample = defs.define("Upsample");
  upsample.infer = resize_rule;
  upsample.shape_inputs = {{9, {1}}};
}

}  // namespace kiln
