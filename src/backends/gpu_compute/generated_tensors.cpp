// Ops whose output comes from a few parameters, not from input elements, on the GPU
// (shaders/fill.comp): EyeLike (its input gives the shape only) and the cosine windows
// HannWindow, HammingWindow and BlackmanWindow (their size is a host value).
#include "backends/gpu_compute/fill.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "core/tensor_impl.h"
#include "opdefs/broadcast.h"
#include "opdefs/cosine_window.h"
#include "opdefs/eye_like.h"

namespace kiln::gpu_compute {
namespace {

// The value 1 in `dtype` (one of diagonal_fillable's).
Tensor one_of(DataType dtype) {
  switch (dtype) {
    case DataType::Float32:
      return Tensor::scalar<float>(1.0f);
    case DataType::Float64:
      return Tensor::scalar<double>(1.0);
    case DataType::Int32:
      return Tensor::scalar<int32_t>(1);
    case DataType::UInt32:
      return Tensor::scalar<uint32_t>(1);
    case DataType::Int64:
      return Tensor::scalar<int64_t>(1);
    default:
      return Tensor::scalar<uint64_t>(1);
  }
}

OpFactory eye_like_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const EyeLikeAttrs attrs = parse_eye_like_attrs(q.info);
    const DataType known =
        attrs.dtype.value_or(q.input_types.empty() ? DataType::Undefined : q.input_types[0]);
    if (known != DataType::Undefined && !diagonal_fillable(known)) {
      reason = "no " + std::string(dtype_name(known)) + " kernel (output)";
      return nullptr;
    }
    return [attrs](OpRecorder& r) {
      const Shape& x = r.shape(0);  // the input's elements are never read
      const DataType dtype = attrs.dtype.value_or(r.dtype(0));
      if (x.size() != 2)
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                       "an input that is not 2-D; the CPU kernel reports it");
      if (!diagonal_fillable(dtype))
        throw RunOnCpu(RunTimeCause::InputKind, "an output type the GPU kernel lacks");
      const Buffer& out = r.output(0, dtype, x);
      r.kernel<Fill>().record_diagonal(r.cmd(), r.arena(), one_of(dtype), out, x[0], x[1], attrs.k);
    };
  };
}

OpFactory cosine_window_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const CosineWindowAttrs attrs = parse_cosine_window_attrs(q.info);
    if (attrs.out_type != DataType::Float32) {
      reason = "no " + std::string(dtype_name(attrs.out_type)) + " kernel (output)";
      return nullptr;
    }
    if (!q.input_on_cpu.empty() && !q.input_on_cpu[0] && !q.info.constant_input(0)) {
      reason = "the size is not a host value";
      return nullptr;
    }
    return [attrs](OpRecorder& r) {
      const std::vector<int64_t> size = to_int64_vector(r.input(0), "size");
      if (size.size() != 1 || size[0] < 0)
        throw RunOnCpu(RunTimeCause::InputValues,
                       "a size that is no count; the CPU kernel reports it");
      const Buffer& out = r.output(0, DataType::Float32, Shape{size[0]});
      r.kernel<Fill>().record_cosine_window(r.cmd(), r.arena(), attrs.coefficients, attrs.periodic,
                                            out, size[0]);
    };
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(generated_tensors);
void register_generated_tensors_ops(OpTable& t) {
  t.add("EyeLike", eye_like_factory());
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    t.add(op, cosine_window_factory());
}

}  // namespace kiln::gpu_compute
