#include "opdefs/mel_weight_matrix.h"

#include <cmath>
#include <string>

#include "core/dtype_dispatch.h"
#include "opdefs/signal.h"

namespace kiln {
namespace {

double hertz_to_mel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double mel_to_hertz(double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); }

// The value of input `index`, a scalar or one-element float16/float/double/bfloat16 tensor.
double scalar_float_value(const NodeInputs& inputs, size_t index, const char* what) {
  if (!inputs.has_input(index)) inputs.fail(std::string(what) + " is required");
  const Tensor& t = inputs.inputs[index];
  if (t.element_count() != 1 || t.rank() > 1) {
    inputs.fail(std::string(what) + " must be a scalar, got shape " + t.shape().to_string());
  }
  switch (t.dtype()) {
    case DataType::Float32:
      return to_double(t.data<float>()[0]);
    case DataType::Float64:
      return to_double(t.data<double>()[0]);
    case DataType::Float16:
      return to_double(t.data<Float16>()[0]);
    case DataType::BFloat16:
      return to_double(t.data<BFloat16>()[0]);
    default:
      break;
  }
  inputs.fail(std::string(what) + " must be float16, float, double or bfloat16, got " +
              std::string(dtype_name(t.dtype())));
}

}  // namespace

MelWeightMatrixPlan resolve_mel_weight_matrix(const NodeInputs& inputs) {
  const int64_t mel_bins = scalar_int_value(inputs, 0, "num_mel_bins");
  const int64_t dft_length = scalar_int_value(inputs, 1, "dft_length");
  const int64_t sample_rate = scalar_int_value(inputs, 2, "sample_rate");
  const double lower_hz = scalar_float_value(inputs, 3, "lower_edge_hertz");
  const double upper_hz = scalar_float_value(inputs, 4, "upper_edge_hertz");
  if (mel_bins < 1 || dft_length < 1 || sample_rate < 1) {
    inputs.fail("num_mel_bins, dft_length and sample_rate must be positive, got " +
                std::to_string(mel_bins) + ", " + std::to_string(dft_length) + " and " +
                std::to_string(sample_rate));
  }
  if (!(lower_hz >= 0 && lower_hz <= upper_hz)) {
    inputs.fail("need 0 <= lower_edge_hertz <= upper_edge_hertz, got " + std::to_string(lower_hz) +
                " and " + std::to_string(upper_hz));
  }
  MelWeightMatrixPlan plan;
  plan.mel_bins = mel_bins;
  plan.spectrum_bins = dft_length / 2 + 1;
  // The filter edges: mel_bins + 2 points from the lower edge in equal mel steps, each mapped
  // to the spectrum bin at or below it. The step divides the mel range by mel_bins + 2, as the
  // ONNX reference implementation (and its test data) do, so the last filter ends one step
  // below upper_edge_hertz.
  const double low_mel = hertz_to_mel(lower_hz);
  const double mel_step = (hertz_to_mel(upper_hz) - low_mel) / static_cast<double>(mel_bins + 2);
  plan.edge.resize(static_cast<size_t>(mel_bins + 2));
  for (int64_t i = 0; i < mel_bins + 2; ++i) {
    const double hz = mel_to_hertz(static_cast<double>(i) * mel_step + low_mel);
    plan.edge[i] = static_cast<int64_t>(
        std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
    if (plan.edge[i] < 0 || plan.edge[i] >= plan.spectrum_bins) {
      inputs.fail("upper_edge_hertz " + std::to_string(upper_hz) +
                  " lies beyond the spectrum of dft_length " + std::to_string(dft_length) +
                  " at sample_rate " + std::to_string(sample_rate));
    }
  }
  return plan;
}

}  // namespace kiln
