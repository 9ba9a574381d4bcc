// Tensor file bytes -> what load_tensor makes of them: the first byte picks the format (.npy or
// TensorProto) and the value kind, the rest is the file.
#include <string>

#include "kiln/error.h"
#include "load_and_run.h"
#include "onnx/tensor_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kiln::onnx_import::TensorFileFormat;
  if (size == 0) return 0;
  const TensorFileFormat format = data[0] & 1 ? TensorFileFormat::Npy : TensorFileFormat::Proto;
  const kiln::ValueKind kinds[] = {kiln::ValueKind::Tensor, kiln::ValueKind::Sequence,
                                   kiln::ValueKind::Optional};
  const kiln::ValueKind kind = kinds[(data[0] >> 1) % 3];
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    (void)kiln::onnx_import::parse_tensor_file(bytes, format, kind,
                                               kiln::fuzz::no_external_data_dir(), "fuzz input");
  } catch (const kiln::Error&) {
  }
  return 0;
}
