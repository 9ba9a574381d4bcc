// .kiln bytes -> ir::Model. Nothing in the file is trusted before the checks: the header's
// sizes against the file, the checksum, the FlatBuffers verifier, then every enum, tensor
// range and element count as it is read.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "core/element_count.h"
#include "core/tensor_impl.h"
#include "format/header.h"
#include "format/kiln_file.h"
#include "format/kiln_model_generated.h"

namespace kiln::format {
namespace {

class Reader {
 public:
  Reader(const char* weights, uint64_t weights_size, std::shared_ptr<void> owner, std::string name)
      : weights_(weights),
        weights_size_(weights_size),
        owner_(std::move(owner)),
        name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(name_ + ": damaged .kiln file: " + what);
  }

  static std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

  std::vector<std::string> strings(
      const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* v) {
    std::vector<std::string> out;
    if (v) {
      out.reserve(v->size());
      for (const auto* s : *v) out.push_back(str(s));
    }
    return out;
  }

  DataType dtype(int32_t value) const {
    if (value < 0 || value > static_cast<int32_t>(DataType::Float8E8M0))
      fail("unknown element type " + std::to_string(value));
    return static_cast<DataType>(value);
  }

  Tensor tensor(const fb::TensorData* t) {
    if (!t) fail("a tensor without data");
    const DataType type = dtype(t->dtype());
    if (type == DataType::Undefined) fail("a tensor of undefined element type");
    Shape shape;
    if (t->shape()) shape = Shape(t->shape()->begin(), t->shape()->end());
    const std::optional<int64_t> elements = element_count_within(shape, kMaxTensorElements);
    if (!elements) fail("a tensor of shape " + shape.to_string());
    const auto count = static_cast<uint64_t>(*elements);
    if (type == DataType::String) {
      if (!t->strings() || t->strings()->size() != count) fail("a string tensor's element count");
      Tensor out = make_host_tensor(type, shape);
      std::string* p = out.mutable_data<std::string>();
      for (uint64_t i = 0; i < count; ++i) p[i] = str(t->strings()->Get(static_cast<uint32_t>(i)));
      return out;
    }
    const uint64_t bytes = count * dtype_size(type);
    if (t->size() != bytes) fail("a tensor's size does not match its shape");
    if (t->offset() % kAlignment != 0 || t->offset() > weights_size_ ||
        bytes > weights_size_ - t->offset())
      fail("a tensor lies outside the weight block");
    auto storage = Storage::borrow(const_cast<char*>(weights_) + t->offset(), bytes, owner_);
    return Tensor(std::make_shared<TensorImpl>(type, shape, std::move(storage)));
  }

  ValueInfo value_info(const fb::ValueInfo* v) {
    ValueInfo out;
    if (!v) return out;
    out.name = str(v->name());
    if (v->kind() < 0 || v->kind() > static_cast<int8_t>(ValueInfo::Kind::Unknown) ||
        v->element_kind() < 0 || v->element_kind() > static_cast<int8_t>(ValueInfo::Kind::Unknown))
      fail("value '" + out.name + "' has an unknown kind");
    out.kind = static_cast<ValueInfo::Kind>(v->kind());
    out.element_kind = static_cast<ValueInfo::Kind>(v->element_kind());
    out.dtype = dtype(v->dtype());
    out.has_shape = v->has_shape();
    if (v->shape()) {
      for (const auto* d : *v->shape()) out.shape.push_back(Dim{d->value(), str(d->symbol())});
    }
    return out;
  }

  std::vector<ValueInfo> value_infos(
      const flatbuffers::Vector<flatbuffers::Offset<fb::ValueInfo>>* v) {
    std::vector<ValueInfo> out;
    if (v) {
      for (const auto* x : *v) out.push_back(value_info(x));
    }
    return out;
  }

  ir::Attribute attribute(const fb::Attribute* a, ir::Graph* owner) {
    ir::Attribute out;
    out.name = str(a->name());
    if (a->type() < 0 || a->type() > static_cast<int8_t>(ir::Attribute::Type::TypeProtos))
      fail("attribute '" + out.name + "' has an unknown type");
    out.type = static_cast<ir::Attribute::Type>(a->type());
    out.f = a->f();
    out.i = a->i();
    if (a->s()) out.s.assign(reinterpret_cast<const char*>(a->s()->data()), a->s()->size());
    if (a->t()) out.t = tensor(a->t());
    if (a->g()) out.g = graph(a->g(), owner);
    if (a->floats()) out.floats.assign(a->floats()->begin(), a->floats()->end());
    if (a->ints()) out.ints.assign(a->ints()->begin(), a->ints()->end());
    out.strings = strings(a->strings());
    if (a->tensors()) {
      for (const auto* t : *a->tensors()) out.tensors.push_back(tensor(t));
    }
    if (a->graphs()) {
      for (const auto* g : *a->graphs()) out.graphs.push_back(graph(g, owner));
    }
    if (a->type_proto()) out.type_proto = value_info(a->type_proto());
    out.ref_attr_name = str(a->ref_attr_name());
    return out;
  }

  std::shared_ptr<ir::Graph> graph(const fb::Graph* g, ir::Graph* parent) {
    auto out = std::make_shared<ir::Graph>();
    fill_graph(g, *out);
    out->parent = parent;
    return out;
  }

