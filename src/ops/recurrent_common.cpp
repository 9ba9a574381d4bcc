#include "ops/recurrent_common.h"

#include <algorithm>
#include <string>

#include "core/dtype_dispatch.h"
#include "core/thread_pool.h"

namespace kiln::recurrent {
namespace {

// The elements of a float tensor of any supported type, as float.
std::vector<float> to_float_vector(const Tensor& t) {
  return visit_dtype(t.dtype(), [&]<class T>() {
    std::vector<float> out;
    if constexpr (is_float_like_v<T>) {
      const T* p = t.data<T>();
      out.resize(static_cast<size_t>(t.element_count()));
      for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(p[i]);
    }
    return out;
  });
}

bool is_packable(const Tensor* t, int64_t num_directions) {
  return t &&
         (t->dtype() == DataType::Float32 || t->dtype() == DataType::Float16 ||
          t->dtype() == DataType::BFloat16) &&
         t->rank() == 3 && t->shape()[0] == num_directions && t->element_count() > 0;
}

}  // namespace

const int64_t* read_sequence_lengths(const OpContext& ctx, const RecurrentShape& shape) {
  int64_t* lengths = scratch<int64_t>(Scratch::kLengths, shape.batch);
  for (int64_t b = 0; b < shape.batch; ++b) {
    lengths[b] = sequence_length({ctx.node(), ctx.inputs()}, shape, b);
  }
  return lengths;
}

std::shared_ptr<const PackedWeights> pack_constant_weights(const NodeInfo& info,
                                                           const RecurrentAttributes& attrs,
                                                           const CellSpec& spec) {
  auto packed = std::make_shared<PackedWeights>();
  const int64_t nd = attrs.num_directions;
  const Tensor* w = info.constant_input(kW);
  if (is_packable(w, nd)) {
    const int64_t rows = w->shape()[1], cols = w->shape()[2];
    const std::vector<float> values = to_float_vector(*w);
    for (int64_t d = 0; d < nd; ++d) {
      packed->w.push_back(cpu::pack_b(true, cols, rows, values.data() + d * rows * cols, cols));
    }
  }
  const Tensor* r = info.constant_input(kR);
  if (is_packable(r, nd) && r->shape()[1] == spec.gates * r->shape()[2]) {
    const int64_t hidden = r->shape()[2];
    const std::vector<float> values = to_float_vector(*r);
    for (int64_t d = 0; d < nd; ++d) {
      const float* rd = values.data() + d * spec.gates * hidden * hidden;
      for (const GateBlock& block : spec.recurrent_blocks) {
        packed->r.push_back(cpu::pack_b(true, hidden, block.gate_count * hidden,
                                        rd + block.first_gate * hidden * hidden, hidden));
      }
    }
  }
  return packed;
}

void multiply_transposed(int64_t M, const float* A, int64_t lda, const TransposedWeights<float>& w,
                         const float* bias, float* out, int64_t ldc) {
  if (M == 0 || w.rows == 0) return;
  cpu::GemmEpilogue epilogue;
  if (bias) {
    epilogue.bias_kind = cpu::GemmBias::kPerColumn;
    epilogue.bias = bias;
  }
  if (w.packed) {
    cpu::sgemm_packed(false, M, A, lda, *w.packed, out, ldc, epilogue);
  } else {
    cpu::sgemm(false, true, M, w.rows, w.cols, A, std::max<int64_t>(lda, 1), w.data,
               std::max<int64_t>(w.cols, 1), out, ldc, epilogue);
  }
}

void multiply_transposed(int64_t M, const double* A, int64_t lda,
                         const TransposedWeights<double>& w, const double* bias, double* out,
                         int64_t ldc) {
  const int64_t work_per_row = std::max<int64_t>(1, w.rows * w.cols);
  parallel_for(M, std::max<int64_t>(1, 16384 / work_per_row), [&](int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m) {
      const double* a = A + m * lda;
      for (int64_t n = 0; n < w.rows; ++n) {
        const double* wn = w.data + n * w.cols;
        double sum = bias ? bias[n] : 0.0;
        for (int64_t k = 0; k < w.cols; ++k) sum += a[k] * wn[k];
        out[m * ldc + n] = sum;
      }
    }
  });
}

}  // namespace kiln::recurrent
