#include "runtime/compiled_graph.h"
#include "core/log.h"
#include "opdefs/op_def.h"
#include "runtime/placement_check.h"
#include "runtime/shape_check.h"
#include "runtime/subgraph_program.h"

#include <algorithm>
#include <set>

namespace kiln {

namespace {

int opset_of(const std::map<std::string, int>& opsets, const std::string& domain) {
  auto it = opsets.find(ir::canonical_domain(domain));
  return it == opsets.end() ? 0 : it->second;
}

DataType value_type(const ir::Graph& graph, const std::string& name) {
  if (name.empty()) return DataType::Undefined;
  if (auto it = graph.initializers.find(name); it != graph.initializers.end())
    return it->second.dtype();
  const ValueInfo* info = graph.find_value_info(name);
  return info && info->kind == ValueInfo::Kind::Tensor ? info->dtype : DataType::Undefined;
}

// The value's shape when every dim is fixed at load time.
std::optional<Shape> static_shape(const ir::Graph& graph, const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (auto it = graph.initializers.find(name); it != graph.initializers.end())
    return it->second.kind() == ValueKind::Tensor ? std::optional(it->second.shape())
                                                  : std::nullopt;
  const ValueInfo* info = graph.find_value_info(name);
  if (!info || info->kind != ValueInfo::Kind::Tensor || !info->has_shape) return std::nullopt;
  Shape shape;
  for (const Dim& d : info->shape) {
    if (!d.is_fixed()) return std::nullopt;
    shape.push_back(d.value);
  }
  return shape;
}

// Whether the placement saw every present input's shape and dtype, and the contents of every
// input it reads on the host.
bool placement_facts_known(const ir::Graph& graph, const DevicePlacementQuery& query) {
  const ir::Node& node = query.info.node();
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    if (node.inputs[k].empty()) continue;
    if (!query.input_shapes[k] || query.input_types[k] == DataType::Undefined) return false;
    if (query.input_on_cpu[k] && !graph.initializers.count(node.inputs[k])) return false;
  }
  return true;
}

// Asks the device backend for a kernel for `cn`; records where the node runs and why.
void place_node(const ir::Graph& graph, const NodeInfo& info, const CompileOptions& device,
                CompiledNode& cn) {
  const ir::Node& node = *cn.node;
  DevicePlacementQuery query{info, {}, {}, {}, {}, false, {}};
  for (const auto& in : node.inputs) {
    query.input_types.push_back(value_type(graph, in));
    query.input_shapes.push_back(static_shape(graph, in));
    query.input_on_cpu.push_back(!in.empty() && device.cpu_resident.count(in) > 0);
  }
  for (const auto& out : node.outputs) {
    query.output_types.push_back(value_type(graph, out));
    if (!out.empty() && device.cpu_resident.count(out)) query.output_on_cpu = true;
  }
  auto holds_container = [&](const std::vector<std::string>& values) {
    for (const auto& v : values) {
      const ValueInfo* vi = v.empty() ? nullptr : graph.find_value_info(v);
      if (vi && vi->kind != ValueInfo::Kind::Tensor) return true;
    }
    return false;
  };
  std::string reason;
  if (!ir::implicit_inputs(node).empty()) {
    reason = "control flow runs on the CPU";
  } else if (holds_container(node.inputs) || holds_container(node.outputs)) {
    reason = "sequences and optionals stay on the CPU";
  } else {
    std::unique_ptr<DeviceKernel> kernel = device.backend->compile(query, reason);
    if (kernel) {
      cn.decided_at_load = placement_facts_known(graph, query);
      if (device.verify_shapes && cn.decided_at_load) {
        kernel = with_placement_check(std::move(kernel), node.describe(),
                                      std::string(backend_name(device.backend->kind())));
      }
      cn.device_kernel = std::move(kernel);
      cn.placement = std::string(backend_name(device.backend->kind()));
      return;
    }
  }
  if (device.strict) {
    throw Error(node.describe() + " cannot run on " +
                std::string(backend_name(device.backend->kind())) + ": " + reason +
                " (WorkerOptions::strict forbids falling back to the CPU)");
  }
  cn.placement = "cpu: " + reason;
  // Once per op and reason, not per node: a model with fifty such nodes logs one line.
  const std::string backend(backend_name(device.backend->kind()));
  log_once(LogLevel::Info, "fallback:" + backend + ":" + node.op_type + ":" + reason,
           backend + ": " + node.op_type + " nodes run on the CPU (" + reason + "), e.g. " +
               node.describe());
}

}  // namespace

