// Control flow and sequences: a branch condition, a trip count and split lengths are read on
// the host. If, Loop and Scan take their output types from their subgraphs' outputs (which
// shape inference types first), merged with the inputs they start from.
#include "opdefs/control_flow.h"

#include <string>

#include "opdefs/all_defs.h"
#include "opdefs/broadcast.h"
#include "opdefs/node_info.h"
#include "opdefs/op_def.h"

namespace kiln {

namespace {

std::vector<int64_t> per_scan_value(const NodeInfo& info, const char* name, size_t count,
                                    int64_t default_value) {
  std::vector<int64_t> v = info.attr_ints(name, std::vector<int64_t>(count, default_value));
  if (v.size() != count)
    info.fail(std::string("attribute '") + name + "' needs " + std::to_string(count) + " values");
  return v;
}

}  // namespace

ScanLayout parse_scan_layout(const NodeInfo& info, size_t body_inputs, size_t body_outputs) {
  ScanLayout layout;
  layout.batched = info.opset() < 9;
  layout.first_value = layout.batched ? 1 : 0;
  layout.scan_inputs = static_cast<size_t>(info.required_int("num_scan_inputs"));
  const size_t values = info.num_inputs() - layout.first_value;
  if (layout.scan_inputs == 0 || layout.scan_inputs > values)
    info.fail("num_scan_inputs must be between 1 and the number of inputs");
  layout.states = values - layout.scan_inputs;
  if (body_inputs != values) info.fail("the body must take " + std::to_string(values) + " inputs");
  if (body_outputs < layout.states) info.fail("the body returns too few outputs");
  layout.scan_outputs = body_outputs - layout.states;
  const bool batched = layout.batched;
  layout.input_reversed =
      per_scan_value(info, batched ? "directions" : "scan_input_directions", layout.scan_inputs, 0);
  layout.input_axes = batched ? std::vector<int64_t>(layout.scan_inputs, 0)
                              : per_scan_value(info, "scan_input_axes", layout.scan_inputs, 0);
  layout.output_axes = batched ? std::vector<int64_t>(layout.scan_outputs, 0)
                               : per_scan_value(info, "scan_output_axes", layout.scan_outputs, 0);
  layout.output_reversed =
      batched ? std::vector<int64_t>(layout.scan_outputs, 0)
              : per_scan_value(info, "scan_output_directions", layout.scan_outputs, 0);
  return layout;
}

namespace {

const ir::Graph* graph_attr(const InferenceContext& ctx, const char* name) {
  const ir::Attribute* a = ctx.node().find_attribute(name);
  return a && a->g ? a->g.get() : nullptr;
}

// What two values that may each be the output have in common: the dtype when they agree, and
// each dim both have.
std::optional<ValueInfo> merge(const ValueInfo& a, const ValueInfo& b) {
  if (a.kind != b.kind || a.kind == ValueInfo::Kind::Unknown) return std::nullopt;
  if (a.kind != ValueInfo::Kind::Tensor) {
    if (a.dtype != b.dtype || a.element_kind != b.element_kind) return std::nullopt;
    ValueInfo v = a;
    v.has_shape = a.has_shape && b.has_shape && a.shape == b.shape;
    if (!v.has_shape) v.shape.clear();
    return v;
  }
  if (a.dtype != b.dtype || a.dtype == DataType::Undefined) return std::nullopt;
  if (!a.has_shape || !b.has_shape || a.shape.size() != b.shape.size()) return dtype_only(a.dtype);
  std::vector<Dim> dims;
  for (size_t d = 0; d < a.shape.size(); ++d)
    dims.push_back(a.shape[d] == b.shape[d] ? a.shape[d] : Dim{});
  return tensor_type(a.dtype, dims);
}

// An output no rule knows: left unknown.
ValueInfo unknown() { return ValueInfo{}; }

std::vector<ValueInfo> if_rule(const InferenceContext& ctx) {
  const ir::Graph* then_branch = graph_attr(ctx, "then_branch");
  const ir::Graph* else_branch = graph_attr(ctx, "else_branch");
  if (!then_branch || !else_branch) return {};
  std::vector<ValueInfo> out;
  for (size_t i = 0; i < ctx.node().outputs.size(); ++i) {
    if (i >= then_branch->outputs.size() || i >= else_branch->outputs.size()) break;
    const std::optional<ValueInfo> v = merge(then_branch->outputs[i], else_branch->outputs[i]);
    out.push_back(v ? *v : unknown());
  }
  return out;
}

// A scan output: the body's per-iteration value stacked along `axis` into `length` entries.
ValueInfo stacked(const ValueInfo& slice, int64_t axis, const Dim& length) {
  if (slice.kind != ValueInfo::Kind::Tensor || slice.dtype == DataType::Undefined) return unknown();
  if (!slice.has_shape) return dtype_only(slice.dtype);
  std::vector<Dim> dims = slice.shape;
  const int64_t rank = static_cast<int64_t>(dims.size()) + 1;
  if (axis < -rank || axis >= rank) return dtype_only(slice.dtype);
  if (axis < 0) axis += rank;
  dims.insert(dims.begin() + axis, length);
  return tensor_type(slice.dtype, dims);
}

// Loop (M, cond, v_initial...) -> (v_final..., scan_outputs...): a carried value is its initial
// value or the body's; a scan output stacks one body output per iteration, however many run.
std::vector<ValueInfo> loop_rule(const InferenceContext& ctx) {
  const ir::Graph* body = graph_attr(ctx, "body");
  if (!body || ctx.num_inputs() < 2) return {};
  const size_t carried = ctx.num_inputs() - 2;
  if (body->outputs.size() < carried + 1) return {};
  std::vector<ValueInfo> out;
  for (size_t i = 0; i < carried; ++i) {
    const ValueInfo* initial = ctx.input(2 + i);
    const std::optional<ValueInfo> v =
        initial ? merge(*initial, body->outputs[1 + i]) : std::nullopt;
    out.push_back(v ? *v : unknown());
  }
  for (size_t k = carried + 1; k < body->outputs.size(); ++k) {
    out.push_back(stacked(body->outputs[k], 0, Dim{}));
  }
  return out;
}

// Scan (state..., scan_input...) -> (state..., scan_output...): the scan outputs have as many
// entries as the scan inputs along their scan axis.
std::vector<ValueInfo> scan_rule(const InferenceContext& ctx) {
  const ir::Graph* body = graph_attr(ctx, "body");
  if (!body) return {};
  const ScanLayout layout =
      parse_scan_layout(ctx.info(), body->inputs.size(), body->outputs.size());
  if (layout.batched) return {};
  Dim length;
  if (const std::vector<Dim>* first = ctx.shape(layout.states)) {
    const int64_t rank = static_cast<int64_t>(first->size());
    const int64_t axis = layout.input_axes[0];
    if (axis >= -rank && axis < rank)
      length = (*first)[static_cast<size_t>(axis < 0 ? axis + rank : axis)];
  }
  std::vector<ValueInfo> out;
  for (size_t i = 0; i < layout.states; ++i) {
    const ValueInfo* initial = ctx.input(i);
    const std::optional<ValueInfo> v = initial ? merge(*initial, body->outputs[i]) : std::nullopt;
    out.push_back(v ? *v : unknown());
  }
  for (size_t k = 0; k < layout.scan_outputs; ++k) {
    out.push_back(stacked(body->outputs[layout.states + k], layout.output_axes[k], length));
  }
  return out;
}

ValueInfo sequence_of(DataType dtype) {
  ValueInfo v;
  v.kind = ValueInfo::Kind::Sequence;
  v.dtype = dtype;
  return v;
}

// The element type of input 0, a sequence; Undefined when unknown.
DataType element_type(const InferenceContext& ctx) {
  const ValueInfo* s = ctx.input(0);
  return s && s->kind == ValueInfo::Kind::Sequence ? s->dtype : DataType::Undefined;
}

// SequenceConstruct, SplitToSequence: a sequence of input 0's type.
std::vector<ValueInfo> sequence_of_input_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x || x->kind != ValueInfo::Kind::Tensor) return {};
  return {sequence_of(x->dtype)};
}

