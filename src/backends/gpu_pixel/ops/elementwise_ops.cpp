// Element-wise ops as draws: float32 and float16 binary arithmetic with broadcasting, Sum, Max,
// Min and Mean of any number of inputs, and the unary math and activation functions
// (backends/gpu_pixel/binary_elementwise, variadic_elementwise, unary_elementwise); integer
// arithmetic, the bit ops and BitShift on the 8- to 64-bit integers (integer_arithmetic); the
// comparisons of any texture dtype (integer_compare for the integer textures') and the logical
// ops on bool, which write bool, and Where (backends/gpu_pixel/where) of any texture dtype.
#include <algorithm>
#include <list>
#include <optional>
#include <span>
#include <vector>

#include "backends/gpu_pixel/binary_elementwise.h"
#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/integer_arithmetic.h"
#include "backends/gpu_pixel/integer_cast.h"
#include "backends/gpu_pixel/integer_compare.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "backends/gpu_pixel/unary_elementwise.h"
#include "backends/gpu_pixel/variadic_elementwise.h"
#include "backends/gpu_pixel/where.h"
#include "opdefs/bit_shift.h"

namespace kiln::gpu_pixel {
namespace {

// numpy's broadcast of `a` and `b`, what the draws take; nullopt when the shapes do not
// broadcast that way (PRelu's legacy per-channel slope does not: the CPU kernel takes it).
std::optional<Shape> numpy_broadcast(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out;
  out.resize(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

Shape broadcast(const Shape& a, const Shape& b) {
  std::optional<Shape> out = numpy_broadcast(a, b);
  if (!out) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "shapes do not broadcast");
  return *out;
}

// False, with `reason`, when every input's shape is fixed at load time and they do not
// broadcast numpy's way.
bool static_shapes_broadcast(const DevicePlacementQuery& q, std::string& reason) {
  std::optional<Shape> out = Shape{};
  for (size_t k = 0; k < q.info.num_inputs() && out; ++k) {
    const Shape* shape = static_input_shape(q, k);
    if (!shape) return true;
    out = numpy_broadcast(*out, *shape);
  }
  if (!out) reason = "input shapes that do not broadcast numpy's way";
  return out.has_value();
}

// The integer dtypes the arithmetic ops take: those integer_arithmetic.h computes on.
constexpr DataType kIntegers[] = {DataType::Int8,   DataType::UInt8, DataType::Int16,
                                  DataType::UInt16, DataType::Int32, DataType::UInt32,
                                  DataType::Int64};

// Whether the host tensor `t` holds a zero: an element whose bytes are all zero.
bool has_zero(const Tensor& t) {
  const auto* bytes = static_cast<const uint8_t*>(t.raw_data());
  const size_t size = dtype_size(t.dtype());
  for (int64_t i = 0; i < t.element_count(); ++i) {
    const uint8_t* e = bytes + static_cast<size_t>(i) * size;
    if (std::all_of(e, e + size, [](uint8_t v) { return v == 0; })) return true;
  }
  return false;
}

// The integer draw of `op` on inputs 0 and 1 (input 0 twice for a unary op). The divisor of Div
// and Mod is read on the host (downloaded when a draw made it): a zero fails on the CPU, whose
// kernel reports it.
void record_integer(OpRecorder& r, IntegerOp op) {
  const size_t k_b = op == IntegerOp::BitwiseNot ? 0 : 1;
  const DataType dtype = r.dtype(0);
  if (r.dtype(k_b) != dtype) throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
  if (!integer_arithmetic_dtype(dtype))
    throw RunOnCpu(RunTimeCause::InputKind, std::string(dtype_name(dtype)) +
                                                " inputs; the integer kernel takes the 8- to "
                                                "64-bit integers textures hold");
  const bool divides = op == IntegerOp::Div || op == IntegerOp::Mod || op == IntegerOp::FMod;
  if (divides && has_zero(r.host(1)))
    throw RunOnCpu(RunTimeCause::InputValues,
                   "integer division by zero; the CPU kernel reports it");
  const TextureTensor& a = r.texture(0);
  const TextureTensor& b = r.texture(k_b);
  TextureTensor& c = r.output(0, broadcast(r.shape(0), r.shape(k_b)), dtype);
  r.kernel<IntegerArithmetic>().record(op, dtype, a, r.shape(0), b, r.shape(k_b), c);
}

// Inputs of one dtype among float32, float16, bfloat16 and, when the op has an integer kernel, the
// integers; false with `reason` otherwise.
bool arithmetic_inputs(const DevicePlacementQuery& q, bool integers, std::string& reason) {
  if (!texel_inputs(q, reason)) return false;
  std::optional<DataType> dtype;
  for (size_t k = 0; k < q.info.num_inputs(); ++k) {
    const DataType t = q.input_types[k];
    if (t == DataType::Undefined) continue;
    const bool integer =
        std::find(std::begin(kIntegers), std::end(kIntegers), t) != std::end(kIntegers);
    if (!(integers && integer) && !float_half_or_bfloat16_inputs(q, reason, k, 1)) return false;
    if (dtype && *dtype != t) {
      reason = "inputs of two dtypes, " + std::string(dtype_name(*dtype)) + " and " +
               std::string(dtype_name(t)) + " (the draws take one)";
      return false;
    }
    dtype = t;
  }
  return true;
}

// Float32, float16 and bfloat16 through the float draw, the integers (when `int_op` is given)
// through the integer one.
OpFactory binary_factory(BinaryOp op, std::optional<IntegerOp> int_op = std::nullopt) {
  return [op, int_op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (q.info.num_inputs() != 2) {
      reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel 2)";
      return nullptr;
    }
    if (!arithmetic_inputs(q, int_op.has_value(), reason)) return nullptr;
    if (!static_shapes_broadcast(q, reason)) return nullptr;
    return [op, int_op](OpRecorder& r) {
      const DataType dtype = r.input(0).dtype();
      if (r.input(1).dtype() != dtype)
        throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
      if (int_op && integer_arithmetic_dtype(dtype)) {
        record_integer(r, *int_op);
        return;
      }
      const TextureTensor& a = r.texture(0);
      const TextureTensor& b = r.texture(1);
      draw_in_dtype(r, broadcast(r.shape(0), r.shape(1)), dtype, [&](TextureTensor& c) {
        r.kernel<BinaryElementwise>().record(op, a, r.shape(0), b, r.shape(1), c);
      });
    };
  };
}

// A float32 base to an int32, uint32 or int64 power: the exponent cast to float32 (integer_cast),
// then the float draw's Pow, as GPU-compute does. The CPU raises in double and rounds once; an
// exponent beyond 2^24 rounds to a float, which is even: an odd one's power of a negative base
// then has the wrong sign (the magnitude, 0 or infinite unless the base is within an ulp of 1,
// is the CPU's).
void record_float_pow_integer_exponent(OpRecorder& r) {
  const TextureTensor& e = r.texture(1);
  TextureTensor e_float = r.temporary(r.shape(1).element_count());
  r.kernel<IntegerCast>().record(r.dtype(1), DataType::Float32, e, e_float);
  const TextureTensor& x = r.texture(0);
  TextureTensor& y = r.output(0, broadcast(r.shape(0), r.shape(1)));
  r.kernel<BinaryElementwise>().record(BinaryOp::Pow, x, r.shape(0), e_float, r.shape(1), y);
}

// Pow: a base and an exponent of one dtype (float32, float16 or an integer), or a float32 base
// to an integer-texture power.
RecordFn pow_factory(const DevicePlacementQuery& q, std::string& reason) {
  const DataType base = q.input_types.size() > 0 ? q.input_types[0] : DataType::Undefined;
  const DataType exponent = q.input_types.size() > 1 ? q.input_types[1] : DataType::Undefined;
  RecordFn same = nullptr;
  if (base == DataType::Float32 && in_integer_texture(exponent)) {
    if (q.info.num_inputs() != 2 || !static_shapes_broadcast(q, reason)) return nullptr;
  } else {
    same = binary_factory(BinaryOp::Pow, IntegerOp::Pow)(q, reason);
    if (!same) return nullptr;
  }
  return [same](OpRecorder& r) {
    if (r.dtype(0) == DataType::Float32 && in_integer_texture(r.dtype(1)))
      return record_float_pow_integer_exponent(r);
    if (!same) throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
    same(r);
  };
}

// The comparisons (inputs of one texture dtype) and the logical ops (`bool_inputs`): bool 0/1
// outputs.
OpFactory predicate_factory(BinaryOp op, bool bool_inputs) {
  return [op, bool_inputs](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    static constexpr DataType kBool[] = {DataType::Bool};
    if (bool_inputs) {
      if (const std::optional<size_t> k = input_outside_dtypes(q, kBool, 0, SIZE_MAX)) {
        reason = std::string(dtype_name(q.input_types[*k])) + " inputs of a logical op";
        return nullptr;
      }
    } else {
      // The numeric types textures hold, and bool for Equal: ONNX's comparisons take no 4- or
      // 2-bit integers, and the CPU kernel reports those. int32, uint32 and int64 compare in
      // their integer textures (integer_compare.h).
      static constexpr DataType kOrdered[] = {
          DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Int8,
          DataType::UInt8,   DataType::Int16,   DataType::UInt16,   DataType::Int32,
          DataType::UInt32,  DataType::Int64};
      static constexpr DataType kEquatable[] = {
          DataType::Float32, DataType::Float16, DataType::BFloat16, DataType::Int8,
          DataType::UInt8,   DataType::Int16,   DataType::UInt16,   DataType::Int32,
          DataType::UInt32,  DataType::Int64,   DataType::Bool};
      const std::span<const DataType> allowed =
          op == BinaryOp::Equal ? std::span<const DataType>(kEquatable) : kOrdered;
      if (const std::optional<size_t> k = input_outside_dtypes(q, allowed, 0, SIZE_MAX)) {
        reason = std::string(dtype_name(q.input_types[*k])) + " inputs of a comparison";
        return nullptr;
      }
    }
    if (q.info.num_inputs() != 2) {
      reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel 2)";
      return nullptr;
    }
    if (!static_shapes_broadcast(q, reason)) return nullptr;
    return [op](OpRecorder& r) {
      if (r.input(0).dtype() != r.input(1).dtype())
        throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
      const TextureTensor& a = r.texture(0);
      const TextureTensor& b = r.texture(1);
      TextureTensor& c = r.output(0, broadcast(r.shape(0), r.shape(1)), DataType::Bool);
      if (in_integer_texture(r.dtype(0))) {
        r.kernel<IntegerCompare>().record(op, r.dtype(0), a, r.shape(0), b, r.shape(1), c);
      } else {
        r.kernel<BinaryElementwise>().record(op, a, r.shape(0), b, r.shape(1), c);
      }
    };
  };
}

// Where: a bool condition choosing between x and y of one texture dtype.
RecordFn where_factory(const DevicePlacementQuery& q, std::string& reason) {
  static constexpr DataType kBool[] = {DataType::Bool};
  if (input_outside_dtypes(q, kBool, 0, 1)) {
    reason = "Where's condition is not bool";
    return nullptr;
  }
  if (!texel_inputs(q, reason, 1, 2) || !every_input_present(q.info, reason) ||
      !static_shapes_broadcast(q, reason))
    return nullptr;
  return [](OpRecorder& r) {
    if (r.input(1).dtype() != r.input(2).dtype())
      throw RunOnCpu(RunTimeCause::InputKind, "x and y of two dtypes");
    const Shape out = broadcast(broadcast(r.shape(0), r.shape(1)), r.shape(2));
    const DataType dtype = r.dtype(1);
    // An int64 as its words: the condition's trailing 1 broadcasts over the word axis.
    Shape c_shape = r.shape(0);
    if (words_per_element(dtype) > 1) c_shape.push_back(1);
    const WhereOperand c{&r.texture(0), c_shape};
    const WhereOperand x{&r.texture(1), word_shape(r.shape(1), dtype)};
    const WhereOperand y{&r.texture(2), word_shape(r.shape(2), dtype)};
    r.kernel<Where>().record(c, x, y, r.output(0, out, dtype));
  };
}

// The bit ops: integer inputs only (BitShift the unsigned ones; the CPU kernel reports the
// signed), BitwiseNot one input, the others two.
OpFactory integer_factory(IntegerOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const bool shift = op == IntegerOp::BitShiftLeft || op == IntegerOp::BitShiftRight;
    static constexpr DataType kUnsigned[] = {DataType::UInt8, DataType::UInt16, DataType::UInt32};
    const std::span<const DataType> allowed =
        shift ? std::span<const DataType>(kUnsigned) : std::span<const DataType>(kIntegers);
    if (!texel_inputs(q, reason)) return nullptr;
    if (const std::optional<size_t> k = input_outside_dtypes(q, allowed, 0, SIZE_MAX)) {
      reason = std::string(dtype_name(q.input_types[*k])) + " inputs of " + to_string(op) +
               (shift ? " (the unsigned integers)" : " (the integers)");
      return nullptr;
    }
    const size_t inputs = op == IntegerOp::BitwiseNot ? 1 : 2;
    if (q.info.num_inputs() != inputs) {
      reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel " +
               std::to_string(inputs) + ")";
      return nullptr;
    }
    if (!static_shapes_broadcast(q, reason)) return nullptr;
    return [op, allowed](OpRecorder& r) {
      if (std::find(allowed.begin(), allowed.end(), r.dtype(0)) == allowed.end())
        throw RunOnCpu(RunTimeCause::InputKind, std::string(dtype_name(r.dtype(0))) +
                                                    " inputs; the CPU kernel handles them");
      record_integer(r, op);
    };
  };
}

