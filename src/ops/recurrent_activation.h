// The activation functions that RNN, GRU and LSTM take by name in their `activations`
// attribute, parsed once at load time and applied in place to a gate's values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {
class NodeInfo;
}

namespace kiln::recurrent {

enum class ActivationKind : uint8_t {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,           // alpha * x + beta
  kLeakyRelu,        // x < 0 ? alpha * x : x
  kThresholdedRelu,  // x > alpha ? x : 0
  kScaledTanh,       // alpha * tanh(beta * x)
  kHardSigmoid,      // clamp(alpha * x + beta, 0, 1)
  kElu,              // x < 0 ? alpha * (e^x - 1) : x
  kSoftsign,         // x / (1 + |x|)
  kSoftplus,         // log(1 + e^x)
};

struct Activation {
  ActivationKind kind = ActivationKind::kTanh;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// Reads the `activations`, `activation_alpha` and `activation_beta` attributes of a node whose
// cell uses `defaults.size()` functions per direction. Returns them for every direction, in
// order (forward's first). A list naming the functions of one direction only is used for both
// directions of a bidirectional node. The alpha and beta lists are consumed in order by the
// functions that take parameters; a function past their end gets its usual default.
std::vector<Activation> parse_activations(const NodeInfo& info,
                                          const std::vector<std::string>& defaults,
                                          int64_t num_directions);

// x[i] = f(x[i]) for i < n.
void apply_activation(const Activation& f, float* x, int64_t n);
void apply_activation(const Activation& f, double* x, int64_t n);

}  // namespace kiln::recurrent
