// ir::Model -> .kiln bytes.
#include <cstring>
#include <fstream>

#include "core/tensor_impl.h"
#include "format/header.h"
#include "format/kiln_file.h"
#include "format/kiln_model_generated.h"

namespace kiln::format {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

class Writer {
 public:
  // Tensor bytes go to `weights_`, each at a 64-byte-aligned offset.
  Offset<fb::TensorData> tensor(const Tensor& t) {
    check(t.kind() == ValueKind::Tensor, "a .kiln file stores tensors, not sequences or optionals");
    const Tensor host = t.is_pending() || t.impl()->device ? t.readback_and_clone() : t;
    auto shape = b_.CreateVector(std::vector<int64_t>(host.shape().begin(), host.shape().end()));
    if (host.dtype() == DataType::String) {
      std::vector<Offset<flatbuffers::String>> strings;
      const std::string* p = host.data<std::string>();
      for (int64_t i = 0; i < host.element_count(); ++i) strings.push_back(b_.CreateString(p[i]));
      auto v = b_.CreateVector(strings);
      return fb::CreateTensorData(b_, static_cast<int32_t>(host.dtype()), shape, 0, 0, v);
    }
    const uint64_t offset = align_up(weights_.size());
    weights_.resize(offset, '\0');
    weights_.append(static_cast<const char*>(host.raw_data()), host.byte_size());
    return fb::CreateTensorData(b_, static_cast<int32_t>(host.dtype()), shape, offset,
                                host.byte_size());
  }

  Offset<fb::ValueInfo> value_info(const ValueInfo& v) {
    std::vector<Offset<fb::Dim>> dims;
    for (const Dim& d : v.shape) dims.push_back(fb::CreateDim(b_, d.value, str(d.symbol)));
    auto shape = b_.CreateVector(dims);
    return fb::CreateValueInfo(b_, str(v.name), static_cast<int8_t>(v.kind),
                               static_cast<int8_t>(v.element_kind), static_cast<int32_t>(v.dtype),
                               v.has_shape, shape);
  }

  Offset<fb::Attribute> attribute(const ir::Attribute& a) {
    auto name = str(a.name);
    auto s = b_.CreateVector(reinterpret_cast<const uint8_t*>(a.s.data()), a.s.size());
    Offset<fb::TensorData> t;
    if (a.t.defined()) t = tensor(a.t);
    Offset<fb::Graph> g;
    if (a.g) g = graph(*a.g);
    auto floats = b_.CreateVector(a.floats);
    auto ints = b_.CreateVector(a.ints);
    auto strings = string_list(a.strings);
    std::vector<Offset<fb::TensorData>> ts;
    for (const Tensor& x : a.tensors) ts.push_back(tensor(x));
    auto tensors = b_.CreateVector(ts);
    std::vector<Offset<fb::Graph>> gs;
    for (const auto& x : a.graphs) gs.push_back(graph(*x));
    auto graphs = b_.CreateVector(gs);
    auto type_proto = value_info(a.type_proto);
    auto ref = str(a.ref_attr_name);
    return fb::CreateAttribute(b_, name, static_cast<int8_t>(a.type), a.f, a.i, s, t, g, floats,
                               ints, strings, tensors, graphs, type_proto, ref);
  }

  Offset<fb::Graph> graph(const ir::Graph& graph) {
    std::vector<Offset<fb::Node>> nodes;
    for (const ir::Node& n : graph.nodes) {
      std::vector<Offset<fb::Attribute>> attrs;
      for (const ir::Attribute& a : n.attributes) attrs.push_back(attribute(a));
      auto name = str(n.name), op = str(n.op_type), domain = str(n.domain);
      auto inputs = string_list(n.inputs), outputs = string_list(n.outputs);
      auto attributes = b_.CreateVector(attrs);
      nodes.push_back(fb::CreateNode(b_, name, op, domain, inputs, outputs, attributes));
    }
    std::vector<Offset<fb::Initializer>> inits;
    for (const auto& [name, t] : graph.initializers) {
      auto n = str(name);
      auto data = tensor(t);
      inits.push_back(fb::CreateInitializer(b_, n, data));
    }
    auto name = str(graph.name);
    auto node_vec = b_.CreateVector(nodes);
    auto inputs = value_infos(graph.inputs), outputs = value_infos(graph.outputs);
    auto infos = value_infos(graph.value_infos);
    auto init_vec = b_.CreateVector(inits);
    return fb::CreateGraph(b_, name, node_vec, inputs, outputs, infos, init_vec);
  }

  std::string file(const ir::Model& model) {
    auto g = graph(model.graph);
    std::vector<Offset<fb::Opset>> opsets;
    for (const auto& [domain, version] : model.opsets)
      opsets.push_back(fb::CreateOpset(b_, str(domain), version));
    auto opset_vec = b_.CreateVector(opsets);
    auto producer = str(model.producer);
    auto inputs = value_infos(model.inputs), outputs = value_infos(model.outputs);
    b_.Finish(fb::CreateModel(b_, g, opset_vec, model.ir_version, producer, inputs, outputs));

    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kFormatVersion;
    h.header_size = sizeof(Header);
    h.model_offset = align_up(sizeof(Header));
    h.model_size = b_.GetSize();
    h.weights_offset = align_up(h.model_offset + h.model_size);
    h.weights_size = weights_.size();
    h.file_size = h.weights_offset + h.weights_size;
    std::string out(h.file_size, '\0');
    std::memcpy(out.data() + h.model_offset, b_.GetBufferPointer(), h.model_size);
    if (!weights_.empty()) std::memcpy(out.data() + h.weights_offset, weights_.data(), weights_.size());
    h.checksum = file_checksum(h, out.data());
    std::memcpy(out.data(), &h, sizeof h);
    return out;
  }

 private:
  Offset<flatbuffers::String> str(const std::string& s) { return b_.CreateString(s); }
  Offset<flatbuffers::Vector<Offset<flatbuffers::String>>> string_list(
      const std::vector<std::string>& list) {
    std::vector<Offset<flatbuffers::String>> v;
    for (const auto& s : list) v.push_back(str(s));
    return b_.CreateVector(v);
  }
  Offset<flatbuffers::Vector<Offset<fb::ValueInfo>>> value_infos(const std::vector<ValueInfo>& list) {
    std::vector<Offset<fb::ValueInfo>> v;
    for (const auto& x : list) v.push_back(value_info(x));
    return b_.CreateVector(v);
  }

  FlatBufferBuilder b_{1 << 16};
  std::string weights_;
};

}  // namespace

std::string serialize_model(const ir::Model& model) { return Writer().file(model); }

void write_model_file(const ir::Model& model, const std::string& path) {
  const std::string bytes = serialize_model(model);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  check(out.good(), path + ": cannot open for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  check(out.good(), path + ": writing the .kiln file failed");
}

}  // namespace kiln::format
