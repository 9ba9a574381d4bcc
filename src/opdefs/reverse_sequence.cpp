#include "opdefs/reverse_sequence.h"

#include <string>

#include "opdefs/broadcast.h"
#include "opdefs/node_info.h"

namespace kiln {

ReverseSequenceAttrs parse_reverse_sequence_attrs(const NodeInfo& info) {
  ReverseSequenceAttrs a;
  a.batch_axis = info.attr_int("batch_axis", 1);
  a.time_axis = info.attr_int("time_axis", 0);
  if ((a.batch_axis != 0 && a.batch_axis != 1) || (a.time_axis != 0 && a.time_axis != 1) ||
      a.batch_axis == a.time_axis) {
    info.fail("batch_axis and time_axis must be 0 and 1 in some order, got " +
              std::to_string(a.batch_axis) + " and " + std::to_string(a.time_axis));
  }
  return a;
}

std::vector<int64_t> resolve_reverse_sequence(const NodeInputs& inputs,
                                              const ReverseSequenceAttrs& attrs) {
  const Tensor& x = inputs.input(0);
  const Tensor& lengths_t = inputs.input(1);
  if (x.rank() < 2) inputs.fail("input must have rank >= 2, got " + x.shape().to_string());
  const Shape& shape = x.shape();
  const int64_t batch = shape[attrs.batch_axis], steps = shape[attrs.time_axis];
  if (lengths_t.rank() != 1 || lengths_t.shape()[0] != batch) {
    inputs.fail("sequence_lens must have shape [" + std::to_string(batch) + "], got " +
                lengths_t.shape().to_string());
  }
  if (lengths_t.dtype() != DataType::Int32 && lengths_t.dtype() != DataType::Int64) {
    inputs.fail("sequence_lens must be int32 or int64, got " +
                std::string(dtype_name(lengths_t.dtype())));
  }
  std::vector<int64_t> lengths = to_int64_vector(lengths_t, "sequence_lens");
  for (int64_t b = 0; b < batch; ++b) {
    if (lengths[b] < 0 || lengths[b] > steps) {
      inputs.fail("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(lengths[b]) +
                  " is out of range [0, " + std::to_string(steps) + "]");
    }
  }
  return lengths;
}

}  // namespace kiln
