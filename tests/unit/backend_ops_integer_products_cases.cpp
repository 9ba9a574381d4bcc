// The quantized products in the GPU op harness (GPU-compute only): MatMulInteger, ConvInteger
// and QLinearConv against the CPU, integers compared exactly; and the definition's errors for bad
// parameters reaching a GPU-compute run. (DynamicQuantizeLinear's cases, which both GPU backends
// run, are in backend_ops_test.cpp.)
#include <gtest/gtest.h>

#include <optional>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

Tensor bytes(DataType t, const Shape& s, unsigned seed) {
  return t == DataType::Int8 ? random_int<int8_t>(s, seed, -128, 127)
                             : random_int<uint8_t>(s, seed, 0, 255);
}

Tensor zero_points(DataType t, const Shape& s, unsigned seed) {
  return t == DataType::Int8 ? random_int<int8_t>(s, seed, -20, 20)
                             : random_int<uint8_t>(s, seed, 100, 150);
}

// MatMulInteger: uint8 and int8 operands (mixed too), scalar, per-row / per-column and per-batch
// zero points, absent ones, broadcast batches, a 1-D operand, and sums that wrap int32.
void add_matmul_integer_cases(std::vector<OpCase>& c) {
  struct MCase {
    std::string name;
    Shape a, b;
    DataType ta = DataType::UInt8, tb = DataType::UInt8;
    std::optional<Shape> za, zb;  // absent: no zero point
  };
  const std::vector<MCase> ms = {
      {"2d_uint8", {4, 7}, {7, 5}, DataType::UInt8, DataType::UInt8, Shape{}, Shape{}},
      {"int8_by_uint8_per_line",
       {2, 3, 5},
       {5, 4},
       DataType::Int8,
       DataType::UInt8,
       Shape{3},
       Shape{4}},
      {"batch_broadcast_int8",
       {2, 1, 3, 6},
       {1, 3, 6, 2},
       DataType::Int8,
       DataType::Int8,
       Shape{1},
       std::nullopt},
      {"per_batch_rows",
       {2, 3, 4},
       {2, 4, 5},
       DataType::UInt8,
       DataType::Int8,
       Shape{2, 3, 1},
       Shape{2, 1, 5}},
      {"vector_no_zero_points",
       {6},
       {6, 4},
       DataType::UInt8,
       DataType::Int8,
       std::nullopt,
       std::nullopt},
  };
  for (size_t i = 0; i < ms.size(); ++i) {
    c.push_back({"MatMulInteger_" + ms[i].name, [m = ms[i], i] {
                   const auto seed = 700 + static_cast<unsigned>(10 * i);
                   OpTest t("MatMulInteger", 10);
                   t.input(bytes(m.ta, m.a, seed)).input(bytes(m.tb, m.b, seed + 1));
                   if (m.za || m.zb) t.input(m.za ? zero_points(m.ta, *m.za, seed + 2) : Tensor());
                   if (m.zb) t.input(zero_points(m.tb, *m.zb, seed + 3));
                   return t;
                 }});
    c.back().on_pixel = false;
  }
  // 255 * 200 * 40000 is past 2^31: the int32 sums wrap, on the GPU as on the CPU.
  c.push_back({"MatMulInteger_sums_wrap", [] {
                 const Tensor a = Tensor::from_data<uint8_t>(
                     {2, 40000}, std::vector<uint8_t>(80000, static_cast<uint8_t>(255)));
                 return OpTest("MatMulInteger", 10)
                     .input(a)
                     .input(random_int<uint8_t>({40000, 3}, 790, 200, 255));
               }});
  c.back().on_pixel = false;
}

// ConvInteger and QLinearConv over 1 to 3 spatial axes: pads, strides, dilations, groups,
// per-channel weight zero points and scales, bias, no output zero point, saturation.
struct ConvCase {
  std::string name;
  Shape x, w;
  DataType tx = DataType::UInt8, tw = DataType::UInt8;
  int64_t group = 1;
  std::vector<int64_t> pads, strides, dilations;
  bool per_channel = false;
  bool zero_points = true;
};

OpTest& conv_attrs(OpTest& t, const ConvCase& k) {
  if (k.group != 1) t.attr("group", k.group);
  if (!k.pads.empty()) t.attr("pads", k.pads);
  if (!k.strides.empty()) t.attr("strides", k.strides);
  if (!k.dilations.empty()) t.attr("dilations", k.dilations);
  return t;
}

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases = {
      {"2d_padded_uint8",
       {1, 3, 6, 6},
       {4, 3, 3, 3},
       DataType::UInt8,
       DataType::UInt8,
       1,
       {1, 1, 1, 1}},
      {"2d_group_stride_int8_per_channel",
       {2, 4, 7, 5},
       {6, 2, 3, 2},
       DataType::Int8,
       DataType::Int8,
       2,
       {0, 1, 2, 0},
       {2, 1},
       {},
       true},
      {"1d_dilated_mixed",
       {1, 2, 11},
       {3, 2, 3},
       DataType::UInt8,
       DataType::Int8,
       1,
       {2, 1},
       {},
       {2},
       true},
      {"3d_no_zero_points",
       {1, 2, 4, 3, 4},
       {2, 2, 2, 2, 3},
       DataType::Int8,
       DataType::UInt8,
       1,
       {},
       {},
       {},
       false,
       false},
  };
  return cases;
}

