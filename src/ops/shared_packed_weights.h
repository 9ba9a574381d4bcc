// Constant float32 B operands packed for kiln's GEMM, shared by every kernel that packs the same
// constant the same way: a model whose layers share one weight (tied or deduplicated
// initializers, as exporters write for identical layers) and several workers on one model hold
// one packed copy, not one per node and worker.
#pragma once

#include <cstdint>
#include <memory>

#include "backends/cpu/gemm.h"
#include "kiln/tensor.h"

namespace kiln {

struct PackedWeights {
  cpu::PackedB packed;
  Shape shape;  // of the constant it was packed from
};

// op(B) (K x N; B itself, or B transposed with `trans`, B's rows ldb floats apart) of the
// constant `b`, packed as cpu::pack_b does: the form another kernel already holds for this
// constant, these dimensions and this SIMD target, or a new one. Safe from any thread.
std::shared_ptr<const PackedWeights> shared_packed_b(const Tensor& b, bool trans, int64_t k,
                                                     int64_t n, int64_t ldb);

}  // namespace kiln
