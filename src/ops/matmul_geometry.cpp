#include "ops/matmul_geometry.h"

#include <algorithm>

#include "opdefs/broadcast.h"

namespace kiln {

MatMulGeometry matmul_geometry(const OpContext& ctx, const Shape& a, const Shape& b) {
  if (a.empty() || b.empty()) ctx.fail("operands must have rank >= 1 (got scalars)");
  MatMulGeometry g;
  const Shape a_batch(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
  const Shape b_batch(b.begin(), b.end() - std::min<size_t>(b.size(), 2));
  g.M = a.size() == 1 ? 1 : a[a.size() - 2];
  g.K = a.back();
  const int64_t kb = b.size() == 1 ? b[0] : b[b.size() - 2];
  g.N = b.size() == 1 ? 1 : b.back();
  if (g.K != kb) {
    ctx.fail("inner dimensions differ: A is " + a.to_string() + ", B is " + b.to_string());
  }
  const size_t rank = std::max(a_batch.size(), b_batch.size());
  g.batch.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a_batch.size() ? 1 : a_batch[i - (rank - a_batch.size())];
    const int64_t db = i < rank - b_batch.size() ? 1 : b_batch[i - (rank - b_batch.size())];
    if (da != db && da != 1 && db != 1) {
      ctx.fail("batch dimensions of " + a.to_string() + " and " + b.to_string() +
               " cannot be broadcast together");
    }
    g.batch[i] = da == 1 ? db : da;
  }
  g.a_batch_strides = broadcast_strides(a_batch, g.batch);
  g.b_batch_strides = broadcast_strides(b_batch, g.batch);
  for (auto& s : g.a_batch_strides) s *= g.M * g.K;
  for (auto& s : g.b_batch_strides) s *= g.K * g.N;
  g.b_has_batch = b_batch.element_count() > 1;
  g.out = g.batch;
  if (a.size() > 1) g.out.push_back(g.M);
  if (b.size() > 1) g.out.push_back(g.N);
  return g;
}

BatchOffsets batch_offsets(const MatMulGeometry& g, int64_t i) {
  BatchOffsets o;
  for (size_t d = g.batch.size(); d-- > 0;) {
    const int64_t idx = i % g.batch[d];
    i /= g.batch[d];
    o.a += idx * g.a_batch_strides[d];
    o.b += idx * g.b_batch_strides[d];
  }
  return o;
}

}  // namespace kiln