// Max or Min of two or more integer inputs of one dtype: a chain of integer draws, the partial
// results in temporaries of the dtype's texture.
void record_integer_chain(OpRecorder& r, IntegerOp op) {
  const DataType dtype = r.dtype(0);
  for (size_t k = 1; k < r.num_inputs(); ++k) {
    if (r.dtype(k) != dtype) throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
  }
  if (r.num_inputs() == 2) return record_integer(r, op);
  std::list<TextureTensor> partials;  // kept until the node's draws are recorded
  const TextureTensor* acc = &r.texture(0);
  Shape acc_shape = r.shape(0);
  for (size_t k = 1; k < r.num_inputs(); ++k) {
    const Shape out = broadcast(acc_shape, r.shape(k));
    TextureTensor* target = nullptr;
    if (k + 1 == r.num_inputs()) {
      target = &r.output(0, out, dtype);
    } else if (in_integer_texture(dtype)) {
      target =
          &partials.emplace_back(r.temporary(out.element_count() * words_per_element(dtype),
                                             texture_format_of(dtype, TextureFormat::Rgba32F)));
    } else {
      target = &partials.emplace_back(r.temporary(out.element_count()));
    }
    r.kernel<IntegerArithmetic>().record(op, dtype, *acc, acc_shape, r.texture(k), r.shape(k),
                                         *target);
    acc = target;
    acc_shape = out;
  }
}

