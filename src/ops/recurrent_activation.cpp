#include "ops/recurrent_activation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <type_traits>

#include "backends/cpu/vector_math.h"

namespace kiln::recurrent {
namespace {

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
