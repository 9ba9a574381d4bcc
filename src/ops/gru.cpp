// GRU: update gate z, reset gate r and candidate h~ (W, R and B rows in that order):
//
//   z = f(X·Wzᵀ + H·Rzᵀ + Wbz + Rbz)          r = f(X·Wrᵀ + H·Rrᵀ + Wbr + Rbr)
//   h~ = g(X·Whᵀ + (r ⊙ H)·Rhᵀ + Rbh + Wbh)     linear_before_reset = 0
//   h~ = g(X·Whᵀ + r ⊙ (H·Rhᵀ + Rbh) + Wbh)     linear_before_reset = 1
//   H = (1 - z) ⊙ h~ + z ⊙ H
#include "ops/recurrent_common.h"
#include "ops/recurrent_driver.h"

namespace kiln {
namespace {

using recurrent::StepData;

struct GruCell {
  bool linear_before_reset = false;

  template <class C>
  void input_bias(const C* b, int64_t gate_width, C* out) const {
    recurrent::sum_input_and_recurrent_bias(b, gate_width, out);
    if (linear_before_reset && b) {
      // Rbh is added to H·Rhᵀ before the reset gate scales it (see step).
      const int64_t H = gate_width / 3;
      for (int64_t j = 0; j < H; ++j) out[2 * H + j] = b[2 * H + j];
    }
  }

  template <class C>
  void step(const StepData<C>& s) const {
    const int64_t H = s.shape.hidden, width = s.shape.gate_width();
    const recurrent::Activation& f = s.attrs.activation(s.direction, 0);
    const recurrent::Activation& g = s.attrs.activation(s.direction, 1);

    // z and r into gates[:, 0:2H]; with linear_before_reset also H·Rhᵀ into gates[:, 2H:3H].
    s.recurrent_product(0, s.hidden, 0);
    if (!linear_before_reset) {
      recurrent::for_each_active_row(s, [&](int64_t b) {
        C* z = s.gates + b * width;
        update_and_reset_gates(s, f, z, s.projected[b]);
        const C* r = z + H;
        const C* h = s.hidden + b * H;
        C* reset_hidden = s.extra + b * H;
        for (int64_t j = 0; j < H; ++j) reset_hidden[j] = r[j] * h[j];
      });
      // Rows past their sequence take part in the product too; their result is unused.
      for (int64_t b = 0; b < s.shape.batch; ++b) {
        if (!s.projected[b]) std::fill_n(s.extra + b * H, H, C(0));
      }
      s.recurrent_product(1, s.extra, 2 * H);
    }

    const C* recurrent_bias_h = s.bias ? s.bias + width + 2 * H : nullptr;
    recurrent::for_each_active_row(s, [&](int64_t b) {
      C* z = s.gates + b * width;
      C* r = z + H;
      C* candidate = z + 2 * H;
      const C* x = s.projected[b];
      if (linear_before_reset) {
        update_and_reset_gates(s, f, z, x);
        for (int64_t j = 0; j < H; ++j) {
          const C rh = candidate[j] + (recurrent_bias_h ? recurrent_bias_h[j] : C(0));
          candidate[j] = x[2 * H + j] + r[j] * rh;
        }
      } else {
        for (int64_t j = 0; j < H; ++j) candidate[j] += x[2 * H + j];
      }
      recurrent::clip_gate(s.attrs, candidate, H);
      recurrent::apply_activation(g, candidate, H);
      C* h = s.hidden + b * H;
      for (int64_t j = 0; j < H; ++j) h[j] = (C(1) - z[j]) * candidate[j] + z[j] * h[j];
    });
  }

  // gates z and r (2H values from `z` on) = f(recurrent product + input projection).
  template <class C>
  static void update_and_reset_gates(const StepData<C>& s, const recurrent::Activation& f, C* z,
                                     const C* x) {
    const int64_t n = 2 * s.shape.hidden;
    for (int64_t j = 0; j < n; ++j) z[j] += x[j];
    recurrent::clip_gate(s.attrs, z, n);
    recurrent::apply_activation(f, z, n);
  }
};

}  // namespace

CpuKernel make_gru(const NodeInfo& info) {
  GruCell cell;
  cell.linear_before_reset = recurrent::gru_linear_before_reset(info);
  return recurrent::make_recurrent_kernel(info, recurrent::gru_cell_spec(cell.linear_before_reset),
                                          cell);
}

}  // namespace kiln
