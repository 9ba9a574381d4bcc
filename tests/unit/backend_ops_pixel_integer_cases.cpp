#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "backend_op_cases.h"

namespace kiln::testing {
namespace {

// Integer arithmetic, the bit ops, BitShift, BitCast and inference Dropout as GPU-pixel draws
// (integer_arithmetic.h, bit_cast.cpp): operands at the ends of each dtype's range, where the
// 64-bit words carry, borrow and wrap, compared bit for bit with the CPU on both GPU backends.

// A tensor of `dt` holding `values` (each cut to the dtype's width, two's complement).
Tensor ints(DataType dt, const Shape& shape, const std::vector<int64_t>& values) {
  Tensor t = Tensor::zeros(dt, shape);
  auto* bytes = static_cast<uint8_t*>(t.mutable_raw_data());
  const size_t size = dtype_size(dt);
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.element_count()); ++i)
    std::memcpy(bytes + i * size, &values[i], size);  // little-endian: the low bytes
  return t;
}

// Values drawn from the extremes of `dt` and the 32-bit word boundaries; never zero when
// `nonzero` (divisors: the CPU kernel rejects a zero).
Tensor extremes(DataType dt, const Shape& shape, unsigned seed, bool nonzero) {
  std::vector<int64_t> pool;
  if (dt == DataType::Int64) {
    pool = {0,
            1,
            -1,
            7,
            -7,
            0xffffffffLL,
            0x100000000LL,
            -0x100000000LL,
            0x7fffffffLL,
            -0x80000000LL,
            (int64_t{3} << 40) + 12345,
            -(int64_t{5} << 35) - 1,
            std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max()};
  } else if (dt == DataType::UInt32) {
    pool = {0,        1, 2, 7, 0x7fffffffLL, 0x80000000LL, 0x80000001LL, 0xfffffffeLL, 0xffffffffLL,
            123456789};
  } else {
    pool = {0, 1, -1, 7, -7, 0x7fffffff, -0x80000000LL, 0x7ffffffe, -0x7fffffff, 65536, -65537};
  }
  std::mt19937 rng(seed);
  std::vector<int64_t> v(static_cast<size_t>(shape.element_count()));
  for (int64_t& x : v) {
    do {
      x = pool[rng() % pool.size()];
    } while (nonzero && x == 0);
  }
  return ints(dt, shape, v);
}

void add_wide_integer_cases(std::vector<OpCase>& c) {
  for (DataType dt : {DataType::Int32, DataType::UInt32, DataType::Int64}) {
    const std::string type(dtype_name(dt));
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Mod", "FMod", "Max", "Min", "BitwiseAnd",
                           "BitwiseOr", "BitwiseXor"}) {
      c.push_back(
          {"PixelInt_" + std::string(op) + "_" + type + "_extremes", [op, dt] {
             const std::string name = op;
             const bool divides = name == "Div" || name == "Mod" || name == "FMod";
             OpTest t(name == "FMod" ? "Mod" : name, 18);
             t.input(extremes(dt, {4, 1, 6}, 901, false)).input(extremes(dt, {5, 1}, 902, divides));
             if (name == "FMod") t.attr("fmod", int64_t{1});
             return t;
           }});
    }
    c.push_back({"PixelInt_BitwiseNot_" + type + "_extremes", [dt] {
                   return OpTest("BitwiseNot", 18).input(extremes(dt, {3, 5}, 903, false));
                 }});
    // Max and Min of three inputs: a chain of draws through a temporary.
    for (const char* op : {"Max", "Min"}) {
      c.push_back({"PixelInt_" + std::string(op) + "_" + type + "_three_inputs", [op, dt] {
                     return OpTest(op)
                         .input(extremes(dt, {2, 1, 3}, 904, false))
                         .input(extremes(dt, {4, 1}, 905, false))
                         .input(extremes(dt, {3}, 906, false));
                   }});
      c.back().on_compute = false;  // GPU-compute chains float32 only
    }
    // An empty output draws nothing.
    c.push_back({"PixelInt_Add_" + type + "_empty", [dt] {
                   return OpTest("Add")
                       .input(extremes(dt, {0, 3}, 907, false))
                       .input(extremes(dt, {1, 3}, 908, false));
                 }});
  }
  // Small dtypes through three inputs too (their partial results in float textures).
  c.push_back({"PixelInt_Min_int8_three_inputs", [] {
                 return OpTest("Min")
                     .input(ints(DataType::Int8, {2, 3}, {-128, 127, -1, 0, 5, -6}))
                     .input(ints(DataType::Int8, {3}, {-127, 126, 3}))
                     .input(ints(DataType::Int8, {2, 1}, {-2, 100}));
               }});
  c.back().on_compute = false;
}

