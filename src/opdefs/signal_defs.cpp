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

int64_t scalar_int_value(const NodeInputs& inputs, size_t index, const char* what) {
  if (!inputs.has_input(index)) inputs.fail(std::string(what) + " is required");
  const Tensor& t = inputs.inputs[index];
  if (t.element_count() != 1 || t.rank() > 1) {
    inputs.fail(std::string(what) + " must be a scalar, got shape " + t.shape().to_string());
  }
  if (t.dtype() == DataType::Int64) return t.data<int64_t>()[0];
  if (t.dtype() == DataType::Int32) return t.data<int32_t>()[0];
  inputs.fail(std::string(what) + " must be int32 or int64, got " +
              std::string(dtype_name(t.dtype())));
}

DftSizes resolve_dft(const NodeInputs& inputs, const DftAttrs& attrs, int64_t max_length) {
  std::optional<int64_t> length, axis;
  if (inputs.has_input(1)) length = scalar_int_value(inputs, 1, "dft_length");
  if (attrs.axis_is_input && inputs.has_input(2)) axis = scalar_int_value(inputs, 2, "axis");
  return resolve_dft(inputs.node, attrs, inputs.input(0).shape(), length, axis, max_length);
}

StftAttrs parse_stft_attrs(const NodeInfo& info) {
  StftAttrs a;
  a.onesided = info.attr_int("onesided", 1) != 0;
  return a;
}

StftSizes resolve_stft(const NodeInputs& inputs, const StftAttrs& attrs, int64_t max_length) {
  const Tensor& signal = inputs.input(0);
  const Shape& shape = signal.shape();
  if (shape.size() != 3 || (shape[2] != 1 && shape[2] != 2)) {
    inputs.fail("signal must have shape [batch, length, 1 or 2], got " + shape.to_string());
  }
  StftSizes s;
  s.batch = shape[0];
  s.signal_length = shape[1];
  s.components = shape[2];
  if (attrs.onesided && s.components == 2) {
    inputs.fail("onesided needs a real signal (last dimension 1); set onesided=0 for complex");
  }
  s.frame_step = scalar_int_value(inputs, 1, "frame_step");
  if (s.frame_step < 1)
    inputs.fail("frame_step must be positive, got " + std::to_string(s.frame_step));

  s.has_window = inputs.has_input(2);
  if (s.has_window) {
    const Tensor& window = inputs.inputs[2];
    if (window.rank() != 1) {
      inputs.fail("window must be 1-D, got shape " + window.shape().to_string());
    }
    if (window.dtype() != signal.dtype()) {
      inputs.fail("window must have the signal's type " + std::string(dtype_name(signal.dtype())) +
                  ", got " + std::string(dtype_name(window.dtype())));
    }
  }
  if (inputs.has_input(3)) {
    s.frame_length = scalar_int_value(inputs, 3, "frame_length");
    if (s.has_window && inputs.inputs[2].shape()[0] != s.frame_length) {
      inputs.fail("window length " + std::to_string(inputs.inputs[2].shape()[0]) +
                  " differs from frame_length " + std::to_string(s.frame_length));
    }
  } else {
    // Without either, the whole signal is one frame.
    s.frame_length = s.has_window ? inputs.inputs[2].shape()[0] : s.signal_length;
  }
  if (s.frame_length < 1 || s.frame_length > max_length) {
    inputs.fail("frame_length must be in [1, " + std::to_string(max_length) + "], got " +
                std::to_string(s.frame_length));
  }
  s.frames =
      s.signal_length >= s.frame_length ? (s.signal_length - s.frame_length) / s.frame_step + 1 : 0;
  s.bins = attrs.onesided ? s.frame_length / 2 + 1 : s.frame_length;
  s.out_shape = Shape{s.batch, s.frames, s.bins, 2};
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
