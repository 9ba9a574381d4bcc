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

struct StftGeometry {
  int64_t batch = 0, signal_length = 0, components = 1;
  int64_t frame_step = 1, frame_length = 0, frames = 0, bins = 0;
};

template <class T>
void transform_frames(const T* signal, const T* window, T* out, const StftGeometry& g) {
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
  const bool onesided = info.attr_int("onesided", 1) != 0;
  return [=](OpContext& ctx) {
    const Tensor& signal = ctx.input(0);
    const Shape& shape = signal.shape();
    if (shape.size() != 3 || (shape[2] != 1 && shape[2] != 2)) {
      ctx.fail("signal must have shape [batch, length, 1 or 2], got " + shape.to_string());
    }
    StftGeometry g;
    g.batch = shape[0];
    g.signal_length = shape[1];
    g.components = shape[2];
    if (onesided && g.components == 2) {
      ctx.fail("onesided needs a real signal (last dimension 1); set onesided=0 for complex");
    }
    g.frame_step = scalar_int_input(ctx, 1, "frame_step");
    if (g.frame_step < 1)
      ctx.fail("frame_step must be positive, got " + std::to_string(g.frame_step));

    const Tensor* window = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (window) {
      if (window->rank() != 1) {
        ctx.fail("window must be 1-D, got shape " + window->shape().to_string());
      }
      if (window->dtype() != signal.dtype()) {
        ctx.fail("window must have the signal's type " + std::string(dtype_name(signal.dtype())) +
                 ", got " + std::string(dtype_name(window->dtype())));
      }
    }
    if (ctx.has_input(3)) {
      g.frame_length = scalar_int_input(ctx, 3, "frame_length");
      if (window && window->shape()[0] != g.frame_length) {
        ctx.fail("window length " + std::to_string(window->shape()[0]) +
                 " differs from frame_length " + std::to_string(g.frame_length));
      }
    } else {
      // Without either, the whole signal is one frame.
      g.frame_length = window ? window->shape()[0] : g.signal_length;
    }
    if (g.frame_length < 1 || g.frame_length > cpu::kMaxFftLength) {
      ctx.fail("frame_length must be in [1, " + std::to_string(cpu::kMaxFftLength) + "], got " +
               std::to_string(g.frame_length));
    }
    g.frames = g.signal_length >= g.frame_length
                   ? (g.signal_length - g.frame_length) / g.frame_step + 1
                   : 0;
    g.bins = onesided ? g.frame_length / 2 + 1 : g.frame_length;

    visit_signal_float(ctx, signal.dtype(), "signal", [&]<class T>() {
      Tensor& y = ctx.allocate_output(0, signal.dtype(), Shape{g.batch, g.frames, g.bins, 2});
      transform_frames(signal.data<T>(), window ? window->data<T>() : nullptr, y.mutable_data<T>(),
                       g);
    });
  };
}

}  // namespace

KILN_CPU_OPS(stft);
void register_stft_ops(OpRegistry& registry) { registry.add("STFT", make_stft); }

}  // namespace kiln
