#include "onnx/tensor_proto.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/dtype_dispatch.h"
#include "core/element_count.h"
#include "core/memory_budget.h"
#include "core/packed_bits.h"
#include "core/tensor_impl.h"
#include "onnx/onnx.pb.h"

namespace kiln::onnx_import {

namespace {

bool is_subbyte(DataType t) {
  return t == DataType::Int4 || t == DataType::UInt4 || t == DataType::Float4E2M1 ||
         t == DataType::Int2 || t == DataType::UInt2;
}

// Bytes of the file representation of `count` elements (packed for sub-byte types).
size_t file_byte_size(DataType t, size_t count) {
  return is_subbyte(t) ? packed_byte_size(t, count) : count * dtype_size(t);
}

std::string read_external_data(const onnx::TensorProto& proto, const std::string& base_dir,
                               const std::string& where) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& entry : proto.external_data()) {
    try {
      if (entry.key() == "location") location = entry.value();
      if (entry.key() == "offset") offset = std::stoll(entry.value());
      if (entry.key() == "length") length = std::stoll(entry.value());
    } catch (const std::exception&) {
      throw Error(where + ": external data entry '" + entry.key() + "' has a bad value '" +
                  entry.value() + "'");
    }
  }
  check(!location.empty(), where + ": external data without a location");
  const std::filesystem::path rel(location);
  check(rel.is_relative() && rel.lexically_normal().string().rfind("..", 0) != 0,
        where + ": external data location '" + location +
            "' must be a relative path inside the model's folder");
  const std::filesystem::path path = std::filesystem::path(base_dir) / rel;
  // Symbolic links are resolved before the check: a link inside the folder may not lead out.
  std::error_code folder_error, path_error;
  const std::filesystem::path folder = std::filesystem::weakly_canonical(base_dir, folder_error);
  const std::filesystem::path target = std::filesystem::weakly_canonical(path, path_error);
  const auto [folder_end, target_at] =
      std::mismatch(folder.begin(), folder.end(), target.begin(), target.end());
  check(!folder_error && !path_error && folder_end == folder.end() && target_at != target.end(),
        where + ": external data location '" + location +
            "' leads outside the model's folder (through a symbolic link)");
  std::ifstream file(path, std::ios::binary);
  check(file.good(), where + ": external data file '" + path.string() + "' cannot be opened");
  file.seekg(0, std::ios::end);
  const int64_t file_size = file.tellg();
  check(offset >= 0 && offset <= file_size,
        where + ": external data offset " + std::to_string(offset) + " is beyond the end of '" +
            path.string() + "' (" + std::to_string(file_size) + " bytes)");
  if (length < 0) length = file_size - offset;
  check(length <= file_size - offset, where + ": external data in '" + path.string() +
                                          "' is truncated (needs " +
                                          std::to_string(offset + length) + " bytes, file has " +
                                          std::to_string(file_size) + ")");
  std::string bytes(static_cast<size_t>(length), '\0');
  file.seekg(offset);
  file.read(bytes.data(), length);
  return bytes;
}

// Copies little-endian bytes in file layout, as many as the tensor's shape needs (the caller
// checked), into the tensor (unpacking sub-byte types).
void fill_from_bytes(Tensor& t, const std::string& bytes, const std::string& where) {
  const size_t count = static_cast<size_t>(t.element_count());
  const size_t expected = file_byte_size(t.dtype(), count);
  auto* out = static_cast<uint8_t*>(t.mutable_raw_data());
  const auto* in = reinterpret_cast<const uint8_t*>(bytes.data());
  if (is_subbyte(t.dtype())) {
    unpack_subbyte(t.dtype(), in, count, out);
  } else if (t.dtype() == DataType::Bool) {
    for (size_t i = 0; i < count; ++i) out[i] = in[i] != 0;
  } else if (expected) {
    std::memcpy(out, in, expected);
  }
}

template <class Field>
void check_count(const Field& field, size_t count, size_t per_element, const std::string& where) {
  check(static_cast<size_t>(field.size()) == count * per_element,
        where + ": tensor holds " + std::to_string(field.size()) + " values, its shape needs " +
            std::to_string(count * per_element));
}

