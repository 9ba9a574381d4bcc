// SwiGLU(a, b) = Swish(a, alpha) * b on the GPU-pixel backend: Swish into a temporary of a's
// shape (the unary draw), then the product with b broadcast (the binary draw). Float32 rounds
// the gate and the product, as the CPU kernel does; float16 keeps both in float32 and rounds
// the result to half precision once (convert.h), as the CPU kernel computes it in float.
#include <string>

#include "backends/gpu_pixel/binary_elementwise.h"
#include "backends/gpu_pixel/half_output.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/unary_elementwise.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

RecordFn swiglu(const UnaryParams& swish) {
  return [swish](OpRecorder& r) {
    const DataType dtype = r.input(0).dtype();
    if (r.input(1).dtype() != dtype)
      throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes");
    const Shape& a_shape = r.shape(0);
    const Shape out = broadcast_shapes(a_shape, r.shape(1), "SwiGLU");
    const TextureTensor& a = r.texture(0);
    const TextureTensor& b = r.texture(1);
    TextureTensor gate = r.temporary(a_shape.element_count());
    r.kernel<UnaryElementwise>().record(swish, a, gate);
    draw_in_dtype(r, out, dtype, [&](TextureTensor& y) {
      r.kernel<BinaryElementwise>().record(BinaryOp::Mul, gate, a_shape, b, r.shape(1), y);
    });
  };
}

OpFactory swiglu_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_or_half_inputs(q, reason)) return nullptr;
    if (q.info.num_inputs() != 2) {
      reason = "takes " + std::to_string(q.info.num_inputs()) + " inputs (the GPU kernel 2)";
      return nullptr;
    }
    return swiglu(UnaryParams{UnaryOp::Swish, q.info.attr_float("alpha", 1.0f)});
  };
}

}  // namespace

KILN_GPU_PIXEL_OPS(swiglu);
void register_swiglu_ops(OpTable& t) { t.add("SwiGLU", swiglu_factory()); }

}  // namespace kiln::gpu_pixel
