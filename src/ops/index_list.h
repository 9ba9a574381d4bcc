// Reading the small integer lists that data-movement ops take as inputs (Reshape's shape,
// Slice's starts/ends, Squeeze's axes, ...) at run time without touching the heap: the values
// land in a Shape, which keeps up to Shape::kInlineRank of them inline.
#pragma once

#include <string>

#include "core/element_storage.h"
#include "kernels/op_context.h"
#include "kiln/tensor.h"

namespace kiln {

// The values of an int32 or int64 tensor of rank 0 or 1; ctx.fail naming `what` otherwise.
inline Shape read_index_list(const OpContext& ctx, const Tensor& t, const char* what) {
  if (t.rank() > 1) {
    ctx.fail(std::string(what) + " must be a 1-D tensor, got shape " + t.shape().to_string());
  }
  Shape out;
  if (!copy_int_list(t, out)) {
    ctx.fail(std::string(what) + " must be int32 or int64, got " +
             std::string(dtype_name(t.dtype())));
  }
  return out;
}

// Maps a possibly negative axis into [0, rank); ctx.fail naming `what` otherwise.
inline int64_t checked_axis(const OpContext& ctx, int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank) {
    ctx.fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
             std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace kiln
