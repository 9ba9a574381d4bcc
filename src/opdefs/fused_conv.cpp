#include "opdefs/fused_conv.h"

#include <string>
#include <vector>

#include "opdefs/node_info.h"

namespace kiln {

FusedConvAttrs parse_fused_conv_attrs(const NodeInfo& info) {
  FusedConvAttrs a;
  static_cast<ActivationAttrs&>(a) = parse_activation_attrs(info);
  a.conv = parse_conv_attrs(info, false);
  return a;
}

FusedConvAttrs parse_ms_fused_conv_attrs(const NodeInfo& info) {
  FusedConvAttrs a;
  a.conv = parse_conv_attrs(info, false);
  if (!info.has_attr("activation")) return a;
  const std::string name = info.attr_string("activation", "");
  struct Spelling {
    const char* name;
    FusedActivation activation;
    size_t params;
  };
  static constexpr Spelling kSpellings[] = {
      {"Relu", FusedActivation::kRelu, 0}, {"Sigmoid", FusedActivation::kSigmoid, 0},
      {"Tanh", FusedActivation::kTanh, 0}, {"LeakyRelu", FusedActivation::kLeakyRelu, 1},
      {"Clip", FusedActivation::kClip, 2}, {"HardSigmoid", FusedActivation::kHardSigmoid, 2},
  };
  const Spelling* found = nullptr;
  for (const Spelling& s : kSpellings) {
    if (name == s.name) found = &s;
  }
  if (!found) {
    info.fail("unknown activation '" + name +
              "' (Relu, Sigmoid, Tanh, LeakyRelu, Clip or HardSigmoid)");
  }
  a.activation = found->activation;
  const std::vector<float> params = info.attr_floats("activation_params", {});
  if (params.size() != found->params) {
    info.fail("activation " + name + " takes " + std::to_string(found->params) +
              " activation_params, got " + std::to_string(params.size()));
  }
  if (a.activation == FusedActivation::kLeakyRelu) a.alpha = params[0];
  if (a.activation == FusedActivation::kClip) {
    a.clip_min = params[0];
    a.clip_max = params[1];
  }
  if (a.activation == FusedActivation::kHardSigmoid) {
    a.alpha = params[0];
    a.beta = params[1];
  }
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