// Pow to exponents whose high word is set (64 squarings), negative exponents of every base the
// CPU turns into an exact integer (1, -1, 0's infinity), and exponents at int32's ends.
void add_pow_cases(std::vector<OpCase>& c) {
  c.push_back({"PixelInt_Pow_int64_wide_exponents", [] {
                 const std::vector<int64_t> bases = {0,  1, -1,    2,
                                                     -3, 3, 12345, -(int64_t{1} << 33)};
                 const std::vector<int64_t> exponents = {0,
                                                         1,
                                                         63,
                                                         64,
                                                         (int64_t{1} << 33) + 1,
                                                         int64_t{1} << 40,
                                                         -1,
                                                         -2,
                                                         -(int64_t{1} << 40) - 1,
                                                         std::numeric_limits<int64_t>::min()};
                 return OpTest("Pow", 15)
                     .input(ints(DataType::Int64, {8, 1}, bases))
                     .input(ints(DataType::Int64, {1, 10}, exponents));
               }});
  c.push_back({"PixelInt_Pow_int32_wide_exponents", [] {
                 const std::vector<int64_t> bases = {0, 1, -1, 2, -3, 46341, -7};
                 const std::vector<int64_t> exponents = {0,  2,  31,         32,
                                                         -1, -2, 0x7fffffff, -0x80000000LL};
                 return OpTest("Pow", 15)
                     .input(ints(DataType::Int32, {7, 1}, bases))
                     .input(ints(DataType::Int32, {1, 8}, exponents));
               }});
  // float32 bases to int64 powers up to 2^24 (exact as floats): the sign of a negative base's
  // odd powers, overflow to infinity, underflow to zero.
  c.push_back({"PixelInt_Pow_float32_int64_large_exponents", [] {
                 return OpTest("Pow", 15)
                     .input(Tensor::from_data<float>(
                         {6, 1}, {-1.0f, -2.0f, -0.5f, 1.0f, 0.0f, -1.0000001f}))
                     .input(ints(DataType::Int64, {1, 7},
                                 {16777215, -16777215, 16777216, 127, -127, 129, -150}));
               }});
  // -0 to odd powers keeps its sign (-0, -inf), as C's pow (GPU-compute's Pow gives +inf).
  c.push_back({"PixelInt_Pow_float32_int32_negative_zero_base", [] {
                 return OpTest("Pow", 15)
                     .input(Tensor::from_data<float>({2, 1}, {-0.0f, 0.0f}))
                     .input(ints(DataType::Int32, {1, 6}, {3, -3, 2, -2, 16777215, -1}));
               }});
  c.back().on_compute = false;
  c.push_back({"PixelInt_Pow_uint32_wraps", [] {
                 return OpTest("Pow", 15)
                     .input(ints(DataType::UInt32, {4, 1}, {0xffffffffLL, 3, 65536, 0x80000000LL}))
                     .input(ints(DataType::UInt32, {1, 4}, {0, 2, 33, 0xffffffffLL}));
               }});
  c.push_back({"PixelInt_Pow_int16_negative", [] {
                 return OpTest("Pow", 15)
                     .input(ints(DataType::Int16, {4, 1}, {0, 1, -1, 181}))
                     .input(ints(DataType::Int16, {1, 4}, {-1, -32768, 2, 3}));
               }});
}

