// LinearRegressor and LinearClassifier (ai.onnx.ml): scores = X * coefficients^T + intercepts
// with the coefficients given row-major as [targets or classes, features].
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/ml_common.h"
#include "ops/ml_ops.h"

namespace kiln {
namespace {

// scores[r, t] = sum_c x[r, c] * coefficients[t, c] + intercepts[t] for `outputs` rows of
// coefficients; ctx.fail when the coefficients do not fit X's columns.
std::vector<double> linear_scores(OpContext& ctx, const std::vector<float>& coefficients,
                                  const std::vector<float>& intercepts, int64_t& rows,
                                  int64_t& outputs) {
  const Tensor& x = ctx.input(0);
  const ml::RowView view = ml::as_rows(ctx, x);
  const auto size = static_cast<int64_t>(coefficients.size());
  if (view.columns == 0 || size % view.columns != 0 || size == 0) {
    ctx.fail(std::to_string(size) + " coefficients do not fit " + std::to_string(view.columns) +
             " features");
  }
  outputs = size / view.columns;
  if (!intercepts.empty() && static_cast<int64_t>(intercepts.size()) != outputs) {
    ctx.fail(std::to_string(intercepts.size()) + " intercepts for " + std::to_string(outputs) +
             " outputs");
  }
  const std::vector<double> values = ml::numeric_values(ctx, x, "X");
  rows = view.rows;
  std::vector<double> scores(static_cast<size_t>(rows * outputs));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t t = 0; t < outputs; ++t) {
      double sum = intercepts.empty() ? 0.0 : intercepts[t];
      for (int64_t c = 0; c < view.columns; ++c) {
        sum += values[r * view.columns + c] * coefficients[t * view.columns + c];
      }
      scores[r * outputs + t] = sum;
    }
  }
  return scores;
}

CpuKernel make_linear_regressor(const NodeInfo& info) {
  const std::vector<float> coefficients = info.attr_floats("coefficients");
  const std::vector<float> intercepts = info.attr_floats("intercepts");
  const int64_t targets = info.attr_int("targets", 1);
  const ml::PostTransform post =
      ml::parse_post_transform(info, info.attr_string("post_transform", "NONE"));
  if (targets < 1) info.fail("targets must be positive");
  return [=](OpContext& ctx) {
    int64_t rows = 0, outputs = 0;
    std::vector<double> scores = linear_scores(ctx, coefficients, intercepts, rows, outputs);
    if (outputs != targets) {
      ctx.fail("the coefficients give " + std::to_string(outputs) +
               " outputs, not targets = " + std::to_string(targets));
    }
    float* y =
        ctx.allocate_output(0, DataType::Float32, Shape{rows, targets}).mutable_data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      ml::apply_post_transform(post, scores.data() + r * targets, targets);
      for (int64_t t = 0; t < targets; ++t) {
        y[r * targets + t] = static_cast<float>(scores[r * targets + t]);
      }
    }
  };
}

CpuKernel make_linear_classifier(const NodeInfo& info) {
  const std::vector<float> coefficients = info.attr_floats("coefficients");
  const std::vector<float> intercepts = info.attr_floats("intercepts");
  const std::vector<int64_t> int_labels = info.attr_ints("classlabels_ints");
  const std::vector<std::string> string_labels = info.attr_strings("classlabels_strings");
  if (int_labels.empty() == string_labels.empty()) {
    info.fail("exactly one of classlabels_ints and classlabels_strings is needed");
  }
  const auto classes = static_cast<int64_t>(std::max(int_labels.size(), string_labels.size()));
  const ml::PostTransform post =
      ml::parse_post_transform(info, info.attr_string("post_transform", "NONE"));
  return [=](OpContext& ctx) {
    int64_t rows = 0, outputs = 0;
    std::vector<double> scores = linear_scores(ctx, coefficients, intercepts, rows, outputs);
    // One row of coefficients for two classes scores the second class: (-s, s).
    const bool binary = outputs == 1 && classes == 2;
    const int64_t width = binary ? 2 : outputs;
    if (width > 1 && width != classes) {
      ctx.fail("the coefficients give " + std::to_string(outputs) + " scores for " +
               std::to_string(classes) + " classes");
    }
    const bool ints = !int_labels.empty();
    Tensor& y = ctx.allocate_output(0, ints ? DataType::Int64 : DataType::String, Shape{rows});
    float* z = ctx.allocate_output(1, DataType::Float32, Shape{rows, width}).mutable_data<float>();
    std::vector<double> row(static_cast<size_t>(width));
    for (int64_t r = 0; r < rows; ++r) {
      if (binary) {
        row[0] = -scores[r];
        row[1] = scores[r];
      } else {
        std::copy(scores.begin() + r * width, scores.begin() + (r + 1) * width, row.begin());
      }
      ml::apply_post_transform(post, row.data(), width);
      for (int64_t c = 0; c < width; ++c) z[r * width + c] = static_cast<float>(row[c]);
      if (width > 1) {
        const int64_t best = std::max_element(row.begin(), row.end()) - row.begin();
        if (ints) {
          y.mutable_data<int64_t>()[r] = int_labels[best];
        } else {
          y.mutable_data<std::string>()[r] = string_labels[best];
        }
      } else {
        // A single score: the first class when it reaches the threshold, else none.
        const bool positive = row[0] >= (post == ml::PostTransform::kNone ? 0.0 : 0.5);
        if (ints) {
          y.mutable_data<int64_t>()[r] = positive ? int_labels[0] : 0;
        } else {
          y.mutable_data<std::string>()[r] = positive ? string_labels[0] : std::string();
        }
      }
    }
  };
}

}  // namespace

KILN_CPU_OPS(ml_linear);
void register_ml_linear_ops(OpRegistry& registry) {
  registry.add(kMlDomain, "LinearRegressor", make_linear_regressor);
  registry.add(kMlDomain, "LinearClassifier", make_linear_classifier);
}

}  // namespace kiln
