#include "ops/recurrent_activation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <type_traits>

#include "backends/cpu/vector_math.h"
#include "ops/op_registry.h"

namespace kiln::recurrent {
namespace {

struct ActivationName {
  const char* name;  // lower case
  ActivationKind kind;
  int parameters;  // how many of (alpha, beta) it takes
  float default_alpha;
  float default_beta;
};

// The defaults are those of the stand-alone ONNX ops of the same name.
constexpr ActivationName kActivationNames[] = {
    {"relu", ActivationKind::kRelu, 0, 0.0f, 0.0f},
    {"tanh", ActivationKind::kTanh, 0, 0.0f, 0.0f},
    {"sigmoid", ActivationKind::kSigmoid, 0, 0.0f, 0.0f},
    {"affine", ActivationKind::kAffine, 2, 1.0f, 0.0f},
    {"leakyrelu", ActivationKind::kLeakyRelu, 1, 0.01f, 0.0f},
    {"thresholdedrelu", ActivationKind::kThresholdedRelu, 1, 1.0f, 0.0f},
    {"scaledtanh", ActivationKind::kScaledTanh, 2, 1.0f, 1.0f},
    {"hardsigmoid", ActivationKind::kHardSigmoid, 2, 0.2f, 0.5f},
    {"elu", ActivationKind::kElu, 1, 1.0f, 0.0f},
    {"softsign", ActivationKind::kSoftsign, 0, 0.0f, 0.0f},
    {"softplus", ActivationKind::kSoftplus, 0, 0.0f, 0.0f},
};

const ActivationName* find_activation(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const ActivationName& a : kActivationNames) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

template <class C>
void apply_scalar(const Activation& f, C* x, int64_t n) {
  const C alpha = f.alpha, beta = f.beta;
  switch (f.kind) {
    case ActivationKind::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? C(0) : x[i];
      break;
    case ActivationKind::kTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
      break;
    case ActivationKind::kSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = C(1) / (C(1) + std::exp(-x[i]));
      break;
    case ActivationKind::kAffine:
      for (int64_t i = 0; i < n; ++i) x[i] = alpha * x[i] + beta;
      break;
    case ActivationKind::kLeakyRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? alpha * x[i] : x[i];
      break;
    case ActivationKind::kThresholdedRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > alpha ? x[i] : C(0);
      break;
    case ActivationKind::kScaledTanh:
      for (int64_t i = 0; i < n; ++i) x[i] = alpha * std::tanh(beta * x[i]);
      break;
    case ActivationKind::kHardSigmoid:
      for (int64_t i = 0; i < n; ++i) x[i] = std::clamp(alpha * x[i] + beta, C(0), C(1));
      break;
    case ActivationKind::kElu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0 ? alpha * std::expm1(x[i]) : x[i];
      break;
    case ActivationKind::kSoftsign:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (C(1) + std::fabs(x[i]));
      break;
    case ActivationKind::kSoftplus:
      // log(1 + e^x) without overflow for large x.
      for (int64_t i = 0; i < n; ++i) {
        const C v = x[i];
        x[i] = v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
      }
      break;
  }
}

}  // namespace

std::vector<Activation> parse_activations(const NodeInfo& info,
                                          const std::vector<std::string>& defaults,
                                          int64_t num_directions) {
  const size_t per_direction = defaults.size();
  std::vector<std::string> names = info.attr_strings("activations");
  if (names.empty()) {
    for (int64_t d = 0; d < num_directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() == per_direction && num_directions == 2) {
    const std::vector<std::string> one_direction = names;
    names.insert(names.end(), one_direction.begin(), one_direction.end());
  } else if (names.size() != per_direction * static_cast<size_t>(num_directions)) {
    info.fail("attribute 'activations' names " + std::to_string(names.size()) +
              " functions; this node needs " + std::to_string(per_direction) +
              " per direction for " + std::to_string(num_directions) + " direction(s)");
  }
  const std::vector<float> alphas = info.attr_floats("activation_alpha");
  const std::vector<float> betas = info.attr_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> out;
  for (const std::string& name : names) {
    const ActivationName* a = find_activation(name);
    if (!a) info.fail("unsupported activation function '" + name + "'");
    Activation f{a->kind, a->default_alpha, a->default_beta};
    if (a->parameters >= 1 && next_alpha < alphas.size()) f.alpha = alphas[next_alpha++];
    if (a->parameters >= 2 && next_beta < betas.size()) f.beta = betas[next_beta++];
    out.push_back(f);
  }
  return out;
}

void apply_activation(const Activation& f, float* x, int64_t n) {
  switch (f.kind) {
    case ActivationKind::kTanh:
      cpu::tanh_f32(x, x, n);
      return;
    case ActivationKind::kSigmoid:
      cpu::sigmoid_f32(x, x, n);
      return;
    case ActivationKind::kScaledTanh:
      for (int64_t i = 0; i < n; ++i) x[i] *= f.beta;
      cpu::tanh_f32(x, x, n);
      for (int64_t i = 0; i < n; ++i) x[i] *= f.alpha;
      return;
    default:
      apply_scalar(f, x, n);
  }
}

void apply_activation(const Activation& f, double* x, int64_t n) { apply_scalar(f, x, n); }

}  // namespace kiln::recurrent
