// kiln::Model — a loaded, optimized ONNX model, shared by any number of workers.
//
//   kiln::Model model = kiln::load_model("mobilenet.onnx");
//   for (const kiln::ValueInfo& in : model.inputs())
//     std::cout << in.name << " " << in.to_string() << "\n";   // "input float32[batch, 3, 224,
//     224]"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/dtype.h"
#include "kiln/export.h"

namespace kiln {

namespace ir {
struct Model;
}

// One dimension of a declared shape: a fixed size, a named symbol ("batch"), or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when fixed
  std::string symbol;  // set when symbolic
  bool is_fixed() const { return value >= 0; }
  std::string to_string() const {
    return is_fixed() ? std::to_string(value) : (symbol.empty() ? "?" : symbol);
  }
  friend bool operator==(const Dim&, const Dim&) = default;
};

// The declared type of a graph input or output.
struct KILN_API ValueInfo {
  enum class Kind { Tensor, Sequence, Optional, Map, Unknown };
  std::string name;
  Kind kind = Kind::Tensor;
  Kind element_kind = Kind::Tensor;  // of an Optional: a tensor or a sequence
  DataType dtype =
      DataType::Undefined;  // element type (of the tensors inside, for Sequence/Optional)
  std::vector<Dim> shape;   // empty and !has_shape: rank unknown
  bool has_shape = false;
  std::string to_string() const;  // "float32[batch, 3, 224, 224]"
};

struct LoadOptions {
  bool optimize = true;  // run the load-time passes (constant folding, no-op removal, fusions)
  // Intermediate values to add to the model's outputs (after its own), so a worker hands them
  // out like any output: by name, or {"*"} for every value a node produces, in graph order.
  // They are values of the optimized graph: load with optimize = false to see every value the
  // file names. A name the graph lacks is a kiln::Error.
  //   kiln::load_model("m.onnx", {.extra_outputs = {"conv1_out"}});
  std::vector<std::string> extra_outputs;
  // The most host memory the load may hold at once, in bytes (weights, folded constants): a
  // tensor that would go past it is a kiln::Error naming it and the bytes asked, raised before
  // anything is allocated. 0: three quarters of the machine's physical memory (or of the
  // process's control-group limit when lower). Weights a .kiln file maps are not counted.
  uint64_t memory_limit = 0;
};

class KILN_API Model {
 public:
  const std::vector<ValueInfo>& inputs() const;
  const std::vector<ValueInfo>& outputs() const;
  int64_t ir_version() const;
  int opset(const std::string& domain = "") const;  // 0 if the domain is not imported
  const std::string& producer() const;
  size_t node_count() const;

  // Internal.
  explicit Model(std::shared_ptr<const ir::Model> ir) : ir_(std::move(ir)) {}
  const std::shared_ptr<const ir::Model>& ir() const { return ir_; }

 private:
  std::shared_ptr<const ir::Model> ir_;
};

// Loads an ONNX model file (external data is read relative to the file's folder) or a .kiln
// file that save_model wrote (told apart by the file's first bytes, not its name). A .kiln
// file is already optimized: options.optimize does not apply, and its weights are used in
// place from a memory mapping of the file. Throws kiln::Error naming the file, node and op for
// anything it cannot load, and for a truncated or damaged .kiln file.
KILN_API Model load_model(const std::string& path, const LoadOptions& options = {});
// Loads a model (ONNX or .kiln) from memory; `base_dir` is where external data files are looked
// up. The bytes are not kept: the caller may free them afterwards.
KILN_API Model load_model_from_bytes(const void* data, size_t size,
                                     const std::string& base_dir = ".",
                                     const LoadOptions& options = {});

// Saves `model` as a .kiln file: its graph after the load-time passes, with the weights laid
// out for mapping, so a later load_model skips parsing and optimizing. The format is versioned;
// a kiln that reads another version says so.
KILN_API void save_model(const Model& model, const std::string& path);

}  // namespace kiln