// BitShift by the width and past it (shifts GLSL leaves undefined give 0, as on the CPU).
void add_shift_cases(std::vector<OpCase>& c) {
  for (const char* direction : {"LEFT", "RIGHT"}) {
    c.push_back({"PixelInt_BitShift_" + std::string(direction) + "_uint32_widths", [direction] {
                   return OpTest("BitShift", 11)
                       .input(ints(DataType::UInt32, {3, 1}, {0xffffffffLL, 0x80000001LL, 1}))
                       .input(ints(DataType::UInt32, {1, 6}, {0, 1, 31, 32, 33, 0xffffffffLL}))
                       .attr("direction", direction);
                 }});
    c.push_back({"PixelInt_BitShift_" + std::string(direction) + "_uint8_widths", [direction] {
                   return OpTest("BitShift", 11)
                       .input(ints(DataType::UInt8, {2, 1}, {0xff, 0x81}))
                       .input(ints(DataType::UInt8, {1, 5}, {1, 7, 8, 9, 255}))
                       .attr("direction", direction);
                 }});
  }
}

// BitCast among float32, int32 and uint32 (zero signs, infinities, subnormals, NaN payloads),
// and among the 8- and 16-bit integers and bool.
void add_bit_cast_cases(std::vector<OpCase>& c) {
  const std::vector<int64_t> float_bits = {0x00000000, 0x80000000LL, 0x3f800000, 0xbf800000LL,
                                           0x7f800000, 0xff800000LL, 0x00000001, 0x807fffffLL,
                                           0x7fc00000, 0x7f7fffff,   0x4b800001, 0x12345678};
  const std::vector<std::pair<DataType, DataType>> wide = {{DataType::Float32, DataType::UInt32},
                                                           {DataType::UInt32, DataType::Float32},
                                                           {DataType::Int32, DataType::Float32},
                                                           {DataType::UInt32, DataType::Int32},
                                                           {DataType::Int32, DataType::UInt32}};
  for (const auto& [from, to] : wide) {
    c.push_back(
        {"PixelInt_BitCast_" + std::string(dtype_name(from)) + "_to_" + std::string(dtype_name(to)),
         [from = from, to = to, float_bits] {
           Tensor x = ints(DataType::UInt32, {3, 4}, float_bits);
           Tensor typed = Tensor::zeros(from, {3, 4});
           std::memcpy(typed.mutable_raw_data(), x.raw_data(), x.byte_size());
           return OpTest("BitCast", 26).input(typed).attr("to", static_cast<int64_t>(to));
         }});
  }
  const std::vector<std::pair<DataType, DataType>> narrow = {
      {DataType::UInt8, DataType::Int8},   {DataType::Int8, DataType::Bool},
      {DataType::Bool, DataType::Int8},    {DataType::Int16, DataType::UInt16},
      {DataType::UInt16, DataType::Int16}, {DataType::Int32, DataType::Int32}};
  for (const auto& [from, to] : narrow) {
    c.push_back({"PixelInt_BitCast_" + std::string(dtype_name(from)) + "_to_" +
                     std::string(dtype_name(to)) + "_ends",
                 [from = from, to = to] {
                   std::vector<int64_t> v = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff};
                   if (from == DataType::Bool) v = {0, 1, 1, 0, 1, 0, 0, 1};
                   return OpTest("BitCast", 26)
                       .input(ints(from, {2, 4}, v))
                       .attr("to", static_cast<int64_t>(to));
                 }});
    c.back().on_compute = to != DataType::Bool;  // GPU-compute has no bool BitCast
  }
}

