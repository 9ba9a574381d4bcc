#include "kernels/op_registry.h"

namespace kiln {

// ---- OpContext ------------------------------------------------------------------------------

const Tensor& OpContext::input(size_t i) const {
  if (!has_input(i)) fail("required input " + std::to_string(i) + " is missing");
  return inputs_[i];
}

bool OpContext::wants_output(size_t i) const {
  return i < node_.outputs.size() && !node_.outputs[i].empty();
}

Tensor NoOutputAllocator::allocate(size_t, DataType, const Shape&) {
  throw Error("internal error: an output was allocated while only resolving shapes");
}
Tensor NoOutputAllocator::view(size_t, const Tensor&, const Shape&) {
  throw Error("internal error: an output was allocated while only resolving shapes");
}

Tensor& OpContext::allocate_output(size_t i, DataType dtype, const Shape& shape) {
  if (i >= outputs_.size()) fail("output " + std::to_string(i) + " does not exist");
  outputs_[i] = allocator_.allocate(i, dtype, shape);
  return outputs_[i];
}

void OpContext::set_output(size_t i, Tensor tensor) {
  if (i >= outputs_.size()) fail("output " + std::to_string(i) + " does not exist");
  outputs_[i] = std::move(tensor);
}

void OpContext::set_output_view(size_t i, const Tensor& source, const Shape& shape) {
  if (i >= outputs_.size()) fail("output " + std::to_string(i) + " does not exist");
  if (shape.element_count() != source.element_count()) {
    fail("cannot view " + source.shape().to_string() + " as " + shape.to_string());
  }
  outputs_[i] = allocator_.view(i, source, shape);
}

void OpContext::fail(const std::string& message) const {
  throw Error(node_.describe() + ": " + message);
}

// ---- OpRegistry -----------------------------------------------------------------------------

void OpRegistry::add(const std::string& domain, const std::string& op_type, KernelFactory factory) {
  const std::string d = ir::canonical_domain(domain);
  families_.claim("CPU kernels", d.empty() ? op_type : d + "::" + op_type);
  ops_[{d, op_type}] = OpSchema{d, op_type, std::move(factory)};
}

const OpSchema* OpRegistry::find(const std::string& domain, const std::string& op_type) const {
  auto it = ops_.find({ir::canonical_domain(domain), op_type});
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::op_names() const {
  std::vector<std::string> names;
  for (const auto& [key, schema] : ops_) {
    names.push_back(key.first.empty() ? key.second : key.first + "::" + key.second);
  }
  return names;
}

}  // namespace kiln
