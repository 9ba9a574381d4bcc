// Intermediate values on disk, for finding the layer where two runs part ways (a GPU backend
// against the CPU, kiln against another engine).
//
//   kiln::Model m = kiln::load_model("m.onnx", {.extra_outputs = {"*"}});   // every value
//   kiln::Worker gpu(m, kiln::Backend::GpuCompute), cpu(m);
//   gpu.schedule(x); kiln::dump_values(gpu, "dump-gpu");
//   cpu.schedule(x); kiln::dump_values(cpu, "dump-cpu");
//   kiln::DumpDifference d = kiln::diff_value_dumps("dump-gpu", "dump-cpu");
//   if (d.found) std::cout << d.value.node_name << ": " << d.reason << "\n";
//
// `kiln run --dump-values DIR` and `kiln diff DIR_A DIR_B` do the same from the command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/export.h"
#include "kiln/worker.h"

namespace kiln {

struct DumpedValue {
  size_t order = 0;       // the producing node's position in the optimized graph
  std::string node_name;  // "" for a graph input or an initializer
  std::string op_type;
  size_t output_index = 0;  // which output of the node
  std::string value_name;
  std::string file;  // relative to the dump folder; empty when not written (a sequence)
  std::string type;  // "float32[1, 64, 56, 56]"
};

// Writes every output of the worker's latest run (so, with LoadOptions::extra_outputs {"*"},
// every value a node produces) into `dir` (created if missing) as .npy files named after the
// node that made them, "0007-Conv-conv1.0.npy" (graph position, op, node, output), and an
// index.tsv mapping each file to its node and value. Waits for the run; a failed layer's
// kiln::Error surfaces here. Sequences and optionals are listed but not written.
KILN_API std::vector<DumpedValue> dump_values(const Worker& worker, const std::string& dir);

// The dump folder's index.tsv, in graph order.
KILN_API std::vector<DumpedValue> read_value_dump_index(const std::string& dir);

struct DumpDifference {
  bool found = false;  // a value differs
  DumpedValue value;   // the first such value in graph order (as dump `actual_dir` lists it)
  std::string reason;  // "element 12: 0.53 vs 0.51" or "shape [1, 8] vs [1, 9]"
  size_t compared = 0;  // values compared before stopping
  size_t unmatched = 0;  // values of `actual_dir` that `expected_dir` does not have
};

// Walks `actual_dir`'s values in graph order and returns the first that is not close to the
// value of the same name in `expected_dir`: |a - e| <= atol + rtol * |e| for every element (NaN
// matches NaN), same dtype and shape. kiln::Error for a folder without an index.
KILN_API DumpDifference diff_value_dumps(const std::string& actual_dir,
                                         const std::string& expected_dir, double rtol = 1e-3,
                                         double atol = 1e-4);

}  // namespace kiln
