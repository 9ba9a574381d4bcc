#include "core/npy.h"
#include "core/element_count.h"

#include <cstring>
#include <map>

namespace kiln {

namespace {

const std::map<std::string, DataType>& descr_types() {
  static const std::map<std::string, DataType> types = {
      {"<f4", DataType::Float32},   {"<f8", DataType::Float64},    {"<f2", DataType::Float16},
      {"|i1", DataType::Int8},      {"|u1", DataType::UInt8},      {"<i2", DataType::Int16},
      {"<u2", DataType::UInt16},    {"<i4", DataType::Int32},      {"<u4", DataType::UInt32},
      {"<i8", DataType::Int64},     {"<u8", DataType::UInt64},     {"|b1", DataType::Bool},
      {"<c8", DataType::Complex64}, {"<c16", DataType::Complex128}};
  return types;
}

// The value of `key` in the header's Python dict literal, as raw text.
std::string header_field(const std::string& header, const std::string& key,
                         const std::string& where) {
  const size_t k = header.find("'" + key + "'");
  check(k != std::string::npos, where + ": .npy header has no '" + key + "'");
  size_t start = header.find(':', k);
  check(start != std::string::npos, where + ": malformed .npy header");
  ++start;
  while (start < header.size() && header[start] == ' ') ++start;
  size_t end = start;
  if (header[start] == '(') {
    end = header.find(')', start);
    check(end != std::string::npos, where + ": malformed .npy shape");
    return header.substr(start + 1, end - start - 1);
  }
  if (header[start] == '\'') {
    end = header.find('\'', start + 1);
    check(end != std::string::npos, where + ": malformed .npy header");
    return header.substr(start + 1, end - start - 1);
  }
  end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

}  // namespace

Tensor read_npy(const std::string& bytes, const std::string& where) {
  check(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0, where + ": not a .npy file");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    header_start = 10;
  } else {
    check(bytes.size() >= 12, where + ": truncated .npy header");
    uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    header_start = 12;
  }
  check(header_start + header_len <= bytes.size(), where + ": truncated .npy header");
  const std::string header = bytes.substr(header_start, header_len);
  const std::string descr = header_field(header, "descr", where);
  check(header_field(header, "fortran_order", where) == "False",
        where + ": Fortran-ordered .npy arrays are not supported; save with C order");
  auto it = descr_types().find(descr);
  check(it != descr_types().end(), where + ": unsupported .npy element type '" + descr + "'");
  Shape shape;
  const std::string dims = header_field(header, "shape", where);
  size_t pos = 0;
  while (pos < dims.size()) {
    while (pos < dims.size() && (dims[pos] == ' ' || dims[pos] == ',')) ++pos;
    if (pos >= dims.size()) break;
    size_t used = 0;
    try {
      shape.push_back(std::stoll(dims.substr(pos), &used));
    } catch (const std::exception&) {
      throw Error(where + ": malformed .npy shape '" + dims + "'");
    }
    pos += used;
  }
  // The data must be there before the tensor is allocated: the header may declare any shape.
  const size_t data_start = header_start + header_len;
  const size_t data_bytes = bytes.size() - data_start;
  for (int64_t d : shape)
    check(d >= 0, where + ": negative dimension in .npy shape '" + dims + "'");
  const size_t item_size = dtype_size(it->second);
  const std::optional<int64_t> elements =
      element_count_within(shape, static_cast<int64_t>(data_bytes / item_size));
  const size_t needed = elements ? static_cast<size_t>(*elements) * item_size : 0;
  check(elements && needed == data_bytes,
        where + ": .npy data holds " + std::to_string(data_bytes) + " bytes, shape " +
            shape.to_string() + " needs " + (elements ? std::to_string(needed) : "more"));
  Tensor t = Tensor::zeros(it->second, shape);
  if (t.byte_size()) std::memcpy(t.mutable_raw_data(), bytes.data() + data_start, t.byte_size());
  return t;
}

std::string write_npy(const Tensor& tensor) {
  std::string descr;
  for (const auto& [d, t] : descr_types()) {
    if (t == tensor.dtype()) descr = d;
  }
  check(!descr.empty(),
        "cannot write " + std::string(dtype_name(tensor.dtype())) + " tensors as .npy");
  std::string shape = "(";
  for (int64_t d : tensor.shape()) shape += std::to_string(d) + ", ";
  if (tensor.rank() > 1) shape.resize(shape.size() - 2);
  if (tensor.rank() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary, ending the header with a newline.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.byte_size());
  return out;
}

}  // namespace kiln
