#include "opdefs/fused_conv.h"

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
  }
  return "";
}

FusedConvAttrs parse_fused_conv_attrs(const NodeInfo& info) {
  FusedConvAttrs a;
  a.conv = parse_conv_attrs(info, false);
  const std::string name = info.attr_string("activation", "");
  bool known = false;
  for (FusedActivation f : {FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kClip,
                            FusedActivation::kHardSwish, FusedActivation::kSilu}) {
    if (name == fused_activation_name(f)) {
      a.activation = f;
      known = true;
    }
  }
  if (!known) info.fail("unknown activation '" + name + "'");
  a.clip_min = info.attr_float("clip_min", -std::numeric_limits<float>::infinity());
  a.clip_max = info.attr_float("clip_max", std::numeric_limits<float>::infinity());
  return a;
}

std::optional<FusedConvAttrs> parse_covered_fused_conv(const NodeInfo& info,
                                                       const FusedConvCoverage& coverage,
                                                       const std::string& kernel,
                                                       std::string& reason) {
  if (info.has_input(3) && !coverage.residual) {
    reason = kernel + " adds no residual";
    return std::nullopt;
  }
  FusedConvAttrs attrs = parse_fused_conv_attrs(info);
  if (!coverage.covers(attrs.activation)) {
    reason = kernel + " applies no " + fused_activation_name(attrs.activation);
    return std::nullopt;
  }
  return attrs;
}

}  // namespace kiln
