#include "backends/gpu_common/device_unary_op.h"

#include <functional>
#include <limits>
#include <map>

namespace kiln {
namespace {

using ParamsOf = std::function<UnaryParams(const NodeInfo& info)>;

ParamsOf plain(UnaryOp op) {
  return [op](const NodeInfo&) { return UnaryParams{op}; };
}

ParamsOf with_alpha(UnaryOp op, float alpha_default) {
  return [=](const NodeInfo& info) {
    return UnaryParams{op, info.attr_float("alpha", alpha_default)};
  };
}

const std::map<std::string, ParamsOf>& unary_ops_by_type() {
  static const std::map<std::string, ParamsOf> ops = {
      {"Abs", plain(UnaryOp::Abs)},
      {"Neg", plain(UnaryOp::Neg)},
      {"Exp", plain(UnaryOp::Exp)},
      {"Log", plain(UnaryOp::Log)},
      {"Sqrt", plain(UnaryOp::Sqrt)},
      {"Reciprocal", plain(UnaryOp::Reciprocal)},
      {"Sin", plain(UnaryOp::Sin)},
      {"Cos", plain(UnaryOp::Cos)},
      {"Tanh", plain(UnaryOp::Tanh)},
      {"Sigmoid", plain(UnaryOp::Sigmoid)},
      {"Relu", plain(UnaryOp::Relu)},
      {"HardSwish", plain(UnaryOp::HardSwish)},
      {"Softplus", plain(UnaryOp::Softplus)},
      {"Softsign", plain(UnaryOp::Softsign)},
      {"Erf", plain(UnaryOp::Erf)},
      {"Floor", plain(UnaryOp::Floor)},
      {"Ceil", plain(UnaryOp::Ceil)},
      {"Round", plain(UnaryOp::Round)},
      {"Sign", plain(UnaryOp::Sign)},
      {"Mish", plain(UnaryOp::Mish)},
      {"LeakyRelu", with_alpha(UnaryOp::LeakyRelu, 0.01f)},
      {"Elu", with_alpha(UnaryOp::Elu, 1.0f)},
      {"Celu", with_alpha(UnaryOp::Celu, 1.0f)},
      {"ThresholdedRelu", with_alpha(UnaryOp::ThresholdedRelu, 1.0f)},
      {"Selu",
       [](const NodeInfo& info) {
         return UnaryParams{UnaryOp::Selu, info.attr_float("alpha", 1.67326319217681884765625f),
                            info.attr_float("gamma", 1.05070102214813232421875f)};
       }},
      {"HardSigmoid",
       [](const NodeInfo& info) {
         return UnaryParams{UnaryOp::HardSigmoid, info.attr_float("alpha", 0.2f),
                            info.attr_float("beta", 0.5f)};
       }},
      {"Gelu",
       [](const NodeInfo& info) {
         // The CPU kernel has already rejected approximations other than "none" and "tanh".
         return UnaryParams{info.attr_string("approximate", "none") == "tanh" ? UnaryOp::GeluTanh
                                                                              : UnaryOp::Gelu};
       }},
  };
  return ops;
}

// Clip's bounds: attributes before opset 11, optional inputs after; the inputs must be
// constants, since the op and its parameters are fixed at load time.
std::optional<UnaryParams> clip_params(const NodeInfo& info, std::string& reason) {
  UnaryParams p{UnaryOp::Clip, -std::numeric_limits<float>::infinity(),
                std::numeric_limits<float>::infinity()};
  if (info.opset() < 11) {
    p.alpha = info.attr_float("min", p.alpha);
    p.beta = info.attr_float("max", p.beta);
    return p;
  }
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

std::optional<UnaryParams> unary_params(const NodeInfo& info, std::string& reason) {
  if (info.op_type() == "Clip") return clip_params(info, reason);
  auto it = unary_ops_by_type().find(info.op_type());
  check(it != unary_ops_by_type().end(), info.op_type() + " is not a GPU unary op");
  return it->second(info);
}

}  // namespace kiln