// Sum, Max, Min and Mean of float32 inputs, and Max and Min of float16 and bfloat16 ones (exact:
// the result is one of the inputs; the CPU rounds a float16 Sum after each input), and Max and
// Min of the integers (integer_arithmetic.h). One input is the result itself (the CPU op shares it
// too); two or more are a chain of binary draws.
OpFactory variadic_factory(VariadicOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const bool exact_in_half = op == VariadicOp::Max || op == VariadicOp::Min;
    if (!every_input_present(q.info, reason) || !static_shapes_broadcast(q, reason)) return nullptr;
    if (exact_in_half) {
      if (!arithmetic_inputs(q, true, reason)) return nullptr;
    } else if (!float_inputs(q, reason)) {
      return nullptr;
    }
    return [op](OpRecorder& r) {
      if (r.num_inputs() == 1) {
        r.output_view(0, 0, r.shape(0));
        return;
      }
      if (integer_arithmetic_dtype(r.dtype(0)) && (op == VariadicOp::Max || op == VariadicOp::Min))
        return record_integer_chain(r, op == VariadicOp::Max ? IntegerOp::Max : IntegerOp::Min);
      std::vector<VariadicInput> inputs;
      Shape out = r.shape(0);
      for (size_t k = 0; k < r.num_inputs(); ++k) {
        inputs.push_back({&r.texture(k), r.shape(k)});
        out = broadcast(out, r.shape(k));
      }
      const DataType dtype = r.input(0).dtype();
      for (size_t k = 1; k < r.num_inputs(); ++k) {
        if (r.input(k).dtype() != dtype)
          throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
      }
      // Max and Min of float16 values are float16 values: the float32 result needs no rounding.
      r.kernel<VariadicElementwise>().record(op, inputs, r.output(0, out, dtype));
    };
  };
}

