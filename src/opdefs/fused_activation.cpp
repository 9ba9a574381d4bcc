#include "opdefs/fused_activation.h"

#include <limits>

#include "opdefs/node_info.h"

namespace kiln {

const char* fused_activation_name(FusedActivation a) {
  switch (a) {
    case FusedActivation::kNone:
      return "";
    case FusedActivation::kRelu:
      return "Relu";
    case FusedActivation::kClip:
      return "Clip";
    case FusedActivation::kHardSwish:
      return "HardSwish";
    case FusedActivation::kSilu:
      return "SiLU";
    case FusedActivation::kSigmoid:
      return "Sigmoid";
    case FusedActivation::kGelu:
      return "Gelu";
    case FusedActivation::kGeluTanh:
      return "GeluTanh";
    case FusedActivation::kTanh:
      return "Tanh";
    case FusedActivation::kLeakyRelu:
      return "LeakyRelu";
    case FusedActivation::kHardSigmoid:
      return "HardSigmoid";
  }
  return "";
}

ActivationAttrs parse_activation_attrs(const NodeInfo& info) {
  ActivationAttrs a;
  const std::string name = info.attr_string("activation", "");
  bool known = false;
  for (FusedActivation f :
       {FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kClip,
        FusedActivation::kHardSwish, FusedActivation::kSilu, FusedActivation::kSigmoid,
        FusedActivation::kGelu, FusedActivation::kGeluTanh}) {
    if (name == fused_activation_name(f)) {
      a.activation = f;
      known = true;
    }
  }
  if (!known) {
    info.fail("unknown activation '" + name +
              "' (Relu, Clip, HardSwish, SiLU, Sigmoid, Gelu or GeluTanh)");
  }
  a.clip_min = info.attr_float("clip_min", -std::numeric_limits<float>::infinity());
  a.clip_max = info.attr_float("clip_max", std::numeric_limits<float>::infinity());
  return a;
}

}  // namespace kiln
