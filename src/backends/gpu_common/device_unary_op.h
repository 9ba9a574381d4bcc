// Float32 unary math and activations as the GPU backends run them: one op code with up to two
// parameters, read from the ONNX node at load time. Every op is one row of unary_ops.inc, which
// both backends' shaders read too, so each backend runs every UnaryOp.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/op_registry.h"

namespace kiln {

// The op codes of both backends' shaders, in the rows' order.
enum class UnaryOp : uint32_t {
#define KILN_UNARY_OP(op, code, onnx, alpha_attr, alpha_default, beta_attr, beta_default, on_nan, \
                      value)                                                                      \
  op = code,
#include "backends/gpu_common/unary_ops.inc"
#undef KILN_UNARY_OP
};

// An op with its parameters; ops without parameters ignore alpha and beta.
struct UnaryParams {
  UnaryOp op = UnaryOp::Abs;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// One row of unary_ops.inc as C++ sees it. The names are nullptr where the row says `none`.
struct UnaryOpInfo {
  UnaryOp op;
  const char* name;        // the UnaryOp's name
  const char* onnx_type;   // the ONNX op type its nodes have
  const char* alpha_attr;  // the ONNX attribute read into alpha, and its ONNX default
  float alpha_default;
  const char* beta_attr;  // the ONNX attribute read into beta, and its ONNX default
  float beta_default;
};

namespace detail {
constexpr const char* unless_none(const char* name) {
  return std::string_view(name) == "none" ? nullptr : name;
}
}  // namespace detail

inline constexpr UnaryOpInfo kUnaryOps[] = {
#define KILN_UNARY_OP(op, code, onnx, alpha_attr, alpha_default, beta_attr, beta_default, on_nan, \
                      value)                                                                      \
  {UnaryOp::op,                                                                                   \
   #op,                                                                                           \
   detail::unless_none(#onnx),                                                                    \
   detail::unless_none(#alpha_attr),                                                              \
   static_cast<float>(alpha_default),                                                             \
   detail::unless_none(#beta_attr),                                                               \
   static_cast<float>(beta_default)},
#include "backends/gpu_common/unary_ops.inc"
#undef KILN_UNARY_OP
};

inline constexpr uint32_t kUnaryOpCount = sizeof(kUnaryOps) / sizeof(kUnaryOps[0]);

// The shaders index nothing by code, but the codes must still be 0, 1, 2, ... so that a code's
// row is kUnaryOps[code] and "code < kUnaryOpCount" tells a known op.
consteval bool unary_codes_follow_rows() {
  for (uint32_t i = 0; i < kUnaryOpCount; ++i) {
    if (static_cast<uint32_t>(kUnaryOps[i].op) != i) return false;
  }
  return true;
}
static_assert(unary_codes_follow_rows(), "unary_ops.inc: codes must be 0, 1, 2, ... in row order");

// The row of `op`; kiln::Error for a code that is no UnaryOp.
const UnaryOpInfo& unary_op_info(UnaryOp op);
// The UnaryOp's name ("LeakyRelu", "GeluTanh", ...).
const char* to_string(UnaryOp op);

// The ONNX op types the GPU unary kernels take, in row order: what each backend registers.
std::vector<std::string> unary_onnx_types();

// The unary op a node of one of unary_onnx_types() computes, with the row's attributes (ONNX's
// defaults where the node has none). Gelu with approximate="tanh" is GeluTanh. Clip takes its
// bounds from attributes before opset 11 and from constant inputs after: nullopt with `reason`
// set when a bound is computed at run time. kiln::Error for any other op type.
std::optional<UnaryParams> unary_params(const NodeInfo& info, std::string& reason);

// What a kernel checks before recording: a known op code, and Celu's alpha not 0 (it divides by
// it). kiln::Error naming `where` otherwise.
void check_unary_params(const UnaryParams& params, const std::string& where);

}  // namespace kiln
