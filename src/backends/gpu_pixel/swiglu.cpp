// SwiGLU(a, b) = Swish(a, alpha) * b on the GPU-pixel backend: Swish into a temporary of a's
// shape (the unary draw), then the product with b broadcast (the binary draw). Float32 rounds
// the gate and the product, as the CPU kernel does; float16 keeps both in float32 and rounds
// the result to half precision once (convert.h), as the CPU kernel computes it in float.
#include <string>

#include "backends/gpu_pixel/binary_elementwise.h"
#include "backends/gpu_pixel/convert.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/unary_elementwise.h"
#include "opdefs/broadcast.h"

namespace kiln::gpu_pixel {
namespace {

RecordFn swiglu(const UnaryParams& swish) {
  return [swish](OpRecorder& r) {
    const DataType dtype = r.input(0).dtype();
    if (r.input(1).dtype() != dtype || (dtype != DataType::Float32 && dtype != DataType::Float16))
      throw RunOnCpu(RunTimeCause::InputKind, "inputs of two dtypes or not float");
    const Shape& a_shape = r.shape(0);
    const Shape out = broadcast_shapes(a_shape, r.shape(1), "SwiGLU");
    const TextureTensor& a = r.texture(0);
    const TextureTensor& b = r.texture(1);
    TextureTensor gate = r.temporary(a_shape.element_count());
    r.kernel<UnaryElementwise>().record(swish, a, gate);
    if (dtype == DataType::Float32) {
      r.kernel<BinaryElementwise>().record(BinaryOp::Mul, gate, a_shape, b, r.shape(1),
                                           r.output(0, out));
      return;
    }
    TextureTensor product = r.temporary(out.element_count());
    r.kernel<BinaryElementwise>().record(BinaryOp::Mul, gate, a_shape, b, r.shape(1), product);
    r.kernel<Convert>().record(ConvertOp::ToFloat16, product, r.output(0, out, dtype));
  };
}

OpFactory swiglu_factory() {
  return [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    static constexpr DataType kFloats[] = {DataType::Float32, DataType::Float16};
    if (const std::optional<size_t> k = input_outside_dtypes(q, kFloats, 0, SIZE_MAX)) {
      reason = std::string(dtype_name(q.input_types[*k])) +
               " tensors stay on the CPU (float arithmetic takes float32 and float16)";
      return nullptr;
    }
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
