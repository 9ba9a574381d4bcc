// Helpers the ai.onnx.ml ops share: their post-transforms of scores and reading numeric
// feature tensors of any number type as doubles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/op_context.h"
#include "kernels/op_registry.h"
#include "kiln/tensor.h"

namespace kiln::ml {

enum class PostTransform { kNone, kSoftmax, kLogistic, kSoftmaxZero, kProbit };

// "NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"; info.fail for anything else.
PostTransform parse_post_transform(const NodeInfo& info, const std::string& name);
// Opset 5 TreeEnsemble numbers them 0..4 in the order above.
PostTransform post_transform_from_int(const NodeInfo& info, int64_t value);
// Transforms one row of scores in place.
void apply_post_transform(PostTransform transform, double* scores, int64_t count);

// The elements of a float, double, float16 or integer tensor as doubles; ctx.fail naming
// `what` for other types.
std::vector<double> numeric_values(const OpContext& ctx, const Tensor& t, const char* what);

// The input seen as [rows, columns]: a 1-D input is one row, a scalar one value.
struct RowView {
  int64_t rows = 1, columns = 1;
};
// ctx.fail for ranks above 2.
RowView as_rows(const OpContext& ctx, const Tensor& t);

}  // namespace kiln::ml
