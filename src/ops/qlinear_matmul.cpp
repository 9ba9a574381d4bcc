// QLinearMatMul: a matrix product of two quantized (int8/uint8) operands, requantized with the
// parameters its definition (opdefs/qlinear_matmul.h) resolves. The exact integer product is
// integer_product.h's; the multiplier is applied to the int32 sum in double.
#include <vector>

#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "opdefs/qlinear_matmul.h"
#include "ops/all_ops.h"
#include "ops/integer_product.h"
#include "ops/op_utils.h"
#include "ops/quantization_common.h"

namespace kiln {
namespace {

CpuKernel make_qlinear_matmul(const NodeInfo&) {
  return [](OpContext& ctx) {
    const NodeInputs inputs{ctx.node(), ctx.inputs()};
    check_qlinear_matmul_operands(inputs);
    const Tensor& a = ctx.input(kQA);
    const Tensor& b = ctx.input(kQB);
    const MatMulGeometry p = matmul_geometry(ctx, a.shape(), b.shape());
    const QLinearMatMulParams q = resolve_qlinear_matmul(inputs, p.M, p.N);

    Tensor& y = ctx.allocate_output(0, q.out_type, p.out);
    const int64_t count = y.element_count();
    if (count == 0) return;
    std::vector<int32_t> acc(static_cast<size_t>(count));
    integer_product(p, a, b, q.a_zero, q.b_zero, acc.data());
    requantize(
        acc.data(),
        [&](int64_t i) {
          const int64_t n = i % p.N, m = (i / p.N) % p.M;
          return q.multiplier[(q.rows == 1 ? 0 : m) * q.cols + (q.cols == 1 ? 0 : n)];
        },
        q.y_zero, y);
  };
}

}  // namespace

KILN_CPU_OPS(qlinear_matmul);
void register_qlinear_matmul_ops(OpRegistry& registry) {
  registry.add("QLinearMatMul", make_qlinear_matmul);
}

}  // namespace kiln
