// MatMul and Gemm on the GPU (shaders/matmul.comp).
#include "backends/vulkan/matmul.h"
#include "backends/vulkan/ops/op_table.h"

namespace kiln::vulkan {
namespace {

RecordFn matmul() {
  return [](OpRecorder& r) {
    const MatMulProblem p = matmul_problem(r.shape(0), r.shape(1));
    const Buffer& a = r.buffer(0);
    const Buffer& b = r.buffer(1);
    const Buffer& c = r.output(0, DataType::Float32, p.out_shape);
    r.add_work(static_cast<uint64_t>(p.out_shape.element_count()) * p.pc.K);
    r.kernel<MatMul>().record(r.cmd(), r.arena(), p, a, b, nullptr, c);
  };
}

RecordFn gemm(bool trans_a, bool trans_b, float alpha, float beta) {
  return [=](OpRecorder& r) {
    const bool has_c = r.has_input(2);
    const Shape c_shape = has_c ? r.shape(2) : Shape{};
    const MatMulProblem p =
        gemm_problem(r.shape(0), r.shape(1), trans_a, trans_b, alpha, beta, has_c ? &c_shape : nullptr);
    const Buffer& a = r.buffer(0);
    const Buffer& b = r.buffer(1);
    const Buffer* c = has_c ? &r.buffer(2) : nullptr;
    const Buffer& y = r.output(0, DataType::Float32, p.out_shape);
    r.add_work(static_cast<uint64_t>(p.out_shape.element_count()) * p.pc.K);
    r.kernel<MatMul>().record(r.cmd(), r.arena(), p, a, b, c, y);
  };
}

}  // namespace

void register_matmul_ops(OpTable& t) {
  t.add("MatMul", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    return matmul();
  });
  t.add("Gemm", [](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!inputs_are(q, {DataType::Float32}, reason)) return nullptr;
    const NodeInfo& info = q.info;
    return gemm(info.attr_int("transA", 0) != 0, info.attr_int("transB", 0) != 0,
                info.attr_float("alpha", 1.0f), info.attr_float("beta", 1.0f));
  });
}

}  // namespace kiln::vulkan
