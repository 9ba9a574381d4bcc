// The conversions GPU-pixel's Cast draws (backends/gpu_pixel/convert.h) against the CPU's rules,
// bit for bit: float16 rounding at every tie between two float16 values (and one ulp either side),
// overflow and subnormals; truncation and wrapping into the small integer types.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "backends/gpu_pixel/convert.h"
#include "gpu_pixel_fixture.h"
#include "kiln/float_types.h"

namespace kiln::gpu_pixel {
namespace {

class GpuPixelConvert : public GpuPixel {
 protected:
  std::vector<float> convert_on_gpu(ConvertOp op, const std::vector<float>& values) {
    const Tensor x = Tensor::from_data<float>({static_cast<int64_t>(values.size())}, values);
    const TextureTensor gx = to_gpu(x);
    TextureTensor gy(context(), x.element_count());
    Convert(context()).record(op, gx, gy);
    return to_host(gy, x.shape()).to_vector<float>();
  }
};

float half_value(uint16_t bits) { return static_cast<float>(Float16::from_bits(bits)); }

TEST_F(GpuPixelConvert, Float16RoundsAsTheCpuAtEveryTie) {
  std::vector<float> in;
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const float mid =
        (half_value(static_cast<uint16_t>(h)) + half_value(static_cast<uint16_t>(h + 1))) /
        2.0f;  // exact in float32
    for (float v : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      in.push_back(v);
      in.push_back(-v);
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {65504.0f, 65519.99f, 65520.0f, 1e10f, inf, -inf, 1e-30f, 2.9802322e-8f, 0.0f,
                  -0.0f, std::numeric_limits<float>::denorm_min()})
    in.push_back(v);
  const std::vector<float> out = convert_on_gpu(ConvertOp::ToFloat16, in);
  for (size_t i = 0; i < in.size(); ++i) {
    const float expected = static_cast<float>(Float16(in[i]));
    ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(expected))
        << "float16 of " << in[i] << " is " << out[i] << ", expected " << expected;
  }
}

TEST_F(GpuPixelConvert, Float16KeepsNaN) {
  const std::vector<float> out =
      convert_on_gpu(ConvertOp::ToFloat16, {std::nanf(""), -std::nanf("")});
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[1]));
}

// The CPU's rule (backends/cpu/cast_convert.h): truncate through int32, whose "integer
// indefinite" INT32_MIN stands for NaN and values outside it, then keep the low bits.
template <class T>
float wrapped(float v) {
  const int32_t t = v > -2147483649.0 && v < 2147483648.0 ? static_cast<int32_t>(v) : INT32_MIN;
  return static_cast<float>(static_cast<T>(t));
}

TEST_F(GpuPixelConvert, SmallIntegersTruncateAndWrapAsTheCpu) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> in = {
      0.0f,     -0.0f,    0.99f,         -0.99f,        127.5f,         128.0f,         -128.9f,
      -129.0f,  255.9f,   256.0f,        -1.0f,         32767.0f,       32768.0f,       -32769.f,
      65535.5f, 65536.0f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 3e9f,
      -3e9f,    inf,      -inf,          std::nanf(""), 1e30f};
  const Tensor r = random_tensor({4000}, -70000.0f, 70000.0f, 7);
  for (float v : r.to_vector<float>()) in.push_back(v);
  struct Target {
    ConvertOp op;
    float (*expected)(float);
  };
  for (const Target& t :
       {Target{ConvertOp::ToInt8, wrapped<int8_t>}, Target{ConvertOp::ToUInt8, wrapped<uint8_t>},
        Target{ConvertOp::ToInt16, wrapped<int16_t>},
        Target{ConvertOp::ToUInt16, wrapped<uint16_t>}}) {
    const std::vector<float> out = convert_on_gpu(t.op, in);
    for (size_t i = 0; i < in.size(); ++i) {
      ASSERT_EQ(out[i], t.expected(in[i])) << "op " << static_cast<int>(t.op) << " of " << in[i];
    }
  }
}

TEST_F(GpuPixelConvert, BoolIsNonZeroAndNotInverts) {
  const std::vector<float> in = {0.0f, -0.0f, 1.0f, -3.5f, std::nanf(""), 1e-30f};
  EXPECT_EQ(convert_on_gpu(ConvertOp::ToBool, in),
            (std::vector<float>{0.0f, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(convert_on_gpu(ConvertOp::Not, {0.0f, 1.0f, 1.0f, 0.0f, 0.0f}),
            (std::vector<float>{1.0f, 0.0f, 0.0f, 1.0f, 1.0f}));
}

}  // namespace
}  // namespace kiln::gpu_pixel
