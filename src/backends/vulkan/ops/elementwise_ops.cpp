// Element-wise ops on the GPU: float32 binary arithmetic with broadcasting, and the unary math
// and activation functions (shaders/binary_elementwise.comp, shaders/unary_elementwise.comp).
#include <limits>

#include "backends/vulkan/binary_elementwise.h"
#include "backends/vulkan/ops/op_table.h"
#include "backends/vulkan/unary_elementwise.h"
#include "ops/op_utils.h"

namespace kiln::vulkan {
namespace {

RecordFn binary(BinaryOp op) {
  return [op](OpRecorder& r) {
    const Shape out = broadcast_shape(r.shape(0), r.shape(1));
    const Buffer& a = r.buffer(0);
    const Buffer& b = r.buffer(1);
    const Buffer& c = r.output(0, DataType::Float32, out);
    r.kernel<BinaryElementwise>().record(r.cmd(), r.arena(), op, a, r.shape(0), b, r.shape(1), c);
  };
}

OpFactory binary_factory(BinaryOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    if (q.info.num_inputs() != 2) {
      reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel 2)";
      return nullptr;
    }
    return binary(op);
  };
}

// PRelu: the slope broadcasts to X, never the other way (the CPU kernel reports that).
// Before opset 7 a 1-D slope meant per channel; those models stay on the CPU.
OpFactory prelu_factory() {
  OpFactory plain = binary_factory(BinaryOp::PRelu);
  return [plain](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (q.info.opset() < 7) {
      reason = "PRelu before opset 7 has its own slope layout";
      return nullptr;
    }
    RecordFn record = plain(q, reason);
    if (!record) return nullptr;
    return [record](OpRecorder& r) {
      if (broadcast_shape(r.shape(0), r.shape(1)) != r.shape(0))
        throw RunOnCpu("slope does not broadcast to X");
      record(r);
    };
  };
}

RecordFn unary(UnaryParams params) {
  return [params](OpRecorder& r) {
    const Buffer& x = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, r.shape(0));
    r.kernel<UnaryElementwise>().record(r.cmd(), r.arena(), params, x, y,
                                        static_cast<uint64_t>(r.shape(0).element_count()));
  };
}

// Parameters read from the node at load time; nullopt (with reason) when unsupported.
using UnaryParamsFn =
    std::function<std::optional<UnaryParams>(const NodeInfo& info, std::string& reason)>;

OpFactory unary_factory(UnaryParamsFn params_of) {
  return [params_of](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
    std::optional<UnaryParams> params = params_of(q.info, reason);
    if (!params) return nullptr;
    return unary(*params);
  };
}

OpFactory plain(UnaryOp op) {
  return unary_factory([op](const NodeInfo&, std::string&) { return UnaryParams{op}; });
}

// Clip's bounds: attributes before opset 11, optional inputs after; the inputs must be
// constants (a bound computed at run time keeps the node on the CPU).
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

void register_elementwise_ops(OpTable& t) {
  t.add("Add", binary_factory(BinaryOp::Add));
  t.add("Sub", binary_factory(BinaryOp::Sub));
  t.add("Mul", binary_factory(BinaryOp::Mul));
  t.add("Div", binary_factory(BinaryOp::Div));
  t.add("Pow", binary_factory(BinaryOp::Pow));
  t.add("Max", binary_factory(BinaryOp::Max));
  t.add("Min", binary_factory(BinaryOp::Min));
  t.add("Sum", binary_factory(BinaryOp::Add));
  t.add("PRelu", prelu_factory());

  t.add("Abs", plain(UnaryOp::Abs));
  t.add("Neg", plain(UnaryOp::Neg));
  t.add("Exp", plain(UnaryOp::Exp));
  t.add("Log", plain(UnaryOp::Log));
  t.add("Sqrt", plain(UnaryOp::Sqrt));
  t.add("Reciprocal", plain(UnaryOp::Reciprocal));
  t.add("Sin", plain(UnaryOp::Sin));
  t.add("Cos", plain(UnaryOp::Cos));
  t.add("Tanh", plain(UnaryOp::Tanh));
  t.add("Sigmoid", plain(UnaryOp::Sigmoid));
  t.add("Relu", plain(UnaryOp::Relu));
  t.add("HardSwish", plain(UnaryOp::HardSwish));
  t.add("Softplus", plain(UnaryOp::Softplus));
  t.add("Softsign", plain(UnaryOp::Softsign));
  t.add("Erf", plain(UnaryOp::Erf));
  t.add("Floor", plain(UnaryOp::Floor));
  t.add("Ceil", plain(UnaryOp::Ceil));
  t.add("Round", plain(UnaryOp::Round));
  t.add("Sign", plain(UnaryOp::Sign));
  t.add("LeakyRelu", unary_factory([](const NodeInfo& info, std::string&) {
          return UnaryParams{UnaryOp::LeakyRelu, info.attr_float("alpha", 0.01f)};
        }));
  t.add("Elu", unary_factory([](const NodeInfo& info, std::string&) {
          return UnaryParams{UnaryOp::Elu, info.attr_float("alpha", 1.0f)};
        }));
  t.add("Selu", unary_factory([](const NodeInfo& info, std::string&) {
          return UnaryParams{UnaryOp::Selu, info.attr_float("alpha", 1.67326319217681884765625f),
                             info.attr_float("gamma", 1.05070102214813232421875f)};
        }));
  t.add("HardSigmoid", unary_factory([](const NodeInfo& info, std::string&) {
          return UnaryParams{UnaryOp::HardSigmoid, info.attr_float("alpha", 0.2f),
                             info.attr_float("beta", 0.5f)};
        }));
  t.add("Gelu",
        unary_factory([](const NodeInfo& info, std::string& reason) -> std::optional<UnaryParams> {
          if (info.attr_string("approximate", "none") != "none") {
            reason = "Gelu's tanh approximation has no GPU kernel";
            return std::nullopt;
          }
          return UnaryParams{UnaryOp::Gelu};
        }));
  t.add("Clip", unary_factory(clip_params));
}

}  // namespace kiln::vulkan
