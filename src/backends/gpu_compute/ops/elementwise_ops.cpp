// Element-wise ops on the GPU: float32 binary arithmetic with broadcasting, integer arithmetic
// on 8- to 64-bit signed and unsigned integers (shaders/integer_elementwise.comp), and the unary
// math and activation functions (shaders/binary_elementwise.comp, shaders/unary_elementwise.comp).
// Pow takes mixed base and exponent types, Clip bounds computed on the device and integers.
#include <algorithm>
#include <optional>
#include <vector>

#include "backends/gpu_compute/binary_elementwise.h"
#include "backends/gpu_compute/cast.h"
#include "backends/gpu_compute/integer_elementwise.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/region_copy.h"
#include "backends/gpu_compute/unary_elementwise.h"
#include "core/tensor_impl.h"
#include "opdefs/bit_shift.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_compute {
namespace {

// The types the integer kernel computes on, and with float32 what the arithmetic ops take.
const std::initializer_list<DataType> kIntegers = {
    DataType::Int8,  DataType::UInt8,  DataType::Int16, DataType::UInt16,
    DataType::Int32, DataType::UInt32, DataType::Int64, DataType::UInt64};
const std::initializer_list<DataType> kNumbers = {
    DataType::Float32, DataType::Int8,   DataType::UInt8, DataType::Int16, DataType::UInt16,
    DataType::Int32,   DataType::UInt32, DataType::Int64, DataType::UInt64};

RecordFn binary(BinaryOp op) {
  return [op](OpRecorder& r) {
    const Shape out = broadcast_shapes(r.shape(0), r.shape(1), "binary op");
    const Buffer& a = r.buffer(0);
    const Buffer& b = r.buffer(1);
    const Buffer& c = r.output(0, DataType::Float32, out);
    r.kernel<BinaryElementwise>().record(r.cmd(), r.arena(), op, a, r.shape(0), b, r.shape(1), c);
  };
}

// Whether the host tensor `t` (of an integer type) holds a zero (a divisor the CPU kernel
// rejects): some element's bytes all zero.
bool has_zero(const Tensor& t) {
  const auto* bytes = static_cast<const uint8_t*>(t.raw_data());
  const size_t size = dtype_size(t.dtype());
  for (int64_t i = 0; i < t.element_count(); ++i) {
    const uint8_t* e = bytes + static_cast<size_t>(i) * size;
    if (std::all_of(e, e + size, [](uint8_t b) { return b == 0; })) return true;
  }
  return false;
}

bool takes_inputs(const DevicePlacementQuery& q, size_t n, std::string& reason) {
  if (q.info.num_inputs() == n) return true;
  reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel " +
           std::to_string(n) + ")";
  return false;
}

// Integer arithmetic (kIntegers); unary ops bind input 0 twice.
void record_integer(OpRecorder& r, IntegerOp op) {
  if (!r.device().info().has_int64)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
  const bool unary = op == IntegerOp::Neg || op == IntegerOp::Abs || op == IntegerOp::BitwiseNot;
  const size_t k_b = unary ? 0 : 1;
  if (r.dtype(k_b) != r.dtype(0) && op != IntegerOp::PowFloatExponent)
    throw RunOnCpu(RunTimeCause::InputKind, "operand types differ");
  const bool divides = op == IntegerOp::Div || op == IntegerOp::Mod || op == IntegerOp::FMod;
  // A divisor the host can see is checked, so that zero fails as on the CPU; one computed on
  // the device gives 0 where it is zero (see the shader).
  if (divides && !r.input(1).impl()->device && has_zero(r.input(1)))
    throw RunOnCpu(RunTimeCause::InputValues,
                   "integer division by zero; the CPU kernel reports it");
  const IntegerPushConstants pc = integer_push_constants(op, r.dtype(0), r.shape(0), r.shape(k_b));
  const Buffer& a = r.buffer(0);
  const Buffer& b = r.buffer(k_b);
  const Buffer& c =
      r.output(0, r.dtype(0), broadcast_shapes(r.shape(0), r.shape(k_b), "binary op"));
  r.kernel<IntegerElementwise>().record(r.cmd(), r.arena(), pc, a, b, c);
}

// Float32 through the float kernel (when it has the op), the integers through the integer one.
OpFactory binary_factory(std::optional<BinaryOp> float_op, std::optional<IntegerOp> int_op) {
  return [float_op, int_op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    std::vector<DataType> allowed;
    if (float_op) allowed.push_back(DataType::Float32);
    if (int_op) allowed.insert(allowed.end(), kIntegers.begin(), kIntegers.end());
    for (size_t k = 0; k < q.info.num_inputs(); ++k) {
      if (!inputs_are(q, kNumbers, reason, k, 1)) return nullptr;
      const DataType t = q.input_types[k];
      if (t != DataType::Undefined &&
          std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
        reason = "no " + std::string(dtype_name(t)) + " kernel for this op";
        return nullptr;
      }
    }
    if (q.info.num_inputs() != 2) {
      reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel 2)";
      return nullptr;
    }
    RecordFn float_record = float_op ? binary(*float_op) : RecordFn();
    return [float_record, int_op](OpRecorder& r) {
      if (r.dtype(0) == DataType::Float32) {
        if (!float_record || r.dtype(1) != DataType::Float32)
          throw RunOnCpu(RunTimeCause::InputKind, "no GPU kernel for these types");
        float_record(r);
      } else {
        if (!int_op) throw RunOnCpu(RunTimeCause::InputKind, "no GPU kernel for these types");
        record_integer(r, *int_op);
      }
    };
  };
}

