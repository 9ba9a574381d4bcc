// A strided copy between row-major tensors, in elements: for every index i of `shape`,
//   out[out_offset + sum_k i_k out_strides[k]] = in[in_offset + sum_k i_k in_strides[k]].
// Input strides may be negative (reversed). The ops whose output is assembled from a few such
// copies (ReverseSequence, TensorScatter) plan them in their definitions, so that the CPU
// kernel and the GPU backends move the same elements.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln {

struct StridedCopy {
  std::vector<int64_t> shape;
  int64_t in_offset = 0;
  std::vector<int64_t> in_strides;
  int64_t out_offset = 0;
  std::vector<int64_t> out_strides;
};

}  // namespace kiln
