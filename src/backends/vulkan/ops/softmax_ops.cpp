// Softmax, LogSoftmax and Hardmax on the GPU (shaders/softmax.comp). From opset 13 they work
// along one axis; before it the input is flattened to 2-D at `axis`, which is the same kernel
// with the line spanning every trailing dimension (inner = 1).
#include "backends/vulkan/ops/op_table.h"
#include "backends/vulkan/softmax.h"

namespace kiln::vulkan {
namespace {

RecordFn softmax(int64_t axis, bool flatten, SoftmaxKind kind) {
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    // Before opset 13 axis == rank is allowed (a line of one element).
    if (axis < -rank || axis > (flatten ? rank : rank - 1))
      throw RunOnCpu("Softmax axis out of range: the CPU kernel reports it");
    const int64_t a = axis < 0 ? axis + rank : axis;
    int64_t outer = 1, n = 1, inner = 1;
    for (int64_t d = 0; d < a; ++d) outer *= x[d];
    if (flatten) {
      for (int64_t d = a; d < rank; ++d) n *= x[d];
    } else {
      n = x[a];
      for (int64_t d = a + 1; d < rank; ++d) inner *= x[d];
    }
    const Buffer& xb = r.buffer(0);
    const Buffer& y = r.output(0, DataType::Float32, x);
    r.kernel<Softmax>().record(r.cmd(), r.arena(), xb, y, outer, n, inner, kind);
  };
}

OpFactory softmax_factory(SoftmaxKind kind) {
  return [kind](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const bool flatten = q.info.opset() < 13;
    return softmax(q.info.attr_int("axis", flatten ? 1 : -1), flatten, kind);
  };
}

}  // namespace

void register_softmax_ops(OpTable& t) {
  t.add("Softmax", softmax_factory(SoftmaxKind::Softmax));
  t.add("LogSoftmax", softmax_factory(SoftmaxKind::LogSoftmax));
  t.add("Hardmax", softmax_factory(SoftmaxKind::Hardmax));
}

}  // namespace kiln::vulkan
