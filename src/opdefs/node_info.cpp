#include "opdefs/node_info.h"

namespace kiln {

std::map<std::string, int> NodeInfo::model_opsets() const {
  if (model_opsets_) return *model_opsets_;
  return {{ir::canonical_domain(node_.domain), opset_}};
}

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

}  // namespace kiln