OpFactory binary_factory(BinaryOp op) { return binary_factory(op, std::nullopt); }

bool is_integer(DataType t) {
  return std::find(kIntegers.begin(), kIntegers.end(), t) != kIntegers.end();
}

// Whether the kernels raise a `base` to an `exponent` (see pow_factory).
bool pow_types_supported(DataType base, DataType exponent) {
  if (base == DataType::Float32) return exponent == DataType::Float32 || is_integer(exponent);
  if (exponent == DataType::Float32) return base == DataType::Int32 || base == DataType::Int64;
  return is_integer(base) && exponent == base;
}

// A float32 base to an integer power: the exponent cast to float32 on the device, then the float
// kernel's Pow (the CPU computes in double and rounds once; exponents beyond 2^24 round here).
void record_float_pow_integer_exponent(OpRecorder& r) {
  if (!r.device().info().has_int64)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
  const Shape& e_shape = r.shape(1);
  const auto n = static_cast<uint64_t>(e_shape.element_count());
  const Buffer& e = r.buffer(1);
  const Buffer& e_float = r.scratch(static_cast<size_t>(std::max<uint64_t>(n, 1)) * sizeof(float));
  r.kernel<WideCast>().record(r.cmd(), r.arena(), r.dtype(1), e, DataType::Float32, e_float, n,
                              CastOptions{});
  const Buffer& x = r.buffer(0);
  const Buffer& c =
      r.output(0, DataType::Float32, broadcast_shapes(r.shape(0), e_shape, "binary op"));
  r.kernel<BinaryElementwise>().record(r.cmd(), r.arena(), BinaryOp::Pow, x, r.shape(0), e_float,
                                       e_shape, c);
}

// Pow of float32 by float32 or by any integer type, of an integer by its own type (repeated
// squaring, wrapping), and of int32 or int64 by float32; the result has the base's type.
OpFactory pow_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kNumbers, reason)) return nullptr;
    if (!takes_inputs(q, 2, reason)) return nullptr;
    const DataType base = q.input_types[0], exponent = q.input_types[1];
    if (base != DataType::Undefined && exponent != DataType::Undefined &&
        !pow_types_supported(base, exponent)) {
      reason = "no GPU kernel for " + std::string(dtype_name(base)) + " to a " +
               std::string(dtype_name(exponent)) + " power";
      return nullptr;
    }
    return [float_pow = binary(BinaryOp::Pow)](OpRecorder& r) {
      const DataType b = r.dtype(0), e = r.dtype(1);
      if (!pow_types_supported(b, e))
        throw RunOnCpu(RunTimeCause::InputKind, "no GPU kernel for these types");
      if (b == DataType::Float32) {
        if (e == DataType::Float32) {
          float_pow(r);
        } else {
          record_float_pow_integer_exponent(r);
        }
      } else {
        record_integer(r, e == DataType::Float32 ? IntegerOp::PowFloatExponent : IntegerOp::Pow);
      }
    };
  };
}

