// The cases of the GPU op harness (backend_ops_test.cpp): each a one-node model that runs on a GPU
// backend and on the CPU, whose results must agree. A file of cases for one topic registers them
// with REGISTER_OP_CASES, so topics live in their own files:
//
//   void add_lrn_cases(std::vector<OpCase>& c) { c.push_back({"LRN", [] { ... }}); }
//   REGISTER_OP_CASES(add_lrn_cases);
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace kiln::testing {

inline Tensor random_f32(const Shape& shape, unsigned seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(shape.element_count()));
  for (float& x : v) x = dist(rng);
  return Tensor::from_data<float>(shape, v);
}

template <class T>
inline Tensor random_int(const Shape& shape, unsigned seed, int lo = -50, int hi = 50) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(static_cast<size_t>(shape.element_count()));
  for (T& x : v) x = static_cast<T>(dist(rng));
  return Tensor::from_data<T>(shape, v);
}

// Few distinct values, so comparisons see ties; float32 adds a NaN and int64 values that differ
// only above 32 bits.
inline Tensor few_values(DataType dt, const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-3, 3);
  const auto n = static_cast<size_t>(shape.element_count());
  if (dt == DataType::Float32) {
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(dist(rng)) * 0.5f;
    if (n > 2) v[2] = std::nanf("");
    return Tensor::from_data<float>(shape, v);
  }
  if (dt == DataType::Int32) {
    std::vector<int32_t> v(n);
    for (int32_t& x : v) x = dist(rng);
    return Tensor::from_data<int32_t>(shape, v);
  }
  if (dt == DataType::Int64) {
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = dist(rng) + (int64_t{dist(rng) % 2} << 33);
    return Tensor::from_data<int64_t>(shape, v);
  }
  if (dt == DataType::Float16) {
    std::vector<Float16> v(n);
    for (Float16& x : v) x = Float16(static_cast<float>(dist(rng)) * 0.5f);
    if (n > 2) v[2] = Float16(std::nanf(""));
    if (n > 4) v[4] = Float16(-std::numeric_limits<float>::infinity());
    return Tensor::from_data<Float16>(shape, v);
  }
  auto ints = [&]<class T>(int scale) {
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(dist(rng) * scale);
    return Tensor::from_data<T>(shape, v);
  };
  if (dt == DataType::Int8) return ints.operator()<int8_t>(40);
  if (dt == DataType::UInt8) return ints.operator()<uint8_t>(80);  // wraps: 16..255 as well
  if (dt == DataType::Int16) return ints.operator()<int16_t>(10000);
  if (dt == DataType::UInt16) return ints.operator()<uint16_t>(20000);
  std::vector<bool> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (rng() & 1) != 0;
  return Tensor::from_data<bool>(shape, v);
}

struct OpCase {
  std::string name;
  std::function<OpTest()> make;
  double rtol = 1e-5;  // long sums (MatMul, Conv) need more: float32 summation order differs
  double atol = 1e-6;
  // Which GPU backends run the op natively (the GPU-pixel backend keeps int32, int64 and float64
  // tensors on the CPU: textures hold float32 and the dtypes exact in it).
  bool on_compute = true;
  bool on_pixel = true;
  // Float32 and float16 outputs compared bit for bit (Cast: zero signs and NaN payloads too).
  bool bit_exact = false;
};

using OpCaseAdder = void (*)(std::vector<OpCase>&);

// The adders registered so far, in registration order (within a file, the order of its
// REGISTER_OP_CASES lines; across files, unspecified: case names must be unique).
inline std::vector<OpCaseAdder>& registered_op_case_adders() {
  static std::vector<OpCaseAdder> adders;
  return adders;
}

inline bool register_op_cases(OpCaseAdder add) {
  registered_op_case_adders().push_back(add);
  return true;
}

// Registers `adder` before main runs; the harness instantiates its cases inside main.
#define REGISTER_OP_CASES(adder) \
  [[maybe_unused]] static const bool adder##_registered = ::kiln::testing::register_op_cases(adder)

}  // namespace kiln::testing
