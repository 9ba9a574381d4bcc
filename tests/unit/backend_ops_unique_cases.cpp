#include "backend_op_cases.h"

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

REGISTER_OP_CASES(add_float8_float16_cases);

}  // namespace
}  // namespace kiln::testing
