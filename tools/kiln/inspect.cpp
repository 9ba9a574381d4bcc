// kiln inspect: the graph as kiln will run it (after the load-time passes), with inferred
// types, CPU-residency marks and where each node runs.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "command.h"
#include "ir/graph.h"
#include "kiln/kiln.h"
#include "options.h"
#include "passes/graph_rewrite.h"
#include "passes/passes.h"

namespace kiln::cli {

namespace {

std::string type_of(const ir::Graph& graph, const std::string& value) {
  if (auto it = graph.initializers.find(value); it != graph.initializers.end()) {
    const Tensor& t = it->second;
    return "const " + std::string(dtype_name(t.dtype())) + t.shape().to_string();
  }
  if (const ValueInfo* info = graph.find_value_info(value)) return info->to_string();
  return "?";
}

std::string describe_values(const ir::Graph& graph, const std::vector<std::string>& values,
                            const std::set<std::string>& cpu_resident) {
  std::string s;
  for (const auto& v : values) {
    if (!s.empty()) s += ", ";
    // An empty name is an optional input or output the node was not given.
    if (v.empty()) {
      s += "<absent>";
      continue;
    }
    s += v + ": " + type_of(graph, v);
    if (cpu_resident.count(v)) s += " [cpu-resident]";
  }
  return s;
}

size_t subgraph_node_count(const ir::Node& node) {
  size_t n = 0;
  for (const auto& a : node.attributes) {
    if (a.g) n += a.g->nodes.size();
    for (const auto& g : a.graphs) n += g ? g->nodes.size() : 0;
  }
  return n;
}

// Where each node runs on `backend`, from a worker built for it; when no worker can be built
// (no device, a backend missing from this build) every node falls back, for that reason.
struct BackendPlacement {
  std::vector<NodePlacement> nodes;  // the worker's, for its own graph
  std::vector<int> per_node;         // per node of the model's graph: an index into `nodes`
  // The domain and op type of the fused nodes among `nodes` (by index) whose domain is known.
  std::map<int, std::string> fused_ops;
  std::string device;
  std::string unavailable;  // why no worker could be built
  // Native GPU nodes placed with some input shape or dtype unknown at load time.
  // The model node's placement, or nullptr.
  const NodePlacement* of(size_t node) const {
    return node < per_node.size() && per_node[node] >= 0 ? &nodes[per_node[node]] : nullptr;
  }
  size_t checked_per_run() const {
    size_t n = 0;
    for (size_t i = 0; i < per_node.size(); ++i) {
      const NodePlacement* p = of(i);
      n += p && p->backend != Backend::Cpu && !p->decided_at_load ? 1 : 0;
    }
    return unavailable.empty() ? n : 0;
  }
  size_t native() const {
    size_t n = 0;
    for (size_t i = 0; i < per_node.size(); ++i) n += of(i) && of(i)->fallback_reason.empty();
    return unavailable.empty() ? n : 0;
  }
};

// The worker's placement of each node of `graph`. A worker runs its own copy of the graph, where
// a chain of nodes may be one fused node named after one of them; every node of the chain takes
// the fused node's placement. `cpu_fused` is the CPU worker's copy (passes::fuse_for_cpu): there
// every value a fusion removed was read only by nodes of its chain, so a removed node is followed
// to its chain's last node, whose output the fused node produces. GPU workers fuse only a Conv with
// the residual Add and activation after it (kiln::FusedConv, named after the Conv and placed at the
// chain's end), as far as their kernels go: such nodes take the FusedConv's. Each entry indexes
// `placed`, or is -1 for a node the worker does not run (none, normally).
std::vector<int> placement_per_node(const ir::Graph& graph,
                                    const std::vector<NodePlacement>& placed,
                                    const ir::Graph* cpu_fused,
                                    std::map<int, std::string>& fused_ops) {
  std::map<std::pair<std::string, std::string>, std::vector<int>> by_node;
  for (int k = static_cast<int>(placed.size()); k-- > 0;)
    by_node[{placed[k].node_name, placed[k].op_type}].push_back(k);
  auto take = [&](const std::string& name, const std::string& op) {
    auto it = by_node.find({name, op});
    if (it == by_node.end() || it->second.empty()) return -1;
    const int k = it->second.back();
    it->second.pop_back();
    return k;
  };
  auto fused_conv = [&](const std::string& conv_name) {
    for (size_t k = 0; k < placed.size(); ++k)
      if (placed[k].op_type == kFusedConvOp && placed[k].node_name == conv_name)
        return static_cast<int>(k);
    return -1;
  };
  const passes::Producers producer = passes::find_producers(graph);
  // The Conv a fused Add or activation hangs off, through at most one Add.
  std::function<const ir::Node*(const ir::Node&, int)> chain_conv = [&](const ir::Node& node,
                                                                        int depth) {
    if (node.op_type == "Conv") return &node;
    for (const std::string& in : node.inputs) {
      auto it = producer.find(in);
      if (it == producer.end() || depth == 0) continue;
      const ir::Node* conv = chain_conv(graph.nodes[it->second], depth - 1);
      if (conv && fused_conv(conv->name) >= 0) return conv;
    }
    return static_cast<const ir::Node*>(nullptr);
  };
  passes::Producers fused_producer;
  passes::Readers readers;
  if (cpu_fused) {
    fused_producer = passes::find_producers(*cpu_fused);
    readers = passes::find_readers(graph);
  }
  // The fused node whose chain `node` belongs to, from the CPU worker's graph.
  auto cpu_fusion = [&](const ir::Node& node) {
    const ir::Node* n = &node;
    for (size_t steps = 0; steps < graph.nodes.size() && n->outputs.size() == 1 &&
                           !fused_producer.count(n->outputs[0]);
         ++steps) {
      // A value a fusion removed is read only by nodes of its chain, each of which leads to the
      // chain's end: any of them will do (x of an x * sigmoid(x) or of a GELU has two).
      auto it = readers.find(n->outputs[0]);
      if (it == readers.end() || it->second.empty() || it->second[0] == passes::kOutsideReader)
        return -1;
      n = &graph.nodes[it->second[0]];
    }
    auto f = n->outputs.empty() ? fused_producer.end() : fused_producer.find(n->outputs[0]);
    if (f == fused_producer.end()) return -1;
    const ir::Node& fused = cpu_fused->nodes[f->second];
    for (size_t k = 0; k < placed.size(); ++k) {
      if (placed[k].node_name == fused.name && placed[k].op_type == fused.op_type) {
        fused_ops[static_cast<int>(k)] = fused.domain + "::" + fused.op_type;
        return static_cast<int>(k);
      }
    }
    return -1;
  };
  std::vector<int> per_node;
  for (const ir::Node& node : graph.nodes) {
    int k = take(node.name, node.op_type);
    if (k < 0 && cpu_fused) k = cpu_fusion(node);
    if (k < 0) {
      // A GPU worker's kiln::FusedConv (cpu_fusion follows the CPU worker's chains): Sigmoid and
      // Mul of a fused SiLU hang off the Conv through each other, three steps.
      const ir::Node* conv = chain_conv(node, 3);
      k = conv ? fused_conv(conv->name) : -1;
    }
    per_node.push_back(k);
  }
  return per_node;
}

BackendPlacement placement_on(const Model& model, Backend backend, const WorkerOptions& options) {
  BackendPlacement p;
  try {
    Worker worker(model, backend, options);
    p.nodes = worker.placements();
    std::optional<ir::Graph> cpu_fused;
    if (backend == Backend::Cpu) {
      cpu_fused = model.ir()->graph;
      passes::fuse_for_cpu(*cpu_fused, model.ir()->opset_for(""));
    }
    p.per_node = placement_per_node(model.ir()->graph, p.nodes, cpu_fused ? &*cpu_fused : nullptr,
                                    p.fused_ops);
    p.device = worker.device_description();
  } catch (const Error& e) {
    p.unavailable = e.what();
  }
  return p;
}

struct InspectOptions {
  std::string model;
  WorkerFlags worker;
  LoadFlags load;
};

int inspect(const InspectOptions& o) {
  const std::string& path = o.model;
  const Backend backend = o.worker.backend_kind();
  const Model model = load_model(path, o.load.options());
  const ir::Model& ir = *model.ir();
  const ir::Graph& graph = ir.graph;

  std::cout << "model: " << path << "\n";
  std::cout << "ir version: " << ir.ir_version << "\n";
  std::cout << "opsets:";
  const char* separator = " ";
  for (const auto& [domain, version] : ir.opsets) {
    std::cout << separator << (domain.empty() ? "ai.onnx" : domain) << " " << version;
    separator = ", ";
  }
  std::cout << "\n";
  std::cout << "producer: " << (ir.producer.empty() ? "(none)" : ir.producer) << "\n";
  std::cout << "inputs:\n";
  for (const auto& v : model.inputs()) std::cout << "  " << v.name << ": " << v.to_string() << "\n";
  std::cout << "outputs:\n";
  for (const auto& v : model.outputs())
    std::cout << "  " << v.name << ": " << v.to_string() << "\n";

  const std::set<std::string> cpu_resident = passes::cpu_resident_values(ir);
  const BackendPlacement chosen = placement_on(model, backend, o.worker.options());
  if (chosen.unavailable.empty()) std::cout << "device: " << chosen.device << "\n";

  std::cout << "\noptimized graph (" << graph.nodes.size() << " nodes, backend "
            << backend_name(backend) << "):\n";
  const int width = static_cast<int>(std::to_string(graph.nodes.size()).size());
  std::map<std::string, int> op_counts;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& node = graph.nodes[i];
    const std::string op = node.domain.empty() ? node.op_type : node.domain + "::" + node.op_type;
    ++op_counts[op];
    char index[32];
    std::snprintf(index, sizeof index, "  %*zu  ", width, i);
    std::cout << index << op << " '" << node.name << "'  "
              << describe_values(graph, node.inputs, cpu_resident) << " -> "
              << describe_values(graph, node.outputs, cpu_resident);
    if (const size_t sub = subgraph_node_count(node))
      std::cout << "  (subgraphs: " << sub << " nodes)";
    std::cout << "  @ ";
    if (!chosen.unavailable.empty()) {
      std::cout << "cpu (fallback: " << chosen.unavailable << ")\n";
    } else if (const NodePlacement* placed = chosen.of(i); !placed) {
      std::cout << "(not among the worker's placements)\n";
    } else if (const NodePlacement& p = *placed; p.fallback_reason.empty()) {
      std::cout << backend_name(p.backend);
      if (p.op_type != node.op_type) {
        const auto fused = chosen.fused_ops.find(chosen.per_node[i]);
        std::cout << " (in "
                  << (fused != chosen.fused_ops.end() ? fused->second : "kiln::" + p.op_type)
                  << ")";
      }
      // A GPU node placed without every shape known: a run may still send it to the CPU.
      if (p.backend != Backend::Cpu && !p.decided_at_load) std::cout << " (shapes checked per run)";
      std::cout << "\n";
    } else {
      std::cout << "cpu (fallback: " << p.fallback_reason << ")\n";
    }
  }

