#include "opdefs/tensor_scatter.h"

#include <algorithm>
#include <string>

#include "opdefs/broadcast.h"
#include "opdefs/node_info.h"

namespace kiln::tensor_scatter {

Attributes parse_attributes(const NodeInfo& info) {
  Attributes a;
  a.axis = info.attr_int("axis", -2);
  const std::string mode = info.attr_string("mode", "linear");
  if (mode != "linear" && mode != "circular") {
    info.fail("mode must be \"linear\" or \"circular\", got \"" + mode + "\"");
  }
  a.circular = mode == "circular";
  return a;
}

std::vector<StridedCopy> plan_update_copies(const NodeInputs& ctx, const Attributes& attrs) {
  const Tensor &past = ctx.input(0), &update = ctx.input(1);
  const Shape &ps = past.shape(), &us = update.shape();
  const int64_t rank = static_cast<int64_t>(ps.size());
  if (rank < 2) ctx.fail("past_cache must have rank 2 or more, got " + ps.to_string());
  const int64_t axis = normalize_axis(attrs.axis, rank, ctx.node.describe());
  if (axis == 0) ctx.fail("axis must not be the batch axis 0");
  if (update.dtype() != past.dtype()) ctx.fail("update must have past_cache's element type");
  bool shapes_ok = static_cast<int64_t>(us.size()) == rank;
  for (int64_t d = 0; shapes_ok && d < rank; ++d) {
    shapes_ok = d == axis ? us[d] <= ps[d] : us[d] == ps[d];
  }
  if (!shapes_ok) {
    ctx.fail("update of shape " + us.to_string() + " does not fit past_cache of shape " +
             ps.to_string() + " along axis " + std::to_string(axis));
  }
  const int64_t batch = ps[0], max_len = ps[axis], len = us[axis];
  std::vector<int64_t> write_at(static_cast<size_t>(batch), 0);
  if (ctx.has_input(2)) {
    const Tensor& w = ctx.input(2);
    const bool is_int = w.dtype() == DataType::Int64 || w.dtype() == DataType::Int32;
    if (!is_int || w.rank() != 1 || w.shape()[0] != batch) {
      ctx.fail("write_indices must be an int64 tensor of shape [" + std::to_string(batch) +
               "], got " + std::string(dtype_name(w.dtype())) + w.shape().to_string());
    }
    for (int64_t b = 0; b < batch; ++b) {
      write_at[b] = w.dtype() == DataType::Int64 ? w.data<int64_t>()[b] : w.data<int32_t>()[b];
    }
  }
  for (int64_t b = 0; b < batch; ++b) {
    const bool ok =
        attrs.circular ? write_at[b] >= 0 : write_at[b] >= 0 && write_at[b] + len <= max_len;
    if (!ok) {
      ctx.fail("write_indices[" + std::to_string(b) + "] = " + std::to_string(write_at[b]) +
               " does not fit " + std::to_string(len) + " updates into a cache of length " +
               std::to_string(max_len));
    }
  }
  // The cache as [batch, middle, max_len, inner]; the update has len instead of max_len.
  int64_t middle = 1, inner = 1;
  for (int64_t d = 1; d < axis; ++d) middle *= ps[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= ps[d];
  std::vector<StridedCopy> copies;
  if (middle == 0 || inner == 0 || len == 0) return copies;
  for (int64_t b = 0; b < batch; ++b) {
    // Circular mode wraps: the slices up to the cache's end, then the rest from position 0.
    const int64_t start = attrs.circular ? write_at[b] % max_len : write_at[b];
    const int64_t first = std::min(len, max_len - start);
    const int64_t from = b * middle * len * inner, to = b * middle * max_len * inner;
    copies.push_back({{middle, first, inner},
                      from,
                      {len * inner, inner, 1},
                      to + start * inner,
                      {max_len * inner, inner, 1}});
    if (first < len) {
      copies.push_back({{middle, len - first, inner},
                        from + first * inner,
                        {len * inner, inner, 1},
                        to,
                        {max_len * inner, inner, 1}});
    }
  }
  return copies;
}

}  // namespace kiln::tensor_scatter
