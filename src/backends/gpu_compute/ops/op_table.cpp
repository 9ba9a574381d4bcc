#include "backends/gpu_compute/ops/op_table.h"

namespace kiln::gpu_compute {

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_elementwise_ops(t);
    register_data_movement_ops(t);
    register_matmul_ops(t);
    register_conv_ops(t);
    register_pad_ops(t);
    register_resize_ops(t);
    register_pool_ops(t);
    register_softmax_ops(t);
    register_normalization_ops(t);
    register_reduce_ops(t);
    register_indexing_ops(t);
    register_cast_ops(t);
    register_logical_ops(t);
    register_recurrent_ops(t);
    register_split_ops(t);
    return t;
  }();
  return table;
}

bool inputs_are(const DevicePlacementQuery& q, std::initializer_list<DataType> allowed,
                std::string& reason, size_t first, size_t count) {
  const std::optional<size_t> k =
      input_outside_dtypes(q, std::span(allowed.begin(), allowed.size()), first, count);
  if (!k) return true;
  reason = "no " + std::string(dtype_name(q.input_types[*k])) + " kernel (input " +
           std::to_string(*k) + ")";
  return false;
}

}  // namespace kiln::gpu_compute
