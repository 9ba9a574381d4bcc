// MelWeightMatrix: the [dft_length / 2 + 1, num_mel_bins] matrix that maps the bins of a
// onesided spectrum to triangular filters equally spaced on the mel scale,
// mel(f) = 2595 * log10(1 + f / 700), between lower_edge_hertz and upper_edge_hertz.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/signal_util.h"

namespace kiln {
namespace {

double hertz_to_mel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double mel_to_hertz(double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); }

CpuKernel make_mel_weight_matrix(const NodeInfo& info) {
  const DataType out_type = output_datatype_attr(info);
  return [=](OpContext& ctx) {
    const int64_t mel_bins = scalar_int_input(ctx, 0, "num_mel_bins");
    const int64_t dft_length = scalar_int_input(ctx, 1, "dft_length");
    const int64_t sample_rate = scalar_int_input(ctx, 2, "sample_rate");
    const double lower_hz = scalar_float_input(ctx, 3, "lower_edge_hertz");
    const double upper_hz = scalar_float_input(ctx, 4, "upper_edge_hertz");
    if (mel_bins < 1 || dft_length < 1 || sample_rate < 1) {
      ctx.fail("num_mel_bins, dft_length and sample_rate must be positive, got " +
               std::to_string(mel_bins) + ", " + std::to_string(dft_length) + " and " +
               std::to_string(sample_rate));
    }
    if (!(lower_hz >= 0 && lower_hz <= upper_hz)) {
      ctx.fail("need 0 <= lower_edge_hertz <= upper_edge_hertz, got " + std::to_string(lower_hz) +
               " and " + std::to_string(upper_hz));
    }
    const int64_t spectrum_bins = dft_length / 2 + 1;

    // The filter edges: mel_bins + 2 points from the lower edge in equal mel steps, each
    // mapped to the spectrum bin at or below it. The step divides the mel range by
    // mel_bins + 2, as the ONNX reference implementation (and its test data) do, so the
    // last filter ends one step below upper_edge_hertz.
    const double low_mel = hertz_to_mel(lower_hz);
    const double mel_step = (hertz_to_mel(upper_hz) - low_mel) / static_cast<double>(mel_bins + 2);
    std::vector<int64_t> edge(static_cast<size_t>(mel_bins + 2));
    for (int64_t i = 0; i < mel_bins + 2; ++i) {
      const double hz = mel_to_hertz(static_cast<double>(i) * mel_step + low_mel);
      edge[i] = static_cast<int64_t>(
          std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
      if (edge[i] < 0 || edge[i] >= spectrum_bins) {
        ctx.fail("upper_edge_hertz " + std::to_string(upper_hz) +
                 " lies beyond the spectrum of dft_length " + std::to_string(dft_length) +
                 " at sample_rate " + std::to_string(sample_rate));
      }
    }

    std::vector<double> weights(static_cast<size_t>(spectrum_bins * mel_bins), 0.0);
    auto weight = [&](int64_t bin, int64_t mel) -> double& {
      return weights[bin * mel_bins + mel];
    };
    for (int64_t m = 0; m < mel_bins; ++m) {
      const int64_t left = edge[m], center = edge[m + 1], right = edge[m + 2];
      // Rising side, including the peak at the center; a filter of zero width is a spike.
      if (center == left) {
        weight(center, m) = 1.0;
      } else {
        for (int64_t j = left; j <= center; ++j) {
          weight(j, m) = static_cast<double>(j - left) / static_cast<double>(center - left);
        }
      }
      // Falling side, from the center (overwriting its 1 with the same value) to the right.
      for (int64_t j = center; j < right; ++j) {
        weight(j, m) = static_cast<double>(right - j) / static_cast<double>(right - center);
      }
    }
    Tensor& y = ctx.allocate_output(0, out_type, Shape{spectrum_bins, mel_bins});
    store_values(y, weights);
  };
}

}  // namespace

KILN_CPU_OPS(mel_weight_matrix);
void register_mel_weight_matrix_ops(OpRegistry& registry) {
  registry.add("MelWeightMatrix", make_mel_weight_matrix);
}

}  // namespace kiln
