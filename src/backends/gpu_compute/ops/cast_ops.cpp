// Type conversion on the GPU: Cast and CastLike between float32, float16, bfloat16, int32, int64
// and bool (shaders/cast.comp). A cast to the input's own type is a view.
#include "backends/gpu_compute/cast.h"
#include "backends/gpu_compute/ops/op_table.h"

namespace kiln::gpu_compute {
namespace {

const std::initializer_list<DataType> kCastable = {DataType::Float32,  DataType::Float16,
                                                   DataType::BFloat16, DataType::Int32,
                                                   DataType::Int64,    DataType::Bool};

void record_cast(OpRecorder& r, DataType to) {
  const DataType from = r.dtype(0);
  if (from == to) {
    r.output_view(0, 0, r.shape(0));
    return;
  }
  const Buffer& in = r.buffer(0);
  const Buffer& out = r.output(0, to, r.shape(0));
  r.kernel<Cast>().record(r.cmd(), r.arena(), from, in, to, out,
                          static_cast<uint64_t>(r.shape(0).element_count()));
}

}  // namespace

void register_cast_ops(OpTable& t) {
  t.add("Cast", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kCastable, reason)) return nullptr;
    const auto to = static_cast<DataType>(q.info.required_int("to"));
    if (!cast_type(to)) {
      reason = "no GPU kernel casting to " + std::string(dtype_name(to));
      return nullptr;
    }
    return [to](OpRecorder& r) { record_cast(r, to); };
  });
  t.add("CastLike", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, kCastable, reason)) return nullptr;
    return [](OpRecorder& r) { record_cast(r, r.dtype(1)); };
  });
}

}  // namespace kiln::gpu_compute
