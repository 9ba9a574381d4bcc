#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// LRN (GPU-compute only): odd and even windows, a window wider than the channels, attributes
// other than the defaults, inputs of rank 2 to 5.
void add_lrn_cases(std::vector<OpCase>& c) {
  struct Lrn {
    const char* name;
    Shape shape;
    int64_t size;
    float alpha, beta, bias;
  };
  const Lrn lrns[] = {
      {"LRN_default", {2, 5, 6, 7}, 3, 1e-4f, 0.75f, 1.0f},
      {"LRN_size5_attrs", {1, 9, 4, 4}, 5, 0.002f, 0.5f, 2.0f},
      {"LRN_even_size", {2, 6, 3, 5}, 4, 0.05f, 0.75f, 1.5f},
      {"LRN_wider_than_channels", {2, 3, 5, 5}, 7, 0.3f, 1.25f, 0.5f},
      {"LRN_rank2", {4, 11}, 3, 0.1f, 0.75f, 1.0f},
      {"LRN_rank3", {3, 8, 10}, 5, 0.01f, 0.9f, 1.0f},
      {"LRN_rank5", {1, 6, 2, 3, 4}, 3, 0.05f, 0.6f, 1.0f},
  };
  unsigned seed = 700;
  for (const Lrn& l : lrns) {
    c.push_back({l.name, [l, seed] {
                   return OpTest("LRN")
                       .input(random_f32(l.shape, seed, -3.0f, 3.0f))
                       .attr("size", l.size)
                       .attr("alpha", l.alpha)
                       .attr("beta", l.beta)
                       .attr("bias", l.bias);
                 }});
    c.back().on_pixel = false;
    ++seed;
  }
  c.push_back({"LRN_attrs_left_out", [] {
                 return OpTest("LRN").input(random_f32({1, 4, 3, 3}, 710)).attr("size", 2);
               }});
  c.back().on_pixel = false;
}

// MeanVarianceNormalization (GPU-compute only): the default axes (N, H, W: kept channels in
// between, so the kernel transposes), axes adjacent in memory (normalized in place), one axis,
// negative axes, every axis, size-1 dimensions between reduced ones, and lines long enough for
// a workgroup each.
void add_mvn_cases(std::vector<OpCase>& c) {
  struct Mvn {
    const char* name;
    Shape shape;
    std::vector<int64_t> axes;  // empty: the attribute left out
  };
  const Mvn mvns[] = {
      {"MeanVarianceNormalization_default", {3, 3, 3, 1}, {}},
      {"MeanVarianceNormalization_default_wide", {2, 5, 9, 11}, {}},
      {"MeanVarianceNormalization_spatial", {2, 3, 6, 7}, {2, 3}},
      {"MeanVarianceNormalization_channels", {2, 7, 3, 4}, {1}},
      {"MeanVarianceNormalization_negative", {4, 5, 6}, {-1, -3}},
      {"MeanVarianceNormalization_all", {2, 3, 4, 5}, {0, 1, 2, 3}},
      {"MeanVarianceNormalization_unit_between", {3, 1, 8, 2}, {0, 2}},
      {"MeanVarianceNormalization_rank5", {2, 3, 2, 4, 3}, {0, 2, 4}},
  };
  unsigned seed = 720;
  for (const Mvn& m : mvns) {
    c.push_back({m.name, [m, seed] {
                   OpTest t("MeanVarianceNormalization");
                   t.input(random_f32(m.shape, seed, -4.0f, 6.0f));
                   if (!m.axes.empty()) t.attr("axes", m.axes);
                   return t;
                 }});
    c.back().on_pixel = false;
    ++seed;
  }
}

template <class T>
OpTest range_test(float start, float limit, float delta) {
  return OpTest("Range")
      .input(Tensor::scalar<T>(T(start)))
      .input(Tensor::scalar<T>(T(limit)))
      .input(Tensor::scalar<T>(T(delta)));
}