void fill_from_typed_fields(Tensor& t, const onnx::TensorProto& p, const std::string& where) {
  const size_t n = static_cast<size_t>(t.element_count());
  void* out = t.mutable_raw_data();
  switch (t.dtype()) {
    case DataType::Float32:
      check_count(p.float_data(), n, 1, where);
      std::copy(p.float_data().begin(), p.float_data().end(), static_cast<float*>(out));
      return;
    case DataType::Complex64:
      check_count(p.float_data(), n, 2, where);
      std::copy(p.float_data().begin(), p.float_data().end(), static_cast<float*>(out));
      return;
    case DataType::Float64:
      check_count(p.double_data(), n, 1, where);
      std::copy(p.double_data().begin(), p.double_data().end(), static_cast<double*>(out));
      return;
    case DataType::Complex128:
      check_count(p.double_data(), n, 2, where);
      std::copy(p.double_data().begin(), p.double_data().end(), static_cast<double*>(out));
      return;
    case DataType::Int64:
      check_count(p.int64_data(), n, 1, where);
      std::copy(p.int64_data().begin(), p.int64_data().end(), static_cast<int64_t*>(out));
      return;
    case DataType::UInt32:
    case DataType::UInt64:
      check_count(p.uint64_data(), n, 1, where);
      visit_dtype(t.dtype(), [&]<class T>() {
        if constexpr (std::is_integral_v<T>) {
          std::copy(p.uint64_data().begin(), p.uint64_data().end(), static_cast<T*>(out));
        }
      });
      return;
    case DataType::String: {
      check_count(p.string_data(), n, 1, where);
      auto* s = static_cast<std::string*>(out);
      for (size_t i = 0; i < n; ++i) s[i] = p.string_data(static_cast<int>(i));
      return;
    }
    default:
      break;
  }
  if (is_subbyte(t.dtype())) {
    // int32_data holds the packed bytes, one byte per entry.
    const size_t packed = packed_byte_size(t.dtype(), n);
    check_count(p.int32_data(), packed, 1, where);
    std::string bytes(packed, '\0');
    for (size_t i = 0; i < packed; ++i)
      bytes[i] = static_cast<char>(p.int32_data(static_cast<int>(i)));
    fill_from_bytes(t, bytes, where);
    return;
  }
  // The remaining types keep one element (or its bit pattern) per int32_data entry.
  check_count(p.int32_data(), n, 1, where);
  visit_dtype(t.dtype(), [&]<class T>() {
    T* o = static_cast<T*>(out);
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = p.int32_data(static_cast<int>(i));
      if constexpr (std::is_same_v<T, bool>) {
        o[i] = v != 0;
      } else if constexpr (std::is_integral_v<T>) {
        o[i] = static_cast<T>(v);
      } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        o[i] = T::from_bits(static_cast<uint16_t>(v));
      } else if constexpr (is_small_float_v<T>) {
        o[i] = T::from_bits(static_cast<uint8_t>(v));
      } else {
        throw Error(where + ": element type " + std::string(dtype_name(t.dtype())) +
                    " cannot be stored in int32_data");
      }
    }
  });
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir,
                         const std::string& where) {
  check(is_valid_dtype(p.data_type()) && p.data_type() != 0,
        where + ": unknown tensor element type " + std::to_string(p.data_type()));
  const auto dtype = static_cast<DataType>(p.data_type());
  Shape shape;
  for (int64_t d : p.dims()) {
    check(d >= 0, where + ": negative dimension " + std::to_string(d));
    shape.push_back(d);
  }
  // Guard the product against overflow; the memory budget limits what is allocated.
  const std::optional<int64_t> elements = element_count_within(shape, kMaxTensorElements);
  check(elements.has_value(), where + ": tensor shape " + shape.to_string() + " is too large");
  const int64_t count = *elements;
  // The data must be there before the tensor is allocated: a file of a few bytes may declare
  // any shape.
  std::string external;
  const std::string* bytes = nullptr;
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    external = read_external_data(p, base_dir, where);
    bytes = &external;
  } else if (p.has_raw_data()) {
    check(dtype != DataType::String, where + ": string tensors cannot use raw_data");
    bytes = &p.raw_data();
  }
  if (bytes) {
    const size_t expected = file_byte_size(dtype, static_cast<size_t>(count));
    check(bytes->size() == expected,
          where + ": tensor data holds " + std::to_string(bytes->size()) + " bytes, shape " +
              shape.to_string() + " of " + std::string(dtype_name(dtype)) + " needs " +
              std::to_string(expected));
  } else {
    // Each element takes at least one entry of the typed fields (the sub-byte types one packed
    // byte per entry); fill_from_typed_fields checks the exact count of the field that holds
    // them.
    const int64_t entries = int64_t{p.float_data_size()} + p.int32_data_size() +
                            p.string_data_size() + p.int64_data_size() + p.double_data_size() +
                            p.uint64_data_size();
    const auto needed = static_cast<int64_t>(
        is_subbyte(dtype) ? packed_byte_size(dtype, static_cast<size_t>(count)) : count);
    check(entries >= needed, where + ": tensor holds " + std::to_string(entries) +
                                 " values, its shape " + shape.to_string() + " needs " +
                                 std::to_string(needed));
  }
  MemoryScope scope(MemoryScope::budget(), AllocationSite::named(where));
  Tensor t = Tensor::zeros(dtype, shape);
  if (bytes) {
    fill_from_bytes(t, *bytes, where);
  } else {
    fill_from_typed_fields(t, p, where);
  }
  return t;
}

void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto& p) {
  p.Clear();
  p.set_name(name);
  p.set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) p.add_dims(d);
  const size_t n = static_cast<size_t>(t.element_count());
  if (t.dtype() == DataType::String) {
    const auto* s = t.data<std::string>();
    for (size_t i = 0; i < n; ++i) p.add_string_data(s[i]);
    return;
  }
  const auto* in = static_cast<const uint8_t*>(t.raw_data());
  std::string bytes(file_byte_size(t.dtype(), n), '\0');
  if (is_subbyte(t.dtype())) {
    pack_subbyte(t.dtype(), in, n, reinterpret_cast<uint8_t*>(bytes.data()));
  } else if (!bytes.empty()) {
    std::memcpy(bytes.data(), in, bytes.size());
  }
  p.set_raw_data(std::move(bytes));
}

}  // namespace kiln::onnx_import
