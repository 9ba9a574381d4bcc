// Conv on the GPU (shaders/conv2d.comp, conv_depthwise.comp, and matmul.comp for 1x1). The
// window attributes are parsed and resolved by the same code as the CPU kernel's.
#include "backends/vulkan/conv.h"
#include "backends/vulkan/ops/op_table.h"
#include "ops/window_geometry.h"

namespace kiln::vulkan {
namespace {

// resolve_window reports errors through an OpContext; this one has no inputs or outputs.
class NoOutputs final : public OutputAllocator {
 public:
  Tensor allocate(size_t, DataType, const Shape&) override { throw Error("unexpected"); }
  Tensor view(size_t, const Tensor&, const Shape&) override { throw Error("unexpected"); }
};

RecordFn conv(WindowAttrs window, int64_t group, const ir::Node* node, int opset) {
  return [=](OpRecorder& r) {
    const Shape& x = r.shape(0);
    const Shape& w = r.shape(1);
    NoOutputs none;
    const OpContext ctx(*node, opset, {}, {}, none);
    // Shapes the kernel does not take, or that are wrong, go to the CPU kernel and its errors.
    if (x.size() != w.size() || x.size() < 3 || x.size() > 4 || x[1] != w[1] * group ||
        w[0] % group != 0 || (r.has_input(2) && r.shape(2) != Shape{w[0]}))
      throw RunOnCpu("Conv shapes outside the GPU kernel");
    const Shape kernel(w.begin() + 2, w.end());
    const cpu::ConvGeometry g = resolve_window(window, Shape(x.begin() + 2, x.end()), kernel, ctx);
    const bool has_bias = r.has_input(2);
    const ConvProblem p = conv_problem(x, w[0], g, group, has_bias);
    const Buffer& xb = r.buffer(0);
    const Buffer& wb = r.buffer(1);
    const Buffer* bias = has_bias ? &r.buffer(2) : nullptr;
    const Buffer& y = r.output(0, DataType::Float32, p.out_shape);
    r.add_work(static_cast<uint64_t>(p.out_shape.element_count()) * p.pc.cin_g * p.pc.KH *
               p.pc.KW);
    r.kernel<Conv>().record(r.cmd(), r.arena(), p, xb, wb, bias, y);
  };
}

}  // namespace

void register_conv_ops(OpTable& t) {
  t.add("Conv", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const Tensor* w = q.info.constant_input(1);
    if (w && (w->rank() < 3 || w->rank() > 4)) {
      reason = std::to_string(w->rank() - 2) + "-D Conv has no GPU kernel (1-D and 2-D do)";
      return nullptr;
    }
    return conv(parse_window_attrs(q.info), q.info.attr_int("group", 1), &q.info.node(),
                q.info.opset());
  });
}

}  // namespace kiln::vulkan
