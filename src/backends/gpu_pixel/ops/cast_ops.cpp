// Cast, CastLike and Not as draws (backends/gpu_pixel/convert): conversions among the dtypes
// the float textures hold (texel_dtype.h), each rounded, wrapped or truncated in the shader as
// the CPU's Cast does, and from int32, uint32 and int64 (backends/gpu_pixel/integer_cast) to the
// integers, bool and float32. Casts from floats to int32, uint32 and int64, and to or from
// float64 and the other dtypes, stay on the CPU.
#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/integer_cast.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/texel_dtype.h"

namespace kiln::gpu_pixel {
namespace {

// y = x as `to`: a view when the dtype does not change (the CPU kernel shares the data too).
void record_cast(OpRecorder& r, DataType to, bool saturate) {
  const DataType from = r.dtype(0);
  if (in_integer_texture(from)) {
    if (from == to) {
      r.output_view(0, 0, r.shape(0));
      return;
    }
    if (!integer_cast_supported(from, to))
      throw RunOnCpu(RunTimeCause::InputKind, "a cast the integer kernel does not take");
    const TextureTensor& x = r.texture(0);
    r.kernel<IntegerCast>().record(from, to, x, r.output(0, r.shape(0), to));
    return;
  }
  const std::optional<ConvertOp> op = convert_to(to);
  if (!op) throw RunOnCpu(RunTimeCause::InputKind, "a cast to a dtype textures do not hold");
  if (r.input(0).dtype() == to) {
    r.output_view(0, 0, r.shape(0));
    return;
  }
  const TextureTensor& x = r.texture(0);
  r.kernel<Convert>().record(*op, x, r.output(0, r.shape(0), to), saturate);
}

DataType input_dtype(const DevicePlacementQuery& q, size_t k) {
  return k < q.input_types.size() ? q.input_types[k] : DataType::Undefined;
}

// Both dtypes known at load time and held by textures. An unknown one (a value from a subgraph)
// keeps the node on the CPU: most such casts are of int64 shape values, and refusing them per run
// would only add run-time fallbacks.
bool castable(DataType from, DataType to, std::string& reason) {
  if (from == DataType::Undefined || to == DataType::Undefined) {
    reason = "a cast whose dtypes are unknown at load time";
    return false;
  }
  if (in_integer_texture(from) ? integer_cast_supported(from, to) || from == to
                               : convert_to(to).has_value())
    return true;
  reason = "no GPU kernel casting " + std::string(dtype_name(from)) + " to " +
           std::string(dtype_name(to));
  return false;
}

}  // namespace

KILN_GPU_PIXEL_OPS(cast);
void register_cast_ops(OpTable& t) {
  t.add("Cast", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1)) return nullptr;
    const auto to = static_cast<DataType>(q.info.required_int("to"));
    if (!castable(input_dtype(q, 0), to, reason)) return nullptr;
    const bool saturate = q.info.attr_int("saturate", 1) != 0;
    return [to, saturate](OpRecorder& r) { record_cast(r, to, saturate); };
  });
  t.add("CastLike", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!texel_inputs(q, reason, 0, 1)) return nullptr;
    if (!castable(input_dtype(q, 0), input_dtype(q, 1), reason)) return nullptr;
    // Only input 1's dtype matters: its values are never read.
    const bool saturate = q.info.attr_int("saturate", 1) != 0;
    return [saturate](OpRecorder& r) { record_cast(r, r.input(1).dtype(), saturate); };
  });
  t.add("Not", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    static constexpr DataType kBool[] = {DataType::Bool};
    if (input_outside_dtypes(q, kBool, 0, 1)) {
      reason = "Not of a tensor that is not bool";
      return nullptr;
    }
    return [](OpRecorder& r) {
      const TextureTensor& x = r.texture(0);
      r.kernel<Convert>().record(ConvertOp::Not, x, r.output(0, r.shape(0), DataType::Bool));
    };
  });
}

}  // namespace kiln::gpu_pixel
