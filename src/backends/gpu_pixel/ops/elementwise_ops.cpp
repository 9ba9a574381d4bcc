// Element-wise ops as draws: float32 and float16 binary arithmetic with broadcasting, Sum, Max,
// Min and Mean of any number of inputs, and the unary math and activation functions
// (backends/gpu_pixel/binary_elementwise, variadic_elementwise, unary_elementwise); the
// comparisons of any texture dtype (integer_compare for the integer textures') and the logical
// ops on bool, which write bool, and Where (backends/gpu_pixel/where) of any texture dtype.
#include <optional>
#include <span>
#include <vector>

#include "backends/gpu_pixel/binary_elementwise.h"
#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/integer_compare.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "backends/gpu_pixel/unary_elementwise.h"
#include "backends/gpu_pixel/variadic_elementwise.h"
#include "backends/gpu_pixel/where.h"

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

OpFactory binary_factory(BinaryOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_or_half_inputs(q, reason)) return nullptr;
    if (q.info.num_inputs() != 2) {
      reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel 2)";
      return nullptr;
    }
    if (q.input_types[0] != q.input_types[1] && q.input_types[0] != DataType::Undefined &&
        q.input_types[1] != DataType::Undefined) {
      reason = "inputs of two dtypes (Pow's exponent)";
      return nullptr;
    }
    if (!static_shapes_broadcast(q, reason)) return nullptr;
    return [op](OpRecorder& r) {
      const DataType dtype = r.input(0).dtype();
      if (r.input(1).dtype() != dtype)
        throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
      const TextureTensor& a = r.texture(0);
      const TextureTensor& b = r.texture(1);
      draw_in_dtype(r, broadcast(r.shape(0), r.shape(1)), dtype, [&](TextureTensor& c) {
        r.kernel<BinaryElementwise>().record(op, a, r.shape(0), b, r.shape(1), c);
      });
    };
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

// Sum, Max, Min and Mean of float32 inputs, and Max and Min of float16 ones (exact: the result
// is one of the inputs; the CPU rounds a float16 Sum after each input). One input is the result
// itself (the CPU op shares it too); two or more are a chain of binary draws.
OpFactory variadic_factory(VariadicOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const bool exact_in_half = op == VariadicOp::Max || op == VariadicOp::Min;
    if (!every_input_present(q.info, reason) ||
        !(exact_in_half ? float_or_half_inputs(q, reason) : float_inputs(q, reason)) ||
        !static_shapes_broadcast(q, reason))
      return nullptr;
    return [op](OpRecorder& r) {
      if (r.num_inputs() == 1) {
        r.output_view(0, 0, r.shape(0));
        return;
      }
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
// inputs too.
OpFactory unary_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_or_half_inputs(q, reason, 0, 1)) return nullptr;
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
  t.add("Add", binary_factory(BinaryOp::Add));
  t.add("Sub", binary_factory(BinaryOp::Sub));
  t.add("Mul", binary_factory(BinaryOp::Mul));
  t.add("Div", binary_factory(BinaryOp::Div));
  t.add("Pow", binary_factory(BinaryOp::Pow));
  t.add("Max", variadic_factory(VariadicOp::Max));
  t.add("Min", variadic_factory(VariadicOp::Min));
  t.add("Sum", variadic_factory(VariadicOp::Sum));
  t.add("Mean", variadic_factory(VariadicOp::Mean));
  t.add("PRelu", binary_factory(BinaryOp::PRelu));
  t.add("Mod", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (q.info.attr_int("fmod", 0) != 1) {
      reason = "integer Mod stays on the CPU";
      return nullptr;
    }
    return binary_factory(BinaryOp::Mod)(q, reason);
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
