#include "opdefs/op_def.h"

#include "opdefs/all_defs.h"

namespace kiln {

const std::vector<Dim>* InferenceContext::shape(size_t i) const {
  const ValueInfo* v = input(i);
  return v && v->kind == ValueInfo::Kind::Tensor && v->has_shape ? &v->shape : nullptr;
}

std::optional<std::vector<int64_t>> InferenceContext::constant_ints(size_t i) const {
  const Tensor* t = info_.constant_input(i);
  if (!t || (t->dtype() != DataType::Int64 && t->dtype() != DataType::Int32)) return std::nullopt;
  std::vector<int64_t> v;
  v.reserve(static_cast<size_t>(t->element_count()));
  for (int64_t k = 0; k < t->element_count(); ++k) {
    v.push_back(t->dtype() == DataType::Int64 ? t->data<int64_t>()[k] : t->data<int32_t>()[k]);
  }
  return v;
}

const std::vector<size_t>& OpDef::shape_deciding_inputs(int opset) const {
  static const std::vector<size_t> none;
  const std::vector<size_t>* found = &none;
  for (const ShapeInputs& rule : shape_inputs) {
    if (opset >= rule.since_opset) found = &rule.inputs;
  }
  return *found;
}

const OpDefs& OpDefs::global() {
  static const OpDefs* defs = [] {
    auto* d = new OpDefs();
    define_all_ops(*d);
    return d;
  }();
  return *defs;
}

OpDef& OpDefs::define(const std::string& domain, const std::string& op_type) {
  const std::string d = ir::canonical_domain(domain);
  families_.claim("op definitions", d.empty() ? op_type : d + "::" + op_type, /*may_repeat=*/true);
  OpDef& def = defs_[{d, op_type}];
  def.domain = d;
  def.op_type = op_type;
  return def;
}

const OpDef* OpDefs::find(const std::string& domain, const std::string& op_type) const {
  auto it = defs_.find({ir::canonical_domain(domain), op_type});
  return it == defs_.end() ? nullptr : &it->second;
}

ValueInfo tensor_type(DataType dtype, std::vector<Dim> dims) {
  ValueInfo v;
  v.dtype = dtype;
  v.has_shape = true;
  v.shape = std::move(dims);
  return v;
}

ValueInfo dtype_only(DataType dtype) {
  ValueInfo v;
  v.dtype = dtype;
  return v;
}

Dim broadcast_dim(const Dim& a, const Dim& b) {
  if (a.is_fixed() && a.value == 1) return b;
  if (b.is_fixed() && b.value == 1) return a;
  if (a == b) return a;
  if (a.is_fixed() && !b.is_fixed()) return a;  // b must be a (or 1, which broadcasts)
  if (b.is_fixed() && !a.is_fixed()) return b;
  return Dim{};
}

std::optional<std::vector<Dim>> broadcast_shapes(const InferenceContext& ctx, size_t first) {
  std::vector<Dim> out;
  for (size_t i = first; i < ctx.num_inputs(); ++i) {
    if (!ctx.node().inputs[i].empty() && !ctx.input(i)) return std::nullopt;
    const std::vector<Dim>* s = ctx.shape(i);
    if (!ctx.input(i)) continue;  // absent optional input
    if (!s) return std::nullopt;
    if (s->size() > out.size()) out.insert(out.begin(), s->size() - out.size(), fixed_dim(1));
    const size_t off = out.size() - s->size();
    for (size_t d = 0; d < s->size(); ++d) out[off + d] = broadcast_dim(out[off + d], (*s)[d]);
  }
  return out;
}

std::vector<ValueInfo> same_as_input0(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  return x ? std::vector<ValueInfo>{*x} : std::vector<ValueInfo>{};
}

}  // namespace kiln