// BitShift: the unsigned integers (the CPU kernel rejects the signed ones).
const std::initializer_list<DataType> kUnsigned = {DataType::UInt8, DataType::UInt16,
                                                   DataType::UInt32, DataType::UInt64};

OpFactory bit_shift_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kUnsigned, reason)) return nullptr;
    const IntegerOp op =
        parse_bit_shift_left(q.info) ? IntegerOp::BitShiftLeft : IntegerOp::BitShiftRight;
    RecordFn shift = binary_factory(std::nullopt, op)(q, reason);
    if (!shift) return nullptr;
    return [shift](OpRecorder& r) {
      if (std::find(kUnsigned.begin(), kUnsigned.end(), r.dtype(0)) == kUnsigned.end())
        throw RunOnCpu(RunTimeCause::InputKind,
                       "BitShift of a signed type; the CPU kernel reports it");
      shift(r);
    };
  };
}

// Sum, Max and Min of more than two float32 inputs: the first broadcast into the output, then
// one in-place dispatch per further input (each element reads and writes only itself). `mean`
// divides the result by the input count at the end.
RecordFn float_chain(BinaryOp op, bool mean = false) {
  return [op, mean](OpRecorder& r) {
    Shape out = r.shape(0);
    for (size_t k = 0; k < r.num_inputs(); ++k) {
      if (r.dtype(k) != DataType::Float32)
        throw RunOnCpu(RunTimeCause::InputKind, "no GPU kernel for these types");
      out = broadcast_shapes(out, r.shape(k), "binary op");
    }
    const Buffer& first = r.buffer(0);
    const Buffer& c = r.output(0, DataType::Float32, out);
    r.kernel<RegionCopy>().record(r.cmd(), r.arena(), expand_region(r.shape(0), out),
                                  DataType::Float32, first, c);
    for (size_t k = 1; k < r.num_inputs(); ++k) {
      const Buffer& b = r.buffer(k);
      r.kernel<BinaryElementwise>().record(r.cmd(), r.arena(), op, c, out, b, r.shape(k), c);
    }
    if (mean) {
      const UnaryParams divide{UnaryOp::DivideBy, static_cast<float>(r.num_inputs())};
      r.kernel<UnaryElementwise>().record(r.cmd(), r.arena(), divide, c, c,
                                          static_cast<uint64_t>(out.element_count()));
    }
  };
}

// Sum, Max, Min and Mean of one input: the input itself, shared as the CPU op shares it.
void record_identity(OpRecorder& r) { r.output_view(0, 0, r.shape(0)); }

// Mean of float32 inputs: their sum divided by the count, as the CPU computes it.
OpFactory mean_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!every_input_present(q.info, reason) || !inputs_are(q, {DataType::Float32}, reason))
      return nullptr;
    if (q.info.num_inputs() == 1) return record_identity;
    return float_chain(BinaryOp::Add, true);
  };
}

// One input as itself; two as a binary op (float or integer); more as a float32 chain.
OpFactory variadic_factory(BinaryOp op, IntegerOp int_op) {
  OpFactory two = binary_factory(op, int_op);
  return [two, op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!every_input_present(q.info, reason)) return nullptr;
    if (q.info.num_inputs() == 1) {
      if (!inputs_are(q, kNumbers, reason)) return nullptr;
      return record_identity;
    }
    if (q.info.num_inputs() == 2) return two(q, reason);
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return float_chain(op);
  };
}

