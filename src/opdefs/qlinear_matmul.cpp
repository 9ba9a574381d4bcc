#include "opdefs/qlinear_matmul.h"

#include <string>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "core/element_storage.h"
#include "opdefs/quantize_linear.h"

namespace kiln {
namespace {

bool is_8bit(DataType t) { return t == DataType::Int8 || t == DataType::UInt8; }

// The elements of a real numeric tensor as doubles (exact for the 8-bit and float types).
std::vector<double> values(const NodeInputs& inputs, const Tensor& t, const char* what) {
  std::vector<double> out(static_cast<size_t>(t.element_count()));
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_complex_v<T> || std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
      inputs.fail(std::string(what) + " has the non-numeric type " +
                  std::string(dtype_name(t.dtype())));
    } else {
      const T* p = t.data<T>();
      for (size_t i = 0; i < out.size(); ++i) out[i] = to_double(p[i]);
    }
  });
  return out;
}

// A scale or zero point: one value, or `lines` values (rows of A, columns of B).
std::vector<double> line_params(const NodeInputs& inputs, size_t index, int64_t lines,
                                const char* what) {
  const Tensor& t = inputs.input(index);
  const int64_t n = t.element_count();
  if (n != 1 && (n != lines || t.rank() > 2)) {
    inputs.fail(std::string(what) + " of shape " + t.shape().to_string() +
                " is neither a single value nor one per " +
                (index < kQB ? "row of a" : "column of b"));
  }
  return values(inputs, t, what);
}

// The zero point of operand `index`, checked against the operand's type; 0 when absent.
std::vector<double> zero_points(const NodeInputs& inputs, size_t index, DataType operand,
                                int64_t lines, const char* what) {
  if (!inputs.has_input(index)) return {0.0};
  if (inputs.inputs[index].dtype() != operand) {
    inputs.fail(std::string(what) + " is " + std::string(dtype_name(inputs.inputs[index].dtype())) +
                " but its operand is " + std::string(dtype_name(operand)));
  }
  return line_params(inputs, index, lines, what);
}

double single_value(const NodeInputs& inputs, size_t index, const char* what) {
  const Tensor& t = inputs.input(index);
  if (t.element_count() != 1) {
    inputs.fail(std::string(what) + " must hold a single value, got shape " +
                t.shape().to_string());
  }
  return values(inputs, t, what)[0];
}

}  // namespace

void check_qlinear_matmul_operands(const NodeInputs& inputs) {
  for (size_t i : {kQA, kQAScale, kQB, kQBScale, kQYScale}) {
    if (!inputs.has_input(i)) inputs.fail("input " + std::to_string(i) + " is required");
  }
  if (!is_8bit(inputs.inputs[kQA].dtype()) || !is_8bit(inputs.inputs[kQB].dtype())) {
    inputs.fail("a and b must be int8 or uint8");
  }
}

QLinearMatMulParams resolve_qlinear_matmul(const NodeInputs& inputs, int64_t M, int64_t N) {
  const DataType a_type = inputs.input(kQA).dtype(), b_type = inputs.input(kQB).dtype();
  QLinearMatMulParams q;
  q.out_type = inputs.has_input(kQYZero) ? inputs.inputs[kQYZero].dtype() : a_type;
  if (!is_8bit(q.out_type)) inputs.fail("y_zero_point must be int8 or uint8");

  const DataType scale_type = inputs.input(kQAScale).dtype();
  for (size_t i : {kQAScale, kQBScale, kQYScale}) {
    const DataType t = inputs.input(i).dtype();
    if (t != DataType::Float32 && t != DataType::Float16 && t != DataType::BFloat16) {
      inputs.fail("scales must be float32, float16 or bfloat16, got " + std::string(dtype_name(t)));
    }
  }
  // Scales of one type multiply in that type; mixed types promote to float32.
  const bool same_type = inputs.inputs[kQBScale].dtype() == scale_type &&
                         inputs.inputs[kQYScale].dtype() == scale_type;
  const DataType precision = same_type ? scale_type : DataType::Float32;
  const std::vector<double> sa = line_params(inputs, kQAScale, M, "a_scale");
  const std::vector<double> sb = line_params(inputs, kQBScale, N, "b_scale");
  const double sy = single_value(inputs, kQYScale, "y_scale");
  q.a_zero = zero_points(inputs, kQAZero, a_type, M, "a_zero_point");
  q.b_zero = zero_points(inputs, kQBZero, b_type, N, "b_zero_point");
  q.y_zero = inputs.has_input(kQYZero) ? single_value(inputs, kQYZero, "y_zero_point") : 0.0;

  // One multiplier per (row, column) pair that the scales distinguish.
  q.rows = sa.size() == 1 ? 1 : M;
  q.cols = sb.size() == 1 ? 1 : N;
  q.multiplier.resize(static_cast<size_t>(q.rows * q.cols));
  for (int64_t m = 0; m < q.rows; ++m) {
    for (int64_t n = 0; n < q.cols; ++n) {
      const double s = round_to_precision(sa[m] * sb[n], precision);
      q.multiplier[m * q.cols + n] = round_to_precision(s / sy, precision);
    }
  }
  return q;
}

void check_matmul_integer_operands(const NodeInputs& inputs) {
  if (!is_8bit(inputs.input(0).dtype()) || !is_8bit(inputs.input(1).dtype())) {
    inputs.fail("operands must be int8 or uint8");
  }
}

std::vector<double> matmul_integer_zero_points(const NodeInputs& inputs, size_t index,
                                               int64_t lines, int64_t operand_batches) {
  if (!inputs.has_input(index)) return {0.0};
  const Tensor& operand = inputs.inputs[index - 2];
  const Tensor& t = inputs.inputs[index];
  if (t.dtype() != operand.dtype()) inputs.fail("a zero point's type differs from its operand's");
  const int64_t n = t.element_count();
  if (n != 1 && n != lines && n != lines * operand_batches) {
    inputs.fail("zero point of shape " + t.shape().to_string() +
                " fits neither per-tensor nor per-" + (index == 2 ? "row" : "column") +
                " quantization of an operand of shape " + operand.shape().to_string());
  }
  return values(inputs, t, "zero point");
}

}  // namespace kiln
