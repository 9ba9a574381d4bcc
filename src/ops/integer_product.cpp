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
void product_rows(const ProductShape& p, const TA* a, const TB* b, const std::vector<double>& za,
                  const std::vector<double>& zb, int64_t row_begin, int64_t row_end,
                  std::vector<int32_t>& acc, int32_t* out) {
  const int64_t M = p.M, K = p.K, N = p.N;
  std::vector<int32_t> zb_int(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n) zb_int[n] = static_cast<int32_t>(at(zb, n));
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t batch = row / M, m = row % M;
    int64_t a_off = 0, b_off = 0;
    for (size_t d = p.batch.size(), rest = batch; d-- > 0;) {
      const auto idx = static_cast<int64_t>(rest % p.batch[d]);
      rest /= p.batch[d];
      a_off += idx * p.a_strides[d];
      b_off += idx * p.b_strides[d];
    }
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

ProductShape product_shape(const OpContext& ctx, const Shape& a, const Shape& b) {
  if (a.empty() || b.empty()) ctx.fail("a and b must have rank >= 1");
  ProductShape p;
  const Shape a_batch(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
  const Shape b_batch(b.begin(), b.end() - std::min<size_t>(b.size(), 2));
  p.M = a.size() == 1 ? 1 : a[a.size() - 2];
  p.K = a.back();
  const int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  p.N = b.size() == 1 ? 1 : b.back();
  if (p.K != kb) {
    ctx.fail("inner dimensions differ: a is " + a.to_string() + ", b is " + b.to_string());
  }
  p.batch = broadcast_shapes(a_batch, b_batch, ctx.node().op_type);
  p.a_strides = broadcast_strides(a_batch, p.batch);
  p.b_strides = broadcast_strides(b_batch, p.batch);
  for (auto& s : p.a_strides) s *= p.M * p.K;
  for (auto& s : p.b_strides) s *= p.K * p.N;
  p.out = p.batch;
  if (a.size() > 1) p.out.push_back(p.M);
  if (b.size() > 1) p.out.push_back(p.N);
  return p;
}

void integer_product(const ProductShape& p, const Tensor& a, const Tensor& b,
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
