#include "ops/op_registry.h"

#include "ops/all_ops.h"

namespace kiln {

std::map<std::string, int> NodeInfo::model_opsets() const {
  if (model_opsets_) return *model_opsets_;
  return {{ir::canonical_domain(node_.domain), opset_}};
}

// ---- NodeInfo -------------------------------------------------------------------------------

void NodeInfo::fail(const std::string& message) const { throw Error(describe() + ": " + message); }

const ir::Attribute* NodeInfo::typed_attr(const std::string& name, ir::Attribute::Type type) const {
  const ir::Attribute* a = node_.find_attribute(name);
  if (a && a->type != type) {
    fail("attribute '" + name + "' must be of type " + attribute_type_name(type) + ", not " +
         attribute_type_name(a->type));
  }
  return a;
}

int64_t NodeInfo::attr_int(const std::string& name, int64_t default_value) const {
  const auto* a = typed_attr(name, ir::Attribute::Type::Int);
  return a ? a->i : default_value;
}

float NodeInfo::attr_float(const std::string& name, float default_value) const {
  const auto* a = typed_attr(name, ir::Attribute::Type::Float);
  return a ? a->f : default_value;
}

std::string NodeInfo::attr_string(const std::string& name, const std::string& default_value) const {
  const auto* a = typed_attr(name, ir::Attribute::Type::String);
  return a ? a->s : default_value;
}

std::vector<int64_t> NodeInfo::attr_ints(const std::string& name,
                                         std::vector<int64_t> default_value) const {
  const auto* a = typed_attr(name, ir::Attribute::Type::Ints);
  return a ? a->ints : std::move(default_value);
}

std::vector<float> NodeInfo::attr_floats(const std::string& name,
                                         std::vector<float> default_value) const {
  const auto* a = typed_attr(name, ir::Attribute::Type::Floats);
  return a ? a->floats : std::move(default_value);
}

std::vector<std::string> NodeInfo::attr_strings(const std::string& name,
                                                std::vector<std::string> default_value) const {
  const auto* a = typed_attr(name, ir::Attribute::Type::Strings);
  return a ? a->strings : std::move(default_value);
}

std::optional<Tensor> NodeInfo::attr_tensor(const std::string& name) const {
  const auto* a = typed_attr(name, ir::Attribute::Type::Tensor);
  if (!a) return std::nullopt;
  return a->t;
}

int64_t NodeInfo::required_int(const std::string& name) const {
  if (!has_attr(name)) fail("required attribute '" + name + "' is missing");
  return attr_int(name, 0);
}

std::vector<int64_t> NodeInfo::required_ints(const std::string& name) const {
  if (!has_attr(name)) fail("required attribute '" + name + "' is missing");
  return attr_ints(name);
}

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

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    register_all_ops(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::add(const std::string& domain, const std::string& op_type, KernelFactory factory) {
  const std::string d = ir::canonical_domain(domain);
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
