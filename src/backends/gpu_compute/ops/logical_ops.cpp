// Comparisons, boolean logic, IsNaN/IsInf and Where on the GPU
// (shaders/logical_elementwise.comp), with numpy broadcasting. 16-bit float operands of the
// comparisons and IsNaN/IsInf are read as float32 (exact: ops/float32_compute.cpp).
#include <vector>

#include "backends/gpu_compute/logical_elementwise.h"
#include "backends/gpu_compute/ops/op_table.h"

namespace kiln::gpu_compute {
namespace {

// What the comparisons take: every integer type of a byte or more.
const std::initializer_list<DataType> kComparable = {
    DataType::Float32, DataType::Int8,   DataType::UInt8, DataType::Int16, DataType::UInt16,
    DataType::Int32,   DataType::UInt32, DataType::Int64, DataType::UInt64};
// What Where moves: those, bool and the 16-bit floats (moved as their bits).
const std::initializer_list<DataType> kMovable = {
    DataType::Float32, DataType::Bool,   DataType::Int8,    DataType::UInt8,
    DataType::Int16,   DataType::UInt16, DataType::Int32,   DataType::UInt32,
    DataType::Int64,   DataType::UInt64, DataType::Float16, DataType::BFloat16};

// The type code the shader reads `type` as: Where moves bool values as uint8 and 16-bit floats
// as uint16 (bit for bit, NaN payloads included); bool operands of the boolean ops are read as
// bytes whatever the code.
DataType code_type_of(LogicalOp op, DataType type) {
  if (op == LogicalOp::Where) {
    if (type == DataType::Bool) return DataType::UInt8;
    if (type == DataType::Float16 || type == DataType::BFloat16) return DataType::UInt16;
    return type;
  }
  return type == DataType::Bool ? DataType::Float32 : type;
}

// `type_input`: the input whose dtype the shader needs (compared operands, Where's values).
RecordFn logical(LogicalOp op, size_t type_input, DataType out_type, uint32_t flags = 0) {
  return [=](OpRecorder& r) {
    std::vector<Shape> shapes;
    for (size_t k = 0; k < r.num_inputs(); ++k) shapes.push_back(r.shape(k));
    const DataType type = type_input < r.num_inputs() ? r.dtype(type_input) : DataType::Float32;
    const std::optional<LogicalPushConstants> pc =
        logical_push_constants(op, code_type_of(op, type), shapes, flags);
    if (!pc) throw RunOnCpu(RunTimeCause::ShapeOutsideKernel, "shapes outside the GPU kernel");
    std::vector<const Buffer*> operands;
    for (size_t k = 0; k < r.num_inputs(); ++k) operands.push_back(&r.buffer(k));
    const Buffer& out =
        r.output(0, op == LogicalOp::Where ? r.dtype(1) : out_type, *broadcast_all(shapes));
    r.kernel<LogicalElementwise>().record(r.cmd(), r.arena(), *pc, operands, out);
  };
}

bool takes_inputs(const DevicePlacementQuery& q, size_t n, std::string& reason) {
  if (q.info.num_inputs() == n) return true;
  reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel " +
           std::to_string(n) + ")";
  return false;
}

OpFactory comparison(LogicalOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!takes_inputs(q, 2, reason) || !inputs_are(q, kComparable, reason)) return nullptr;
    return [op](OpRecorder& r) {
      if (r.dtype(0) != r.dtype(1))
        throw RunOnCpu(RunTimeCause::InputKind, "compared operands differ in type");
      logical(op, 0, DataType::Bool)(r);
    };
  };
}

OpFactory boolean(LogicalOp op, size_t inputs) {
  return [op, inputs](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!takes_inputs(q, inputs, reason) || !inputs_are(q, {DataType::Bool}, reason))
      return nullptr;
    return logical(op, SIZE_MAX, DataType::Bool);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(logical);
void register_logical_ops(OpTable& t) {
  t.add("Equal", comparison(LogicalOp::Equal));
  t.add("Less", comparison(LogicalOp::Less));
  t.add("LessOrEqual", comparison(LogicalOp::LessOrEqual));
  t.add("Greater", comparison(LogicalOp::Greater));
  t.add("GreaterOrEqual", comparison(LogicalOp::GreaterOrEqual));
  t.add("And", boolean(LogicalOp::And, 2));
  t.add("Or", boolean(LogicalOp::Or, 2));
  t.add("Xor", boolean(LogicalOp::Xor, 2));
  t.add("Not", boolean(LogicalOp::Not, 1));
  t.add("IsNaN", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return logical(LogicalOp::IsNaN, 0, DataType::Bool);
  });
  t.add("IsInf", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const uint32_t flags = (q.info.attr_int("detect_positive", 1) != 0 ? 1u : 0u) |
                           (q.info.attr_int("detect_negative", 1) != 0 ? 2u : 0u);
    return logical(LogicalOp::IsInf, 0, DataType::Bool, flags);
  });
  t.add("Where", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!takes_inputs(q, 3, reason) || !inputs_are(q, {DataType::Bool}, reason, 0, 1) ||
        !inputs_are(q, kMovable, reason, 1, 2))
      return nullptr;
    return [](OpRecorder& r) {
      if (r.dtype(1) != r.dtype(2))
        throw RunOnCpu(RunTimeCause::InputKind, "Where's values differ in type");
      logical(LogicalOp::Where, 1, r.dtype(1))(r);
    };
  });
}

}  // namespace kiln::gpu_compute
