#include "ops/ml_common.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dtype_dispatch.h"

namespace kiln::ml {
namespace {

// The inverse error function: Giles' single-precision approximation ("Approximating the
// erfinv function", 2010), then two Newton steps on erf to reach double accuracy.
double erf_inverse(double y) {
  if (y <= -1) return -std::numeric_limits<double>::infinity();
  if (y >= 1) return std::numeric_limits<double>::infinity();
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * y;
  }
  const double two_over_sqrt_pi = 1.1283791670955126;
  for (int i = 0; i < 2; ++i) {
    x -= (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  }
  return x;
}

void softmax(double* s, int64_t n, bool keep_zeros) {
  double top = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    if (!(keep_zeros && s[i] == 0)) top = std::max(top, s[i]);
  }
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    s[i] = keep_zeros && s[i] == 0 ? 0.0 : std::exp(s[i] - top);
    sum += s[i];
  }
  if (sum > 0) {
    for (int64_t i = 0; i < n; ++i) s[i] /= sum;
  }
}

}  // namespace

PostTransform parse_post_transform(const NodeInfo& info, const std::string& name) {
  if (name == "NONE") return PostTransform::kNone;
  if (name == "SOFTMAX") return PostTransform::kSoftmax;
  if (name == "LOGISTIC") return PostTransform::kLogistic;
  if (name == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (name == "PROBIT") return PostTransform::kProbit;
  info.fail("post_transform must be NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT, got '" + name +
            "'");
}

PostTransform post_transform_from_int(const NodeInfo& info, int64_t value) {
  if (value < 0 || value > 4) {
    info.fail("post_transform must be 0 (NONE) to 4 (PROBIT), got " + std::to_string(value));
  }
  return static_cast<PostTransform>(value);
}

void apply_post_transform(PostTransform transform, double* scores, int64_t count) {
  switch (transform) {
    case PostTransform::kNone:
      return;
    case PostTransform::kSoftmax:
      softmax(scores, count, false);
      return;
    case PostTransform::kSoftmaxZero:
      softmax(scores, count, true);
      return;
    case PostTransform::kLogistic:
      for (int64_t i = 0; i < count; ++i) scores[i] = 1.0 / (1.0 + std::exp(-scores[i]));
      return;
    case PostTransform::kProbit:
      for (int64_t i = 0; i < count; ++i) {
        scores[i] = std::sqrt(2.0) * erf_inverse(2.0 * scores[i] - 1.0);
      }
      return;
  }
}

std::vector<double> numeric_values(const OpContext& ctx, const Tensor& t, const char* what) {
  std::vector<double> out(static_cast<size_t>(t.element_count()));
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T> || is_plain_int_v<T>) {
      const T* p = t.data<T>();
      for (size_t i = 0; i < out.size(); ++i) out[i] = to_double(p[i]);
    } else {
      ctx.fail(std::string(what) + " must be a number tensor, got " +
               std::string(dtype_name(t.dtype())));
    }
  });
  return out;
}

RowView as_rows(const OpContext& ctx, const Tensor& t) {
  const Shape& s = t.shape();
  if (s.size() > 2) ctx.fail("input must be 1-D or 2-D, got shape " + s.to_string());
  if (s.size() == 2) return {s[0], s[1]};
  if (s.size() == 1) return {1, s[0]};
  return {1, 1};
}

}  // namespace kiln::ml