// PRelu: the slope broadcasts to X, never the other way (the CPU kernel reports that).
// Before opset 7 a 1-D slope meant per channel; those models stay on the CPU.
OpFactory prelu_factory() {
  OpFactory plain = binary_factory(BinaryOp::PRelu);
  return [plain](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (q.info.opset() < 7) {
      reason = "PRelu before opset 7 has its own slope layout";
      return nullptr;
    }
    RecordFn record = plain(q, reason);
    if (!record) return nullptr;
    return [record](OpRecorder& r) {
      if (broadcast_shapes(r.shape(0), r.shape(1), "binary op") != r.shape(0))
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "slope does not broadcast to X");
      record(r);
    };
  };
}

RecordFn unary(UnaryParams params) {
  return [params](OpRecorder& r) {
    const Buffer& x = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, r.shape(0));
    r.kernel<UnaryElementwise>().record(r.cmd(), r.arena(), params, x, y,
                                        static_cast<uint64_t>(r.shape(0).element_count()));
  };
}

// The unary ops and activations, their parameters read from the node at load time.
OpFactory unary_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason, 0, 1)) return nullptr;
    std::optional<UnaryParams> params = unary_params(q.info, reason);
    if (!params) return nullptr;
    return unary(*params);
  };
}

// Clip of the integers, and of float32 with bounds that are no constants: each bound present (a
// one-element tensor of X's type, read on the device) applied by a broadcast dispatch, below
// then above, as the CPU applies them (so min > max gives max). No bound: X itself.
void record_clip_with_bound_inputs(OpRecorder& r) {
  const DataType dt = r.dtype(0);
  const Shape& x_shape = r.shape(0);
  std::vector<size_t> bounds;
  for (size_t k = 1; k <= 2; ++k) {
    if (!r.has_input(k)) continue;
    if (r.dtype(k) != dt || r.shape(k).element_count() != 1)
      throw RunOnCpu(RunTimeCause::InputKind,
                     "a Clip bound that is no one-element tensor of X's type; the CPU kernel "
                     "reports it");
    bounds.push_back(k);
  }
  if (bounds.empty()) {
    record_identity(r);
    return;
  }
  if (dt != DataType::Float32 && !r.device().info().has_int64)
    throw RunOnCpu(RunTimeCause::DeviceLimit, "the device lacks shaderInt64");
  const Shape one{};  // each bound broadcast as a scalar, whatever its rank
  const Buffer& x = r.buffer(0);
  const Buffer& y = r.output(0, dt, x_shape);
  for (size_t i = 0; i < bounds.size(); ++i) {
    const size_t k = bounds[i];
    const Buffer& bound = r.buffer(k);
    const Buffer& from = i == 0 ? x : y;  // the second bound applies in place
    if (dt == DataType::Float32) {
      const BinaryOp op = k == 1 ? BinaryOp::ClipBelow : BinaryOp::ClipAbove;
      r.kernel<BinaryElementwise>().record(r.cmd(), r.arena(), op, from, x_shape, bound, one, y);
    } else {
      const IntegerOp op = k == 1 ? IntegerOp::Max : IntegerOp::Min;
      r.kernel<IntegerElementwise>().record(
          r.cmd(), r.arena(), integer_push_constants(op, dt, x_shape, one), from, bound, y);
    }
  }
}

// Clip: float32 with constant bounds (attributes before opset 11, constant inputs after) through
// the unary kernel in one dispatch; from opset 11 any other float32 or integer Clip through
// record_clip_with_bound_inputs.
OpFactory clip_factory() {
  OpFactory constant_bounds = unary_factory();
  return [constant_bounds](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (q.info.opset() < 11) return constant_bounds(q, reason);
    if (!inputs_are(q, kNumbers, reason, 0, 1)) return nullptr;
    if (!q.input_types.empty() && q.input_types[0] == DataType::Float32) {
      std::string bounds_not_constant;
      if (RecordFn record = constant_bounds(q, bounds_not_constant)) return record;
    }
    return record_clip_with_bound_inputs;
  };
}

