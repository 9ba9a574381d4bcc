#include "backends/gpu_common/device_lstm.h"

namespace kiln {

std::string lstm_outside_gpu_subset(const NodeInfo& info,
                                    const recurrent::RecurrentAttributes& attrs, bool batch_major) {
  using recurrent::ActivationKind;
  if (attrs.layout != 0 && !batch_major) return "LSTM layout 1 has no GPU kernel";
  if (attrs.has_clip) return "LSTM clip has no GPU kernel";
  if (info.attr_int("input_forget", 0) != 0) return "LSTM input_forget has no GPU kernel";
  for (int64_t d = 0; d < attrs.num_directions; ++d) {
    if (attrs.activation(d, 0).kind != ActivationKind::kSigmoid ||
        attrs.activation(d, 1).kind != ActivationKind::kTanh ||
        attrs.activation(d, 2).kind != ActivationKind::kTanh) {
      return "LSTM activations other than Sigmoid, Tanh, Tanh have no GPU kernel";
    }
  }
  return {};
}

}  // namespace kiln