// Dropout at inference with its mask: a constant false training_mode, or none.
void add_dropout_cases(std::vector<OpCase>& c) {
  c.push_back({"PixelInt_Dropout_training_false_mask", [] {
                 return OpTest("Dropout", 13)
                     .input(random_f32({2, 5}, 909))
                     .input(Tensor::scalar<float>(0.5f))
                     .input(Tensor::scalar<bool>(false))
                     .constant_input(1)
                     .constant_input(2)
                     .outputs(2);
               }});
  // training_mode as a graph input, false for this run: read on the host per run.
  c.push_back({"PixelInt_Dropout_training_input_false", [] {
                 return OpTest("Dropout", 13)
                     .input(random_f32({3, 4}, 913))
                     .input(Tensor::scalar<float>(0.3f))
                     .input(Tensor::scalar<bool>(false))
                     .outputs(2);
               }});
  c.back().on_compute = false;  // GPU-compute takes constant training_mode only
  c.push_back({"PixelInt_Dropout_int64_mask", [] {
                 return OpTest("Dropout", 13)
                     .input(extremes(DataType::Int64, {3, 3}, 910, false))
                     .outputs(2);
               }});
}

// Pad whose constant value is a graph input rather than a constant (GPU-pixel reads it on the
// host): a float32 value, and an int64 one beyond float32's 2^24.
void add_pad_value_input_cases(std::vector<OpCase>& c) {
  c.push_back({"PixelInt_Pad_float32_value_input", [] {
                 return OpTest("Pad", 18)
                     .input(random_f32({2, 3}, 911))
                     .input(ints(DataType::Int64, {4}, {1, 0, 0, 2}))
                     .input(Tensor::scalar<float>(-7.25f))
                     .constant_input(1);
               }});
  c.push_back({"PixelInt_Pad_int64_value_input", [] {
                 return OpTest("Pad", 18)
                     .input(extremes(DataType::Int64, {3, 2}, 912, false))
                     .input(ints(DataType::Int64, {4}, {0, 1, 2, 0}))
                     .input(ints(DataType::Int64, {}, {(int64_t{5} << 40) - 3}))
                     .constant_input(1);
               }});
}

REGISTER_OP_CASES(add_wide_integer_cases);
REGISTER_OP_CASES(add_pad_value_input_cases);
REGISTER_OP_CASES(add_pow_cases);
REGISTER_OP_CASES(add_shift_cases);
REGISTER_OP_CASES(add_bit_cast_cases);
REGISTER_OP_CASES(add_dropout_cases);

// An integer divisor of zero is the node's error on GPU-pixel as on the CPU: the draw reads the
// divisor on the host and the CPU kernel reports it.
void expect_zero_divisor_error(const char* op, DataType dt) {
  OpTest test(op);
  test.input(ints(dt, {4}, {5, -6, 7, 8})).input(ints(dt, {4}, {1, 2, 0, 3}));
  std::optional<Worker> worker;
  try {
    worker.emplace(test.model(), Backend::GpuPixel);
  } catch (const Error& e) {
    if (!is_no_device_error(e)) throw;
    GTEST_SKIP() << "gpu-pixel is not available here: " << e.what();
  }
  for (const NodePlacement& p : worker->placements())
    EXPECT_EQ(p.backend, Backend::GpuPixel) << p.op_type << " fell back: " << p.fallback_reason;
  try {
    test.run(*worker);
    ADD_FAILURE() << op << " by zero ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
  }
}

TEST(GpuPixelIntegerArithmetic, DivisionOfInt64ByZeroIsAnError) {
  expect_zero_divisor_error("Div", DataType::Int64);
}

TEST(GpuPixelIntegerArithmetic, ModOfInt8ByZeroIsAnError) {
  expect_zero_divisor_error("Mod", DataType::Int8);
}

TEST(GpuPixelIntegerArithmetic, DivisionOfUInt32ByZeroIsAnError) {
  expect_zero_divisor_error("Div", DataType::UInt32);
}

}  // namespace
}  // namespace kiln::testing
