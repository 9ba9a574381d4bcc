#include "onnx/importer.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>

#include <google/protobuf/io/coded_stream.h>

#include "core/element_count.h"
#include "onnx/nesting_depth.h"
#include "onnx/onnx.pb.h"
#include "onnx/tensor_proto.h"

namespace kiln::onnx_import {

namespace {

constexpr int64_t kMinIrVersion = 3;
constexpr int64_t kMaxIrVersion = 13;
constexpr int kMaxOnnxOpset = 28;

struct Context {
  std::string source;    // file name for messages
  std::string base_dir;  // external data
};

ValueInfo convert_type(const std::string& name, const onnx::TypeProto& type) {
  ValueInfo info;
  info.name = name;
  const onnx::TypeProto* element = &type;
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      info.kind = ValueInfo::Kind::Tensor;
      break;
    case onnx::TypeProto::kSequenceType:
      info.kind = ValueInfo::Kind::Sequence;
      element = &type.sequence_type().elem_type();
      break;
    case onnx::TypeProto::kOptionalType:
      info.kind = ValueInfo::Kind::Optional;
      element = &type.optional_type().elem_type();
      break;
    case onnx::TypeProto::kMapType:
      info.kind = ValueInfo::Kind::Map;
      return info;
    default:
      info.kind = ValueInfo::Kind::Unknown;
      return info;
  }
  if (info.kind == ValueInfo::Kind::Optional && element->has_sequence_type())
    info.element_kind = ValueInfo::Kind::Sequence;
  // Sequences of optionals and the like: look through to the innermost tensor type.
  while (element->has_sequence_type() || element->has_optional_type()) {
    element = element->has_sequence_type() ? &element->sequence_type().elem_type()
                                           : &element->optional_type().elem_type();
  }
  if (!element->has_tensor_type()) return info;
  const auto& tt = element->tensor_type();
  if (is_valid_dtype(tt.elem_type())) info.dtype = static_cast<DataType>(tt.elem_type());
  if (tt.has_shape()) {
    info.has_shape = true;
    // The fixed dims may not multiply past what a tensor can hold (as initializers may not):
    // shape rules do arithmetic on declared dims and must not overflow. Zero dims are left out
    // of the product, as a rule may multiply the others.
    std::vector<int64_t> nonzero_dims;
    for (const auto& d : tt.shape().dim()) {
      Dim dim;
      if (d.has_dim_value() && d.dim_value() >= 0) {
        dim.value = d.dim_value();
        nonzero_dims.push_back(std::max<int64_t>(dim.value, 1));
      }
      if (d.has_dim_param()) dim.symbol = d.dim_param();
      info.shape.push_back(dim);
    }
    if (!element_count_within(nonzero_dims, kMaxTensorElements))
      throw Error("value '" + name + "': declared shape has more elements than a tensor can hold");
  }
  return info;
}

ValueInfo convert_value_info(const onnx::ValueInfoProto& v) {
  return v.has_type() ? convert_type(v.name(), v.type())
                      : ValueInfo{v.name(), ValueInfo::Kind::Unknown};
}

std::shared_ptr<ir::Graph> convert_graph(const onnx::GraphProto& g, const Context& ctx,
                                         ir::Graph* parent, const std::string& where);

ir::Attribute convert_attribute(const onnx::AttributeProto& a, const Context& ctx, ir::Graph* owner,
                                const std::string& where) {
  using T = ir::Attribute::Type;
  ir::Attribute attr;
  attr.name = a.name();
  attr.ref_attr_name = a.ref_attr_name();
  const std::string at = where + ", attribute '" + a.name() + "'";
  auto type = a.type();
  if (type == onnx::AttributeProto::UNDEFINED) {
    // Old exporters leave the type out; infer it from the one field that is set.
    if (a.has_f())
      type = onnx::AttributeProto::FLOAT;
    else if (a.has_i())
      type = onnx::AttributeProto::INT;
    else if (a.has_s())
      type = onnx::AttributeProto::STRING;
    else if (a.has_t())
      type = onnx::AttributeProto::TENSOR;
    else if (a.has_g())
      type = onnx::AttributeProto::GRAPH;
    else if (a.floats_size())
      type = onnx::AttributeProto::FLOATS;
    else if (a.ints_size())
      type = onnx::AttributeProto::INTS;
    else if (a.strings_size())
      type = onnx::AttributeProto::STRINGS;
    else if (a.tensors_size())
      type = onnx::AttributeProto::TENSORS;
    else if (a.graphs_size())
      type = onnx::AttributeProto::GRAPHS;
  }
  switch (type) {
    case onnx::AttributeProto::FLOAT:
      attr.type = T::Float;
      attr.f = a.f();
      break;
    case onnx::AttributeProto::INT:
      attr.type = T::Int;
      attr.i = a.i();
      break;
    case onnx::AttributeProto::STRING:
      attr.type = T::String;
      attr.s = a.s();
      break;
    case onnx::AttributeProto::TENSOR:
      attr.type = T::Tensor;
      attr.t = tensor_from_proto(a.t(), ctx.base_dir, at);
      break;
    case onnx::AttributeProto::GRAPH:
      attr.type = T::Graph;
      attr.g = convert_graph(a.g(), ctx, owner, at);
      break;
    case onnx::AttributeProto::FLOATS:
      attr.type = T::Floats;
      attr.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::INTS:
      attr.type = T::Ints;
      attr.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::STRINGS:
      attr.type = T::Strings;
      attr.strings.assign(a.strings().begin(), a.strings().end());
      break;
    case onnx::AttributeProto::TENSORS:
      attr.type = T::Tensors;
      for (const auto& t : a.tensors())
        attr.tensors.push_back(tensor_from_proto(t, ctx.base_dir, at));
      break;
    case onnx::AttributeProto::GRAPHS:
      attr.type = T::Graphs;
      for (const auto& g : a.graphs()) attr.graphs.push_back(convert_graph(g, ctx, owner, at));
      break;
    case onnx::AttributeProto::TYPE_PROTO:
      attr.type = T::TypeProto;
      attr.type_proto = convert_type("", a.tp());
      break;
    case onnx::AttributeProto::TYPE_PROTOS:
      attr.type = T::TypeProtos;
      break;
    case onnx::AttributeProto::SPARSE_TENSOR:
    case onnx::AttributeProto::SPARSE_TENSORS:
      throw Error(at + ": sparse tensor attributes are not supported");
    default:
      if (!attr.ref_attr_name.empty()) break;  // a reference inside a function body
      throw Error(at + ": attribute has no type and no value");
  }
  return attr;
}

ir::Node convert_node(const onnx::NodeProto& n, const Context& ctx, ir::Graph* owner,
                      const std::string& graph_where) {
  ir::Node node;
  node.name = n.name();
  node.op_type = n.op_type();
  node.domain = ir::canonical_domain(n.domain());
  node.inputs.assign(n.input().begin(), n.input().end());
  node.outputs.assign(n.output().begin(), n.output().end());
  check(!node.op_type.empty(), graph_where + ": a node has no op_type");
  const std::string where = graph_where + ", " + node.describe();
  std::set<std::string> seen;
  for (const auto& a : n.attribute()) {
    check(seen.insert(a.name()).second, where + ": attribute '" + a.name() + "' appears twice");
    node.attributes.push_back(convert_attribute(a, ctx, owner, where));
  }
  return node;
}

ir::Function convert_function(const onnx::FunctionProto& f, const Context& ctx,
                              const std::string& where) {
  ir::Function fn;
  fn.name = f.name();
  fn.domain = ir::canonical_domain(f.domain());
  fn.inputs.assign(f.input().begin(), f.input().end());
  fn.outputs.assign(f.output().begin(), f.output().end());
  fn.attributes.assign(f.attribute().begin(), f.attribute().end());
  for (const auto& op : f.opset_import())
    fn.opsets[ir::canonical_domain(op.domain())] = static_cast<int>(op.version());
  for (const auto& n : f.node()) fn.nodes.push_back(convert_node(n, ctx, nullptr, where));
  return fn;
}

void add_initializer(ir::Graph* graph, const onnx::TensorProto& init, const Context& ctx,
                     const std::string& gw) {
  check(!init.name().empty(), gw + ": an initializer has no name");
  graph->initializers[init.name()] =
      tensor_from_proto(init, ctx.base_dir, gw + ", initializer '" + init.name() + "'");
}

// The top-level graph's initializers, each freed from the message as soon as its tensor is
// made, so that the message and the model never both hold all the weights; fill_graph then
// finds none left to convert.
void take_initializers(ir::Graph* graph, onnx::GraphProto& g, const Context& ctx) {
  for (onnx::TensorProto& init : *g.mutable_initializer()) {
    add_initializer(graph, init, ctx, ctx.source);
    onnx::TensorProto().Swap(&init);  // its bytes go with the temporary, now
  }
  g.clear_initializer();
}

void fill_graph(ir::Graph* graph, const onnx::GraphProto& g, const Context& ctx, ir::Graph* parent,
                const std::string& where) {
  graph->name = g.name();
  graph->parent = parent;
  const std::string gw = where.empty() ? ctx.source : where + ", subgraph '" + g.name() + "'";
  for (const auto& init : g.initializer()) add_initializer(graph, init, ctx, gw);
  check(g.sparse_initializer_size() == 0, gw + ": sparse initializers are not supported");
  for (const auto& v : g.input()) graph->inputs.push_back(convert_value_info(v));
  for (const auto& v : g.output()) graph->outputs.push_back(convert_value_info(v));
  for (const auto& v : g.value_info()) graph->value_infos.push_back(convert_value_info(v));
  graph->nodes.reserve(static_cast<size_t>(g.node_size()));
  for (const auto& n : g.node()) graph->nodes.push_back(convert_node(n, ctx, graph, gw));
}

std::shared_ptr<ir::Graph> convert_graph(const onnx::GraphProto& g, const Context& ctx,
                                         ir::Graph* parent, const std::string& where) {
  auto graph = std::make_shared<ir::Graph>();
  fill_graph(graph.get(), g, ctx, parent, where);
  return graph;
}

}  // namespace

