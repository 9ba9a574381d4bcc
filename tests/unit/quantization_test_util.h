// Tensor builders and readers shared by the quantization op tests.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing::quant {

template <class T>
inline Tensor make(const Shape& shape, std::vector<T> values) {
  return Tensor::from_data<T>(shape, values);
}
inline Tensor u8(const Shape& shape, std::vector<uint8_t> v) { return make<uint8_t>(shape, v); }
inline Tensor s8(const Shape& shape, std::vector<int8_t> v) { return make<int8_t>(shape, v); }
inline Tensor s32(const Shape& shape, std::vector<int32_t> v) { return make<int32_t>(shape, v); }
inline Tensor scalar_f32(float v) { return Tensor::scalar<float>(v); }

// The elements of an integer tensor of any width as ints.
inline std::vector<int> ints(const Tensor& t) {
  std::vector<int> out;
  switch (t.dtype()) {
    case DataType::UInt8:
      for (uint8_t v : t.to_vector<uint8_t>()) out.push_back(v);
      break;
    case DataType::Int8:
      for (int8_t v : t.to_vector<int8_t>()) out.push_back(v);
      break;
    case DataType::Int16:
      for (int16_t v : t.to_vector<int16_t>()) out.push_back(v);
      break;
    case DataType::UInt16:
      for (uint16_t v : t.to_vector<uint16_t>()) out.push_back(v);
      break;
    case DataType::Int32:
      for (int32_t v : t.to_vector<int32_t>()) out.push_back(v);
      break;
    case DataType::Int4:
      for (Int4 v : t.to_vector<Int4>()) out.push_back(static_cast<int>(v));
      break;
    case DataType::UInt4:
      for (UInt4 v : t.to_vector<UInt4>()) out.push_back(static_cast<int>(v));
      break;
    case DataType::Int2:
      for (Int2 v : t.to_vector<Int2>()) out.push_back(static_cast<int>(v));
      break;
    case DataType::UInt2:
      for (UInt2 v : t.to_vector<UInt2>()) out.push_back(static_cast<int>(v));
      break;
    default:
      ADD_FAILURE() << "not an integer tensor";
  }
  return out;
}

using Ints = std::vector<int>;
using Floats = std::vector<float>;

}  // namespace kiln::testing::quant
