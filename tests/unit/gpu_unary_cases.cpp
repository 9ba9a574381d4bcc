#include "gpu_unary_cases.h"

#include <cmath>
#include <random>
#include <sstream>

#include "test_util.h"

namespace kiln::testing {
namespace {

float other_value(float default_value) { return default_value * 0.75f + 0.1f; }

std::string label_of(const UnaryOpInfo& row, const UnaryParams& p, bool with_attrs) {
  std::ostringstream s;
  s << row.name;
  if (with_attrs) {
    s << "(" << row.alpha_attr << "=" << p.alpha;
    if (row.beta_attr) s << ", " << row.beta_attr << "=" << p.beta;
    s << ")";
  }
  return s.str();
}

}  // namespace

std::vector<GpuUnaryCase> gpu_unary_cases() {
  std::vector<GpuUnaryCase> cases;
  for (const UnaryOpInfo& row : kUnaryOps) {
    if (!row.onnx_type) continue;
    const std::string type = row.onnx_type;
    // sin, cos and tan reduce by pi/2 without Payne-Hanek: accurate to about 1e4.
    const float max_magnitude = type == "Sin" || type == "Cos" || type == "Tan" ? 1e3f : 1e30f;
    if (row.op == UnaryOp::Clip) {
      // From opset 11 the bounds are inputs; the kernel takes constant ones as parameters.
      cases.push_back(
          {{UnaryOp::Clip, -1.5f, 2.0f}, "Clip(-1.5, 2)", [](const Tensor& x) {
             return OpTest("Clip").input(x).input(f32({}, {-1.5f})).input(f32({}, {2.0f})).run()[0];
           }});
      continue;
    }
    const UnaryParams defaults{row.op, row.alpha_default, row.beta_default};
    cases.push_back({defaults, label_of(row, defaults, false),
                     [type](const Tensor& x) { return OpTest(type).input(x).run()[0]; },
                     max_magnitude});
    if (!row.alpha_attr) continue;
    const UnaryParams other{row.op, other_value(row.alpha_default),
                            row.beta_attr ? other_value(row.beta_default) : row.beta_default};
    cases.push_back({other, label_of(row, other, true),
                     [type, row, other](const Tensor& x) {
                       OpTest test(type);
                       test.input(x).attr(row.alpha_attr, other.alpha);
                       if (row.beta_attr) test.attr(row.beta_attr, other.beta);
                       return test.run()[0];
                     },
                     max_magnitude});
  }
  cases.push_back({{UnaryOp::GeluTanh}, "Gelu(approximate=tanh)", [](const Tensor& x) {
                     return OpTest("Gelu").input(x).attr("approximate", "tanh").run()[0];
                   }});
  return cases;
}

std::vector<float> gpu_unary_values(float max_magnitude) {
  std::vector<float> v = {
      0.0f,   -0.0f, 1e-30f, -1e-30f, 1e-7f,  -1e-7f, 1e-3f,      -1e-3f, 0.5f,    -0.5f,  1.0f,
      -1.0f,  1.5f,  -1.5f,  2.5f,    -2.5f,  3.0f,   -3.0f,      1.9f,   -1.9f,   2.1f,   -2.1f,
      3.7f,   -3.7f, 6.0f,   -6.0f,   9.5f,   -9.5f,  15.0f,      -15.0f, 30.0f,   -30.0f, 80.0f,
      -80.0f, 88.0f, -88.0f, 89.0f,   -89.0f, 100.0f, -100.0f,    104.0f, -104.0f, 1e3f,   -1e3f,
      1e4f,   -1e4f, 1e6f,   -1e6f,   1e30f,  -1e30f, 3.14159274f};
  for (float special : {INFINITY, -INFINITY, NAN}) v.push_back(special);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> spread(-12.0f, 12.0f);
  for (int i = 0; i < 1000; ++i) v.push_back(spread(rng));
  std::uniform_real_distribution<float> exponent(-6.0f, 6.0f);
  for (int i = 0; i < 200; ++i) v.push_back(std::pow(10.0f, exponent(rng)));
  std::erase_if(v, [&](float x) { return std::fabs(x) > max_magnitude; });
  if (v.size() % 4 == 0) v.push_back(0.25f);
  return v;
}

}  // namespace kiln::testing