// The unary ops and activations, their parameters read from the node at load time; float16
// and bfloat16 inputs too.
OpFactory unary_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_half_or_bfloat16_inputs(q, reason, 0, 1)) return nullptr;
    std::optional<UnaryParams> params = unary_params(q.info, reason);
    if (!params) return nullptr;
    return [p = *params](OpRecorder& r) {
      const TextureTensor& x = r.texture(0);
      draw_in_dtype(r, r.shape(0), r.input(0).dtype(),
                    [&](TextureTensor& y) { r.kernel<UnaryElementwise>().record(p, x, y); });
    };
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(elementwise);
void register_elementwise_ops(OpTable& t) {
  t.add("Add", binary_factory(BinaryOp::Add, IntegerOp::Add));
  t.add("Sub", binary_factory(BinaryOp::Sub, IntegerOp::Sub));
  t.add("Mul", binary_factory(BinaryOp::Mul, IntegerOp::Mul));
  t.add("Div", binary_factory(BinaryOp::Div, IntegerOp::Div));
  t.add("Pow", pow_factory);
  t.add("Max", variadic_factory(VariadicOp::Max));
  t.add("Min", variadic_factory(VariadicOp::Min));
  t.add("Sum", variadic_factory(VariadicOp::Sum));
  t.add("Mean", variadic_factory(VariadicOp::Mean));
  t.add("PRelu", binary_factory(BinaryOp::PRelu));
  // Float Mod is C's fmod, which ONNX requires fmod=1 for (the CPU kernel reports fmod=0);
  // integer Mod takes the divisor's sign, or the dividend's with fmod=1.
  t.add("Mod", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const bool fmod = q.info.attr_int("fmod", 0) != 0;
    const DataType t = q.input_types.empty() ? DataType::Undefined : q.input_types[0];
    if (!fmod && t != DataType::Undefined && !integer_arithmetic_dtype(t)) {
      reason = "float Mod with fmod=0, which the CPU kernel reports";
      return nullptr;
    }
    RecordFn mod =
        binary_factory(BinaryOp::Mod, fmod ? IntegerOp::FMod : IntegerOp::Mod)(q, reason);
    if (!mod || fmod) return mod;
    return [mod](OpRecorder& r) {
      if (!integer_arithmetic_dtype(r.dtype(0)))
        throw RunOnCpu(RunTimeCause::InputKind, "float Mod with fmod=0; the CPU kernel reports it");
      mod(r);
    };
  });

  for (const auto& [name, op] : {std::pair{"BitwiseAnd", IntegerOp::BitwiseAnd},
                                 std::pair{"BitwiseOr", IntegerOp::BitwiseOr},
                                 std::pair{"BitwiseXor", IntegerOp::BitwiseXor},
                                 std::pair{"BitwiseNot", IntegerOp::BitwiseNot}}) {
    t.add(name, integer_factory(op));
  }
  t.add("BitShift", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    return integer_factory(parse_bit_shift_left(q.info) ? IntegerOp::BitShiftLeft
                                                        : IntegerOp::BitShiftRight)(q, reason);
  });

  t.add("Equal", predicate_factory(BinaryOp::Equal, false));
  t.add("Less", predicate_factory(BinaryOp::Less, false));
  t.add("LessOrEqual", predicate_factory(BinaryOp::LessOrEqual, false));
  t.add("Greater", predicate_factory(BinaryOp::Greater, false));
  t.add("GreaterOrEqual", predicate_factory(BinaryOp::GreaterOrEqual, false));
  t.add("And", predicate_factory(BinaryOp::And, true));
  t.add("Or", predicate_factory(BinaryOp::Or, true));
  t.add("Xor", predicate_factory(BinaryOp::Xor, true));
  t.add("Where", where_factory);

  // The ops of the shared table (gpu_common/unary_ops.inc); Clip, whose bounds may be inputs,
  // has a family of its own (clip.cpp).
  for (const std::string& op : unary_onnx_types()) {
    if (op != "Clip") t.add(op, unary_factory());
  }
}

}  // namespace kiln::gpu_pixel
