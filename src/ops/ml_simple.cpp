// The small elementwise and column ops of ai.onnx.ml: ArrayFeatureExtractor, Binarizer,
// Normalizer, Scaler, Imputer, FeatureVectorizer.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backends/cpu/strided_copy.h"
#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/ml_common.h"
#include "ops/ml_ops.h"

namespace kiln {
namespace {

// ---------------------------------------------------------------------------------------------
// ArrayFeatureExtractor: Z[..., j] = X[..., Y[j]] — picks columns of the last axis. A 1-D X
// gives a [1, count] result.

CpuKernel make_array_feature_extractor(const NodeInfo&) {
  return [](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (y.dtype() != DataType::Int64) {
      ctx.fail("Y must be an int64 tensor, got " + std::string(dtype_name(y.dtype())));
    }
    if (x.rank() == 0) ctx.fail("X must have at least one dimension");
    const int64_t extent = x.shape()[x.rank() - 1];
    const int64_t* picked = y.data<int64_t>();
    const int64_t count = y.element_count();
    for (int64_t j = 0; j < count; ++j) {
      if (picked[j] < 0 || picked[j] >= extent) {
        ctx.fail("index " + std::to_string(picked[j]) + " is out of range for a last axis of " +
                 std::to_string(extent));
      }
    }
    Shape out_shape = x.shape();
    if (x.rank() == 1) out_shape = Shape{1, count};
    out_shape[out_shape.size() - 1] = count;
    Tensor& z = ctx.allocate_output(0, x.dtype(), out_shape);
    const int64_t rows = extent == 0 ? 0 : x.element_count() / extent;
    const auto* src = static_cast<const std::byte*>(x.raw_data());
    auto* dst = static_cast<std::byte*>(z.mutable_raw_data());
    cpu::visit_element_mover(x.dtype(), [&]<class M>() {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < count; ++j) {
          M::copy(dst + (r * count + j) * M::size, src + (r * extent + picked[j]) * M::size);
        }
      }
    });
  };
}

// ---------------------------------------------------------------------------------------------
// Binarizer: 1 where X > threshold, else 0 (NaN gives 0), in X's type.

CpuKernel make_binarizer(const NodeInfo& info) {
  const double threshold = info.attr_float("threshold", 0.0f);
  return [threshold](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (std::is_floating_point_v<T> || is_plain_int_v<T>) {
        const T* in = x.data<T>();
        T* out = y.mutable_data<T>();
        for (int64_t i = 0; i < x.element_count(); ++i) {
          out[i] = static_cast<double>(in[i]) > threshold ? T(1) : T(0);
        }
      } else {
        ctx.fail("X must be a float, double or integer tensor, got " +
                 std::string(dtype_name(x.dtype())));
      }
    });
  };
}

// ---------------------------------------------------------------------------------------------
// Normalizer: each row divided by its largest absolute value (MAX), its L1 norm or its L2 norm.
// Rows of zeros stay zero (the divisor is at least 1e-30).

enum class Norm { kMax, kL1, kL2 };

