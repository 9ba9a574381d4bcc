// MatMul and Gemm on the GPU (shaders/matmul.comp).
#include "backends/gpu_compute/matmul.h"
#include "backends/gpu_compute/ops/op_table.h"

namespace kiln::gpu_compute {
namespace {

RecordFn matmul() {
  return [](OpRecorder& r) {
    const MatMulProblem p = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel,
                                          [&] { return matmul_problem(r.shape(0), r.shape(1)); });
    const Buffer& a = r.buffer(0);
    const Buffer& b = r.buffer(1);
    const Buffer& y = r.output(0, DataType::Float32, p.out_shape);
    r.add_work(static_cast<uint64_t>(p.out_shape.element_count()) * static_cast<uint64_t>(p.k));
    r.kernel<MatMul>().record(r.cmd(), r.arena(), p, a, b, y);
  };
}

RecordFn gemm(bool trans_a, bool trans_b, float alpha, float beta) {
  return [=](OpRecorder& r) {
    const MatMulProblem p = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel, [&] {
      return gemm_problem(r.shape(0), r.shape(1), trans_a, trans_b, alpha);
    });
    MatMulAddend addend;
    MatMulEpilogue epilogue;
    if (r.has_input(2)) {
      addend = or_run_on_cpu(RunTimeCause::ShapeOutsideKernel,
                             [&] { return matmul_addend(p, r.shape(2), beta); });
      epilogue.addend = &addend;
      epilogue.addend_buffer = &r.buffer(2);
    }
    const Buffer& a = r.buffer(0);
    const Buffer& b = r.buffer(1);
    const Buffer& y = r.output(0, DataType::Float32, p.out_shape);
    r.add_work(static_cast<uint64_t>(p.out_shape.element_count()) * static_cast<uint64_t>(p.k));
    r.kernel<MatMul>().record(r.cmd(), r.arena(), p, a, b, y, epilogue);
  };
}

}  // namespace

KILN_GPU_COMPUTE_OPS(matmul);
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

}  // namespace kiln::gpu_compute
