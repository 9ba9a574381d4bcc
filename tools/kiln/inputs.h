// Input handling shared by `kiln run` and `kiln bench`: tensors from an ONNX test folder
// (--inputs-dir), from single files (--input NAME=FILE), or random values of the declared
// shape for benchmarking.
#pragma once

#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "options.h"

namespace kiln::cli {

// The model's inputs bound to tensors, in the model's input order.
class InputSet {
 public:
  // The views point at the model's input names, so the model must outlive them.
  std::vector<NamedTensor> named() const;
  void add(const std::string& name_in_model, Tensor tensor);
  const std::vector<std::pair<const std::string*, Tensor>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<const std::string*, Tensor>> entries_;
};

// Reads --inputs-dir DIR (input_N.pb or input_N.npy for the model's N-th input) and
// --input NAME=FILE (.pb or .npy; overrides the folder). Inputs still missing get random values
// when `random_fallback` is set (symbolic dimensions from --dim NAME=VALUE, otherwise 1);
// without it, a missing input is a kiln::Error listing the model's inputs.
InputSet load_inputs(const Model& model, const InputFlags& flags, bool random_fallback);

// A tensor of `info`'s dtype and shape with arbitrary but valid contents: floats uniform in
// [0, 1), integers 0..3 (small enough to be safe as indices or counts), bools false.
Tensor random_tensor(const ValueInfo& info,
                     const std::vector<std::pair<std::string, int64_t>>& dims);

// "  'pixels' float32[batch, 1, 8, 8]" lines, one per model input.
std::string describe_inputs(const Model& model);

}  // namespace kiln::cli
