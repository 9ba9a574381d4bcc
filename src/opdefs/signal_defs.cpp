// Signal processing: DFT, STFT, the window functions and MelWeightMatrix take their lengths and
// sizes as values.
#include "opdefs/signal.h"

#include <limits>
#include <string>

#include "opdefs/all_defs.h"
#include "opdefs/node_info.h"
#include "opdefs/node_inputs.h"
#include "opdefs/op_def.h"

namespace kiln {

DataType output_datatype_attr(const NodeInfo& info) {
  const int64_t code = info.attr_int("output_datatype", static_cast<int64_t>(DataType::Float32));
  const auto t = static_cast<DataType>(code);
  switch (t) {
    case DataType::UInt8:
    case DataType::UInt16:
    case DataType::UInt32:
    case DataType::UInt64:
    case DataType::Int8:
    case DataType::Int16:
    case DataType::Int32:
    case DataType::Int64:
    case DataType::Float16:
    case DataType::Float32:
    case DataType::Float64:
    case DataType::BFloat16:
      return t;
    default:
      info.fail("output_datatype " + std::to_string(code) +
                " is not a real numeric type (uint8..uint64, int8..int64, float16, float, double "
                "or bfloat16)");
  }
}

DftAttrs parse_dft_attrs(const NodeInfo& info) {
  DftAttrs a;
  a.inverse = info.attr_int("inverse", 0) != 0;
  a.onesided = info.attr_int("onesided", 0) != 0;
  a.axis_is_input = info.opset() >= 20;
  if (a.axis_is_input && info.has_attr("axis")) {
    info.fail("axis is an input from opset 20 on, not an attribute");
  }
  a.axis_attr = a.axis_is_input ? -2 : info.attr_int("axis", 1);
  return a;
}

DftSizes resolve_dft(const ir::Node& node, const DftAttrs& attrs, const Shape& shape,
                     std::optional<int64_t> length, std::optional<int64_t> axis_input,
                     int64_t max_length) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank < 2) fail_at(node, "input must have rank >= 2, got shape " + shape.to_string());
  const int64_t components = shape[rank - 1];
  if (components != 1 && components != 2) {
    fail_at(node, "the last dimension of the input must be 1 (real) or 2 (complex), got shape " +
                      shape.to_string());
  }
  int64_t axis = axis_input ? *axis_input : attrs.axis_attr;
  if (axis < -rank || axis > rank - 2) {
    fail_at(node, "axis " + std::to_string(axis) + " is out of range [" + std::to_string(-rank) +
                      ", " + std::to_string(rank - 2) + "] for input shape " + shape.to_string());
  }
  if (axis < 0) axis += rank;
  if (axis == rank - 1) fail_at(node, "axis must not be the last (component) dimension");
  if (length && *length < 1) {
    fail_at(node, "dft_length must be positive, got " + std::to_string(*length));
  }
  DftSizes s;
  s.axis = axis;
  s.half_spectrum = attrs.inverse && attrs.onesided;
  const int64_t in_length = shape[axis];
  if (s.half_spectrum) {
    s.n = length ? *length : 2 * (in_length - 1);
    s.out_length = s.n;
    s.out_components = 1;
  } else {
    s.n = length ? *length : in_length;
    if (attrs.onesided && components == 2) {
      fail_at(node,
              "onesided needs a real input (last dimension 1): a complex signal's spectrum "
              "has no redundant half");
    }
    s.out_length = attrs.onesided ? s.n / 2 + 1 : s.n;
  }
  if (s.n < 1 || s.n > max_length) {
    fail_at(node, "the transform length must be in [1, " + std::to_string(max_length) + "], got " +
                      std::to_string(s.n) + " for input shape " + shape.to_string());
  }
  s.out_shape = shape;
  s.out_shape[axis] = s.out_length;
  s.out_shape[rank - 1] = s.out_components;
  return s;
}