  void fill_graph(const fb::Graph* g, ir::Graph& out) {
    if (!g) fail("a graph is missing");
    out.name = str(g->name());
    if (g->nodes()) {
      out.nodes.reserve(g->nodes()->size());
      for (const auto* n : *g->nodes()) {
        ir::Node node;
        node.name = str(n->name());
        node.op_type = str(n->op_type());
        node.domain = str(n->domain());
        node.inputs = strings(n->inputs());
        node.outputs = strings(n->outputs());
        if (n->attributes()) {
          for (const auto* a : *n->attributes()) node.attributes.push_back(attribute(a, &out));
        }
        out.nodes.push_back(std::move(node));
      }
    }
    out.inputs = value_infos(g->inputs());
    out.outputs = value_infos(g->outputs());
    out.value_infos = value_infos(g->value_infos());
    if (g->initializers()) {
      for (const auto* init : *g->initializers()) {
        if (!out.initializers.emplace(str(init->name()), tensor(init->tensor())).second)
          fail("initializer '" + str(init->name()) + "' appears twice");
      }
    }
  }

 private:
  const char* weights_;
  uint64_t weights_size_;
  std::shared_ptr<void> owner_;
  std::string name_;
};

// Subgraphs point at their enclosing graph; the root graph lives inside the model, so the
// pointers are set once it has its final address.
void link_parents(ir::Graph& graph) {
  for (ir::Node& node : graph.nodes) {
    for (ir::Attribute& a : node.attributes) {
      if (a.g) {
        a.g->parent = &graph;
        link_parents(*a.g);
      }
      for (auto& g : a.graphs) {
        g->parent = &graph;
        link_parents(*g);
      }
    }
  }
}

}  // namespace

bool has_kiln_magic(const void* data, size_t size) {
  return size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0;
}

std::shared_ptr<ir::Model> read_model(const void* data, size_t size, std::shared_ptr<void> owner,
                                      const std::string& name) {
  check(has_kiln_magic(data, size), name + ": not a .kiln file (no KILNMDL magic)");
  const auto* bytes = static_cast<const char*>(data);
  if (size < sizeof(Header))
    throw Error(name + ": truncated .kiln file: " + std::to_string(size) +
                " bytes, shorter than its header");
  Header h;
  std::memcpy(&h, bytes, sizeof h);
  if (h.version != kFormatVersion) {
    throw Error(name + ": .kiln format version " + std::to_string(h.version) +
                ", this kiln reads version " + std::to_string(kFormatVersion) +
                " (convert the .onnx model again with this kiln)");
  }
  if (h.file_size != size) {
    throw Error(name + ": " + (size < h.file_size ? "truncated" : "damaged") + " .kiln file: " +
                std::to_string(size) + " bytes, its header says " + std::to_string(h.file_size));
  }
  const bool layout_ok = h.header_size == sizeof(Header) && h.model_offset >= h.header_size &&
                         h.model_offset % kAlignment == 0 && h.model_size <= size &&
                         h.model_offset <= size - h.model_size &&
                         h.weights_offset % kAlignment == 0 &&
                         h.weights_offset >= h.model_offset + h.model_size &&
                         h.weights_size <= size && h.weights_offset <= size - h.weights_size;
  if (!layout_ok) throw Error(name + ": damaged .kiln file: its header's sections do not fit");
  if (file_checksum(h, bytes) != h.checksum) {
    throw Error(name +
                ": damaged .kiln file: checksum mismatch (the file was modified or "
                "corrupted after it was written)");
  }
  const auto* model_bytes = reinterpret_cast<const uint8_t*>(bytes + h.model_offset);
  flatbuffers::Verifier verifier(model_bytes, h.model_size, 128, 100'000'000);
  if (!fb::VerifyModelBuffer(verifier))
    throw Error(name + ": damaged .kiln file: the model table does not verify");
  const fb::Model* m = fb::GetModel(model_bytes);

  Reader reader(bytes + h.weights_offset, h.weights_size, std::move(owner), name);
  auto model = std::make_shared<ir::Model>();
  model->path = name;
  model->ir_version = m->ir_version();
  model->producer = Reader::str(m->producer());
  if (m->opsets()) {
    for (const auto* o : *m->opsets()) model->opsets[Reader::str(o->domain())] = o->version();
  }
  reader.fill_graph(m->graph(), model->graph);
  link_parents(model->graph);
  model->inputs = reader.value_infos(m->inputs());
  model->outputs = reader.value_infos(m->outputs());
  return model;
}

std::shared_ptr<ir::Model> read_model_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd >= 0, path + ": cannot open the model file");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
    ::close(fd);
    throw Error(path + ": truncated .kiln file: empty");
  }
  const auto size = static_cast<size_t>(st.st_size);
  // Read-only: the weights are constants no kernel writes, and pages stay shared with the page
  // cache (a writable private mapping would copy every page when populated).
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  check(map != MAP_FAILED, path + ": cannot map the .kiln file");
  std::shared_ptr<void> mapping(map, [size](void* p) { ::munmap(p, size); });
  return read_model(map, size, mapping, path);
}

}  // namespace kiln::format
