// OpContext — what a CPU kernel sees while it runs: its inputs (ready host tensors) and a way
// to create its outputs in memory the runtime planned for them.
#pragma once

#include <cstdint>
#include <span>

#include "kiln/tensor.h"

namespace kiln {

namespace ir {
struct Node;
}

class OutputAllocator {
 public:
  virtual ~OutputAllocator() = default;
  // A tensor for output `index` of the running node, uninitialised, from planned memory when the
  // plan has room for it.
  virtual Tensor allocate(size_t index, DataType dtype, const Shape& shape) = 0;
  // Output `index` as a view of `source`'s data with another shape of the same size.
  virtual Tensor view(size_t index, const Tensor& source, const Shape& shape) = 0;
};

// For OpContexts that only validate and report errors (a GPU backend resolving a node's shapes
// with the CPU op's code): allocating through it is a bug.
class NoOutputAllocator final : public OutputAllocator {
 public:
  Tensor allocate(size_t, DataType, const Shape&) override;
  Tensor view(size_t, const Tensor&, const Shape&) override;
};

class OpContext {
 public:
  OpContext(const ir::Node& node, int opset, std::span<const Tensor> inputs,
            std::span<Tensor> outputs, OutputAllocator& allocator)
      : node_(node), opset_(opset), inputs_(inputs), outputs_(outputs), allocator_(allocator) {}

  const ir::Node& node() const { return node_; }
  int opset() const { return opset_; }

  size_t num_inputs() const { return inputs_.size(); }
  std::span<const Tensor> inputs() const { return inputs_; }
  // An absent optional input (empty name, or beyond the node's input list) is an empty Tensor.
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i].defined(); }
  const Tensor& input(size_t i) const;
  // Whether the kernel may write into input i's memory and hand it over as an output
  // (set_output): the caller donated it (InputUse::Donate) and this node is its only reader.
  bool may_overwrite_input(size_t i) const { return i < 64 && (overwritable_ >> i & 1); }
  void allow_overwriting(uint64_t inputs_mask) { overwritable_ = inputs_mask; }

  size_t num_outputs() const { return outputs_.size(); }
  // False for an optional output the graph does not use (empty name): skip computing it.
  bool wants_output(size_t i) const;
  // Creates output i (contents uninitialised; String elements are empty strings).
  Tensor& allocate_output(size_t i, DataType dtype, const Shape& shape);
  // Makes output i an existing tensor (e.g. a view sharing an input's storage). The runtime
  // never writes into a tensor handed over this way.
  void set_output(size_t i, Tensor tensor);
  // Makes output i a view of `source` with `shape` (same element count), sharing its memory:
  // Reshape, Flatten, Squeeze and friends copy nothing. Allocation-free in steady state.
  void set_output_view(size_t i, const Tensor& source, const Shape& shape);
  Tensor& output(size_t i) { return outputs_[i]; }

  [[noreturn]] void fail(const std::string& message) const;  // kiln::Error naming the node

 private:
  const ir::Node& node_;
  int opset_;
  std::span<const Tensor> inputs_;
  std::span<Tensor> outputs_;
  OutputAllocator& allocator_;
  uint64_t overwritable_ = 0;  // bit i: may_overwrite_input(i)
};

}  // namespace kiln