// Range (GPU-compute only): float32, float16 and bfloat16 (computed in float32 and rounded, as
// on the CPU), int32 and int64 (values and steps beyond 32 bits); rising, falling, fractional and
// empty ranges, odd lengths (the 2-byte types' last word half used).
void add_range_cases(std::vector<OpCase>& c) {
  c.push_back({"Range_float32", [] { return range_test<float>(1.0f, 5.0f, 2.0f); }});
  c.push_back({"Range_float32_fraction", [] { return range_test<float>(-3.3f, 40.1f, 0.37f); }});
  c.push_back({"Range_float32_falling", [] { return range_test<float>(10.0f, -7.5f, -1.3f); }});
  c.push_back({"Range_float32_empty", [] { return range_test<float>(5.0f, 1.0f, 2.0f); }});
  c.push_back({"Range_float16", [] { return range_test<Float16>(1.0f, 8.0f, 0.75f); }});
  c.push_back({"Range_float16_falling", [] { return range_test<Float16>(3.0f, -60.0f, -3.5f); }});
  c.push_back({"Range_bfloat16", [] { return range_test<BFloat16>(1.0f, 9.0f, 0.6f); }});
  c.push_back({"Range_bfloat16_long", [] { return range_test<BFloat16>(-2.0f, 300.0f, 1.0f); }});
  c.push_back({"Range_int32_falling", [] { return range_test<int32_t>(10, -7, -3); }});
  c.push_back({"Range_int32", [] { return range_test<int32_t>(-1000, 2000, 7); }});
  c.push_back({"Range_int64_beyond_32_bits", [] {
                 return OpTest("Range")
                     .input(Tensor::scalar<int64_t>(-(int64_t{3} << 32) - 5))
                     .input(Tensor::scalar<int64_t>(int64_t{5} << 32))
                     .input(Tensor::scalar<int64_t>((int64_t{1} << 31) + 12345));
               }});
  c.push_back({"Range_int64_falling", [] { return range_test<int64_t>(40, -33, -4); }});
  for (size_t i = c.size() - 12; i < c.size(); ++i) c[i].on_pixel = false;
}

// Constant: each value attribute of 4- or 8-byte elements.
void add_constant_cases(std::vector<OpCase>& c) {
  c.push_back({"Constant_value_float32", [] {
                 return OpTest("Constant").attr("value", random_f32({3, 4, 5}, 740));
               }});
  c.push_back({"Constant_value_int32",
               [] { return OpTest("Constant").attr("value", random_int<int32_t>({7}, 741)); }});
  c.push_back({"Constant_value_floats", [] {
                 return OpTest("Constant").attr("value_floats", std::vector<float>{1.5f, -2, 3});
               }});
  c.push_back({"Constant_value_ints", [] {
                 return OpTest("Constant")
                     .attr("value_ints", std::vector<int64_t>{-1, int64_t{5} << 40, 7});
               }});
  c.push_back(
      {"Constant_value_float", [] { return OpTest("Constant").attr("value_float", 0.25f); }});
}

// Det (GPU-compute only): batches of matrices of several orders, a 2-D input, 1 x 1 and 0 x 0
// matrices, a singular matrix and one whose first pivot is zero (a row swap).
void add_det_cases(std::vector<OpCase>& c) {
  c.push_back({"Det_2d", [] { return OpTest("Det").input(random_f32({5, 5}, 750)); }});
  c.push_back({"Det_batch_3x3", [] { return OpTest("Det").input(random_f32({2, 4, 3, 3}, 751)); }});
  c.push_back({"Det_batch_8x8", [] { return OpTest("Det").input(random_f32({6, 8, 8}, 752)); }});
  c.push_back({"Det_1x1", [] { return OpTest("Det").input(random_f32({7, 1, 1}, 753)); }});
  c.push_back({"Det_0x0", [] { return OpTest("Det").input(f32({3, 0, 0}, {})); }});
  c.push_back({"Det_singular_and_swapped", [] {
                 return OpTest("Det").input(f32({2, 3, 3}, {1, 2, 3, 2, 4, 6, 0, 1, 5,  //
                                                            0, 2, 1, 3, 1, 4, 5, 9, 2}));
               }});
  for (size_t i = c.size() - 6; i < c.size(); ++i) c[i].on_pixel = false;
}

