// kiln's graph IR: what the importer produces, the passes rewrite and the runtime plans.
// Values are named by strings as in ONNX; the empty name marks an absent optional input or
// output.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "kiln/model.h"
#include "kiln/tensor.h"

namespace kiln::ir {

struct Graph;

struct Attribute {
  enum class Type {
    Undefined,
    Float,
    Int,
    String,
    Tensor,
    Graph,
    Floats,
    Ints,
    Strings,
    Tensors,
    Graphs,
    TypeProto,
    TypeProtos
  };
  std::string name;
  Type type = Type::Undefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  ValueInfo type_proto;       // TypeProto attributes (e.g. Optional's `type`)
  std::string ref_attr_name;  // inside function bodies: refers to the caller's attribute
};

const char* attribute_type_name(Attribute::Type t);

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" for ai.onnx
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<Attribute> attributes;

  const Attribute* find_attribute(const std::string& attr_name) const;
  // "Conv node 'conv1'" — how errors name a node.
  std::string describe() const;
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;  // topologically sorted after import
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_infos;  // declared or inferred types of intermediate values
  std::map<std::string, Tensor> initializers;
  Graph* parent = nullptr;  // the enclosing graph of a subgraph

  const ValueInfo* find_value_info(const std::string& value) const;
};

// A function body from the model's functions (FunctionProto), expanded at load time.
struct Function {
  std::string name, domain;
  std::vector<std::string> inputs, outputs, attributes;
  std::vector<Attribute> attribute_defaults;
  std::vector<Node> nodes;
  std::map<std::string, int> opsets;
};

struct Model {
  Graph graph;
  std::map<std::string, int> opsets;  // domain ("" = ai.onnx) -> version
  int64_t ir_version = 0;
  std::string producer;
  std::string path;  // file it was loaded from, for messages
  std::vector<Function> functions;
  // What the user feeds and gets: graph inputs without an initializer, and graph outputs.
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;

  int opset_for(const std::string& domain) const;
};

// Names a node reads from enclosing scopes inside its subgraph attributes (If's branches,
// Loop's body, ...), sorted.
std::set<std::string> implicit_inputs(const Node& node);
// Names `graph` reads without defining them: values of the enclosing scopes.
std::set<std::string> free_names(const Graph& graph);

// Canonical domain name: "ai.onnx" and "" are the same domain.
inline std::string canonical_domain(const std::string& d) { return d == "ai.onnx" ? "" : d; }

}  // namespace kiln::ir
