#include "graph_mutator.h"

#include <array>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "onnx/onnx.pb.h"

namespace kiln::fuzz {

namespace {

using Random = std::mt19937_64;

size_t pick(Random& random, size_t count) {
  return std::uniform_int_distribution<size_t>(0, count - 1)(random);
}

// Values that sit on the edges kernels check: zero, negatives, one past a size, the integer
// limits, and the neighbours of the value already there.
int64_t interesting_int(Random& random, int64_t current) {
  // The neighbours wrap around at the limits (in unsigned arithmetic, where that is defined).
  const auto u = static_cast<uint64_t>(current);
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  const std::array<int64_t, 14> values = {0,
                                          1,
                                          -1,
                                          2,
                                          3,
                                          -2,
                                          64,
                                          int64_t{1} << 31,
                                          std::numeric_limits<int64_t>::max(),
                                          std::numeric_limits<int64_t>::min(),
                                          wrap(u + 1),
                                          wrap(u - 1),
                                          wrap(0 - u),
                                          wrap(u * 2)};
  return values[pick(random, values.size())];
}

float interesting_float(Random& random, float current) {
  const std::array<float, 10> values = {0.0f,
                                        -1.0f,
                                        1e-30f,
                                        1e30f,
                                        std::numeric_limits<float>::infinity(),
                                        std::numeric_limits<float>::quiet_NaN(),
                                        -current,
                                        current * 2,
                                        current + 1,
                                        0.5f};
  return values[pick(random, values.size())];
}

// Op types a node can be turned into: a spread of families, each with its own checks.
constexpr std::array<const char*, 40> kOpTypes = {"Add",
                                                  "Mul",
                                                  "Relu",
                                                  "Conv",
                                                  "ConvTranspose",
                                                  "MaxPool",
                                                  "AveragePool",
                                                  "Gemm",
                                                  "MatMul",
                                                  "Reshape",
                                                  "Transpose",
                                                  "Concat",
                                                  "Split",
                                                  "Slice",
                                                  "Gather",
                                                  "GatherElements",
                                                  "ScatterND",
                                                  "Expand",
                                                  "Tile",
                                                  "Pad",
                                                  "Resize",
                                                  "ReduceSum",
                                                  "ReduceMean",
                                                  "Softmax",
                                                  "TopK",
                                                  "Cast",
                                                  "Where",
                                                  "Einsum",
                                                  "LSTM",
                                                  "GRU",
                                                  "If",
                                                  "Loop",
                                                  "Range",
                                                  "ConstantOfShape",
                                                  "NonZero",
                                                  "Unsqueeze",
                                                  "Squeeze",
                                                  "BatchNormalization",
                                                  "LayerNormalization",
                                                  "DepthToSpace"};

void collect_graphs(onnx::GraphProto& graph, std::vector<onnx::GraphProto*>& out) {
  out.push_back(&graph);
  for (onnx::NodeProto& node : *graph.mutable_node())
    for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) collect_graphs(*attr.mutable_g(), out);
      for (onnx::GraphProto& g : *attr.mutable_graphs()) collect_graphs(g, out);
    }
}

// Every value name a node of `graph` could read: graph inputs, initializers, node outputs.
std::vector<std::string> value_names(const onnx::GraphProto& graph) {
  std::vector<std::string> names;
  for (const auto& in : graph.input()) names.push_back(in.name());
  for (const auto& init : graph.initializer()) names.push_back(init.name());
  for (const auto& node : graph.node())
    for (const auto& out : node.output()) names.push_back(out);
  return names;
}

bool mutate_attribute(onnx::NodeProto& node, Random& random) {
  if (node.attribute_size() == 0) return false;
  onnx::AttributeProto& attr =
      *node.mutable_attribute(static_cast<int>(pick(random, node.attribute_size())));
  if (attr.ints_size() > 0) {
    switch (pick(random, 3)) {
      case 0: {
        const int k = static_cast<int>(pick(random, attr.ints_size()));
        attr.set_ints(k, interesting_int(random, attr.ints(k)));
        return true;
      }
      case 1:
        attr.add_ints(interesting_int(random, 1));
        return true;
      default:
        attr.mutable_ints()->RemoveLast();
        return true;
    }
  }
  if (attr.floats_size() > 0) {
    const int k = static_cast<int>(pick(random, attr.floats_size()));
    attr.set_floats(k, interesting_float(random, attr.floats(k)));
    return true;
  }
  if (attr.has_i()) {
    attr.set_i(interesting_int(random, attr.i()));
    return true;
  }
  if (attr.has_f()) {
    attr.set_f(interesting_float(random, attr.f()));
    return true;
  }
  if (attr.has_s()) {
    const std::array<const char*, 5> strings = {"", "NOTSET", "SAME_UPPER", "linear", "\xff"};
    attr.set_s(strings[pick(random, strings.size())]);
    return true;
  }
  if (attr.has_t()) {
    attr.mutable_t()->add_dims(interesting_int(random, 1));
    return true;
  }
  // The attribute's declared type changes while its value stays: a reader must check both.
  attr.set_type(static_cast<onnx::AttributeProto_AttributeType>(pick(random, 15)));
  return true;
}

