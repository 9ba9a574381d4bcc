#include "opdefs/reverse_sequence.h"

#include <string>

#include "opdefs/node_info.h"

namespace kiln::reverse_sequence {

Axes parse_axes(const NodeInfo& info) {
  const Axes a{info.attr_int("batch_axis", 1), info.attr_int("time_axis", 0)};
  if ((a.batch != 0 && a.batch != 1) || (a.time != 0 && a.time != 1) || a.batch == a.time) {
    info.fail("batch_axis and time_axis must be 0 and 1 in some order, got " +
              std::to_string(a.batch) + " and " + std::to_string(a.time));
  }
  return a;
}

std::vector<int64_t> resolve_lengths(const NodeInputs& ctx, const Axes& axes) {
  const Tensor& x = ctx.input(0);
  const Tensor& lengths = ctx.input(1);
  if (x.rank() < 2) ctx.fail("input must have rank >= 2, got " + x.shape().to_string());
  const Shape& shape = x.shape();
  const int64_t batch = shape[axes.batch], steps = shape[axes.time];
  if (lengths.rank() != 1 || lengths.shape()[0] != batch) {
    ctx.fail("sequence_lens must have shape [" + std::to_string(batch) + "], got " +
             lengths.shape().to_string());
  }
  if (lengths.dtype() != DataType::Int64 && lengths.dtype() != DataType::Int32) {
    ctx.fail("sequence_lens must be int64, got " + std::string(dtype_name(lengths.dtype())));
  }
  std::vector<int64_t> result(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = lengths.dtype() == DataType::Int64 ? lengths.data<int64_t>()[b]
                                                           : lengths.data<int32_t>()[b];
    if (len < 0 || len > steps) {
      ctx.fail("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len) +
               " is out of range [0, " + std::to_string(steps) + "]");
    }
    result[static_cast<size_t>(b)] = len;
  }
  return result;
}

std::vector<StridedCopy> plan_copies(const NodeInputs& ctx, const Axes& axes) {
  const std::vector<int64_t> lengths = resolve_lengths(ctx, axes);
  const Shape& shape = ctx.input(0).shape();
  const int64_t batch = shape[axes.batch], steps = shape[axes.time];
  // Row-major strides; after dropping the batch axis the time axis is dimension 0.
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
  std::vector<int64_t> region(shape.begin(), shape.end());
  std::vector<int64_t> straight = strides;
  region.erase(region.begin() + axes.batch);
  straight.erase(straight.begin() + axes.batch);
  std::vector<int64_t> reversed = straight;
  reversed[0] = -straight[0];

  std::vector<StridedCopy> copies;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = lengths[static_cast<size_t>(b)];
    const int64_t base = b * strides[axes.batch];
    bool empty = false;
    for (size_t d = 1; d < region.size(); ++d) empty = empty || region[d] == 0;
    if (empty) continue;
    if (len > 0) {
      region[0] = len;
      copies.push_back({region, base + (len - 1) * strides[axes.time], reversed, base, straight});
    }
    if (len < steps) {
      region[0] = steps - len;
      const int64_t offset = base + len * strides[axes.time];
      copies.push_back({region, offset, straight, offset, straight});
    }
  }
  return copies;
}

}  // namespace kiln::reverse_sequence
