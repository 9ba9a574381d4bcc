// A graph turned into what the executor runs: value slots instead of names, kernels created
// once, and the dependency structure between nodes.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "kernels/device_backend.h"
#include "kernels/op_registry.h"

namespace kiln {

struct CompiledNode {
  const ir::Node* node = nullptr;
  int opset = 0;
  CpuKernel kernel;  // also the fallback of a device node whose shapes the device cannot bind
  // Set when the node runs on the device backend; `placement` then names it, otherwise it
  // says why the node runs on the CPU ("" on a CPU worker).
  std::shared_ptr<DeviceKernel> device_kernel;
  std::string placement;
  // A device node whose placement knew every input's shape and dtype and every shape-deciding
  // value at load time: only a device limit can move it to the CPU at run time.
  bool decided_at_load = false;
  // The node reads only its inputs' shapes (Shape, Size): on the CPU it needs no download of a
  // device input.
  bool reads_only_shapes = false;
  std::vector<int> inputs;     // slot per input, -1 for an absent optional input
  std::vector<int> outputs;    // slot per output, -1 for an unused optional output
  std::vector<int> consumers;  // nodes that read an output of this one (each once)
  int dependency_count = 0;    // distinct producer nodes this node waits for
};

struct CompiledGraph {
  std::vector<CompiledNode> nodes;  // topological order
  std::vector<std::string> slot_names;
  std::unordered_map<std::string, int> slot_of;
  std::vector<int> producer;              // node index per slot, -1 for inputs and constants
  std::vector<std::vector<int>> readers;  // nodes reading each slot
  std::vector<int>
      input_slots;  // graph inputs the user feeds (model.inputs() order), then outer names
  std::vector<int> output_slots;                  // graph outputs (model.outputs() order)
  std::vector<std::pair<int, Tensor>> constants;  // initializer slots and their values
  std::vector<int> roots;                         // nodes with no dependencies
  DeviceBackend* device = nullptr;                // where device nodes record; null on a CPU worker

  size_t slot_count() const { return slot_names.size(); }
};

struct CompileOptions {
  // Where a GPU worker places nodes: on `backend` when it has a kernel, else on the CPU, or a
  // load failure naming the node when `strict`.
  DeviceBackend* backend = nullptr;
  bool strict = false;
  std::set<std::string> cpu_resident;  // values that must be host tensors (passes/cpu_residency)
  // Check every CPU kernel's outputs against shape inference (runtime/shape_check.h).
  bool verify_shapes = false;
};

// Compiles `graph`. A subgraph names the values it reads from enclosing scopes in
// `outer_names`: they become extra inputs, bound after the graph's own. Kernel factories run here,
// so attribute errors surface at load time.
CompiledGraph compile_graph(const ir::Graph& graph, const std::map<std::string, int>& opsets,
                            const std::vector<std::string>& outer_names = {},
                            const CompileOptions& options = {});

}  // namespace kiln