// SwiGLU(a, b) = Swish(a, alpha) * b: Swish into a scratch buffer of a's shape (the unary
// kernel), then the product with b broadcast (the binary kernel), rounded twice as on the CPU.
OpFactory swiglu_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!takes_inputs(q, 2, reason) || !inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const UnaryParams swish{UnaryOp::Swish, q.info.attr_float("alpha", 1.0f)};
    return [swish](OpRecorder& r) {
      const Shape& a_shape = r.shape(0);
      const Shape out = broadcast_shapes(a_shape, r.shape(1), "SwiGLU");
      const auto n = static_cast<uint64_t>(a_shape.element_count());
      const Buffer& a = r.buffer(0);
      const Buffer& b = r.buffer(1);
      const Buffer& gate = r.scratch(static_cast<size_t>(std::max<uint64_t>(n, 1)) * sizeof(float));
      r.kernel<UnaryElementwise>().record(r.cmd(), r.arena(), swish, a, gate, n);
      const Buffer& y = r.output(0, DataType::Float32, out);
      r.kernel<BinaryElementwise>().record(r.cmd(), r.arena(), BinaryOp::Mul, gate, a_shape, b,
                                           r.shape(1), y);
    };
  };
}

// Neg and Abs: float32 through the unary kernel, int32/int64 through the integer one.
OpFactory signed_unary(UnaryOp float_op, IntegerOp int_op) {
  return [float_op, int_op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32, DataType::Int32, DataType::Int64}, reason, 0, 1))
      return nullptr;
    RecordFn float_record = unary(UnaryParams{float_op});
    return [float_record, int_op](OpRecorder& r) {
      if (r.dtype(0) == DataType::Float32) {
        float_record(r);
      } else {
        record_integer(r, int_op);
      }
    };
  };
}

// BitwiseNot: the integers only, through the integer kernel.
OpFactory bitwise_not() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kIntegers, reason, 0, 1)) return nullptr;
    return [](OpRecorder& r) { record_integer(r, IntegerOp::BitwiseNot); };
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(elementwise);
void register_elementwise_ops(OpTable& t) {
  t.add("Add", binary_factory(BinaryOp::Add, IntegerOp::Add));
  t.add("Sub", binary_factory(BinaryOp::Sub, IntegerOp::Sub));
  t.add("Mul", binary_factory(BinaryOp::Mul, IntegerOp::Mul));
  t.add("Div", binary_factory(BinaryOp::Div, IntegerOp::Div));
  t.add("Pow", pow_factory());
  t.add("Max", variadic_factory(BinaryOp::Max, IntegerOp::Max));
  t.add("Min", variadic_factory(BinaryOp::Min, IntegerOp::Min));
  t.add("Mod", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    // Float Mod must be C's fmod (fmod=1); fmod=0 on floats fails on the CPU.
    const bool fmod = q.info.attr_int("fmod", 0) != 0;
    return binary_factory(fmod ? std::optional(BinaryOp::Mod) : std::nullopt,
                          fmod ? IntegerOp::FMod : IntegerOp::Mod)(q, reason);
  });
  t.add("Sum", variadic_factory(BinaryOp::Add, IntegerOp::Add));
  t.add("Mean", mean_factory());
  t.add("PRelu", prelu_factory());

  t.add("Abs", signed_unary(UnaryOp::Abs, IntegerOp::Abs));
  t.add("BitwiseAnd", binary_factory(std::nullopt, IntegerOp::BitwiseAnd));
  t.add("BitwiseOr", binary_factory(std::nullopt, IntegerOp::BitwiseOr));
  t.add("BitwiseXor", binary_factory(std::nullopt, IntegerOp::BitwiseXor));
  t.add("BitwiseNot", bitwise_not());
  t.add("BitShift", bit_shift_factory());
  t.add("Clip", clip_factory());
  t.add("SwiGLU", swiglu_factory());
  t.add("Neg", signed_unary(UnaryOp::Neg, IntegerOp::Neg));
  // Every other op of the shared table (gpu_common/unary_ops.inc).
  for (const std::string& op : unary_onnx_types()) {
    if (op == "Abs" || op == "Neg" || op == "Clip") continue;
    t.add(op, unary_factory());
  }
}

}  // namespace kiln::gpu_compute
