// SequenceProto and OptionalProto (onnx-data.proto), which the ONNX test folders use for
// sequence and optional values. kiln compiles only onnx.proto, so these two small messages are
// read straight from the protobuf wire format.
#include "onnx/value_proto.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "core/tensor_impl.h"
#include "onnx/onnx.pb.h"
#include "onnx/tensor_proto.h"

namespace kiln::onnx_import {

namespace {

using google::protobuf::io::CodedInputStream;

// Field numbers, shared by SequenceProto (repeated) and OptionalProto (singular).
constexpr uint32_t kElemType = 2, kTensor = 3, kSparseTensor = 4, kSequence = 5, kMap = 6,
                   kOptional = 7;
constexpr uint32_t kVarint = 0, kLengthDelimited = 2;

struct Reader {
  const std::string& where;
  const std::string& base_dir;

  [[noreturn]] void fail(const std::string& what) const { throw Error(where + ": " + what); }

  Tensor read(std::string_view bytes, ValueKind kind) const {
    const bool sequence = kind == ValueKind::Sequence;
    CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                        static_cast<int>(bytes.size()));
    std::vector<Tensor> elements;
    ValueKind element_kind = ValueKind::Tensor;
    while (uint32_t tag = in.ReadTag()) {
      const uint32_t field = tag >> 3, wire = tag & 7;
      if (field == kElemType && wire == kVarint) {
        uint32_t type = 0;
        if (!in.ReadVarint32(&type)) fail("truncated elem_type");
        if (type == 3) element_kind = ValueKind::Sequence;
        continue;
      }
      if (wire != kLengthDelimited) {
        if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) fail("malformed");
        continue;
      }
      std::string payload;
      uint32_t size = 0;
      if (!in.ReadVarint32(&size) || !in.ReadString(&payload, static_cast<int>(size)))
        fail("truncated field " + std::to_string(field));
      switch (field) {
        case kTensor: {
          onnx::TensorProto proto;
          if (!proto.ParseFromString(payload)) fail("invalid TensorProto inside");
          elements.push_back(tensor_from_proto(proto, base_dir, where));
          break;
        }
        case kSequence:
          elements.push_back(read(payload, ValueKind::Sequence));
          break;
        case kSparseTensor:
        case kMap:
        case kOptional:
          fail(field == kSparseTensor ? "sparse tensors are not supported"
               : field == kMap        ? "maps are not supported"
                               : "optionals inside sequences or optionals are not supported");
        default:
          break;  // name and unknown fields
      }
    }
    if (sequence) {
      for (const Tensor& e : elements) {
        if (e.kind() != ValueKind::Tensor) fail("sequences of sequences are not supported");
      }
      const DataType dtype = elements.empty() ? DataType::Undefined : elements.front().dtype();
      return sequence_of(std::move(elements), dtype);
    }
    if (elements.size() > 1) fail("an optional holds more than one value");
    if (elements.empty()) return Tensor::empty_optional(DataType::Undefined, element_kind);
    return Tensor::optional(elements.front());
  }
};

}  // namespace

Tensor value_from_proto_bytes(std::string_view bytes, ValueKind kind, const std::string& base_dir,
                              const std::string& where) {
  return Reader{where, base_dir}.read(bytes, kind);
}

}  // namespace kiln::onnx_import