// MelWeightMatrix (GPU-compute only): the ONNX test's sizes, int32 inputs with a lower edge,
// and narrow filters (some of zero rising width).
void add_mel_weight_matrix_cases(std::vector<OpCase>& c) {
  c.push_back({"MelWeightMatrix_onnx_sizes", [] {
                 return OpTest("MelWeightMatrix")
                     .input(Tensor::scalar<int64_t>(8))
                     .input(Tensor::scalar<int64_t>(16))
                     .input(Tensor::scalar<int64_t>(8192))
                     .input(Tensor::scalar<float>(0.0f))
                     .input(Tensor::scalar<float>(4096.0f));
               }});
  c.push_back({"MelWeightMatrix_int32_lower_edge", [] {
                 return OpTest("MelWeightMatrix")
                     .input(Tensor::scalar<int32_t>(20))
                     .input(Tensor::scalar<int32_t>(512))
                     .input(Tensor::scalar<int32_t>(16000))
                     .input(Tensor::scalar<float>(30.0f))
                     .input(Tensor::scalar<float>(7000.0f));
               }});
  c.push_back({"MelWeightMatrix_narrow_filters", [] {
                 return OpTest("MelWeightMatrix")
                     .input(Tensor::scalar<int64_t>(12))
                     .input(Tensor::scalar<int64_t>(64))
                     .input(Tensor::scalar<int64_t>(1000))
                     .input(Tensor::scalar<double>(100.0))
                     .input(Tensor::scalar<double>(400.0));
               }});
  for (size_t i = c.size() - 3; i < c.size(); ++i) c[i].on_pixel = false;
}

// MaxUnpool: the pooled positions of a 2x2 / stride 2 MaxPool, with and
// without a larger output_shape, overlapping windows whose indices repeat (the last input
// element naming a position wins, as on the CPU), 1-D and 3-D windows with pads, int64 values.
void add_max_unpool_cases(std::vector<OpCase>& c) {
  c.push_back({"MaxUnpool_2d", [] {
                 return OpTest("MaxUnpool", 11)
                     .input(random_f32({1, 2, 2, 2}, 760))
                     .input(i64({1, 2, 2, 2}, {5, 7, 13, 10, 16, 18, 25, 31}))
                     .attr("kernel_shape", std::vector<int64_t>{2, 2})
                     .attr("strides", std::vector<int64_t>{2, 2});
               }});
  c.push_back({"MaxUnpool_2d_output_shape", [] {
                 return OpTest("MaxUnpool", 11)
                     .input(random_f32({1, 2, 2, 2}, 761))
                     .input(i64({1, 2, 2, 2}, {0, 3, 9, 15, 17, 19, 28, 30}))
                     .input(i64({4}, {1, 2, 5, 5}))
                     .attr("kernel_shape", std::vector<int64_t>{2, 2})
                     .attr("strides", std::vector<int64_t>{2, 2});
               }});
  c.push_back({"MaxUnpool_repeated_indices", [] {
                 return OpTest("MaxUnpool", 11)
                     .input(random_f32({2, 1, 4}, 762))
                     .input(i64({2, 1, 4}, {1, 1, 2, 4, 0, 3, 3, 3}))
                     .attr("kernel_shape", std::vector<int64_t>{2})
                     .attr("strides", std::vector<int64_t>{1});
               }});
  c.push_back({"MaxUnpool_3d_pads", [] {
                 return OpTest("MaxUnpool", 11)
                     .input(random_f32({1, 1, 2, 2, 2}, 763))
                     .input(i64({1, 1, 2, 2, 2}, {0, 2, 5, 7, 20, 22, 25, 26}))
                     .attr("kernel_shape", std::vector<int64_t>{2, 2, 2})
                     .attr("strides", std::vector<int64_t>{2, 2, 2})
                     .attr("pads", std::vector<int64_t>{0, 0, 0, 1, 1, 1});
               }});
  c.push_back({"MaxUnpool_int64_values", [] {
                 return OpTest("MaxUnpool", 11)
                     .input(i64({1, 1, 1, 3}, {-5, int64_t{3} << 40, 9}))
                     .input(i64({1, 1, 1, 3}, {0, 3, 5}))
                     .attr("kernel_shape", std::vector<int64_t>{1, 2})
                     .attr("strides", std::vector<int64_t>{1, 2});
               }});
}