bool mutate_node(onnx::GraphProto& graph, Random& random) {
  if (graph.node_size() == 0) return false;
  onnx::NodeProto& node = *graph.mutable_node(static_cast<int>(pick(random, graph.node_size())));
  switch (pick(random, 5)) {
    case 0:
      return mutate_attribute(node, random);
    case 1:
      node.set_op_type(kOpTypes[pick(random, kOpTypes.size())]);
      return true;
    case 2: {
      const std::vector<std::string> names = value_names(graph);
      if (node.input_size() == 0 || names.empty()) return false;
      const int k = static_cast<int>(pick(random, node.input_size()));
      node.set_input(k, pick(random, 4) == 0 ? std::string() : names[pick(random, names.size())]);
      return true;
    }
    case 3:
      if (pick(random, 2) == 0 && node.input_size() > 0)
        node.mutable_input()->RemoveLast();
      else
        node.add_input(node.input_size() > 0 ? node.input(0) : std::string());
      return true;
    default:
      if (pick(random, 2) == 0) {
        graph.mutable_node()->DeleteSubrange(static_cast<int>(pick(random, graph.node_size())), 1);
      } else {
        *graph.add_node() = node;  // the same outputs written twice
      }
      return true;
  }
}

bool mutate_declared_shape(onnx::GraphProto& graph, Random& random) {
  if (graph.input_size() == 0) return false;
  onnx::ValueInfoProto& value =
      *graph.mutable_input(static_cast<int>(pick(random, graph.input_size())));
  if (!value.type().has_tensor_type()) return false;
  onnx::TensorShapeProto& shape = *value.mutable_type()->mutable_tensor_type()->mutable_shape();
  switch (pick(random, 4)) {
    case 0:
      if (shape.dim_size() == 0) return false;
      shape.mutable_dim(static_cast<int>(pick(random, shape.dim_size())))
          ->set_dim_value(interesting_int(random, 2));
      return true;
    case 1:
      shape.add_dim()->set_dim_value(static_cast<int64_t>(pick(random, 4)));
      return true;
    case 2:
      if (shape.dim_size() == 0) return false;
      shape.mutable_dim()->RemoveLast();
      return true;
    default:
      value.mutable_type()->mutable_tensor_type()->set_elem_type(
          static_cast<int32_t>(pick(random, 24)));
      return true;
  }
}

bool mutate_initializer(onnx::GraphProto& graph, Random& random) {
  if (graph.initializer_size() == 0) return false;
  onnx::TensorProto& tensor =
      *graph.mutable_initializer(static_cast<int>(pick(random, graph.initializer_size())));
  switch (pick(random, 4)) {
    case 0:
      if (tensor.dims_size() == 0) {
        tensor.add_dims(interesting_int(random, 1));
      } else {
        const int k = static_cast<int>(pick(random, tensor.dims_size()));
        tensor.set_dims(k, interesting_int(random, tensor.dims(k)));
      }
      return true;
    case 1:
      if (tensor.raw_data().empty()) return false;
      tensor.mutable_raw_data()->resize(pick(random, tensor.raw_data().size()));
      return true;
    case 2:
      tensor.set_data_type(static_cast<int32_t>(pick(random, 24)));
      return true;
    default: {
      // Contents change, size stays: the values that decide shapes (Reshape's shape, Slice's
      // starts, TopK's k, a Loop's trip count) are in initializers.
      std::string& raw = *tensor.mutable_raw_data();
      if (raw.size() < sizeof(int64_t)) return false;
      const size_t at = pick(random, raw.size() / sizeof(int64_t)) * sizeof(int64_t);
      int64_t value;
      std::memcpy(&value, raw.data() + at, sizeof value);
      value = interesting_int(random, value);
      std::memcpy(raw.data() + at, &value, sizeof value);
      return true;
    }
  }
}

bool mutate_opset(onnx::ModelProto& model, Random& random) {
  if (model.opset_import_size() == 0) return false;
  auto& opset =
      *model.mutable_opset_import(static_cast<int>(pick(random, model.opset_import_size())));
  opset.set_version(static_cast<int64_t>(pick(random, 25)));
  return true;
}

}  // namespace

size_t mutate_model(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)) || !model.has_graph()) return 0;
  Random random(seed);
  std::vector<onnx::GraphProto*> graphs;
  collect_graphs(*model.mutable_graph(), graphs);
  bool changed = false;
  for (int attempt = 0; attempt < 8 && !changed; ++attempt) {
    onnx::GraphProto& graph = *graphs[pick(random, graphs.size())];
    switch (pick(random, 8)) {
      case 0:
      case 1:
      case 2:
        changed = mutate_node(graph, random);
        break;
      case 3:
      case 4:
        changed = mutate_initializer(graph, random);
        break;
      case 5:
      case 6:
        changed = mutate_declared_shape(graph, random);
        break;
      default:
        changed = mutate_opset(model, random);
        break;
    }
  }
  const std::string bytes = model.SerializeAsString();
  if (!changed || bytes.size() > max_size) return 0;
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}

}  // namespace kiln::fuzz
