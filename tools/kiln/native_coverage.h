// How natively a GPU worker ran one test: the nodes of its optimized graph placed on the GPU
// backend, the ones placed on the CPU (with the backend's reason), and the runs in which a GPU
// node went back to the CPU at run time. `kiln test-onnx --backend gpu-*` tallies these per suite,
// so a pass is not mistaken for GPU coverage when the CPU kernels did the work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace kiln::cli {

struct NativeCoverage {
  size_t nodes = 0;                    // nodes of the optimized graph
  size_t native = 0;                   // of those, placed on the worker's backend
  uint64_t run_time_fallbacks = 0;     // runs in which a GPU node went back to the CPU
  std::vector<std::string> on_cpu;     // "Op: reason" per kind of node placed on the CPU
  std::vector<std::string> fell_back;  // "Op: cause: reason (N runs)" per node that fell back

  // Every node on the GPU backend for every run.
  bool fully_native() const { return native == nodes && run_time_fallbacks == 0; }
  // What the CPU did, in one line ("2 of 3 nodes on the CPU: Cast: ...; run-time fallbacks:
  // ..."); empty when fully native.
  std::string cpu_work() const;

  // One line without newlines, and back (for the child process's result pipe).
  std::string encode() const;
  static NativeCoverage decode(const std::string& text);
};

NativeCoverage native_coverage(const std::vector<NodePlacement>& placements);

// The tally over a suite: tests whose nodes all, some or none ran natively, and run-time
// fallbacks.
struct NativeTally {
  int every = 0, some = 0, none = 0;
  int without_nodes = 0;  // counted in `every`: the load-time passes left no node
  int unmeasured = 0;     // the model did not load or no worker could be built
  uint64_t run_time_fallbacks = 0;
  int tests_with_fallbacks = 0;

  void add(const std::optional<NativeCoverage>& coverage);
  std::string summary(std::string_view backend) const;
};

}  // namespace kiln::cli
