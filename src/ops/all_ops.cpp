#include "ops/all_ops.h"

namespace kiln {

void register_all_ops(OpRegistry& registry) {
  register_elementwise_unary_ops(registry);
  register_elementwise_binary_ops(registry);
  register_activation_ops(registry);
  register_cast_ops(registry);
  register_conv_ops(registry);
  register_pool_ops(registry);
  register_matmul_ops(registry);
  register_reduce_ops(registry);
  register_softmax_ops(registry);
  register_normalization_ops(registry);
  register_shape_ops(registry);
  register_transpose_ops(registry);
  register_concat_split_ops(registry);
  register_slice_ops(registry);
  register_gather_scatter_ops(registry);
  register_expand_tile_pad_ops(registry);
  register_generator_ops(registry);
  register_scan_ops(registry);
  register_resize_ops(registry);
}

}  // namespace kiln