void add_conv_integer_cases(std::vector<OpCase>& c) {
  for (size_t i = 0; i < conv_cases().size(); ++i) {
    c.push_back({"ConvInteger_" + conv_cases()[i].name, [i] {
                   const ConvCase& k = conv_cases()[i];
                   const auto seed = 800 + static_cast<unsigned>(10 * i);
                   OpTest t("ConvInteger", 10);
                   t.input(bytes(k.tx, k.x, seed)).input(bytes(k.tw, k.w, seed + 1));
                   if (k.zero_points) {
                     t.input(zero_points(k.tx, {}, seed + 2))
                         .input(zero_points(k.tw, {k.per_channel ? k.w[0] : 1}, seed + 3));
                   }
                   return conv_attrs(t, k);
                 }});
    c.back().on_pixel = false;
  }
  for (size_t i = 0; i < conv_cases().size(); ++i) {
    for (bool bias : {false, true}) {
      c.push_back({"QLinearConv_" + conv_cases()[i].name + (bias ? "_bias" : ""), [i, bias] {
                     const ConvCase& k = conv_cases()[i];
                     const auto seed = 900 + static_cast<unsigned>(10 * i);
                     const int64_t m = k.w[0];
                     OpTest t("QLinearConv", 10);
                     t.input(bytes(k.tx, k.x, seed))
                         .input(f32({}, {0.02f}))
                         .input(k.zero_points ? zero_points(k.tx, {}, seed + 2) : Tensor())
                         .input(bytes(k.tw, k.w, seed + 1))
                         .input(random_f32({k.per_channel ? m : 1}, seed + 4, 0.002f, 0.03f))
                         .input(k.zero_points ? zero_points(k.tw, {k.per_channel ? m : 1}, seed + 3)
                                              : Tensor())
                         // Small enough that some outputs saturate.
                         .input(f32({}, {0.9f}))
                         .input(k.zero_points ? zero_points(k.tx, {}, seed + 5) : Tensor());
                     if (bias) t.input(random_int<int32_t>({m}, seed + 6, -20000, 20000));
                     return conv_attrs(t, k);
                   }});
      c.back().on_pixel = false;
    }
  }
}

REGISTER_OP_CASES(add_matmul_integer_cases);
REGISTER_OP_CASES(add_conv_integer_cases);

// A node placed on GPU-compute whose parameters the definition rejects fails the run with its
// kiln::Error, naming the node and the parameter, as on the CPU.
void expect_gpu_compute_error(const OpTest& test, const std::string& words) {
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), Backend::GpuCompute);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << "gpu-compute is not available here: " << e.what();
  }
  for (const NodePlacement& p : worker->placements()) EXPECT_EQ(p.backend, Backend::GpuCompute);
  try {
    test.run(*worker);
    ADD_FAILURE() << "no error; expected one saying " << words;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(GpuComputeIntegerProducts, ZeroPointOfTheWrongSizeIsAnError) {
  expect_gpu_compute_error(OpTest("MatMulInteger", 10)
                               .input(bytes(DataType::UInt8, {4, 3}, 1))
                               .input(bytes(DataType::UInt8, {3, 2}, 2))
                               .input(zero_points(DataType::UInt8, {3}, 3)),
                           "fits neither per-tensor nor per-row");
  expect_gpu_compute_error(OpTest("ConvInteger", 10)
                               .input(bytes(DataType::UInt8, {1, 1, 4, 4}, 1))
                               .input(bytes(DataType::UInt8, {2, 1, 2, 2}, 2))
                               .input(zero_points(DataType::UInt8, {2}, 3)),
                           "x_zero_point of shape [2] must be a single value");
}

TEST(GpuComputeIntegerProducts, QLinearConvBiasOfTheWrongSizeIsAnError) {
  expect_gpu_compute_error(OpTest("QLinearConv", 10)
                               .input(bytes(DataType::UInt8, {1, 1, 4, 4}, 1))
                               .input(f32({}, {0.1f}))
                               .input(zero_points(DataType::UInt8, {}, 2))
                               .input(bytes(DataType::UInt8, {2, 1, 2, 2}, 3))
                               .input(f32({}, {0.1f}))
                               .input(zero_points(DataType::UInt8, {}, 4))
                               .input(f32({}, {0.5f}))
                               .input(zero_points(DataType::UInt8, {}, 5))
                               .input(random_int<int32_t>({3}, 6)),
                           "B must be an int32 vector of 2 values");
}

}  // namespace
}  // namespace kiln::testing
