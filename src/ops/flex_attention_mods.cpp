#include "ops/flex_attention_mods.h"

#include <cstring>
#include <set>
#include <vector>

#include "ops/attention_common.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

// Ops whose output at each position depends only on the inputs at that (broadcast) position.
bool is_elementwise(const ir::Node& node) {
  static const std::set<std::string> ops = {
      "Abs",      "Add",      "And",   "Cast",    "Ceil",
      "Clip",     "Constant", "Cos",   "Div",     "Equal",
      "Erf",      "Exp",      "Floor", "Greater", "GreaterOrEqual",
      "Identity", "IsInf",    "IsNaN", "Less",    "LessOrEqual",
      "Log",      "Max",      "Min",   "Mod",     "Mul",
      "Neg",      "Not",      "Or",    "Pow",     "Reciprocal",
      "Relu",     "Sigmoid",  "Sign",  "Sin",     "Softplus",
      "Sqrt",     "Sub",      "Tanh",  "Where",   "Xor"};
  if (!node.domain.empty() || !ops.count(node.op_type)) return false;
  for (const ir::Attribute& a : node.attributes) {
    if (a.type == ir::Attribute::Type::Graph || a.type == ir::Attribute::Type::Graphs) return false;
  }
  return true;
}

Tensor index_tensor(int64_t count, size_t axis) {
  Shape shape{1, 1, 1, 1};
  shape[axis] = count;
  std::vector<int64_t> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = i;
  return Tensor::from_data<int64_t>(shape, values);
}

// ctx.fail unless a modifier's result has the element type its kind returns.
void check_result_type(const Tensor& result, const OpContext& ctx, FlexModifier::Kind kind,
                       const std::string& name, DataType value_type) {
  if (kind == FlexModifier::Kind::Mask) {
    if (result.dtype() != DataType::Bool) ctx.fail(name + " must return a bool");
  } else if (result.dtype() != value_type) {
    ctx.fail(name + " must return " + std::string(dtype_name(value_type)) + ", got " +
             std::string(dtype_name(result.dtype())));
  }
}

}  // namespace

FlexModifier::FlexModifier(const ir::Graph& graph, const NodeInfo& info, Kind kind)
    : subgraph_(graph, info),
      kind_(kind),
      name_(kind == Kind::Score  ? "score_mod"
            : kind == Kind::Mask ? "mask_mod"
                                 : "prob_mod") {
  const size_t inputs = kind == Kind::Mask ? 4 : 5;
  whole_tensor_ = subgraph_.num_inputs() == 1;
  if ((subgraph_.num_inputs() != inputs && !whole_tensor_) || subgraph_.num_outputs() != 1) {
    info.fail(name_ + " must take " + std::to_string(inputs) +
              " scalar inputs (or the whole score tensor) and return one output");
  }
  elementwise_ = true;
  for (const ir::Node& node : graph.nodes) elementwise_ = elementwise_ && is_elementwise(node);
}

void FlexModifier::apply(const OpContext& ctx, size_t own_inputs, const FlexDims& dims,
                         DataType value_type, float mask_value, float* values) const {
  if (dims.count() == 0) return;
  if (whole_tensor_) {
    apply_whole_tensor(ctx, own_inputs, dims, value_type, values);
  } else if (elementwise_) {
    apply_broadcast(ctx, own_inputs, dims, value_type, mask_value, values);
  } else {
    apply_per_position(ctx, own_inputs, dims, value_type, mask_value, values);
  }
}

void FlexModifier::store(const Tensor& result, const OpContext& ctx, DataType value_type,
                         float mask_value, int64_t offset, int64_t count, float* values) const {
  check_result_type(result, ctx, kind_, name_, value_type);
  if (result.element_count() != count) {
    ctx.fail(name_ + " returned " + std::to_string(result.element_count()) + " values, expected " +
             std::to_string(count));
  }
  if (kind_ == Kind::Mask) {
    const bool* keep = result.data<bool>();
    for (int64_t i = 0; i < count; ++i) {
      if (!keep[i]) values[offset + i] = mask_value;
    }
  } else {
    attn::copy_to_float(result, values + offset);
  }
}

