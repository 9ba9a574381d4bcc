// TensorScatter (opset 24): writes `update` into a copy of a key/value cache along the
// sequence axis, at a per-batch position: present = past; present[b, ..., w[b] + i, ...] =
// update[b, ..., i, ...]. In "circular" mode the position wraps around the cache length
// (a ring buffer); in "linear" mode it must stay inside the cache.
#include <cstring>
#include <string>

#include "core/element_storage.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/attention_common.h"
#include "ops/op_utils.h"

namespace kiln {
namespace {

struct WriteIndexTag {};

CpuKernel make_tensor_scatter(const NodeInfo& info) {
  const int64_t axis_attr = info.attr_int("axis", -2);
  const std::string mode = info.attr_string("mode", "linear");
  if (mode != "linear" && mode != "circular") {
    info.fail("mode must be \"linear\" or \"circular\", got \"" + mode + "\"");
  }
  const bool circular = mode == "circular";
  return [=](OpContext& ctx) {
    const Tensor &past = ctx.input(0), &update = ctx.input(1);
    const Shape &ps = past.shape(), &us = update.shape();
    const int64_t rank = static_cast<int64_t>(ps.size());
    if (rank < 2) ctx.fail("past_cache must have rank 2 or more, got " + ps.to_string());
    const int64_t axis = normalize_axis(axis_attr, rank, ctx.node().describe());
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
    int64_t* write_at = attn::scratch<int64_t, WriteIndexTag>(batch);
    if (ctx.has_input(2)) {
      const Tensor& w = ctx.input(2);
      Shape values;
      if (!copy_int_list(w, values) || w.rank() != 1 || w.shape()[0] != batch) {
        ctx.fail("write_indices must be an int64 tensor of shape [" + std::to_string(batch) +
                 "], got " + std::string(dtype_name(w.dtype())) + w.shape().to_string());
      }
      for (int64_t b = 0; b < batch; ++b) write_at[b] = values[b];
    } else {
      std::fill(write_at, write_at + batch, 0);
    }
    for (int64_t b = 0; b < batch; ++b) {
      const bool ok =
          circular ? write_at[b] >= 0 : write_at[b] >= 0 && write_at[b] + len <= max_len;
      if (!ok) {
        ctx.fail("write_indices[" + std::to_string(b) + "] = " + std::to_string(write_at[b]) +
                 " does not fit " + std::to_string(len) + " updates into a cache of length " +
                 std::to_string(max_len));
      }
    }
    Tensor& out = ctx.allocate_output(0, past.dtype(), ps);
    if (past.element_count() == 0) return;
    // [batch, middle, max_len, inner] view of the cache; update has len instead of max_len.
    int64_t middle = 1, inner = 1;
    for (int64_t d = 1; d < axis; ++d) middle *= ps[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= ps[d];
    visit_storage(past.dtype(), [&]<class S>() {
      const S* src = static_cast<const S*>(past.raw_data());
      const S* upd = static_cast<const S*>(update.raw_data());
      S* dst = static_cast<S*>(out.mutable_raw_data());
      std::copy(src, src + past.element_count(), dst);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t m = 0; m < middle; ++m) {
          const int64_t block = b * middle + m;
          for (int64_t i = 0; i < len; ++i) {
            const int64_t pos = circular ? (write_at[b] + i) % max_len : write_at[b] + i;
            const S* from = upd + (block * len + i) * inner;
            std::copy(from, from + inner, dst + (block * max_len + pos) * inner);
          }
        }
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(tensor_scatter);
void register_tensor_scatter_ops(OpRegistry& registry) {
  registry.add("TensorScatter", make_tensor_scatter);
}

}  // namespace kiln
