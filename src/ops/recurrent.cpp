// RNN, GRU, LSTM: registration. The cells live in rnn.cpp, gru.cpp and lstm.cpp; what they
// share in recurrent_common.h and recurrent_driver.h.
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/recurrent_common.h"

namespace kiln {

KILN_CPU_OPS(recurrent);
void register_recurrent_ops(OpRegistry& registry) {
  registry.add("RNN", make_rnn);
  registry.add("GRU", make_gru);
  registry.add("LSTM", make_lstm);
}

}  // namespace kiln