void FlexModifier::apply_whole_tensor(const OpContext& ctx, size_t own_inputs, const FlexDims& dims,
                                      DataType value_type, float* values) const {
  const Shape shape{dims.batch, dims.heads, dims.q_len, dims.kv_len};
  Tensor value = Tensor::zeros(value_type, shape);
  attn::store_from_float(values, value, dims.count());
  Subgraph::Run run(subgraph_, enclosing_values(ctx, own_inputs));
  const std::vector<Tensor> inputs = {std::move(value)};
  const Tensor result = run(inputs)[0];
  if (result.shape() != shape || result.dtype() != value_type) {
    ctx.fail(name_ + " returned " + result.to_string(0) + " for scores of shape " +
             shape.to_string());
  }
  attn::copy_to_float(result, values);
}

void FlexModifier::apply_broadcast(const OpContext& ctx, size_t own_inputs, const FlexDims& dims,
                                   DataType value_type, float mask_value, float* values) const {
  const Shape shape{dims.batch, dims.heads, dims.q_len, dims.kv_len};
  std::vector<Tensor> inputs;
  if (kind_ != Kind::Mask) {
    Tensor value = Tensor::zeros(value_type, shape);
    attn::store_from_float(values, value, dims.count());
    inputs.push_back(std::move(value));
  }
  inputs.push_back(index_tensor(dims.batch, 0));
  inputs.push_back(index_tensor(dims.heads, 1));
  inputs.push_back(index_tensor(dims.q_len, 2));
  inputs.push_back(index_tensor(dims.kv_len, 3));
  Subgraph::Run run(subgraph_, enclosing_values(ctx, own_inputs));
  Tensor result = run(inputs)[0];
  // Checked before broadcasting, which copies raw bytes: those of strings would be garbage.
  check_result_type(result, ctx, kind_, name_, value_type);
  if (result.shape() != shape) {
    // A result that depends on fewer indices (a causal mask of q and k only) is broadcast.
    if (result.rank() > 4) ctx.fail(name_ + " returned rank " + std::to_string(result.rank()));
    const Shape strides = broadcast_strides(result.shape(), shape);
    for (size_t axis = 0; axis < result.rank(); ++axis) {
      const int64_t d = result.shape()[axis];
      if (d != 1 && d != shape[axis + 4 - result.rank()])
        ctx.fail(name_ + " returned shape " + result.shape().to_string() + " for positions " +
                 shape.to_string());
    }
    Tensor full = Tensor::zeros(result.dtype(), shape);
    const size_t width = dtype_size(result.dtype());
    const auto* src = static_cast<const uint8_t*>(result.raw_data());
    auto* dst = static_cast<uint8_t*>(full.mutable_raw_data());
    for_each_broadcast(shape, strides, strides, [&](int64_t out, int64_t in, int64_t) {
      std::memcpy(dst + out * width, src + in * width, width);
    });
    result = std::move(full);
  }
  store(result, ctx, value_type, mask_value, 0, dims.count(), values);
}

void FlexModifier::apply_per_position(const OpContext& ctx, size_t own_inputs, const FlexDims& dims,
                                      DataType value_type, float mask_value, float* values) const {
  Subgraph::Run run(subgraph_, enclosing_values(ctx, own_inputs));
  std::vector<Tensor> inputs;
  int64_t position = 0;
  for (int64_t b = 0; b < dims.batch; ++b) {
    for (int64_t h = 0; h < dims.heads; ++h) {
      for (int64_t q = 0; q < dims.q_len; ++q) {
        for (int64_t k = 0; k < dims.kv_len; ++k, ++position) {
          // Fresh scalars each time: the previous result may be a view of an input.
          inputs.clear();
          if (kind_ != Kind::Mask) {
            inputs.push_back(Tensor::zeros(value_type, Shape{}));
            attn::store_from_float(values + position, inputs[0], 1);
          }
          for (int64_t index : {b, h, q, k}) inputs.push_back(Tensor::scalar(index));
          store(run(inputs)[0], ctx, value_type, mask_value, position, 1, values);
        }
      }
    }
  }
}

}  // namespace kiln
