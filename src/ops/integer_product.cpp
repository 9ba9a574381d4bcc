#include "ops/integer_product.h"

#include <algorithm>
#include <string>

#include "core/thread_pool.h"
#include "ir/graph.h"
#include "opdefs/broadcast.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

// The zero point of line `line` of the operand's batch matrix `batch`: zero points hold one value,
// one per line, or one per line of every batch matrix.
int32_t zero_point_at(const std::vector<double>& z, int64_t lines, int64_t batch, int64_t line) {
  if (z.size() == 1) return static_cast<int32_t>(z[0]);
  const int64_t i = static_cast<int64_t>(z.size()) > lines ? batch * lines + line : line;
  return static_cast<int32_t>(z[static_cast<size_t>(i)]);
}

template <class TA, class TB>
void product_rows(const MatMulGeometry& p, const TA* a, const TB* b, const std::vector<double>& za,
                  const std::vector<double>& zb, int64_t row_begin, int64_t row_end,
                  std::vector<int32_t>& acc, int32_t* out) {
  const int64_t M = p.M, K = p.K, N = p.N;
  std::vector<int32_t> zb_int(static_cast<size_t>(N));
  int64_t zb_batch = -1;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t batch = row / M, m = row % M;
    const BatchOffsets o = batch_offsets(p, batch);
    // Zero points follow their operand's own batch matrix, which broadcasting may repeat.
    const int64_t a_batch = M * K > 0 ? o.a / (M * K) : 0;
    const int64_t b_batch = K * N > 0 ? o.b / (K * N) : 0;
    if (b_batch != zb_batch) {
      for (int64_t n = 0; n < N; ++n) zb_int[n] = zero_point_at(zb, N, b_batch, n);
      zb_batch = b_batch;
    }
    const int32_t zam = zero_point_at(za, M, a_batch, m);
    std::fill(acc.begin(), acc.end(), 0);
    for (int64_t k = 0; k < K; ++k) {
      const int32_t av = static_cast<int32_t>(a[o.a + m * K + k]) - zam;
      if (av == 0) continue;
      const TB* brow = b + o.b + k * N;
      // Each product fits int32, but long sums may not: they wrap as ONNX's int32 accumulation
      // does, in unsigned arithmetic (signed overflow would be undefined behaviour).
      for (int64_t n = 0; n < N; ++n) {
        const int32_t product = av * (static_cast<int32_t>(brow[n]) - zb_int[n]);
        acc[n] =
            static_cast<int32_t>(static_cast<uint32_t>(acc[n]) + static_cast<uint32_t>(product));
      }
    }
    std::copy(acc.begin(), acc.end(), out + row * N);
  }
}

}  // namespace

void integer_product(const MatMulGeometry& p, const Tensor& a, const Tensor& b,
                     const std::vector<double>& za, const std::vector<double>& zb, int32_t* out) {
  const int64_t rows = p.batch.element_count() * p.M;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, p.N * p.K));
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<int32_t> acc(static_cast<size_t>(p.N));
    const bool sa = a.dtype() == DataType::Int8, sb = b.dtype() == DataType::Int8;
    if (sa && sb) {
      product_rows(p, a.data<int8_t>(), b.data<int8_t>(), za, zb, begin, end, acc, out);
    } else if (sa) {
      product_rows(p, a.data<int8_t>(), b.data<uint8_t>(), za, zb, begin, end, acc, out);
    } else if (sb) {
      product_rows(p, a.data<uint8_t>(), b.data<int8_t>(), za, zb, begin, end, acc, out);
    } else {
      product_rows(p, a.data<uint8_t>(), b.data<uint8_t>(), za, zb, begin, end, acc, out);
    }
  });
}

}  // namespace kiln
