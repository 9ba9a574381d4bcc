// load_tensor / save_tensor: .npy files and ONNX TensorProto files.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/npy.h"
#include "onnx/onnx.pb.h"
#include "onnx/tensor_proto.h"
#include "onnx/value_proto.h"

namespace kiln {

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

Tensor load_tensor(const std::string& path, ValueKind kind) {
  std::ifstream file(path, std::ios::binary);
  check(file.good(), path + ": cannot open the tensor file");
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (ends_with(path, ".npy")) return read_npy(bytes, path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (kind != ValueKind::Tensor) return onnx_import::value_from_proto_bytes(bytes, kind, dir, path);
  onnx::TensorProto proto;
  check(proto.ParseFromString(bytes), path + ": not a valid ONNX TensorProto file");
  return onnx_import::tensor_from_proto(proto, dir, path);
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
