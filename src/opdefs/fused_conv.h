// kiln::FusedConv: a Conv whose output first goes through a residual Add and/or an activation,
// in one op, so the CPU writes the output once instead of re-reading it in one pass per op.
// The CPU worker's load-time pass (passes/fuse_conv_activation.cpp) emits it for
//   Conv -> [Add(·, Z)] -> [an activation of passes/activation_match.h]
// when nothing else reads the intermediate values.
//
//   inputs:  X, W, B (optional: ""), Z (optional: "", the residual; Y's shape)
//   outputs: Y = activation(conv(X, W) + B + Z)
//   attributes: Conv's (auto_pad, dilations, group, kernel_shape, pads, strides), and
//     activation, clip_min, clip_max (opdefs/fused_activation.h)
//
// ONNX Runtime's com.microsoft FusedConv is the same op with its own spelling of the activation:
//   inputs X, W, B?, Z? as above;
//   activation: "Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip" or "HardSigmoid" (absent: none),
//   activation_params: LeakyRelu's alpha, Clip's min and max, HardSigmoid's alpha and beta
//     (required for those three, in that order).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ir/domains.h"
#include "opdefs/conv.h"
#include "opdefs/fused_activation.h"
#include "opdefs/training_defs.h"

namespace kiln {

inline constexpr const char* kFusedConvOp = "FusedConv";

inline constexpr const char* kMsFusedConvOp = "FusedConv";  // in ir::kMicrosoftDomain

// Conv's attributes and the activation's (opdefs/fused_activation.h).
struct FusedConvAttrs : ActivationAttrs {
  ConvAttrs conv;
};

// The chains a backend's kernel for kiln::FusedConv computes; the fusion pass forms no others.
struct FusedConvCoverage {
  bool residual = false;                     // the Add of a second operand Z
  std::vector<FusedActivation> activations;  // besides kNone
  bool covers(FusedActivation a) const {
    return a == FusedActivation::kNone ||
           std::find(activations.begin(), activations.end(), a) != activations.end();
  }
  // The CPU's kernel: every chain.
  static FusedConvCoverage everything() {
    return {true,
            {FusedActivation::kRelu, FusedActivation::kClip, FusedActivation::kHardSwish,
             FusedActivation::kSilu, FusedActivation::kSigmoid, FusedActivation::kGelu,
             FusedActivation::kGeluTanh}};
  }
};

// kiln::FusedConv's attributes (kiln::Error naming the node for an unknown activation).
FusedConvAttrs parse_fused_conv_attrs(const NodeInfo& info);
// A com.microsoft FusedConv's attributes (kiln::Error naming the node for an unknown activation
// or a wrong number of activation_params).
FusedConvAttrs parse_ms_fused_conv_attrs(const NodeInfo& info);
// The attributes of a kiln::FusedConv whose residual and activation `coverage` covers; otherwise
// nullopt, with `reason` naming what `kernel` ("the GPU convolution") lacks.
std::optional<FusedConvAttrs> parse_covered_fused_conv(const NodeInfo& info,
                                                       const FusedConvCoverage& coverage,
                                                       const std::string& kernel,
                                                       std::string& reason);

inline bool is_fused_conv(const ir::Node& node) {
  return node.domain == kKilnDomain && node.op_type == kFusedConvOp;
}
inline bool is_ms_fused_conv(const ir::Node& node) {
  return node.domain == ir::kMicrosoftDomain && node.op_type == kMsFusedConvOp;
}

}  // namespace kiln
