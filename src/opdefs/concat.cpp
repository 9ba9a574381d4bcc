#include "opdefs/concat.h"

#include "core/element_storage.h"
#include "opdefs/all_defs.h"
#include "opdefs/node_info.h"
#include "opdefs/node_inputs.h"
#include "opdefs/op_def.h"

namespace kiln {

std::optional<std::vector<Dim>> concatenated_dims(const InferenceContext& ctx, size_t first,
                                                  size_t step) {
  const std::vector<Dim>* in = ctx.shape(first);
  if (!in || in->empty()) return std::nullopt;
  const auto rank = static_cast<int64_t>(in->size());
  int64_t axis = ctx.info().attr_int("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  std::vector<Dim> out = *in;
  int64_t total = 0;
  for (size_t i = first; i < ctx.num_inputs(); i += step) {
    const std::vector<Dim>* s = ctx.shape(i);
    if (!s || static_cast<int64_t>(s->size()) != rank) return std::nullopt;
    const Dim& d = (*s)[static_cast<size_t>(axis)];
    total = d.is_fixed() && total >= 0 ? total + d.value : -1;
    for (size_t k = 0; k < s->size(); ++k) {
      if (static_cast<int64_t>(k) != axis && !out[k].is_fixed() && (*s)[k].is_fixed())
        out[k] = (*s)[k];
    }
  }
  out[static_cast<size_t>(axis)] = total >= 0 ? fixed_dim(total) : Dim{};
  return out;
}

namespace {

// Split's outputs: the input's type, its shape with the axis cut to each part. A part size is
// known when the sizes are (the 'split' values, or an axis of known length).
std::vector<ValueInfo> split_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const auto outputs = static_cast<int64_t>(ctx.node().outputs.size());
  const std::vector<Dim>* xs = ctx.shape(0);
  const SplitAttrs attrs = parse_split_attrs(ctx.info());
  std::optional<std::vector<int64_t>> split_values;
  if (attrs.split_from_input && ctx.info().has_input(1)) {
    split_values = ctx.constant_ints(1);
    if (!split_values) xs = nullptr;  // sizes known only at run time
  }
  std::vector<ValueInfo> result(static_cast<size_t>(outputs), dtype_only(x->dtype));
  if (!xs) return result;
  const auto rank = static_cast<int64_t>(xs->size());
  const int64_t a = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
  if (a < 0 || a >= rank || !(*xs)[static_cast<size_t>(a)].is_fixed()) return result;
  // Only the rank and the axis's length matter to the sizes.
  Shape stand_in;
  stand_in.resize(static_cast<size_t>(rank), 1);
  stand_in[a] = (*xs)[static_cast<size_t>(a)].value;
  const Shape split_input(split_values ? Shape(*split_values) : Shape());
  int64_t axis = 0;
  const Shape parts = resolve_split(attrs, stand_in, outputs, split_values ? &split_input : nullptr,
                                    ctx.node(), &axis);
  for (int64_t i = 0; i < outputs; ++i) {
    std::vector<Dim> dims = *xs;
    dims[static_cast<size_t>(axis)] = fixed_dim(parts[i]);
    result[static_cast<size_t>(i)] = tensor_type(x->dtype, dims);
  }
  return result;
}

}  // namespace

int64_t parse_concat_axis(const NodeInfo& info) {
  return info.opset() < 4 ? info.attr_int("axis", 1) : info.required_int("axis");
}

Shape concat_output_shape(size_t count, FunctionRef<const Shape&(size_t)> shape_of, int64_t axis,
                          FunctionRef<std::string()> where) {
  if (count == 0) throw Error(where() + ": needs at least one input");
  const Shape& first = shape_of(0);
  const auto rank = static_cast<int64_t>(first.size());
  if (rank == 0) throw Error(where() + ": cannot concatenate scalars");
  if (axis < -rank || axis >= rank) {
    throw Error(where() + ": axis " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
  }
  const int64_t a = axis < 0 ? axis + rank : axis;
  Shape out = first;
  out[a] = 0;
  for (size_t i = 0; i < count; ++i) {
    const Shape& s = shape_of(i);
    bool compatible = s.size() == first.size();
    for (int64_t d = 0; compatible && d < rank; ++d) compatible = d == a || s[d] == first[d];
    if (!compatible) {
      throw Error(where() + ": input " + std::to_string(i) + " has shape " + s.to_string() +
                  ", which does not match input 0's " + first.to_string() + " outside axis " +
                  std::to_string(a));
    }
    out[a] += s[a];
  }
  return out;
}

SplitAttrs parse_split_attrs(const NodeInfo& info) {
  SplitAttrs a;
  a.axis = info.attr_int("axis", 0);
  a.split_from_input = info.opset() >= 13 || (info.opset() < 2 && info.has_input(1));
  a.split_attr = Shape(info.attr_ints("split"));
  a.has_split_attr = !a.split_from_input && info.has_attr("split");
  a.has_num_outputs = info.opset() >= 18 && info.has_attr("num_outputs");
  if (a.has_num_outputs) {
    const int64_t num_outputs = info.attr_int("num_outputs", 0);
    if (info.has_input(1)) info.fail("'split' and 'num_outputs' cannot both be given");
    if (num_outputs < 1 || num_outputs != static_cast<int64_t>(info.num_outputs())) {
      info.fail("num_outputs is " + std::to_string(num_outputs) + " but the node has " +
                std::to_string(info.num_outputs()) + " outputs");
    }
  }
  return a;
}

Shape resolve_split(const SplitAttrs& attrs, const Shape& in, int64_t outputs,
                    const Shape* split_input, const ir::Node& node, int64_t* axis) {
  const auto rank = static_cast<int64_t>(in.size());
  if (rank == 0) fail_at(node, "cannot split a scalar");
  if (attrs.axis < -rank || attrs.axis >= rank) {
    fail_at(node, "axis " + std::to_string(attrs.axis) + " is out of range for rank " +
                      std::to_string(rank));
  }
  *axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
  const int64_t dim = in[*axis];
  if (outputs == 0) fail_at(node, "needs at least one output");
  Shape split;
  if (split_input) {
    split = *split_input;
  } else if (attrs.has_split_attr) {
    split = attrs.split_attr;
  } else if (attrs.has_num_outputs) {
    // Parts of ceil(dim / n), the last one smaller (ONNX Split-18).
    const int64_t part = (dim + outputs - 1) / outputs;
    split.resize(static_cast<size_t>(outputs), part);
    split.back() = dim - part * (outputs - 1);
    if (split.back() < 0) {
      fail_at(node, "cannot split a dimension of " + std::to_string(dim) + " into " +
                        std::to_string(outputs) + " parts of " + std::to_string(part));
    }
  } else {
    if (dim % outputs != 0) {
      fail_at(node, "cannot split a dimension of " + std::to_string(dim) + " into " +
                        std::to_string(outputs) + " equal parts");
    }
    split.resize(static_cast<size_t>(outputs), dim / outputs);
  }
  if (static_cast<int64_t>(split.size()) != outputs) {
    fail_at(node, "split " + split.to_string() + " has " + std::to_string(split.size()) +
                      " entries for " + std::to_string(outputs) + " outputs");
  }
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0) fail_at(node, "split " + split.to_string() + " has a negative size");
    total += s;
  }
  if (total != dim) {
    fail_at(node, "split " + split.to_string() + " sums to " + std::to_string(total) +
                      ", not to the size of axis " + std::to_string(*axis) + " (" +
                      std::to_string(dim) + ")");
  }
  return split;
}

KILN_OP_DEFS(concat_split);
void define_concat_split_ops(OpDefs& defs) {
  OpDef& split = defs.define("Split");
  split.infer = split_rule;
  split.shape_inputs = {{13, {1}}};
}

Shape resolve_split_from_host(const SplitAttrs& attrs, const Shape& in, int64_t outputs,
                              const Tensor* split_input, const ir::Node& node, int64_t* axis) {
  Shape sizes;
  const bool given = attrs.split_from_input && split_input;
  if (given) read_int_list(*split_input, sizes, "Split split");
  return resolve_split(attrs, in, outputs, given ? &sizes : nullptr, node, axis);
}

}  // namespace kiln
