// RNN: the plain recurrent cell, H = f(X·Wᵀ + H·Rᵀ + Wb + Rb).
#include "ops/recurrent_common.h"
#include "ops/recurrent_driver.h"

namespace kiln {
namespace {

using recurrent::StepData;

struct RnnCell {
  template <class C>
  void input_bias(const C* b, int64_t gate_width, C* out) const {
    recurrent::sum_input_and_recurrent_bias(b, gate_width, out);
  }

  template <class C>
  void step(const StepData<C>& s) const {
    const int64_t H = s.shape.hidden;
    const recurrent::Activation& f = s.attrs.activation(s.direction, 0);
    s.recurrent_product(0, s.hidden, 0);
    recurrent::for_each_active_row(s, [&](int64_t b) {
      C* g = s.gates + b * H;
      const C* x = s.projected[b];
      for (int64_t j = 0; j < H; ++j) g[j] += x[j];
      recurrent::clip_gate(s.attrs, g, H);
      recurrent::apply_activation(f, g, H);
      std::copy_n(g, H, s.hidden + b * H);
    });
  }
};

}  // namespace

CpuKernel make_rnn(const NodeInfo& info) {
  return recurrent::make_recurrent_kernel(info, recurrent::rnn_cell_spec(), RnnCell{});
}

}  // namespace kiln
