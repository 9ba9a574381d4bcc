// DFT: the discrete Fourier transform along one axis of a signal whose last dimension holds
// one (real) or two (real, imaginary) components.
//
// Opset 17 takes the axis as an attribute (default 1), opset 20 as an optional third input
// (default -2). dft_length zero-pads or truncates the signal. onesided keeps the first
// n/2 + 1 bins of a real signal's spectrum; with inverse it reads such a half spectrum and
// returns the real signal of length dft_length (default 2 * (bins - 1)), like numpy's irfft.
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

// One run's geometry: the input viewed as [outer, in_length, inner, in_components] and the
// output as [outer, out_length, inner, out_components]; each (outer, inner) pair is a line
// transformed on its own.
struct DftLines {
  int64_t outer = 1, inner = 1;
  int64_t in_length = 0, in_components = 1;
  int64_t out_length = 0, out_components = 2;
  int64_t n = 0;               // transform length
  bool inverse = false;        // inverse transform, scaled by 1/n
  bool half_spectrum = false;  // the input holds bins 0..n/2 of a Hermitian spectrum
};

// Loads one line into `buf` (n elements) as the complex sequence to transform.
template <class T>
void load_line(const T* in, int64_t stride, const DftLines& g, Complex* buf) {
  auto element = [&](int64_t j) {
    const T* p = in + j * stride;
    return Complex(to_double(p[0]), g.in_components == 2 ? to_double(p[1]) : 0.0);
  };
  if (!g.half_spectrum) {
    const int64_t used = std::min(g.in_length, g.n);
    for (int64_t j = 0; j < used; ++j) buf[j] = element(j);
    std::fill(buf + used, buf + g.n, Complex(0, 0));
    return;
  }
  // Rebuild the full spectrum from its first half: X[n - k] = conj(X[k]). The imaginary parts
  // of bin 0 (and of bin n/2 for even n) only add an imaginary part to the result, which is
  // dropped.
  const int64_t half = g.n / 2;
  for (int64_t k = 0; k <= half; ++k) buf[k] = k < g.in_length ? element(k) : Complex(0, 0);
  for (int64_t k = half + 1; k < g.n; ++k) buf[k] = std::conj(buf[g.n - k]);
}

template <class T>
void transform_lines(const T* in, T* out, const DftLines& g) {
  const int64_t lines = g.outer * g.inner;
  if (lines == 0) return;
  const auto plan = cpu::fft_plan(g.n);
  const int64_t in_stride = g.inner * g.in_components;
  const int64_t out_stride = g.inner * g.out_components;
  const double scale = g.inverse ? 1.0 / static_cast<double>(g.n) : 1.0;
  const int64_t grain = std::max<int64_t>(1, 32768 / g.n);
  parallel_for(lines, grain, [&](int64_t begin, int64_t end) {
    std::vector<Complex> buf(static_cast<size_t>(g.n + plan->scratch_size()));
    Complex* line = buf.data();
    Complex* scratch = line + g.n;
    for (int64_t l = begin; l < end; ++l) {
      const int64_t o = l / g.inner, i = l % g.inner;
      load_line(in + (o * g.in_length * g.inner + i) * g.in_components, in_stride, g, line);
      plan->transform(line, g.inverse, scratch);
      T* dst = out + (o * g.out_length * g.inner + i) * g.out_components;
      for (int64_t k = 0; k < g.out_length; ++k, dst += out_stride) {
        dst[0] = from_double<T>(line[k].real() * scale);
        if (g.out_components == 2) dst[1] = from_double<T>(line[k].imag() * scale);
      }
    }
  });
}

CpuKernel make_dft(const NodeInfo& info) {
  const DftAttrs attrs = parse_dft_attrs(info);
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& shape = x.shape();
    const DftSizes sizes =
        resolve_dft(NodeInputs{ctx.node(), ctx.inputs()}, attrs, cpu::kMaxFftLength);
    const int64_t rank = static_cast<int64_t>(shape.size());

    DftLines g;
    g.in_length = shape[sizes.axis];
    g.in_components = shape[rank - 1];
    for (int64_t d = 0; d < sizes.axis; ++d) g.outer *= shape[d];
    for (int64_t d = sizes.axis + 1; d < rank - 1; ++d) g.inner *= shape[d];
    g.inverse = attrs.inverse;
    g.half_spectrum = sizes.half_spectrum;
    g.n = sizes.n;
    g.out_length = sizes.out_length;
    g.out_components = sizes.out_components;
    visit_signal_float(ctx, x.dtype(), "input", [&]<class T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), sizes.out_shape);
      transform_lines(x.data<T>(), y.mutable_data<T>(), g);
    });
  };
}

}  // namespace

KILN_CPU_OPS(dft);
void register_dft_ops(OpRegistry& registry) { registry.add("DFT", make_dft); }

}  // namespace kiln