std::vector<ValueInfo> sequence_empty_rule(const InferenceContext& ctx) {
  const int64_t code = ctx.info().attr_int("dtype", static_cast<int64_t>(DataType::Float32));
  if (code <= 0 || code > INT32_MAX || !is_valid_dtype(static_cast<int32_t>(code))) return {};
  return {sequence_of(static_cast<DataType>(code))};
}

// SequenceInsert, SequenceErase: the input sequence's type.
std::vector<ValueInfo> same_sequence_rule(const InferenceContext& ctx) {
  const DataType t = element_type(ctx);
  if (t == DataType::Undefined) return {};
  return {sequence_of(t)};
}

// SequenceAt, ConcatFromSequence: a tensor of the sequence's element type.
std::vector<ValueInfo> sequence_element_rule(const InferenceContext& ctx) {
  const DataType t = element_type(ctx);
  if (t == DataType::Undefined) return {};
  return {dtype_only(t)};
}

// SequenceMap(input_sequence, additional_inputs...): one sequence per body output, of that
// output's type.
std::vector<ValueInfo> sequence_map_rule(const InferenceContext& ctx) {
  const ir::Graph* body = graph_attr(ctx, "body");
  if (!body) return {};
  std::vector<ValueInfo> out;
  for (const ValueInfo& v : body->outputs) {
    const bool typed = v.kind == ValueInfo::Kind::Tensor && v.dtype != DataType::Undefined;
    out.push_back(typed ? sequence_of(v.dtype) : unknown());
  }
  return out;
}

