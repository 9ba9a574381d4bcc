// load_tensor / save_tensor: .npy files and ONNX TensorProto files.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/npy.h"
#include "onnx/onnx.pb.h"
#include "onnx/tensor_file.h"
#include "onnx/tensor_proto.h"
#include "onnx/value_proto.h"

namespace kiln {

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

namespace onnx_import {

Tensor parse_tensor_file(const std::string& bytes, TensorFileFormat format, ValueKind kind,
                         const std::string& base_dir, const std::string& where) {
  if (format == TensorFileFormat::Npy) return read_npy(bytes, where);
  if (kind != ValueKind::Tensor) return value_from_proto_bytes(bytes, kind, base_dir, where);
  onnx::TensorProto proto;
  check(proto.ParseFromString(bytes), where + ": not a valid ONNX TensorProto file");
  return tensor_from_proto(proto, base_dir, where);
}

}  // namespace onnx_import

Tensor load_tensor(const std::string& path, ValueKind kind) {
  std::ifstream file(path, std::ios::binary);
  check(file.good(), path + ": cannot open the tensor file");
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const auto format = ends_with(path, ".npy") ? onnx_import::TensorFileFormat::Npy
                                              : onnx_import::TensorFileFormat::Proto;
  return onnx_import::parse_tensor_file(bytes, format, kind, dir, path);
}

void save_tensor(const Tensor& tensor, const std::string& path, const std::string& name) {
  Tensor host = tensor.readback_and_clone();
  std::string bytes;
  if (ends_with(path, ".npy")) {
    bytes = write_npy(host);
  } else {
    onnx::TensorProto proto;
    onnx_import::tensor_to_proto(host, name, proto);
    bytes = proto.SerializeAsString();
  }
  std::ofstream file(path, std::ios::binary);
  check(file.good(), path + ": cannot create the file");
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  check(file.good(), path + ": write failed");
}

}  // namespace kiln
