#include "ops/all_ops.h"

#include "kernels/op_registry.h"

namespace kiln {

// The registry is declared by the kernel interface (kernels/op_registry.h); the CPU backend fills
// it with every built-in op.
OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    register_all_ops(*r);
    return r;
  }();
  return *registry;
}

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
  register_attention_ops(registry);
  register_loss_ops(registry);
  register_selection_ops(registry);
  register_random_ops(registry);
  register_linear_algebra_ops(registry);
  register_quantization_ops(registry);
  register_recurrent_ops(registry);
  register_vision_ops(registry);
  register_signal_ops(registry);
  register_image_decoder_ops(registry);
  register_string_ops(registry);
  register_ml_ops(registry);
  register_training_ops(registry);
  register_control_flow_ops(registry);
  register_optional_ops(registry);
  register_sequence_ops(registry);
}

}  // namespace kiln