// Optional(input) wraps a tensor or a sequence; without an input, the `type` attribute says
// what the empty optional would hold.
std::vector<ValueInfo> optional_rule(const InferenceContext& ctx) {
  ValueInfo element;
  if (ctx.info().has_input(0)) {
    if (!ctx.input(0)) return {};
    element = *ctx.input(0);
  } else if (const ir::Attribute* type = ctx.info().attr("type")) {
    element = type->type_proto;
  } else {
    return {};  // the kernel reports it
  }
  if (element.kind != ValueInfo::Kind::Tensor && element.kind != ValueInfo::Kind::Sequence)
    return {};
  ValueInfo v = element;
  v.name.clear();
  v.kind = ValueInfo::Kind::Optional;
  v.element_kind = element.kind;
  return {v};
}

// OptionalGetElement: the optional's element; a plain tensor or sequence (opset 18) as it is.
std::vector<ValueInfo> optional_get_element_rule(const InferenceContext& ctx) {
  const ValueInfo* in = ctx.input(0);
  if (!in) return {};
  if (in->kind != ValueInfo::Kind::Optional) return {*in};
  if (in->element_kind == ValueInfo::Kind::Sequence) return {sequence_of(in->dtype)};
  ValueInfo v = *in;
  v.kind = ValueInfo::Kind::Tensor;
  return {v};
}

std::vector<ValueInfo> int64_scalar_rule(const InferenceContext&) {
  return {tensor_type(DataType::Int64, {})};
}

std::vector<ValueInfo> bool_scalar_rule(const InferenceContext&) {
  return {tensor_type(DataType::Bool, {})};
}

}  // namespace

KILN_OP_DEFS(control_flow);
void define_control_flow_ops(OpDefs& defs) {
  OpDef& if_def = defs.define("If");
  if_def.infer = if_rule;
  if_def.shape_inputs = {{1, {0}}};
  OpDef& loop = defs.define("Loop");
  loop.infer = loop_rule;
  loop.shape_inputs = {{1, {0, 1}}};
  defs.define("Scan").infer = scan_rule;
  OpDef& split = defs.define("SplitToSequence");
  split.infer = sequence_of_input_rule;
  split.shape_inputs = {{11, {1}}};
  defs.define("SequenceConstruct").infer = sequence_of_input_rule;
  defs.define("SequenceEmpty").infer = sequence_empty_rule;
  for (const char* op : {"SequenceInsert", "SequenceErase"})
    defs.define(op).infer = same_sequence_rule;
  for (const char* op : {"SequenceAt", "ConcatFromSequence"}) {
    defs.define(op).infer = sequence_element_rule;
  }
  defs.define("SequenceLength").infer = int64_scalar_rule;
  defs.define("SequenceMap").infer = sequence_map_rule;
  defs.define("Optional").infer = optional_rule;
  defs.define("OptionalHasElement").infer = bool_scalar_rule;
  defs.define("OptionalGetElement").infer = optional_get_element_rule;
}

}  // namespace kiln