// RoiAlign: average and max pooling, half_pixel and output_half_pixel
// coordinates, fixed and adaptive sampling, regions partly outside the map, int32 and int64
// batch indices, a spatial scale.
void add_roi_align_cases(std::vector<OpCase>& c) {
  struct Roi {
    const char* name;
    const char* mode;
    const char* ctm;
    int64_t out_h, out_w, sampling_ratio;
    float spatial_scale;
    bool int32_batch;
  };
  const Roi rois[] = {
      {"RoiAlign_avg_half_pixel", "avg", "half_pixel", 3, 3, 2, 1.0f, false},
      {"RoiAlign_avg_adaptive", "avg", "half_pixel", 2, 4, 0, 1.0f, false},
      {"RoiAlign_max", "max", "half_pixel", 3, 2, 2, 1.0f, false},
      {"RoiAlign_output_half_pixel_scaled", "avg", "output_half_pixel", 4, 4, 0, 0.5f, true},
      {"RoiAlign_max_adaptive_int32", "max", "output_half_pixel", 2, 2, 0, 1.0f, true},
  };
  unsigned seed = 770;
  for (const Roi& r : rois) {
    c.push_back({r.name, [r, seed] {
                   const Tensor batch = r.int32_batch ? Tensor::from_data<int32_t>(
                                                            {4}, std::vector<int32_t>{0, 1, 0, 1})
                                                      : i64({4}, {0, 1, 0, 1});
                   return OpTest("RoiAlign", 16)
                       .input(random_f32({2, 3, 10, 9}, seed))
                       .input(f32({4, 4}, {0.0f, 0.0f, 8.0f, 9.0f,    //
                                           1.5f, 2.2f, 5.5f, 6.3f,    //
                                           -2.0f, -1.0f, 3.0f, 4.0f,  //
                                           6.0f, 7.5f, 11.0f, 12.0f}))
                       .input(batch)
                       .attr("mode", r.mode)
                       .attr("coordinate_transformation_mode", r.ctm)
                       .attr("output_height", r.out_h)
                       .attr("output_width", r.out_w)
                       .attr("sampling_ratio", r.sampling_ratio)
                       .attr("spatial_scale", r.spatial_scale);
                 }});
    ++seed;
  }
}

// DeformConv: offsets that move taps between pixels and off the image, with
// pads, strides and dilations, a bias and a mask, groups and offset groups.
void add_deform_conv_cases(std::vector<OpCase>& c) {
  struct Deform {
    const char* name;
    Shape x, w;
    int64_t out_h, out_w, group, offset_group;
    std::vector<int64_t> pads, strides, dilations;
    bool bias, mask;
  };
  const Deform deforms[] = {
      {"DeformConv_plain", {1, 2, 5, 5}, {3, 2, 3, 3}, 3, 3, 1, 1, {}, {}, {}, false, false},
      {"DeformConv_pads_bias_mask",
       {2, 2, 4, 5},
       {2, 2, 2, 2},
       5,
       6,
       1,
       1,
       {1, 1, 1, 1},
       {},
       {},
       true,
       true},
      {"DeformConv_strides_dilations",
       {1, 1, 7, 6},
       {2, 1, 3, 2},
       2,
       4,
       1,
       1,
       {0, 1, 0, 1},
       {2, 2},
       {2, 1},
       true,
       false},
      {"DeformConv_groups", {1, 4, 4, 4}, {4, 2, 2, 2}, 3, 3, 2, 2, {}, {}, {}, false, true},
  };
  unsigned seed = 780;
  for (const Deform& d : deforms) {
    c.push_back({d.name, [d, seed] {
                   const int64_t taps = d.w[2] * d.w[3];
                   OpTest t("DeformConv", 19);
                   t.input(random_f32(d.x, seed))
                       .input(random_f32(d.w, seed + 100, -1.0f, 1.0f))
                       .input(random_f32({d.x[0], 2 * d.offset_group * taps, d.out_h, d.out_w},
                                         seed + 200, -1.7f, 1.7f))
                       .input(d.bias ? random_f32({d.w[0]}, seed + 300) : Tensor())
                       .input(d.mask ? random_f32({d.x[0], d.offset_group * taps, d.out_h, d.out_w},
                                                  seed + 400, 0.0f, 1.0f)
                                     : Tensor())
                       .attr("group", d.group)
                       .attr("offset_group", d.offset_group);
                   if (!d.pads.empty()) t.attr("pads", d.pads);
                   if (!d.strides.empty()) t.attr("strides", d.strides);
                   if (!d.dilations.empty()) t.attr("dilations", d.dilations);
                   return t;
                 }});
    ++seed;
  }
}

REGISTER_OP_CASES(add_lrn_cases);
REGISTER_OP_CASES(add_mvn_cases);
REGISTER_OP_CASES(add_range_cases);
REGISTER_OP_CASES(add_constant_cases);
REGISTER_OP_CASES(add_det_cases);
REGISTER_OP_CASES(add_mel_weight_matrix_cases);
REGISTER_OP_CASES(add_max_unpool_cases);
REGISTER_OP_CASES(add_roi_align_cases);
REGISTER_OP_CASES(add_deform_conv_cases);

}  // namespace
}  // namespace kiln::testing
