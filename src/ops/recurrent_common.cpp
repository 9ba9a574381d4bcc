#include "ops/recurrent_common.h"

#include <algorithm>
#include <string>

#include "backends/cpu/thread_pool.h"
#include "core/dtype_dispatch.h"

namespace kiln::recurrent {
namespace {

bool is_recurrent_dtype(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64 || t == DataType::Float16 ||
         t == DataType::BFloat16;
}

const char* input_name(size_t i) {
  static const char* const kNames[] = {"X",         "W",         "R", "B", "sequence_lens",
                                       "initial_h", "initial_c", "P"};
  return kNames[i];
}

void check_shape(const OpContext& ctx, size_t index, const Shape& expected) {
  const Tensor& t = ctx.input(index);
  if (t.shape() != expected) {
    ctx.fail(std::string("input ") + input_name(index) + " has shape " + t.shape().to_string() +
             ", expected " + expected.to_string());
  }
}

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

RecurrentAttributes parse_recurrent_attributes(const NodeInfo& info, const CellSpec& spec) {
  RecurrentAttributes a;
  const std::string direction = info.attr_string("direction", "forward");
  if (direction == "forward") {
    a.direction = Direction::kForward;
  } else if (direction == "reverse") {
    a.direction = Direction::kReverse;
  } else if (direction == "bidirectional") {
    a.direction = Direction::kBidirectional;
    a.num_directions = 2;
  } else {
    info.fail("attribute 'direction' must be forward, reverse or bidirectional, got '" + direction +
              "'");
  }
  if (info.has_attr("hidden_size")) {
    a.hidden_size = info.attr_int("hidden_size", 0);
    if (a.hidden_size < 0) info.fail("attribute 'hidden_size' must not be negative");
  }
  a.layout = info.attr_int("layout", 0);
  if (a.layout != 0 && a.layout != 1) {
    info.fail("attribute 'layout' must be 0 or 1, got " + std::to_string(a.layout));
  }
  if (info.has_attr("clip")) {
    a.clip = info.attr_float("clip", 0.0f);
    if (!(a.clip >= 0.0f)) info.fail("attribute 'clip' must be a non-negative threshold");
    a.has_clip = true;
  }
  a.activations_per_direction = static_cast<int64_t>(spec.activations.size());
  a.activations = parse_activations(info, spec.activations, a.num_directions);
  return a;
}

RecurrentShape check_inputs(const OpContext& ctx, const RecurrentAttributes& attrs,
                            const CellSpec& spec) {
  const Tensor& x = ctx.input(kX);
  if (!is_recurrent_dtype(x.dtype())) {
    ctx.fail("does not support " + std::string(dtype_name(x.dtype())) +
             " inputs (float, double, float16 or bfloat16 expected)");
  }
  const size_t last_input = spec.has_cell_state ? kPeepholes : kInitialH;
  for (size_t i = kW; i <= last_input; ++i) {
    if (i == kSequenceLens || !ctx.has_input(i)) continue;
    if (ctx.input(i).dtype() != x.dtype()) {
      ctx.fail(std::string("input ") + input_name(i) + " is " +
               std::string(dtype_name(ctx.input(i).dtype())) + " but X is " +
               std::string(dtype_name(x.dtype())));
    }
  }
  if (x.rank() != 3) ctx.fail("input X must have rank 3, got shape " + x.shape().to_string());
  const Tensor& r = ctx.input(kR);
  if (r.rank() != 3) ctx.fail("input R must have rank 3, got shape " + r.shape().to_string());

  RecurrentShape s;
  s.layout = attrs.layout;
  s.seq = x.shape()[attrs.layout == 0 ? 0 : 1];
  s.batch = x.shape()[attrs.layout == 0 ? 1 : 0];
  s.input = x.shape()[2];
  s.hidden = attrs.hidden_size >= 0 ? attrs.hidden_size : r.shape()[2];
  s.directions = attrs.num_directions;
  s.gates = spec.gates;
  const int64_t width = s.gate_width();
  check_shape(ctx, kW, {s.directions, width, s.input});
  check_shape(ctx, kR, {s.directions, width, s.hidden});
  if (ctx.has_input(kB)) check_shape(ctx, kB, {s.directions, 2 * width});
  if (ctx.has_input(kSequenceLens)) {
    const DataType t = ctx.input(kSequenceLens).dtype();
    if (t != DataType::Int32 && t != DataType::Int64) {
      ctx.fail("input sequence_lens must be int32, got " + std::string(dtype_name(t)));
    }
    check_shape(ctx, kSequenceLens, {s.batch});
  }
  if (ctx.has_input(kInitialH)) check_shape(ctx, kInitialH, s.state_shape());
  if (spec.has_cell_state) {
    if (ctx.has_input(kInitialC)) check_shape(ctx, kInitialC, s.state_shape());
    if (ctx.has_input(kPeepholes)) check_shape(ctx, kPeepholes, {s.directions, 3 * s.hidden});
  }
  return s;
}

const int64_t* read_sequence_lengths(const OpContext& ctx, const RecurrentShape& shape) {
  int64_t* lengths = scratch<int64_t>(Scratch::kLengths, shape.batch);
  if (!ctx.has_input(kSequenceLens)) {
    std::fill_n(lengths, shape.batch, shape.seq);
    return lengths;
  }
  const Tensor& t = ctx.input(kSequenceLens);
  for (int64_t b = 0; b < shape.batch; ++b) {
    lengths[b] = t.dtype() == DataType::Int32 ? t.data<int32_t>()[b] : t.data<int64_t>()[b];
    if (lengths[b] < 0 || lengths[b] > shape.seq) {
      ctx.fail("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(lengths[b]) +
               " is outside [0, " + std::to_string(shape.seq) + "]");
    }
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
  cpu::parallel_for(M, std::max<int64_t>(1, 16384 / work_per_row), [&](int64_t begin, int64_t end) {
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
