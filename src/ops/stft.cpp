// STFT: the short-time Fourier transform. The signal [batch, length, 1 or 2] is cut into
// frames of frame_length samples every frame_step samples; each frame, multiplied by the
// window, is transformed. Output [batch, frames, bins, 2] with bins = frame_length / 2 + 1
// when onesided (the default, real signals only) and frame_length otherwise.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/cpu/fft.h"
#include "core/element_storage.h"
#include "core/thread_pool.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/signal_util.h"

namespace kiln {
namespace {

using cpu::Complex;

template <class T>
void transform_frames(const T* signal, const T* window, T* out, const StftSizes& g) {
  const int64_t count = g.batch * g.frames;
  if (count == 0) return;
  const auto plan = cpu::fft_plan(g.frame_length);
  const int64_t grain = std::max<int64_t>(1, 32768 / g.frame_length);
  parallel_for(count, grain, [&](int64_t begin, int64_t end) {
    std::vector<Complex> buf(static_cast<size_t>(g.frame_length + plan->scratch_size()));
    Complex* frame = buf.data();
    Complex* scratch = frame + g.frame_length;
    for (int64_t f = begin; f < end; ++f) {
      const int64_t b = f / g.frames, start = (f % g.frames) * g.frame_step;
      const T* src = signal + (b * g.signal_length + start) * g.components;
      for (int64_t j = 0; j < g.frame_length; ++j, src += g.components) {
        const double w = window ? to_double(window[j]) : 1.0;
        const double im = g.components == 2 ? to_double(src[1]) : 0.0;
        frame[j] = Complex(to_double(src[0]) * w, im * w);
      }
      plan->transform(frame, false, scratch);
      T* dst = out + f * g.bins * 2;
      for (int64_t k = 0; k < g.bins; ++k) {
        dst[2 * k] = from_double<T>(frame[k].real());
        dst[2 * k + 1] = from_double<T>(frame[k].imag());
      }
    }
  });
}

CpuKernel make_stft(const NodeInfo& info) {
  const StftAttrs attrs = parse_stft_attrs(info);
  return [=](OpContext& ctx) {
    const StftSizes g =
        resolve_stft(NodeInputs{ctx.node(), ctx.inputs()}, attrs, cpu::kMaxFftLength);
    const Tensor& signal = ctx.input(0);
    const Tensor* window = g.has_window ? &ctx.input(2) : nullptr;
    visit_signal_float(ctx, signal.dtype(), "signal", [&]<class T>() {
      Tensor& y = ctx.allocate_output(0, signal.dtype(), g.out_shape);
      transform_frames(signal.data<T>(), window ? window->data<T>() : nullptr, y.mutable_data<T>(),
                       g);
    });
  };
}

}  // namespace

KILN_CPU_OPS(stft);
void register_stft_ops(OpRegistry& registry) { registry.add("STFT", make_stft); }

}  // namespace kiln
