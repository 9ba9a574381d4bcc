// Ops whose output comes from a few parameters, not from input elements, on the GPU
// (shaders/fill.comp): EyeLike (its input gives the shape only), the cosine windows
// HannWindow, HammingWindow and BlackmanWindow (their size is a host value) and Range (its
// start, limit and delta are host values). Constant, whose value is an attribute, is uploaded
// and copied into its output.
#include <cstring>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/fill.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/region_copy.h"
#include "core/tensor_impl.h"
#include "opdefs/broadcast.h"
#include "opdefs/constant.h"
#include "opdefs/cosine_window.h"
#include "opdefs/eye_like.h"
#include "opdefs/range.h"

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

OpFactory range_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q,
                    {DataType::Float32, DataType::Int32, DataType::Int64, DataType::Float16,
                     DataType::BFloat16},
                    reason))
      return nullptr;
    for (size_t k = 0; k < q.input_on_cpu.size(); ++k) {
      if (!q.input_on_cpu[k] && !q.info.constant_input(k)) {
        reason = "start, limit or delta is not a host value";
        return nullptr;
      }
    }
    return [node = NodeRef(q.info)](OpRecorder& r) {
      for (size_t k = 0; k < 3 && k < r.num_inputs(); ++k) {
        if (r.has_input(k) && r.input(k).impl()->device)
          throw RunOnCpu(RunTimeCause::InputValues, "start, limit or delta is not a host value");
      }
      if (r.num_inputs() < 3 || !r.has_input(0) || !r.has_input(1) || !r.has_input(2))
        throw RunOnCpu(RunTimeCause::ShapeOutsideKernel,
                       "an input left out; the CPU kernel reports it");
      const Tensor& start = r.input(0);
      const Tensor& delta = r.input(2);
      const int64_t count = resolve_range_length(*node.node, start, r.input(1), delta);
      if (!range_fillable(start.dtype()))
        throw RunOnCpu(RunTimeCause::InputKind, "an element type the GPU kernel lacks");
      const Buffer& out = r.output(0, start.dtype(), Shape{count});
      r.kernel<Fill>().record_range(r.cmd(), r.arena(), start, delta, out, count);
    };
  };
}

// Constant: its value uploaded, then copied into the output (a device tensor of its own, as
// every node's output is). 4- and 8-byte elements, which the copy moves as words.
OpFactory constant_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    const Tensor value = parse_constant_value(q.info);
    const size_t size = dtype_size(value.dtype());
    if (value.dtype() == DataType::String || (size != 4 && size != 8)) {
      reason = "no " + std::string(dtype_name(value.dtype())) + " kernel (output)";
      return nullptr;
    }
    return [value](OpRecorder& r) {
      const Buffer& out = r.output(0, value.dtype(), value.shape());
      if (value.element_count() == 0) return;
      const Buffer& in = r.upload(std::as_bytes(
          std::span(static_cast<const std::byte*>(value.raw_data()), value.byte_size())));
      const int64_t count = value.element_count();
      const Region all{{count}, 0, {1}, 0, {1}};
      r.kernel<RegionCopy>().record(r.cmd(), r.arena(), all, value.dtype(), in, out);
    };
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(generated_tensors);
void register_generated_tensors_ops(OpTable& t) {
  t.add("EyeLike", eye_like_factory());
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    t.add(op, cosine_window_factory());
  t.add("Range", range_factory());
  t.add("Constant", constant_factory());
}

}  // namespace kiln::gpu_compute