CpuKernel make_normalizer(const NodeInfo& info) {
  const std::string name = info.attr_string("norm", "MAX");
  Norm norm = Norm::kMax;
  if (name == "L1") {
    norm = Norm::kL1;
  } else if (name == "L2") {
    norm = Norm::kL2;
  } else if (name != "MAX") {
    info.fail("norm must be MAX, L1 or L2, got '" + name + "'");
  }
  return [norm](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const ml::RowView view = ml::as_rows(ctx, x);
    const std::vector<double> values = ml::numeric_values(ctx, x, "X");
    float* out = ctx.allocate_output(0, DataType::Float32, x.shape()).mutable_data<float>();
    for (int64_t r = 0; r < view.rows; ++r) {
      const double* row = values.data() + r * view.columns;
      double divisor = 0;
      for (int64_t c = 0; c < view.columns; ++c) {
        const double v = std::abs(row[c]);
        if (norm == Norm::kMax) divisor = std::max(divisor, v);
        if (norm == Norm::kL1) divisor += v;
        if (norm == Norm::kL2) divisor += v * v;
      }
      if (norm == Norm::kL2) divisor = std::sqrt(divisor);
      divisor = std::max(divisor, 1e-30);
      for (int64_t c = 0; c < view.columns; ++c) {
        out[r * view.columns + c] = static_cast<float>(row[c] / divisor);
      }
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Scaler: Y = (X - offset) * scale, offset and scale one value or one per column.

// A per-column attribute list: one value for every column, or one each.
double column_value(const std::vector<float>& list, int64_t column, double fallback) {
  if (list.empty()) return fallback;
  return list.size() == 1 ? list[0] : list[static_cast<size_t>(column)];
}

void check_column_list(const OpContext& ctx, const std::vector<float>& list, int64_t columns,
                       const char* name) {
  if (list.size() > 1 && static_cast<int64_t>(list.size()) != columns) {
    ctx.fail(std::string(name) + " has " + std::to_string(list.size()) + " values for " +
             std::to_string(columns) + " columns");
  }
}

CpuKernel make_scaler(const NodeInfo& info) {
  const std::vector<float> offset = info.attr_floats("offset");
  const std::vector<float> scale = info.attr_floats("scale");
  return [offset, scale](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const ml::RowView view = ml::as_rows(ctx, x);
    check_column_list(ctx, offset, view.columns, "offset");
    check_column_list(ctx, scale, view.columns, "scale");
    const std::vector<double> values = ml::numeric_values(ctx, x, "X");
    float* out = ctx.allocate_output(0, DataType::Float32, x.shape()).mutable_data<float>();
    for (int64_t i = 0; i < x.element_count(); ++i) {
      const int64_t c = i % view.columns;
      out[i] = static_cast<float>((values[i] - column_value(offset, c, 0.0)) *
                                  column_value(scale, c, 1.0));
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Imputer: replaces every element equal to the replaced value (NaN matches NaN) by the imputed
// value of its column.

CpuKernel make_imputer(const NodeInfo& info) {
  const std::vector<float> imputed_floats = info.attr_floats("imputed_value_floats");
  const std::vector<int64_t> imputed_ints = info.attr_ints("imputed_value_int64s");
  const float replaced_float = info.attr_float("replaced_value_float", 0.0f);
  const int64_t replaced_int = info.attr_int("replaced_value_int64", 0);
  if (imputed_floats.empty() == imputed_ints.empty()) {
    info.fail("exactly one of imputed_value_floats and imputed_value_int64s is needed");
  }
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const ml::RowView view = ml::as_rows(ctx, x);
    const size_t given = imputed_floats.empty() ? imputed_ints.size() : imputed_floats.size();
    if (given != 1 && static_cast<int64_t>(given) != view.columns) {
      ctx.fail("the imputed values number " + std::to_string(given) + ", not 1 or " +
               std::to_string(view.columns));
    }
    const auto imputed = [&](int64_t c) {
      const size_t k = given == 1 ? 0 : static_cast<size_t>(c);
      return imputed_floats.empty() ? static_cast<double>(imputed_ints[k])
                                    : static_cast<double>(imputed_floats[k]);
    };
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    visit_dtype(x.dtype(), [&]<class T>() {
      if constexpr (std::is_floating_point_v<T> || is_plain_int_v<T>) {
        const T* in = x.data<T>();
        T* out = y.mutable_data<T>();
        for (int64_t i = 0; i < x.element_count(); ++i) {
          bool replace;
          if constexpr (std::is_floating_point_v<T>) {
            replace = std::isnan(replaced_float) ? std::isnan(in[i])
                                                 : in[i] == static_cast<T>(replaced_float);
          } else {
            replace = static_cast<int64_t>(in[i]) == replaced_int;
          }
          out[i] = replace ? static_cast<T>(imputed(i % view.columns)) : in[i];
        }
      } else {
        ctx.fail("X must be a float, double or integer tensor, got " +
                 std::string(dtype_name(x.dtype())));
      }
    });
  };
}

// ---------------------------------------------------------------------------------------------
// FeatureVectorizer: concatenates the columns of its inputs into one float row per sample;
// input i contributes inputdimensions[i] columns, cut or zero-padded to that width.

CpuKernel make_feature_vectorizer(const NodeInfo& info) {
  const std::vector<int64_t> widths = info.attr_ints("inputdimensions");
  int64_t total = 0;
  for (int64_t w : widths) {
    if (w < 0) info.fail("inputdimensions must not be negative");
    if (__builtin_add_overflow(total, w, &total)) info.fail("inputdimensions sum past 2^63");
  }
  return [widths, total](OpContext& ctx) {
    if (ctx.num_inputs() != widths.size()) {
      ctx.fail("inputdimensions has " + std::to_string(widths.size()) + " entries for " +
               std::to_string(ctx.num_inputs()) + " inputs");
    }
    int64_t rows = -1;
    std::vector<std::vector<double>> values;
    std::vector<int64_t> columns;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      const ml::RowView view = ml::as_rows(ctx, x);
      if (rows >= 0 && view.rows != rows) ctx.fail("the inputs have different numbers of rows");
      rows = view.rows;
      columns.push_back(view.columns);
      values.push_back(ml::numeric_values(ctx, x, "input"));
    }
    if (rows < 0) rows = 1;
    float* out =
        ctx.allocate_output(0, DataType::Float32, Shape{rows, total}).mutable_data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      float* row = out + r * total;
      for (size_t i = 0; i < widths.size(); ++i) {
        for (int64_t c = 0; c < widths[i]; ++c) {
          row[c] = c < columns[i] ? static_cast<float>(values[i][r * columns[i] + c]) : 0.0f;
        }
        row += widths[i];
      }
    }
  };
}

}  // namespace

KILN_CPU_OPS(ml_simple);
void register_ml_simple_ops(OpRegistry& registry) {
  registry.add(kMlDomain, "ArrayFeatureExtractor", make_array_feature_extractor);
  registry.add(kMlDomain, "Binarizer", make_binarizer);
  registry.add(kMlDomain, "Normalizer", make_normalizer);
  registry.add(kMlDomain, "Scaler", make_scaler);
  registry.add(kMlDomain, "Imputer", make_imputer);
  registry.add(kMlDomain, "FeatureVectorizer", make_feature_vectorizer);
}

}  // namespace kiln
