// Float32 unary math and activations as the GPU backends run them: one op code with up to two
// parameters, read from the ONNX node at load time. Each backend's unary kernel takes the ops it
// has a shader for and reports the others.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/op_registry.h"

namespace kiln {

// The values up to DivideBy are the GPU-compute shader's op codes: keep their order, add new
// ops at the end.
enum class UnaryOp : uint32_t {
  Abs,
  Neg,
  Exp,
  Log,
  Sqrt,
  Reciprocal,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Relu,
  LeakyRelu,        // alpha
  Elu,              // alpha
  Selu,             // alpha, gamma (in beta)
  HardSigmoid,      // alpha, beta
  HardSwish,        //
  Softplus,         //
  Softsign,         //
  Gelu,             // the exact (erf) form
  Erf,              //
  Floor,            //
  Ceil,             //
  Round,            // halves to even
  Sign,             //
  Clip,             // min (in alpha), max (in beta)
  DivideBy,         // alpha (Mean's input count)
  Celu,             // alpha (not 0)
  GeluTanh,         // Gelu with approximate="tanh"
  Mish,             //
  ThresholdedRelu,  // alpha
  Swish,            // alpha
};

// An op with its parameters; ops without parameters ignore alpha and beta.
struct UnaryParams {
  UnaryOp op = UnaryOp::Abs;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// The unary op a node of one of these types computes, with its attribute defaults as ONNX gives
// them: Abs, Neg, Exp, Log, Sqrt, Reciprocal, Sin, Cos, Tanh, Sigmoid, Relu, HardSwish, Softplus,
// Softsign, Erf, Floor, Ceil, Round, Sign, Mish, LeakyRelu, Elu, Celu, ThresholdedRelu, Selu,
// HardSigmoid, Gelu and Clip (bounds from attributes before opset 11, from constant inputs
// after). nullopt with `reason` set when a Clip bound is computed at run time; kiln::Error for
// any other op type.
std::optional<UnaryParams> unary_params(const NodeInfo& info, std::string& reason);

}  // namespace kiln
