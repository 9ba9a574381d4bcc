// DFT, STFT, window functions, MelWeightMatrix: each in its own file (see signal_ops.h).
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/signal_ops.h"

namespace kiln {

void register_signal_ops(OpRegistry& registry) {
  register_dft_ops(registry);
  register_stft_ops(registry);
  register_window_function_ops(registry);
  register_mel_weight_matrix_ops(registry);
}

}  // namespace kiln
