// The activations kiln's fused ops apply to their output (kiln::FusedConv, kiln::MatMulBias,
// kiln::FusedGemm), and their attribute spelling, which those ops share:
//   activation: "" (none), "Relu", "Clip", "HardSwish", "SiLU" (x * sigmoid(x)), "Sigmoid",
//     "Gelu" (exact, through erf) or "GeluTanh" (the tanh approximation)
//   clip_min, clip_max: Clip's bounds (absent bound: no limit that side)
// Each is the function of the standalone op it replaces, computed by the same CPU code, so that
// fusing does not change a result.
#pragma once

#include <string>

namespace kiln {

class NodeInfo;

// kTanh, kLeakyRelu and kHardSigmoid come only from com.microsoft FusedConv nodes.
enum class FusedActivation {
  kNone,
  kRelu,
  kClip,
  kHardSwish,
  kSilu,
  kSigmoid,
  kGelu,
  kGeluTanh,
  kTanh,
  kLeakyRelu,
  kHardSigmoid
};

// An activation and its parameters.
struct ActivationAttrs {
  FusedActivation activation = FusedActivation::kNone;
  float clip_min = 0.0f;
  float clip_max = 0.0f;
  float alpha = 0.0f;  // LeakyRelu's slope, HardSigmoid's alpha
  float beta = 0.0f;   // HardSigmoid's beta
};

// The attribute spelling of an activation ("" for none).
const char* fused_activation_name(FusedActivation a);

// A kiln fused op's activation, clip_min and clip_max attributes (kiln::Error naming the node
// for an activation outside kiln's spelling above).
ActivationAttrs parse_activation_attrs(const NodeInfo& info);

}  // namespace kiln
