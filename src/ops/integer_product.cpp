#include "ops/integer_product.h"

#include <algorithm>
#include <string>

#include "core/thread_pool.h"
#include "ir/graph.h"
#include "opdefs/broadcast.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

double at(const std::vector<double>& v, int64_t i) { return v.size() == 1 ? v[0] : v[i]; }

template <class TA, class TB>
void product_rows(const MatMulGeometry& p, const TA* a, const TB* b, const std::vector<double>& za,
                  const std::vector<double>& zb, int64_t row_begin, int64_t row_end,
                  std::vector<int32_t>& acc, int32_t* out) {
  const int64_t M = p.M, K = p.K, N = p.N;
  std::vector<int32_t> zb_int(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) zb_int[n] = static_cast<int32_t>(at(zb, n));
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t batch = row / M, m = row % M;
    const BatchOffsets o = batch_offsets(p, batch);
    const int64_t a_off = o.a, b_off = o.b;
    const auto zam = static_cast<int32_t>(at(za, m));
    std::fill(acc.begin(), acc.end(), 0);
    for (int64_t k = 0; k < K; ++k) {
      const int32_t av = static_cast<int32_t>(a[a_off + m * K + k]) - zam;
      if (av == 0) continue;
      const TB* brow = b + b_off + k * N;
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
