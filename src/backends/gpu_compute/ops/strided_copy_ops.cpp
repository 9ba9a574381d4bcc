// ReverseSequence and TensorScatter on the GPU: outputs assembled from the strided copies their
// definitions plan (opdefs/reverse_sequence.h, opdefs/tensor_scatter.h), each one region copy
// (shaders/region_copy.comp) of 32- or 64-bit elements. The copies depend on the values of
// sequence_lens and write_indices, so those must be host values; computed on the device, the
// node runs on the CPU.
#include <string>
#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/region_copy.h"
#include "core/tensor_impl.h"
#include "opdefs/reverse_sequence.h"
#include "opdefs/tensor_scatter.h"

namespace kiln::gpu_compute {
namespace {

const std::initializer_list<DataType> kMovable = {DataType::Float32, DataType::Int32,
                                                  DataType::Int64};

// The node's inputs for its definition, input `values` (whose contents decide the copies) read
// as a host value, so a replay of the recording needs the same values.
std::vector<Tensor> inputs_with_values(const OpRecorder& r, size_t values, const char* what) {
  std::vector<Tensor> inputs = run_inputs(r);
  if (r.has_input(values)) {
    const Tensor& t = r.input(values);
    if (t.impl()->device)
      throw RunOnCpu(RunTimeCause::InputValues, std::string(what) + " computed on the device");
    inputs[values] = t;
  }
  return inputs;
}

Region region_of(const StridedCopy& c) {
  return {c.shape, c.in_offset, c.in_strides, c.out_offset, c.out_strides};
}

RecordFn reverse_sequence_record(reverse_sequence::Axes axes, NodeRef node) {
  return [axes, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = inputs_with_values(r, 1, "sequence_lens");
    const std::vector<StridedCopy> copies =
        reverse_sequence::plan_copies({*node.node, inputs}, axes);
    const DataType dtype = r.dtype(0);
    const Buffer& x = r.buffer(0);
    const Buffer& out = r.output(0, dtype, r.shape(0));
    for (const StridedCopy& c : copies)
      r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region_of(c), dtype, x, out);
  };
}

RecordFn tensor_scatter_record(tensor_scatter::Attributes attrs, NodeRef node) {
  return [attrs, node](OpRecorder& r) {
    const std::vector<Tensor> inputs = inputs_with_values(r, 2, "write_indices");
    const std::vector<StridedCopy> copies =
        tensor_scatter::plan_update_copies({*node.node, inputs}, attrs);
    const DataType dtype = r.dtype(0);
    const Shape& shape = r.shape(0);
    const Buffer& past = r.buffer(0);
    const Buffer& update = r.buffer(1);
    const Buffer& out = r.output(0, dtype, shape);
    // The cache first; each copy then records a barrier on the output before the next write.
    const int64_t n = shape.element_count();
    r.kernel<RegionCopy>().record(r.cmd(), r.arena(), Region{{n}, 0, {1}, 0, {1}}, dtype, past,
                                  out);
    for (const StridedCopy& c : copies)
      r.kernel<RegionCopy>().record(r.cmd(), r.arena(), region_of(c), dtype, update, out);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(strided_copy);
void register_strided_copy_ops(OpTable& t) {
  t.add("ReverseSequence", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    reverse_sequence::Axes axes;
    if (!inputs_are(q, kMovable, reason, 0, 1) ||
        !inputs_are(q, {DataType::Int64, DataType::Int32}, reason, 1, 1) ||
        !attributes_accepted([&] { axes = reverse_sequence::parse_axes(q.info); }, reason))
      return nullptr;
    return reverse_sequence_record(axes, NodeRef(q.info));
  });
  t.add("TensorScatter", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    tensor_scatter::Attributes attrs;
    if (!inputs_are(q, kMovable, reason, 0, 2) ||
        !inputs_are(q, {DataType::Int64, DataType::Int32}, reason, 2, 1) ||
        !attributes_accepted([&] { attrs = tensor_scatter::parse_attributes(q.info); }, reason))
      return nullptr;
    return tensor_scatter_record(attrs, NodeRef(q.info));
  });
}

}  // namespace kiln::gpu_compute
