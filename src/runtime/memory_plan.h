// Liveness-based memory planning: after a first run with a given input-shape signature has
// recorded every intermediate value's size, values whose lifetimes cannot overlap share
// memory in one arena. Lifetimes follow the dependency graph, not the topological order, so
// branches that run in parallel never share memory.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/compiled_graph.h"

namespace kiln {

struct MemoryPlan {
  size_t arena_bytes = 0;
  std::vector<size_t> offset;  // per slot; kNotPlanned for slots outside the arena
  std::vector<size_t> bytes;   // per slot: planned capacity
  static constexpr size_t kNotPlanned = static_cast<size_t>(-1);
};

// `bytes[slot]`: size seen in the recording run (0: not planned; e.g. strings, outputs,
// inputs, constants). `alias_of[slot]`: the slot whose memory this one shares (a view), or -1;
// a view keeps its source alive.
//
// Graphs of up to `exact_limit` nodes are planned exactly (every pair of values, largest
// first: quadratic). Larger ones are planned in linear time: values are placed in execution
// order, each into a block whose previous value is provably dead before it is produced, with
// reachability known exactly for the 1024 nodes before each node and for the longest prefix of
// the order that precedes it wholly; pairs it cannot prove sequential never share (safe, only
// less sharing). Tests lower exact_limit to exercise the linear planner on small graphs.
MemoryPlan plan_memory(const CompiledGraph& graph, const std::vector<size_t>& bytes,
                       const std::vector<int>& alias_of, size_t exact_limit = 8192);

}  // namespace kiln
