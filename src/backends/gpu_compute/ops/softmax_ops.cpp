// Softmax, LogSoftmax and Hardmax on the GPU (shaders/softmax.comp), over the [outer, n, inner]
// lines their definition (opdefs/softmax.h) resolves.
#include "backends/gpu_common/node_resolution.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/softmax.h"
#include "opdefs/softmax.h"

namespace kiln::gpu_compute {
namespace {

RecordFn softmax(SoftmaxAttrs attrs, NodeRef node) {
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const SoftmaxLines v = resolve_softmax(attrs, x, *node.node);
    const Buffer& xb = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, x);
    r.kernel<Softmax>().record(r.cmd(), r.arena(), xb, y, v.outer, v.n, v.inner, attrs.op);
  };
}

OpFactory softmax_factory(SoftmaxOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return softmax(parse_softmax_attrs(q.info, op), NodeRef(q.info));
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(softmax);
void register_softmax_ops(OpTable& t) {
  t.add("Softmax", softmax_factory(SoftmaxOp::Softmax));
  t.add("LogSoftmax", softmax_factory(SoftmaxOp::LogSoftmax));
  t.add("Hardmax", softmax_factory(SoftmaxOp::Hardmax));
}

}  // namespace kiln::gpu_compute
