#include "opdefs/all_defs.h"

namespace kiln {

void define_all_ops(OpDefs& defs) {
  define_elementwise_ops(defs);
  define_normalization_ops(defs);
  define_softmax_ops(defs);
  define_window_ops(defs);
  define_matmul_ops(defs);
  define_reduce_ops(defs);
  define_shape_ops(defs);
  define_concat_split_ops(defs);
  define_indexing_ops(defs);
  define_generator_ops(defs);
  define_signal_ops(defs);
  define_resize_ops(defs);
  define_attention_ops(defs);
  define_recurrent_ops(defs);
  define_quantization_ops(defs);
  define_ml_ops(defs);
  define_control_flow_ops(defs);
}

}  // namespace kiln