CompiledGraph compile_graph(const ir::Graph& graph, const std::map<std::string, int>& opsets,
                            const std::vector<std::string>& outer_names,
                            const CompileOptions& options) {
  install_subgraph_compiler();  // control-flow kernels compile their subgraphs
  CompiledGraph g;
  g.device = options.backend;
  auto add_slot = [&](const std::string& name) {
    auto [it, inserted] = g.slot_of.emplace(name, static_cast<int>(g.slot_names.size()));
    if (inserted) {
      g.slot_names.push_back(name);
      g.producer.push_back(-1);
      g.readers.emplace_back();
    }
    return it->second;
  };
  for (const auto& [name, value] : graph.initializers)
    g.constants.emplace_back(add_slot(name), value);
  std::set<std::string> initializer_names;
  for (const auto& [name, value] : graph.initializers) initializer_names.insert(name);
  for (const auto& in : graph.inputs) {
    // Inputs that also have an initializer are optional: the initializer is their default.
    // kiln treats them as constants.
    if (initializer_names.count(in.name)) continue;
    g.input_slots.push_back(add_slot(in.name));
  }
  // Values of enclosing scopes are bound like inputs, after the graph's own.
  for (const auto& name : outer_names) g.input_slots.push_back(add_slot(name));

  const auto& registry = OpRegistry::global();
  g.nodes.reserve(graph.nodes.size());
  for (const auto& node : graph.nodes) {
    CompiledNode cn;
    cn.node = &node;
    cn.opset = opset_of(opsets, node.domain);
    const OpDef* def = OpDefs::global().find(node);
    cn.reads_only_shapes = def && def->ends_shape_walk;
    std::vector<const Tensor*> constant_inputs;
    for (const auto& in : node.inputs) {
      if (in.empty()) {
        cn.inputs.push_back(-1);
        constant_inputs.push_back(nullptr);
        continue;
      }
      auto it = g.slot_of.find(in);
      if (it == g.slot_of.end()) {
        throw Error(node.describe() + ": input '" + in + "' is not produced by any node");
      }
      cn.inputs.push_back(it->second);
      auto c = graph.initializers.find(in);
      constant_inputs.push_back(c == graph.initializers.end() ? nullptr : &c->second);
    }
    const int index = static_cast<int>(g.nodes.size());
    for (const auto& out : node.outputs) {
      if (out.empty()) {
        cn.outputs.push_back(-1);
        continue;
      }
      if (g.slot_of.count(out) && g.producer[g.slot_of[out]] != -1) {
        throw Error(node.describe() + ": output '" + out + "' is already produced by " +
                    graph.nodes[g.producer[g.slot_of[out]]].describe());
      }
      const int slot = add_slot(out);
      g.producer[slot] = index;
      cn.outputs.push_back(slot);
    }
    const OpSchema* schema = registry.find(node.domain, node.op_type);
    if (!schema) {
      throw Error(node.describe() + ": operator '" + node.op_type + "'" +
                  (node.domain.empty() ? "" : " of domain '" + node.domain + "'") +
                  " is not supported by kiln");
    }
    // Values the node's subgraphs read from this scope come after its own inputs, so the node
    // waits for them and its kernel finds them in ir::implicit_inputs order.
    for (const auto& name : ir::implicit_inputs(node)) {
      auto it = g.slot_of.find(name);
      if (it == g.slot_of.end()) {
        throw Error(node.describe() + ": its subgraph reads '" + name +
                    "', which is not produced by any node");
      }
      cn.inputs.push_back(it->second);
    }
    const NodeInfo info(node, cn.opset, constant_inputs, &opsets);
    cn.kernel = schema->factory(info);
    if (options.verify_shapes) {
      cn.kernel = with_shape_check(std::move(cn.kernel), predicted_outputs(graph, node));
    }
    if (options.backend) place_node(graph, info, options, cn);
    g.nodes.push_back(std::move(cn));
  }
  for (const auto& out : graph.outputs) {
    auto it = g.slot_of.find(out.name);
    check(it != g.slot_of.end(), "graph output '" + out.name + "' is not produced by any node");
    g.output_slots.push_back(it->second);
  }
  // Dependencies: each distinct producer of a node's inputs.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    std::vector<int> producers;
    for (int slot : g.nodes[i].inputs) {
      if (slot < 0) continue;
      g.readers[slot].push_back(static_cast<int>(i));
      if (g.producer[slot] >= 0) producers.push_back(g.producer[slot]);
    }
    std::sort(producers.begin(), producers.end());
    producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
    g.nodes[i].dependency_count = static_cast<int>(producers.size());
    for (int p : producers) g.nodes[p].consumers.push_back(static_cast<int>(i));
    if (producers.empty()) g.roots.push_back(static_cast<int>(i));
  }
  return g;
}

}  // namespace kiln