namespace {

// A constant scalar int input's value; nullopt when absent or known only at run time.
std::optional<int64_t> constant_scalar(const InferenceContext& ctx, size_t i) {
  const std::optional<std::vector<int64_t>> v = ctx.constant_ints(i);
  return v && v->size() == 1 ? std::optional((*v)[0]) : std::nullopt;
}

bool has_input(const InferenceContext& ctx, size_t i) {
  return i < ctx.num_inputs() && !ctx.node().inputs[i].empty();
}

// DFT: the input's shape with the transformed axis resized and the last axis the components.
// Other axes keep their (symbolic) dims; the transformed axis needs its extent, or dft_length.
std::vector<ValueInfo> dft_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  const std::optional<int64_t> length = constant_scalar(ctx, 1);
  const DftAttrs attrs = parse_dft_attrs(ctx.info());
  const std::optional<int64_t> axis = attrs.axis_is_input ? constant_scalar(ctx, 2) : std::nullopt;
  if (!xs || (has_input(ctx, 1) && !length) || (attrs.axis_is_input && has_input(ctx, 2) && !axis))
    return {dtype_only(x->dtype)};
  constexpr int64_t kStandIn = int64_t{1} << 40;
  Shape shape;
  for (const Dim& d : *xs) shape.push_back(d.is_fixed() ? d.value : kStandIn);
  const DftSizes s =
      resolve_dft(ctx.node(), attrs, shape, length, axis, std::numeric_limits<int64_t>::max());
  const Dim& along = (*xs)[static_cast<size_t>(s.axis)];
  std::vector<Dim> out = *xs;
  out[static_cast<size_t>(s.axis)] = along.is_fixed() || length ? fixed_dim(s.out_length) : Dim{};
  out.back() = fixed_dim(s.out_components);
  if (!xs->back().is_fixed()) return {dtype_only(x->dtype)};  // real or complex: unknown
  return {tensor_type(x->dtype, out)};
}

// The window functions: [size] in output_datatype.
std::vector<ValueInfo> window_function_rule(const InferenceContext& ctx) {
  const DataType t = output_datatype_attr(ctx.info());
  const std::optional<int64_t> size = constant_scalar(ctx, 0);
  return {tensor_type(t, {size && *size >= 0 ? fixed_dim(*size) : Dim{}})};
}

// STFT(signal [batch, length, 1 or 2], frame_step, window, frame_length): [batch, frames, bins,
// 2] of the signal's type. frames and bins are left unknown: they follow from the values of
// frame_step and frame_length (or the window's length), which the kernel resolves.
std::vector<ValueInfo> stft_rule(const InferenceContext& ctx) {
  const ValueInfo* signal = ctx.input(0);
  if (!signal) return {};
  const std::vector<Dim>* s = ctx.shape(0);
  const Dim batch = s && s->size() == 3 ? (*s)[0] : Dim{};
  return {tensor_type(signal->dtype, {batch, Dim{}, Dim{}, fixed_dim(2)})};
}

// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] in output_datatype.
std::vector<ValueInfo> mel_rule(const InferenceContext& ctx) {
  const DataType t = output_datatype_attr(ctx.info());
  const std::optional<int64_t> mel_bins = constant_scalar(ctx, 0);
  const std::optional<int64_t> dft_length = constant_scalar(ctx, 1);
  return {tensor_type(t, {dft_length ? fixed_dim(*dft_length / 2 + 1) : Dim{},
                          mel_bins ? fixed_dim(*mel_bins) : Dim{}})};
}

}  // namespace

KILN_OP_DEFS(signal);
void define_signal_ops(OpDefs& defs) {
  OpDef& dft = defs.define("DFT");
  dft.infer = dft_rule;
  dft.shape_inputs = {{17, {1}}, {20, {1, 2}}};
  OpDef& stft = defs.define("STFT");
  stft.infer = stft_rule;
  stft.shape_inputs = {{17, {1, 3}}};
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    OpDef& def = defs.define(op);
    def.infer = window_function_rule;
    def.shape_inputs = {{17, {0}}};
  }
  OpDef& mel = defs.define("MelWeightMatrix");
  mel.infer = mel_rule;
  mel.shape_inputs = {{17, {0, 1, 2, 3, 4}}};
}

}  // namespace kiln