  std::cout << "\nsummary:\n  nodes per op:";
  std::vector<std::pair<std::string, int>> ops(op_counts.begin(), op_counts.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (size_t i = 0; i < ops.size(); ++i)
    std::cout << (i ? ", " : " ") << ops[i].first << " " << ops[i].second;
  if (ops.empty()) std::cout << " (none)";
  std::cout << "\n  cpu-resident values: " << cpu_resident.size() << "\n";
  const size_t total = graph.nodes.size();
  for (Backend b : {Backend::Cpu, Backend::GpuCompute, Backend::GpuPixel}) {
    const BackendPlacement p = b == backend ? chosen : placement_on(model, b, {});
    const size_t n = p.native();
    char line[160];
    std::snprintf(line, sizeof line, "  %-12s %zu/%zu nodes native (%.1f%%)",
                  (std::string(backend_name(b)) + ":").c_str(), n, total,
                  total ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 100.0);
    std::cout << line;
    if (!p.unavailable.empty()) std::cout << ", the rest fall back to cpu: " << p.unavailable;
    if (const size_t per_run = p.checked_per_run())
      std::cout << ", " << per_run << " with shapes checked per run";
    std::cout << "\n";
  }
  return 0;
}

const Registration kCommand{
    "inspect", "show the optimized graph, shapes, CPU-residency marks and per-node backend",
    [](CLI::App& cmd) {
      cmd.footer(
          "Prints the model's metadata, then the optimized graph one node per line:\n"
          "  index  op  'node name'  inputs -> outputs  @ backend\n"
          "each value with its inferred dtype and shape (\"const\" for initializers), and\n"
          "[cpu-resident] on values that hold shapes or indices and so stay on the CPU whatever\n"
          "the backend; a node that falls back to the CPU says why, and a GPU node placed\n"
          "before its input shapes were known says \"(shapes checked per run)\": a run may still\n"
          "send it to the CPU (Worker::placements() counts such runs per node). Closes with node\n"
          "counts per op and, per backend, how many nodes run natively.");
      auto o = std::make_shared<InspectOptions>();
      add_model_argument(cmd, o->model);
      add_worker_flags(cmd, o->worker, {.threads = false});
      add_load_flags(cmd, o->load);
      return [o] { return inspect(*o); };
    }};

}  // namespace

}  // namespace kiln::cli