std::shared_ptr<ir::Model> import_model(const void* data, size_t size, const std::string& source,
                                        const std::string& base_dir,
                                        const std::function<void()>& release_bytes) {
  check(size <= static_cast<size_t>(std::numeric_limits<int>::max()),
        source + ": model files over 2 GiB must keep their weights in external data files");
  const size_t depth = subgraph_nesting_depth(data, size);
  check(depth <= kMaxSubgraphDepth,
        source + ": subgraphs nested deeper than " + std::to_string(kMaxSubgraphDepth) + " (" +
            std::to_string(depth) + " levels of If/Loop/Scan bodies inside each other)");
  onnx::ModelProto proto;
  google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data),
                                            static_cast<int>(size));
  // Each subgraph level is three messages deep (graph, node, attribute); the rest leaves room
  // for types nested inside each other (sequences of maps of ...), as protobuf's default does.
  in.SetRecursionLimit(static_cast<int>(3 * kMaxSubgraphDepth + 100));
  if (!proto.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    throw Error(source + ": not a valid ONNX model (the protobuf data is truncated or corrupt)");
  }
  if (release_bytes) release_bytes();
  check(proto.has_graph(), source + ": not an ONNX model (it has no graph)");
  check(proto.opset_import_size() > 0,
        source +
            ": the model declares no opset_import; kiln needs to know which opset its "
            "operators follow");
  auto model = std::make_shared<ir::Model>();
  model->ir_version = proto.ir_version();
  model->producer = proto.producer_name();
  model->path = source;
  check(model->ir_version >= kMinIrVersion && model->ir_version <= kMaxIrVersion,
        source + ": IR version " + std::to_string(model->ir_version) +
            " is not supported (kiln reads IR versions " + std::to_string(kMinIrVersion) + " to " +
            std::to_string(kMaxIrVersion) + ")");
  for (const auto& op : proto.opset_import()) {
    const std::string domain = ir::canonical_domain(op.domain());
    if (domain.empty()) {
      check(op.version() >= 1 && op.version() <= kMaxOnnxOpset,
            source + ": ai.onnx opset " + std::to_string(op.version()) +
                " is not supported (kiln supports opsets 1 to " + std::to_string(kMaxOnnxOpset) +
                ")");
    }
    model->opsets[domain] = static_cast<int>(op.version());
  }
  Context ctx{source, base_dir};
  for (const auto& f : proto.functions())
    model->functions.push_back(convert_function(f, ctx, source + ", function '" + f.name() + "'"));
  take_initializers(&model->graph, *proto.mutable_graph(), ctx);
  fill_graph(&model->graph, proto.graph(), ctx, nullptr, "");
  return model;
}

ir::Function import_function(const void* data, size_t size, const std::string& source) {
  onnx::FunctionProto proto;
  check(
      size <= static_cast<size_t>(INT32_MAX) && proto.ParseFromArray(data, static_cast<int>(size)),
      source + ": not a valid ONNX FunctionProto");
  return convert_function(proto, Context{source, "."}, source);
}

}  // namespace kiln::onnx_import
