#include "backend_op_cases.h"

#include <cmath>
#include <limits>

namespace kiln::testing {
namespace {

// DequantizeLinear from the float8 types into float16 (GPU-compute; gpu-pixel's cases are in
// backend_ops_test.cpp's float8 family): every code, by a float16 scale per row and by a float32
// scale with output_dtype float16, and a float8 zero point of zero (the kernel takes none: -0
// stays -0).
void add_float8_float16_cases(std::vector<OpCase>& c) {
  for (DataType f8 : {DataType::Float8E4M3FN, DataType::Float8E4M3FNUZ, DataType::Float8E5M2,
                      DataType::Float8E5M2FNUZ}) {
    const std::string name(dtype_name(f8));
    auto every_code = [f8] {
      Tensor x = Tensor::zeros(f8, {4, 64});
      auto* bits = static_cast<uint8_t*>(x.mutable_raw_data());
      for (int i = 0; i < 256; ++i) bits[i] = static_cast<uint8_t>(i);
      return x;
    };
    c.push_back({"DequantizeLinear_" + name + "_float16_scale", [every_code] {
                   std::vector<Float16> scale;
                   for (float v : random_f32({4}, 230, 0.01f, 3.0f).to_vector<float>())
                     scale.push_back(Float16(v));
                   return OpTest("DequantizeLinear", 21)
                       .input(every_code())
                       .input(Tensor::from_data<Float16>({4}, scale))
                       .constant_input(1)
                       .attr("axis", int64_t{0});
                 }});
    c.back().on_pixel = false;
    c.push_back({"DequantizeLinear_" + name + "_output_float16", [every_code] {
                   return OpTest("DequantizeLinear", 23)
                       .input(every_code())
                       .input(random_f32({}, 231, 100.0f, 900.0f))
                       .constant_input(1)
                       .attr("output_dtype", int64_t{10});
                 }});
    c.back().on_pixel = false;
    c.push_back({"DequantizeLinear_" + name + "_zero_point", [f8, every_code] {
                   return OpTest("DequantizeLinear", 21)
                       .input(every_code())
                       .input(random_f32({}, 233, 0.5f, 2.0f))
                       .input(Tensor::zeros(f8, {}))
                       .constant_input(2);
                 }});
    c.back().on_pixel = false;
  }
}

// Float32 with repeats, both zeros and several NaNs (equal to each other, after all numbers).
Tensor float_repeats(const Shape& shape, unsigned seed) {
  std::vector<float> v = few_values(DataType::Float32, shape, seed).to_vector<float>();
  const float nan = std::nanf("");
  v[0] = -0.0f;
  v[1] = 0.0f;
  v[v.size() - 1] = nan;
  v[v.size() / 2] = -nan;
  v[3] = std::numeric_limits<float>::infinity();
  return Tensor::from_data<float>(shape, v);
}

// Unique (GPU-compute): without an axis and along one (negative too), sorted and in order of
// first occurrence, float32 (NaN and signed zeros), int32 and int64 (values beyond 32 bits), one
// element and an empty input; all four outputs.
void add_unique_cases(std::vector<OpCase>& c) {
  for (int64_t sorted : {1, 0}) {
    const std::string order = sorted ? "_sorted" : "_unsorted";
    c.push_back({"Unique_float32_flat" + order, [sorted] {
                   return OpTest("Unique")
                       .input(float_repeats({6, 9}, 240))
                       .attr("sorted", sorted)
                       .outputs(4);
                 }});
    c.back().on_pixel = false;
    c.push_back({"Unique_int64_flat" + order, [sorted] {
                   return OpTest("Unique")
                       .input(few_values(DataType::Int64, {5, 7}, 241))
                       .attr("sorted", sorted)
                       .outputs(4);
                 }});
    c.back().on_pixel = false;
    c.push_back({"Unique_int32_axis1" + order, [sorted] {
                   // Few distinct values, so that whole columns repeat.
                   std::vector<int32_t> v = {1, 0,  1, 2, 0, 2, 1, -3, 1,
                                             4, -3, 4, 1, 0, 1, 2, 0,  2};
                   return OpTest("Unique")
                       .input(Tensor::from_data<int32_t>({3, 6}, v))
                       .attr("axis", int64_t{1})
                       .attr("sorted", sorted)
                       .outputs(4);
                 }});
    c.back().on_pixel = false;
    c.push_back({"Unique_float32_axis_m3_3d" + order, [sorted] {
                   Tensor x = float_repeats({4, 2, 3}, 242);
                   std::vector<float> v = x.to_vector<float>();
                   for (int k = 0; k < 6; ++k) v[18 + k] = v[6 + k];  // slice 3 repeats slice 1
                   return OpTest("Unique")
                       .input(Tensor::from_data<float>({4, 2, 3}, v))
                       .attr("axis", int64_t{-3})
                       .attr("sorted", sorted)
                       .outputs(4);
                 }});
    c.back().on_pixel = false;
  }
  c.push_back({"Unique_int64_axis0_one_row", [] {
                 return OpTest("Unique")
                     .input(few_values(DataType::Int64, {1, 4}, 243))
                     .attr("axis", int64_t{0})
                     .outputs(4);
               }});
  c.back().on_pixel = false;
  c.push_back({"Unique_float32_single",
               [] { return OpTest("Unique").input(f32({1}, {2.5f})).outputs(4); }});
  c.back().on_pixel = false;
  c.push_back({"Unique_int32_empty", [] {
                 return OpTest("Unique").input(Tensor::zeros(DataType::Int32, {0, 3})).outputs(4);
               }});
  c.back().on_pixel = false;
}

REGISTER_OP_CASES(add_float8_float16_cases);
REGISTER_OP_CASES(add_unique_cases);

}  // namespace
}  // namespace kiln::testing
