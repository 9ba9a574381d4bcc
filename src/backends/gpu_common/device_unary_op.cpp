#include "backends/gpu_common/device_unary_op.h"

#include <cstring>

namespace kiln {
namespace {

const UnaryOpInfo* row_of_type(const std::string& op_type) {
  for (const UnaryOpInfo& row : kUnaryOps) {
    if (row.onnx_type && op_type == row.onnx_type) return &row;
  }
  return nullptr;
}

// Clip from opset 11: the bounds are optional inputs, which must be constants, since the op and
// its parameters are fixed at load time. Absent bounds keep the row's defaults (no bound).
std::optional<UnaryParams> clip_bounds_from_inputs(const NodeInfo& info, UnaryParams p,
                                                   std::string& reason) {
  for (size_t k = 1; k <= 2; ++k) {
    if (!info.has_input(k)) continue;
    const Tensor* bound = info.constant_input(k);
    if (!bound || bound->dtype() != DataType::Float32 || bound->element_count() != 1) {
      reason = "Clip bounds computed at run time";
      return std::nullopt;
    }
    (k == 1 ? p.alpha : p.beta) = bound->data<float>()[0];
  }
  return p;
}

}  // namespace

const UnaryOpInfo& unary_op_info(UnaryOp op) {
  const auto code = static_cast<uint32_t>(op);
  check(code < kUnaryOpCount, "unary op on the GPU: unknown op code " + std::to_string(code));
  return kUnaryOps[code];
}

const char* to_string(UnaryOp op) { return unary_op_info(op).name; }

std::vector<std::string> unary_onnx_types() {
  std::vector<std::string> types;
  for (const UnaryOpInfo& row : kUnaryOps) {
    if (row.onnx_type) types.emplace_back(row.onnx_type);
  }
  return types;
}

std::optional<UnaryParams> unary_params(const NodeInfo& info, std::string& reason) {
  const UnaryOpInfo* row = row_of_type(info.op_type());
  check(row != nullptr, info.op_type() + " is not a GPU unary op");
  UnaryParams p{row->op, row->alpha_default, row->beta_default};
  if (row->op == UnaryOp::Clip && info.opset() >= 11) {
    return clip_bounds_from_inputs(info, p, reason);
  }
  if (row->alpha_attr) p.alpha = info.attr_float(row->alpha_attr, p.alpha);
  if (row->beta_attr) p.beta = info.attr_float(row->beta_attr, p.beta);
  // The CPU kernel has already rejected approximations other than "none" and "tanh".
  if (row->op == UnaryOp::Gelu && info.attr_string("approximate", "none") == "tanh") {
    p.op = UnaryOp::GeluTanh;
  }
  return p;
}

void check_unary_params(const UnaryParams& params, const std::string& where) {
  unary_op_info(params.op);  // throws for an unknown code
  check(params.op != UnaryOp::Celu || params.alpha != 0.0f, where + ": Celu's alpha must not be 0");
}

}  // namespace kiln
