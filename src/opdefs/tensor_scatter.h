// TensorScatter's one definition (opset 24): attributes, the input checks and the copies that
// write the update into the cache, shared by the CPU kernel (ops/tensor_scatter.cpp) and the
// GPU-compute kernel. The output is past_cache with, per batch entry b, the update's slices
// along `axis` written from position write_indices[b] on (wrapping around in circular mode).
#pragma once

#include <cstdint>
#include <vector>

#include "opdefs/node_inputs.h"
#include "opdefs/strided_copy.h"

namespace kiln {
class NodeInfo;
}

namespace kiln::tensor_scatter {

struct Attributes {
  int64_t axis = -2;  // as given: normalised against past_cache's rank when checked
  bool circular = false;
};

Attributes parse_attributes(const NodeInfo& info);

// Checks past_cache, update and write_indices (host values) against each other and returns the
// copies from update into the output (row-major, past_cache's shape), which holds past_cache
// before them. Copies with no elements are left out.
std::vector<StridedCopy> plan_update_copies(const NodeInputs& ctx, const Attributes& attrs);

}  // namespace kiln::tensor_scatter
